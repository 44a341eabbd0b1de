"""Checks every table goes through, with errors that name the table, the column and a row.

A leaf: it imports nothing else of the package, so input conversion (`tables_in`), input
validation (`inputs`) and the other parts' own checks all share it without a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core.types import FrameLike


def example_row(frame: pl.LazyFrame, condition: pl.Expr, columns: Sequence[str]) -> str:
    """The first row where `condition` holds, as text for an error message."""
    rows = frame.filter(condition).select(columns).head(1).collect().to_dicts()
    return repr(rows[0]) if rows else "(none)"


def require_columns(
    frame: pl.LazyFrame,
    table: str,
    required: dict[str, str],
    hints: dict[str, str] | None = None,
) -> dict[str, pl.DataType]:
    """The table's schema, or a ValueError naming the first column it lacks and its meaning
    (and what to do instead, from `hints`, by column)."""
    schema = dict(frame.collect_schema())
    for column, meaning in required.items():
        if column not in schema:
            hint = (hints or {}).get(column, "")
            raise ValueError(
                f"{table} has no column {column!r} (expected {meaning}); "
                f"its columns are {list(schema)}{hint}"
            )
    return schema


def _is_numeric(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() or dtype == pl.Boolean


def check_numeric(
    frame: pl.LazyFrame,
    table: str,
    column: str,
    dtype: pl.DataType,
    meaning: str,
    show: Sequence[str],
) -> None:
    """A TypeError naming the column, its meaning and a row unless its dtype is numeric."""
    if not _is_numeric(dtype):
        example = example_row(frame, pl.lit(True), show)
        raise TypeError(
            f"{table} column {column!r} must be numeric ({meaning}); it has dtype {dtype}, "
            f"e.g. row {example}"
        )


def value_checks(
    frame: pl.LazyFrame, table: str, checks: list[tuple[str, pl.Expr, str]], show: Sequence[str]
) -> None:
    """Run every (name, bad-row condition, message) check in one pass; raise on the first hit."""
    if not checks:
        return
    counts = frame.select(
        [condition.sum().alias(f"check_{i}") for i, (_, condition, _) in enumerate(checks)]
    ).collect()
    for i, (_, condition, message) in enumerate(checks):
        count = counts[f"check_{i}"][0]
        if count:
            example = example_row(frame, condition, show)
            raise ValueError(f"{table}: {message}; {count} row(s), e.g. {example}")


def check_one_row_per_group(frame: FrameLike, keys: Sequence[str], table: str) -> None:
    """Raise a ValueError when a per-group table (attributes, weights) repeats a group key.

    Such a table is joined on the group keys, so a repeated key would silently count its
    group once per row. The message names ``table``, the keys and one repeated row.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core import check_one_row_per_group
    >>> weights = pl.DataFrame({"user": [1, 2, 2], "w": [1.0, 2.0, 3.0]})
    >>> check_one_row_per_group(weights, ["user"], "weights")
    Traceback (most recent call last):
    ...
    ValueError: weights must have one row per group (user), but user=2 has 2 rows, e.g. ...
    """
    keys = list(keys)
    rows = "__rankk_rows"
    repeated = (
        frame.lazy()
        .with_columns(pl.len().over(keys).alias(rows))
        .filter(pl.col(rows) > 1)
        .head(1)
        .collect()
    )
    if repeated.height:
        example = repeated.drop(rows).row(0, named=True)
        key = ", ".join(f"{name}={example[name]!r}" for name in keys)
        raise ValueError(
            f"{table} must have one row per group ({', '.join(keys)}), but {key} has "
            f"{repeated.item(0, rows)} rows, e.g. {example}"
        )
