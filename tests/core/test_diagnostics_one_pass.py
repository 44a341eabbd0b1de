"""The diagnostics are read off one-row-per-group aggregations, never a second ranking: each
count they derive so equals its definition on the ranked rows (docs/definitions.md §7)."""

from __future__ import annotations

import os
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.columns import GRADE, RANK, SCORE
from polars_rankk.core.evaluation import diagnostics
from polars_rankk.core.kernel import loader
from tests.core.test_native import _policies, tables
from tests.support.examples import examples


def _by_definition(evaluation: rk.Evaluation) -> dict[str, object]:
    """Ties cut by K (the scores at ranks K and K+1 are equal) and relevant truth items
    outside the candidate pool, counted on the ranked rows as the definitions state them."""
    spec, prepared = evaluation._spec, evaluation._prepared
    keys = list(spec.keys)
    ranked = prepared.ranked.collect()
    following = pl.col(SCORE).shift(-1).over(keys, order_by=RANK)
    ties = ranked.with_columns(following.alias("_next")).filter(pl.col("_next") == pl.col(SCORE))
    straddling = {k: ties.filter(pl.col(RANK) == k).height for k in spec.ks}
    relevant = prepared.truth.collect().filter(pl.col(GRADE) >= spec.policy.relevance_threshold)
    pool = ranked.select(*keys, spec.item).unique()
    outside = relevant.join(pool, on=[*keys, spec.item], how="anti").height
    return {"straddling": straddling, "outside": outside}


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=tables(), policy=_policies(), ks=st.sampled_from([[1], [1, 3, 10], [2, 5]]))
def test_diagnostics_equal_their_definitions_on_the_ranked_rows(
    data: tuple[pl.DataFrame, pl.DataFrame, bool], policy: rk.Policy, ks: list[int]
) -> None:
    candidates, truth, labelled = data
    if policy.duplicates == "error":
        policy = policy.replace(duplicates="first")
    if labelled:
        candidates, truth = candidates.rename({"label": "relevance"}), None
        policy = policy.replace(unjudged="keep")
    else:
        candidates = candidates.drop("label")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            evaluation = rk.evaluate(candidates, truth, k=ks, group_by="user", policy=policy)
        except ValueError:  # a policy refusing the input (invalid_scores="error" …)
            assume(False)
    expected = _by_definition(evaluation)
    found = evaluation.diagnostics
    assert (
        dict(found.per_k.select("k", "tie_blocks_straddling_k").iter_rows())
        == expected["straddling"]
    )
    assert found.counts["relevant_outside_pool"] == expected["outside"]


def test_an_eager_evaluation_counts_from_its_collected_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The per-group sums are not computed again for the diagnostics."""
    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 1], "score": [0.5, 0.5, 0.1]})
    truth = pl.DataFrame({"q": [1, 2, 3], "item": [2, 9, 1]})
    evaluation = rk.evaluate(candidates, truth, k=[1, 2], group_by="q")
    given_sums: list[object] = []
    plan = diagnostics.diagnostics_plan

    def spy(*args: object) -> object:
        given_sums.append(args[2] if len(args) > 2 else None)
        return plan(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(diagnostics, "diagnostics_plan", spy)
    counts = evaluation.diagnostics.counts
    assert given_sums == [evaluation._all_group_sums]
    assert counts["groups_in_truth"] == 3
    assert counts["groups_without_candidates"] == 1
    assert counts["relevant_outside_pool"] == 2
    assert evaluation.diagnostics.per_k["tie_blocks_straddling_k"].to_list() == [1, 0]


def _diagnostics(
    candidates: pl.DataFrame,
    truth: pl.DataFrame | None,
    ks: list[int],
    policy: rk.Policy,
    lazy: bool,
) -> tuple[rk.Diagnostics, bool]:
    """The evaluation's diagnostics, and whether the kernel's per-group facts made them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if lazy:
            evaluation = rk.evaluate(
                candidates.lazy(),
                None if truth is None else truth.lazy(),
                k=ks,
                group_by="user",
                policy=policy,
            ).collect()
        else:
            evaluation = rk.evaluate(candidates, truth, k=ks, group_by="user", policy=policy)
        return evaluation.diagnostics, evaluation._prepared.facts is not None


@pytest.mark.skipif(not loader.status().loaded, reason="the native kernel is not built")
@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=tables(),
    policy=_policies(),
    ks=st.sampled_from([[1], [1, 3, 10], [2, 5]]),
    lazy=st.booleans(),
)
def test_the_kernels_facts_give_the_pure_polars_diagnostics(
    data: tuple[pl.DataFrame, pl.DataFrame, bool], policy: rk.Policy, ks: list[int], lazy: bool
) -> None:
    """Read off the kernel's ranking or aggregated in Polars, the diagnostics are the same:
    ties, copies, invalid scores, short lists, groups only in the candidates (the last) or
    only in the truth, under each policy."""
    candidates, truth, labelled = data
    if policy.duplicates == "error":
        policy = policy.replace(duplicates="first")
    outsider = "u-only" if candidates.schema["user"] == pl.String else 1000
    only_in_candidates = candidates.head(3).with_columns(user=pl.lit(outsider))
    candidates = pl.concat([candidates, only_in_candidates.cast(candidates.schema)])
    if labelled:
        candidates, truth = candidates.rename({"label": "relevance"}), None
        policy = policy.replace(unjudged="keep")
    else:
        candidates = candidates.drop("label")
    try:
        found, from_kernel = _diagnostics(candidates, truth, ks, policy, lazy)
    except ValueError:  # a policy refusing the input (invalid_scores="error" …)
        assume(False)
    assert from_kernel == (not labelled and policy.relevance_threshold > 0)
    os.environ[loader.SWITCH] = "0"
    try:
        expected, _ = _diagnostics(candidates, truth, ks, policy, lazy)
    finally:
        del os.environ[loader.SWITCH]
    assert found.counts == expected.counts
    assert_frame_equal(found.per_k, expected.per_k)
    assert_frame_equal(found.relevance_grades, expected.relevance_grades)


@pytest.mark.skipif(not loader.status().loaded, reason="the native kernel is not built")
def test_an_eager_evaluation_collects_the_kernels_facts_with_its_sums() -> None:
    """The facts come out of the call that computed the sums: an eager evaluation holds them
    collected (its diagnostics call no kernel again); a lazy one plans them on that call."""
    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 1], "score": [0.5, 0.5, 0.1]})
    truth = pl.DataFrame({"q": [1, 2, 3], "item": [2, 9, 1]})
    eager = rk.evaluate(candidates, truth, k=[1, 2], group_by="q")
    lazy = rk.evaluate(candidates.lazy(), truth.lazy(), k=[1, 2], group_by="q")
    assert eager._prepared.facts is not None
    assert lazy._prepared.facts is not None
    assert "group_sums" not in eager._prepared.facts.explain()
    assert "group_sums" in lazy._prepared.facts.explain()
    assert eager.diagnostics.counts["constant_score_groups"] == 1
    tie_at_1 = eager.diagnostics.per_k.filter(pl.col("k") == 1)["tie_blocks_straddling_k"]
    assert tie_at_1.item() == 1


def test_evaluations_whose_diagnostics_are_never_read_leave_the_facts_out() -> None:
    """Inside `without_facts` (an out-of-core run's partitions) the kernel's call reads no
    facts; diagnostics asked for all the same come from the Polars aggregation, equal."""
    from polars_rankk.core.kernel import facts

    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 1], "score": [0.5, 0.5, 0.1]})
    truth = pl.DataFrame({"q": [1, 2, 3], "item": [2, 9, 1]})
    with facts.without_facts():
        inside = rk.evaluate(candidates, truth, k=[1, 2], group_by="q")
    outside = rk.evaluate(candidates, truth, k=[1, 2], group_by="q")
    assert inside._prepared.facts is None
    assert inside.per_group.equals(outside.per_group)
    assert inside.diagnostics.counts == outside.diagnostics.counts
    assert_frame_equal(inside.diagnostics.per_k, outside.diagnostics.per_k)
