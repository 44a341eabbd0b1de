"""The value checks of passage tables: every condition counted in one scan, the first that
holds refused with its count and an offending row, worded as `evaluate` words its own."""

from __future__ import annotations

import polars as pl

#: What an invalid score is, as `evaluate` words it.
INVALID_SCORE = (
    "column {score!r} must hold finite numbers (null, NaN and inf are invalid scores; "
    "Policy(invalid_scores='drop' or 'lowest') handles them)"
)
#: A passage twice in a group under ``duplicates="error"``, as `evaluate` words it.
REPEATED = (
    "(group, {item!r}) pairs repeat and Policy(duplicates='error') forbids it; use "
    "duplicates='first' to keep the highest-scored copy"
)


def refuse_first(
    frame: pl.LazyFrame, table: str, checks: list[tuple[pl.Expr, str]], shown: list[pl.Expr]
) -> None:
    """Count every bad-row condition in one scan; raise a ValueError on the first that holds,
    with its count and its first row (shown by the `shown` expressions)."""
    if not checks:
        return
    counts = frame.select(
        condition.sum().alias(f"check_{index}") for index, (condition, _) in enumerate(checks)
    ).collect()
    for index, (condition, message) in enumerate(checks):
        count = counts.item(0, index)
        if count:
            refuse(table, message, count, frame.filter(condition).select(shown).head(1))


def refuse(table: str, message: str, count: int, example: pl.LazyFrame) -> None:
    """Raise the ValueError of a check that `count` rows fail, `example` showing the first."""
    row = example.collect().to_dicts()[0]
    raise ValueError(f"{table}: {message}; {count} row(s), e.g. {row}")
