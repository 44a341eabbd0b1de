"""Spark back end: exactly the single-machine numbers, on a real local Spark session.

One session for the module (``local[2]``, 3 shuffle partitions, Arrow batches of 4 rows so
that groups straddle batches). Every case of tests/distributed_cases.py is evaluated on Spark
and compared with `polars_rankk.evaluate` for exact equality: per-group rows and the full
summary (with the policy drop counts). Needs PySpark and Java 17+; when ``java`` is missing
and we are root on Debian, the fixture installs ``openjdk-17-jre-headless``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.evaluation.aggregate import order_metrics
from polars_rankk.engines import reduction
from tests.support.distributed_cases import (
    CASES,
    CHUNKED_CASES,
    DIALECT_CASES,
    KS,
    LIST_KS,
    Case,
    distributed_kwargs,
    quantile_reference,
    ranked_lists,
    single_machine,
    sort_per_group,
    tables,
)
from tests.support.toy_metrics import as_dict, assert_close, brute_force
from tests.support.toy_metrics import tables as registered_tables

pyspark = pytest.importorskip("pyspark", reason="PySpark is not installed (pip install pyspark)")

pytestmark = [
    pytest.mark.xdist_group("spark"),
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

from polars_rankk.spark import SparkEvaluation, evaluate_spark, summarize_spark  # noqa: E402


def _ensure_java() -> None:
    if shutil.which("java"):
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "update", "-q"],
            [
                "apt-get",
                "install",
                "-y",
                "-q",
                "--no-install-recommends",
                "openjdk-17-jre-headless",
            ],
        ):
            done = subprocess.run(command, env=env, capture_output=True, check=False, timeout=900)
            if done.returncode:
                break
    if not shutil.which("java"):
        pytest.skip(
            "Spark needs a Java 17+ runtime and none is on PATH (could not apt-get install "
            "openjdk-17-jre-headless: not root, no apt-get, or no network)"
        )


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    _ensure_java()
    from pyspark.sql import SparkSession

    # Executors run this interpreter and import this checkout's polars_rankk (not an
    # editable install's elsewhere).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    root = str(Path(__file__).resolve().parents[2])
    os.environ["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    session = (
        SparkSession.builder.master("local[2]")
        .appName("polars-rankk-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        .config("spark.executorEnv.POLARS_MAX_THREADS", "1")
        .config("spark.executorEnv.PYTHONPATH", root)
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    where = session.sparkContext.parallelize([0], 1).map(_package_file).collect()
    assert where == [str(Path(root) / "polars_rankk" / "__init__.py")]
    yield session
    session.stop()


def _package_file(_: object) -> str:
    import polars_rankk

    return str(polars_rankk.__file__)


def to_spark(spark: Any, frame: pl.DataFrame, partitions: int = 3) -> Any:
    """A Spark DataFrame of `frame`, spread round-robin over several input partitions."""
    return spark.createDataFrame(frame.to_arrow()).repartition(partitions)


def collect(frame: Any) -> pl.DataFrame:
    out = pl.from_arrow(frame.toArrow())
    assert isinstance(out, pl.DataFrame)
    return out


def check_case(spark: Any, case: Case) -> None:
    candidates, truth = tables(case)
    expected = single_machine(case, candidates, truth)
    result = evaluate_spark(
        to_spark(spark, candidates),
        None if truth is None else to_spark(spark, truth, 2),
        num_partitions=case.partitions,
        max_rows_per_chunk=case.max_rows_per_chunk,
        with_dropped=True,
        **distributed_kwargs(case),
    )
    assert isinstance(result, SparkEvaluation)
    per_group = collect(result.per_group)
    assert per_group.schema == expected.per_group.schema
    assert sort_per_group(per_group, case.keys).equals(
        sort_per_group(expected.per_group, case.keys)
    )
    assert result.summary().equals(order_metrics(expected.summary()))


@pytest.mark.parametrize("case", CASES + CHUNKED_CASES + DIALECT_CASES, ids=lambda case: case.name)
def test_equal_to_single_machine(spark: Any, case: Case) -> None:
    check_case(spark, case)


def test_plain_per_group_and_quantiles(spark: Any) -> None:
    """The DataFrame form (drop counts unknown), the macro columns and histogram quantiles."""
    case = CASES[1]
    candidates, truth = tables(case)
    expected = single_machine(case, candidates, truth)
    per_group = evaluate_spark(
        to_spark(spark, candidates), to_spark(spark, truth), **distributed_kwargs(case)
    )
    quantiles = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    summary = summarize_spark(per_group, quantiles=quantiles)
    reference = order_metrics(
        expected.summary()
        .select(*reduction.MACRO_COLUMNS)
        .join(
            quantile_reference(expected.per_group, quantiles), on=["metric", "k"], nulls_equal=True
        )
    )
    assert summary.select(pl.exclude(reduction.DROPPED_COLUMNS)).equals(reference)
    assert summary["n_nan"].sum() > 0  # empty_truth="nan" groups are counted apart
    check_unknown_drops(summary, expected.summary(), quantiles)


def test_summary_draws_a_bar_of_spark_tasks(spark: Any, capfd: pytest.CaptureFixture[str]) -> None:
    """Progress=True draws the tasks the cluster reports done."""
    case = CASES[1]
    candidates, truth = tables(case)
    per_group = evaluate_spark(
        to_spark(spark, candidates), to_spark(spark, truth), **distributed_kwargs(case)
    )
    summarize_spark(per_group, progress=True)
    assert "Spark tasks" in capfd.readouterr().err
    summarize_spark(per_group, progress=False)
    assert "Spark tasks" not in capfd.readouterr().err


def check_unknown_drops(
    summary: pl.DataFrame, single: pl.DataFrame, quantiles: list[float]
) -> None:
    """The summary of plain per-group rows has every column of
    Evaluation.summary(); the drop counts, which per-group rows cannot tell, are null."""
    assert summary.columns == [*single.columns, *(f"quantile_{q!r}" for q in quantiles)]
    nulls = summary.select(reduction.DROPPED_COLUMNS).null_count().row(0)
    assert nulls == (summary.height,) * len(reduction.DROPPED_COLUMNS)


def test_high_cardinality_fallback(spark: Any) -> None:
    """Metrics with more distinct values than max_distinct are reduced in Spark."""
    case = CASES[4]
    candidates, truth = tables(case)
    expected = single_machine(case, candidates, truth)
    result = evaluate_spark(
        to_spark(spark, candidates),
        to_spark(spark, truth),
        with_dropped=True,
        **distributed_kwargs(case),
    ).persist()
    quantiles = [0.25, 0.5]
    reference = order_metrics(
        expected.summary().join(
            quantile_reference(expected.per_group, quantiles),
            on=["metric", "k"],
            nulls_equal=True,
        )
    )
    for approximate in (False, True):
        summary = result.summary(quantiles=quantiles, max_distinct=2, approximate=approximate)
        assert summary.select(pl.exclude("value", "^quantile_.*$")).equals(
            reference.select(pl.exclude("value", "^quantile_.*$"))
        )
        assert (summary["value"] - reference["value"]).abs().max() <= 1e-15  # type: ignore[operator]
        for q in quantiles:
            name = f"quantile_{q!r}"
            gap = (summary[name] - reference[name]).abs().max()
            # percentile is exact (Spark's interpolation); percentile_approx picks a value.
            assert gap is not None
            assert gap <= (1e-12 if not approximate else 1.0)  # type: ignore[operator]
    result.unpersist()


def test_dropped_view(spark: Any) -> None:
    case = CASES[2]  # missing_groups="exclude", empty truth excluded
    candidates, truth = tables(case)
    expected = single_machine(case, candidates, truth).summary()
    result = evaluate_spark(
        to_spark(spark, candidates),
        to_spark(spark, truth),
        with_dropped=True,
        **distributed_kwargs(case),
    )
    dropped = collect(result.dropped).sort("k", nulls_last=True)
    want = (
        expected.select("k", *reduction.DROPPED_COLUMNS)
        .unique()
        .filter(pl.any_horizontal(pl.col(c) > 0 for c in reduction.DROPPED_COLUMNS))
        .sort("k", nulls_last=True)
    )
    assert dropped.equals(want)
    assert want.height > 0


def test_schema_errors_raise_on_the_driver(spark: Any) -> None:
    candidates, truth = tables(CASES[0])
    cand, judged = to_spark(spark, candidates), to_spark(spark, truth)
    with pytest.raises(ValueError, match="candidates has no column 'rating'"):
        evaluate_spark(cand, judged, group_by="user", score="rating")
    with pytest.raises(TypeError, match="column 'item' has dtype"):
        evaluate_spark(
            cand, judged.withColumn("item", judged["item"].cast("string")), group_by="user"
        )
    with pytest.raises(ValueError, match="order_by"):
        evaluate_spark(cand, judged, group_by="user", policy=rk.Policy(ties="input_order"))
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate_spark(cand, judged, group_by="user", metrics=["ndcgg"])
    with pytest.raises(TypeError, match="Spark DataFrame"):
        evaluate_spark(candidates, judged, group_by="user")  # type: ignore[call-overload]


def test_value_errors_surface_from_executors(spark: Any) -> None:
    candidates, truth = tables(CASES[0])
    bad = candidates.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("score")).alias("score")
    )
    per_group = evaluate_spark(to_spark(spark, bad), to_spark(spark, truth), group_by="user")
    with pytest.raises(Exception, match="must hold finite numbers") as raised:
        per_group.toArrow()
    assert "polars_rankk.spark" in str(raised.value)


def test_integer_widths_are_unified(spark: Any) -> None:
    """int ids of different widths: cast to long on both sides, as the core does."""
    case = CASES[0]
    candidates, truth = tables(case)
    narrow = truth.with_columns(pl.col("user").cast(pl.Int32), pl.col("item").cast(pl.Int16))
    expected = rk.evaluate(candidates, narrow, k=KS, group_by="user")
    per_group = collect(
        evaluate_spark(
            to_spark(spark, candidates), to_spark(spark, narrow), k=list(KS), group_by="user"
        )
    )
    assert sort_per_group(per_group, ["user"]).equals(sort_per_group(expected.per_group, ["user"]))


CONNECT_CHECK = """
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
import polars as pl
from pyspark.sql import SparkSession
from polars_rankk.core.evaluation.aggregate import order_metrics
from polars_rankk.spark import evaluate_spark
from tests.support.distributed_cases import (
    CASES, distributed_kwargs, single_machine, sort_per_group, tables)

spark = (SparkSession.builder.remote("local[2]")
         .config("spark.sql.shuffle.partitions", "3")
         .config("spark.sql.execution.arrow.maxRecordsPerBatch", "4").getOrCreate())
assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
case = next(case for case in CASES if case.name == "labelled-no-truth-multi-key")
candidates, truth = tables(case)
expected = single_machine(case, candidates, truth)
result = evaluate_spark(spark.createDataFrame(candidates.to_arrow()).repartition(3),
                        None if truth is None else spark.createDataFrame(truth.to_arrow()),
                        num_partitions=3,
                        with_dropped=True, **distributed_kwargs(case))
per_group = pl.from_arrow(result.per_group.toArrow())
assert sort_per_group(per_group, case.keys).equals(sort_per_group(expected.per_group, case.keys))
assert result.summary().equals(order_metrics(expected.summary()))
spark.stop()
print("CONNECT-OK")
"""


def test_spark_connect() -> None:
    """The same evaluation through a Spark Connect session (a local Connect server)."""
    for module in ("grpc", "grpc_status", "google.rpc", "zstandard"):
        pytest.importorskip(module, reason="Spark Connect needs pip install 'pyspark[connect]'")
    _ensure_java()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", CONNECT_CHECK],
        cwd=root,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, *sys.path]))},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert "CONNECT-OK" in done.stdout, done.stderr[-3000:]


def test_ir_measures_on_spark_equal_evaluate(spark: Any) -> None:
    """Bpref, err, rbp (with its residual), judged and dcg through Spark."""
    from tests.core.test_ir_measures import IR_METRICS, _flow_tables

    candidates, truth = _flow_tables()
    policy = rk.Policy(unjudged="condense", rbp_persistence=0.9, err_max_grade=3)
    expected = rk.evaluate(
        candidates, truth, k=[1, 5], metrics=IR_METRICS, group_by="user", policy=policy
    )
    result = evaluate_spark(
        to_spark(spark, candidates),
        to_spark(spark, truth, 2),
        k=[1, 5],
        metrics=IR_METRICS,
        group_by="user",
        policy=policy,
        with_dropped=True,
    )
    assert isinstance(result, SparkEvaluation)
    assert sort_per_group(collect(result.per_group), ["user"]).equals(
        sort_per_group(expected.per_group, ["user"])
    )
    assert result.summary().equals(order_metrics(expected.summary()))


def test_a_registered_metric_equals_its_definition(
    spark: Any, toy_metrics: tuple[str, str]
) -> None:
    """A metric declared with rk.register_metric on the driver runs in Spark's executor
    processes (the job ships its declaration) and equals its definition."""
    candidates, truth = registered_tables()
    per_group = evaluate_spark(
        to_spark(spark, candidates),
        to_spark(spark, truth, 2),
        num_partitions=2,
        k=[1, 2, 3, 5],
        metrics=list(toy_metrics),
        group_by="q",
    )
    assert_close(as_dict(collect(per_group)), as_dict(brute_force("trec_eval")))


@pytest.mark.parametrize("positional", [False, True], ids=["score-lists", "list-order"])
def test_spark_takes_ranked_lists_as_evaluate_does(spark: Any, positional: bool) -> None:
    candidates, truth = ranked_lists(positional)
    for policy in (rk.Policy(), rk.Policy(empty_truth="zero", missing_groups="exclude")):
        expected = rk.evaluate(candidates, truth, k=LIST_KS, group_by="user", policy=policy)
        result = evaluate_spark(
            spark.createDataFrame(candidates.to_arrow()).repartition(3),
            spark.createDataFrame(truth.to_arrow()).repartition(2),
            k=LIST_KS,
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


def test_cwl_measures_equal_single_machine(spark: Any) -> None:
    """The C/W/L family (pure-Polars terms inside each Spark task) gives evaluate's numbers."""
    candidates = pl.DataFrame(
        {
            "user": [1, 1, 1, 1, 2, 2, 2, 3],
            "item": [10, 11, 12, 13, 20, 21, 22, 30],
            "score": [0.9, 0.5, 0.5, 0.1, 1.0, 1.0, 0.3, 0.4],
        }
    )
    truth = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3],
            "item": [10, 12, 14, 21, 22, 31],
            "relevance": [3, 1, 2, 2, 0, 1],
        }
    )
    policy = rk.Policy(cwl_target=1.5, cwl_max_grade=3)
    metrics = ["sdcg", "insq", "inst", "inst_depth", "bpm", "nerr8", "nerr10_total_gain"]
    options: dict[str, Any] = {
        "k": [2, 5],
        "metrics": metrics,
        "group_by": "user",
        "policy": policy,
    }
    expected = rk.evaluate(candidates, truth, **options).per_group
    assert isinstance(expected, pl.DataFrame)
    got = collect(evaluate_spark(to_spark(spark, candidates), to_spark(spark, truth), **options))
    columns = ["user", "metric", "k", "value"]
    mine = got.sort("user", "metric", "k").select(columns)
    theirs = expected.sort("user", "metric", "k").select(columns)
    assert mine["metric"].to_list() == theirs["metric"].to_list()
    gaps = (mine["value"] - theirs["value"]).abs().max()
    assert gaps is not None
    assert gaps <= 1e-12  # type: ignore[operator]


def test_a_k_where_every_list_is_skipped_keeps_its_rows(spark: Any) -> None:
    """``short_lists="skip"`` leaving out every group at a K: Spark's summary keeps its rows
    (value null, the groups counted as skipped), equal to one machine's."""
    candidates = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [2.0, 1, 2, 1]})
    truth = pl.DataFrame({"q": [1, 2], "item": [1, 4]})
    options: dict[str, Any] = {"k": [1, 5], "metrics": ["precision", "ndcg"], "group_by": "q",
                               "policy": rk.Policy(short_lists="skip")}  # fmt: skip
    result = evaluate_spark(to_spark(spark, candidates), to_spark(spark, truth),
                            with_dropped=True, **options)  # fmt: skip
    found = result.summary()
    assert found.filter(pl.col("k") == 5).select("value", "n_groups", "dropped_short").rows() == [
        (None, 0, 2),
        (None, 0, 2),
    ]
    assert found.equals(rk.evaluate(candidates, truth, **options).summary())
