"""`truth_to_documents`: passage judgements made document judgements (NIST's rule for the
document qrels of TREC DL 2022 and 2023: a document containing a relevant passage is
relevant, i.e. the document's grade is its passages' highest)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from polars_rankk.core import FrameLike, check_numeric, normalize_keys, require_columns, to_lazy
from polars_rankk.core.columns import GRADE
from polars_rankk.core.inputs.normalize import column_name
from polars_rankk.core.types import PassageGradeAggregate
from polars_rankk.passages.checks import refuse_first
from polars_rankk.passages.ids import DOCUMENT, document_checks, shown_document, with_document
from polars_rankk.passages.rule import TRUTH_AGGREGATES, check_document, choice


def truth_to_documents(
    truth: FrameLike,
    *,
    group_by: str | Sequence[str],
    document: object,
    item: str = "item",
    relevance: str = "relevance",
    aggregate: PassageGradeAggregate = "max",
    grades: Mapping[float, float] | None = None,
    check_values: bool = True,
) -> FrameLike:
    """Make document judgements of passage judgements: one row per (group, document).

    Parameters
    ----------
    truth
        One row per judged (group, passage), with an optional `relevance` grade (absent:
        every passage is relevant, and so is every document). A LazyFrame gives a LazyFrame.
    group_by
        The group key column(s).
    document
        How a passage names its document, as for `to_documents`: a delimiter (literal text,
        cut at its first occurrence; an id without it is its own document), a mapping table
        (the passage column, named `item`, and ``document``) or a Polars expression.
    item, relevance
        The truth's passage id and grade columns; the output names the document id `item`.
    aggregate
        A document's grade from its passages': ``"max"`` (NIST's rule: a document containing
        a relevant passage is relevant), ``"min"`` or ``"mean"``. A passage judged twice in a
        group counts once, at its highest grade (as `evaluate` reads a truth table).
    grades
        Passage grades remapped before they are collapsed, ``{grade: new grade}`` (grades
        not listed keep theirs). In TREC DL's passage qrels 1 means *related*, judged not
        relevant, while a document's 1 is *relevant*: ``grades={1: 0}`` keeps a document
        whose best passage is only related from counting as relevant.
    check_values
        Scan the truth for nulls, invalid grades, empty document ids and passages the
        mapping lacks, and refuse them naming the column and a row.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        The group keys, `item` (the document id) and `relevance` (when the truth has one;
        Float64 under ``"mean"`` or a fractional remap), sorted by group and document.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> qrels = pl.DataFrame({"query": ["q1"] * 3, "item": ["d1#0", "d1#1", "d2#0"],
    ...                       "relevance": [1, 3, 1]})
    >>> rk.truth_to_documents(qrels, group_by="query", document="#", grades={1: 0})
    shape: (2, 3)
    ┌───────┬──────┬───────────┐
    │ query ┆ item ┆ relevance │
    │ ---   ┆ ---  ┆ ---       │
    │ str   ┆ str  ┆ i64       │
    ╞═══════╪══════╪═══════════╡
    │ q1    ┆ d1   ┆ 3         │
    │ q1    ┆ d2   ┆ 0         │
    └───────┴──────┴───────────┘

    See Also
    --------
    to_documents : the run's passages collapsed to documents.
    """
    choice(aggregate, TRUTH_AGGREGATES, "aggregate")
    check_document(document)
    keys = list(normalize_keys(group_by))
    item, relevance = column_name(item, "item"), column_name(relevance, "relevance")
    frame = to_lazy(truth, "truth")
    required = dict.fromkeys(keys, "a group key") | {item: "the passage id"}
    schema = require_columns(frame, "truth", required)
    graded = relevance in schema
    show = [*keys, item, *([relevance] if graded else [])]
    if graded:
        check_numeric(frame, "truth", relevance, schema[relevance], "a grade", show)
    elif grades is not None:
        raise ValueError(
            f"grades={dict(grades)!r} remaps the truth's {relevance!r} column, and the truth "
            f"has none (its columns are {list(schema)})"
        )
    grade = [_remapped(pl.col(relevance), grades, schema[relevance]).alias(GRADE)] if graded else []
    rows = with_document(
        frame.select(*keys, item, *grade), document, table="truth", item=item, show=show
    )
    if check_values:
        _check(rows, document, keys=keys, item=item, relevance=relevance if graded else None)
    if graded:
        passages = rows.group_by([*keys, item, DOCUMENT]).agg(pl.col(GRADE).max())
        documents = passages.group_by([*keys, DOCUMENT]).agg(_grade(aggregate))
    else:
        documents = rows.select(*keys, DOCUMENT).unique()
    documents = documents.sort([*keys, DOCUMENT]).select(
        *keys, pl.col(DOCUMENT).alias(item), *([pl.col(GRADE).alias(relevance)] if graded else [])
    )
    return documents if isinstance(truth, pl.LazyFrame) else documents.collect()


def _remapped(grade: pl.Expr, grades: Mapping[float, float] | None, dtype: pl.DataType) -> pl.Expr:
    """The grades with `grades` applied (a fractional new grade makes them Float64)."""
    if grades is None:
        return grade
    if not isinstance(grades, Mapping) or not grades:
        raise TypeError(
            f"grades must map passage grades to new grades, like {{1: 0}}; got {grades!r}"
        )
    for value in (*grades.keys(), *grades.values()):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            raise ValueError(
                f"grades must map finite numbers to finite numbers; got {dict(grades)!r}"
            )
    whole = all(float(value).is_integer() for value in grades.values())
    if not (whole and dtype.is_integer()):
        grade = grade.cast(pl.Float64)
    return grade.replace(list(grades.keys()), list(grades.values()))


def _grade(aggregate: str) -> pl.Expr:
    """A document's grade from its passages' (`GRADE`)."""
    if aggregate == "max":
        return pl.col(GRADE).max()
    if aggregate == "min":
        return pl.col(GRADE).min()
    return pl.col(GRADE).cast(pl.Float64).mean()


def _check(
    rows: pl.LazyFrame, document: object, *, keys: list[str], item: str, relevance: str | None
) -> None:
    """Nulls, invalid grades and the document ids, in one scan; refused naming a row."""
    checks = [(pl.col(key).is_null(), f"column {key!r} (a group key) must not be null")
              for key in keys]  # fmt: skip
    checks += [
        (condition, f"column {item!r} {meaning}")
        for condition, meaning in document_checks(rows, document, item=item)
    ]
    named = [*keys, item, *([relevance] if relevance is not None else [])]
    shown = [*(pl.col(key) for key in keys), pl.col(item), shown_document(named)]
    if relevance is not None:
        value = pl.col(GRADE).cast(pl.Float64)
        checks += [
            (value.is_null(), f"column {relevance!r} (a relevance grade) must not be null"),
            (
                value.is_not_null() & ~value.is_finite(),
                f"column {relevance!r} (a relevance grade) must not be NaN or infinite",
            ),
        ]
        shown.append(pl.col(GRADE).alias(relevance))
    refuse_first(rows, "truth", checks, shown)
