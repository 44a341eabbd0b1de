"""`rk.label` then any expression equals `evaluate` on the same candidates and truth, per group,
under every policy field: graded truth with unjudged candidates, groups only in the candidates
(null, as `evaluate` leaves them out) or only in the truth (no rows, so no expression value),
repeated items, ties, invalid scores and empty lists of judged items."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.core.test_expression_parity import BUILDERS, NOT_EXPECTED, WHOLE_LIST, policies
from tests.support.examples import examples

K = [1, 2, 3, 5]
PAIRS = [(name, k) for name in BUILDERS for k in K] + [(name, None) for name in WHOLE_LIST]
ITEMS = tuple(range(8))
SCORES = (0.0, 0.5, 1.0, 2.0, None, math.nan)
Case = Callable[..., None]


@st.composite
def candidates_and_truth(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates, truth = [], []
    # Users 0-3 have candidates, users 2-5 have truth: 0-1 only candidates, 4-5 only truth.
    for user in range(4):
        for _ in range(draw(st.integers(1, 6))):
            candidates.append(
                {"user": user, "item": draw(st.sampled_from(ITEMS)),
                 "score": draw(st.sampled_from(SCORES))}
            )  # fmt: skip
    for user in range(2, 6):
        for _ in range(draw(st.integers(0, 5))):
            truth.append(
                {"user": user, "item": draw(st.sampled_from(ITEMS)),
                 "relevance": draw(st.sampled_from((0, 1, 2, 3)))}
            )  # fmt: skip
    candidate_schema = {"user": pl.Int64, "item": pl.Int64, "score": pl.Float64}
    truth_schema = {"user": pl.Int64, "item": pl.Int64, "relevance": pl.Int64}
    return pl.DataFrame(candidates, schema=candidate_schema), pl.DataFrame(
        truth, schema=truth_schema
    )


def _expressions(policy: rk.Policy, pairs: list[tuple[str, int | None]]) -> list[pl.Expr]:
    options: dict[str, Any] = {
        "by": "score", "item": "item", "policy": policy, "unretrieved": "unretrieved",
    }  # fmt: skip
    return [
        WHOLE_LIST[name]("relevance", **options).alias(f"{name}|")
        if k is None
        else BUILDERS[name]("relevance", k=k, **options).alias(f"{name}|{k}")
        for name, k in pairs
    ]


def _same(left: float | None, right: float | None) -> bool:
    if left is None or right is None:
        return left is right
    if math.isnan(left) or math.isnan(right):
        return math.isnan(left) and math.isnan(right)
    return left == right


def _raises(candidates: pl.DataFrame, policy: rk.Policy) -> bool:
    invalid = (
        policy.invalid_scores == "error"
        and not candidates["score"].is_finite().fill_null(False).all()
    )
    repeated = (
        policy.duplicates == "error"
        and candidates.select(pl.struct("user", "item").is_duplicated().any()).item()
    )
    return bool(invalid or repeated)


def drawn_cases(max_examples: int, max_pairs: int) -> Callable[[Case], Case]:
    """A property test over drawn candidates and truth, a policy and metrics at cut-offs."""

    def decorate(test: Case) -> Case:
        checked = given(
            data=candidates_and_truth(),
            policy=policies(),
            pairs=st.lists(st.sampled_from(PAIRS), min_size=1, max_size=max_pairs, unique=True),
        )(test)
        return settings(
            max_examples=max_examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )(checked)

    return decorate


@drawn_cases(max_examples=examples(60), max_pairs=5)
def test_label_then_every_expression_equals_evaluate(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, pairs: list[tuple[str, int | None]]
) -> None:
    candidates, truth = data
    if policy.ties == "expected":
        pairs = [pair for pair in pairs if pair[0] not in NOT_EXPECTED]
        if not pairs:
            return
    if _raises(candidates, policy):
        return  # evaluate raises on these rows; so do the expressions (their own test)
    metrics = sorted({name for name, _ in pairs})
    evaluation = rk.evaluate(candidates, truth, k=K, group_by="user", policy=policy,
                             metrics=metrics)  # fmt: skip
    per_group = evaluation.per_group
    assert isinstance(per_group, pl.DataFrame)
    expected = {
        (row["user"], row["metric"], row["k"]): row["value"]
        for row in per_group.iter_rows(named=True)
    }
    labelled = rk.label(candidates, truth, group_by="user", policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    wide = labelled.group_by("user").agg(_expressions(policy, pairs))
    truth_users = set(truth["user"].to_list())
    for row in wide.iter_rows(named=True):
        for column, value in row.items():
            if column == "user":
                continue
            name, k = column.split("|")
            key = (row["user"], name, int(k) if k else None)
            if row["user"] not in truth_users:
                assert value is None, (key, value)  # evaluate does not evaluate it
                continue
            assert _same(value, expected.get(key)), (key, value, expected.get(key))
    # Whatever evaluate has beyond the expressions is a group without candidates.
    with_rows = set(labelled["user"].to_list())
    assert {user for user, _, _ in expected} - with_rows <= truth_users - with_rows


def test_graded_truth_with_missed_items_gives_evaluate_ndcg() -> None:
    candidates = pl.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.5, 0.1]})
    truth = pl.DataFrame({"user": [1, 1, 1], "item": [2, 8, 9], "relevance": [1, 3, 0]})
    labelled = rk.label(candidates, truth, group_by="user")
    assert labelled["relevance"].to_list() == [None, 1, None]
    assert labelled["unretrieved"].to_list()[0] == [3.0, 0.0]
    want = rk.evaluate(candidates, truth, k=3, metrics=["ndcg", "bpref", "judged"],
                       group_by="user").per_group  # fmt: skip
    options: dict[str, Any] = {"by": "score", "item": "item", "unretrieved": "unretrieved"}
    got = labelled.select(
        rk.ndcg_at_k("relevance", k=3, **options).alias("ndcg"),
        rk.bpref("relevance", **options).alias("bpref"),
        rk.judged_at_k("relevance", k=3, **options).alias("judged"),
    ).row(0, named=True)
    assert got == dict(zip(want["metric"], want["value"], strict=True))
    # Without the missed item's grade 3, the ideal DCG would be too small: 0.63 vs 0.31.
    assert got["ndcg"] == pytest.approx((1 / math.log2(3)) / (3 + 1 / math.log2(3)))


def test_a_group_the_truth_lacks_is_null_not_zero() -> None:
    candidates = pl.DataFrame({"user": [1, 2], "item": [1, 1], "score": [0.5, 0.5]})
    truth = pl.DataFrame({"user": [1], "item": [1]})
    labelled = rk.label(candidates, truth, group_by="user")
    values = (
        labelled.group_by("user")
        .agg(rk.precision_at_k("relevance", by="score", k=1, item="item", n_relevant="n_relevant"))
        .sort("user")
    )
    assert values["precision@1"].to_list() == [1.0, None]
    evaluated = rk.evaluate(candidates, truth, k=1, metrics="precision", group_by="user")
    assert evaluated.per_group["user"].to_list() == [1]


@pytest.mark.parametrize("policy", [rk.Policy(), rk.Policy(unjudged="condense")])
def test_judged_and_condensed_lists_after_label(policy: rk.Policy) -> None:
    candidates = pl.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.8, 0.7]})
    truth = pl.DataFrame({"user": [1, 1], "item": [2, 3], "relevance": [0, 1]})
    labelled = rk.label(candidates, truth, group_by="user", policy=policy)
    options: dict[str, Any] = {"by": "score", "item": "item", "policy": policy,
                               "unretrieved": "unretrieved"}  # fmt: skip
    got = labelled.select(
        rk.judged_at_k("relevance", k=2, **options), rk.precision_at_k("relevance", k=2, **options)
    ).row(0)
    want = rk.evaluate(candidates, truth, k=2, metrics=["judged", "precision"], group_by="user",
                       policy=policy).per_group.sort("metric")  # fmt: skip
    assert dict(zip(want["metric"], want["value"], strict=True)) == {
        "judged": got[0],
        "precision": got[1],
    }
    assert got == ((1.0, 0.5) if policy.unjudged == "condense" else (0.5, 0.0))


def test_the_bundled_graded_truth_gives_evaluate_ndcg_per_user() -> None:
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "data"
    candidates = (
        pl.read_parquet(data / "demo_candidates.parquet")
        .filter(pl.col("system") == "two_tower")
        .drop("system")
    )
    truth = pl.read_parquet(data / "demo_truth.parquet")
    evaluation = rk.evaluate(candidates, truth, k=10, metrics="ndcg", group_by="user")
    labelled = rk.label(candidates, truth, group_by="user")
    assert isinstance(labelled, pl.DataFrame)
    expression = rk.ndcg_at_k("relevance", by="score", k=10, item="item",
                              unretrieved="unretrieved")  # fmt: skip
    got = labelled.group_by("user").agg(expression.alias("got")).drop_nulls("got")
    both = evaluation.per_group.join(got, on="user", how="inner")  # type: ignore[union-attr]
    assert both.height > 1_000
    assert both.filter(pl.col("got") != pl.col("value")).height == 0
    # The evaluated users the expressions do not see are those without candidates: 0 there.
    unseen = evaluation.per_group.join(got, on="user", how="anti")  # type: ignore[union-attr]
    assert unseen["value"].to_list() == [0.0] * unseen.height


@drawn_cases(max_examples=examples(30), max_pairs=4)
def test_rows_labelled_with_the_missed_grades_on_every_row_give_the_same_numbers(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, pairs: list[tuple[str, int | None]]
) -> None:
    """`unretrieved` as a user may write it, the group's list on every one of its rows (as
    `rk.label` wrote it before it wrote the list on each group's first row), in another order
    of the groups: every expression gives the same number."""
    candidates, truth = data
    if policy.ties == "expected":
        pairs = [pair for pair in pairs if pair[0] not in NOT_EXPECTED]
    if not pairs or _raises(candidates, policy):
        return
    labelled = rk.label(candidates, truth, group_by="user", policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    every_row = labelled.with_columns(pl.col("unretrieved").drop_nulls().first().over("user")).sort(
        "user", descending=True, maintain_order=True
    )
    assert every_row["unretrieved"].null_count() == (
        every_row.filter(pl.col("n_relevant").is_null()).height
    )
    got = [
        frame.group_by("user").agg(_expressions(policy, pairs)).sort("user").rows()
        for frame in (labelled, every_row)
    ]
    assert len(got[0]) == len(got[1])
    for new, old in zip(*got, strict=True):
        assert all(_same(a, b) for a, b in zip(new, old, strict=True)), (new, old)
