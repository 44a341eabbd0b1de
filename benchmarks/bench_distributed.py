"""Distributed evaluation at 5M rows: Spark and Dask local mode next to one machine.

The workload of benchmarks/generate.py (50,000 users x 100 candidates, graded truth), all eight
metrics at K in {1, 5, 10, 20, 50, 100}. For each engine it times

- ``per_group``: the evaluation, materialised where it runs (Polars: collected; Spark: written
  to the ``noop`` sink; Dask: partitions computed and counted);
- ``summary``: the full ``summary()`` (means and policy drop counts) from scratch — for Spark
  and Dask one job that evaluates and reduces the value histogram on the driver (Spark's first
  job, which starts the Python workers and warms the JVM, is reported apart as "cold");

checks that every summary equals the single-machine one bit for bit, prints a table and
writes ``benchmarks/results/distributed.json``. Spark runs ``local[2]`` (one JVM, two task
slots), Dask the threaded scheduler with two workers; both read the Parquet files themselves.

Spark runs twice: its Python workers on the compiled kernel (``native``, the default when
``polars-rankk-native`` is installed; each row says whether the workers loaded it, asked of
them) and on the pure-Polars path (``pure``: ``POLARS_RANKK_NATIVE=0`` in the workers'
environment). Every figure carries the load average when it ended: on a shared machine, wall
seconds are only comparable within one run.

Run: ``.venv/bin/python benchmarks/bench_distributed.py [--scale 5M] [--partitions 8]
[--engines spark,dask] [--native both|native|pure]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402

import polars_rankk as rk  # noqa: E402
from polars_rankk.core.evaluation.aggregate import order_metrics  # noqa: E402

KS = [1, 5, 10, 20, 50, 100]
RESULTS = HERE / "results" / "distributed.json"


def timed(rows: list[dict[str, Any]], engine: str, step: str, action: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - start
    load = round(os.getloadavg()[0], 2)
    rows.append({"engine": engine, "step": step, "seconds": round(seconds, 2), "load": load})
    print(f"{engine:<36} {step:<14} {seconds:8.2f} s  (load {load})", flush=True)
    return result


def single_machine(folder: Path, rows: list[dict[str, Any]]) -> pl.DataFrame:
    def evaluation() -> rk.Evaluation:
        return rk.evaluate(
            pl.scan_parquet(folder / "candidates" / "*.parquet"),
            pl.scan_parquet(folder / "truth" / "*.parquet"),
            k=KS,
            group_by="user",
        )

    timed(
        rows,
        "polars (1 machine)",
        "per_group",
        lambda: evaluation().per_group.collect(engine="streaming"),
    )
    summary: pl.DataFrame = timed(
        rows, "polars (1 machine)", "summary", lambda: evaluation().summary()
    )
    return order_metrics(summary)


def _workers_load_the_kernel(spark: Any) -> bool:
    """Whether the Python workers of `spark` run on the compiled kernel (asked of them)."""

    def loaded(_: object) -> bool:
        from polars_rankk.core.kernel import loader

        return bool(loader.status().loaded)

    found = spark.sparkContext.parallelize([0, 1], 2).map(loaded).collect()
    return all(found)


def spark_engine(
    folder: Path, partitions: int, rows: list[dict[str, Any]], *, native: bool = True
) -> dict[str, Any]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from polars_rankk.spark import evaluate_spark

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("polars-rankk-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.executorEnv.POLARS_MAX_THREADS", "1")
        .config("spark.executorEnv.POLARS_RANKK_NATIVE", "1" if native else "0")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    summaries = {}
    try:
        on_kernel = _workers_load_the_kernel(spark)
        if on_kernel != native:
            print(f"spark workers: kernel loaded = {on_kernel} (asked for {native})", flush=True)
        path = "native" if on_kernel else "pure"
        for label, chunk in (
            (f"spark local[2] {path}", None),
            (f"spark local[2] {path}, chunks 100k", 100_000),
        ):

            def evaluation(chunk: int | None = chunk) -> Any:
                return evaluate_spark(
                    spark.read.parquet(str(folder / "candidates")),
                    spark.read.parquet(str(folder / "truth")),
                    k=KS,
                    group_by="user",
                    num_partitions=partitions,
                    max_rows_per_chunk=chunk,
                    with_dropped=True,
                )

            if chunk is None:
                # The first job starts the Python workers and warms the JVM: timed apart.
                timed(rows, label, "summary, cold", lambda: evaluation().summary())
                timed(
                    rows,
                    label,
                    "per_group",
                    lambda: evaluation().per_group.write.format("noop").mode("overwrite").save(),
                )
            summaries[label] = timed(rows, label, "summary", lambda: evaluation().summary())
    finally:
        spark.stop()
    return summaries


def dask_engine(folder: Path, partitions: int, rows: list[dict[str, Any]]) -> pl.DataFrame:
    import dask
    import dask.dataframe as dd

    from polars_rankk.dask import evaluate_dask

    def evaluation() -> Any:
        return evaluate_dask(
            dd.read_parquet(str(folder / "candidates" / "*.parquet")),
            dd.read_parquet(str(folder / "truth" / "*.parquet")),
            k=KS,
            group_by="user",
            npartitions=partitions,
            with_dropped=True,
        )

    with dask.config.set(scheduler="threads", num_workers=2):
        timed(
            rows,
            "dask threads (2)",
            "per_group",
            lambda: evaluation().per_group.map_partitions(len).compute(),
        )
        summary: pl.DataFrame = timed(
            rows, "dask threads (2)", "summary", lambda: evaluation().summary()
        )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="5M")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--engines", default="spark,dask")
    parser.add_argument("--native", choices=["both", "native", "pure"], default="both")
    args = parser.parse_args()
    engines = set(args.engines.split(","))
    folder = generate(args.scale)
    candidates = pl.scan_parquet(folder / "candidates" / "*.parquet")
    size = candidates.select(pl.len(), pl.col("user").n_unique()).collect().row(0)
    print(f"{size[0]:,} candidate rows, {size[1]:,} users, k={KS}, {os.cpu_count()} cpus")
    rows: list[dict[str, Any]] = []
    reference = single_machine(folder, rows)
    summaries: dict[str, Any] = {}
    if "spark" in engines:
        for native in {"both": (True, False), "native": (True,), "pure": (False,)}[args.native]:
            # One session at a time: the workers' environment is the session's.
            summaries |= spark_engine(folder, args.partitions, rows, native=native)
    if "dask" in engines:
        summaries["dask threads (2)"] = dask_engine(folder, args.partitions, rows)
    equal = {label: summary.equals(reference) for label, summary in summaries.items()}
    print("summary equal to one machine, bit for bit:", equal)
    from importlib import metadata

    report = {
        "scale": args.scale,
        "candidate_rows": size[0],
        "groups": size[1],
        "ks": KS,
        "partitions": args.partitions,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "polars": pl.__version__,
        "pyspark": metadata.version("pyspark") if "spark" in engines else None,
        "dask": metadata.version("dask") if "dask" in engines else None,
        "summary_equal_to_single_machine": equal,
        "timings": rows,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
