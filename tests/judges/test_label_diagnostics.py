"""A label-probability evaluation's diagnostics read the expectations: the counts that depend
on the labels (relevant items, those outside the candidates, groups without a relevant item,
rows per grade) equal their probability-weighted sums over every label outcome, each outcome
an ordinary deterministic evaluation; the recall ceiling is each group's expected
min(K, relevant candidates) / R, transcribed from its definition, averaged as recall is."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk

LABEL_COUNTS = ("relevant_in_truth", "relevant_outside_pool", "groups_with_no_relevant")
POLICIES = [
    rk.Policy(),
    rk.Policy(empty_truth="zero"),
    rk.Policy(empty_truth="nan", short_lists="skip"),
    rk.Policy(pool="restrict", relevance_threshold=2),
]


@st.composite
def judged(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates with ties and short lists; truth rows of one grade each, some items outside
    the candidates, some groups without candidates (at most 10 uncertain rows)."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 3))):
        for item in draw(st.lists(st.integers(0, 5), max_size=4, unique=True)):
            candidates.append((group, item, float(draw(st.integers(0, 2)))))
        for item in draw(st.lists(st.integers(0, 7), min_size=1, max_size=3, unique=True)):
            grade = float(draw(st.sampled_from([1, 2, 3])))
            truth.append((group, item, grade, draw(st.sampled_from([0.2, 0.5, 1.0]))))
    return (
        pl.DataFrame(candidates, schema={"q": pl.Int64, "item": pl.Int64, "score": pl.Float64},
                     orient="row"),
        pl.DataFrame(truth, schema={"q": pl.Int64, "item": pl.Int64, "relevance": pl.Float64,
                                    "p": pl.Float64}, orient="row"),
    )  # fmt: skip


def _outcomes(truth: pl.DataFrame) -> list[tuple[float, pl.DataFrame]]:
    """Every outcome of the truth's rows (each its grade with probability p, else 0)."""
    rows = truth.rows()
    found = []
    for kept in itertools.product([True, False], repeat=len(rows)):
        weight = float(
            np.prod([p if keep else 1 - p for (*_, p), keep in zip(rows, kept, strict=True)])
        )
        if weight == 0:
            continue
        table = [
            (q, item, grade if keep else 0.0)
            for (q, item, grade, _), keep in zip(rows, kept, strict=True)
        ]
        found.append((weight, pl.DataFrame(table, schema=["q", "item", "relevance"], orient="row")))
    return found


def _ceiling(candidates: pl.DataFrame, truth: pl.DataFrame, policy: rk.Policy, k: int) -> float:
    """The recall ceiling at K by its definition: per group, the expectation over outcomes of
    min(K, relevant candidates) / R (conditional on R > 0, 0, or NaN as the policy reads
    R = 0), averaged over the groups the evaluation keeps."""
    listed = set(candidates.select("q", "item").iter_rows())
    lengths = dict(candidates.group_by("q").len().iter_rows())
    values = []
    for group in sorted(set(truth["q"])):
        if group not in lengths and policy.missing_groups != "zero":
            continue  # no candidates: evaluated (as zeros) only under missing_groups="zero"
        own = truth.filter(q=group)
        total, weight_r = 0.0, 0.0
        nan = False
        for weight, outcome in _outcomes(own):
            relevant = outcome.filter(pl.col("relevance") >= policy.relevance_threshold)
            pooled = [i for i in relevant["item"] if (group, i) in listed]
            r = len(pooled) if policy.pool == "restrict" else relevant.height
            if r == 0:
                nan |= policy.empty_truth == "nan"
                continue
            total += weight * min(k, len(pooled)) / r
            weight_r += weight
        if weight_r == 0 or nan or (policy.short_lists == "skip" and lengths.get(group, 0) < k):
            continue
        values.append(total / weight_r if policy.empty_truth == "exclude" else total)
    return float(np.mean(sorted(values))) if values else float("nan")


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=30, deadline=None)
@given(data=judged(), policy=st.sampled_from(POLICIES))
def test_the_label_counts_are_their_expectations_over_every_outcome(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = data
    options = {"k": [1, 3], "group_by": "q", "policy": policy, "metrics": ["recall"]}
    evaluation = rk.evaluate(candidates, truth, label_probability="p", **options)
    found = evaluation.diagnostics
    expected = dict.fromkeys(LABEL_COUNTS, 0.0)
    grades: dict[float, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for weight, outcome in _outcomes(truth):
            counts = rk.evaluate(candidates, outcome, **options).diagnostics
            for name in LABEL_COUNTS:
                expected[name] += weight * counts.counts[name]
            for grade, rows in counts.relevance_grades.iter_rows():
                grades[float(grade)] = grades.get(float(grade), 0.0) + weight * rows
    for name in LABEL_COUNTS:
        assert found.counts[name] == pytest.approx(expected[name], abs=1e-12), name
    got = dict(found.relevance_grades.iter_rows())
    assert got.keys() == {g for g, rows in grades.items() if rows > 1e-15}
    for grade, rows in got.items():
        assert rows == pytest.approx(grades[grade], abs=1e-12)
    for k, ceiling in found.per_k.select("k", "recall_ceiling").iter_rows():
        want = _ceiling(candidates, truth, policy, k)
        assert (ceiling is None and np.isnan(want)) or ceiling == pytest.approx(want, abs=1e-12)


def test_the_same_counts_on_every_call_and_in_the_display() -> None:
    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 1], "score": [1.0, 0.5, 1.0]})
    truth = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 5, 1, 6], "relevance": 1.0,
                          "p": [0.5, 0.25, 0.1, 0.7]})  # fmt: skip
    runs = [
        rk.evaluate(candidates, truth, k=2, group_by="q", label_probability="p").diagnostics
        for _ in range(5)
    ]
    assert all(run.counts == runs[0].counts for run in runs)
    assert runs[0].counts["relevant_outside_pool"] == pytest.approx(0.95)
    shown = repr(rk.evaluate(candidates, truth, k=2, group_by="q", label_probability="p"))
    assert "0.95 relevant items never among the candidates" in shown
