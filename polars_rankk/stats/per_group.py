"""The per-group input every statistic reads: an evaluation or its per-group frame, checked
and made lazy, with its group keys, and the strata joined from group attributes.

Input everywhere is an evaluation (anything with ``per_group`` and ``group_keys``, such as the
result of `polars_rankk.evaluate`) or a per-group frame: the group keys, ``metric`` (String),
``k`` (Int64, null for ``r_precision``) and ``value`` (Float64).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import polars as pl

from polars_rankk.core import (
    align_ids,
    check_one_row_per_group,
    is_table,
    metric_rank,
    to_lazy,
)
from polars_rankk.core.columns import LABEL_STANDARD_ERROR, LABEL_STD
from polars_rankk.core.types import FrameLike

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
        # A label-probability evaluation's spread columns are values, not keys.
        values = (*PER_GROUP_COLUMNS, LABEL_STD, LABEL_STANDARD_ERROR)
        keys = [c for c in schema.names() if c not in values]
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
