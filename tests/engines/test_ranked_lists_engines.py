"""Ranked-list inputs (candidates and truth as list columns, as `evaluate` takes them) on the
Dask and Spark engines give `evaluate`'s numbers, empty lists included, and refuse what it
refuses (two lists of one group when the list order is the ranking).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from tests.support.distributed_cases import sort_per_group

dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 'dask[dataframe]')")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.xdist_group("dask")

from polars_rankk.dask import evaluate_dask, summarize_dask  # noqa: E402

KS = [1, 2, 5]


def _lists(positional: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidate and truth lists of 9 users: user 3's candidate list and user 5's truth list
    are empty, user 8 has candidates only, user 9 truth only; scores tie."""
    long = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 4, 4, 4, 5, 6, 6, 7, 8],
            "item": [1, 2, 3, 1, 4, 5, 6, 7, 1, 2, 3, 9, 1],
            "score": [0.9, 0.5, 0.5, 0.3, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.7, 0.2],
        }
    )
    if positional:  # the list order is the ranking
        candidates = (
            long.sort("user", "score", descending=[False, True])
            .group_by("user", maintain_order=True)
            .agg("item")
        )
    else:
        candidates = long.group_by("user", maintain_order=True).agg("item", "score")
    empty = pl.DataFrame({"user": [3]}).with_columns(
        pl.lit([], dtype=candidates.schema[c]).alias(c) for c in candidates.columns[1:]
    )
    candidates = pl.concat([candidates, empty]).sort("user")
    truth = pl.DataFrame(
        {
            "user": [1, 2, 3, 4, 5, 6, 7, 9],
            "item": [[2, 3], [4], [8], [7, 5, 11], [], [2], [10], [1]],
            "relevance": [[1, 2], [3], [1], [1, 0, 2], [], [1], [1], [1]],
        }
    )
    return candidates, truth


def _dask(frame: pl.DataFrame, partitions: int) -> Any:
    # Arrow-backed lists: Dask turns numpy-object lists into strings (convert-string).
    return dd.from_pandas(
        frame.to_pandas(use_pyarrow_extension_array=True), npartitions=partitions, sort=False
    )


@pytest.mark.parametrize("positional", [False, True], ids=["score-lists", "list-order"])
@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy(),
        rk.Policy(empty_truth="zero", missing_groups="exclude"),
        rk.Policy.trec_eval(),
    ],
    ids=["default", "zero-exclude", "trec_eval"],
)
def test_dask_takes_ranked_lists_as_evaluate_does(positional: bool, policy: rk.Policy) -> None:
    candidates, truth = _lists(positional)
    expected = rk.evaluate(candidates, truth, k=KS, group_by="user", policy=policy)
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            _dask(candidates, 3),
            _dask(truth, 2),
            k=KS,
            group_by="user",
            policy=policy,
            npartitions=2,
            with_dropped=True,
        )
        per_group = pl.from_pandas(result.per_group.compute())
        summary = summarize_dask(result)
    want = expected.per_group
    assert isinstance(want, pl.DataFrame)
    assert sort_per_group(per_group, ["user"]).equals(sort_per_group(want, ["user"]))
    assert summary.equals(expected.summary())


def test_dask_takes_labelled_candidate_lists_without_truth() -> None:
    candidates = pl.DataFrame(
        {"user": [1, 2, 3], "item": [[1, 2], [], [3]], "relevance": [[0, 1], [], [0]]}
    )
    policy = rk.Policy(empty_truth="zero")
    expected = rk.evaluate(candidates, k=2, group_by="user", policy=policy)
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            _dask(candidates, 2), k=2, group_by="user", policy=policy, with_dropped=True
        )
        summary = summarize_dask(result)
    assert summary.equals(expected.summary())
    assert summary["n_groups"].unique().to_list() == [3]


def test_dask_refuses_two_lists_of_one_group_when_the_order_is_the_ranking() -> None:
    # Each input partition holds one of user 1's lists: only the shuffled partition sees both.
    candidates = pl.DataFrame({"user": [1, 2, 1], "item": [[1, 2], [3], [4]]})
    truth = pl.DataFrame({"user": [1, 2], "item": [[2], [3]]})
    with pytest.raises(ValueError, match=r"user=1 has 2 rows.*list order is the ranking"):
        rk.evaluate(candidates, truth, k=2, group_by="user")
    with dask.config.set(scheduler="synchronous"):
        per_group = evaluate_dask(
            _dask(candidates, 3), _dask(truth, 1), k=2, group_by="user", npartitions=1
        )
        with pytest.raises(ValueError, match=r"user=1 has 2 rows.*list order is the ranking"):
            per_group.compute()


def test_dask_says_why_lists_became_strings() -> None:
    candidates, truth = _lists(positional=True)
    # Numpy-object lists: Dask's convert-string turns them into strings before we see them.
    stringified = dd.from_pandas(candidates.to_pandas(), npartitions=2)
    with pytest.raises(ValueError, match=r"no column 'score'.*Arrow list columns"):
        evaluate_dask(stringified, _dask(truth, 1), k=2, group_by="user")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="PySpark is not installed")
    if not shutil.which("java"):
        pytest.skip("Spark needs a Java 17+ runtime (see tests/engines/test_spark.py)")
    from pyspark.sql import SparkSession

    # The executors' Python runs this interpreter and imports this checkout's polars_rankk.
    before = {name: os.environ.get(name) for name in ("PYSPARK_PYTHON", "PYTHONPATH")}
    os.environ["PYSPARK_PYTHON"] = sys.executable
    root = str(Path(__file__).resolve().parents[2])
    os.environ["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    session = (
        SparkSession.builder.master("local[2]")
        .appName("polars-rankk-ranked-lists")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "512m")
        .config("spark.executorEnv.PYTHONPATH", root)
        .config("spark.executorEnv.POLARS_MAX_THREADS", "1")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    where = session.sparkContext.parallelize([0], 1).map(_package_file).collect()
    assert where == [str(Path(root) / "polars_rankk" / "__init__.py")]
    yield session
    session.stop()
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _package_file(_: object) -> str:
    import polars_rankk

    return str(polars_rankk.__file__)


@pytest.mark.parametrize("positional", [False, True], ids=["score-lists", "list-order"])
def test_spark_takes_ranked_lists_as_evaluate_does(spark: Any, positional: bool) -> None:
    from polars_rankk.spark import evaluate_spark

    candidates, truth = _lists(positional)
    for policy in (rk.Policy(), rk.Policy(empty_truth="zero", missing_groups="exclude")):
        expected = rk.evaluate(candidates, truth, k=KS, group_by="user", policy=policy)
        result = evaluate_spark(
            spark.createDataFrame(candidates.to_arrow()).repartition(3),
            spark.createDataFrame(truth.to_arrow()).repartition(2),
            k=KS,
            group_by="user",
            policy=policy,
            with_dropped=True,
        )
        per_group = pl.from_arrow(result.per_group.toArrow())
        assert isinstance(per_group, pl.DataFrame)
        want = expected.per_group
        assert isinstance(want, pl.DataFrame)
        assert sort_per_group(per_group, ["user"]).equals(sort_per_group(want, ["user"]))
        assert result.summary().equals(expected.summary())


def test_spark_refuses_two_lists_of_one_group_when_the_order_is_the_ranking(spark: Any) -> None:
    from polars_rankk.spark import evaluate_spark

    candidates = pl.DataFrame({"user": [1, 2, 1], "item": [[1, 2], [3], [4]]})
    truth = pl.DataFrame({"user": [1, 2], "item": [[2], [3]]})
    per_group = evaluate_spark(
        spark.createDataFrame(candidates.to_arrow()).repartition(3),
        spark.createDataFrame(truth.to_arrow()),
        k=2,
        group_by="user",
    )
    with pytest.raises(Exception, match=r"user=1 has 2 rows.*list order is the ranking"):
        per_group.toArrow()
