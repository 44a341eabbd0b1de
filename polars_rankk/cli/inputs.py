"""Files in and tables out for the ``rankk`` command (not public: see `polars_rankk.cli`)."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import polars as pl
from rich.console import Console
from rich.table import Table

InputFormat = Literal["auto", "parquet", "csv", "tsv", "trec"]
OutputFormat = Literal["table", "csv", "parquet", "json"]
Kind = Literal["run", "qrels"]


def parse_k(text: str) -> list[int]:
    """Parse ``--k``: a list (``5,10,20``), a range (``1-20`` or ``1..20``), or both.

    Examples
    --------
    >>> from polars_rankk.cli.app import parse_k
    >>> parse_k("1-3,10")
    [1, 2, 3, 10]
    >>> parse_k("10, 5")
    [5, 10]
    >>> parse_k("0")
    Traceback (most recent call last):
    ...
    ValueError: --k takes positive integers, lists (5,10) and ranges (1-20); got '0'
    """
    values: set[int] = set()
    for part in text.split(","):
        piece = part.strip()
        match = re.fullmatch(r"(\d+)\s*(?:-|\.\.)\s*(\d+)", piece)
        if match:
            low, high = int(match.group(1)), int(match.group(2))
            if low < 1 or high < low:
                raise ValueError(f"--k range {piece!r} must be 1 <= low <= high")
            values.update(range(low, high + 1))
        elif piece.isdigit() and int(piece) >= 1:
            values.add(int(piece))
        else:
            raise ValueError(
                f"--k takes positive integers, lists (5,10) and ranges (1-20); got {text!r}"
            )
    return sorted(values)


def split_names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    return names or None


def format_of(path: Path, fmt: InputFormat) -> InputFormat:
    if fmt != "auto":
        return fmt
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    return "trec"


def read_input(
    path: Path,
    kind: Kind,
    fmt: InputFormat = "auto",
    *,
    group_by: Sequence[str] = ("query",),
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
) -> pl.DataFrame:
    """Read candidates (``kind="run"``) or truth (``"qrels"``) from Parquet, CSV, TSV or TREC.

    TREC columns are renamed to the names given (``query`` → the single group key, ``item``,
    ``score``, ``relevance``), so TREC and table files mix.
    """
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    chosen = format_of(path, fmt)
    if chosen == "parquet":
        return pl.read_parquet(path)
    if chosen in ("csv", "tsv"):
        return pl.read_csv(
            path, separator="," if chosen == "csv" else "\t", infer_schema_length=10_000
        )
    from polars_rankk.io import read_trec_qrels, read_trec_run

    frame = (read_trec_run(path) if kind == "run" else read_trec_qrels(path)).collect()
    if len(group_by) != 1:
        raise ValueError(
            f"{path}: a TREC file has one group column (query); got --group-by {','.join(group_by)}"
        )
    names = {"query": group_by[0], "item": item, "score": score, "relevance": relevance}
    return frame.rename({old: new for old, new in names.items() if old in frame.columns})


def align_types(frames: Sequence[pl.DataFrame], columns: Sequence[str]) -> list[pl.DataFrame]:
    """Give id columns one dtype across files: text files lose types (``301`` read from CSV is
    an integer, from TREC a string), so where they disagree every side becomes a string."""
    out = list(frames)
    for column in columns:
        dtypes = {f.schema[column] for f in out if column in f.columns}
        if len(dtypes) > 1:
            out = [
                f.with_columns(pl.col(column).cast(pl.String)) if column in f.columns else f
                for f in out
            ]
    return out


def label(metric: str, k: int | None) -> str:
    return metric if k is None else f"{metric}@{k}"


def print_summary(console: Console, summary: pl.DataFrame, title: str) -> None:
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("metric")
    table.add_column("k", justify="right")
    table.add_column("value", justify="right")
    has_ci = "ci_low" in summary.columns
    if has_ci:
        table.add_column("CI", justify="right")
    table.add_column("groups", justify="right")
    for row in summary.iter_rows(named=True):
        value = row["value"]
        cells = [
            str(row["metric"]),
            "" if row["k"] is None else str(row["k"]),
            "–" if value is None else f"{value:.4f}",
        ]
        if has_ci:
            low, high = row.get("ci_low"), row.get("ci_high")
            cells.append("" if low is None else f"[{low:.4f}, {high:.4f}]")
        cells.append(f"{row['n_groups']:,}")
        table.add_row(*cells)
    console.print(table)


def print_wide(console: Console, wide: pl.DataFrame, title: str) -> None:
    table = Table(title=title, title_justify="left", header_style="bold")
    for index, name in enumerate(wide.columns):
        table.add_column(name, justify="left" if index == 0 else "right")
    for row in wide.iter_rows():
        table.add_row(str(row[0]), *("–" if v is None else f"{v:.4f}" for v in row[1:]))
    console.print(table)


def print_comparison(console: Console, cmp: pl.DataFrame, baseline: str) -> None:
    table = Table(
        title=f"Paired differences vs {baseline} (system − baseline)",
        title_justify="left",
        header_style="bold",
    )
    table.add_column("metric", no_wrap=True)
    table.add_column("system", no_wrap=True)
    for name in ("diff", "CI", "p", "p adj.", "groups"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in cmp.iter_rows(named=True):
        low, high = row["ci_low"], row["ci_high"]
        table.add_row(
            label(row["metric"], row["k"]),
            str(row["system"]),
            "–" if row["diff"] is None else f"{row['diff']:+.4f}",
            "" if low is None else f"[{low:+.4f}, {high:+.4f}]",
            p_value(row["p_value_randomization"]),
            p_value(row["p_adjusted"]),
            f"{row['n_groups']:,}",
        )
    console.print(table)
    console.print(
        "p: paired randomization test; p adj.: Holm-corrected over all rows",
        style="dim",
        highlight=False,
    )


def p_value(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "–"
    if value == 0:
        return "0"
    return f"{value:.1e}" if value < 1e-3 else f"{value:.4f}"


def write_output(
    frame: pl.DataFrame,
    output: Path | None,
    fmt: OutputFormat | None,
    meta: dict[str, Any],
    show: Callable[[], None],
) -> None:
    """Write `frame` in the chosen format, to `output` or stdout; `show` prints a table."""
    chosen: OutputFormat
    if fmt is not None:
        chosen = fmt
    elif output is None:
        chosen = "table"
    else:
        suffix = output.suffix.lower()
        formats: dict[str, OutputFormat] = {
            ".csv": "csv",
            ".parquet": "parquet",
            ".pq": "parquet",
            ".json": "json",
        }
        if suffix not in formats:
            raise ValueError(
                f"cannot tell the output format of {output.name!r}: use .csv, .parquet or "
                ".json, or --output-format"
            )
        chosen = formats[suffix]
    if chosen == "table":
        if output is not None:
            raise ValueError("--output-format table prints to the terminal; drop --output")
        show()
    elif chosen == "parquet":
        if output is None:
            raise ValueError("Parquet output needs a file: --output results.parquet")
        frame.write_parquet(output)
    elif chosen == "csv":
        text = frame.write_csv()
        emit(text, output)
    else:
        document = {**meta, "rows": frame.to_dicts()}
        emit(json.dumps(document, indent=2, default=str) + "\n", output)


def emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def group_keys_for(group_by: str | None, inputs: Sequence[Path], fmt: InputFormat) -> list[str]:
    """Check the input files exist; the group keys (default 'query' for TREC inputs)."""
    for path in inputs:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    keys = split_names(group_by)
    if keys is not None:
        return keys
    if all(format_of(path, fmt) == "trec" for path in inputs):
        return ["query"]
    raise ValueError("--group-by is required (the group key column(s), e.g. --group-by user)")


def attributes_table(path: Path | None) -> pl.DataFrame | None:
    if path is None:
        return None
    if format_of(path, "auto") == "trec":
        raise ValueError(f"{path}: --attributes must be a .parquet, .csv or .tsv table")
    return read_input(path, "qrels")


def unique_name(name: str, taken: dict[str, Any]) -> str:
    if name in taken:
        raise ValueError(f"two systems are named {name!r}; name runs with NAME=PATH")
    return name


def parse_runs(runs: list[str]) -> dict[str, Path]:
    paths: dict[str, Path] = {}
    for run in runs:
        name, sep, rest = run.partition("=")
        if sep and name and not Path(run).exists():
            path = Path(rest)
        else:
            name, path = Path(run).stem, Path(run)
        paths[unique_name(name, paths)] = path
    return paths
