"""One Policy, one number: the expression API equals `evaluate` per group, exactly.

Hypothesis draws pre-labelled rows full of ties, repeated items, NaN/null/inf scores,
graded and negative labels and an ``n_relevant`` column below and above the labelled count,
with string or int ids, and a `Policy` with every field drawn. Where `evaluate` drops a group
(empty truth excluded, a list shorter than K skipped) the expression is null; where `evaluate`
raises on the rows (invalid scores, repeated items it forbids) the expression's query raises.
Without ``n_relevant`` R_g is the rows' relevant count for both; the rows cannot say a group
has nothing to find, so the expression never leaves one out: under ``empty_truth="exclude"``
it is held to `evaluate` under ``"zero"``, under ``"zero"`` and ``"nan"`` to `evaluate` itself.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.expressions.points import DEPRECATED_POINTS
from polars_rankk.core.metrics.families.compat_q import reads_ideal
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.types import (
    AveragePrecisionDenominator,
    DuplicatePolicy,
    EmptyTruthPolicy,
    GainPolicy,
    InvalidScorePolicy,
    ShortListPolicy,
    TiePolicy,
)
from tests.support.examples import examples
from tests.support.reference import per_group_dict

K = [1, 2, 3, 5]


def _builder(name: str, function_name: str) -> Callable[..., pl.Expr]:
    """A metric's expression function: its own, or its family's at its point
    (``rk.iprec_at_recall(recall=0.5)`` for iprec_at_recall_0_50)."""
    if name not in DEPRECATED_POINTS:
        return getattr(rk, function_name)  # type: ignore[no-any-return]
    family, parameter, value = DEPRECATED_POINTS[name]
    return functools.partial(getattr(rk, family), **{parameter: value})


#: The expression function of every built-in accuracy metric, by metric, from the registry
#: (but the Q-measure and Compat, which read the ideal ranking only `rk.evaluate` joins).
BUILDERS = {
    name: getattr(rk, metric.function_name)
    for name, metric in REGISTRY.items()
    if metric.accuracy and metric.origin == "built-in" and metric.has_k and not reads_ideal(metric)
}
#: Metrics without a cut-off.
WHOLE_LIST = {
    name: _builder(name, metric.function_name)
    for name, metric in REGISTRY.items()
    if metric.accuracy
    and metric.origin == "built-in"
    and not metric.has_k
    and not reads_ideal(metric)
}
#: Metrics with no expectation over tie orderings: both paths raise under ties="expected".
NOT_EXPECTED = {name for name, metric in REGISTRY.items() if not metric.supports_expected_ties}
SCORES = (0.0, 0.5, 1.0, 2.0, -1.0)
INVALID = (None, math.nan, math.inf, -math.inf)
INT_IDS = (*range(8), 10, 9)
STR_IDS = ("a", "b", "B", "é", "10", "9", "日本", "z")


def _choices(alias: Any) -> tuple[str, ...]:
    return alias.__args__  # type: ignore[no-any-return]


@st.composite
def policies(draw: st.DrawFn) -> rk.Policy:
    return rk.Policy(
        short_lists=draw(st.sampled_from(_choices(ShortListPolicy))),
        ap_denominator=draw(st.sampled_from(_choices(AveragePrecisionDenominator))),
        duplicates=draw(st.sampled_from(_choices(DuplicatePolicy))),
        ties=draw(st.sampled_from(_choices(TiePolicy))),
        empty_truth=draw(st.sampled_from(_choices(EmptyTruthPolicy))),
        missing_groups=draw(st.sampled_from(("zero", "exclude"))),
        pool=draw(st.sampled_from(("all", "restrict"))),
        relevance_threshold=draw(st.sampled_from((1, 2, 0.5))),
        gain=draw(st.sampled_from(_choices(GainPolicy))),
        invalid_scores=draw(st.sampled_from(_choices(InvalidScorePolicy))),
        unjudged=draw(st.sampled_from(("keep", "condense"))),
        rbp_persistence=draw(st.sampled_from((0.8, 0.5, 0.95))),
        err_max_grade=draw(st.sampled_from((4, 3, 1.5))),
        negative_grades=draw(st.sampled_from(("nonrelevant", "unjudged"))),
        f_beta=draw(st.sampled_from((1, 0.5, 2))),
        gains=draw(st.sampled_from((None, {0: 1, 2: 5}, {1: 3, -1: 2}))),
        rbp_grades=draw(st.sampled_from(("binary", "graded"))),
        nonrelevant_gain=draw(st.sampled_from(("grade", "zero"))),
    )


@st.composite
def labelled_rows(draw: st.DrawFn) -> tuple[pl.DataFrame, bool]:
    string_ids = draw(st.booleans())
    pool = STR_IDS if string_ids else INT_IDS
    with_invalid = draw(st.booleans())
    with_n_relevant = draw(st.booleans())
    scores = SCORES + (INVALID if with_invalid else ())
    rows = []
    for user in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 8))
        declared = draw(st.integers(0, 6))
        for _ in range(n):
            rows.append(
                {
                    "user": user,
                    "item": draw(st.sampled_from(pool)),
                    "score": draw(st.sampled_from(scores)),
                    "rel": draw(st.sampled_from((0, 0, 1, 2, 3, 0.5, -1))),
                    "n_rel": declared,
                }
            )
    frame = pl.DataFrame(
        rows,
        schema={
            "user": pl.Int64,
            "item": pl.String if string_ids else pl.Int64,
            "score": pl.Float64,
            "rel": pl.Float64,
            "n_rel": pl.Int64,
        },
    )
    return frame, with_n_relevant


#: Every (metric, k) the expression API offers; each example checks a drawn handful of them
#: (each expression ranks the group on its own, so all of them at once are slow to plan).
PAIRS = [(name, k) for name in BUILDERS for k in K] + [(name, None) for name in WHOLE_LIST]


def _expressions(
    policy: rk.Policy, n_relevant: str | None, pairs: list[tuple[str, int | None]]
) -> list[pl.Expr]:
    options: dict[str, Any] = {"by": "score", "item": "item", "policy": policy}
    if n_relevant is not None:
        options["n_relevant"] = n_relevant
    return [
        WHOLE_LIST[name]("rel", **options).alias(f"{name}|")
        if k is None
        else BUILDERS[name]("rel", k=k, **options).alias(f"{name}|{k}")
        for name, k in pairs
    ]


def _expression_values(
    frame: pl.DataFrame,
    policy: rk.Policy,
    n_relevant: str | None,
    pairs: list[tuple[str, int | None]] = PAIRS,
) -> dict:
    wide = frame.group_by("user").agg(_expressions(policy, n_relevant, pairs))
    values = {}
    for row in wide.iter_rows(named=True):
        for column, value in row.items():
            if column != "user":
                name, k = column.split("|")
                values[((row["user"],), name, int(k) if k else None)] = value
    return values


def _same(left: float | None, right: float | None) -> bool:
    if left is None or right is None:
        return left is right
    if math.isnan(left) or math.isnan(right):
        return math.isnan(left) and math.isnan(right)
    return left == right


def _evaluation_error(frame: pl.DataFrame, policy: rk.Policy) -> pl.DataFrame:
    """The groups on which `evaluate` raises under `policy`, or an empty frame."""
    bad = pl.lit(False)
    if policy.invalid_scores == "error":
        bad = bad | ~pl.col("score").is_finite().fill_null(False)
    if policy.duplicates == "error":
        bad = bad | (pl.len().over("user", "item") > 1)
    return frame.filter(bad).select("user").unique()


@settings(
    max_examples=examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=labelled_rows(),
    policy=policies(),
    pairs=st.lists(st.sampled_from(PAIRS), min_size=1, max_size=6, unique=True),
)
def test_expressions_equal_evaluate_per_group(
    data: tuple[pl.DataFrame, bool], policy: rk.Policy, pairs: list[tuple[str, int | None]]
) -> None:
    frame, with_n_relevant = data
    n_relevant = "n_rel" if with_n_relevant else None
    if policy.ties == "expected":
        pairs = [pair for pair in pairs if pair[0] not in NOT_EXPECTED]
        if not pairs:
            return
    metrics = sorted({name for name, _ in pairs})
    raising = set(_evaluation_error(frame, policy)["user"].to_list())
    if raising:
        with pytest.raises(
            (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError),
            match=r"must hold finite|repeats",
        ):
            _expression_values(frame, policy, n_relevant, pairs)
        with pytest.raises(ValueError, match="candidates"):
            rk.evaluate(
                frame,
                None,
                k=K,
                group_by="user",
                relevance="rel",
                n_relevant=n_relevant,
                policy=policy,
                metrics=metrics,
            )
        frame = frame.filter(~pl.col("user").is_in(list(raising)))
        if frame.is_empty():
            return
    got = _expression_values(frame, policy, n_relevant, pairs)
    # Without n_relevant the expression never leaves a group out (see the module docstring).
    leaves_out = not n_relevant and policy.empty_truth == "exclude"
    res = rk.evaluate(
        frame,
        None,
        k=K,
        group_by="user",
        relevance="rel",
        n_relevant=n_relevant,
        policy=replace(policy, empty_truth="zero") if leaves_out else policy,
        metrics=metrics,
    )
    expected = per_group_dict(res.per_group, ["user"])
    for key, value in got.items():
        assert _same(value, expected.get(key)), (key, value, expected.get(key), policy)
    checked = {(name, k) for name, k in pairs}
    assert {key for key in expected if key[1:] in checked} <= set(got)


@pytest.mark.parametrize("ties", _choices(TiePolicy))
def test_rank_column_equals_negated_score(ties: str) -> None:
    frame = pl.DataFrame(
        {
            "user": [1, 1, 1, 1, 2, 2],
            "item": [3, 1, 2, 4, 1, 2],
            "position": pl.Series([1, 2, 2, 3, 1, 2], dtype=pl.UInt32),
            "rel": [0, 1, 1, 0, 1, 0],
        }
    )
    policy = rk.Policy(ties=ties)  # type: ignore[arg-type]
    by_rank = rk.evaluate(
        frame, None, k=[1, 2, 3], group_by="user", relevance="rel", rank="position", policy=policy
    )
    scored = frame.with_columns(score=-pl.col("position").cast(pl.Float64))
    by_score = rk.evaluate(
        scored, None, k=[1, 2, 3], group_by="user", relevance="rel", policy=policy
    )
    assert by_rank.per_group.equals(by_score.per_group)
    via_expression = frame.group_by("user").agg(
        rk.ndcg_at_k("rel", rank="position", k=2, item="item", policy=policy)
    )
    wide = by_rank.wide()
    assert isinstance(wide, pl.DataFrame)
    assert via_expression.sort("user")["ndcg@2"].to_list() == wide["ndcg@2"].to_list()


def test_rank_and_score_together_is_an_error() -> None:
    frame = pl.DataFrame({"user": [1], "item": [1], "position": [1], "rel": [1]})
    with pytest.raises(ValueError, match="not both"):
        rk.evaluate(frame, None, k=1, group_by="user", relevance="rel", score="s", rank="position")
