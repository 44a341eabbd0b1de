"""The engine-independent parts of the Spark and Dask back ends (no Spark, no Dask needed)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.evaluation.aggregate import order_metrics
from polars_rankk.core.names.plan import Plan
from polars_rankk.engines import partition as dist
from polars_rankk.engines import reduction
from tests.support.distributed_cases import (
    CASES,
    KS,
    Case,
    quantile_reference,
    single_machine,
    tables,
)


@pytest.mark.parametrize("max_rows", [1, 3, 10, 1000])
def test_whole_groups_never_split_a_group(max_rows: int) -> None:
    rng = np.random.default_rng(max_rows)
    keys = np.sort(rng.integers(0, 12, size=80))
    frame = pl.DataFrame({"a": keys % 3, "b": keys // 3, "row": np.arange(80)})
    pieces = [frame.slice(start, 7) for start in range(0, 80, 7)]  # batches cut through groups
    chunks = list(dist.whole_groups(pieces, ["a", "b"], max_rows))
    assert pl.concat(chunks).equals(frame)
    groups = [set(chunk.select("a", "b").unique().iter_rows()) for chunk in chunks]
    assert sum(len(g) for g in groups) == len(set().union(*groups))  # no group in two chunks
    if max_rows == 1000:
        assert len(chunks) == 1
    else:
        assert len(chunks) > 3  # the stream was cut, between groups only


def test_histogram_quantile_is_polars_quantile_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    for trial in range(300):
        n = int(rng.integers(1, 30))
        values = (rng.integers(0, 5, n) / rng.integers(1, 7)) if trial % 2 else rng.random(n)
        nulls = int(rng.integers(0, 3))
        column = pl.Series("value", [*values.tolist(), *[None] * nulls], dtype=pl.Float64)
        frame = pl.DataFrame({"metric": "m", "k": 1, "value": column})
        histogram = frame.group_by("metric", "k", "value").agg(pl.len().alias("count"))
        quantiles = [0.0, 0.1, 0.33, 0.5, 0.9, 1.0, float(rng.random())]
        got = reduction.histogram_quantiles(histogram, quantiles)
        want = quantile_reference(frame, quantiles)
        assert got.select(pl.exclude("metric", "k")).equals(want.select(pl.exclude("metric", "k")))


@pytest.mark.parametrize("case", CASES[:5], ids=lambda case: case.name)
def test_partition_job_and_reduction_match_evaluate(case: Case) -> None:
    """Evaluating any split of the groups and reducing the histograms gives summary()."""
    candidates, truth = tables(case)
    assert truth is not None
    expected = single_machine(case, candidates, truth)
    spec = dist.check_on_driver(
        dict(candidates.schema),
        dict(truth.schema),
        k=KS,
        metrics=None,
        group_by=case.keys,
        item="item",
        score="score",
        relevance="relevance",
        n_relevant=None,
        policy=case.policy,
        order_by=None,
    )
    plan = Plan.of(None, KS, case.policy)
    job = dist.partition_job(spec, plan, None, with_dropped=True, check_values=True)
    bucket = pl.col("user").hash(seed=1) % 4
    parts = [
        job.evaluate(candidates.filter(bucket == b), truth.filter(bucket == b)) for b in range(4)
    ]
    raw = pl.concat(parts)
    per_group = raw.filter(~pl.col("metric").is_in(reduction.SENTINELS))
    assert per_group.sort(["user", "metric", "k"], nulls_last=True).equals(
        expected.per_group.sort(["user", "metric", "k"], nulls_last=True)
    )
    histogram = pl.concat(
        rk.core.evaluation.aggregate.value_histogram(part).collect() for part in parts
    )
    summary = order_metrics(reduction.summarize(histogram, dropped_ks=KS))
    assert summary.equals(order_metrics(expected.summary()))


def test_driver_checks() -> None:
    schema = {"user": pl.Int64(), "item": pl.String(), "score": pl.Float64()}
    truth = {"user": pl.Int64(), "item": pl.Int64()}
    common = {
        "k": 5,
        "metrics": None,
        "group_by": "user",
        "item": "item",
        "score": "score",
        "relevance": "relevance",
        "n_relevant": None,
    }
    with pytest.raises(TypeError, match="column 'item' has dtype"):
        dist.check_on_driver(schema, truth, policy=None, order_by=None, **common)  # type: ignore[arg-type]
    ok = {"user": pl.Int64(), "item": pl.String()}
    with pytest.raises(ValueError, match="order_by=<column>"):
        dist.check_on_driver(
            schema, ok, policy=rk.Policy(ties="input_order"), order_by=None, **common
        )  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="only used by"):
        dist.check_on_driver(schema, ok, policy=None, order_by="score", **common)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="has no column 'pos'"):
        dist.check_on_driver(
            schema, ok, policy=rk.Policy(ties="input_order"), order_by="pos", **common
        )  # type: ignore[arg-type]


@pytest.mark.parametrize("key", ["k", "n_relevant"])
def test_driver_rejects_reserved_keys_with_the_core_rule(key: str) -> None:
    """One reserved-column rule: the driver raises what `evaluate` raises for a group key that
    clashes with an output column."""
    schema = {key: pl.Int64(), "item": pl.Int64(), "score": pl.Float64()}
    frame = pl.DataFrame(schema=schema)
    with pytest.raises(ValueError, match="clash with output columns") as core:
        rk.evaluate(frame, frame.drop("score"), group_by=key)
    with pytest.raises(ValueError, match="clash with output columns") as driver:
        dist.check_on_driver(
            schema,
            {key: pl.Int64(), "item": pl.Int64()},
            k=5,
            metrics=None,
            group_by=key,
            item="item",
            score="score",
            relevance="relevance",
            n_relevant=None,
            policy=None,
            order_by=None,
        )
    assert str(driver.value) == str(core.value)


def test_driver_rejects_keys_named_like_the_union_columns() -> None:
    schema = {dist.TAG: pl.Int64(), "item": pl.Int64(), "score": pl.Float64()}
    with pytest.raises(ValueError, match="which the library reserves for its internal columns"):
        dist.check_on_driver(
            schema,
            {dist.TAG: pl.Int64(), "item": pl.Int64()},
            k=5,
            metrics=None,
            group_by=dist.TAG,
            item="item",
            score="score",
            relevance="relevance",
            n_relevant=None,
            policy=None,
            order_by=None,
        )
