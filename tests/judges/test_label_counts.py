"""evaluate(..., label_probability=...) of the metrics that read no label (judged, unjudged,
rbp_residual, num_retrieved: the same in every outcome, method "constant") and of the whole
list's counts and set measures (num_relevant, num_relevant_retrieved, set_precision,
set_recall, set_F: functions of the list's relevant count and R, two independent
Poisson-binomial counts, method "counts"): each per-group expectation and standard deviation
equals an enumeration of every label outcome to 1e-12, past 4,096 outcomes too; where the
labels could change them (an unjudged negative grade, kept copies, ties ordered by the
grades, NaN for an empty truth) the outcomes are still enumerated."""

from __future__ import annotations

import itertools
import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.judges.test_label_probability import _enumerated, assert_equal_to_enumeration
from tests.judges.test_label_recursion import _tables

# The trec_eval spellings' notes on how trec_eval would count: not what is tested here.
pytestmark = pytest.mark.filterwarnings(
    "ignore::polars_rankk.core.names.conventions.ToolNameWarning"
)

CONSTANT = ["judged", "unjudged", "rbp_residual", "num_retrieved"]
COUNTS = ["num_relevant", "num_relevant_retrieved", "set_precision", "set_recall", "set_f",
          "set_relative_precision", "set_average_precision", "utility",
          "num_nonrelevant_judged_retrieved"]  # fmt: skip
# Invalid scores dropped: a dropped row's truth item is not listed.
POLICIES = [
    rk.Policy(empty_truth=empty, relevance_threshold=threshold, ties=ties, pool=pool,
              invalid_scores="drop", unjudged=unjudged, negative_grades=negative, f_beta=beta)
    for empty, threshold, ties, pool, unjudged, negative, beta in itertools.product(
        ["exclude", "zero", "nan"], [1, 2], ["trec_eval", "expected", "optimistic"],
        ["all", "restrict"], ["keep", "condense"], ["nonrelevant", "unjudged"], [1.0, 0.5],
    )
]  # fmt: skip


@st.composite
def uncertain_groups(draw: st.DrawFn, max_items: int = 6) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates with tied and invalid scores, repeated items and empty lists; truth items
    inside and outside the candidates, of grades -1 to 3 (an item's mass spread over up to
    two, the rest grade 0), some of probability 0; groups with no truth at all."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 3))):
        for _ in range(draw(st.integers(0, max_items))):
            item = draw(st.integers(0, max_items))
            candidates.append((group, item, draw(st.sampled_from([0.0, 1.0, 2.0, math.nan]))))
        for item in draw(st.lists(st.integers(0, max_items + 2), max_size=5, unique=True)):
            grades = draw(st.lists(st.sampled_from([-1.0, 1.0, 2.0, 3.0]), min_size=1,
                                   max_size=2, unique=True))  # fmt: skip
            total = 0.0
            for grade in grades:
                p = min(draw(st.sampled_from([0.0, 0.3, 0.5, 1.0])), 1 - total)
                total += p
                truth.append((group, item, grade, p))
    return _tables(candidates, truth)


def _methods(result: rk.Evaluation, metrics: list[str]) -> set[str]:
    """The methods `label_methods` names for `metrics`."""
    return set(result.label_methods.filter(pl.col("metric").is_in(metrics))["method"])


def _negative_unjudged(policy: rk.Policy, truth: pl.DataFrame) -> bool:
    """Whether a negative grade of positive chance would be unjudged in some outcome."""
    negative = truth.filter((pl.col("relevance") < 0) & (pl.col("p") > 0)).height > 0
    return negative and policy.negative_grades == "unjudged"


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=80, deadline=None)
@given(data=uncertain_groups(), policy=st.sampled_from(POLICIES))
def test_constants_and_counts_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = data
    options = {"k": [1, 3], "metrics": CONSTANT + COUNTS, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)
    if not expected:
        return
    unjudged = _negative_unjudged(policy, truth)
    constant = not unjudged and policy.ties != "optimistic"
    by_order = [m for m in CONSTANT if m != "num_retrieved"]
    assert _methods(result, by_order) == ({"constant"} if constant else {"enumeration"})
    # The list's length, whatever order the labels give it.
    assert _methods(result, ["num_retrieved"]) == {"enumeration" if unjudged else "constant"}
    condensed = unjudged and policy.unjudged == "condense"
    judged = ["num_nonrelevant_judged_retrieved"]
    counted = [m for m in COUNTS if m not in judged]
    assert _methods(result, counted) == ({"enumeration"} if condensed else {"counts"})
    assert _methods(result, judged) == ({"enumeration"} if unjudged else {"counts"})


@pytest.mark.parametrize("ties", ["trec_eval", "expected", "pessimistic"])
@pytest.mark.parametrize("empty_truth", ["exclude", "zero"])
def test_thirteen_uncertain_items_are_exact(ties: str, empty_truth: str) -> None:
    """8,192 outcomes in one group (with ties, a repeated item and relevant items outside
    the list), one more with none, each equal to the enumeration of every outcome."""
    candidates = [(0, item, float(item // 3)) for item in range(10)] + [(0, 4, 9.0)]
    truth = [(0, item, 1.0, 0.5) for item in range(3, 16)] + [(0, 1, 0.0, 1.0)]
    truth += [(1, 20, 2.0, 0.25)]
    candidates += [(1, 20, 1.0), (1, 21, 1.0)]
    frames = _tables(candidates, truth)
    policy = rk.Policy(ties=ties, empty_truth=empty_truth)  # type: ignore[arg-type]
    by_order = ["judged", "unjudged", "rbp_residual"]  # enumerated under "pessimistic"
    metrics = [m for m in CONSTANT + COUNTS if ties != "pessimistic" or m not in by_order]
    options = {"k": [5], "metrics": metrics, "policy": policy}
    expected = _enumerated(*frames, **options)
    result = rk.evaluate(*frames, group_by="q", label_probability="p", **options)
    assert set(result.label_methods["method"]) == {"constant", "counts"}
    assert_equal_to_enumeration(result, expected)


def test_kept_copies_are_left_to_the_outcomes_and_nan_is_read() -> None:
    """Kept copies count a relevant item once per copy: still enumerated (and equal to it).
    NaN for an outcome without a relevant item makes a constant's expectation NaN where that
    outcome has a chance (a group with a sure relevant item keeps its constant)."""
    candidates, truth = _tables(
        [(0, 1, 2.0), (0, 1, 1.0), (0, 2, 1.0), (1, 3, 1.0), (1, 4, 0.0)],
        [(0, 1, 1.0, 0.5), (0, 2, 1.0, 0.5), (1, 3, 1.0, 1.0), (1, 4, 1.0, 0.5)],
    )
    for policy in (rk.Policy(duplicates="keep"), rk.Policy(empty_truth="nan")):
        options = {"k": [2], "metrics": CONSTANT + COUNTS, "policy": policy}
        expected = _enumerated(candidates, truth, **options)
        result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
        assert_equal_to_enumeration(result, expected)
        if policy.empty_truth == "nan":
            assert _methods(result, CONSTANT) == {"constant"}
            judged = result.per_group.filter(metric="judged").sort("q")["value"].to_list()
            assert math.isnan(judged[0])
            assert judged[1] == 1.0
        else:
            assert _methods(result, COUNTS) <= {"enumeration", "linearity"}


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=80, deadline=None)
@given(
    data=uncertain_groups(),
    policy=st.sampled_from([p for p in POLICIES if p.ties != "expected"]),
    persistence=st.sampled_from([0.5, 0.8]),
)
def test_trec_rbp_equals_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, persistence: float
) -> None:
    """trec RBP divides its sum by M = max(1, the group's largest grade): given M <= m the
    items stay independent, so each level's moments are sums over the items (method
    "recursion" along a fixed order; ties ordered by the grades are enumerated)."""
    from dataclasses import replace

    candidates, truth = data
    policy = replace(policy, rbp_persistence=persistence)
    options = {"metrics": ["trec_rbp"], "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)
    if not expected:
        return
    condensed = _negative_unjudged(policy, truth) and policy.unjudged == "condense"
    exact = policy.ties == "trec_eval" and not condensed
    assert _methods(result, ["trec_rbp"]) == ({"recursion"} if exact else {"enumeration"})


@pytest.mark.parametrize("empty_truth", ["exclude", "zero"])
def test_trec_rbp_of_ten_uncertain_items_of_three_grades_is_exact(empty_truth: str) -> None:
    """4,608 outcomes: grades 1 to 3, one below the threshold of 2, an item of four options,
    items not listed: exact, against the enumeration."""
    candidates = [(0, item, float(20 - item)) for item in range(8)]
    truth = [(0, item, 1.0 + item % 3, 0.3 + 0.04 * item) for item in range(10)]
    truth += [(0, item, 3.0, 0.2) for item in range(0, 10, 2) if item % 3 != 2]
    truth += [(0, 4, 1.0, 0.1)]
    frames = _tables(candidates, truth)
    policy = rk.Policy(empty_truth=empty_truth, relevance_threshold=2)  # type: ignore[arg-type]
    options = {"metrics": ["trec_rbp"], "policy": policy}
    result = rk.evaluate(*frames, group_by="q", label_probability="p", **options)
    assert set(result.label_methods["method"]) == {"recursion"}
    assert_equal_to_enumeration(result, _enumerated(*frames, **options))
