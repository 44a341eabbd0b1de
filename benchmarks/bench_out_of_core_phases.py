"""Where `evaluate_in_partitions`' time goes: each phase's wall and CPU seconds, in one process.

    python benchmarks/generate.py --scale 50M
    python benchmarks/bench_out_of_core_phases.py --scale 50M                  # key ranges
    python benchmarks/bench_out_of_core_phases.py --scale 50M --memory-limit 100MB --partitions 4
                                                      # a file past the budget: hash partitions

The phases are the module's own steps, timed by wrapping them: validating the inputs, the
fingerprint, finding the key ranges (one pass over the key column), partitioning the inputs by
hash (the Parquet sinks), reading a partition (on the key-range path: a second thread, while
the one before is evaluated), evaluating it, writing its per-group rows and summary pieces, and
the commit. CPU seconds are the process's (every thread). Prints one line per phase and the
peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import polars_rankk as rk
from polars_rankk.engines import key_ranges, out_of_core, partition_evaluation, staging

HERE = Path(__file__).parent
KS = [1, 5, 10, 20, 50, 100]
PHASES: dict[str, list[float]] = {}


def _timed(owner: Any, name: str, label: str) -> None:
    function: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            entry = PHASES.setdefault(label, [0.0, 0.0, 0])
            entry[0] += time.perf_counter() - wall
            entry[1] += time.process_time() - cpu
            entry[2] += 1

    setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--scale", default="50M")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--memory-limit", default="4GiB")
    arguments = parser.parse_args()
    _timed(out_of_core, "_checked", "validate the inputs")
    _timed(out_of_core, "_run_key", "fingerprint")
    _timed(key_ranges, "file_ranges", "key ranges (key column pass)")
    _timed(pl.LazyFrame, "sink_parquet", "partition by hash (sinks)")
    _timed(partition_evaluation, "_read_or_empty", "read a hash partition")
    _timed(partition_evaluation, "evaluate", "evaluate a partition")
    _timed(staging.StagedRun, "save", "write its rows and pieces")
    _timed(staging.StagedRun, "commit", "commit")
    folder = HERE / "data" / arguments.scale
    output = tempfile.mkdtemp(prefix="rankk-phases-", dir=HERE / "data")
    wall, cpu = time.perf_counter(), time.process_time()
    result = rk.evaluate_in_partitions(
        pl.scan_parquet(str(folder / "candidates" / "*.parquet")),
        pl.scan_parquet(str(folder / "truth" / "*.parquet")),
        output=output,
        partitions=arguments.partitions,
        memory_limit=arguments.memory_limit,
        k=KS,
        group_by="user",
        progress=False,
    )
    result.summary()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    shutil.rmtree(output, ignore_errors=True)
    print(
        f"{arguments.scale}, {result.partitions} partitions, memory_limit {arguments.memory_limit}"
    )
    for label, (seconds, cpu_seconds, calls) in PHASES.items():
        print(f"{label:30} wall {seconds:8.2f} s  CPU {cpu_seconds:8.2f} s  ({calls} calls)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"{'total':30} wall {wall:8.2f} s  CPU {cpu:8.2f} s  peak RSS {peak:.2f} GiB")


if __name__ == "__main__":
    main()
