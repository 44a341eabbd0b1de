"""How `evaluate_in_partitions` writes its output: staged, committed, resumable.

A run writes nothing a reader of ``output`` can see until it has finished, as Spark and Hadoop
commit a job's output: every partition's part file and its summary pieces (value histogram, drop
counts, exposure counts) go to a *staging* folder beside ``output`` (``.<name>.staging/<run>``,
outside it, because ``pl.scan_parquet(output)`` reads every Parquet file below ``output``); a
partition is done once its marker is written, after its files. When every partition is done the run
commits: the part files are moved into ``output``, an empty ``_SUCCESS`` marker is written
(Spark's), and the staging folder is removed. Until then ``output`` holds no part file: a killed
run cannot pass for a whole result.

A run is keyed by a fingerprint of its inputs and arguments. An input that only reads local
files (a ``scan_parquet``/``scan_csv``/... plan, however transformed, without in-memory data or
Python functions) is fingerprinted by its plan and its files' paths, sizes and modification
times, as ``make`` and ``rsync`` tell a changed file: no row is read. Any other input (an
in-memory frame, a plan with a Python function, a cloud path), and every input when asked
(``contents=True``), by its schema and a hash of every row and its position, in one streaming
pass in bounded memory. A rerun with the same fingerprint finds the interrupted run's staging
and resumes: the partitioned inputs and the partitions already done are reused. Staging left by an
interrupted run with other inputs or arguments is removed when a run starts beside the same
``output``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import sys
import uuid
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_rankk.core.inputs.spec import to_lazy
from polars_rankk.core.types import FrameLike
from polars_rankk.core.version import package_version

#: Spark's marker of a committed output folder (empty, so Parquet readers skip it).
SUCCESS = "_SUCCESS"
#: The summary pieces each partition leaves in staging beside its part file.
PIECES = ("histogram", "dropped", "exposure", "n_lists")
_DONE = "done"


class ResumedRunWarning(UserWarning):
    """`evaluate_in_partitions` found an interrupted run with the same inputs and arguments and
    resumed it, reusing the partitions it had finished."""


#: Plan nodes whose data the plan's text does not hold: in-memory frames and Python functions.
_OPAQUE_NODES = frozenset(
    {"DataFrameScan", "PythonScan", "OpaquePython", "AnonymousFunction", "Buffers", "Files"}
)


def _contents_plan(frame: pl.LazyFrame) -> pl.LazyFrame:
    """The plan of a hash of every row and its position: a wrapping sum of 64-bit row hashes
    and the row count, in one streaming pass in bounded memory (`with_row_index` streams, where
    a ``pl.int_range(pl.len())`` would gather the whole input)."""
    schema = frame.collect_schema()
    index = "_rk_row"
    while index in schema:
        index += "_"
    return frame.with_row_index(index).select(
        pl.struct(pl.all()).hash(seed=1).sum().alias("a"), pl.len().alias("n")
    )


def _contents_digest(frame: pl.LazyFrame) -> list[str]:
    """The schema and the hash of every row and its position (`_contents_plan`)."""
    schema = frame.collect_schema()
    if not schema:
        return ["<no columns>"]
    digest = _contents_plan(frame).collect(engine="streaming")
    return [repr(list(schema.items())), repr(digest.row(0))]


def _canonical(plan: object) -> object:
    """A serialised plan's JSON as the same plan writes it in every process: a cache's id (new
    in every process) dropped, a plan already resolved (``{"IR": {"dsl": ...}}``, as once its
    schema was asked for) as the plan it was written from."""
    if isinstance(plan, list):
        return [_canonical(node) for node in plan]
    if not isinstance(plan, dict):
        return plan
    if set(plan) == {"IR"} and isinstance(plan["IR"], dict) and "dsl" in plan["IR"]:
        return _canonical(plan["IR"]["dsl"])
    if set(plan) == {"Cache"} and isinstance(plan["Cache"], dict):
        return {"Cache": _canonical(plan["Cache"].get("input"))}
    return {name: _canonical(node) for name, node in plan.items()}


def _plan_files(plan: object, files: list[str]) -> bool:
    """Gather the paths `plan` (a canonical plan's JSON) scans into `files`; whether the plan
    reads local files only (no node holds data or code its text does not show)."""
    if isinstance(plan, list):
        return all(_plan_files(node, files) for node in plan)
    if not isinstance(plan, dict):
        return True
    if _OPAQUE_NODES.intersection(plan):
        return False
    for name, node in plan.items():
        if name == "sources" and isinstance(node, dict) and set(node) == {"Paths"}:
            paths = node["Paths"]
            files.extend(str(p["inner"] if isinstance(p, dict) else p) for p in paths)
        elif not _plan_files(node, files):
            return False
    return True


def _file_stats(pattern: str) -> list[str] | None:
    """Path, size, modification and change times and inode of every file `pattern` (a path, a
    folder or a glob) names, as Polars expands it; None for a path not on a local file system."""
    if "://" in pattern:
        return None
    expanded = os.path.expanduser(pattern)
    matched: list[str] = []
    if glob.has_magic(expanded) and sys.version_info >= (3, 11):
        # Polars' `*` matches a hidden file too; Python's glob does from 3.11 when asked.
        matched = glob.glob(expanded, recursive=True, include_hidden=True)
    elif glob.has_magic(expanded):
        matched = glob.glob(expanded, recursive=True)
    paths = sorted(matched) or [expanded]
    stats = []
    for path in paths:
        names = (
            sorted(str(Path(root) / name) for root, _, names in os.walk(path) for name in names)
            if os.path.isdir(path)
            else [path]
        )
        for name in names:
            try:
                stat = os.stat(name)
            except OSError:
                stats.append(f"{os.path.abspath(name)} <missing>")
                continue
            # The change time too: a file rewritten in place keeps its size and inode, and its
            # modification time can be set back (`os.utime`, `touch -d`); its change time cannot.
            stats.append(
                f"{os.path.abspath(name)} {stat.st_size} {stat.st_mtime_ns} {stat.st_ctime_ns} "
                f"{stat.st_ino}"
            )
    return stats


def _files_digest(frame: pl.LazyFrame) -> list[str] | None:
    """The plan and its files' metadata when `frame` reads local files only (no row read);
    None otherwise."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the JSON form of a plan is deprecated, not gone
            text = frame.serialize(format="json")
    except Exception:  # a plan Polars cannot write as JSON: its rows are hashed instead
        return None
    plan = _canonical(json.loads(text))
    patterns: list[str] = []
    if not _plan_files(plan, patterns) or not patterns:
        return None
    parts = [repr(list(frame.collect_schema().items()))]
    for pattern in patterns:
        stats = _file_stats(pattern)
        if stats is None:
            return None
        parts.extend(stats)
    return [json.dumps(plan, sort_keys=True), *parts]


def fingerprint(
    frames: Mapping[str, FrameLike | None],
    arguments: Mapping[str, object],
    *,
    contents: bool = False,
) -> str:
    """A key of a run: its input tables and its arguments (and the versions of polars-rankk
    and Polars, whose hashes and numbers it depends on).

    An input that reads local files only is known by its plan and its files' paths, sizes,
    modification and change times and inodes (no row is read); any other input, and every input when
    `contents` is True, by its schema and a hash of every row in order (one streaming pass).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.engines.staging import fingerprint
    >>> frame = pl.DataFrame({"user": [1, 2], "item": [3, 4]})
    >>> fingerprint({"candidates": frame}, {"k": 10}) == fingerprint(
    ...     {"candidates": frame.clone()}, {"k": 10})
    True
    >>> fingerprint({"candidates": frame}, {"k": 10}) == fingerprint(
    ...     {"candidates": frame.reverse()}, {"k": 10})
    False
    """
    parts = [f"polars-rankk {package_version()}", f"polars {pl.__version__}"]
    for name, frame in frames.items():
        parts.append(name)
        if frame is None:
            parts.append("<none>")
            continue
        lazy = to_lazy(frame, name)
        files = None if contents else _files_digest(lazy)
        parts.extend(["<contents>", *_contents_digest(lazy)] if files is None else files)
    parts.extend(f"{name}={value!r}" for name, value in arguments.items())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def unresumable_key() -> str:
    """The key of a run that is not to be resumed (no rerun has it)."""
    return f"once-{uuid.uuid4().hex[:16]}"


#: Rows of a summary piece's row group: small enough that a reader of one (metric, K) cell of a
#: partition's value histogram (sorted by them) skips the other cells' groups by their statistics.
PIECE_ROW_GROUP = 65_536


def _write_atomically(frame: pl.DataFrame, path: Path, row_group_size: int | None = None) -> None:
    partial = path.with_name(path.name + ".partial")
    frame.write_parquet(partial, row_group_size=row_group_size)
    os.replace(partial, path)


@dataclass(frozen=True)
class PartitionResult:
    """What a partition leaves: its per-group rows and the pieces of the summary."""

    rows: pl.DataFrame
    histogram: pl.DataFrame
    dropped: pl.DataFrame
    exposure: pl.DataFrame | None = None
    n_lists: pl.DataFrame | None = None


class StagedRun:
    """The staging of one run of `evaluate_in_partitions` (see the module docstring)."""

    def __init__(self, output: Path, key: str, partitions: int, workdir: Path | None) -> None:
        self.output = output
        self.key = key
        self.partitions = partitions
        self.root = output.parent / f".{output.name}.staging"
        self.folder = self.root / key
        self.inputs = (workdir / key) if workdir is not None else self.folder / "inputs"
        self._inputs_kept = workdir is not None

    @classmethod
    def start(cls, output: Path, key: str, partitions: int, workdir: Path | None) -> StagedRun:
        """Prepare `output` (its old parts and marker removed) and the run's staging: an
        interrupted run with this key is resumed (`ResumedRunWarning`), staging of runs with
        other keys removed."""
        run = cls(output, key, partitions, workdir)
        output.mkdir(parents=True, exist_ok=True)
        (output / SUCCESS).unlink(missing_ok=True)
        if run.root.is_dir():
            for other in run.root.iterdir():
                if other.name != key:
                    shutil.rmtree(other, ignore_errors=True)
        done = run.done()
        for old in output.glob("part-*.parquet"):
            staged = run.folder / "partitions" / old.name
            partition = int(old.stem.split("-")[1])
            if partition in done and run.has_part(partition) and not staged.exists():
                shutil.move(old, staged)  # moved by this run's commit, cut short: take it back
            else:
                old.unlink()
        if done:
            warnings.warn(
                f"evaluate_in_partitions: resuming an interrupted run with the same arguments and "
                f"inputs of the same fingerprint (files: paths, sizes, modification and change "
                f"times; in-memory frames and resume='contents': every row) (staged in "
                f"{run.folder}): {len(done)} of {partitions} partitions were done and are reused; "
                f"evaluating the other {partitions - len(done)}",
                ResumedRunWarning,
                stacklevel=3,
            )
        (run.folder / "partitions").mkdir(parents=True, exist_ok=True)
        return run

    # -- partitioned inputs -------------------------------------------------------------------

    def inputs_ready(self) -> bool:
        """Whether the inputs were partitioned completely (by this run or the interrupted one)."""
        return (self.inputs / SUCCESS).exists()

    def reset_inputs(self) -> Path:
        """An empty folder for the partitioned inputs (a partial partitioning removed)."""
        shutil.rmtree(self.inputs, ignore_errors=True)
        self.inputs.mkdir(parents=True)
        return self.inputs

    def inputs_written(self) -> None:
        (self.inputs / SUCCESS).touch()

    # -- partitions ------------------------------------------------------------------------------

    def _path(self, kind: str, partition: int) -> Path:
        suffix = "" if kind == _DONE else ".parquet"
        return self.folder / "partitions" / f"{kind}-{partition:05d}{suffix}"

    def done(self) -> set[int]:
        """The partitions whose every file is staged."""
        folder = self.folder / "partitions"
        if not folder.is_dir():
            return set()
        return {int(path.name.split("-")[1]) for path in folder.glob(f"{_DONE}-*")}

    def save(self, partition: int, result: PartitionResult | None) -> None:
        """Stage a partition's files, then its marker (None: a partition without groups)."""
        if result is not None:
            _write_atomically(result.rows, self._path("part", partition))
            for kind in PIECES:
                piece = getattr(result, kind)
                if piece is not None:
                    _write_atomically(piece, self._path(kind, partition), PIECE_ROW_GROUP)
        self._path(_DONE, partition).write_text("empty" if result is None else "part")

    def has_part(self, partition: int) -> bool:
        """Whether a done partition has a part file (a partition without groups has none)."""
        return self._path(_DONE, partition).read_text() == "part"

    def piece_files(self, kind: str) -> list[Path]:
        """The files of one summary piece, a file per staged partition."""
        return sorted((self.folder / "partitions").glob(f"{kind}-*.parquet"))

    def pieces(self, kind: str) -> list[pl.DataFrame]:
        """One summary piece of every staged partition."""
        return [pl.read_parquet(path) for path in self.piece_files(kind)]

    # -- commit -------------------------------------------------------------------------------

    def commit(self) -> list[Path]:
        """Move the staged parts into `output`, mark it whole, remove the staging; the parts."""
        missing = set(range(self.partitions)) - self.done()
        if missing:
            raise RuntimeError(f"evaluate_in_partitions: partitions {sorted(missing)} are not done")
        parts = []
        for staged in sorted((self.folder / "partitions").glob("part-*.parquet")):
            target = self.output / staged.name
            shutil.move(staged, target)
            parts.append(target)
        (self.output / SUCCESS).touch()
        self.discard()
        return parts

    def discard(self) -> None:
        """Remove this run's staging (and the partitioned inputs unless `workdir` keeps them)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        if not self._inputs_kept:
            shutil.rmtree(self.inputs, ignore_errors=True)
        if self.root.is_dir() and not any(self.root.iterdir()):
            self.root.rmdir()


def staged_description(done: Iterable[int], partitions: int) -> str:
    """The progress bar's label: partitions, and how many the interrupted run had done."""
    count = len(set(done))
    return f"partitions ({count} of {partitions} resumed)" if count else "partitions"


def manifest(run: StagedRun, arguments: Mapping[str, object]) -> None:
    """A readable note of what the staging belongs to (for a person finding the folder)."""
    note = {
        "output": str(run.output),
        "partitions": run.partitions,
        **{name: repr(value) for name, value in arguments.items()},
    }
    (run.folder / "run.json").write_text(json.dumps(note, indent=2))
