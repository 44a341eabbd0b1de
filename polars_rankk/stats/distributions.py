"""Distributions of per-group metric values, overall or by strata (docs/definitions.md §5).

A mean hides who a system fails. `distribution` and `histogram` summarise the per-group values
of an evaluation — one row per (stratum…, metric, k) — with Polars expressions only, so a lazy
evaluation gives a lazy result. `bootstrap` (confidence intervals) and `compare` (paired tests
between systems) build on the same input handling and live in their own modules.

Input everywhere is an evaluation (anything with ``per_group`` and ``group_keys``, such as the
result of `polars_rankk.evaluate`) or a per-group frame: the group keys, ``metric`` (String),
``k`` (Int64, null for ``r_precision``) and ``value`` (Float64). NaN values (groups with no
relevant item under ``empty_truth="nan"``) are left out of every statistic and counted in
``n_nan``; null values are treated the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, overload

import polars as pl

from polars_rankk.core import (
    align_ids,
    check_one_row_per_group,
    check_quantiles,
    is_table,
    metric_rank,
    quantile_name,
    to_lazy,
)
from polars_rankk.core.types import FrameLike

DEFAULT_QUANTILES: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)
#: Polars' quantile interpolation methods (``Expr.quantile(interpolation=...)``).
QuantileMethod = Literal["nearest", "higher", "lower", "midpoint", "linear", "equiprobable"]
PER_GROUP_COLUMNS: tuple[str, ...] = ("metric", "k", "value")


class EvaluationLike(Protocol):
    """What the distribution functions need from an evaluation (`polars_rankk.Evaluation`)."""

    @property
    def per_group(self) -> pl.DataFrame | pl.LazyFrame: ...

    @property
    def group_keys(self) -> list[str]: ...


#: An evaluation, or its per-group frame (group keys…, metric, k, value).
Results = EvaluationLike | pl.DataFrame | pl.LazyFrame
#: Tables of group attributes (strata), joined on the group keys they share with the results.
Attributes = FrameLike | Sequence[FrameLike] | None


@dataclass(frozen=True)
class PerGroup:
    """Normalised input: a lazy per-group frame with checked dtypes, and where it came from."""

    frame: pl.LazyFrame
    group_keys: list[str]
    is_lazy: bool
    groups: pl.LazyFrame | None


def as_list(columns: str | Sequence[str] | None, option: str = "columns") -> list[str]:
    """``None`` -> ``[]``, ``"a"`` -> ``["a"]``, a sequence of names -> a list; anything else
    (``True``, a number) is a TypeError naming `option`.

    Examples
    --------
    >>> from polars_rankk.stats.distributions import as_list
    >>> as_list("segment"), as_list(["a", "b"]), as_list(None)
    (['segment'], ['a', 'b'], [])
    >>> as_list(True, "stratify")
    Traceback (most recent call last):
    ...
    TypeError: stratify names the column(s) to use (a str or a list of str, e.g. ...
    """
    if columns is None:
        return []
    if isinstance(columns, str):
        return [columns]
    try:
        names = list(columns)
    except TypeError:
        names = [columns]  # type: ignore[list-item]
    if not all(isinstance(name, str) for name in names):
        raise TypeError(
            f"{option} names the column(s) to use (a str or a list of str, e.g. "
            f"{option}='segment'); got {columns!r}"
        )
    return names


def per_group_input(
    results: Results, group_keys: Sequence[str] | None = None, *, argument: str = "results"
) -> PerGroup:
    """Check and normalise an evaluation or a per-group frame (see the module docstring)."""
    groups: pl.LazyFrame | None = None
    keys = None if group_keys is None else as_list(group_keys)
    if isinstance(results, (pl.DataFrame, pl.LazyFrame)):
        frame: pl.DataFrame | pl.LazyFrame = results
    elif is_table(results):
        # pandas, Arrow, an Arrow C stream: read once, here.
        frame = to_lazy(results, argument).collect()
    elif hasattr(results, "per_group") and hasattr(results, "group_keys"):
        system = getattr(results, "system", None)
        if system is not None:
            raise ValueError(
                f"{argument} holds several systems (column {system!r}), whose groups must not "
                f"be pooled: pass one of {argument}.by_system() (a dict by system name), "
                f"or all of them to rk.compare / rk.k_curve / rk.report / rk.for_systems"
            )
        frame = results.per_group
        if keys is None:
            keys = list(results.group_keys)
        table = getattr(results, "groups", None)
        if isinstance(table, (pl.DataFrame, pl.LazyFrame)):
            groups = table.lazy()
    else:
        raise TypeError(
            f"{argument} must be an evaluation (with .per_group and .group_keys) or a per-group "
            f"pl.DataFrame/pl.LazyFrame; got {type(results).__name__}"
        )
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        raise TypeError(f"{argument}.per_group must be a Polars frame; got {type(frame).__name__}")
    lazy = frame.lazy()
    schema = lazy.collect_schema()
    missing = [c for c in PER_GROUP_COLUMNS if c not in schema]
    if missing:
        raise ValueError(
            f"{argument}: a per-group frame needs columns 'metric', 'k' and 'value'; missing "
            f"{missing} among {schema.names()}"
        )
    if keys is None:
        keys = [c for c in schema.names() if c not in PER_GROUP_COLUMNS]
    absent = [c for c in keys if c not in schema]
    if absent or any(c in PER_GROUP_COLUMNS for c in keys):
        raise ValueError(
            f"{argument}: group keys {keys} must be columns of the per-group frame other than "
            f"metric/k/value; columns are {schema.names()}"
        )
    if not keys:
        raise ValueError(f"{argument}: the per-group frame has no group key column")
    for column, ok, expected in (
        ("value", schema["value"].is_numeric() or schema["value"] == pl.Null, "numeric"),
        ("k", schema["k"].is_integer() or schema["k"].is_float() or schema["k"] == pl.Null,
         "integer (null for r_precision)"),
        ("metric", schema["metric"] in (pl.String, pl.Categorical) or _is_enum(schema["metric"]),
         "String"),
    ):  # fmt: skip
        if not ok:
            raise TypeError(
                f"{argument}: column {column!r} must be {expected}; got {schema[column]}"
            )
    k = pl.col("k")
    if schema["k"].is_float():
        # A table that went through pandas holds K as float (null made it so): whole numbers
        # are K, anything else is refused.
        fractional = lazy.filter(k.is_not_null() & (k.is_nan() | (k != k.round()))).head(1)
        bad = fractional.collect()
        if bad.height:
            raise TypeError(
                f"{argument}: column 'k' must hold whole numbers (null for r_precision); "
                f"got {bad.row(0, named=True)}"
            )
    lazy = lazy.with_columns(
        pl.col("metric").cast(pl.String),
        k.cast(pl.Int64),
        pl.col("value").cast(pl.Float64),
    )
    return PerGroup(lazy, keys, isinstance(frame, pl.LazyFrame), groups)


def _is_enum(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.Enum)


def attribute_frames(attributes: Attributes) -> list[pl.LazyFrame]:
    """``attributes`` as a list of lazy frames."""
    if attributes is None:
        return []
    if is_table(attributes):
        # One table of any library (a pandas or Arrow table is not a list of tables).
        return [to_lazy(attributes, "attributes")]
    if not isinstance(attributes, Sequence) or isinstance(attributes, str):
        raise TypeError(
            f"attributes must be a table or a list of tables; got {type(attributes).__name__}"
        )
    return [to_lazy(frame, f"attributes[{i}]") for i, frame in enumerate(attributes)]


def attribute_sources(attributes: Attributes) -> list[tuple[str, pl.LazyFrame]]:
    """``attributes`` as (name in errors, lazy frame) pairs: ``"attributes"`` for one table,
    else each table named by its columns — what the user sees, never an internal position."""
    frames = attribute_frames(attributes)
    if is_table(attributes):
        return [("attributes", frames[0])]
    return [
        (f"the attributes table with columns {frame.collect_schema().names()}", frame)
        for frame in frames
    ]


def with_strata(
    frame: pl.LazyFrame,
    group_keys: list[str],
    strata: list[str],
    attributes: Attributes,
    groups: pl.LazyFrame | None,
) -> pl.LazyFrame:
    """Add the stratum columns to ``frame``: found on it, else joined from the first of the
    ``attributes`` tables, then the evaluation's ``groups`` table, that has them.

    Groups without a row in the table that provides a stratum get a null stratum (a stratum of
    its own in every output).
    """
    reserved = [c for c in strata if c in PER_GROUP_COLUMNS]
    if reserved:
        raise ValueError(f"strata cannot be {reserved}: metric, k and value are always separated")
    schema = frame.collect_schema()
    needed = [c for c in strata if c not in schema]
    sources = [(label, table, True) for label, table in attribute_sources(attributes)]
    if groups is not None:  # one row per group by construction: not checked (that would run it)
        sources.append(("the evaluation's groups table", groups, False))
    for label, source, check in sources:
        if not needed:
            break
        source_schema = source.collect_schema()
        provides = [c for c in needed if c in source_schema]
        if not provides:
            continue
        on = [k for k in group_keys if k in source_schema]
        if not on:
            raise ValueError(
                f"{label} has stratum columns {provides} but none of the group keys {group_keys}"
                f" to join on; its columns are {source_schema.names()}"
            )
        table = source.select(*on, *provides)
        if check:
            check_one_row_per_group(table, on, label)
        # evaluate turns Categorical/Enum keys into String: align the table's keys the same way
        frame, table = align_ids(frame, table, on, names=("results", label))
        frame = frame.join(table, on=on, how="left", nulls_equal=True)
        needed = [c for c in needed if c not in provides]
    if needed:
        raise ValueError(
            f"stratum column(s) {needed} not found on the per-group frame ({schema.names()}), "
            "the attributes tables or the evaluation's groups table"
        )
    return frame


def sort_rows(frame: pl.LazyFrame, strata: list[str], *extra: str) -> pl.LazyFrame:
    """Sort by strata, metric (library order), k (null last) and ``extra``."""
    return frame.sort([*strata, metric_rank(), "metric", "k", *extra], nulls_last=True)


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
