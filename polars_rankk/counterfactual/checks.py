"""The checks of a counterfactual evaluation's inputs: the log, the candidates and the
examination probabilities, each error naming the table, the column and one offending row.

The value checks run as one small query (each a filter keeping its first offending row), so a
clean log costs one scan before the estimate's own plan.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import polars as pl


class CounterfactualWarning(UserWarning):
    """A counterfactual estimate rests on thin ground: rankings the log never showed (no
    support), groups present in only one of the tables, or importance weights that explode."""


def require_columns(frame: pl.LazyFrame, table: str, columns: Mapping[str, str]) -> None:
    """Raise ``ValueError`` naming the first of `columns` the table lacks and the argument
    that names it (`columns`: column -> argument, e.g. ``{"click": "reward="}``)."""
    schema = frame.collect_schema()
    for column, argument in columns.items():
        if column not in schema:
            raise ValueError(
                f"the {table} table has no column {column!r} (named by {argument}; "
                f"its columns: {', '.join(schema.names())})"
            )


def possessive(table: str) -> str:
    """``log's``, ``candidates'``."""
    return f"{table}'" if table.endswith("s") else f"{table}'s"


def require_numeric(frame: pl.LazyFrame, table: str, column: str, what: str) -> None:
    """Raise ``TypeError`` when `column` is not numeric (booleans count as 0/1)."""
    dtype = frame.collect_schema()[column]
    if dtype.is_numeric() or dtype == pl.Boolean:
        return
    row = frame.head(1).collect().to_dicts()
    example = f"; e.g. row {row[0]}" if row else ""
    raise TypeError(
        f"the {possessive(table)} column {column!r} must be numeric ({what}); got {dtype}{example}"
    )


def require_integer(frame: pl.LazyFrame, table: str, column: str) -> None:
    """Raise ``TypeError`` when `column` is not an integer column."""
    dtype = frame.collect_schema()[column]
    if not dtype.is_integer():
        row = frame.head(1).collect().to_dicts()
        example = f"; e.g. row {row[0]}" if row else ""
        raise TypeError(
            f"the {possessive(table)} column {column!r} must hold integer positions 1, 2, ...; "
            f"got {dtype}{example}"
        )


def check_values(checks: Sequence[tuple[pl.LazyFrame, str, str, pl.Expr, str]]) -> None:
    """Raise ``ValueError`` for the first check with an offending row.

    Each check is (frame, table, column, a predicate true on bad rows, the expectation).
    """
    found = pl.collect_all([frame.filter(bad).head(1) for frame, _, _, bad, _ in checks])
    for rows, (_, table, column, _, expectation) in zip(found, checks, strict=True):
        if rows.height:
            raise ValueError(
                f"the {possessive(table)} column {column!r} must be {expectation}; "
                f"got row {rows.row(0, named=True)}"
            )


def warn(message: str) -> None:
    """Warn with `CounterfactualWarning` at the caller of the public function."""
    warnings.warn(message, CounterfactualWarning, stacklevel=4)


def examined(log: pl.LazyFrame, position: str, theta: pl.DataFrame | None, k: int) -> None:
    """Every logged position and every rank 1..k needs an examination probability (under
    the position-based model: `theta` is not None)."""
    if theta is None:
        return
    known = theta["position"]
    missing = [rank for rank in range(1, k + 1) if rank not in set(known.to_list())]
    if missing:
        raise ValueError(f"the examination table has no position {missing[0]} (it needs 1..{k})")
    check_values(
        [
            (
                log,
                "log",
                position,
                ~pl.col(position).is_in(known.implode()),
                f"a position the examination table lists (1..{known.len()})",
            )
        ]
    )
