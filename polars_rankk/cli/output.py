"""Tables out: a boxed table for people, CSV, JSON, Markdown or Parquet; always complete.

Nothing is truncated or wrapped to a width: a table has the width its cells need, on a
terminal and through a pipe alike. Cells are formatted with Polars expressions, so printing
a per-group table of a million rows stays fast.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankk.cli.options import OutputFormat
from polars_rankk.cli.wording import count


@dataclass(frozen=True)
class View:
    """A titled table of text cells, drawn on a terminal (`box_table`) or as Markdown."""

    title: str
    cells: pl.DataFrame
    right: frozenset[str] = frozenset()
    note: str | None = None


@dataclass(frozen=True)
class Result:
    """What a command produced: the data (`frame`), how people read it (`views`), and the
    settings recorded with it in JSON (`meta`)."""

    what: str
    frame: pl.DataFrame
    views: list[View]
    meta: dict[str, Any]


def fixed(expr: pl.Expr, digits: int = 4, *, signed: bool = False) -> pl.Expr:
    """A number as text with `digits` decimals (``–`` for null, ``NaN``, ``inf``).

    The value is scaled and rounded half away from zero, so an exact decimal tie may end one
    unit away from Python's ``format`` (which rounds the binary value half to even).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.cli.output import fixed
    >>> values = pl.DataFrame({"x": [0.12346, -0.5, None, float("nan")]})
    >>> values.select(fixed(pl.col("x")))["x"].to_list()
    ['0.1235', '-0.5000', '–', 'NaN']
    """
    scale = 10**digits
    scaled = (expr * scale).round().cast(pl.Int64, strict=False)
    whole = (scaled.abs() // scale).cast(pl.String)
    fraction = (scaled.abs() % scale).cast(pl.String).str.zfill(digits)
    sign = pl.when(scaled < 0).then(pl.lit("-")).otherwise(pl.lit("+" if signed else ""))
    number = pl.concat_str([sign, whole, pl.lit("."), fraction])
    value = expr.cast(pl.Float64)
    return (
        pl.when(value.is_null())
        .then(pl.lit("–"))
        .when(value.is_nan())
        .then(pl.lit("NaN"))
        .when(value.is_infinite())
        .then(pl.when(value > 0).then(pl.lit("inf")).otherwise(pl.lit("-inf")))
        .otherwise(number)
        .name.keep()
    )


def p_text(expr: pl.Expr) -> pl.Expr:
    """A p-value as text: four decimals, ``<0.0001`` below that, ``–`` when missing."""
    value = expr.cast(pl.Float64)
    return (
        pl.when(value.is_not_null() & ~value.is_nan() & (value < 1e-4))
        .then(pl.lit("<0.0001"))
        .otherwise(fixed(value))
        .name.keep()
    )


def plain(expr: pl.Expr) -> pl.Expr:
    """Any value as text, empty when null."""
    return expr.cast(pl.String).fill_null("")


def metric_label() -> pl.Expr:
    """``metric@k`` (the metric alone when it has no K), as the column ``metric``."""
    label = pl.format("{}@{}", pl.col("metric"), pl.col("k"))
    return pl.when(pl.col("k").is_null()).then(pl.col("metric")).otherwise(label).alias("metric")


def frame_view(frame: pl.DataFrame, title: str) -> View:
    """Every column of `frame` as text: floats with four decimals, numbers right-aligned."""
    schema = frame.schema
    cells = frame.select(
        fixed(pl.col(name)) if dtype.is_float() else plain(pl.col(name))
        for name, dtype in schema.items()
    )
    right = frozenset(name for name, dtype in schema.items() if dtype.is_numeric())
    return View(title, cells, right)


def _padded(view: View, widths: dict[str, int]) -> list[pl.Expr]:
    return [
        pl.col(name).str.pad_start(widths[name])
        if name in view.right
        else pl.col(name).str.pad_end(widths[name])
        for name in view.cells.columns
    ]


def _widths(view: View) -> dict[str, int]:
    cells = view.cells
    longest = (
        cells.select(pl.all().str.len_chars().max()).row(0, named=True) if cells.height else {}
    )
    return {name: max(len(name), longest.get(name) or 0) for name in cells.columns}


def _lines(view: View, padded: list[pl.Expr], left: str, middle: str, end: str) -> list[str]:
    parts: list[pl.Expr] = [pl.lit(left)]
    for index, expr in enumerate(padded):
        parts += [expr, pl.lit(end if index == len(padded) - 1 else middle)]
    return view.cells.select(pl.concat_str(parts).alias("line")).to_series().to_list()


def box_table(view: View) -> str:
    """The view as a table drawn with box characters, every cell in full.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.cli.output import View, box_table
    >>> cells = pl.DataFrame({"metric": ["ndcg"], "k": ["10"]})
    >>> print(box_table(View("Mean", cells, frozenset({"k"}))), end="")
    Mean
    ┏━━━━━━━━┳━━━━┓
    ┃ metric ┃  k ┃
    ┡━━━━━━━━╇━━━━┩
    │ ndcg   │ 10 │
    └────────┴────┘
    """
    widths = _widths(view)
    names = view.cells.columns
    rules = ["━" * (widths[name] + 2) for name in names]
    header = [
        name.rjust(widths[name]) if name in view.right else name.ljust(widths[name])
        for name in names
    ]
    lines = [
        view.title,
        "┏" + "┳".join(rules) + "┓",
        "┃ " + " ┃ ".join(header) + " ┃",
        "┡" + "╇".join(rules) + "┩",
        *_lines(view, _padded(view, widths), "│ ", " │ ", " │"),
        "└" + "┴".join("─" * (widths[name] + 2) for name in names) + "┘",
    ]
    if view.note:
        lines.append(view.note)
    return "\n".join(lines) + "\n"


def markdown_table(view: View) -> str:
    """The view as a Markdown (GitHub) table under its title in bold.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.cli.output import View, markdown_table
    >>> cells = pl.DataFrame({"metric": ["ndcg"], "k": ["10"]})
    >>> print(markdown_table(View("Mean", cells, frozenset({"k"}))), end="")
    **Mean**
    <BLANKLINE>
    | metric | k |
    | --- | ---: |
    | ndcg | 10 |
    """
    names = view.cells.columns
    escaped = View(
        view.title, view.cells.select(pl.all().str.replace_all("|", r"\|", literal=True))
    )
    header = "| " + " | ".join(name.replace("|", r"\|") for name in names) + " |"
    rule = "| " + " | ".join("---:" if name in view.right else "---" for name in names) + " |"
    identity = [pl.col(name) for name in names]
    lines = [f"**{view.title}**", "", header, rule, *_lines(escaped, identity, "| ", " | ", " |")]
    if view.note:
        lines += ["", f"_{view.note}_"]
    return "\n".join(lines) + "\n"


_SUFFIXES: dict[str, OutputFormat] = {
    ".csv": "csv",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".txt": "table",
}


def choose_format(chosen: OutputFormat | None, output: Path | None, terminal: bool) -> OutputFormat:
    """The output format: the one chosen, else from `output`'s extension, else a table on a
    terminal and CSV when stdout is a pipe or a file.

    Examples
    --------
    >>> from pathlib import Path
    >>> from polars_rankk.cli.output import choose_format
    >>> choose_format(None, None, terminal=True), choose_format(None, None, terminal=False)
    ('table', 'csv')
    >>> choose_format(None, Path("summary.md"), terminal=True)
    'markdown'
    """
    if chosen is not None:
        if chosen == "parquet" and output is None:
            raise ValueError("Parquet output needs a file: --output results.parquet")
        return chosen
    if output is None:
        return "table" if terminal else "csv"
    suffix = output.suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(
            f"cannot tell the output format of {output.name!r}: use .csv, .json, .md, .parquet "
            f"or .txt, or --format"
        )
    return _SUFFIXES[suffix]


def _json(result: Result) -> str:
    # The rows come from Polars' own writer (fast, and NaN becomes null), spliced after meta.
    head = json.dumps(result.meta, indent=2, default=str)
    rows = result.frame.write_json()
    return head[: head.rindex("}")].rstrip() + f',\n  "rows": {rows}\n}}\n'


def render(result: Result, fmt: OutputFormat) -> str:
    """The result as text in a text format (everything but Parquet)."""
    if fmt == "csv":
        return result.frame.write_csv()
    if fmt == "json":
        return _json(result)
    draw = box_table if fmt == "table" else markdown_table
    return "\n".join(draw(view) for view in result.views)


def write_result(result: Result, output: Path | None, chosen: OutputFormat | None) -> None:
    """Write the result in the chosen format to `output`, or to stdout."""
    fmt = choose_format(chosen, output, terminal=sys.stdout.isatty())
    if output is None:
        sys.stdout.write(render(result, fmt))
        return
    try:
        if fmt == "parquet":
            result.frame.write_parquet(output)
        else:
            output.write_text(render(result, fmt), encoding="utf-8")
    except OSError as error:
        raise OSError(f"{output}: cannot write the {result.what} ({error.strerror})") from None
    sys.stderr.write(f"{result.what} written to {output} ({count(result.frame.height, 'row')})\n")
