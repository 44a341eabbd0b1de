"""`unjudged_bounds`: the lower and upper values equal the metrics computed group by group in
plain Python on a truth relabelled by hand (unjudged items in the top K judged 0, or at the
threshold grade), for every metric and under several policies; the value lies between them."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core import REGISTRY


def make_data(seed: int, n_groups: int = 12) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Distinct scores; graded truth (grades 0-2) covering part of the candidates and some
    items no candidate retrieves; groups with nothing judged relevant; a candidate group the
    truth does not know."""
    rng = np.random.default_rng(seed)
    rows, judged = [], []
    for group in range(n_groups):
        n = int(rng.integers(1, 9))
        items = rng.choice(30, n, replace=False)
        for position, item in enumerate(items):
            rows.append((group, int(item), float(n - position) + rng.random() * 0.5))
            if rng.random() < 0.5:
                judged.append((group, int(item), int(rng.integers(0, 3))))
        for extra in rng.choice(np.arange(30, 40), int(rng.integers(0, 3)), replace=False):
            judged.append((group, int(extra), int(rng.integers(0, 3))))
    rows.append((99, 1, 1.0))  # a group without truth
    candidates = pl.DataFrame(rows, schema=["q", "item", "score"], orient="row")
    truth = pl.DataFrame(judged, schema=["q", "item", "relevance"], orient="row")
    return candidates, truth


def by_hand(candidates: pl.DataFrame, truth: pl.DataFrame, k: int, grade: float) -> pl.DataFrame:
    """The truth with each truth group's unjudged candidates in its top k (by score) added at
    `grade`, one group at a time."""
    judged = {(q, i) for q, i in truth.select("q", "item").iter_rows()}
    groups = set(truth["q"].to_list())
    added = []
    for (q,), part in candidates.sort("score", descending=True).group_by("q", maintain_order=True):
        if q not in groups:
            continue
        for item in part["item"].to_list()[:k]:
            if (q, item) not in judged:
                added.append((q, item, grade))
    extra = pl.DataFrame(added, schema={"q": pl.Int64, "item": pl.Int64, "relevance": pl.Float64},
                         orient="row")  # fmt: skip
    return pl.concat([truth.with_columns(pl.col("relevance").cast(pl.Float64)), extra])


def python_metrics(
    candidates: pl.DataFrame, truth: pl.DataFrame, k: int
) -> dict[tuple[int, str], float]:
    """precision@k, recall@k and nDCG@k (linear gain) per group with R_g > 0, in loops."""
    grades: dict[int, dict[int, float]] = {}
    for q, item, grade in truth.iter_rows():
        grades.setdefault(q, {})[item] = max(grade, grades.get(q, {}).get(item, -math.inf))
    out = {}
    for (q,), part in candidates.sort("score", descending=True).group_by("q", maintain_order=True):
        judged = grades.get(q)
        if judged is None or not any(g >= 1 for g in judged.values()):
            continue
        top = [judged.get(i, 0.0) for i in part["item"].to_list()[:k]]
        hits = sum(g >= 1 for g in top)
        dcg = sum(g / math.log2(r + 2) for r, g in enumerate(top))
        ideal = sorted(judged.values(), reverse=True)[:k]
        idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
        out[(q, "precision")] = hits / k
        out[(q, "recall")] = hits / sum(g >= 1 for g in judged.values())
        out[(q, "ndcg")] = dcg / idcg
    return out


@pytest.mark.parametrize("seed", range(5))
def test_bounds_equal_metrics_computed_by_hand_on_the_relabelled_truth(seed: int) -> None:
    candidates, truth = make_data(seed)
    ks = [3, 5]
    bounds = rk.unjudged_bounds(candidates, truth, k=ks, metrics=["precision", "recall", "ndcg"],
                                group_by="q")  # fmt: skip
    rows = {(r["q"], r["metric"], r["k"]): r for r in bounds.per_group.iter_rows(named=True)}
    for k in ks:
        for column, grade in (("lower", 0.0), ("upper", 1.0)):
            expected = python_metrics(candidates, by_hand(candidates, truth, k, grade), k)
            found = {
                (q, m): r[column]
                for (q, m, kk), r in rows.items()
                if kk == k and r[column] is not None
            }
            assert found.keys() == expected.keys()
            assert found == pytest.approx(expected, abs=1e-12)
        plain = python_metrics(candidates, truth, k)
        values = {
            (q, m): r["value"]
            for (q, m, kk), r in rows.items()
            if kk == k and r["value"] is not None
        }
        assert values == pytest.approx(plain, abs=1e-12)
    assert 99 not in bounds.per_group["q"].to_list()  # no group is added


POLICIES = [
    rk.Policy(),
    rk.Policy(ties="expected"),
    rk.Policy(unjudged="condense"),
    rk.Policy(gain="exponential", relevance_threshold=2, empty_truth="zero"),
    rk.Policy.trec_eval(),
]


@pytest.mark.parametrize("policy", POLICIES, ids=repr)
@pytest.mark.parametrize("seed", range(2))
def test_every_metric_under_each_policy_is_evaluate_on_the_relabelled_truth(
    policy: rk.Policy, seed: int
) -> None:
    candidates, truth = make_data(seed)
    if policy.ties == "expected":  # ties across the cut-off: whole blocks count as within K
        candidates = candidates.with_columns(pl.col("score").round(0))
    k = 4
    metrics = [
        name for name, metric in REGISTRY.items()
        if metric.accuracy and (policy.ties != "expected" or metric.supports_expected_ties)
    ]  # fmt: skip
    bounds = rk.unjudged_bounds(
        candidates, truth, k=k, metrics=metrics, group_by="q", policy=policy
    )
    ranked = rk.evaluate(candidates, truth, k=k, group_by="q", policy=policy.__class__(
        **{**policy.__dict__, "unjudged": "keep"}), metrics="precision").ranked_items()  # fmt: skip
    assert ranked is not None
    for column, grade in (("lower", 0.0), ("upper", float(policy.relevance_threshold))):
        within = ranked.filter(pl.col("rank") <= k).collect()
        extra = within.join(truth, on=["q", "item"], how="anti").join(
            truth.select("q").unique(), on="q", how="semi"
        )  # fmt: skip
        added = extra.select("q", "item", pl.lit(grade).alias("relevance"))
        labelled = pl.concat([truth.with_columns(pl.col("relevance").cast(pl.Float64)), added])
        expected = rk.evaluate(
            candidates, labelled, k=k, metrics=metrics, group_by="q", policy=policy
        )
        mine = bounds.per_group.filter(pl.col(column).is_not_null()).select(
            "q", "metric", "k", column
        )
        theirs = expected.per_group.select("q", "metric", "k", pl.col("value").alias(column))
        joined = theirs.join(
            mine, on=["q", "metric", "k"], how="full", nulls_equal=True, suffix="_b"
        )
        assert joined.filter(pl.col(column).is_null() | pl.col(f"{column}_b").is_null()).height == 0
        assert joined[column].to_list() == pytest.approx(
            joined[f"{column}_b"].to_list(), nan_ok=True
        )


@pytest.mark.parametrize("seed", range(4))
def test_the_value_lies_between_the_bounds_for_metrics_that_grow_with_relevance(seed: int) -> None:
    candidates, truth = make_data(seed)
    growing = ["precision", "recall", "f1", "hit_rate", "mrr", "dcg", "err", "rbp"]
    bounds = rk.unjudged_bounds(candidates, truth, k=[2, 5], metrics=growing, group_by="q")
    both = bounds.per_group.drop_nulls(["lower", "value", "upper"])
    assert (both["lower"] <= both["value"] + 1e-12).all()
    assert (both["value"] <= both["upper"] + 1e-12).all()
    summary = bounds.summary
    assert (summary["width"] - (summary["upper"] - summary["lower"])).abs().max() < 1e-12


def test_normalised_metrics_can_leave_the_bounds_as_the_docs_say() -> None:
    """Judging a retrieved item relevant raises R_g too: AP with a relevant item at rank 1, a
    judged non-relevant one at 2 and an unjudged one at 3 falls from 1 to (1 + 2/3) / 2."""
    candidates = pl.DataFrame({"q": [1, 1, 1], "item": [1, 3, 2], "score": [0.9, 0.7, 0.5]})
    truth = pl.DataFrame({"q": [1, 1], "item": [1, 3], "relevance": [1, 0]})
    bounds = rk.unjudged_bounds(candidates, truth, k=3, metrics="average_precision", group_by="q")
    assert bounds.per_group.select("value", "upper").row(0) == (1.0, pytest.approx((1 + 2 / 3) / 2))


def test_without_unjudged_items_the_bounds_are_the_value() -> None:
    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.5, 0.4]})
    truth = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "relevance": [1, 0, 2]})
    bounds = rk.unjudged_bounds(candidates, truth, k=2, metrics=["ndcg", "recall"], group_by="q")
    table = bounds.per_group
    assert table["lower"].to_list() == table["value"].to_list() == table["upper"].to_list()
    assert bounds.summary["unjudged_share"].to_list() == [0.0, 0.0]
    assert table["n_unjudged"].to_list() == [0] * table.height


def test_a_truth_without_grades_and_lazy_inputs() -> None:
    candidates = pl.LazyFrame({"q": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.5, 0.4]})
    truth = pl.LazyFrame({"q": [1], "item": [3]})
    bounds = rk.unjudged_bounds(candidates, truth, k=2, metrics="precision", group_by="q")
    row = bounds.per_group.row(0, named=True)
    assert (row["lower"], row["value"], row["upper"], row["n_unjudged"]) == (0.0, 0.0, 1.0, 2)


def test_a_negative_grade_counted_as_unjudged_is_relabelled() -> None:
    candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.9, 0.5]})
    truth = pl.DataFrame({"q": [1, 1], "item": [1, 2], "relevance": [-1, 1]})
    policy = rk.Policy(negative_grades="unjudged")
    bounds = rk.unjudged_bounds(
        candidates, truth, k=1, metrics="precision", group_by="q", policy=policy
    )
    assert bounds.per_group.select("lower", "upper", "n_unjudged").row(0) == (0.0, 1.0, 1)
    default = rk.unjudged_bounds(candidates, truth, k=1, metrics="precision", group_by="q")
    assert default.per_group["n_unjudged"].to_list() == [0]  # judged non-relevant by default


def test_names_carry_their_cut_off_and_threshold_into_the_bounds() -> None:
    candidates = pl.DataFrame({"q": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.5, 0.4]})
    truth = pl.DataFrame({"q": [1, 1], "item": [3, 4], "relevance": [2, 1]})
    bounds = rk.unjudged_bounds(candidates, truth, k=10, metrics="P(rel=2)@2", group_by="q")
    rows = bounds.per_group.filter(pl.col("k") == 2)
    assert rows.select("lower", "value", "upper", "n_unjudged").row(0) == (0.0, 0.0, 1.0, 2)
