"""Beyond-accuracy metrics out of core: per-group values and catalogue figures equal one
machine's exactly (per-part exposure counts summed, whole item tables given to every part)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.names.listing import metric_rank

METRICS = [
    "hit_rate",
    "novelty",
    "arp",
    "long_tail_share",
    "intra_list_diversity",
    "coverage",
    "gini",
    "entropy",
    "personalization",
]
LOG = pl.DataFrame({"item": [0, 0, 0, 1, 1, 2, 3, 9]})
FEATURES = pl.DataFrame({"item": [0, 1, 2, 3, 4, 5], "label": ["x", "y", "x", "z", "y", "x"]})


@st.composite
def runs(draw: st.DrawFn) -> pl.DataFrame:
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 6), st.integers(0, 7), st.sampled_from([0.0, 0.5, 1.0])),
            min_size=1,
            max_size=40,
        )
    )
    users, items, scores = zip(*rows, strict=True)
    return pl.DataFrame({"user": users, "item": items, "score": scores})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    candidates=runs(),
    buckets=st.integers(1, 4),
    short_lists=st.sampled_from(["fixed", "observed", "skip"]),
    duplicates=st.sampled_from(["first", "keep"]),
)
def test_partitions_equal_one_machine(
    candidates: pl.DataFrame, buckets: int, short_lists: str, duplicates: str
) -> None:
    policy = rk.Policy(short_lists=short_lists, duplicates=duplicates)  # type: ignore[arg-type]
    truth = candidates.filter(pl.col("score") > 0.7).select("user", "item").unique()
    options = {
        "k": [1, 3],
        "metrics": METRICS,
        "group_by": "user",
        "policy": policy,
        "popularity": LOG,
        "item_features": FEATURES,
    }
    one = rk.evaluate(candidates, truth, **options)  # type: ignore[arg-type]
    out = rk.evaluate_in_partitions(
        candidates,
        truth,
        output=tempfile.mkdtemp(),
        partitions=buckets,
        engine="in-memory",
        **options,  # type: ignore[arg-type]
    )
    per_group = out.per_group.collect().sort("user", metric_rank(), "k")
    assert per_group.equals(one.per_group)
    assert one.catalogue is not None
    assert out.catalogue is not None
    _same_catalogue(out.catalogue, one.catalogue)


def test_partition_catalogue_is_the_whole_inputs() -> None:
    # Items 5 and 6 sit in one bucket each: the default catalogue counts both everywhere.
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": [5, 0, 6, 0], "score": [1.0, 0.5, 1.0, 0.5]}
    )
    one = rk.evaluate(candidates, k=1, metrics=["coverage", "gini"], group_by="user")
    out = rk.evaluate_in_partitions(
        candidates, output=tempfile.mkdtemp(), partitions=2, k=1,
        metrics=["coverage", "gini"], group_by="user", engine="in-memory",
    )  # fmt: skip
    assert one.catalogue is not None
    assert out.catalogue is not None
    assert out.catalogue.equals(one.catalogue)
    assert out.catalogue["value"].to_list() == [2 / 3, 1 / 3]


# -- Dask and Spark ---------------------------------------------------------------------------


def _distributed_options(policy: rk.Policy) -> dict[str, object]:
    return {
        "k": [1, 3],
        "metrics": METRICS,
        "group_by": "user",
        "policy": policy,
        "popularity": LOG,
        "item_features": FEATURES,
    }


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    candidates=runs(),
    partitions=st.integers(1, 3),
    short_lists=st.sampled_from(["fixed", "observed", "skip"]),
    duplicates=st.sampled_from(["first", "keep"]),
)
def test_dask_equals_one_machine(
    candidates: pl.DataFrame, partitions: int, short_lists: str, duplicates: str
) -> None:
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.engines.dask import evaluate_dask

    policy = rk.Policy(short_lists=short_lists, duplicates=duplicates)  # type: ignore[arg-type]
    truth = candidates.filter(pl.col("score") > 0.7).select("user", "item").unique()
    options = _distributed_options(policy)
    one = rk.evaluate(candidates, truth, **options)  # type: ignore[arg-type]
    result = evaluate_dask(
        dd.from_pandas(candidates.to_pandas(), npartitions=2),
        dd.from_pandas(truth.to_pandas(), npartitions=1),
        npartitions=partitions,
        with_dropped=True,
        **options,  # type: ignore[arg-type]
    )
    per_group = pl.from_pandas(result.per_group.compute()).sort("user", metric_rank(), "k")
    assert per_group.equals(one.per_group)
    assert result.summary().equals(one.summary())
    assert one.catalogue is not None
    assert result.catalogue is not None
    _same_catalogue(result.catalogue, one.catalogue)


def _same_catalogue(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Equal exactly: counts are integers and the entropy is one running sum in item order."""
    assert got.equals(want)


def test_dask_catalogue_is_the_whole_inputs_without_truth() -> None:
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.engines.dask import evaluate_dask

    # Items 5 and 6 land in different partitions: the default catalogue counts both.
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": [5, 0, 6, 0], "score": [1.0, 0.5, 1.0, 0.5]}
    )
    metrics = ["novelty", "coverage", "gini"]
    one = rk.evaluate(candidates, k=1, metrics=metrics, group_by="user", popularity=LOG)
    result = evaluate_dask(
        dd.from_pandas(candidates.to_pandas(), npartitions=2),
        k=1, metrics=metrics, group_by="user", popularity=LOG, npartitions=2, with_dropped=True,
    )  # fmt: skip
    per_group = pl.from_pandas(result.per_group.compute()).sort("user", metric_rank(), "k")
    assert per_group.equals(one.per_group)
    assert result.catalogue is not None
    assert one.catalogue is not None
    assert result.catalogue.equals(one.catalogue)
    # The default catalogue: items 0, 5, 6 of the candidates and 1, 2, 3, 9 of the log.
    assert result.catalogue["value"].to_list()[0] == 2 / 7


def test_catalogue_metrics_need_the_evaluation_object() -> None:
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.engines.dask import evaluate_dask

    frame = dd.from_pandas(pl.DataFrame({"user": [1], "item": [1], "score": [1.0]}).to_pandas())
    with pytest.raises(ValueError, match="with_dropped=True"):
        evaluate_dask(frame, k=1, metrics="coverage", group_by="user")


SPARK_CASES = {
    "graded truth, short lists skipped": (
        pl.DataFrame(
            {
                "user": [1, 1, 1, 2, 2, 3, 3, 3, 4],
                "item": [0, 1, 2, 0, 3, 4, 5, 0, 1],
                "score": [0.9, 0.5, 0.1, 0.8, 0.8, 0.3, 0.2, 0.1, 1.0],
            }
        ),
        rk.Policy(short_lists="skip"),
    ),
    "duplicates kept": (
        pl.DataFrame(
            {
                "user": [1, 1, 1, 2, 2, 2, 3],
                "item": [0, 0, 2, 1, 3, 1, 5],
                "score": [0.9, 0.5, 0.4, 0.8, 0.7, 0.6, 0.3],
            }
        ),
        rk.Policy(duplicates="keep"),
    ),
}


@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.parametrize("case", list(SPARK_CASES))
def test_spark_equals_one_machine(case: str, request: pytest.FixtureRequest) -> None:
    pytest.importorskip("pyspark")
    from polars_rankk.engines.spark import evaluate_spark
    from tests.engines import test_spark

    spark = request.getfixturevalue("spark_session")
    candidates, policy = SPARK_CASES[case]
    truth = candidates.filter(pl.col("score") > 0.7).select("user", "item").unique()
    options = _distributed_options(policy)
    one = rk.evaluate(candidates, truth, **options)  # type: ignore[arg-type]
    result = evaluate_spark(
        test_spark.to_spark(spark, candidates),
        test_spark.to_spark(spark, truth, 2),
        with_dropped=True,
        **options,  # type: ignore[arg-type]
    )
    per_group = test_spark.collect(result.per_group).sort("user", metric_rank(), "k")
    assert per_group.equals(one.per_group)
    assert result.summary().equals(one.summary())
    assert one.catalogue is not None
    assert result.catalogue is not None
    _same_catalogue(result.catalogue, one.catalogue)


@pytest.fixture(scope="module")
def spark_session() -> Iterator[Any]:
    """The Spark session of tests/engines/test_spark.py, for this module."""
    pytest.importorskip("pyspark")
    from tests.engines import test_spark

    yield from test_spark.spark.__wrapped__()  # type: ignore[attr-defined]
