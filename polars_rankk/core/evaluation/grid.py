"""Results as tables: plain, Markdown, LaTeX and HTML.

A `Grid` is a table of numbers with row and column labels, the best value of each column
marked bold and optional marks (significance letters) per cell. `polars_rankk.tables` builds
grids from summaries, systems and comparisons; `Evaluation` uses them for its displays
(`polars_rankk.core.evaluation.display`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl

from polars_rankk.core.metrics.registry import METRICS, higher_is_better

LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


@dataclass(frozen=True)
class Grid:
    """Numbers under labels, the best per column in bold, marks per cell, notes below."""

    corner: str
    rows: list[str]
    columns: list[str]
    values: list[list[float | None]]
    marks: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bold_best: bool = True
    #: Per cell, an interval (low, high) shown after the value, or None.
    intervals: list[list[tuple[float | None, float | None] | None]] = field(default_factory=list)
    #: Intervals of differences (signed, ``[+0.01, +0.05]``) rather than of values.
    signed_intervals: bool = False

    def best(self) -> list[list[bool]]:
        """Cells holding their column's best value: the largest, or the smallest where the
        column's metric (``metric@k`` or ``metric``) is declared lower-is-better."""
        flags = [[False] * len(self.columns) for _ in self.rows]
        if not self.bold_best or len(self.rows) < 2:
            return flags
        for j in range(len(self.columns)):
            column = [v for row in self.values if (v := row[j]) is not None and not math.isnan(v)]
            if not column:
                continue
            metric = self.columns[j].partition("@")[0]
            top = max(column) if higher_is_better(metric) else min(column)
            for i, row in enumerate(self.values):
                flags[i][j] = row[j] == top
        return flags

    def mark(self, i: int, j: int) -> str:
        return self.marks[i][j] if self.marks else ""

    def interval(self, i: int, j: int, digits: int) -> str:
        """``[low, high]`` of cell (i, j), or an empty string."""
        bounds = self.intervals[i][j] if self.intervals else None
        if bounds is None or bounds[0] is None or bounds[1] is None:
            return ""
        sign = "+" if self.signed_intervals else ""
        low, high = (f"{v:{sign}.{digits}f}" for v in bounds)
        return f"[{low}, {high}]"


def counted(n: float, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,000 rows``: a number and its noun, singular when one (an
    expected count that is not whole, ``1.50 rows``, with two decimals).

    Examples
    --------
    >>> from polars_rankk.core.evaluation.grid import counted
    >>> counted(1, "group"), counted(12000, "row"), counted(2, "query", "queries")
    ('1 group', '12,000 rows', '2 queries')
    """
    shown = f"{n:,}" if float(n).is_integer() else f"{n:,.2f}"
    return f"{shown.removesuffix('.0')} {noun if n == 1 else plural or noun + 's'}"


def number(value: object, digits: int = 4, missing: str = "") -> str:
    """The one number format of every table (text, Markdown, LaTeX, HTML, the report): a float
    with `digits` decimals (in scientific notation when it would print as zero), ``NaN`` when
    undefined, an integer with thousands separators, `missing` for None.

    Examples
    --------
    >>> from polars_rankk.core.evaluation.grid import number
    >>> number(0.5), number(float("nan")), number(1234567), number(3e-7), number(None, missing="–")
    ('0.5000', 'NaN', '1,234,567', '3.00e-07', '–')
    """
    if value is None:
        return missing
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.2e}"
        return f"{value:.{digits}f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def escape(value: object) -> str:
    """HTML-escape any value for text or attribute content."""
    return html.escape("" if value is None else str(value), quote=True)


class Cell(str):
    """Pre-escaped HTML cell content with a CSS class."""

    css: str = ""

    def __new__(cls, content: str, css: str = "") -> Cell:
        cell = super().__new__(cls, content)
        cell.css = css
        return cell


def html_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    text_columns: int = 1,
    raw: bool = False,
) -> str:
    """The one HTML table builder (notebook displays, tables, the report): cells are escaped
    and numbers formatted by `number`, unless `raw` (cells then come pre-escaped, a `Cell`
    with its CSS class)."""
    head = "".join(
        f'<th class="text">{escape(h)}</th>' if i < text_columns else f"<th>{escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if raw:
                content = str(cell)
            elif i < text_columns:
                content = escape(cell)
            else:
                content = escape(number(cell, missing="–"))
            css = ' class="text"' if i < text_columns else ""
            if raw and isinstance(cell, Cell):
                css = f' class="{cell.css}"' if cell.css else css
            cells.append(f"<td{css}>{content}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
        + "".join(body)
        + "</tbody></table></div>"
    )


def to_text(grid: Grid, digits: int = 4) -> str:
    """Aligned plain text (no markup), for ``repr``."""
    cells = [
        [
            f"{number(v, digits)}{grid.mark(i, j)} {grid.interval(i, j, digits)}".strip()
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(grid.values)
    ]
    head = [grid.corner, *grid.columns]
    body = [[label, *row] for label, row in zip(grid.rows, cells, strict=True)]
    widths = [max(len(line[c]) for line in [head, *body]) for c in range(len(head))]
    lines = [
        "  ".join(
            cell.ljust(widths[c]) if c == 0 else cell.rjust(widths[c])
            for c, cell in enumerate(line)
        ).rstrip()
        for line in [head, *body]
    ]
    return "\n".join([*lines, *grid.notes])


def to_markdown(grid: Grid, digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table; the best per column in bold, marks as superscripts."""
    best = grid.best()

    def cell(i: int, j: int) -> str:
        text = number(grid.values[i][j], digits)
        text = f"**{text}**" if best[i][j] and text else text
        mark = grid.mark(i, j)
        interval = grid.interval(i, j, digits)
        return text + (f"<sup>{mark}</sup>" if mark else "") + (f" {interval}" if interval else "")

    escape = str.maketrans({"|": r"\|"})
    lines = [
        "| " + " | ".join(c.translate(escape) for c in [grid.corner, *grid.columns]) + " |",
        "|" + "|".join([":---", *["---:"] * len(grid.columns)]) + "|",
    ]
    for i, label in enumerate(grid.rows):
        row = [label.translate(escape), *(cell(i, j) for j in range(len(grid.columns)))]
        lines.append("| " + " | ".join(row) + " |")
    if grid.notes:
        lines += ["", *grid.notes]
    return "\n".join(lines)


def latex_escape(text: str) -> str:
    return "".join(LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(
    grid: Grid, digits: int = 4, caption: str | None = None, label: str | None = None
) -> str:
    """A LaTeX ``table`` (booktabs rules); the best per column in ``\\textbf``, marks as
    superscripts, the notes as the caption when none is given."""
    best = grid.best()

    def cell(i: int, j: int) -> str:
        text = number(grid.values[i][j], digits)
        text = rf"\textbf{{{text}}}" if best[i][j] and text else text
        mark = grid.mark(i, j)
        interval = grid.interval(i, j, digits)
        return (
            text
            + (rf"$^{{\mathrm{{{mark}}}}}$" if mark else "")
            + (rf" {{\scriptsize {interval}}}" if interval else "")
        )

    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{l" + "r" * len(grid.columns) + "}",
        r"\toprule",
        " & ".join(latex_escape(c) for c in [grid.corner, *grid.columns]) + r" \\",
        r"\midrule",
    ]
    for i, name in enumerate(grid.rows):
        cells = [latex_escape(name), *(cell(i, j) for j in range(len(grid.columns)))]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    text = caption if caption is not None else " ".join(grid.notes)
    if text:
        lines.append(rf"\caption{{{latex_escape(text)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


def to_html(grid: Grid, digits: int = 4) -> str:
    """An HTML table (escaped), the best per column in bold, for notebooks."""
    best = grid.best()
    rows = []
    for i, name in enumerate(grid.rows):
        cells: list[object] = [Cell(escape(name), "text")]
        for j, value in enumerate(grid.values[i]):
            text = escape(number(value, digits))
            text = f"<b>{text}</b>" if best[i][j] and text else text
            mark = grid.mark(i, j)
            cells.append(Cell(text + (f"<sup>{escape(mark)}</sup>" if mark else "")))
        rows.append(cells)
    notes = "".join(f"<p>{escape(n)}</p>" for n in grid.notes)
    return html_table([grid.corner, *grid.columns], rows, raw=True) + notes


def summary_grid(summary: pl.DataFrame) -> Grid:
    """A summary (``metric, k, value``) as metrics × K; the rows without a K (r_precision,
    bpref, the set measures, trec_eval's ``map``) in the ``whole list`` column."""
    ks = sorted(int(k) for k in summary.get_column("k").drop_nulls().unique().to_list())
    present = summary.get_column("metric").unique().to_list()
    metrics = [m for m in METRICS if m in present] + sorted(m for m in present if m not in METRICS)
    has_r = summary.get_column("k").null_count() > 0
    columns = [f"@{k}" for k in ks] + (["whole list"] if has_r else [])
    lookup = {
        (str(m), None if k is None else int(k)): v
        for m, k, v in summary.select("metric", "k", "value").iter_rows()
    }
    positions: list[int | None] = [*ks, *([None] if has_r else [])]
    values = [[lookup.get((m, k)) for k in positions] for m in metrics]
    intervals: list[list[tuple[float | None, float | None] | None]] = []
    if {"ci_low", "ci_high"} <= set(summary.columns):
        bounds = {
            (str(m), None if k is None else int(k)): (low, high)
            for m, k, low, high in summary.select("metric", "k", "ci_low", "ci_high").iter_rows()
        }
        intervals = [[bounds.get((m, k)) for k in positions] for m in metrics]
    return Grid("metric", metrics, columns, values, bold_best=False, intervals=intervals)


def evaluation_grid(summary: pl.DataFrame, system: str | None = None) -> Grid:
    """An evaluation's summary as a grid: metrics × K for one system; for several (a summary
    whose `system` column comes first), systems × ``metric@K``, every system on its own row.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.evaluation.grid import evaluation_grid
    >>> summary = pl.DataFrame({"run": ["A", "B"], "metric": "ndcg", "k": 10,
    ...                         "value": [0.3, 0.4]})
    >>> grid = evaluation_grid(summary, "run")
    >>> grid.corner, grid.rows, grid.columns, grid.values
    ('run', ['A', 'B'], ['ndcg@10'], [[0.3], [0.4]])
    """
    if system is None:
        return summary_grid(summary)
    names = [str(name) for name in summary.get_column(system).unique(maintain_order=True)]
    per_system = {
        str(name): summary_grid(part)
        for (name,), part in summary.group_by(system, maintain_order=True)
    }
    first = summary_grid(summary)  # every (metric, K) any system has, in the library's order
    columns = [
        f"{metric}{'' if column == 'whole list' else column}"
        for metric in first.rows
        for column in first.columns
    ]
    values: list[list[float | None]] = []
    for name in names:
        grid = per_system[name]
        cells = {
            (metric, column): grid.values[i][j]
            for i, metric in enumerate(grid.rows)
            for j, column in enumerate(grid.columns)
        }
        values.append([cells.get((m, c)) for m in first.rows for c in first.columns])
    kept = [j for j in range(len(columns)) if any(row[j] is not None for row in values)]
    return Grid(
        system,
        names,
        [columns[j] for j in kept],
        [[row[j] for j in kept] for row in values],
        notes=["Bold: the best per column."],
    )
