"""Distributions of per-group metric values, overall or by strata (docs/definitions.md §5).

A mean hides who a system fails. `distribution` and `histogram` summarise the per-group values
of an evaluation — one row per (stratum…, metric, k) — with Polars expressions only, so a lazy
evaluation gives a lazy result. `bootstrap` (confidence intervals) and `compare` (paired tests
between systems) build on the same input handling (`polars_rankk.stats.per_group`) and live in
their own modules.

Input everywhere is an evaluation (anything with ``per_group`` and ``group_keys``, such as the
result of `polars_rankk.evaluate`) or a per-group frame: the group keys, ``metric`` (String),
``k`` (Int64, null for ``r_precision``) and ``value`` (Float64). NaN values (groups with no
relevant item under ``empty_truth="nan"``) are left out of every statistic and counted in
``n_nan``; null values are treated the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal, overload

import polars as pl

from polars_rankk.core import (
    check_quantiles,
    quantile_name,
)
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.per_group import (
    Attributes,
    EvaluationLike,
    Results,
    as_list,
    per_group_input,
    sort_rows,
    with_strata,
)

DEFAULT_QUANTILES: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)
#: Polars' quantile interpolation methods (``Expr.quantile(interpolation=...)``).
QuantileMethod = Literal["nearest", "higher", "lower", "midpoint", "linear", "equiprobable"]


@overload
def distribution(
    results: pl.DataFrame,
    by: str | Sequence[str] | None = ...,
    quantiles: Sequence[float] = ...,
    *,
    attributes: Attributes = ...,
    interpolation: QuantileMethod = ...,
    group_keys: Sequence[str] | None = ...,
) -> pl.DataFrame: ...
@overload
def distribution(
    results: pl.LazyFrame,
    by: str | Sequence[str] | None = ...,
    quantiles: Sequence[float] = ...,
    *,
    attributes: Attributes = ...,
    interpolation: QuantileMethod = ...,
    group_keys: Sequence[str] | None = ...,
) -> pl.LazyFrame: ...
@overload
def distribution(
    results: EvaluationLike,
    by: str | Sequence[str] | None = ...,
    quantiles: Sequence[float] = ...,
    *,
    attributes: Attributes = ...,
    interpolation: QuantileMethod = ...,
    group_keys: Sequence[str] | None = ...,
) -> FrameLike: ...
def distribution(
    results: Results,
    by: str | Sequence[str] | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    *,
    attributes: Attributes = None,
    interpolation: QuantileMethod = "linear",
    group_keys: Sequence[str] | None = None,
) -> FrameLike:
    """Summarise the per-group values of every metric × K, overall or by strata.

    Parameters
    ----------
    results
        An evaluation (`polars_rankk.evaluate`) or a per-group frame: group keys…, ``metric``,
        ``k``, ``value``.
    by
        Stratum column(s). Looked up on the per-group frame, then on the ``attributes`` tables,
        then on the evaluation's ``groups`` table (``n_candidates``, ``n_relevant``). Groups
        with no attribute row fall in a null stratum.
    quantiles
        Probabilities in [0, 1]; each gives a column ``quantile_<p>``.
    attributes
        Table(s) of group attributes (one row per group), joined on the group keys they share
        with ``results`` — e.g. the output of `activity_buckets`.
    interpolation
        Polars' quantile interpolation. The default ``"linear"`` equals NumPy's default
        (``numpy.quantile(..., method="linear")``); ``median`` always interpolates linearly.
    group_keys
        The group key columns of a per-group frame; by default every column other than
        ``metric``, ``k``, ``value``.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Lazy when the per-group values are lazy. One row per (stratum…, metric, k), sorted, with
        ``n_groups`` (values used), ``n_nan`` (NaN or null values, left out of everything),
        ``mean``, ``std`` (sample, ddof=1; null below 2 groups), ``std_error`` (std / √n),
        ``min``, ``max``, ``median``, ``quantile_<p>``…, ``share_zeros`` and ``share_ones``
        (shares of values exactly 0 and 1). A stratum whose values are all NaN has
        ``n_groups = 0`` and null statistics.

    See Also
    --------
    histogram : the same values binned.
    bootstrap : confidence intervals for the means.
    activity_buckets, relevant_size_buckets, new_vs_returning : strata evaluators use.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> per_group = pl.DataFrame({
    ...     "user": [1, 2, 3, 4],
    ...     "metric": "recall",
    ...     "k": 10,
    ...     "value": [0.0, 0.5, 1.0, float("nan")],
    ... })
    >>> rk.distribution(per_group, quantiles=[0.5]).select(
    ...     "metric", "k", "n_groups", "n_nan", "mean", "quantile_0.5", "share_zeros"
    ... )
    shape: (1, 7)
    ┌────────┬─────┬──────────┬───────┬──────┬──────────────┬─────────────┐
    │ metric ┆ k   ┆ n_groups ┆ n_nan ┆ mean ┆ quantile_0.5 ┆ share_zeros │
    │ ---    ┆ --- ┆ ---      ┆ ---   ┆ ---  ┆ ---          ┆ ---         │
    │ str    ┆ i64 ┆ i64      ┆ i64   ┆ f64  ┆ f64          ┆ f64         │
    ╞════════╪═════╪══════════╪═══════╪══════╪══════════════╪═════════════╡
    │ recall ┆ 10  ┆ 3        ┆ 1     ┆ 0.5  ┆ 0.5          ┆ 0.333333    │
    └────────┴─────┴──────────┴───────┴──────┴──────────────┴─────────────┘
    """
    source = per_group_input(results, group_keys)
    strata = as_list(by, "by")
    checked = check_quantiles(quantiles)
    frame = with_strata(source.frame, source.group_keys, strata, attributes, source.groups)
    value = pl.col("value").fill_nan(None)
    count = value.count()
    summary = frame.group_by([*strata, "metric", "k"]).agg(
        count.cast(pl.Int64).alias("n_groups"),
        value.null_count().cast(pl.Int64).alias("n_nan"),
        value.mean().alias("mean"),
        value.std().alias("std"),
        (value.std() / count.cast(pl.Float64).sqrt()).alias("std_error"),
        value.min().alias("min"),
        value.max().alias("max"),
        value.median().alias("median"),
        *[value.quantile(q, interpolation).alias(quantile_name(q)) for q in checked],
        (value == 0).mean().alias("share_zeros"),
        (value == 1).mean().alias("share_ones"),
    )
    summary = sort_rows(summary, strata)
    return summary if source.is_lazy else summary.collect()


def histogram_edges(bins: int | Sequence[float]) -> list[float]:
    """``bins`` equal-width bins over [0, 1] (edges ``i / bins``), or explicit edges."""
    if isinstance(bins, bool):
        raise TypeError("bins must be an integer or a sequence of edges; got a bool")
    if isinstance(bins, int):
        if bins < 1:
            raise ValueError(f"bins must be at least 1; got {bins}")
        return [i / bins for i in range(bins + 1)]
    edges = [float(e) for e in bins]
    if len(edges) < 2 or any(b <= a for a, b in itertools.pairwise(edges)):
        raise ValueError(f"bin edges must be at least two strictly increasing numbers; got {edges}")
    return edges


@overload
def histogram(
    results: pl.DataFrame,
    by: str | Sequence[str] | None = ...,
    bins: int | Sequence[float] = ...,
    *,
    attributes: Attributes = ...,
    group_keys: Sequence[str] | None = ...,
) -> pl.DataFrame: ...
@overload
def histogram(
    results: pl.LazyFrame,
    by: str | Sequence[str] | None = ...,
    bins: int | Sequence[float] = ...,
    *,
    attributes: Attributes = ...,
    group_keys: Sequence[str] | None = ...,
) -> pl.LazyFrame: ...
@overload
def histogram(
    results: EvaluationLike,
    by: str | Sequence[str] | None = ...,
    bins: int | Sequence[float] = ...,
    *,
    attributes: Attributes = ...,
    group_keys: Sequence[str] | None = ...,
) -> FrameLike: ...
def histogram(
    results: Results,
    by: str | Sequence[str] | None = None,
    bins: int | Sequence[float] = 10,
    *,
    attributes: Attributes = None,
    group_keys: Sequence[str] | None = None,
) -> FrameLike:
    """Count per-group values in fixed bins, for every metric × K (and stratum).

    Bins are ``[edge_i, edge_{i+1})`` except the last, which also holds its upper edge (as in
    ``numpy.histogram``), so a value of 1.0 falls in the last bin over [0, 1].

    Parameters
    ----------
    results
        An evaluation or a per-group frame (see `distribution`).
    by
        Stratum column(s), found as in `distribution`.
    bins
        The number of equal-width bins over [0, 1] (edges ``i / bins``), or the edges.
    attributes
        Table(s) of group attributes, as in `distribution`.
    group_keys
        The group key columns of a per-group frame.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Lazy when the per-group values are lazy. One row per (stratum…, metric, k, bin), every
        bin present: ``bin`` (0-based), ``bin_start``, ``bin_end``, ``count`` and ``share``
        (count / the number of non-NaN values of that metric × K in that stratum; null when there
        are none). Values outside the edges are in no bin, so shares then sum to less than 1.

    See Also
    --------
    distribution : summary statistics of the same values.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> per_group = pl.DataFrame(
    ...     {"user": [1, 2, 3], "metric": "ndcg", "k": 5, "value": [0.2, 0.9, 1.0]}
    ... )
    >>> rk.histogram(per_group, bins=2)
    shape: (2, 7)
    ┌────────┬─────┬─────┬───────────┬─────────┬───────┬──────────┐
    │ metric ┆ k   ┆ bin ┆ bin_start ┆ bin_end ┆ count ┆ share    │
    │ ---    ┆ --- ┆ --- ┆ ---       ┆ ---     ┆ ---   ┆ ---      │
    │ str    ┆ i64 ┆ i64 ┆ f64       ┆ f64     ┆ i64   ┆ f64      │
    ╞════════╪═════╪═════╪═══════════╪═════════╪═══════╪══════════╡
    │ ndcg   ┆ 5   ┆ 0   ┆ 0.0       ┆ 0.5     ┆ 1     ┆ 0.333333 │
    │ ndcg   ┆ 5   ┆ 1   ┆ 0.5       ┆ 1.0     ┆ 2     ┆ 0.666667 │
    └────────┴─────┴─────┴───────────┴─────────┴───────┴──────────┘
    """
    source = per_group_input(results, group_keys)
    strata = as_list(by, "by")
    edges = histogram_edges(bins)
    n_bins = len(edges) - 1
    keys = [*strata, "metric", "k"]
    frame = with_strata(source.frame, source.group_keys, strata, attributes, source.groups)
    values = frame.select(*keys, pl.col("value").fill_nan(None))
    totals = values.group_by(keys).agg(pl.col("value").count().cast(pl.Int64).alias("n_groups"))
    position = pl.lit(pl.Series(edges)).search_sorted(pl.col("value"), side="right").cast(pl.Int64)
    index = pl.when(pl.col("value") == edges[-1]).then(n_bins - 1).otherwise(position - 1)
    counts = (
        values.filter(pl.col("value").is_not_null())
        .with_columns(index.alias("bin"))
        .filter(pl.col("bin").is_between(0, n_bins - 1))
        .group_by([*keys, "bin"])
        .agg(pl.len().cast(pl.Int64).alias("count"))
    )
    grid = pl.LazyFrame(
        {"bin": list(range(n_bins)), "bin_start": edges[:-1], "bin_end": edges[1:]},
        schema={"bin": pl.Int64, "bin_start": pl.Float64, "bin_end": pl.Float64},
    )
    table = (
        totals.join(grid, how="cross")
        .join(counts, on=[*keys, "bin"], how="left", nulls_equal=True)
        .with_columns(pl.col("count").fill_null(0))
        .with_columns(
            pl.when(pl.col("n_groups") > 0)
            .then(pl.col("count") / pl.col("n_groups"))
            .otherwise(None)
            .alias("share")
        )
        .select(*keys, "bin", "bin_start", "bin_end", "count", "share")
    )
    table = sort_rows(table, strata, "bin")
    return table if source.is_lazy else table.collect()
