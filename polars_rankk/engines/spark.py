"""Distributed evaluation on Apache Spark, with exactly the numbers of the single-machine path.

Candidates and truth are unioned into one tagged table, hash-repartitioned by the group keys
(every row of a group lands in one partition), and each whole partition is evaluated by the
library's own Polars engine inside ``DataFrame.mapInArrow`` — one Python call per partition,
never one per group. A group's numbers depend only on its rows, so ``per_group`` equals
``polars_rankk.evaluate(...).per_group`` bit for bit; `summarize_spark` reduces a value
histogram built by Spark with the single-machine summariser, so the means are bit-identical too.

Requires PySpark >= 4.0 (``pip install 'polars-rankk[spark]'``) and polars-rankk installed on
the executors. Classic and Spark Connect DataFrames are both accepted.

>>> from polars_rankk.engines.spark import evaluate_spark, summarize_spark
>>> per_group = evaluate_spark(candidates_sdf, truth_sdf, k=[5, 10],
...                            group_by="user")  # doctest: +SKIP
>>> summarize_spark(per_group)  # doctest: +SKIP
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

import polars as pl

from polars_rankk.core.aggregate import order_metrics
from polars_rankk.core.policy import Policy
from polars_rankk.engines import partition as dist

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

__all__ = ["SparkEvaluation", "evaluate_spark", "summarize_spark"]

_INSTALL = "polars_rankk.spark needs PySpark >= 4.0: pip install 'polars-rankk[spark]'"


def _pyspark() -> Any:
    try:
        import pyspark
    except ImportError as error:
        raise ImportError(_INSTALL) from error
    if int(pyspark.__version__.split(".")[0]) < 4:
        raise ImportError(f"{_INSTALL} (found PySpark {pyspark.__version__})")
    return pyspark


def _check_frame(frame: object, name: str) -> None:
    _pyspark()
    from pyspark.sql import DataFrame

    if not isinstance(frame, DataFrame):
        raise TypeError(
            f"{name} must be a Spark DataFrame (classic or Spark Connect); got "
            f"{type(frame).__name__}. For Polars frames use polars_rankk.evaluate."
        )


def _col(name: str) -> Column:
    """A column by its exact name (dots and spaces are not parsed)."""
    from pyspark.sql import functions as sf

    return sf.col("`" + name.replace("`", "``") + "`")


def _polars_schema(
    schema: StructType, columns: Iterable[str], timezone: str
) -> dict[str, pl.DataType]:
    """The Polars dtypes of `columns` of a Spark schema (other columns: Null placeholders)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_type

    wanted = set(columns)
    fields = [
        pa.field(
            field.name,
            to_arrow_type(field.dataType, timezone=timezone) if field.name in wanted else pa.null(),
        )
        for field in schema.fields
    ]
    frame = pl.from_arrow(pa.schema(fields).empty_table())
    assert isinstance(frame, pl.DataFrame)
    return dict(frame.schema)


def _spark_type(dtype: pl.DataType, original: DataType) -> DataType:
    """The Spark type of an id column once unified (integers -> long, strings -> string)."""
    from pyspark.sql.types import LongType, StringType

    if dtype == pl.Int64:
        return LongType()
    if dtype == pl.String:
        return StringType()
    return original


def _session_timezone(frame: DataFrame) -> str:
    timezone = frame.sparkSession.conf.get("spark.sql.session.timeZone")
    return timezone or "UTC"


@dataclass(frozen=True)
class SparkEvaluation:
    """Per-group values and policy drop counts of one distributed evaluation.

    Returned by ``evaluate_spark(..., with_dropped=True)``. `raw` holds the per-group rows and,
    per partition, a few sentinel rows (null keys, metric ``_rk_dropped_*``) carrying how many
    groups each policy dropped; `per_group` and `dropped` are views of it, and `summary` reads
    both in one Spark job.

    Attributes
    ----------
    raw
        The Spark DataFrame the executors produce.
    group_keys, ks, metrics, policy
        What was evaluated, as in `polars_rankk.Evaluation`.
    """

    raw: DataFrame
    group_keys: list[str]
    ks: list[int]
    metrics: list[str]
    policy: Policy

    @property
    def per_group(self) -> DataFrame:
        """Keys, metric, k, value: the columns and rows of ``Evaluation.per_group``."""
        from pyspark.sql import functions as sf

        return self.raw.where(~sf.col("metric").isin(*dist.SENTINELS))

    @property
    def dropped(self) -> DataFrame:
        """k, dropped_empty_truth, dropped_missing, dropped_short: the groups each policy
        dropped at each k (k null: r_precision); a k where none was dropped has no row."""
        from pyspark.sql import functions as sf

        sentinels = self.raw.where(sf.col("metric").isin(*dist.SENTINELS))
        return (
            sentinels.groupBy("k")
            .pivot("metric", list(dist.SENTINELS))
            .agg(sf.sum("value").cast("long"))
            .select(
                "k",
                *(
                    sf.coalesce(sf.col(name), sf.lit(0).cast("long")).alias(column)
                    for name, column in zip(dist.SENTINELS, dist.DROPPED_COLUMNS, strict=True)
                ),
            )
        )

    def persist(self) -> SparkEvaluation:
        """Persist `raw` (Spark's default storage level), so that several actions on
        `per_group`, `dropped` and `summary` evaluate once; returns self."""
        self.raw.persist()
        return self

    def unpersist(self) -> SparkEvaluation:
        """Undo `persist`; returns self."""
        self.raw.unpersist()
        return self

    def summary(
        self,
        *,
        quantiles: Sequence[float] = (),
        max_distinct: int = 1_000_000,
        approximate: bool = False,
        accuracy: int = 10_000,
    ) -> pl.DataFrame:
        """``Evaluation.summary()`` in full; see `summarize_spark`."""
        return summarize_spark(
            self,
            quantiles=quantiles,
            max_distinct=max_distinct,
            approximate=approximate,
            accuracy=accuracy,
        )


def _evaluate_partition(
    job: dist.PartitionJob,
    schema: pa.Schema,
    max_rows: int | None,
    batches: Iterator[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: the whole partition (or sorted chunks of whole groups) -> per_group."""
    import pyarrow as pa

    def frame(batch: pa.RecordBatch | pa.Table) -> pl.DataFrame:
        out = pl.from_arrow(batch)
        assert isinstance(out, pl.DataFrame)
        return out

    chunks: Iterable[pl.DataFrame]
    if max_rows is None:
        # Spark splits a partition (and a group) across batches: evaluate them together.
        collected = [batch for batch in batches if batch.num_rows]
        if not collected:
            return
        chunks = [frame(pa.Table.from_batches(collected))]
    else:
        chunks = dist.whole_groups((frame(batch) for batch in batches), job.keys, max_rows)
    for chunk in chunks:
        try:
            result = job.evaluate_tagged(chunk)
        except Exception as error:
            dist.add_note(
                error,
                f"polars_rankk.spark: raised by polars_rankk.evaluate on a partition chunk "
                f"of {chunk.height} rows (candidates and truth)",
            )
            raise
        for batch in result.to_arrow().to_batches(max_chunksize=1 << 16):
            yield batch.cast(schema)


@overload
def evaluate_spark(
    candidates: DataFrame,
    truth: DataFrame | None = ...,
    *,
    k: int | Iterable[int] = ...,
    metrics: str | Iterable[str] | None = ...,
    group_by: str | Sequence[str],
    item: str = ...,
    score: str = ...,
    relevance: str = ...,
    n_relevant: str | None = ...,
    policy: Policy | None = ...,
    order_by: str | None = ...,
    num_partitions: int | None = ...,
    max_rows_per_chunk: int | None = ...,
    with_dropped: Literal[False] = ...,
    check_values: bool = ...,
) -> DataFrame: ...


@overload
def evaluate_spark(
    candidates: DataFrame,
    truth: DataFrame | None = ...,
    *,
    k: int | Iterable[int] = ...,
    metrics: str | Iterable[str] | None = ...,
    group_by: str | Sequence[str],
    item: str = ...,
    score: str = ...,
    relevance: str = ...,
    n_relevant: str | None = ...,
    policy: Policy | None = ...,
    order_by: str | None = ...,
    num_partitions: int | None = ...,
    max_rows_per_chunk: int | None = ...,
    with_dropped: Literal[True],
    check_values: bool = ...,
) -> SparkEvaluation: ...


def evaluate_spark(
    candidates: DataFrame,
    truth: DataFrame | None = None,
    *,
    k: int | Iterable[int] = 10,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str | None = None,
    policy: Policy | None = None,
    order_by: str | None = None,
    num_partitions: int | None = None,
    max_rows_per_chunk: int | None = None,
    with_dropped: bool = False,
    check_values: bool = True,
) -> DataFrame | SparkEvaluation:
    """`polars_rankk.evaluate` on Spark DataFrames: the same per-group values, bit for bit.

    The schemas are checked on the driver (the errors `evaluate` raises for missing columns,
    wrong dtypes, mismatched id types, bad k or metric names). Value checks (null keys, invalid
    scores, NaN grades, duplicates under ``duplicates="error"``) run in the executors and fail
    the Spark job with the core's message. Nothing runs until an action.

    Parameters
    ----------
    candidates, truth
        Spark DataFrames (classic or Spark Connect) with the columns `evaluate` expects.
    k, metrics, group_by, item, score, relevance, n_relevant, policy, check_values
        As in `polars_rankk.evaluate`.
    order_by
        Required by ``Policy(ties="input_order")``, refused otherwise: a candidates column
        giving each row's position (unique within a group). A shuffle does not keep row order;
        the result equals ``evaluate(candidates.sort(order_by), ...)`` on one machine.
    num_partitions
        Partitions of the shuffle by group (default ``spark.sql.shuffle.partitions``). More
        partitions, less memory per task.
    max_rows_per_chunk
        Bounded memory for skewed or huge partitions: sort each partition by the group keys
        and evaluate it in chunks of about this many rows (whole groups; a trailing group is
        carried over to the next chunk). Default: evaluate each partition at once.
    with_dropped
        Also carry the policy drop counts (``dropped_*`` of ``Evaluation.summary()``): return a
        `SparkEvaluation` instead of a DataFrame.

    Returns
    -------
    pyspark.sql.DataFrame or SparkEvaluation
        The per-group rows — the group keys (their Spark types; integer ids of different widths
        become ``long``), ``metric`` string, ``k`` long (null for r_precision), ``value``
        double — in no particular order; or, with ``with_dropped=True``, a `SparkEvaluation`.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.engines.spark import evaluate_spark, summarize_spark
    >>> candidates = spark.createDataFrame(
    ...     [(1, "a", 0.9), (1, "b", 0.5), (2, "c", 0.7)], "user long, item string, score double"
    ... )  # doctest: +SKIP
    >>> truth = spark.createDataFrame([(1, "b", 1), (2, "c", 2)],
    ...                               "user long, item string, relevance long")  # doctest: +SKIP
    >>> per_group = evaluate_spark(candidates, truth, k=[1, 2], metrics="ndcg",
    ...                            group_by="user", policy=rk.Policy())  # doctest: +SKIP
    >>> per_group.orderBy("user", "k").show()  # doctest: +SKIP
    +----+------+---+------------------+
    |user|metric|  k|             value|
    +----+------+---+------------------+
    |   1|  ndcg|  1|               0.0|
    |   1|  ndcg|  2|0.6309297535714574|
    |   2|  ndcg|  1|               1.0|
    |   2|  ndcg|  2|               1.0|
    +----+------+---+------------------+
    <BLANKLINE>
    >>> summarize_spark(per_group)  # doctest: +SKIP
    shape: (2, 5)
    ┌────────┬─────┬──────────┬──────────┬───────┐
    │ metric ┆ k   ┆ value    ┆ n_groups ┆ n_nan │
    │ ---    ┆ --- ┆ ---      ┆ ---      ┆ ---   │
    │ str    ┆ i64 ┆ f64      ┆ i64      ┆ i64   │
    ╞════════╪═════╪══════════╪══════════╪═══════╡
    │ ndcg   ┆ 1   ┆ 0.5      ┆ 2        ┆ 0     │
    │ ndcg   ┆ 2   ┆ 0.815465 ┆ 2        ┆ 0     │
    └────────┴─────┴──────────┴──────────┴───────┘
    """
    _check_frame(candidates, "candidates")
    if truth is not None:
        _check_frame(truth, "truth")
    if num_partitions is not None and (isinstance(num_partitions, bool) or num_partitions < 1):
        raise ValueError(f"num_partitions must be an int >= 1; got {num_partitions!r}")
    if max_rows_per_chunk is not None and max_rows_per_chunk < 1:
        raise ValueError(f"max_rows_per_chunk must be an int >= 1; got {max_rows_per_chunk!r}")
    from pyspark.sql import functions as sf
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    timezone = _session_timezone(candidates)
    used = {
        *([group_by] if isinstance(group_by, str) else group_by),
        item,
        score,
        relevance,
        *(c for c in (n_relevant, order_by) if c is not None),
    }
    cand_fields = {field.name: field.dataType for field in candidates.schema.fields}
    truth_fields = {} if truth is None else {f.name: f.dataType for f in truth.schema.fields}
    spec = dist.check_on_driver(
        _polars_schema(candidates.schema, used, timezone),
        None if truth is None else _polars_schema(truth.schema, used, timezone),
        k=k,
        metrics=metrics,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        policy=policy,
        order_by=order_by,
    )
    job = dist.partition_job(spec, order_by, with_dropped=with_dropped, check_values=check_values)
    ids = dist.common_id_dtypes(spec)
    id_types = {c: _spark_type(dtype, cand_fields[c]) for c, dtype in ids.items()}

    def null(dtype: DataType) -> Column:
        return sf.lit(None).cast(dtype)

    def typed(name: str, dtype: DataType) -> Column:
        return _col(name).cast(dtype).alias(name)

    ids_columns = [*job.keys, job.item]
    cand_columns = [sf.lit(0).cast("tinyint").alias(dist.TAG)]
    cand_columns += [typed(c, id_types[c]) for c in ids_columns]
    cand_columns.append(_col(job.score))
    if job.labelled:
        cand_columns.append(_col(job.relevance).alias(dist.LABEL))
    cand_columns += [_col(c) for c in (job.n_relevant, job.order_by) if c is not None]
    if truth is not None and job.truth_graded:
        cand_columns.append(null(truth_fields[job.relevance]).alias(dist.TRUTH_GRADE))
    union = candidates.select(*cand_columns)
    if truth is not None:
        truth_columns = [sf.lit(1).cast("tinyint").alias(dist.TAG)]
        truth_columns += [typed(c, id_types[c]) for c in ids_columns]
        truth_columns.append(null(cand_fields[job.score]).alias(job.score))
        if job.labelled:
            truth_columns.append(null(cand_fields[job.relevance]).alias(dist.LABEL))
        truth_columns += [
            null(cand_fields[c]).alias(c) for c in (job.n_relevant, job.order_by) if c is not None
        ]
        if job.truth_graded:
            truth_columns.append(_col(job.relevance).alias(dist.TRUTH_GRADE))
        union = union.unionByName(truth.select(*truth_columns))

    keys = [_col(key) for key in job.keys]
    if num_partitions is None:
        union = union.repartition(*keys)
    else:
        union = union.repartition(num_partitions, *keys)
    if max_rows_per_chunk is not None:
        union = union.sortWithinPartitions(*keys)

    out_schema = StructType(
        [StructField(key, id_types[key], True) for key in job.keys]
        + [
            StructField("metric", StringType(), True),
            StructField("k", LongType(), True),
            StructField("value", DoubleType(), True),
        ]
    )
    arrow_schema = to_arrow_schema(out_schema, timezone=timezone)
    function = functools.partial(_evaluate_partition, job, arrow_schema, max_rows_per_chunk)
    raw = union.mapInArrow(function, out_schema)
    if not with_dropped:
        return raw
    return SparkEvaluation(
        raw=raw,
        group_keys=list(job.keys),
        ks=list(job.ks),
        metrics=list(job.metrics),
        policy=job.policy,
    )


def summarize_spark(
    results: DataFrame | SparkEvaluation,
    *,
    quantiles: Sequence[float] = (),
    max_distinct: int = 1_000_000,
    approximate: bool = False,
    accuracy: int = 10_000,
) -> pl.DataFrame:
    """The macro summary of per-group values in Spark, bit-identical to ``res.summary()``.

    Spark builds the value histogram — (metric, k, value) -> count, NaN apart — and the
    driver reduces it with the single-machine summariser, so the mean does not depend on the
    partitioning. One Spark job (two when a metric exceeds `max_distinct`).

    Parameters
    ----------
    results
        The per-group DataFrame of `evaluate_spark` (or any DataFrame with ``metric``, ``k``,
        ``value``), or a `SparkEvaluation` (``evaluate_spark(..., with_dropped=True)``).
    quantiles
        Probabilities in [0, 1]: adds ``quantile_<p>`` columns, equal to Polars'
        ``quantile(p, "linear")`` of the values (as `polars_rankk.distribution` computes them).
    max_distinct
        A (metric, k) with more distinct values than this is not collected to the driver: its
        mean is an exact decimal sum in Spark divided once (order-independent, but may differ
        from the single-machine float sum in the last bit), its quantiles Spark's exact
        ``percentile``.
    approximate
        Use Spark's ``percentile_approx`` (with `accuracy`) instead of ``percentile`` for those
        high-cardinality metrics.
    accuracy
        ``percentile_approx`` accuracy.

    Returns
    -------
    pl.DataFrame
        ``metric, k, value, n_groups, n_nan`` — for a `SparkEvaluation` also
        ``dropped_empty_truth, dropped_missing, dropped_short``, i.e. every column of
        ``Evaluation.summary()`` — then the quantile columns. Per-group rows cannot tell which
        groups a policy dropped, so a plain per-group DataFrame gives the macro columns only.

    Examples
    --------
    >>> from polars_rankk.engines.spark import evaluate_spark, summarize_spark
    >>> result = evaluate_spark(candidates, truth, k=10, group_by="user",
    ...                         with_dropped=True)  # doctest: +SKIP
    >>> summarize_spark(result, quantiles=[0.5])  # doctest: +SKIP
    """
    _pyspark()
    from pyspark.sql import DataFrame, Window
    from pyspark.sql import functions as sf

    checked = dist.check_quantiles(quantiles)
    if isinstance(max_distinct, bool) or max_distinct < 1:
        raise ValueError(f"max_distinct must be an int >= 1; got {max_distinct!r}")
    if isinstance(results, SparkEvaluation):
        frame, dropped_ks = results.raw, results.ks
    elif isinstance(results, DataFrame):
        frame, dropped_ks = results, None
        missing = [c for c in ("metric", "k", "value") if c not in frame.columns]
        if missing:
            raise ValueError(
                f"summarize_spark needs the per-group columns metric, k, value; missing "
                f"{missing} among {frame.columns}"
            )
    else:
        raise TypeError(
            "summarize_spark takes the DataFrame or the SparkEvaluation evaluate_spark returns; "
            f"got {type(results).__name__}"
        )

    value = sf.when(sf.isnan("value"), sf.lit(None).cast("double")).otherwise(sf.col("value"))
    histogram = (
        frame.select(
            sf.col("metric").cast("string").alias("metric"),
            sf.col("k").cast("long").alias("k"),
            value.cast("double").alias("value"),
        )
        .groupBy("metric", "k", "value")
        .agg(sf.count(sf.lit(1)).alias("count"))
    )
    pair = Window.partitionBy("metric", "k")
    histogram = (
        histogram.withColumn("_rk_distinct", sf.count(sf.lit(1)).over(pair))
        .withColumn("_rk_first", sf.row_number().over(pair.orderBy("value")))
        # A high-cardinality pair sends one marker row, not its histogram.
        .where((sf.col("_rk_distinct") <= max_distinct) | (sf.col("_rk_first") == 1))
    )
    collected = pl.from_arrow(histogram.toArrow())
    assert isinstance(collected, pl.DataFrame)
    small = pl.col("_rk_distinct") <= max_distinct
    large = collected.filter(~small).select("metric", "k").unique()
    fallback = None
    if large.height:
        fallback = _high_cardinality(frame, large, checked, approximate, accuracy)
    summary = dist.summarize(
        collected.filter(small), dropped_ks=dropped_ks, quantiles=checked, fallback=fallback
    )
    return order_metrics(summary)


def _high_cardinality(
    frame: DataFrame,
    pairs: pl.DataFrame,
    quantiles: list[float],
    approximate: bool,
    accuracy: int,
) -> pl.DataFrame:
    """Mean, counts and quantiles of (metric, k) pairs with too many values to collect."""
    from functools import reduce

    from pyspark.sql import functions as sf
    from pyspark.sql.types import DecimalType

    conditions = [
        (sf.col("metric") == metric) & sf.col("k").eqNullSafe(sf.lit(k).cast("long"))
        for metric, k in pairs.iter_rows()
    ]
    valid = ~sf.isnan("value")
    aggregations = [
        sf.count(sf.when(valid, 1)).alias("n_groups"),
        sf.count(sf.when(~valid, 1)).alias("n_nan"),
        # A decimal sum is exact and order-independent (values carry 20 decimals).
        sf.sum(sf.when(valid, sf.col("value").cast(DecimalType(38, 20)))).alias("total"),
    ]
    if quantiles:
        values = sf.when(valid, sf.col("value"))
        if approximate:
            aggregations.append(sf.percentile_approx(values, quantiles, accuracy).alias("q"))
        else:
            aggregations.append(sf.percentile(values, quantiles).alias("q"))
    rows = (
        frame.where(reduce(lambda a, b: a | b, conditions))
        .groupBy("metric", "k")
        .agg(*aggregations)
        .collect()
    )
    out: list[dict[str, object]] = []
    for row in rows:
        record: dict[str, object] = {
            "metric": row["metric"],
            "k": row["k"],
            "value": dist.decimal_mean(row["total"], row["n_groups"]),
            "n_groups": row["n_groups"],
            "n_nan": row["n_nan"],
        }
        for index, q in enumerate(quantiles):
            found = row["q"]
            record[dist.quantile_name(q)] = None if found is None else float(found[index])
        out.append(record)
    schema: dict[str, pl.DataType] = {
        "metric": pl.String(),
        "k": pl.Int64(),
        "value": pl.Float64(),
        "n_groups": pl.Int64(),
        "n_nan": pl.Int64(),
    }
    schema.update({dist.quantile_name(q): pl.Float64() for q in quantiles})
    return pl.DataFrame(out, schema=schema, orient="row")
