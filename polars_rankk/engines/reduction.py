"""What the Spark and Dask back ends and `evaluate_in_partitions` share on the way out: the
exact reduction, on the driver, of the value histograms the partitions build (held in memory,
or staged as files and read one cell at a time: `summarize_files`).

Aggregates are reduced from value histograms — (metric, k, value) -> count — with the
single-machine summariser (`polars_rankk.core.summarize_histogram`), so they are bit-identical
to ``Evaluation.summary()``; quantiles use Polars' own index arithmetic. The policy drop counts
are the sums of the partitions' sentinel rows (see `polars_rankk.engines.partition`).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from decimal import Context, Decimal
from pathlib import Path

import polars as pl

from polars_rankk.core import order_metrics, quantile_name, summarize_histogram
from polars_rankk.core.evaluation.aggregate import with_skipped_cells
from polars_rankk.core.evaluation.beyond_accuracy import ItemTables
from polars_rankk.core.evaluation.catalogue import (
    catalogue_items,
    catalogue_values,
    merge_exposures,
)
from polars_rankk.core.inputs.spec import Spec

DROPPED_COLUMNS = ("dropped_empty_truth", "dropped_missing", "dropped_short")
#: Prefix of the metric names of the sentinel rows that carry policy drop counts.
SENTINEL_PREFIX = "_rk_"
#: Metric names of the sentinel rows that carry policy drop counts.
SENTINELS = tuple(f"{SENTINEL_PREFIX}{name}" for name in DROPPED_COLUMNS)
MACRO_COLUMNS = ("metric", "k", "value", "n_groups", "n_nan")
HISTOGRAM_SCHEMA = {"metric": pl.String, "k": pl.Int64, "value": pl.Float64, "count": pl.Int64}


#: Polars before 2.2 counted a column's nulls into its quantile's index (as values sorted
#: first); 2.2 leaves them out. The histogram's quantile follows the Polars it runs on.
NULLS_IN_QUANTILE_INDEX = tuple(int(part) for part in pl.__version__.split(".")[:2]) < (2, 2)


def histogram_quantile(
    values: Sequence[float], counts: Sequence[int], n_nan: int, q: float
) -> float:
    """Polars' ``quantile(q, "linear")`` of the column a histogram describes, bit for bit.

    `values` ascending and distinct, `counts` their multiplicities, `n_nan` the null (NaN)
    values Polars sorts first: the same index arithmetic and interpolation as Polars.
    """
    cumulative = list(itertools.accumulate(counts))
    n = cumulative[-1]
    float_idx = (n - 1) * q + n_nan
    low = math.floor(float_idx)
    high = math.ceil(float_idx)
    lower = float(values[bisect.bisect_right(cumulative, low - n_nan)])
    upper = float(values[bisect.bisect_right(cumulative, high - n_nan)])
    if lower == upper:
        return lower
    return (float_idx - low) * (upper - lower) + lower


def histogram_quantiles(histogram: pl.DataFrame, quantiles: Sequence[float]) -> pl.DataFrame:
    """metric, k, quantile_<p>… from a value histogram (null value = NaN)."""
    names = [quantile_name(q) for q in quantiles]
    rows = []
    for (metric, k), pair in histogram.sort("value", nulls_last=True).group_by(
        ["metric", "k"], maintain_order=True
    ):
        valid = pair.filter(pl.col("value").is_not_null())
        n_nan = int(pair.filter(pl.col("value").is_null())["count"].sum())
        n_nan = n_nan if NULLS_IN_QUANTILE_INDEX else 0
        values = valid["value"].to_list()
        counts = valid["count"].to_list()
        row: dict[str, object] = {"metric": metric, "k": k}
        for q, name in zip(quantiles, names, strict=True):
            row[name] = histogram_quantile(values, counts, n_nan, q) if sum(counts) else None
        rows.append(row)
    schema: dict[str, pl.DataType] = {"metric": pl.String(), "k": pl.Int64()}
    schema.update({name: pl.Float64() for name in names})
    return pl.DataFrame(rows, schema=schema, orient="row")


def dropped_table(histogram: pl.DataFrame, ks: Sequence[int]) -> pl.DataFrame:
    """k (every k, then null), dropped_empty_truth, dropped_missing, dropped_short: the sums of
    the sentinel rows of every partition (absent rows count 0)."""
    sentinel = histogram.filter(pl.col("metric").is_in(SENTINELS))
    sums = sentinel.group_by(["metric", "k"]).agg(
        (pl.col("value").cast(pl.Int64) * pl.col("count")).sum().alias("n")
    )
    frame = pl.DataFrame({"k": [*ks, None]}, schema={"k": pl.Int64})
    for column, name in zip(DROPPED_COLUMNS, SENTINELS, strict=True):
        part = sums.filter(pl.col("metric") == name).select("k", pl.col("n").alias(column))
        frame = frame.join(part, on="k", how="left", nulls_equal=True).with_columns(
            pl.col(column).fill_null(0).cast(pl.Int64)
        )
    return frame


def summarize(
    histogram: pl.DataFrame,
    *,
    dropped_ks: Sequence[int] | None = None,
    quantiles: Sequence[float] = (),
    fallback: pl.DataFrame | None = None,
    cells: Sequence[tuple[str, int]] = (),
) -> pl.DataFrame:
    """The summary from a value histogram collected from the partitions.

    `histogram`: metric, k, value (null = NaN), count — possibly several rows per value (one
    per partition); sentinel rows included when `dropped_ks` is given. `fallback`: rows already
    summarised elsewhere (high-cardinality metrics), with the same columns as the result.
    `cells`: the summary's (metric, K) rows, kept (value null, no group) at a K where short
    lists left out every group.

    The columns are those of ``Evaluation.summary()`` — the ``dropped_*`` counts null when
    `dropped_ks` is None (per-group rows cannot tell which groups a policy dropped) — then the
    quantiles.
    """
    histogram = histogram.select(
        pl.col(name).cast(dtype) for name, dtype in HISTOGRAM_SCHEMA.items()
    )
    metrics = histogram.filter(~pl.col("metric").is_in(SENTINELS))
    # Partitions each contribute their own counts of a value: add them (exact integers).
    metrics = metrics.group_by(["metric", "k", "value"]).agg(pl.col("count").sum())
    summary = summarize_histogram(metrics)
    if quantiles:
        summary = summary.join(
            histogram_quantiles(metrics, quantiles),
            on=["metric", "k"],
            how="left",
            nulls_equal=True,
        )
    if fallback is not None and fallback.height:
        summary = order_metrics(pl.concat([summary, fallback.select(summary.columns)]))
    if dropped_ks is None:
        summary = summary.with_columns(
            pl.lit(None, dtype=pl.Int64).alias(column) for column in DROPPED_COLUMNS
        )
    else:
        dropped = dropped_table(histogram, dropped_ks)
        # A K where short lists left out every group keeps its rows (`cells`), value null.
        summary = with_skipped_cells(summary, cells, dropped)
        summary = summary.join(dropped, on="k", how="left", nulls_equal=True).with_columns(
            pl.col("dropped_short").fill_null(0)
        )
    return summary.select(*MACRO_COLUMNS, *DROPPED_COLUMNS, *(quantile_name(q) for q in quantiles))


def summarize_files(files: Sequence[Path]) -> pl.DataFrame:
    """Macro means (metric, k, value, n_groups, n_nan) from value histograms staged as Parquet
    files (metric, k, value, count; one file per partition, a value in several), one
    (metric, K) cell at a time.

    A histogram holds a row per distinct value of each metric and K (nDCG and AP at a large K:
    nearly one per group): a billion candidate rows of 10M groups staged 30M rows, which
    merged and summarised whole took some 4 GiB. Read cell by cell (each file's row groups of
    other cells skipped by their statistics: the files are written sorted by metric and K),
    only one cell's values — at most one per group — are in memory at once. Each cell is
    summarised by `summarize_histogram`, as every other path summarises it.

    Examples
    --------
    >>> import tempfile, polars as pl
    >>> from pathlib import Path
    >>> from polars_rankk.engines.reduction import summarize_files
    >>> folder = Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"metric": ["ndcg", "ndcg"], "k": [5, 5], "value": [0.5, 1.0],
    ...               "count": [1, 1]}).write_parquet(folder / "a.parquet")
    >>> pl.DataFrame({"metric": ["ndcg"], "k": [5], "value": [0.5],
    ...               "count": [2]}).write_parquet(folder / "b.parquet")
    >>> summarize_files(sorted(folder.glob("*.parquet"))).rows()
    [('ndcg', 5, 0.625, 4, 0)]
    """
    summaries = [summarize_histogram(pl.DataFrame(schema=HISTOGRAM_SCHEMA))]
    if not files:
        return summaries[0]
    staged = pl.scan_parquet(list(files))
    cells = staged.select("metric", "k").unique().collect(engine="streaming")
    for metric, k in cells.iter_rows():
        at_k = pl.col("k").is_null() if k is None else pl.col("k") == k
        cell = (
            staged.filter((pl.col("metric") == metric) & at_k)
            .group_by(pl.col("value").cast(pl.Float64))
            .agg(pl.col("count").cast(pl.Int64).sum())
            .select(
                pl.lit(metric).alias("metric"), pl.lit(k, pl.Int64).alias("k"), "value", "count"
            )
        )
        summaries.append(summarize_histogram(cell.collect(engine="streaming")))
    return order_metrics(pl.concat(summaries))


def decimal_mean(total: Decimal | None, count: int) -> float:
    """``total / count`` rounded once to a float (NaN when `count` is 0)."""
    if count == 0 or total is None:
        return float("nan")
    return float(Context(prec=80).divide(Decimal(total), Decimal(count)))


def partitions_catalogue(
    spec: Spec,
    tables: ItemTables,
    metrics: Sequence[str],
    exposures: list[tuple[pl.LazyFrame, pl.LazyFrame]],
) -> pl.DataFrame | None:
    """The catalogue-level metrics of `evaluate_in_partitions` from every partition's exposure
    counts (None: none asked)."""
    if not metrics:
        return None
    items = catalogue_items(spec, tables.catalogue, tables.popularity)
    item_dtype = spec.candidates.collect_schema()[spec.item]
    counts = merge_exposures(exposures or [_no_exposure(spec.ks, item_dtype)])
    return catalogue_values(*counts, items, metrics).collect()


def _no_exposure(ks: Sequence[int], item: pl.DataType) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The exposure counts of no lists (an input without groups)."""
    return (
        pl.LazyFrame(schema={"item": item, "k": pl.Int64, "exposure": pl.Int64}),
        pl.LazyFrame(
            {"k": list(ks), "n_lists": [0] * len(ks)}, schema={"k": pl.Int64, "n_lists": pl.Int64}
        ),
    )
