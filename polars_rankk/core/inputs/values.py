"""The value checks of the candidates and the truth (nulls, NaN grades, invalid scores,
duplicates), and the warnings they give about columns the evaluation does not use."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import polars as pl

from polars_rankk.core.inputs.checks import example_row, value_checks
from polars_rankk.core.inputs.normalize import is_stringlike
from polars_rankk.core.policy import Policy


class IgnoredColumnWarning(UserWarning):
    """A column of the input that looks meaningful was not used: a numeric truth column when
    no relevance column was named, or a label column (a system name) pooled by
    de-duplication."""


class EmptyResultWarning(UserWarning):
    """A result has no rows, and this says why (an empty split, no group evaluated)."""


#: The default relevance column: a table without it is ungraded; any other name must exist.
DEFAULT_RELEVANCE = "relevance"


def check_unused_grades(
    schema: dict[str, pl.DataType], keys: Sequence[str], item: str, relevance: str
) -> None:
    """A relevance column named but absent raises; an absent default with a numeric truth
    column left over warns (every truth row then counts as grade 1)."""
    ids = {*keys, item}
    unused = [name for name, dtype in schema.items() if name not in ids and dtype.is_numeric()]
    if relevance != DEFAULT_RELEVANCE:
        hint = f"; to grade by {unused[0]!r}, pass relevance={unused[0]!r}" if unused else ""
        raise ValueError(
            f"relevance={relevance!r} is not a column of the truth (nor of the candidates); "
            f"the truth's columns are {list(schema)}{hint}"
        )
    if unused:
        listed = ", ".join(repr(name) for name in unused)
        warnings.warn(
            f"truth has no {relevance!r} column, so every truth row counts as relevant "
            f"(grade 1) and its numeric column {listed} is not used; to grade by it, pass "
            f"relevance={unused[0]!r}",
            IgnoredColumnWarning,
            stacklevel=5,
        )


def label_columns(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, named: Sequence[str]
) -> dict[str, int]:
    """String columns besides `named` whose value differs between rows of one (group, item):
    a label such as a system name, which de-duplication would pool. By column, the rows of
    the (group, item) pairs where it differs.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.inputs.values import label_columns
    >>> runs = pl.LazyFrame({"run": ["A", "B", "B"], "q": [1, 1, 1], "item": [1, 1, 2],
    ...                      "score": [0.5, 0.2, 0.1]})
    >>> label_columns(runs, ["q"], "item", ["q", "item", "score"])
    {'run': 2}
    """
    schema = frame.collect_schema()
    columns = [name for name, dtype in schema.items() if name not in named and is_stringlike(dtype)]
    if not columns:
        return {}
    pair = [*keys, item]
    counts = (
        frame.group_by(pair)
        .agg(pl.len().alias("_rk_rows"), *(pl.col(c).n_unique().alias(c) for c in columns))
        .select((pl.when(pl.col(c) > 1).then(pl.col("_rk_rows")).sum()).alias(c) for c in columns)
        .collect()
    )
    return {c: int(counts.item(0, c) or 0) for c in columns if counts.item(0, c)}


def warn_pooled_labels(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, named: Sequence[str]
) -> None:
    for column, rows in label_columns(frame, keys, item, named).items():
        warnings.warn(
            f"candidates: {rows:,} rows share a (group, {item!r}) pair with a row whose "
            f"{column!r} differs, and Policy(duplicates='first') keeps only the highest-scored "
            f"copy, pooling them into one ranking. If {column!r} names the system of each "
            f"row, pass system={column!r} to evaluate each system on its own",
            IgnoredColumnWarning,
            stacklevel=5,
        )


def _null_checks(keys: Sequence[str], item: str) -> list[tuple[str, pl.Expr, str]]:
    return [
        (column, pl.col(column).is_null(), f"column {column!r} ({meaning}) must not be null")
        for column, meaning in [*((key, "a group key") for key in keys), (item, "the item id")]
    ]


def _grade_checks(column: str) -> list[tuple[str, pl.Expr, str]]:
    grade = pl.col(column).cast(pl.Float64)
    return [
        (column, grade.is_null(), f"column {column!r} (a relevance grade) must not be null"),
        # An infinite grade turns every gain sum into inf or NaN (nDCG NaN; G, RBP, Q 0.0).
        (
            column,
            ~grade.is_finite(),
            f"column {column!r} (a relevance grade) must not be NaN or infinite",
        ),
    ]


def check_candidate_values(
    frame: pl.LazyFrame,
    keys: Sequence[str],
    item: str,
    score: str,
    relevance: str | None,
    n_relevant: str | None,
    policy: Policy,
) -> None:
    checks = _null_checks(keys, item)
    if policy.invalid_scores == "error":
        value = pl.col(score).cast(pl.Float64)
        checks.append(
            (
                score,
                value.is_null() | ~value.is_finite(),
                f"column {score!r} must hold finite numbers (null, NaN and inf are invalid "
                f"scores; Policy(invalid_scores='drop' or 'lowest') handles them)",
            )
        )
    if relevance is not None:
        checks += _grade_checks(relevance)
    if n_relevant is not None:
        count = pl.col(n_relevant)
        checks.append(
            (
                n_relevant,
                count.is_null() | (count.cast(pl.Float64) < 0) | (count.n_unique().over(keys) > 1),
                f"column {n_relevant!r} must be a non-null count >= 0, the same on every row "
                f"of a group",
            )
        )
    show = [*keys, item, score] + [c for c in (relevance, n_relevant) if c is not None]
    value_checks(frame, "candidates", checks, show)
    if policy.duplicates == "error":
        duplicated = pl.len().over([*keys, item]) > 1
        count = frame.select(duplicated.sum()).collect().item()
        if count:
            example = example_row(frame, duplicated, show)
            raise ValueError(
                f"candidates: (group, {item!r}) pairs repeat ({count} rows) and "
                f"Policy(duplicates='error') forbids it, e.g. {example}; "
                f"use duplicates='first' to keep the highest-scored copy"
            )


def check_truth_values(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, relevance: str | None
) -> None:
    checks = _null_checks(keys, item)
    if relevance is not None:
        checks += _grade_checks(relevance)
    show = [*keys, item] + ([relevance] if relevance is not None else [])
    value_checks(frame, "truth", checks, show)
