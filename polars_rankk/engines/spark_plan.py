"""The Spark side of `evaluate_spark` and `summarize_spark`: schemas, the tagged union, the
shuffle by group, the per-partition evaluation, and the reduction of metrics too large to
collect. `polars_rankk.engines.spark` holds the public functions that put them together.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankk.core import quantile_name
from polars_rankk.engines import partition as dist
from polars_rankk.engines import reduction
from polars_rankk.engines.ranked_lists import LIST_ID

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

INSTALL = "polars_rankk.spark needs PySpark >= 4.0: pip install 'polars-rankk[spark]'"


def pyspark_module() -> Any:
    try:
        import pyspark
    except ImportError as error:
        raise ImportError(INSTALL) from error
    if int(pyspark.__version__.split(".")[0]) < 4:
        raise ImportError(f"{INSTALL} (found PySpark {pyspark.__version__})")
    return pyspark


def check_frame(frame: object, name: str) -> None:
    pyspark_module()
    from pyspark.sql import DataFrame

    if not isinstance(frame, DataFrame):
        raise TypeError(
            f"{name} must be a Spark DataFrame (classic or Spark Connect); got "
            f"{type(frame).__name__}. For Polars frames use polars_rankk.evaluate."
        )


def local_workers_python(frame: DataFrame) -> None:
    """In local mode, run the Python workers with this interpreter (the one that has
    polars-rankk) unless told otherwise: Spark starts them with ``python3`` from ``PATH``,
    which may lack Polars ("No module named polars"). Safe in local mode only, where the
    workers run on this machine; a cluster's, a Spark Connect session's, and a choice made
    (``PYSPARK_PYTHON``, ``spark.pyspark.python``) are left as they are."""
    context = getattr(frame.sparkSession, "sparkContext", None)
    try:
        master = str(context.master) if context is not None else ""
        chosen = context.getConf().get("spark.pyspark.python") if context is not None else None
    except Exception:  # a Spark Connect session has no context
        return
    if context is None or not master.startswith("local") or chosen:
        return
    if os.environ.get("PYSPARK_PYTHON"):
        return
    # Read by every Python function Spark wraps from now on (mapInArrow's included).
    context.pythonExec = sys.executable


def column(name: str) -> Column:
    """A column by its exact name (dots and spaces are not parsed)."""
    from pyspark.sql import functions as sf

    return sf.col("`" + name.replace("`", "``") + "`")


def polars_schema(
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


def spark_type(dtype: pl.DataType, original: DataType) -> DataType:
    """The Spark type of an id column once unified (integers -> long, strings -> string)."""
    from pyspark.sql.types import LongType, StringType

    if dtype == pl.Int64:
        return LongType()
    if dtype == pl.String:
        return StringType()
    return original


def session_timezone(frame: DataFrame) -> str:
    timezone = frame.sparkSession.conf.get("spark.sql.session.timeZone")
    return timezone or "UTC"


def evaluate_partition(
    job: dist.PartitionJob,
    schema: pa.Schema,
    max_rows: int | None,
    batches: Iterator[pa.RecordBatch],
    exposures: bool = False,
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
            result = job.exposure_rows(chunk) if exposures else job.evaluate_tagged(chunk)
        except Exception as error:
            dist.add_note(
                error,
                f"polars_rankk.spark: raised by polars_rankk.evaluate on a partition chunk "
                f"of {chunk.height} rows (candidates and truth)",
            )
            raise
        for batch in result.to_arrow().to_batches(max_chunksize=1 << 16):
            yield batch.cast(schema)


def driver_schemas(
    candidates: DataFrame,
    truth: DataFrame | None,
    names: Sequence[str | Sequence[str] | None],
    timezone: str,
) -> tuple[dict[str, pl.DataType], dict[str, pl.DataType] | None]:
    """The Polars schemas of both tables, for the core's checks on the driver (the columns
    the evaluation does not read are Null placeholders)."""
    used = dist.used_columns(names)
    truth_schema = None if truth is None else polars_schema(truth.schema, used, timezone)
    return polars_schema(candidates.schema, used, timezone), truth_schema


def tagged_union(
    candidates: DataFrame,
    truth: DataFrame | None,
    job: dist.PartitionJob,
    id_types: dict[str, DataType],
) -> DataFrame:
    """Candidates and truth in one table: the tag, the ids cast to one type per column, the
    candidates' columns, and the truth's grades and subtopics (nulls where a side has no such
    column)."""
    from pyspark.sql import functions as sf

    cand_fields = {field.name: field.dataType for field in candidates.schema.fields}
    truth_fields = {} if truth is None else {f.name: f.dataType for f in truth.schema.fields}

    def null(dtype: DataType) -> Column:
        return sf.lit(None).cast(dtype)

    def tag(value: int, fields: dict[str, DataType]) -> Column:
        # Ranked lists in long form carry their tags (empty lists: `TAG` 2, 3).
        found = column(dist.TAG) if dist.TAG in fields else sf.lit(value)
        return found.cast("tinyint").alias(dist.TAG)

    ids = [column(c).cast(id_types[c]).alias(c) for c in (*job.keys, job.item)]
    extras = job.extras()
    if job.positional:
        extras.append(LIST_ID)
    columns = [tag(0, cand_fields), *ids, column(job.score)]
    if job.labelled:
        columns.append(column(job.relevance).alias(dist.LABEL))
    columns += [column(c) for c in extras]
    if truth is not None and job.truth_graded:
        columns.append(null(truth_fields[job.relevance]).alias(dist.TRUTH_GRADE))
    if truth is not None and job.subtopic is not None:
        columns.append(null(truth_fields[job.subtopic]).alias(dist.SUBTOPIC))
    union = candidates.select(*columns)
    if truth is None:
        return union
    columns = [tag(1, truth_fields), *ids, null(cand_fields[job.score]).alias(job.score)]
    if job.labelled:
        columns.append(null(cand_fields[job.relevance]).alias(dist.LABEL))
    columns += [null(cand_fields[c]).alias(c) for c in extras]
    if job.truth_graded:
        columns.append(column(job.relevance).alias(dist.TRUTH_GRADE))
    if job.subtopic is not None:
        columns.append(column(job.subtopic).alias(dist.SUBTOPIC))
    return union.unionByName(truth.select(*columns))


def long_lists(frame: DataFrame, job: dist.PartitionJob, side: int, timezone: str) -> DataFrame:
    """A table of ranked lists (`side` 0 candidates, 1 truth) in long form, converted in the
    executors as `evaluate` converts them (`PartitionJob.long_rows`): one row per item, one
    keys-only row per group whose list is empty, the `TAG` of each."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import ArrayType, ByteType, LongType, StructField, StructType

    columns = job.candidate_columns() if side == 0 else job.truth_columns()
    fields = {field.name: field.dataType for field in frame.schema.fields}
    out = []
    for name in dict.fromkeys([*columns, *([job.score] if side == 0 else [])]):
        dtype = fields.get(name, LongType())  # the list order as a score: -position
        out.append(StructField(name, dtype.elementType if isinstance(dtype, ArrayType) else dtype))
    out.append(StructField(dist.TAG, ByteType()))
    if side == 0 and job.positional:
        out.append(StructField(LIST_ID, LongType()))
    out_schema = StructType(out)
    arrow_schema = to_arrow_schema(out_schema, timezone=timezone)
    function = functools.partial(_long_partition, job, side, arrow_schema)
    return frame.select(*(column(name) for name in columns)).mapInArrow(function, out_schema)


def _long_partition(
    job: dist.PartitionJob, side: int, schema: pa.Schema, batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body of `long_lists`: each batch's lists numbered apart from every other
    batch's (partition id, then a running count), so one group's two lists are told apart."""
    import pyarrow as pa
    from pyspark import TaskContext

    context = TaskContext.get()
    first = (0 if context is None else context.partitionId()) << 40
    for batch in batches:
        frame = pl.from_arrow(pa.Table.from_batches([batch]))
        assert isinstance(frame, pl.DataFrame)
        rows = job.long_rows(frame, side, first_list=first).select(schema.names)
        first += batch.num_rows
        yield from rows.to_arrow().cast(schema).to_batches()


def by_group(
    union: DataFrame,
    keys: Sequence[str],
    num_partitions: int | None,
    max_rows_per_chunk: int | None,
) -> DataFrame:
    """Every row of a group in one partition (sorted by the keys when chunked)."""
    columns = [column(key) for key in keys]
    if num_partitions is None:
        union = union.repartition(*columns)
    else:
        union = union.repartition(num_partitions, *columns)
    if max_rows_per_chunk is not None:
        union = union.sortWithinPartitions(*columns)
    return union


def evaluated(
    union: DataFrame,
    job: dist.PartitionJob,
    id_types: dict[str, DataType],
    max_rows_per_chunk: int | None,
    timezone: str,
) -> DataFrame:
    """The per-group rows (and sentinel rows) of every partition, through mapInArrow."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    out_schema = StructType(
        [StructField(key, id_types[key], True) for key in job.keys]
        + [
            StructField("metric", StringType(), True),
            StructField("k", LongType(), True),
            StructField("value", DoubleType(), True),
        ]
    )
    arrow_schema = to_arrow_schema(out_schema, timezone=timezone)
    function = functools.partial(evaluate_partition, job, arrow_schema, max_rows_per_chunk)
    return union.mapInArrow(function, out_schema)


def high_cardinality(
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
            "value": reduction.decimal_mean(row["total"], row["n_groups"]),
            "n_groups": row["n_groups"],
            "n_nan": row["n_nan"],
        }
        for index, q in enumerate(quantiles):
            found = row["q"]
            record[quantile_name(q)] = None if found is None else float(found[index])
        out.append(record)
    schema: dict[str, pl.DataType] = {
        "metric": pl.String(),
        "k": pl.Int64(),
        "value": pl.Float64(),
        "n_groups": pl.Int64(),
        "n_nan": pl.Int64(),
    }
    schema.update({quantile_name(q): pl.Float64() for q in quantiles})
    return pl.DataFrame(out, schema=schema, orient="row")


def exposures(
    union: DataFrame,
    job: dist.PartitionJob,
    id_types: dict[str, DataType],
    max_rows_per_chunk: int | None,
    timezone: str,
) -> DataFrame:
    """Every partition's exposure counts (`polars_rankk.engines.partition.KIND` rows)."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import ByteType, LongType, StructField, StructType

    out_schema = StructType(
        [
            StructField(dist.KIND, ByteType(), True),
            StructField(dist.EXPOSURE_ITEM, id_types[job.item], True),
            StructField("k", LongType(), True),
            StructField("count", LongType(), True),
        ]
    )
    arrow_schema = to_arrow_schema(out_schema, timezone=timezone)

    def function(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return evaluate_partition(job, arrow_schema, max_rows_per_chunk, batches, exposures=True)

    return union.mapInArrow(function, out_schema)
