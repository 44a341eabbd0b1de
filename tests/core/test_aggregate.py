"""Macro, micro and weighted averages against straightforward recomputation.

Definitions: docs/definitions.md §4.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.evaluation import aggregate
from tests.core.test_invariance import _tables
from tests.support.examples import examples

K = [1, 5, 10]


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy(),
        rk.Policy(short_lists="skip", empty_truth="nan"),
        rk.Policy(short_lists="observed"),
    ],
)
def test_macro_micro_weighted(lazy: bool, policy: rk.Policy) -> None:
    candidates, truth = _tables(seed=5, n_groups=80)
    if lazy:
        res = rk.evaluate(candidates.lazy(), truth.lazy(), k=K, group_by="user", policy=policy)
    else:
        res = rk.evaluate(candidates, truth, k=K, group_by="user", policy=policy)
    per_group = res.per_group.lazy().collect()
    groups = res.groups.lazy().collect()
    macro = res.summary()
    for row in macro.iter_rows(named=True):
        values = per_group.filter(
            (pl.col("metric") == row["metric"]) & pl.col("k").eq_missing(row["k"])
        )["value"]
        finite = [v for v in values if not math.isnan(v)]
        assert row["n_groups"] == len(finite)
        assert row["n_nan"] == len(values) - len(finite)
        assert math.isclose(row["value"], math.fsum(finite) / len(finite), rel_tol=1e-12)

    micro = res.summary("micro")
    assert set(micro["metric"]) == {"precision", "recall", "f1", "hit_rate", "r_precision"}
    joined = per_group.join(groups, on="user")
    if policy.empty_truth == "nan":
        joined = joined.filter(pl.col("n_relevant") > 0)
    for k in K:
        at_k = joined.filter(pl.col("k") == k)
        precision = at_k.filter(pl.col("metric") == "precision")
        if policy.short_lists == "observed":
            denominators = [min(k, n) for n in precision["n_candidates"]]
        else:
            denominators = [k] * precision.height
        hits = [round(p * d) for p, d in zip(precision["value"], denominators, strict=True)]
        want_p = sum(hits) / sum(denominators)
        want_r = sum(hits) / precision["n_relevant"].sum()
        got = dict(micro.filter(pl.col("k") == k).select("metric", "value").iter_rows())
        assert math.isclose(got["precision"], want_p, rel_tol=1e-12)
        assert math.isclose(got["recall"], want_r, rel_tol=1e-12)
        assert math.isclose(got["f1"], 2 * want_p * want_r / (want_p + want_r), rel_tol=1e-12)

    weighted = res.summary("weighted", weights="n_relevant")
    for row in weighted.iter_rows(named=True):
        part = joined.filter(
            (pl.col("metric") == row["metric"]) & pl.col("k").eq_missing(row["k"])
        ).filter(~pl.col("value").is_nan())
        want = (part["value"] * part["n_relevant"]).sum() / part["n_relevant"].sum()
        assert math.isclose(row["value"], want, rel_tol=1e-12)


def test_micro_refuses_rank_metrics() -> None:
    candidates, truth = _tables(seed=6)
    res = rk.evaluate(candidates, truth, k=5, group_by="user")
    with pytest.raises(ValueError, match=r"micro averaging .* ndcg is not a ratio of counts"):
        res.summary("micro", metrics=["ndcg"])


def test_weights_table_and_errors() -> None:
    candidates, truth = _tables(seed=7)
    res = rk.evaluate(candidates, truth, k=5, group_by="user", metrics=["precision"])
    weights = res.groups.select("user", pl.lit(2.0).alias("traffic"))
    assert math.isclose(
        res.summary("weighted", weights=weights)["value"][0],
        res.summary()["value"][0],
        rel_tol=1e-12,
    )
    with pytest.raises(ValueError, match=r"weights='nope' is not a column of the groups table"):
        res.summary("weighted", weights="nope")
    with pytest.raises(ValueError, match=r"must be a number >= 0"):
        res.summary("weighted", weights=weights.with_columns(traffic=-1.0))
    with pytest.raises(ValueError, match=r"needs weights="):
        res.summary("weighted")
    two = weights.with_columns(clicks=1.0)
    with pytest.raises(ValueError, match=r"one weight column; it holds \['traffic', 'clicks'\]"):
        res.summary("weighted", weights=two)


def test_the_deprecated_weight_spelling_warns_and_gives_the_same_summary() -> None:
    candidates, truth = _tables(seed=7)
    res = rk.evaluate(candidates, truth, k=5, group_by="user", metrics=["precision"])
    weights = res.groups.select("user", "n_relevant", pl.lit(2.0).alias("traffic"))
    with pytest.warns(
        DeprecationWarning, match=r"summary\(weight=\.\.\.\) is deprecated.*weights="
    ):
        old_table = res.summary("weighted", weight="traffic", weights=weights)
    with pytest.warns(DeprecationWarning, match=r"use weights= alone"):
        old_column = res.summary("weighted", weight="n_relevant")
    assert_frame_equal(old_table, res.summary("weighted", weights=weights.drop("n_relevant")))
    assert_frame_equal(old_column, res.summary("weighted", weights="n_relevant"))


def test_summary_reports_dropped_groups() -> None:
    candidates, truth = _tables(seed=8)
    res = rk.evaluate(
        candidates,
        truth,
        k=[1, 20],
        group_by="user",
        policy=rk.Policy(short_lists="skip", missing_groups="exclude"),
    )
    summary = res.summary()
    diagnostics = res.diagnostics.counts
    assert (summary["dropped_empty_truth"] == diagnostics["groups_with_no_relevant"]).all()
    assert summary.filter(pl.col("k") == 20)["dropped_short"][0] > 0
    assert summary.filter(pl.col("k") == 1)["dropped_missing"][0] > 0


@pytest.mark.parametrize("lazy", [False, True])
def test_wide_is_per_group_pivoted(lazy: bool) -> None:
    candidates, truth = _tables(seed=9)
    policy = rk.Policy(short_lists="skip", empty_truth="nan")
    if lazy:
        res = rk.evaluate(candidates.lazy(), truth.lazy(), k=K, group_by="user", policy=policy)
    else:
        res = rk.evaluate(candidates, truth, k=K, group_by="user", policy=policy)
    wide = res.wide().lazy().collect()
    per_group = res.per_group.lazy().collect()
    assert wide.height == per_group["user"].n_unique()
    for row in per_group.iter_rows(named=True):
        name = row["metric"] if row["k"] is None else f"{row['metric']}@{row['k']}"
        got = wide.filter(pl.col("user") == row["user"])[name][0]
        assert got == row["value"] or (math.isnan(got) and math.isnan(row["value"]))
    # A group skipped at a k has a null there and no per_group row.
    assert wide.null_count().sum_horizontal()[0] + per_group.height == wide.height * (
        wide.width - 1
    )


@settings(max_examples=examples(40), deadline=None)
@given(
    seed=st.integers(0, 10_000),
    lazy=st.booleans(),
    policy=st.sampled_from(
        [
            rk.Policy(),
            rk.Policy(short_lists="skip", empty_truth="nan"),
            rk.Policy(ties="pessimistic", duplicates="keep"),
            rk.Policy(empty_truth="exclude", short_lists="observed"),
        ]
    ),
    metrics=st.sampled_from([None, ["ndcg", "recall"], ["r_precision", "mrr"]]),
)
def test_the_macro_mean_counted_in_the_wide_table_equals_the_per_group_rows_bit_for_bit(
    seed: int, lazy: bool, policy: rk.Policy, metrics: list[str] | None
) -> None:
    """The summary counts each cell's values in the wide metric table where they lie; the
    reference is the histogram of the per-group rows, summed in sorted order."""
    candidates, truth = _tables(seed=seed, n_groups=30)
    given = (candidates.lazy(), truth.lazy()) if lazy else (candidates, truth)
    res = rk.evaluate(*given, k=K, group_by="user", policy=policy, metrics=metrics)
    per_group = res.per_group.lazy().collect()
    columns = ["metric", "k", "value", "n_groups", "n_nan"]
    want = aggregate.macro(per_group).select(columns)
    assert_frame_equal(res.summary().select(columns), want, check_exact=True)


def test_an_eager_summary_leaves_the_per_group_rows_until_they_are_read() -> None:
    """A macro summary counts the metric table's values: the per-group rows (one per group,
    metric and K) are built only when read, then equal to the lazy evaluation's."""
    candidates, truth = _tables(seed=3, n_groups=40)
    eager = rk.evaluate(candidates, truth, k=K, group_by="user")
    summary = eager.summary()
    assert eager._per_group is None
    lazy = rk.evaluate(candidates.lazy(), truth.lazy(), k=K, group_by="user")
    assert_frame_equal(summary, lazy.summary())
    assert_frame_equal(eager.per_group, lazy.collect().per_group)
    assert eager.summary("weighted", weights="n_relevant").height == summary.height
