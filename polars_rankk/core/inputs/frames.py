"""Tables in: any table to a Polars lazy frame, and ranked list columns to one row per item.

Every public entry point converts its tables once, here, at the boundary:

- Polars ``DataFrame`` / ``LazyFrame`` pass through;
- pandas ``DataFrame`` goes through ``pl.from_pandas`` (zero-copy for Arrow-backed and most
  numeric columns);
- PyArrow ``Table``, ``RecordBatch`` and ``RecordBatchReader``, and any object exposing the
  Arrow C stream interface (``__arrow_c_stream__``: DuckDB relations, Arrow-backed frames of
  other libraries) are read through Arrow, zero-copy where the buffers allow.

Ranked list columns are the shape serving logs, Spark's ``RankingMetrics`` and Microsoft
Recommenders use: one row per group whose ``item`` column holds the ranked list.

- Candidates ``(keys..., item: list[id])`` in rank order, optionally with a parallel
  ``score: list[f64]`` (or a parallel rank list named by ``rank=``). Without a score list the
  list order is the ranking.
- Truth ``(keys..., item: list[id])``, optionally with a parallel ``relevance: list[grade]``
  (a plain grade column applies to every item of the row).

They become the long form (one row per group and item) before validation, so both shapes give
the same numbers. An empty or null list is an empty ranking (or an empty truth).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core.inputs.checks import check_one_row_per_group, value_checks

__all__ = ["empty_list_groups", "is_table", "long_form", "to_lazy"]


def _kind(frame: object) -> str | None:
    """Which reader takes `frame`: "polars", "pandas", "arrow", "stream", or None."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return "polars"
    library, name = type(frame).__module__.split(".")[0], type(frame).__name__
    if library == "pandas" and name == "DataFrame":
        return "pandas"
    if library == "pyarrow" and name in ("Table", "RecordBatch"):
        return "arrow"
    if hasattr(frame, "__arrow_c_stream__"):
        # The Arrow PyCapsule stream: RecordBatchReader, DuckDB relations and many more.
        return "stream"
    return None


def _from_other_library(frame: object) -> pl.DataFrame | None:
    """A Polars DataFrame read from a pandas or Arrow table, or None for anything else."""
    kind = _kind(frame)
    if kind == "pandas":
        return pl.from_pandas(frame)
    if kind == "arrow":
        result = pl.from_arrow(frame)
        assert isinstance(result, pl.DataFrame)
        return result
    if kind == "stream":
        return pl.DataFrame(frame)  # type: ignore[arg-type]
    return None


def index_hints(frame: object, name: str) -> dict[str, str]:
    """For a pandas table, what to say of a required column that is one of its index levels
    (the index is not read as a column).

    Examples
    --------
    >>> import pandas as pd
    >>> from polars_rankk.core.inputs.frames import index_hints
    >>> index_hints(pd.DataFrame({"user": [1], "item": [2]}).set_index("user"), "truth")
    {'user': "; 'user' is the pandas index of truth, not a column: pass truth.reset_index()"}
    """
    if _kind(frame) != "pandas":
        return {}
    index = frame.index  # type: ignore[attr-defined]
    levels = [level for level in index.names if isinstance(level, str)]
    return {
        level: f"; {level!r} is the pandas index of {name}, not a column: pass {name}.reset_index()"
        for level in levels
    }


def is_table(frame: object) -> bool:
    """True for a table `to_lazy` reads: Polars, pandas, Arrow or an Arrow C stream.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from polars_rankk.core.inputs.frames import is_table
    >>> is_table(pa.table({"a": [1]})), is_table([1, 2])
    (True, False)
    """
    return _kind(frame) is not None


def to_lazy(frame: object, name: str) -> pl.LazyFrame:
    """Any supported table as a Polars LazyFrame; a TypeError naming `name` otherwise.

    A record-batch reader or a DuckDB relation is a stream: it is read once, here.

    Examples
    --------
    >>> import pandas as pd, pyarrow as pa
    >>> from polars_rankk.core import to_lazy
    >>> to_lazy(pd.DataFrame({"user": [1], "item": ["a"]}), "truth").collect().shape
    (1, 2)
    >>> to_lazy(pa.table({"user": [1, 2]}).to_reader(), "truth").collect()["user"].to_list()
    [1, 2]
    >>> to_lazy([1, 2], "candidates")
    Traceback (most recent call last):
    ...
    TypeError: candidates must be a table (polars, pandas, pyarrow, or any object with ...
    """
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    try:
        converted = _from_other_library(frame)
    except Exception as error:  # a column Arrow cannot represent, a stream already read ...
        raise TypeError(
            f"{name} ({type(frame).__name__}) could not be read as a table: {error}"
        ) from error
    if converted is None:
        raise TypeError(
            f"{name} must be a table (polars, pandas, pyarrow, or any object with "
            f"__arrow_c_stream__ such as a DuckDB relation); got {type(frame).__name__}"
        )
    if converted.height == 0 and _kind(frame) == "stream":
        # A stream yields its rows once: read a second time it is empty, and would score 0.
        raise ValueError(
            f"{name} ({type(frame).__name__}) gave no rows. A stream is read once: if it was "
            f"read before (by an earlier call), make a new one, or pass a table "
            f"(pyarrow.Table, polars.DataFrame) that can be read again"
        )
    return converted.lazy()


def _is_list(dtype: pl.DataType) -> bool:
    return isinstance(dtype, (pl.List, pl.Array))


def _as_list(column: str, dtype: pl.DataType) -> pl.Expr:
    if isinstance(dtype, pl.Array):
        return pl.col(column).arr.to_list()
    return pl.col(column)


def long_form(
    frame: pl.LazyFrame,
    table: str,
    *,
    keys: Sequence[str],
    item: str,
    parallel: Sequence[str],
    ranking: str | None = None,
    check_values: bool = True,
    rank: str | None = None,
) -> pl.LazyFrame:
    """One row per item when the `item` column holds lists; the frame unchanged otherwise.

    Parameters
    ----------
    frame
        The table, as a lazy frame.
    table
        Its name in error messages (``"candidates"``, ``"truth"``).
    keys, item
        The group keys and the item id column.
    parallel
        Columns that, when they hold lists, hold one value per item of the row's list
        (a score, a rank, grades); they are exploded alongside. Plain columns repeat.
    ranking
        The candidates' ranking column. It must be a parallel list when present; when absent
        it is created as ``-position`` (1-based), so that the list order is the ranking.
    check_values
        Check that parallel lists have the item list's length and, when the list order is the
        ranking, that each group has one list row.
    rank
        The candidates' rank column (lower first), given instead of `ranking`: it must be a
        parallel list too (one rank repeated over a list would rank every item equal).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.inputs.frames import long_form
    >>> lists = pl.LazyFrame({"user": [1], "item": [["b", "a"]]})
    >>> long_form(lists, "candidates", keys=["user"], item="item", parallel=[],
    ...           ranking="score").collect().rows()
    [(1, 'b', -1), (1, 'a', -2)]
    """
    schema = dict(frame.collect_schema())
    if item not in schema or not _is_list(schema[item]):
        return frame
    columns = list(dict.fromkeys([*parallel, *([ranking] if ranking else [])]))
    lists = [item, *(c for c in columns if c in schema and _is_list(schema[c]))]
    for order in (ranking, rank):
        if order is not None and order in schema and order not in lists:
            raise TypeError(
                f"{table} column {item!r} holds ranked lists, so {order!r} must be a parallel "
                f"list of one value per item; it has dtype {schema[order]}"
            )
    frame = frame.with_columns(_as_list(column, schema[column]) for column in lists)
    shown = [c for c in (*keys, *lists) if c in schema]
    if check_values:
        _check_lists(frame, table, item, lists, shown)
    if ranking is not None and ranking not in schema:
        if check_values and all(key in schema for key in keys):
            _check_one_list_per_group(frame, table, keys)
        length = pl.col(item).list.len().cast(pl.Int64)
        frame = frame.with_columns(pl.int_ranges(-1, -length - 1, -1).alias(ranking))
        lists.append(ranking)
    return frame.explode(lists, keep_nulls=False)


def empty_list_groups(frame: pl.LazyFrame, keys: Sequence[str], item: str) -> pl.LazyFrame | None:
    """The groups whose `item` list is empty (or null): an empty ranking, or an empty truth.
    Exploding a list to one row per item leaves no row for them, so they are kept here. None
    when `item` holds no lists.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.inputs.frames import empty_list_groups
    >>> lists = pl.LazyFrame({"user": [1, 2, 3], "item": [["a"], [], None]})
    >>> empty_list_groups(lists, ["user"], "item").collect()["user"].sort().to_list()
    [2, 3]
    """
    schema = frame.collect_schema()
    if item not in schema or not _is_list(schema[item]) or any(k not in schema for k in keys):
        return None
    length = _as_list(item, schema[item]).list.len().fill_null(0)
    return frame.filter(length == 0).select(keys).unique()


def _check_lists(
    frame: pl.LazyFrame, table: str, item: str, lists: Sequence[str], shown: Sequence[str]
) -> None:
    length = pl.col(item).list.len().fill_null(0)
    checks = [
        (
            column,
            pl.col(column).list.len().fill_null(0) != length,
            f"column {column!r} must be a list parallel to {item!r} (one value per item)",
        )
        for column in lists[1:]
    ]
    value_checks(frame, table, checks, shown)


def _check_one_list_per_group(frame: pl.LazyFrame, table: str, keys: Sequence[str]) -> None:
    try:
        check_one_row_per_group(frame, keys, table)
    except ValueError as error:
        raise ValueError(
            f"{error}; with ranked list columns and no score list, the list order is the "
            f"ranking, so each group needs exactly one list"
        ) from None
