"""Aggregating per-group values over groups: macro, micro, weighted (docs/definitions.md §4).

The macro mean is computed from a value histogram — (metric, k, value) -> count — reduced in
sorted order, so the result is bit-identical however the per-group rows were partitioned or
ordered; a distributed engine can build the histogram and hand it to `summarize_histogram`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import replace

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES, N_RELEVANT
from polars_rankk.core.evaluation.views import metric_column, metric_cutoffs, reported
from polars_rankk.core.inputs.spec import (
    Spec,
    align_ids,
    check_one_row_per_group,
    require_columns,
    to_lazy,
)
from polars_rankk.core.metrics.declaration import GEOMETRIC_FLOOR
from polars_rankk.core.metrics.formulas import COLUMNS
from polars_rankk.core.metrics.registry import MICRO_METRICS, REGISTRY
from polars_rankk.core.names.listing import metric_rank
from polars_rankk.core.types import FrameLike


def _geometric() -> list[str]:
    return [name for name, metric in REGISTRY.items() if metric.aggregate == "geometric"]


def _collect(frame: FrameLike) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def quantile_name(quantile: float) -> str:
    """Column name of a quantile: ``0.25`` -> ``"quantile_0.25"``, everywhere a quantile is
    reported (distributions, Spark and Dask summaries)."""
    return f"quantile_{float(quantile)!r}"


def check_quantiles(quantiles: Iterable[float]) -> list[float]:
    """Quantiles as distinct floats in [0, 1], in the order given.

    Examples
    --------
    >>> from polars_rankk.core.evaluation.aggregate import check_quantiles
    >>> check_quantiles([0.5, 0.9, 0.5])
    [0.5, 0.9]
    """
    checked: list[float] = []
    for q in quantiles:
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:
            raise ValueError(f"quantiles must be numbers in [0, 1]; got {q!r}")
        if float(q) not in checked:
            checked.append(float(q))
    return checked


def order_metrics(frame: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Sort a table by `by`, then metric (canonical order), then k (null last), then the
    metric's name (a labelled cell beside its metric's: ``P(rel=2)`` and ``precision``)."""
    return frame.sort([*by, metric_rank(), "k", "metric"], nulls_last=True)


def value_histogram(per_group: FrameLike, by: Sequence[str] = ()) -> pl.LazyFrame:
    """(by…, metric, k, value) -> count of groups, NaN values counted apart (value null)."""
    return (
        per_group.lazy()
        .with_columns(pl.col("value").fill_nan(None))
        .group_by([*by, "metric", "k", "value"])
        .agg(pl.len().cast(pl.Int64).alias("count"))
    )


def wide_value_histogram(wide: FrameLike, cells: Sequence[tuple[str, int | None]]) -> pl.LazyFrame:
    """`value_histogram` of the rows `views.long_table` unpivots from `wide` (one column per
    (metric, K) of `cells`), counted in each column where it lies: the same counts without
    unpivoting one row per group and cell and joining the names back (a tenth of a summary's
    time at 6 metrics × 6 K), each cell's values in ascending order (`summarize_histogram`'s
    ``ordered``). Null values (a group ``short_lists="skip"`` dropped at that K) are left
    out, NaN counted apart (value null), as there.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.evaluation.aggregate import wide_value_histogram
    >>> wide = pl.DataFrame({"q": [1, 2, 3], "ndcg@5": [0.5, 0.5, float("nan")]})
    >>> wide_value_histogram(wide, [("ndcg", 5)]).collect().sort("value").rows()
    [('ndcg', 5, None, 1), ('ndcg', 5, 0.5, 2)]
    """
    if not cells:
        return pl.LazyFrame(
            schema={"metric": pl.String, "k": pl.Int64, "value": pl.Float64, "count": pl.Int64}
        )
    names = [metric_column(metric, k) for metric, k in cells]
    counted = [
        pl.col(name)
        .cast(pl.Float64)
        .drop_nulls()
        .fill_nan(None)
        .alias("value")
        .value_counts(name="count")
        # Ascending values within the cell: the order `summarize_histogram` sums them in.
        .sort()
        .implode()
        .alias(name)
        for name in names
    ]
    name = pl.col("_name")
    return (
        wide.lazy()
        .select(counted)
        .unpivot(variable_name="_name", value_name="_counts")
        .explode("_counts")
        # An empty column explodes to one null row.
        .filter(pl.col("_counts").is_not_null())
        .unnest("_counts")
        # Element-wise (a join would not keep each cell's values in their order).
        .select(
            name.replace_strict(names, [metric for metric, _ in cells]).alias("metric"),
            name.replace_strict(names, [k for _, k in cells], return_dtype=pl.Int64).alias("k"),
            "value",
            pl.col("count").cast(pl.Int64),
        )
    )


def summarize_histogram(
    histogram: FrameLike, by: Sequence[str] = (), *, ordered: bool = False
) -> pl.DataFrame:
    """Macro means from a value histogram: by…, metric, k, value, n_groups, n_nan.

    Distinct values are summed in ascending order, so the mean does not depend on how the
    histogram was built. `ordered`: each (by…, metric, k)'s rows are together, its values
    ascending already (`wide_value_histogram`), so the whole histogram is not sorted again.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.evaluation.aggregate import summarize_histogram
    >>> hist = pl.DataFrame({"metric": ["precision"] * 3, "k": [10] * 3,
    ...                      "value": [0.0, 0.1, None], "count": [3, 1, 2]})
    >>> summarize_histogram(hist)
    shape: (1, 5)
    ┌───────────┬─────┬───────┬──────────┬───────┐
    │ metric    ┆ k   ┆ value ┆ n_groups ┆ n_nan │
    │ ---       ┆ --- ┆ ---   ┆ ---      ┆ ---   │
    │ str       ┆ i64 ┆ f64   ┆ i64      ┆ i64   │
    ╞═══════════╪═════╪═══════╪══════════╪═══════╡
    │ precision ┆ 10  ┆ 0.025 ┆ 4        ┆ 2     │
    └───────────┴─────┴───────┴──────────┴───────┘
    """
    # An evaluation of catalogue-level metrics only has no per-group value: its empty column
    # may come typed Null, which has no logarithm.
    hist = _collect(histogram).with_columns(pl.col("value").cast(pl.Float64))
    if not ordered:
        hist = hist.sort([*by, "metric", "k", "value"], nulls_last=True)
    valid = pl.col("value").is_not_null()
    geometric = pl.col("metric").is_in(_geometric())
    # A geometric mean is exp of the mean of the floored logs (Metric.aggregate).
    read = pl.when(geometric).then(pl.col("value").clip(GEOMETRIC_FLOOR).log())
    summary = hist.group_by([*by, "metric", "k"], maintain_order=True).agg(
        (read.otherwise(pl.col("value")) * pl.col("count")).filter(valid).sum().alias("_total"),
        pl.col("count").filter(valid).sum().cast(pl.Int64).alias("n_groups"),
        pl.col("count").filter(~valid).sum().cast(pl.Int64).alias("n_nan"),
    )
    summary = summary.with_columns(
        pl.when(pl.col("n_groups") == 0)
        .then(float("nan"))
        .when(geometric)
        .then((pl.col("_total") / pl.col("n_groups").cast(pl.Float64)).exp())
        .otherwise(pl.col("_total") / pl.col("n_groups").cast(pl.Float64))
        .alias("value")
    ).select([*by, "metric", "k", "value", "n_groups", "n_nan"])
    return order_metrics(summary, by)


def summary_cells(spec: Spec, metrics: Sequence[str] | None = None) -> list[tuple[str, int]]:
    """The (metric, K) rows a summary of `spec` (of `metrics`, when given: every metric
    computed per group) reports at a cut-off, per group (not the catalogue-level metrics,
    summarised apart): the rows `with_skipped_cells` keeps."""
    asked = spec if metrics is None else replace(spec, metrics=tuple(metrics))
    return [
        (name, k)
        for name, k in metric_cutoffs(asked)
        if k is not None and (name not in REGISTRY or REGISTRY[name].kind != "catalogue")
    ]


def with_skipped_cells(
    summary: pl.DataFrame, cells: Sequence[tuple[str, int]], dropped: pl.DataFrame
) -> pl.DataFrame:
    """`summary` with a row for each of `cells` it lacks at a K where short lists were skipped
    (``short_lists="skip"`` left out every group there): value null, no group, so that the
    drop counts joined to it say why. `dropped` holds ``k`` and ``dropped_short``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.evaluation.aggregate import with_skipped_cells
    >>> summary = pl.DataFrame({"metric": ["ndcg"], "k": [1], "value": [0.5], "n_groups": [2]})
    >>> dropped = pl.DataFrame({"k": [1, 5], "dropped_short": [0, 2]})
    >>> with_skipped_cells(summary, [("ndcg", 1), ("ndcg", 5)], dropped).rows()
    [('ndcg', 1, 0.5, 2), ('ndcg', 5, None, 0)]
    """
    skipped = dropped.filter(pl.col("dropped_short") > 0)["k"].to_list()
    wanted = [(metric, k) for metric, k in cells if k in skipped]
    if not wanted:
        return summary
    missing = pl.DataFrame(wanted, schema={"metric": pl.String, "k": pl.Int64}, orient="row").join(
        summary.select("metric", "k"), on=["metric", "k"], how="anti", nulls_equal=True
    )
    if not missing.height:
        return summary
    counts = [c for c in ("n_groups", "n_nan") if c in summary.columns]
    filler = missing.with_columns(
        pl.lit(None, pl.Float64).alias("value"), *(pl.lit(0, pl.Int64).alias(c) for c in counts)
    )
    return order_metrics(pl.concat([summary, filler], how="diagonal_relaxed")).select(
        summary.columns
    )


def macro(per_group: FrameLike) -> pl.DataFrame:
    """The mean of per-group values, each group counting once (NaN values skipped)."""
    return summarize_histogram(value_histogram(per_group))


def weights_table(
    weights: str | FrameLike | None, groups: FrameLike, keys: list[str]
) -> tuple[FrameLike, str]:
    """The table and column `Evaluation.summary(average="weighted", weights=...)` reads.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.evaluation.aggregate import weights_table
    >>> groups = pl.DataFrame({"user": [1], "n_relevant": [2]})
    >>> weights_table("n_relevant", groups, ["user"])[1]
    'n_relevant'
    >>> weights_table(pl.DataFrame({"user": [1], "traffic": [0.5]}), groups, ["user"])[1]
    'traffic'
    """
    if weights is None:
        raise ValueError(
            "average='weighted' needs weights=: a column of the groups table "
            "('n_relevant', 'n_candidates') or a table of the group keys and one weight column"
        )
    if isinstance(weights, str):
        columns = list(groups.lazy().collect_schema())
        if weights not in columns:
            raise ValueError(
                f"weights={weights!r} is not a column of the groups table; its columns are "
                f"{columns} (or pass a table of the group keys and one weight column)"
            )
        return groups, weights
    table = to_lazy(weights, "weights")
    require_columns(table, "weights", dict.fromkeys(keys, "a group key"))
    others = [c for c in table.collect_schema() if c not in keys]
    if len(others) != 1:
        raise ValueError(
            f"weights must hold the group keys {keys} and one weight column; it holds "
            f"{others or 'no column'} beside them (select one, e.g. "
            f"weights.select({[*keys, *others[:1]]}))"
        )
    return table, others[0]


def renamed_weights(
    weight: str, weights: str | FrameLike | None, keys: list[str]
) -> str | FrameLike:
    """The `weights` of a call that used the deprecated ``weight=`` (with a warning)."""
    warnings.warn(
        "Evaluation.summary(weight=...) is deprecated and will be removed in the next "
        "release: use weights= alone (a column of the groups table, or a table of the "
        "group keys and one weight column)",
        DeprecationWarning,
        stacklevel=3,
    )
    if weights is None or isinstance(weights, str):
        return weight
    table = to_lazy(weights, "weights")
    if weight not in table.collect_schema():
        raise ValueError(
            f"weight column {weight!r} is not in weights; its columns are "
            f"{list(table.collect_schema())}"
        )
    return table.select([c for c in table.collect_schema() if c in keys or c == weight])


def weighted_query(
    per_group: FrameLike,
    weights: FrameLike,
    keys: list[str],
    weight: str,
    table: str = "weights",
    check: bool = True,
) -> pl.LazyFrame:
    """Per-group values with their weight: the keys, metric, k, value, _weight (NaN values
    left out).

    ``weights`` (called ``table`` in errors) must have one row per group — checked unless
    ``check`` is False, for the evaluation's own groups table — and its key dtypes are
    aligned with the per-group keys as `evaluate` aligns ids (Categorical keys -> String).
    """
    require_columns(weights.lazy(), table, dict.fromkeys(keys, "a group key"))
    lookup = weights.lazy().select([*keys, weight])
    if check:
        check_one_row_per_group(lookup, keys, table)
    values, lookup = align_ids(per_group.lazy(), lookup, keys, names=("the evaluation", table))
    return (
        values.join(lookup, on=keys, how="left")
        .filter(~pl.col("value").is_nan())
        .select([*keys, "metric", "k", "value", pl.col(weight).cast(pl.Float64).alias("_weight")])
    )


def weighted_from(joined: pl.DataFrame, weight: str) -> pl.DataFrame:
    """Weighted means from `weighted_query`'s rows: metric, k, value, n_groups, total_weight."""
    bad = joined.filter(
        pl.col("_weight").is_null() | (pl.col("_weight") < 0) | pl.col("_weight").is_nan()
    )
    keys = [c for c in joined.columns if c not in ("metric", "k", "value", "_weight")]
    if bad.height:
        # The first in key order: the same example on every call (the join keeps no order).
        groups = bad.unique(keys).sort(keys, nulls_last=True)
        first = groups.row(0, named=True)
        group = {key: first[key] for key in keys}
        found = "absent from the weights" if first["_weight"] is None else f"{first['_weight']}"
        raise ValueError(
            f"weight column {weight!r} must be a number >= 0 for every evaluated group; "
            f"{groups.height} evaluated group(s) have a missing, NaN or negative weight, e.g. "
            f"the group {group} (weight: {found})"
        )
    # Summing in sorted order keeps the result independent of row order.
    joined = joined.drop(keys).sort(["metric", "k", "value", "_weight"], nulls_last=True)
    summary = joined.group_by(["metric", "k"], maintain_order=True).agg(
        (pl.col("value") * pl.col("_weight")).sum().alias("_total"),
        pl.col("_weight").sum().alias("_weight_total"),
        pl.len().cast(pl.Int64).alias("n_groups"),
    )
    weightless = summary.filter(pl.col("_weight_total") == 0)
    if weightless.height:
        first = weightless.row(0, named=True)
        at = first["metric"] if first["k"] is None else f"{first['metric']}@{first['k']}"
        raise ValueError(
            f"weight column {weight!r} is 0 for every group evaluated for {at} "
            f"({first['n_groups']} groups), so the weighted mean is undefined; give some "
            f"group a weight > 0, or use average='macro'"
        )
    summary = summary.with_columns(
        pl.when(pl.col("_weight_total") > 0)
        .then(pl.col("_total") / pl.col("_weight_total"))
        .otherwise(float("nan"))
        .alias("value"),
        pl.col("_weight_total").alias("total_weight"),
    ).select(["metric", "k", "value", "n_groups", "total_weight"])
    return order_metrics(summary)


def check_micro(metrics: Sequence[str], evaluated: Sequence[str] = ()) -> None:
    """Raise unless there is at least one metric and every one has a micro average.

    ``evaluated`` (the evaluation's metrics) only words the error when ``metrics`` is empty.
    """
    defined = f"micro averaging is a ratio of summed counts, defined for {', '.join(MICRO_METRICS)}"
    not_micro = [name for name in metrics if name not in MICRO_METRICS]
    if not_micro:
        what = "is not a ratio of counts" if len(not_micro) == 1 else "are not ratios of counts"
        raise ValueError(
            f"{defined}; {', '.join(not_micro)} {what} — use average='macro' or 'weighted', "
            f"or leave {'it' if len(not_micro) == 1 else 'them'} out of metrics=[...]"
        )
    if not metrics:
        raise ValueError(no_micro_form(evaluated))


def no_micro_form(evaluated: Sequence[str]) -> str:
    """The words refusing a micro average over `evaluated`, none of which has a micro form."""
    defined = f"micro averaging is a ratio of summed counts, defined for {', '.join(MICRO_METRICS)}"
    return (
        f"{defined}; none of the evaluated metrics ({', '.join(evaluated) or 'none'}) is — "
        f"use average='macro' or 'weighted'"
    )


def micro_query(groups: FrameLike, spec: Spec, metrics: Sequence[str]) -> pl.LazyFrame:
    """Micro averages of `metrics` from the prepared per-group table: metric, k, value,
    n_groups. Each metric's declared per-group quantities (`Metric.micro`) are summed over the
    groups that count at each k (k null for a metric without one), then combined.

    A group counts at k when it has a value there: not dropped by ``short_lists="skip"``,
    nor NaN under ``empty_truth="nan"``.
    """
    check_micro(metrics)
    policy = spec.policy
    frame = groups.lazy()
    if policy.empty_truth == "nan":
        frame = frame.filter(pl.col(N_RELEVANT) > 0)
    # Sorting first keeps float sums (ties="expected") independent of row order.
    frame = frame.sort(list(spec.keys))
    rows = []
    for name in metrics:
        metric = REGISTRY[name]
        micro = metric.micro
        assert micro is not None  # checked above
        for k in reported(name, spec.ks if metric.has_k else (None,), spec):
            counted = frame
            if k is not None and policy.short_lists == "skip":
                counted = counted.filter(pl.col(N_CANDIDATES) >= k)
            parts = micro.sums(policy, k, COLUMNS)
            totals = counted.select(
                *(
                    part.sum().cast(pl.Float64).alias(f"_rk_sum_{key}")
                    for key, part in parts.items()
                ),
                pl.len().cast(pl.Int64).alias("n_groups"),
            )
            summed = {key: pl.col(f"_rk_sum_{key}") for key in parts}
            summed["n_groups"] = pl.col("n_groups").cast(pl.Float64)
            rows.append(
                totals.select(
                    pl.lit(name).alias("metric"),
                    pl.lit(k, dtype=pl.Int64).alias("k"),
                    micro.value(summed).cast(pl.Float64).alias("value"),
                    pl.col("n_groups"),
                )
            )
    return pl.concat(rows, how="vertical")


def micro_from(rows: pl.DataFrame) -> pl.DataFrame:
    """Micro averages from `micro_query`'s collected rows, in canonical order."""
    return order_metrics(rows)
