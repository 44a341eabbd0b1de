"""`Evaluation.item_ranks` (the compiled kernel's one ranking, to a depth) places every asked
(group, item) where the evaluation's own ranked list (`ranked_items()`, ranked in Polars) has
it: on data full of tied, invalid and repeated scores, repeated items, groups without a list
and items never listed, integer and string ids, one and two key columns, under every
deterministic tie order and invalid-score policy."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.kernel import loader
from tests.support.examples import examples

needs_kernel = pytest.mark.skipif(not loader.status().loaded, reason="the kernel is not loaded")

SCORES = (0.0, 0.5, 0.5, 1.0, math.nan, None, math.inf, -math.inf)


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Candidates, the asked pairs (one per (group, item)) and the group keys."""
    text = draw(st.booleans())
    two_keys = draw(st.booleans())
    rows = draw(
        st.lists(
            st.tuples(
                st.integers(0, 3), st.integers(0, 1), st.integers(0, 7), st.sampled_from(SCORES)
            ),
            min_size=1,
            max_size=60,
        )
    )
    asked = draw(
        st.lists(
            st.tuples(st.integers(0, 4), st.integers(0, 1), st.integers(0, 9)),
            min_size=1,
            max_size=30,
        )
    )

    def item(values: list[int]) -> pl.Series:
        if text:
            return pl.Series("item", [f"i{v}" for v in values], dtype=pl.String)
        return pl.Series("item", values, dtype=pl.Int64)

    candidates = pl.DataFrame(
        {
            "g": [r[0] for r in rows],
            "s": [r[1] for r in rows],
            "score": pl.Series([r[3] for r in rows], dtype=pl.Float64),
        }
    ).with_columns(item([r[2] for r in rows]))
    pairs = (
        pl.DataFrame({"g": [a[0] for a in asked], "s": [a[1] for a in asked]})
        .with_columns(item([a[2] for a in asked]))
        .unique(maintain_order=True)
    )
    keys = ["g", "s"] if two_keys else ["g"]
    if not two_keys:
        pairs = pairs.select("g", "item").unique(maintain_order=True)
    return candidates.cast({"g": pl.Int64, "s": pl.Int64}), pairs.cast({"g": pl.Int64}), keys


#: What both properties draw: the tables, the tie order, invalid scores, the depth asked.
ASKED = {
    "found": tables(),
    "ties": st.sampled_from(["trec_eval", "item_asc", "input_order"]),
    "invalid": st.sampled_from(["drop", "lowest"]),
    "depth": st.integers(1, 6),
}


@needs_kernel
@given(**ASKED)
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_kernel_places_each_item_where_the_ranked_list_has_it(
    found: tuple[pl.DataFrame, pl.DataFrame, list[str]], ties: str, invalid: str, depth: int
) -> None:
    candidates, pairs, keys = found
    policy = rk.Policy(ties=ties, invalid_scores=invalid)  # type: ignore[arg-type]
    truth = pairs.select(*keys, "item").with_columns(relevance=pl.lit(1))
    evaluation = rk.evaluate(candidates, truth, k=depth, group_by=keys, policy=policy)
    places = evaluation.item_ranks(pairs.select(*keys, "item"), depth)
    assert places is not None
    ranked = evaluation.ranked_items()
    assert ranked is not None
    rank = pl.col("rank")
    expected = (
        pairs.select(*keys, "item")
        .join(ranked.collect(), on=[*keys, "item"], how="left", maintain_order="left")
        .select(
            pl.when(rank.is_null())
            .then(0)
            .when(rank > depth)
            .then(depth + 1)
            .otherwise(rank)
            .alias("rank")
        )
    )
    assert places.to_list() == expected["rank"].to_list()


@needs_kernel
def test_items_the_kernel_cannot_place_are_said_with_none() -> None:
    candidates = pl.DataFrame({"g": [1, 1], "item": [1, 2], "score": [0.5, 0.5]})
    truth = pl.DataFrame({"g": [1], "item": [2]})
    pairs = pl.DataFrame({"g": [1], "item": [2]})
    # A tie order that reads the grades, and pairs of another item dtype: the list is needed.
    grades = rk.evaluate(candidates, truth, k=1, group_by="g", policy=rk.Policy(ties="optimistic"))
    assert grades.item_ranks(pairs, 1) is None
    plain = rk.evaluate(candidates, truth, k=1, group_by="g")
    assert plain.item_ranks(pairs.cast({"item": pl.Int32}), 1) is None
    assert plain.item_ranks(pairs, 1) is not None


@needs_kernel
@given(**ASKED, listed=st.integers(1, 6))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_evaluations_own_pass_lists_the_places_the_kernel_ranks_again(
    found: tuple[pl.DataFrame, pl.DataFrame, list[str]],
    ties: str,
    invalid: str,
    depth: int,
    listed: int,
) -> None:
    """`ranked_places` (the evaluation's own ranking pass listing each group's first ranks)
    gives `item_ranks`' places, an item past the depth 0 as one not listed, for integer and
    text items; None where fewer ranks were listed than asked."""
    from polars_rankk.core.evaluation.pipeline import evaluate_plan
    from polars_rankk.core.inputs.evaluation_inputs import Inputs
    from polars_rankk.core.names.plan import Plan

    candidates, pairs, keys = found
    policy = rk.Policy(ties=ties, invalid_scores=invalid)  # type: ignore[arg-type]
    truth = pairs.select(*keys, "item").with_columns(relevance=pl.lit(1))
    plan = Plan.of(["precision", "r_precision"], [depth], policy)
    inputs = Inputs(candidates, truth, group_by=keys, places=listed)
    evaluation = evaluate_plan(plan, inputs)
    asked = pairs.select(*keys, "item")
    places = evaluation.ranked_places(asked, depth)
    if depth > listed:
        assert places is None
        return
    again = evaluation.item_ranks(asked, depth)
    assert places is not None
    assert again is not None
    assert places.to_list() == [0 if rank > depth else rank for rank in again.to_list()]
    # The sums are those of the evaluation that lists nothing.
    plain = rk.evaluate(candidates, truth, k=depth, group_by=keys, policy=policy)
    assert evaluation.summary().equals(plain.summary(metrics=["precision", "r_precision"]))
