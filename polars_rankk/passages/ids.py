"""Each passage row's document id, from a delimiter, a mapping table or an expression, and the
checks that words every way it can fail: a non-text id cut by a delimiter, an empty document
id, a passage the mapping lacks or maps to two documents, a null.

The delimiter is literal text, cut at its first occurrence: ``msmarco_v2.1_doc_29_677149#3_1156``
belongs to ``msmarco_v2.1_doc_29_677149`` under ``"#"``. (Anserini's
``-selectMaxPassage.delimiter`` is a Java regular expression, its default ``"\\."`` the dot;
Pyserini's ``--max-passage-delimiter`` and PyTerrier's ``%p`` are literal, as here.)
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core import align_ids, example_row, require_columns, to_lazy
from polars_rankk.core.inputs.normalize import is_stringlike

#: The document id of each row, while passages are collapsed.
DOCUMENT = "_rk_document"
#: The mapping table's document column.
MAPPING_DOCUMENT = "document"


def with_document(
    frame: pl.LazyFrame,
    document: object,
    *,
    table: str,
    item: str,
    show: Sequence[str],
) -> pl.LazyFrame:
    """`frame` with a `DOCUMENT` column: each row's document id. Refuses in words what cannot
    be cut (a delimiter on ids that are not text) and what a mapping table cannot give (a
    passage mapped to two documents); the rows' own values are checked by `document_checks`."""
    if isinstance(document, str):
        dtype = frame.collect_schema()[item]
        if not is_stringlike(dtype):
            present = frame.collect_schema()
            example = example_row(frame, pl.lit(True), [c for c in show if c in present])
            # An engine's driver checks a schema alone: it has no row to show.
            row = "" if example == "(none)" else f"; e.g. row {example}"
            raise TypeError(
                f"{table} column {item!r} holds {dtype} ids, and a delimiter ({document!r}) cuts "
                f"text: give a mapping table (item, document) or an expression instead, or cast "
                f"the ids to text{row}"
            )
        cut = pl.col(item).cast(pl.String).str.splitn(document, 2).struct.field("field_0")
        return frame.with_columns(cut.alias(DOCUMENT))
    if isinstance(document, pl.Expr):
        return frame.with_columns(document.alias(DOCUMENT))
    return frame.pipe(_mapped, _mapping(document, item), table=table, item=item)


def _mapping(document: object, item: str) -> pl.LazyFrame:
    """The mapping table's (passage, document) pairs, each passage once; a passage mapped to
    two documents, or a null on either side, refused naming a row."""
    mapping = to_lazy(document, "the document mapping")
    meaning = {item: "the passage id (named as the run's item column)"}
    require_columns(mapping, "the document mapping", {**meaning, MAPPING_DOCUMENT: "its document"})
    pairs = mapping.select(item, MAPPING_DOCUMENT).unique()
    show = [item, MAPPING_DOCUMENT]
    checks = {
        "a null passage or document": pl.any_horizontal(pl.col(item, MAPPING_DOCUMENT).is_null()),
        "a passage mapped to two documents or more": pl.len().over(item) > 1,
        "an empty document id": _empty(pl.col(MAPPING_DOCUMENT), mapping, MAPPING_DOCUMENT),
    }
    counts = pairs.select(check.sum().alias(name) for name, check in checks.items()).collect()
    for name, check in checks.items():
        if counts[name].item():
            example = example_row(pairs.sort(show), check, show)
            raise ValueError(f"the document mapping holds {name}, e.g. {example}")
    return pairs


def _empty(document: pl.Expr, frame: pl.LazyFrame, column: str) -> pl.Expr:
    """An empty text id (never true of ids that are not text)."""
    if is_stringlike(frame.collect_schema()[column]):
        return document.cast(pl.String) == ""
    return pl.lit(False)


def _mapped(frame: pl.LazyFrame, mapping: pl.LazyFrame, *, table: str, item: str) -> pl.LazyFrame:
    """`frame` joined to its document by the passage id (ids cast to one dtype first)."""
    frame, mapping = align_ids(frame, mapping, [item], names=(table, "the document mapping"))
    mapping = mapping.rename({MAPPING_DOCUMENT: DOCUMENT})
    return frame.join(mapping, on=item, how="left", maintain_order="left")


def shown_document(taken: list[str]) -> pl.Expr:
    """The document id as an offending row shows it: ``document``, unless a column of the
    table is so named."""
    return pl.col(DOCUMENT).alias("document" if "document" not in taken else DOCUMENT)


def document_checks(
    frame: pl.LazyFrame, document: object, *, item: str
) -> list[tuple[pl.Expr, str]]:
    """(bad-row condition, what it means) for the rows' document ids: a null (a passage the
    mapping lacks, or an expression's null) and an empty id."""
    if isinstance(document, str):
        # Read on the passage id itself: the document ids need not be cut to be checked.
        passage = pl.col(item)
        return [
            (passage.is_null(), "has a null passage id"),
            (
                passage.cast(pl.String).str.starts_with(document),
                f"gives an empty document id (its passage id starts with {document!r})",
            ),
        ]
    if isinstance(document, pl.Expr):
        null = f"gives a null document id (the expression {document})"
        empty = "gives an empty document id (the expression's)"
    else:
        null = "holds a passage the document mapping lacks"
        empty = "gives an empty document id"
    return [
        (pl.col(DOCUMENT).is_null(), null),
        (_empty(pl.col(DOCUMENT), frame, DOCUMENT), empty),
    ]
