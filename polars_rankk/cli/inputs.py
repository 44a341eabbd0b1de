"""Reading the command's files, and the checks that name the file when something is wrong.

Text files (CSV, TSV, TREC) hold ids as text, so their id columns are read as strings and never
guessed as numbers. Where a typed file (Parquet) holds integer ids and a text file the same
ids as digits, the text ids are parsed as integers when every one reads back unchanged;
otherwise the command stops and names both files. Ids are never cast to strings to match.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl

from polars_rankk.cli.options import TRUNCATES_TREC_GRADES, InputFormat, split_names
from polars_rankk.cli.wording import in_cli_terms
from polars_rankk.core import example_row
from polars_rankk.core.inputs.spec import DEFAULT_RELEVANCE, label_columns

Kind = Literal["run", "qrels", "table"]


@dataclass(frozen=True)
class Columns:
    """The column names the user chose (``score`` is ``None`` when ranking by ``rank``)."""

    keys: list[str]
    item: str
    score: str | None
    rank: str | None
    relevance: str
    #: The truth's subtopic column (TREC qrels: the second field), for the subtopic metrics.
    subtopic: str | None = None

    @property
    def order(self) -> str:
        """The column that orders the candidates."""
        return self.rank if self.rank is not None else self.score or "score"


@dataclass(frozen=True)
class Source:
    """A table read from a file, and what the command calls it (``CANDIDATES``, ``TRUTH`` …)."""

    path: Path
    role: str
    frame: pl.DataFrame
    #: True when the file stores types (Parquet); text files store every id as text.
    typed: bool

    @property
    def label(self) -> str:
        return f"{self.path} ({self.role})"

    def replace(self, frame: pl.DataFrame) -> Source:
        return Source(self.path, self.role, frame, self.typed)


def warn(message: str) -> None:
    """One line on stderr, ``rankk: warning: …``."""
    sys.stderr.write(f"rankk: warning: {in_cli_terms(' '.join(message.split()))}\n")


def format_of(path: Path, chosen: InputFormat) -> InputFormat:
    """The input format: the one chosen, else from the extension (TREC when unknown).

    Examples
    --------
    >>> from pathlib import Path
    >>> from polars_rankk.cli.inputs import format_of
    >>> format_of(Path("run.pq"), "auto"), format_of(Path("run.txt"), "auto")
    ('parquet', 'trec')
    """
    if chosen != "auto":
        return chosen
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    return "trec"


def group_keys_for(group_by: str | None, inputs: Sequence[Path], chosen: InputFormat) -> list[str]:
    """Check the input files exist; the group keys (default ``query`` when all are TREC)."""
    for path in inputs:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    keys = split_names(group_by)
    if keys is not None:
        return keys
    if all(format_of(path, chosen) == "trec" for path in inputs):
        return ["query"]
    raise ValueError("--group-by is required (the group key column(s), e.g. --group-by user)")


def read_source(path: Path, role: str, kind: Kind, chosen: InputFormat, columns: Columns) -> Source:
    """Read one file, refusing an empty one; every error names the file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    fmt = format_of(path, chosen)
    if fmt == "parquet":
        frame = _read_parquet(path)
    elif fmt in ("csv", "tsv"):
        frame = _read_text_table(path, "," if fmt == "csv" else "\t", [*columns.keys, columns.item])
    else:
        frame = _read_trec(path, role, kind, columns)
    if frame.height == 0:
        what = {"parquet": "no rows", "trec": "no lines"}.get(fmt, "a header but no rows")
        raise ValueError(f"{path}: the file is empty ({what}); there is nothing to evaluate")
    return Source(path, role, frame, typed=fmt == "parquet")


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _read_parquet(path: Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise ValueError(f"{path}: not a readable Parquet file ({_first_line(error)})") from None


def _read_text_table(path: Path, separator: str, ids: Sequence[str]) -> pl.DataFrame:
    name = "CSV" if separator == "," else "TSV"
    try:
        header = pl.read_csv(path, separator=separator, n_rows=0).columns
        text_ids = {column: pl.String for column in ids if column in header}
        return pl.read_csv(
            path, separator=separator, schema_overrides=text_ids, infer_schema_length=10_000
        )
    except pl.exceptions.NoDataError:
        raise ValueError(
            f"{path}: the file is empty (no header, no rows); there is nothing to evaluate"
        ) from None
    except (pl.exceptions.PolarsError, OSError) as error:
        raise ValueError(f"{path}: not a readable {name} file ({_first_line(error)})") from None


def _read_trec(path: Path, role: str, kind: Kind, columns: Columns) -> pl.DataFrame:
    from polars_rankk.io import read_trec_qrels, read_trec_run

    if kind == "table":
        raise ValueError(f"{path} ({role}) must be a .parquet, .csv or .tsv table")
    if len(columns.keys) != 1:
        raise ValueError(
            f"{path}: a TREC file has one group column (query); got --group-by "
            f"{','.join(columns.keys)}"
        )
    try:
        if kind == "run":
            # The rank field kept when the runs are ranked by it (--rank rank).
            frame = read_trec_run(path, rank=columns.rank == "rank").collect()
        else:
            frame = read_trec_qrels(path, subtopics=columns.subtopic is not None).collect()
            if TRUNCATES_TREC_GRADES.get():
                frame = _as_trec_eval_reads(frame, path)
    except ValueError as error:
        raise ValueError(f"{error}{_swapped_trec_hint(path, role, kind)}") from None
    names = {
        "query": columns.keys[0],
        "item": columns.item,
        "score": columns.score or "score",
        "relevance": columns.relevance,
        "subtopic": columns.subtopic or "subtopic",
    }
    return frame.rename({old: new for old, new in names.items() if old in frame.columns})


def _as_trec_eval_reads(qrels: pl.DataFrame, path: Path) -> pl.DataFrame:
    """The qrels as given: trec_eval's policy truncates fractional grades toward zero
    (``fractional_grades="truncate"``: 0.5 is 0, 1.7 is 1); said here in a warning."""
    if qrels.schema["relevance"] != pl.Float64:
        return qrels
    grade = pl.col("relevance")
    fractional = qrels.filter(grade != grade.round()).get_column("relevance")
    if fractional.len():
        example = fractional[0]
        warn(
            f"{path}: {fractional.len()} fractional grade(s) truncated to integers, as "
            f"trec_eval reads them (--trec-eval), e.g. {example} read as {int(example)}"
        )
    return qrels


def _swapped_trec_hint(path: Path, role: str, kind: Kind) -> str:
    """A hint when a TREC file fails to read as a run but reads as qrels (or the other way)."""
    from polars_rankk.io import read_trec_qrels, read_trec_run

    other = read_trec_qrels if kind == "run" else read_trec_run
    try:
        other(path).head(1).collect()
    except (ValueError, pl.exceptions.PolarsError):
        return ""
    looks = "TREC qrels, not a run" if kind == "run" else "a TREC run, not qrels"
    if role in ("CANDIDATES", "TRUTH"):
        return f". {path} ({role}) looks like {looks}: are CANDIDATES and TRUTH swapped?"
    return f". {path} ({role}) looks like {looks}: give the qrels with --truth"


def check_candidates(candidates: Source, truth: Source, columns: Columns) -> None:
    """The candidates have the key, item and score (or rank) columns, the order one numeric."""
    order = columns.order
    schema = candidates.frame.schema
    meaning = "a rank, lower first" if columns.rank is not None else "a score, higher first"
    missing = [c for c in [*columns.keys, columns.item, order] if c not in schema]
    if missing:
        hint = ""
        if order in missing and order in truth.frame.schema:
            hint = (
                f" {truth.label} has a {order!r} column: are CANDIDATES and TRUTH swapped? "
                f"The order is CANDIDATES TRUTH."
            )
        elif order in missing and columns.rank is None:
            hint = " Name the score column with --score, or a rank column with --rank."
        raise ValueError(
            f"{candidates.label} has no column {missing[0]!r}; its columns are "
            f"{list(schema)}.{hint}"
        )
    if not (schema[order].is_numeric() or schema[order] == pl.Boolean):
        example = example_row(candidates.frame.lazy(), pl.lit(True), [*columns.keys, order])
        raise TypeError(
            f"{candidates.label} column {order!r} must be numeric ({meaning}); it holds "
            f"{schema[order]}, e.g. row {example}"
        )


def check_truth(truth: Source, columns: Columns) -> None:
    """The truth has the key and item columns."""
    schema = truth.frame.schema
    missing = [c for c in [*columns.keys, columns.item] if c not in schema]
    if missing:
        raise ValueError(
            f"{truth.label} has no column {missing[0]!r}; its columns are {list(schema)}"
        )


def warn_unused_grades(truth: Source, columns: Columns, runs: Sequence[Source] = ()) -> None:
    """Warn when the truth has no relevance column but a numeric one the user did not name;
    refuse a ``--relevance`` column that no file has."""
    schema = truth.frame.schema
    if columns.relevance in schema:
        return
    ids = {*columns.keys, columns.item}
    unused = [name for name, dtype in schema.items() if name not in ids and dtype.is_numeric()]
    labelled = any(columns.relevance in run.frame.schema for run in runs)
    if columns.relevance != DEFAULT_RELEVANCE and not labelled:
        hint = f"; to grade by {unused[0]!r}, pass --relevance {unused[0]}" if unused else ""
        raise ValueError(
            f"{truth.label} has no column {columns.relevance!r} (--relevance); its columns "
            f"are {list(schema)}{hint}"
        )
    if unused and not labelled:
        listed = ", ".join(repr(name) for name in unused)
        warn(
            f"{truth.label} has no {columns.relevance!r} column, so every truth row counts as "
            f"relevant (grade 1) and its numeric column {listed} is not used; to grade by it, "
            f"pass --relevance {unused[0]}"
        )


def refuse_pooled_systems(candidates: Source, columns: Columns, option: str) -> None:
    """Refuse candidates whose repeated (group, item) rows differ in a text column: a system
    label that de-duplication would pool into one ranking (the best score across systems)."""
    named = [*columns.keys, columns.item, columns.order, columns.relevance]
    found = label_columns(candidates.frame.lazy(), columns.keys, columns.item, named)
    for column, rows in found.items():
        raise ValueError(
            f"{candidates.label}: {rows:,} rows repeat a ({', '.join(columns.keys)}, "
            f"{columns.item}) pair with a different {column!r}, which looks like the name of "
            f"a system. Evaluating them as one ranking would keep each item's best score "
            f"across them. Pass {option} {column} to evaluate each {column} on its own, or "
            f"drop the column if the rows are one system's"
        )


def _integer_ids(text: Source, column: str, typed: Source) -> pl.DataFrame:
    """`text`'s ids parsed as integers, or a TypeError when one does not read back unchanged."""
    parsed = pl.col(column).cast(pl.Int64, strict=False)
    bad = parsed.is_null() | (parsed.cast(pl.String) != pl.col(column))
    if text.frame.select(bad.any()).item():
        text_example = example_row(text.frame.lazy(), bad, [column])
        typed_example = example_row(typed.frame.lazy(), pl.lit(True), [column])
        raise TypeError(
            f"column {column!r} holds integers in {typed.label} (e.g. {typed_example}) but "
            f"text that is not a plain integer in {text.label} (e.g. {text_example}); ids "
            f"must match exactly, so write them the same way in both files"
        )
    return text.frame.with_columns(parsed)


def _is_integer(frame: pl.DataFrame, column: str) -> bool:
    dtype = frame.schema.get(column)
    return dtype is not None and dtype.is_integer()


def reconcile_ids(sources: Sequence[Source], columns: Sequence[str]) -> list[Source]:
    """Parse a text file's id column as integers where a typed file holds integer ids.

    Any other disagreement is left to `polars_rankk.evaluate`, which raises a TypeError.
    """
    out = list(sources)
    for column in columns:
        typed = next((s for s in out if s.typed and _is_integer(s.frame, column)), None)
        if typed is None:
            continue
        out = [
            s.replace(_integer_ids(s, column, typed))
            if not s.typed and s.frame.schema.get(column) == pl.String
            else s
            for s in out
        ]
    return out


def _ids(frame: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    """The id columns, integers widened to Int64 so that any two integer ids compare."""
    return frame.select(
        pl.col(name).cast(pl.Int64, strict=False) if _is_integer(frame, name) else pl.col(name)
        for name in names
    )


def warn_unmatched(candidates: Source, truth: Source, columns: Columns) -> None:
    """Warn when no group, or no item, of the candidates appears in the truth."""
    for names, what in ((columns.keys, "group"), ([columns.item], "item")):
        # The candidates' first rows settle it as a rule: only they are read (and widened)
        # unless none of them matches.
        head, right = _ids(candidates.frame.head(_PROBED), names), _ids(truth.frame, names)
        if head.schema != right.schema:
            return  # evaluate raises on the mismatched types
        if head.is_empty() or right.is_empty():
            return  # no row to match: an empty table is said where it is read
        if not _any_in(head, right, names) and (
            candidates.frame.height == head.height
            or not _any_in(_ids(candidates.frame, names), right, names)
        ):
            warn(
                f"no {what} of {candidates.label} is in {truth.label} (e.g. "
                f"{head.row(0, named=True)} vs {right.row(0, named=True)}): every metric will "
                f"be 0. Check that both files hold the same ids in {', '.join(names)}"
            )
            return


#: The candidates' rows probed first for an id the truth holds.
_PROBED = 10_000


def _any_in(left: pl.DataFrame, right: pl.DataFrame, names: list[str]) -> bool:
    """Whether some row of `left` has its `names` in `right`."""
    return left.join(right, on=names, how="semi").height > 0


def read_attributes(path: Path | None, columns: Columns) -> Source | None:
    """The ``--attributes`` table (one row per group), or ``None``."""
    if path is None:
        return None
    return read_source(path, "ATTRIBUTES", "table", "auto", columns)


def parse_runs(runs: Sequence[str]) -> dict[str, Path]:
    """``PATH`` or ``NAME=PATH`` arguments as ``{name: path}`` (name: the file name's stem).

    Examples
    --------
    >>> from polars_rankk.cli.inputs import parse_runs
    >>> parse_runs(["a=runs/x.parquet", "runs/y.txt"])
    {'a': PosixPath('runs/x.parquet'), 'y': PosixPath('runs/y.txt')}
    """
    paths: dict[str, Path] = {}
    for run in runs:
        name, sep, rest = run.partition("=")
        if sep and name and not Path(run).exists():
            path = Path(rest)
        else:
            name, path = Path(run).stem, Path(run)
        paths[unique_name(name, paths)] = path
    return paths


def unique_name(name: str, taken: Mapping[str, object]) -> str:
    """`name`, or a ValueError when a system already has it."""
    if name in taken:
        raise ValueError(f"two systems are named {name!r}; name runs with NAME=PATH")
    return name
