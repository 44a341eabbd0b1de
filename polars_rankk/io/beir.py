"""Read BEIR's qrels files (``qrels/test.tsv``): ``query-id  corpus-id  score``, tab-separated,
with a header line.

As BEIR's own loader (``GenericDataLoader._load_qrels``: Python's ``csv`` reader, tab-separated,
minimal quoting, the first line skipped as the header, ``row[0], row[1], int(row[2])``), the
ids are text, whatever they look like (``"0"`` and ``"00"`` are two documents), a quoted field
may hold a tab, fields after the third are ignored, and a (query, document) pair judged twice
keeps its last grade.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Union

import polars as pl

__all__ = ["read_beir_qrels"]

PathLike = Union[str, "os.PathLike[str]"]

_FIELDS = ("query-id", "corpus-id", "score")
_LINE = "_rk_line"
_GRADE = r"^\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*$"
_INTEGER = r"^\s*[+-]?[0-9]+\s*$"


class BeirQrelsWarning(UserWarning):
    """A BEIR qrels file judges one (query, document) pair twice: its last grade is kept, as
    BEIR's loader keeps it."""


def read_beir_qrels(path: PathLike) -> pl.LazyFrame:
    """Read a BEIR qrels file (``query-id  corpus-id  score``, tab-separated, a header line).

    Parameters
    ----------
    path
        The qrels file, e.g. ``scifact/qrels/test.tsv``.

    Returns
    -------
    pl.LazyFrame
        ``query`` (String), ``item`` (String) and ``relevance`` (Int64; Float64 when a grade
        is fractional) — the columns of `read_trec_qrels`, so ``group_by="query"`` — one row
        per judged pair, in file order.

    Raises
    ------
    ValueError
        The first line is a judgement rather than the header, a line has fewer than three
        fields, an id is empty, or a score is not a number; the message names the file, the
        1-based line number and the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rankk as rk
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "test.tsv"
    >>> _ = path.write_text("query-id\\tcorpus-id\\tscore\\n1\\t31715818\\t1\\n1\\t007\\t0\\n")
    >>> rk.read_beir_qrels(path).collect()
    shape: (2, 3)
    ┌───────┬──────────┬───────────┐
    │ query ┆ item     ┆ relevance │
    │ ---   ┆ ---      ┆ ---       │
    │ str   ┆ str      ┆ i64       │
    ╞═══════╪══════════╪═══════════╡
    │ 1     ┆ 31715818 ┆ 1         │
    │ 1     ┆ 007      ┆ 0         │
    └───────┴──────────┴───────────┘
    """
    names = [str(index) for index in range(3)]
    frame = pl.read_csv(
        Path(path),
        separator="\t",
        has_header=False,
        schema=dict.fromkeys(names, pl.String),
        quote_char='"',
        truncate_ragged_lines=True,
        raise_if_empty=False,
    ).with_row_index(_LINE, offset=1)
    query, item, score = (pl.col(name) for name in names)
    _check_header(frame, path)
    blank = pl.all_horizontal(field.is_null() for field in (query, item, score))
    rows = frame.slice(1).filter(~blank)
    _refuse(rows, score.is_null(), path, f"expected 3 tab-separated fields {' '.join(_FIELDS)!r}")
    _refuse(rows, (query == "") | (item == ""), path, "an empty query-id or corpus-id")
    _refuse(rows, ~score.str.contains(_GRADE), path, "the score (3rd field) is not a number")
    whole = rows.select(score.str.contains(_INTEGER).all()).item() if rows.height else True
    grade = score.str.strip_chars().cast(pl.Int64 if whole else pl.Float64)
    table = rows.select(query.alias("query"), item.alias("item"), grade.alias("relevance"), _LINE)
    return _last_judgement(table, path).lazy()


def _check_header(frame: pl.DataFrame, path: PathLike) -> None:
    """The first line is BEIR's header (its score field is no number), as the loader assumes."""
    if (
        frame.height
        and frame.item(0, "2") is not None
        and frame.select(pl.col("2").first().str.contains(_GRADE)).item()
    ):
        first = "\t".join(str(value) for value in frame.row(0)[1:])
        raise ValueError(
            f"{os.fspath(path)} line 1: expected BEIR's header {' '.join(_FIELDS)!r} (its loader "
            f"skips the first line, so this judgement would be lost), got {first!r}"
        )


def _refuse(rows: pl.DataFrame, bad: pl.Expr, path: PathLike, message: str) -> None:
    """A ValueError naming the first row where `bad` holds: its line number and its fields."""
    found = rows.filter(bad.fill_null(True)).head(1)
    if found.height:
        line = "\t".join("" if value is None else str(value) for value in found.row(0)[1:])
        raise ValueError(f"{os.fspath(path)} line {found.item(0, _LINE)}: {message}, got {line!r}")


def _last_judgement(table: pl.DataFrame, path: PathLike) -> pl.DataFrame:
    """Each (query, document) once, at its last grade, with a warning when one repeats."""
    repeated = table.filter(pl.len().over("query", "item") > 1)
    if repeated.height:
        first = repeated.row(0, named=True)
        warnings.warn(
            f"{os.fspath(path)}: {repeated.select('query', 'item').n_unique()} (query, document) "
            f"pair(s) judged more than once, e.g. query {first['query']!r}, document "
            f"{first['item']!r} (line {first[_LINE]}); the last grade is kept, as BEIR's "
            f"loader keeps it",
            BeirQrelsWarning,
            stacklevel=3,
        )
        table = table.filter(pl.col(_LINE) == pl.col(_LINE).max().over("query", "item"))
    return table.drop(_LINE)
