"""Read and write TREC run and qrels files with Polars.

TREC formats (whitespace-separated, one record per line):

- run: ``query Q0 item rank score tag`` — the ``Q0`` literal, the rank and the tag are
  ignored (trec_eval orders by score, never by the rank column). As in trec_eval, anything
  after the sixth field is ignored (trec_eval's own ``results.trunc`` test file carries such
  trailing text).
- qrels: ``query iteration item relevance`` — the iteration column is ignored.

As in trec_eval's readers (``get_qrels.c``, ``get_trec_results.c``), fields are separated by
ASCII whitespace only — C's ``isspace`` in the C locale: space, tab, ``\\n``, ``\\v``, ``\\f``,
``\\r`` — so an id holding another character (a no-break space ``\\u00a0``) stays one id; a line
whose first non-blank character is ``#`` is a comment and skipped; blank lines are skipped.
Lines may start with whitespace and end with ``\\r\\n``. Parsing is vectorised (one pass of
Polars string expressions, no Python loop over lines) and validated eagerly, so a malformed
file fails at read time with the file name, the 1-based line number (comments and blank
lines count, as in an editor) and the offending line.

Where the compiled kernel is loaded, it reads a UTF-8 file itself and splits its lines by
these rules on every core (`polars_rankk.core.kernel.text_file`; the fields it reads stay
text, parsed below as everywhere). Without it, a file whose fields are separated by one space
is read by Polars' CSV reader (``separator=" "``, every field as text), several times faster
than splitting each line. A file neither reads exactly — one that is not UTF-8, or a short or
otherwise malformed line (and, for the CSV reader, a tab, a run of spaces or a line starting
with a blank) — is read by the general line splitter instead, which also words the errors.
All three give the same table.

trec_eval reads bytes: a UTF-8 byte order mark at the start of a file stays in the first id,
and an id may hold bytes that are not UTF-8. Both are read so (the mark kept; each byte that is
not UTF-8 written as ``\\xNN``, the same in the run and the qrels), with a `TrecBytesWarning`.
Every other id is read as written — a backslash too — so it matches the same id in a Parquet or
CSV table. Only an id whose text itself spells such an escape (the four characters ``\\xff``)
could then meet a byte that is not UTF-8 in another file, where trec_eval keeps the two apart:
a file holding one is read with a `TrecBytesWarning` saying so.
"""

from __future__ import annotations

import mmap
import os
import warnings
from pathlib import Path
from typing import Union

import polars as pl

from polars_rankk.io.trec_bytes import (
    TrecBytesWarning,
    escaped_text_lines,
    starts_with_bom,
    warn_if_an_id_spells_a_byte_escape,
)

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_run"]

PathLike = Union[str, "os.PathLike[str]"]

_LINE_NO = "__rankk_line_no"
_LINE = "__rankk_line"
_FIELDS = "__rankk_fields"
_N_FIELDS = "__rankk_n_fields"

_RUN_LAYOUT = "'query Q0 item rank score tag'"
_QRELS_LAYOUT = "'query iteration item relevance'"
_INT_PATTERN = r"^[+-]?[0-9]+$"
#: C ``isspace`` in the C locale; Unicode spaces (``\u00a0``, ``\u2003``…) are id characters.
_ASCII_SPACE = " \t\n\x0b\x0c\r"
_SPACE_RUN = r"[ \t\n\x0B\x0C\r]+"
#: The ASCII whitespace other than the space, which a single-space-separated file lacks.
_OTHER_SPACE = r"[\t\n\x0B\x0C\r]"


def _fields_read(
    path: PathLike, n_fields: int, *, trailing: bool, wanted: list[int]
) -> pl.DataFrame | None:
    """At least the `wanted` fields of every line, as text (columns ``0``, ``1`` …), split by
    the compiled kernel on every core where it reads the file, else by the CSV reader where
    the file is single-space separated; None: the general reader reads it (and words its
    errors)."""
    if not starts_with_bom(path):  # (which trec_eval keeps in the first id, said there)
        from polars_rankk.core.kernel.text_file import text_fields

        found = text_fields(path, n_fields, trailing=trailing, wanted=wanted)
        if found is not None:
            return found
    return _single_spaced(path, n_fields, trailing=trailing)


def _single_spaced(path: PathLike, n_fields: int, *, trailing: bool) -> pl.DataFrame | None:
    """The first `n_fields` fields of every line, as text (columns ``0``, ``1`` …), when
    the file is single-space separated; None when a line is not (a tab, a run of spaces, a
    leading blank, fewer fields, or more than `n_fields` unless `trailing`), for the general
    reader. Comment lines and blank lines are skipped, as there."""
    names = [str(index) for index in range(n_fields)]
    if starts_with_bom(path):
        return None  # the CSV reader drops the mark, which trec_eval keeps in the first id
    try:
        frame = pl.read_csv(
            Path(path),
            separator=" ",
            has_header=False,
            schema=dict.fromkeys(names, pl.String),
            quote_char=None,
            comment_prefix="#",
            truncate_ragged_lines=trailing,
            raise_if_empty=False,
        )
    except pl.exceptions.PolarsError:
        return None  # more fields than `n_fields`, or text the CSV reader refuses
    fields = [pl.col(name) for name in names]
    # A blank (or all-blank) line reads as a row of nulls: skipped, as by the general reader.
    frame = frame.filter(~pl.all_horizontal(field.is_null() for field in fields))
    # A run of spaces or a leading blank leaves an empty field, a short line a null one.
    malformed = pl.any_horizontal(field.is_null() | (field == "") for field in fields)
    if _holds_other_space(path):
        malformed = malformed | pl.any_horizontal(
            field.str.contains(_OTHER_SPACE) for field in fields
        )
    return None if frame.select(malformed.any()).item() else frame


def _holds_other_space(path: PathLike) -> bool:
    """Whether the file holds a tab, ``\\r``, ``\\v`` or ``\\f`` anywhere (a byte search, far
    cheaper than looking for them in every field)."""
    try:
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return any(data.find(byte) >= 0 for byte in (b"\t", b"\r", b"\x0b", b"\x0c"))
    except (OSError, ValueError):  # empty, or not a regular file: look in the fields
        return True


def _split_lines(path: PathLike) -> pl.DataFrame:
    """The lines of ``path`` that are neither blank nor comments, with their 1-based number and
    their ASCII-whitespace-separated fields."""
    if starts_with_bom(path):
        warnings.warn(
            f"{os.fspath(path)} starts with a UTF-8 byte order mark: kept in the first line's "
            f"first field, as trec_eval keeps it (that id then differs from one without it)",
            TrecBytesWarning,
            stacklevel=3,
        )
    lines = pl.scan_lines(Path(path), name=_LINE, row_index_name=_LINE_NO, row_index_offset=1)
    try:
        return _fields(lines).collect()
    except pl.exceptions.ComputeError as error:
        if "utf8" not in str(error).lower().replace("-", ""):
            raise
    escaped = pl.LazyFrame({_LINE: escaped_text_lines(path)})
    return _fields(escaped.with_row_index(_LINE_NO, offset=1)).collect()


def _fields(lines: pl.LazyFrame) -> pl.LazyFrame:
    """The lines that are neither blank nor comments, with their fields and how many."""
    return (
        lines.with_columns(
            pl.col(_LINE)
            .str.replace_all(_SPACE_RUN, " ")
            .str.strip_chars(" ")
            .str.split(" ")
            .alias(_FIELDS)
        )
        .filter(
            (pl.col(_FIELDS).list.first() != "")
            & ~pl.col(_FIELDS).list.first().str.starts_with("#")
        )
        .with_columns(pl.col(_FIELDS).list.len().alias(_N_FIELDS))
    )


def _raise_first(frame: pl.DataFrame, mask: pl.Expr, path: PathLike, message: str) -> None:
    """Raise ``ValueError`` for the first row of ``frame`` where ``mask`` holds."""
    bad = frame.filter(mask).head(1)
    if bad.height:
        line_no = bad.item(0, _LINE_NO)
        line = bad.item(0, _LINE)
        raise ValueError(f"{os.fspath(path)} line {line_no}: {message}, got {line!r}")


def read_trec_run(path: PathLike, *, rank: bool = False) -> pl.LazyFrame:
    """Read a TREC run file (``query Q0 item rank score tag``).

    Parameters
    ----------
    path
        The run file. Fields are separated by ASCII whitespace (see the module docstring);
        trailing fields after the sixth are ignored and lines starting with ``#`` skipped,
        as trec_eval does.
    rank
        Keep the 4th field as a ``rank`` column (Int64) to rank by (``rankk --rank rank``);
        trec_eval ignores it, ranking by score, so it is dropped by default.

    Returns
    -------
    pl.LazyFrame
        ``query``, ``item`` (String), ``score`` (Float64), a row per line in file order (tag,
        rank dropped; `rank` keeps ``rank``, Int64); lazy: ``.head().collect()`` shows rows.

    Raises
    ------
    ValueError
        A line has fewer than six fields, a score that is not a number or (with `rank`) a
        rank that is no integer; the message names the file, the line number and the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polars_rankk import io as rkio
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.trec"
    >>> _ = path.write_text("# run sys\\nq1 Q0 d1 1 2.5 sys\\nq1\\tQ0\\td2\\t2\\t1.0\\tsys\\n")
    >>> rkio.read_trec_run(path).collect()
    shape: (2, 3)
    ┌───────┬──────┬───────┐
    │ query ┆ item ┆ score │
    │ ---   ┆ ---  ┆ ---   │
    │ str   ┆ str  ┆ f64   │
    ╞═══════╪══════╪═══════╡
    │ q1    ┆ d1   ┆ 2.5   │
    │ q1    ┆ d2   ┆ 1.0   │
    └───────┴──────┴───────┘
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 sys\\nfoo bar\\n")
    >>> rkio.read_trec_run(path)
    Traceback (most recent call last):
    ...
    ValueError: ... line 2: expected at least 6 whitespace-separated fields ..., got 'foo bar'
    """
    warn_if_an_id_spells_a_byte_escape(path)
    fields = _fields_read(path, 6, trailing=True, wanted=[0, 2, 3, 4] if rank else [0, 2, 4])
    kept = ["rank"] if rank else []
    if fields is not None:
        score = pl.col("4").cast(pl.Float64, strict=False)
        found = fields.select(
            pl.col("0").alias("query"),
            pl.col("2").alias("item"),
            *[pl.col("3").cast(pl.Int64, strict=False).alias("rank")] if rank else [],
            score.alias("score"),
        )
        if not found.select(pl.any_horizontal(pl.col("score", *kept).has_nulls())).item():
            return found.select("query", "item", *kept, "score").lazy()
    lines = _split_lines(path)  # and a malformed line's error
    _raise_first(
        lines,
        pl.col(_N_FIELDS) < 6,
        path,
        f"expected at least 6 whitespace-separated fields {_RUN_LAYOUT}",
    )
    parsed = lines.select(
        pl.col(_LINE_NO),
        pl.col(_LINE),
        pl.col(_FIELDS).list.get(0).alias("query"),
        pl.col(_FIELDS).list.get(2).alias("item"),
        pl.col(_FIELDS).list.get(4).alias("__score_text"),
        pl.col(_FIELDS).list.get(4).cast(pl.Float64, strict=False).alias("score"),
        pl.col(_FIELDS).list.get(3).cast(pl.Int64, strict=False).alias("rank"),
    )
    _raise_first(
        parsed,
        pl.col("score").is_null(),
        path,
        "the score (5th field) is not a number",
    )
    if rank:
        _raise_first(parsed, pl.col("rank").is_null(), path, "the rank (4th field) is no integer")
    return parsed.select("query", "item", *kept, "score").lazy()


def read_trec_qrels(path: PathLike, *, subtopics: bool = False) -> pl.LazyFrame:
    """Read a TREC qrels file (``query iteration item relevance``).

    With ``subtopics=True``, a TREC diversity qrels file (``query subtopic item relevance``).

    Parameters
    ----------
    path
        The qrels file: exactly four ASCII-whitespace-separated fields per line; lines
        starting with ``#`` are comments.
    subtopics
        Whether the second field is a subtopic (intent) id, as in the TREC Web track's
        diversity qrels that ndeval reads, rather than trec_eval's ignored "iteration":
        it is then kept as a ``subtopic`` column (String) for
        ``rk.evaluate(..., subtopic="subtopic")``.

    Returns
    -------
    pl.LazyFrame
        Columns ``query`` (String), ``item`` (String) and ``relevance``: Int64 when every
        grade in the file is an integer (the usual case, and what trec_eval accepts),
        Float64 when at least one grade is fractional (e.g. ``0.5``); with `subtopics`,
        ``subtopic`` (String) after ``query``. Lazy: ``.head().collect()`` shows rows.

    Raises
    ------
    ValueError
        A line does not have exactly four fields or its relevance is not a number; the
        message names the file, the 1-based line number and the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polars_rankk import io as rkio
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("# judged by A\\nq1 0 d1 2\\nq1 0 d3 0\\n")
    >>> rkio.read_trec_qrels(path).collect()
    shape: (2, 3)
    ┌───────┬──────┬───────────┐
    │ query ┆ item ┆ relevance │
    │ ---   ┆ ---  ┆ ---       │
    │ str   ┆ str  ┆ i64       │
    ╞═══════╪══════╪═══════════╡
    │ q1    ┆ d1   ┆ 2         │
    │ q1    ┆ d3   ┆ 0         │
    └───────┴──────┴───────────┘
    >>> _ = path.write_text("q1 0 d1 0.5\\n")
    >>> rkio.read_trec_qrels(path).collect()["relevance"].to_list()
    [0.5]
    >>> _ = path.write_text("q1 1 d1 1\\nq1 2 d1 0\\n")
    >>> rkio.read_trec_qrels(path, subtopics=True).collect().rows()
    [('q1', '1', 'd1', 1), ('q1', '2', 'd1', 0)]
    """
    warn_if_an_id_spells_a_byte_escape(path)
    fields = _fields_read(path, 4, trailing=False, wanted=[0, 1, 2, 3])
    if fields is not None:
        extra = [pl.col("1").alias("subtopic")] if subtopics else []
        parsed = _grades(fields, pl.col("0"), pl.col("2"), pl.col("3"), *extra)
        if not parsed.select(_INVALID_GRADE.any()).item():
            return _graded(parsed, subtopics)
    lines = _split_lines(path)  # and a malformed line's error
    _raise_first(
        lines,
        pl.col(_N_FIELDS) != 4,
        path,
        f"expected 4 whitespace-separated fields {_QRELS_LAYOUT}",
    )
    parsed = _grades(
        lines,
        pl.col(_FIELDS).list.get(0),
        pl.col(_FIELDS).list.get(2),
        pl.col(_FIELDS).list.get(3),
        pl.col(_LINE_NO),
        pl.col(_LINE),
        *([pl.col(_FIELDS).list.get(1).alias("subtopic")] if subtopics else []),
    )
    _raise_first(parsed, _INVALID_GRADE, path, "the relevance (4th field) is not a finite number")
    return _graded(parsed, subtopics)


#: A grade is valid when it is a finite number; integers must fit in Int64.
_INVALID_GRADE = (
    pl.col("__float").is_null()
    | ~pl.col("__float").is_finite()
    | (pl.col("__is_int") & pl.col("__int").is_null())
)


def _grades(
    frame: pl.DataFrame, query: pl.Expr, item: pl.Expr, text: pl.Expr, *extra: pl.Expr
) -> pl.DataFrame:
    """query, item and the grade's text read as an integer and as a float."""
    return frame.select(
        *extra,
        query.alias("query"),
        item.alias("item"),
        text.str.contains(_INT_PATTERN).alias("__is_int"),
        text.cast(pl.Float64, strict=False).alias("__float"),
        text.cast(pl.Int64, strict=False).alias("__int"),
    )


def _graded(parsed: pl.DataFrame, subtopics: bool = False) -> pl.LazyFrame:
    """query, (subtopic,) item, relevance: Int64 when every grade is an integer, else
    Float64."""
    all_int = bool(parsed.get_column("__is_int").all()) if parsed.height else True
    relevance = pl.col("__int") if all_int else pl.col("__float")
    subtopic = ["subtopic"] if subtopics else []
    return parsed.select("query", *subtopic, "item", relevance.alias("relevance")).lazy()


def write_trec_run(
    frame: pl.DataFrame | pl.LazyFrame,
    path: PathLike,
    *,
    group_by: str = "query",
    item: str = "item",
    score: str = "score",
    tag: str = "rankk",
) -> None:
    """Write candidates as a TREC run file (``query Q0 item rank score tag``).

    Rows are written per group in trec_eval's order — score descending, ties by item id
    descending in byte order — and ``rank`` is the 1-based position in that order, so the
    file reads back (with :func:`read_trec_run`) to the same ranking under
    ``Policy.trec_eval()``.

    Parameters
    ----------
    frame
        Candidates with a group column, an item column and a numeric score column.
    path
        Destination file (overwritten).
    group_by, item, score
        Column names in ``frame``. Group and item values are written as strings and must
        not contain ASCII whitespace; a group value must not start with ``#`` (it would
        read back as a comment).
    tag
        The run tag written in the last field (no ASCII whitespace).

    Raises
    ------
    ValueError
        The tag, a group value or an item value contains ASCII whitespace or is empty, or
        a group value starts with ``#``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars as pl
    >>> from polars_rankk import io as rkio
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.trec"
    >>> df = pl.DataFrame({"query": ["q1", "q1", "q1"], "item": ["a", "b", "c"],
    ...                    "score": [0.5, 0.9, 0.5]})
    >>> rkio.write_trec_run(df, path, tag="demo")
    >>> print(path.read_text(), end="")
    q1 Q0 b 1 0.9 demo
    q1 Q0 c 2 0.5 demo
    q1 Q0 a 3 0.5 demo
    >>> rkio.read_trec_run(path).collect().shape
    (3, 3)
    """
    if not tag or any(ch in _ASCII_SPACE for ch in tag):
        raise ValueError(f"the run tag must be non-empty and contain no whitespace; got {tag!r}")
    out = (
        frame.lazy()
        .select(
            pl.col(group_by).cast(pl.String).alias("__q"),
            pl.col(item).cast(pl.String).alias("__item"),
            pl.col(score).cast(pl.Float64).alias("__score"),
        )
        .with_columns(pl.col("__item").cast(pl.Binary).alias("__item_bytes"))
        .sort(
            ["__q", "__score", "__item_bytes"],
            descending=[False, True, True],
            maintain_order=True,
        )
        .with_columns(pl.int_range(1, pl.len() + 1).over("__q").alias("__rank"))
        .collect()
    )
    bad_text = (
        pl.col("__q").is_null()
        | pl.col("__item").is_null()
        | (pl.col("__q") == "")
        | (pl.col("__item") == "")
        | pl.col("__q").str.contains(_SPACE_RUN)
        | pl.col("__item").str.contains(_SPACE_RUN)
        | pl.col("__q").str.starts_with("#")
    )
    bad = out.filter(bad_text).head(1)
    if bad.height:
        raise ValueError(
            "TREC run fields must be non-empty and contain no whitespace, and a group must "
            "not start with '#' (a comment in TREC files); got "
            f"{group_by}={bad.item(0, '__q')!r}, {item}={bad.item(0, '__item')!r}"
        )
    lines = out.select(
        pl.concat_str(
            [
                pl.col("__q"),
                pl.lit("Q0"),
                pl.col("__item"),
                pl.col("__rank").cast(pl.String),
                pl.col("__score").cast(pl.String),
                pl.lit(tag),
            ],
            separator=" ",
        ).alias("line")
    )
    lines.write_csv(Path(path), include_header=False, quote_style="never")
