"""Strata helpers (activity, relevant-set size, new vs returning, any column) and their use
through `evaluate` -> `distribution`."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.stats.distributions import distribution, histogram
from polars_rankk.stats.strata import (
    activity_buckets,
    bucket_labels,
    buckets,
    new_vs_returning,
    relevant_size_buckets,
)


def test_labels_for_integer_and_float_columns() -> None:
    assert bucket_labels([2, 5, 20], integer=True) == ["<2", "2-4", "5-19", ">=20"]
    assert bucket_labels([1, 2, 3], integer=True) == ["<1", "1", "2", ">=3"]
    assert bucket_labels([0.25, 0.5], integer=False) == [
        "(-inf, 0.25)", "[0.25, 0.5)", "[0.5, inf)"
    ]  # fmt: skip


@pytest.mark.parametrize("lazy", [False, True])
def test_fixed_edges_are_left_closed_and_ordered(lazy: bool) -> None:
    frame = pl.DataFrame({"user": range(7), "score": [0.0, 0.25, 0.3, 0.5, 0.9, None, 1.0]})
    out = buckets(frame.lazy() if lazy else frame, "score", edges=[0.25, 0.5])
    assert isinstance(out, pl.LazyFrame if lazy else pl.DataFrame)
    table = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert table["score_bucket"].dtype == pl.Enum(["(-inf, 0.25)", "[0.25, 0.5)", "[0.5, inf)"])
    assert table["score_bucket"].to_list() == [
        "(-inf, 0.25)", "[0.25, 0.5)", "[0.25, 0.5)", "[0.5, inf)", "[0.5, inf)", None,
        "[0.5, inf)",
    ]  # fmt: skip
    # an Enum sorts in bucket order, not alphabetically
    ordered = table.drop_nulls().sort("score_bucket")["score_bucket"].to_list()
    assert ordered[0] == "(-inf, 0.25)"


def test_quantile_buckets_on_counts() -> None:
    counts = pl.DataFrame({"user": range(8), "n": [1, 1, 1, 2, 3, 5, 8, 40]})
    table = buckets(counts, "n", quantiles=4, name="activity")
    # linear quartiles 1.0, 2.5, 5.75 -> integer edges 2, 3, 6: each bucket holds values up to
    # and including its quantile
    assert table["activity"].dtype == pl.Enum(["<2", "2", "3-5", ">=6"])
    assert table["activity"].to_list() == ["<2", "<2", "<2", "2", "3-5", "3-5", ">=6", ">=6"]
    quartiles = np.quantile(counts["n"].to_numpy(), [0.25, 0.5, 0.75])
    assert quartiles.tolist() == [1.0, 2.5, 5.75]


def test_bucket_errors() -> None:
    frame = pl.DataFrame({"user": [1], "name": ["a"], "n": [3]})
    with pytest.raises(ValueError, match="exactly one of edges= and quantiles="):
        buckets(frame, "n")
    with pytest.raises(TypeError, match="must be numeric"):
        buckets(frame, "name", edges=[1])
    with pytest.raises(ValueError, match="increasing"):
        buckets(frame, "n", edges=[3, 2])
    with pytest.raises(ValueError, match="not found"):
        buckets(frame, "missing", edges=[1])


@pytest.mark.parametrize("lazy", [False, True])
def test_activity_buckets_count_interactions_and_fill_absent_groups(lazy: bool) -> None:
    log = pl.DataFrame({"user": [1, 1, 1, 1, 1, 2, 2, 3]})
    groups = pl.DataFrame({"user": [1, 2, 3, 4]})  # user 4 never interacted
    out = activity_buckets(log.lazy() if lazy else log, "user", edges=[1, 3], groups=groups)
    assert isinstance(out, pl.LazyFrame if lazy else pl.DataFrame)
    table = (out.collect() if isinstance(out, pl.LazyFrame) else out).sort("user")
    assert table["n_interactions"].to_list() == [5, 2, 1, 0]
    assert table["activity"].to_list() == [">=3", "1-2", "1-2", "<1"]
    given = activity_buckets(
        pl.DataFrame({"user": [1, 2], "orders": [10, 0]}), "user", count="orders", edges=[1]
    )
    assert isinstance(given, pl.DataFrame)
    assert given.sort("user")["activity"].to_list() == [">=1", "<1"]


def test_new_vs_returning_on_a_coarser_key() -> None:
    groups = pl.DataFrame({"user": [1, 1, 2, 3], "day": [1, 2, 1, 1]})
    history = pl.DataFrame({"user": [1, 3, 3], "item": [7, 8, 9]})
    table = new_vs_returning(groups, history, on="user", min_history=2)
    assert isinstance(table, pl.DataFrame)
    labelled = table.sort("user", "day")
    assert labelled["new_vs_returning"].to_list() == ["new", "new", "new", "returning"]
    assert labelled["n_history"].to_list() == [1, 1, 0, 2]
    with pytest.raises(ValueError, match="must name key columns"):
        new_vs_returning(groups, history, on="item")


def small_evaluation(lazy: bool = False) -> rk.Evaluation:
    candidates = pl.DataFrame(
        {"user": [1, 1, 1, 2, 2, 3, 3, 4],
         "item": [10, 11, 12, 20, 21, 30, 31, 40],
         "score": [0.9, 0.8, 0.7, 0.9, 0.1, 0.5, 0.4, 0.3]}
    )  # fmt: skip
    truth = pl.DataFrame(
        {"user": [1, 1, 2, 3, 3, 3, 5], "item": [11, 12, 21, 30, 31, 32, 50]}
    )  # fmt: skip
    return rk.evaluate(
        candidates.lazy() if lazy else candidates,
        truth.lazy() if lazy else truth,
        k=[1, 2],
        metrics=["precision", "recall", "ndcg", "r_precision"],
        group_by="user",
        policy=rk.Policy(empty_truth="nan"),
    )


@pytest.mark.parametrize("lazy", [False, True])
def test_relevant_size_strata_through_evaluate(lazy: bool) -> None:
    result = small_evaluation(lazy)
    strata = relevant_size_buckets(result, edges=[1, 2, 3])
    assert isinstance(strata, pl.LazyFrame if lazy else pl.DataFrame)
    out = distribution(result, by="relevant_size", attributes=strata, quantiles=[0.5])
    assert isinstance(out, pl.LazyFrame if lazy else pl.DataFrame)
    table = out.collect() if isinstance(out, pl.LazyFrame) else out
    recall_at_2 = table.filter(pl.col("metric") == "recall", pl.col("k") == 2)
    # R = 1: users 2 (recall@2 = 1) and 5 (never ranked: 0); R = 2: user 1 (1 of 2 in the
    # top 2); R = 3: user 3 (2 of 3)
    assert recall_at_2.select("relevant_size", "n_groups", "mean").rows() == [
        ("1", 2, 0.5), ("2", 1, 0.5), (">=3", 1, 2 / 3)
    ]  # fmt: skip
    # the evaluation's groups table provides n_relevant directly, too
    direct = distribution(result, by="n_relevant", quantiles=[])
    direct = direct.collect() if isinstance(direct, pl.LazyFrame) else direct
    assert sorted(set(direct["n_relevant"].to_list())) == [1, 2, 3]
    counts = histogram(result, by="relevant_size", attributes=strata, bins=2)
    counts = counts.collect() if isinstance(counts, pl.LazyFrame) else counts
    assert counts.filter(pl.col("metric") == "r_precision")["count"].sum() == 4


def test_nan_policy_values_are_counted_not_used() -> None:
    candidates = pl.DataFrame({"user": [1, 2], "item": [10, 20], "score": [0.5, 0.5]})
    truth = pl.DataFrame({"user": [1, 2], "item": [10, 21], "relevance": [1, 0]})
    result = rk.evaluate(
        candidates, truth, k=1, metrics="precision", group_by="user",
        relevance="relevance", policy=rk.Policy(empty_truth="nan"),
    )  # fmt: skip
    table = distribution(result, quantiles=[0.5])
    assert isinstance(table, pl.DataFrame)
    assert table.select("n_groups", "n_nan", "mean").row(0) == (1, 1, 1.0)


def test_strata_helpers_match_categorical_keys_to_an_evaluation() -> None:
    # evaluate turns Categorical keys into String; the raw log and history keep them
    users = pl.Series(["u1", "u1", "u2", "u3"], dtype=pl.Categorical)
    candidates = pl.DataFrame({"user": users, "item": ["a", "b", "c", "d"], "score": [3, 2, 1, 1]})
    truth = pl.DataFrame({"user": users, "item": ["a", "x", "c", "d"]})
    result = rk.evaluate(candidates, truth, k=1, metrics="precision", group_by="user")
    log = pl.DataFrame({"user": pl.Series(["u1", "u1", "u1", "u2"], dtype=pl.Categorical)})
    activity = activity_buckets(log, "user", edges=[1, 3], groups=result)
    assert isinstance(activity, pl.DataFrame)
    assert activity.sort("user").select("user", "n_interactions").rows() == [
        ("u1", 3), ("u2", 1), ("u3", 0)
    ]  # fmt: skip
    returning = new_vs_returning(result, log)
    assert isinstance(returning, pl.DataFrame)
    assert returning.sort("user")["new_vs_returning"].to_list() == ["returning", "returning", "new"]
    table = distribution(result, by="activity", attributes=activity, quantiles=[])
    assert isinstance(table, pl.DataFrame)
    assert table.select("activity", "n_groups", "mean").rows() == [
        ("<1", 1, 1.0), ("1-2", 1, 1.0), (">=3", 1, 1.0)
    ]  # fmt: skip


def test_activity_counts_given_per_group_must_not_repeat() -> None:
    given = pl.DataFrame({"user": [1, 2, 2], "orders": [10, 0, 3]})
    with pytest.raises(
        ValueError, match=r"interactions must have one row per group \(user\), but user=2 has 2"
    ):
        activity_buckets(given, "user", count="orders", edges=[1])
