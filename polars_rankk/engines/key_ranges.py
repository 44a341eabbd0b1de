"""Inputs already split by their group key: Parquet files whose key ranges do not overlap.

A log written user by user, or a table sorted by its key and written in several files, holds
each group's rows in one file, and the files' key ranges (one streaming pass over the key column
alone: its minimum, maximum and row count per file) do not overlap. Such an input needs no
re-partitioning: consecutive files up to a row budget are a partition, read as they are, and
the truth's rows of the partition's key range are read beside them — from the truth files whose
own range meets it when the truth is Parquet files too. The ranges tile the whole key line (the
first partition takes every truth key up to its last candidate key, the next every key after that
up to its own last, the last every key after), so that a group only in the truth is evaluated
once. Anything else (several key columns, a plan that is not a plain scan of several local
Parquet files, overlapping files, a file past the memory budget) returns None:
`evaluate_in_partitions` then hash-partitions as before.
"""

from __future__ import annotations

import glob
import json
import os
import re
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import polars as pl

from polars_rankk.core import EngineType
from polars_rankk.core.inputs.spec import Spec, to_lazy
from polars_rankk.core.progress import progress_bar
from polars_rankk.core.types import FrameLike
from polars_rankk.engines import staging
from polars_rankk.engines.partition_evaluation import evaluate_frames

#: Bytes of the budget per candidate row of a partition (measured on the 1B benchmark: with
#: 20M-row partitions, a 4 GiB budget, the run peaked at 2.1 GiB, a partition evaluated and the
#: next one read beside it; 5M rows evaluated alone peak at ~470 MiB). The margin is for more
#: metrics or cut-offs than its 8 x 6, which give more per-group rows per candidate row.
BYTES_PER_ROW = 200
#: The memory budget when none is given.
DEFAULT_MEMORY = 4 * 2**30
_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 10**3, "kib": 2**10, "m": 2**20, "mb": 10**6,
          "mib": 2**20, "g": 2**30, "gb": 10**9, "gib": 2**30, "t": 2**40, "tb": 10**12,
          "tib": 2**40}  # fmt: skip


def memory_bytes(limit: int | str | None) -> int:
    """A memory budget in bytes: an int, or a size like ``"4GiB"``, ``"512 MB"`` (None: 4 GiB).

    Examples
    --------
    >>> from polars_rankk.engines.key_ranges import memory_bytes
    >>> memory_bytes("4GiB"), memory_bytes("512 MB"), memory_bytes(1000)
    (4294967296, 512000000, 1000)
    """
    if limit is None:
        return DEFAULT_MEMORY
    if isinstance(limit, bool) or not isinstance(limit, (int, str)):
        raise ValueError(
            f"memory_limit must be a number of bytes or a size like '4GiB'; got {limit!r}"
        )
    if isinstance(limit, int):
        number, unit = float(limit), ""
    else:
        found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", limit)
        if found is None or found.group(2).lower() not in _UNITS:
            raise ValueError(
                f"memory_limit must be a number of bytes or a size like '4GiB' or '512 MB'; "
                f"got {limit!r}"
            )
        number, unit = float(found.group(1)), found.group(2).lower()
    size = int(number * _UNITS[unit])
    if size <= 0:
        raise ValueError(f"memory_limit must be positive; got {limit!r}")
    return size


def parquet_files(frame: pl.LazyFrame) -> list[str] | None:
    """The local Parquet files `frame` scans, in Polars' order, when its plan is a plain scan of
    them (no row index, slice, file-path column or transformation); None otherwise."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the JSON form of a plan is deprecated, not gone
            plan = json.loads(frame.serialize(format="json"))
    except Exception:  # a plan Polars cannot write as JSON is no plain scan
        return None
    while isinstance(plan, dict) and set(plan) == {"IR"} and "dsl" in plan["IR"]:
        plan = plan["IR"]["dsl"]  # a plan whose schema was asked for: the plan it was written as
    scan = plan.get("Scan") if isinstance(plan, dict) and len(plan) == 1 else None
    if not isinstance(scan, dict) or "Parquet" not in json.dumps(scan.get("scan_type")):
        return None
    arguments = scan.get("unified_scan_args") or {}
    if any(
        arguments.get(name) is not None for name in ("row_index", "pre_slice", "include_file_paths")
    ):
        return None
    if scan.get("predicate") is not None:
        return None
    sources = scan.get("sources")
    if not isinstance(sources, dict) or set(sources) != {"Paths"}:
        return None
    files: list[str] = []
    for source in sources["Paths"]:
        path = str(source["inner"] if isinstance(source, dict) else source)
        if "://" in path:
            return None
        expanded = os.path.expanduser(path)
        if os.path.isdir(expanded):
            files += sorted(
                str(os.path.join(root, name))
                for root, _, names in os.walk(expanded)
                for name in names
                if name.endswith(".parquet")
            )
        elif glob.has_magic(expanded):
            files += sorted(glob.glob(expanded, recursive=True))
        else:
            files.append(expanded)
    return files or None


@dataclass(frozen=True)
class FileRange:
    """One file's key range and row count."""

    path: str
    #: The smallest and largest key (of the key column's dtype: an int, str, date...).
    low: Any
    high: Any
    rows: int


def file_ranges(files: list[str], key: str) -> list[FileRange]:
    """Each file's smallest and largest key and its rows: from the files' own statistics when
    pyarrow reads them (every row group's minimum, maximum and null count of an integer or text
    key; no row read), else one streaming pass over the key column alone. Empty: a null key."""
    found = _from_statistics(files, key)
    return _from_rows(files, key) if found is None else found


def _from_statistics(files: list[str], key: str) -> list[FileRange] | None:
    """The files' key ranges from their Parquet footers (None: pyarrow is not installed, or a
    row group's statistics are missing, hold a null or are of another kind)."""
    try:
        from pyarrow import parquet  # optional: the Spark and Dask extras install it
    except ImportError:
        return None
    ranges = []
    for path in files:
        metadata = parquet.read_metadata(path)
        names = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
        if names.count(key) != 1:
            return None
        column = names.index(key)
        bounds: list[Any] = []
        for group in range(metadata.num_row_groups):
            statistics = metadata.row_group(group).column(column).statistics
            if statistics is None or not statistics.has_min_max or statistics.null_count != 0:
                return None
            if not all(isinstance(v, (int, str)) for v in (statistics.min, statistics.max)):
                return None
            bounds += [statistics.min, statistics.max]
        if metadata.num_rows:
            ranges.append(FileRange(path, min(bounds), max(bounds), metadata.num_rows))
    return ranges


def _from_rows(files: list[str], key: str) -> list[FileRange]:
    """The files' key ranges from one streaming pass over the key column."""
    stats = (
        pl.scan_parquet(files, include_file_paths="_rk_file")
        .group_by("_rk_file")
        .agg(
            pl.col(key).min().alias("low"),
            pl.col(key).max().alias("high"),
            pl.len().alias("rows"),
            pl.col(key).null_count().alias("nulls"),
        )
        .collect(engine="streaming")
    )
    if stats.get_column("nulls").sum():
        return []  # null keys: no range holds them; the hash partitions do
    return [
        FileRange(row["_rk_file"], row["low"], row["high"], row["rows"])
        for row in stats.iter_rows(named=True)
        if row["rows"]
    ]


@dataclass(frozen=True)
class KeyRange:
    """A partition of an input in key ranges: its candidate files and rows, and the truth keys
    it takes, ``low < key <= high`` (None: unbounded on that side)."""

    files: tuple[str, ...]
    rows: int
    low: Any
    high: Any

    def truth_rows(self, truth: pl.LazyFrame, key: str) -> pl.LazyFrame:
        """The truth's rows of this range."""
        condition = pl.lit(True)
        if self.low is not None:
            condition = condition & (pl.col(key) > self.low)
        if self.high is not None:
            condition = condition & (pl.col(key) <= self.high)
        return truth.filter(condition)


def partitions_in_key_ranges(
    candidates: pl.LazyFrame, keys: tuple[str, ...], rows_per_partition: int
) -> list[KeyRange] | None:
    """The candidates' partitions in key ranges, each of at most `rows_per_partition` rows;
    None where the input is not several files in key ranges, each within the budget (see the
    module)."""
    if len(keys) != 1:
        return None
    key = keys[0]
    dtype = candidates.collect_schema().get(key)
    if dtype is None or not (dtype.is_integer() or dtype == pl.String or dtype.is_temporal()):
        return None
    files = parquet_files(candidates)
    if files is None:
        return None
    if len(files) < 2:
        return None  # one file says nothing of its rows' order
    ranges = sorted(file_ranges(files, key), key=lambda r: r.low)
    if not ranges or any(a.high >= b.low for a, b in pairwise(ranges)):
        return None
    if any(r.rows > rows_per_partition for r in ranges):
        return None  # a file past the budget: hash partitions bound the memory
    partitions: list[KeyRange] = []
    batch: list[FileRange] = []
    for file in ranges:
        if batch and sum(f.rows for f in batch) + file.rows > rows_per_partition:
            partitions.append(_partition(batch, partitions))
            batch = []
        batch.append(file)
    partitions.append(_partition(batch, partitions))
    last = partitions[-1]
    partitions[-1] = KeyRange(last.files, last.rows, last.low, None)
    return partitions


def _partition(batch: list[FileRange], before: list[KeyRange]) -> KeyRange:
    low = before[-1].high if before else None
    return KeyRange(tuple(f.path for f in batch), sum(f.rows for f in batch), low, batch[-1].high)


def truth_reader(truth: pl.LazyFrame, key: str) -> tuple[pl.LazyFrame, list[FileRange] | None]:
    """The truth and, when it is a plain scan of Parquet files, their key ranges (each
    partition then reads only the files its range meets)."""
    files = parquet_files(truth)
    if files is None or key not in truth.collect_schema():
        return truth, None
    ranges = file_ranges(files, key)
    return truth, ranges or None


def truth_of(
    part: KeyRange, truth: pl.LazyFrame, ranges: list[FileRange] | None, key: str
) -> pl.LazyFrame:
    """The truth's rows of `part`'s key range, reading only the truth files it meets."""
    if ranges is not None:
        met = [
            r.path
            for r in ranges
            if (part.low is None or r.high > part.low) and (part.high is None or r.low <= part.high)
        ]
        source = pl.scan_parquet(met) if met else truth.clear()
        return part.truth_rows(source, key)
    return part.truth_rows(truth, key)


def in_key_ranges(
    candidates: FrameLike, truth: FrameLike | None, keys: list[str], item: str, budget: int
) -> list[KeyRange] | None:
    """The candidates' partitions when they are Parquet files split by their key already, with
    a truth table, both in long form (None: hash-partition them)."""
    if not isinstance(candidates, pl.LazyFrame) or truth is None:
        return None  # without truth the candidates are labelled on the way in: hash partitions
    for frame in (candidates, truth):
        schema = to_lazy(frame, "truth").collect_schema()
        if isinstance(schema.get(item), pl.List) or any(k not in schema for k in keys):
            return None
    rows = max(1, budget // BYTES_PER_ROW)
    return partitions_in_key_ranges(candidates, tuple(keys), rows)


def run_key_ranges(
    run: staging.StagedRun,
    ranges: list[KeyRange],
    truth: pl.LazyFrame | None,
    spec: Spec,
    options: dict[str, Any],
    engine: EngineType,
    progress: bool | None,
) -> set[int]:
    """Evaluate every key range not yet staged, each read (by a second thread) while the one
    before is evaluated; the ranges the interrupted run had done."""
    key = spec.keys[0]
    truth_ranges = None
    if truth is not None:
        truth, truth_ranges = truth_reader(truth, key)

    def read(index: int) -> dict[str, pl.DataFrame]:
        part = ranges[index]
        frames = {"candidates": pl.scan_parquet(list(part.files)).collect(engine=engine)}
        if truth is not None:
            rows = truth_of(part, truth, truth_ranges, key)
            frames["truth"] = rows.collect(engine=engine)
        return frames

    done = run.done()
    todo = sorted(set(range(run.partitions)) - done)
    description = staging.staged_description(done, run.partitions)
    with (
        progress_bar(run.partitions, description, progress) as bar,
        ThreadPoolExecutor(max_workers=1) as reader,
    ):
        bar.update(len(done))
        upcoming: Future[dict[str, pl.DataFrame]] | None = (
            reader.submit(read, todo[0]) if todo else None
        )
        for position, index in enumerate(todo):
            assert upcoming is not None
            frames = upcoming.result()
            following = todo[position + 1] if position + 1 < len(todo) else None
            upcoming = None if following is None else reader.submit(read, following)
            run.save(index, evaluate_frames(frames, spec, options, engine, check_values=True))
            del frames
            bar.update(1)
    return done
