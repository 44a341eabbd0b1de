"""Strata evaluators use: activity buckets, relevant-set size buckets, new vs returning.

Each helper returns a table of group attributes — the group keys and an ordered ``pl.Enum``
label column — to pass as ``attributes=`` with ``by=<label column>`` to `distribution`,
`histogram`, `bootstrap` or `compare`. Labels sort in bucket order, not alphabetically.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal, overload

import polars as pl

from polars_rankk.core import align_ids, check_one_row_per_group
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.distributions import QuantileMethod
from polars_rankk.stats.per_group import Results, as_list, per_group_input

DEFAULT_RELEVANT_EDGES: tuple[int, ...] = (1, 2, 3, 5, 10, 20, 50)


def _format(number: float) -> str:
    return f"{number:g}"


def bucket_labels(edges: Sequence[float], integer: bool) -> list[str]:
    """Labels of the buckets ``(-inf, e0), [e0, e1), …, [e_last, inf)`` cut at ``edges``.

    Integer columns get ``"<5"``, ``"5"``, ``"6-9"``, ``">=10"``; others interval notation.
    """
    if integer:
        ints = [int(e) for e in edges]
        middle = [str(a) if b == a + 1 else f"{a}-{b - 1}" for a, b in itertools.pairwise(ints)]
        return [f"<{ints[0]}", *middle, f">={ints[-1]}"]
    middle = [f"[{_format(a)}, {_format(b)})" for a, b in itertools.pairwise(edges)]
    return [f"(-inf, {_format(edges[0])})", *middle, f"[{_format(edges[-1])}, inf)"]


@overload
def buckets(
    frame: pl.DataFrame,
    column: str,
    *,
    edges: Sequence[float] | None = ...,
    quantiles: int | Sequence[float] | None = ...,
    name: str | None = ...,
    interpolation: QuantileMethod = ...,
) -> pl.DataFrame: ...
@overload
def buckets(
    frame: pl.LazyFrame,
    column: str,
    *,
    edges: Sequence[float] | None = ...,
    quantiles: int | Sequence[float] | None = ...,
    name: str | None = ...,
    interpolation: QuantileMethod = ...,
) -> pl.LazyFrame: ...
def buckets(
    frame: FrameLike,
    column: str,
    *,
    edges: Sequence[float] | None = None,
    quantiles: int | Sequence[float] | None = None,
    name: str | None = None,
    interpolation: QuantileMethod = "linear",
) -> FrameLike:
    """Add a bucket label of a numeric column, from fixed edges or from the column's quantiles.

    Buckets are left-closed: ``(-inf, e0)``, ``[e0, e1)``, …, ``[e_last, inf)``. With
    ``quantiles`` the edges are the column's quantiles (Polars, ``interpolation``); for an
    integer column each quantile ``q`` becomes the edge ``floor(q) + 1``, so the bucket below it
    holds every value up to and including ``q``. Repeated edges are merged. Quantile edges
    need the data: a lazy ``frame`` is run once for them (the result stays lazy).

    Parameters
    ----------
    frame
        Any frame with ``column``.
    column
        A numeric column.
    edges
        Increasing bucket edges (for an integer column, fractional edges are rounded up).
    quantiles
        The number of equal-probability buckets (``4`` for quartiles) or the probabilities of
        the inner edges. Exactly one of ``edges`` and ``quantiles``.
    name
        Label column name; ``"<column>_bucket"`` by default.
    interpolation
        Quantile interpolation (Polars' names).

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        ``frame`` with the label column added, a ``pl.Enum`` of the labels in bucket order.

    See Also
    --------
    activity_buckets, relevant_size_buckets

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> users = pl.DataFrame({"user": [1, 2, 3, 4], "n_orders": [1, 3, 7, 40]})
    >>> rk.buckets(users, "n_orders", edges=[2, 5, 20])
    shape: (4, 3)
    ┌──────┬──────────┬─────────────────┐
    │ user ┆ n_orders ┆ n_orders_bucket │
    │ ---  ┆ ---      ┆ ---             │
    │ i64  ┆ i64      ┆ enum            │
    ╞══════╪══════════╪═════════════════╡
    │ 1    ┆ 1        ┆ <2              │
    │ 2    ┆ 3        ┆ 2-4             │
    │ 3    ┆ 7        ┆ 5-19            │
    │ 4    ┆ 40       ┆ >=20            │
    └──────┴──────────┴─────────────────┘
    """
    schema = frame.collect_schema()
    if column not in schema:
        raise ValueError(f"column {column!r} not found; columns are {schema.names()}")
    dtype = schema[column]
    if not dtype.is_numeric():
        raise TypeError(f"column {column!r} must be numeric to bucket; got {dtype}")
    integer = dtype.is_integer()
    if (edges is None) == (quantiles is None):
        raise ValueError("give exactly one of edges= and quantiles=")
    if edges is not None:
        cuts = [float(e) for e in edges]
        if not cuts or any(b <= a for a, b in itertools.pairwise(cuts)):
            raise ValueError(f"edges must be a non-empty increasing sequence; got {list(edges)}")
        if integer:
            cuts = [float(math.ceil(e)) for e in cuts]
    else:
        assert quantiles is not None
        cuts = _quantile_edges(frame, column, quantiles, integer, interpolation)
    cuts = sorted(set(cuts))
    labels = bucket_labels(cuts, integer)
    position = pl.lit(pl.Series(cuts, dtype=pl.Float64)).search_sorted(
        pl.col(column).cast(pl.Float64), side="right"
    )
    label = (
        pl.when(pl.col(column).is_not_null() & pl.col(column).cast(pl.Float64).is_not_nan())
        .then(position.replace_strict(dict(enumerate(labels)), return_dtype=pl.Enum(labels)))
        .otherwise(None)
        .alias(name or f"{column}_bucket")
    )
    return frame.with_columns(label)


def _quantile_edges(
    frame: pl.DataFrame | pl.LazyFrame,
    column: str,
    quantiles: int | Sequence[float],
    integer: bool,
    interpolation: QuantileMethod,
) -> list[float]:
    if isinstance(quantiles, int):
        if quantiles < 2:
            raise ValueError(f"quantiles must be at least 2 buckets; got {quantiles}")
        probabilities = [i / quantiles for i in range(1, quantiles)]
    else:
        probabilities = [float(p) for p in quantiles]
        if not probabilities or any(not 0 < p < 1 for p in probabilities):
            raise ValueError(f"quantile probabilities must be in (0, 1); got {list(quantiles)}")
    row = (
        frame.lazy()
        .select(
            pl.col(column).quantile(p, interpolation).alias(str(i))
            for i, p in enumerate(probabilities)
        )
        .collect()
        .row(0)
    )
    found = [float(q) for q in row if q is not None]
    if not found:
        raise ValueError(f"column {column!r} has no values to take quantiles of")
    return [float(math.floor(q) + 1) for q in found] if integer else found


def _group_table(results: Results | FrameLike, group_keys: Sequence[str] | None) -> pl.LazyFrame:
    """One row per evaluated group (its keys), from an evaluation or a frame of groups."""
    if (
        isinstance(results, (pl.DataFrame, pl.LazyFrame))
        and "metric" not in results.collect_schema()
    ):
        keys = as_list(group_keys) or results.collect_schema().names()
        return results.lazy().select(keys).unique()
    source = per_group_input(results, group_keys)
    if source.groups is not None:
        return source.groups.select(source.group_keys)
    return source.frame.select(source.group_keys).unique()


def activity_buckets(
    interactions: FrameLike,
    group_by: str | Sequence[str],
    *,
    edges: Sequence[float] | None = None,
    quantiles: int | Sequence[float] | None = None,
    count: str | None = None,
    groups: Results | None = None,
    name: str = "activity",
) -> FrameLike:
    """Bucket groups (users, queries…) by how many interactions they have.

    Parameters
    ----------
    interactions
        One row per interaction (counted per group), or one row per group with a ``count``
        column.
    group_by
        The group key column(s) in ``interactions``.
    edges, quantiles
        Fixed bucket edges, or the number of equal-probability buckets (or their inner
        probabilities) computed over groups; see `buckets`. Quartiles when neither is given.
    count
        A column already holding each group's interaction count; ``interactions`` must then
        have one row per group (a repeated group raises a ValueError).
    groups
        An evaluation (or a frame of group keys): its groups with no interaction get a count
        of 0 instead of no row (and so a null stratum once joined).
    name
        The label column.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        One row per group: the keys, ``n_interactions`` and the ``name`` label (``pl.Enum``).

    See Also
    --------
    buckets, distribution

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> log = pl.DataFrame({"user": [1, 1, 1, 1, 2, 2, 3]})
    >>> rk.activity_buckets(log, "user", edges=[2, 4]).sort("user")
    shape: (3, 3)
    ┌──────┬────────────────┬──────────┐
    │ user ┆ n_interactions ┆ activity │
    │ ---  ┆ ---            ┆ ---      │
    │ i64  ┆ i64            ┆ enum     │
    ╞══════╪════════════════╪══════════╡
    │ 1    ┆ 4              ┆ >=4      │
    │ 2    ┆ 2              ┆ 2-3      │
    │ 3    ┆ 1              ┆ <2       │
    └──────┴────────────────┴──────────┘
    """
    keys = as_list(group_by)
    lazy = interactions.lazy()
    if count is None:
        counts = lazy.group_by(keys).agg(pl.len().cast(pl.Int64).alias("n_interactions"))
    else:
        counts = lazy.select(*keys, pl.col(count).cast(pl.Int64).alias("n_interactions"))
        check_one_row_per_group(counts, keys, "interactions")
    if groups is not None:
        table = _group_table(groups, None)
        shared = [k for k in keys if k in table.collect_schema()]
        if shared != keys:
            raise ValueError(f"groups must have the key columns {keys}")
        # evaluate turns Categorical keys into String; the interactions may still have them
        table, counts = align_ids(table.select(keys), counts, keys, ("groups", "interactions"))
        counts = (
            table.unique()
            .join(counts, on=keys, how="left", nulls_equal=True)
            .with_columns(pl.col("n_interactions").fill_null(0))
        )
    if edges is None and quantiles is None:
        quantiles = 4
    labelled = buckets(counts, "n_interactions", edges=edges, quantiles=quantiles, name=name)
    return labelled if isinstance(interactions, pl.LazyFrame) else labelled.collect()


def relevant_size_buckets(
    results: Results,
    *,
    edges: Sequence[float] = DEFAULT_RELEVANT_EDGES,
    name: str = "relevant_size",
    group_keys: Sequence[str] | None = None,
) -> FrameLike:
    """Bucket groups by the size of their relevant set, R_g (``n_relevant``).

    Parameters
    ----------
    results
        An evaluation (its ``groups`` table has ``n_relevant``) or a frame with the group keys
        and ``n_relevant``.
    edges
        Bucket edges; the default gives ``<1, 1, 2, 3-4, 5-9, 10-19, 20-49, >=50``.
    name
        The label column.
    group_keys
        The key columns of a frame (default: every column but ``n_relevant``).

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Lazy when the evaluation is. One row per group: keys, ``n_relevant`` and ``name``.

    See Also
    --------
    buckets, activity_buckets

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> groups = pl.DataFrame({"query": ["a", "b", "c"], "n_relevant": [1, 4, 60]})
    >>> rk.relevant_size_buckets(groups)
    shape: (3, 3)
    ┌───────┬────────────┬───────────────┐
    │ query ┆ n_relevant ┆ relevant_size │
    │ ---   ┆ ---        ┆ ---           │
    │ str   ┆ i64        ┆ enum          │
    ╞═══════╪════════════╪═══════════════╡
    │ a     ┆ 1          ┆ 1             │
    │ b     ┆ 4          ┆ 3-4           │
    │ c     ┆ 60         ┆ >=50          │
    └───────┴────────────┴───────────────┘
    """
    if (
        isinstance(results, (pl.DataFrame, pl.LazyFrame))
        and "metric" not in results.collect_schema()
    ):
        frame: FrameLike = results
        schema = results.collect_schema()
        keys = as_list(group_keys) or [c for c in schema.names() if c != "n_relevant"]
    else:
        source = per_group_input(results, group_keys)
        if source.groups is None or "n_relevant" not in source.groups.collect_schema():
            raise ValueError("results has no groups table with n_relevant (R_g) to bucket")
        keys = source.group_keys
        frame = source.groups if source.is_lazy else source.groups.collect()
    if "n_relevant" not in frame.collect_schema():
        raise ValueError("relevant_size_buckets needs an n_relevant column")
    return buckets(frame.select(*keys, "n_relevant"), "n_relevant", edges=edges, name=name)


def new_vs_returning(
    results: Results,
    history: FrameLike,
    *,
    on: str | Sequence[str] | None = None,
    min_history: int = 1,
    name: str = "new_vs_returning",
    group_keys: Sequence[str] | None = None,
) -> FrameLike:
    """Label each evaluated group ``"returning"`` if it has history, else ``"new"``.

    Parameters
    ----------
    results
        An evaluation, or a frame of group keys (one column per key).
    history
        Past interactions, one row each, keyed by ``on``. Use only history from before the
        evaluation period, or "returning" leaks the future.
    on
        Key column(s) shared by the groups and ``history`` (e.g. ``"user"`` when groups are
        ``(user, day)``); by default the group keys found in ``history``.
    min_history
        Interactions needed to count as returning.
    name
        The label column.
    group_keys
        The key columns of a per-group frame.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Lazy when ``history`` or the evaluation is. One row per group: keys, ``n_history`` and
        ``name``, a ``pl.Enum(["new", "returning"])``.

    See Also
    --------
    activity_buckets

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> groups = pl.DataFrame({"user": [1, 2]})
    >>> history = pl.DataFrame({"user": [1, 1, 3], "item": [5, 6, 7]})
    >>> rk.new_vs_returning(groups, history).sort("user")
    shape: (2, 3)
    ┌──────┬───────────┬──────────────────┐
    │ user ┆ n_history ┆ new_vs_returning │
    │ ---  ┆ ---       ┆ ---              │
    │ i64  ┆ i64       ┆ enum             │
    ╞══════╪═══════════╪══════════════════╡
    │ 1    ┆ 2         ┆ returning        │
    │ 2    ┆ 0         ┆ new              │
    └──────┴───────────┴──────────────────┘
    """
    if min_history < 1:
        raise ValueError(f"min_history must be at least 1; got {min_history}")
    table = _group_table(results, group_keys)
    keys = table.collect_schema().names()
    history_columns = history.collect_schema().names()
    join_on = as_list(on) or [k for k in keys if k in history_columns]
    if not join_on or any(k not in keys or k not in history_columns for k in join_on):
        raise ValueError(
            f"on={join_on} must name key columns shared by the groups ({keys}) and the history "
            f"({history_columns})"
        )
    counts = history.lazy().group_by(join_on).agg(pl.len().cast(pl.Int64).alias("n_history"))
    table, counts = align_ids(table, counts, join_on, ("results", "history"))
    labels: list[Literal["new", "returning"]] = ["new", "returning"]
    out = (
        table.join(counts, on=join_on, how="left", nulls_equal=True)
        .with_columns(pl.col("n_history").fill_null(0))
        .with_columns(
            pl.when(pl.col("n_history") >= min_history)
            .then(pl.lit("returning"))
            .otherwise(pl.lit("new"))
            .cast(pl.Enum(labels))
            .alias(name)
        )
    )
    lazy = isinstance(history, pl.LazyFrame) or _is_lazy(results)
    return out if lazy else out.collect()


def _is_lazy(results: Results | FrameLike) -> bool:
    if isinstance(results, (pl.DataFrame, pl.LazyFrame)):
        return isinstance(results, pl.LazyFrame)
    return isinstance(results.per_group, pl.LazyFrame)
