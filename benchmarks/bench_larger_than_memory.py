"""Larger than memory: `evaluate_in_partitions` over the 1B-row Parquet dataset.

    python benchmarks/generate.py --scale 1B          # ~10 GB of Parquet, in chunks
    python benchmarks/bench_larger_than_memory.py --scale 1B --partitions 64
    python benchmarks/bench_larger_than_memory.py --scale 50M --partitions 16 --resume

Runs the partitioned evaluation in a child process and reports its wall time and peak RSS
(target: <= 8 GiB on a 24 GiB machine), then checks the result against the ordinary
in-memory path on a sample of groups (the users of the first data file): identical values.
With ``--resume`` it then runs it again in a child killed (SIGKILL) once half the partitions are
staged, and a third child resumes that run: the resumed run's time and peak RSS beside the
run from scratch (target: <= 0.7x its time), and the resumed output equal to the fresh one.
Each child's peak RSS is its own (``os.wait4``: that child's ``RUSAGE_CHILDREN``), and the
fingerprint's own seconds are reported. Writes benchmarks/results/larger_than_memory_<scale>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
KS = [1, 5, 10, 20, 50, 100]


def _child(
    scale: str, partitions: int, output: str, kill_half_way: bool, memory_limit: str
) -> None:
    import signal

    import polars as pl

    import polars_rankk as rk
    from polars_rankk.engines import staging

    fingerprint_seconds = []
    fingerprint = staging.fingerprint

    def timed_fingerprint(*args: object, **kwargs: object) -> str:
        start = time.perf_counter()
        key = fingerprint(*args, **kwargs)  # type: ignore[arg-type]
        fingerprint_seconds.append(time.perf_counter() - start)
        return key

    staging.fingerprint = timed_fingerprint  # type: ignore[assignment]
    if kill_half_way:
        save = staging.StagedRun.save

        def save_then_die(run: staging.StagedRun, partition: int, result: object) -> None:
            save(run, partition, result)  # type: ignore[arg-type]
            if len(run.done()) >= max(1, run.partitions // 2):  # key ranges: not --partitions
                os.kill(os.getpid(), signal.SIGKILL)

        staging.StagedRun.save = save_then_die  # type: ignore[method-assign]
    folder = HERE / "data" / scale
    start = time.perf_counter()
    result = rk.evaluate_in_partitions(
        pl.scan_parquet(str(folder / "candidates" / "*.parquet")),
        pl.scan_parquet(str(folder / "truth" / "*.parquet")),
        output=output,
        partitions=partitions,
        k=KS,
        group_by="user",
        progress=False,
        memory_limit=memory_limit,
    )
    summary = result.summary()
    elapsed = time.perf_counter() - start
    report = {
        "seconds": elapsed,
        "fingerprint_seconds": sum(fingerprint_seconds),
        "resumed_partitions": result.resumed_partitions,
        "partitions_run": result.partitions,
        "summary": summary.to_dicts(),
    }
    print(json.dumps(report))


def _run_child(
    scale: str, partitions: int, output: str, *, kill_half_way: bool = False, memory: str = "4GiB"
) -> dict:
    """One evaluation in a child process: its report (None when killed) and peak RSS."""
    command = [sys.executable, __file__, "--scale", scale, "--partitions", str(partitions)]
    command += ["--memory-limit", memory]
    command += ["--child-output", output] + (["--child-kill-half-way"] if kill_half_way else [])
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    stdout = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    rss = round(usage.ru_maxrss / 1024**2, 2)
    if kill_half_way:
        if code != -9:
            raise SystemExit(f"the run to kill half-way ended with status {code}")
        return {"peak_rss_gib": rss}
    if code != 0:
        raise SystemExit(f"partitioned evaluation failed (status {code})")
    return {**json.loads(stdout.strip().splitlines()[-1]), "peak_rss_gib": rss}


def _check_sample(scale: str, output: str) -> dict[str, object]:
    import polars as pl

    import polars_rankk as rk

    folder = HERE / "data" / scale
    first_candidates = sorted((folder / "candidates").glob("*.parquet"))[0]
    first_truth = sorted((folder / "truth").glob("*.parquet"))[0]
    candidates = pl.read_parquet(first_candidates)
    truth = pl.read_parquet(first_truth)
    expected = rk.evaluate(candidates, truth, k=KS, group_by="user").per_group
    users = expected.select("user").unique()
    got = (
        pl.scan_parquet(str(Path(output) / "*.parquet"))
        .join(users.lazy(), on="user", how="semi")
        .collect()
    )
    keys = ["user", "metric", "k"]
    joined = expected.join(got, on=keys, how="full", nulls_equal=True, suffix="_bucketed")
    mismatches = joined.filter(
        pl.col("value").is_null()
        | pl.col("value_bucketed").is_null()
        | (pl.col("value") != pl.col("value_bucketed"))
    ).height
    return {"sample_groups": users.height, "sample_rows": expected.height, "mismatches": mismatches}


def _resume(scale: str, partitions: int, fresh: dict) -> dict[str, object]:
    """Kill a run half-way, resume it: the resumed run against the fresh one."""
    with tempfile.TemporaryDirectory(prefix="rankk-out-", dir=HERE / "data") as output:
        killed = _run_child(scale, partitions, output, kill_half_way=True)
        resumed = _run_child(scale, partitions, output)
    same = resumed.pop("summary") == fresh["summary"]
    return {
        "killed_peak_rss_gib": killed["peak_rss_gib"],
        "resumed_seconds": round(resumed["seconds"], 1),
        "resumed_fingerprint_seconds": round(resumed["fingerprint_seconds"], 3),
        "resumed_partitions": resumed["resumed_partitions"],
        "resumed_peak_rss_gib": resumed["peak_rss_gib"],
        "resumed_over_fresh_seconds": round(resumed["seconds"] / fresh["seconds"], 2),
        "resumed_summary_equals_fresh": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="1B")
    parser.add_argument("--partitions", type=int, default=64)
    parser.add_argument("--resume", action="store_true", help="also kill half-way and resume")
    parser.add_argument("--memory-limit", default="4GiB", help="evaluate_in_partitions' budget")
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    parser.add_argument("--child-kill-half-way", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_output:
        _child(
            args.scale,
            args.partitions,
            args.child_output,
            args.child_kill_half_way,
            args.memory_limit,
        )
        return
    sys.path.insert(0, str(HERE))
    from generate import generate

    generate(args.scale)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rankk-out-", dir=HERE / "data") as output:
        child = _run_child(args.scale, args.partitions, output, memory=args.memory_limit)
        resumed = _resume(args.scale, args.partitions, child) if args.resume else {}
        # Last: a child's peak RSS counts its parent's at the spawn (Linux keeps the
        # high-water mark across exec), and the in-memory check is the parent's big moment.
        check = _check_sample(args.scale, output)
    report = {
        "scale": args.scale,
        "partitions": args.partitions,
        "partitions_run": child["partitions_run"],
        "memory_limit": args.memory_limit,
        "seconds": round(child["seconds"], 1),
        "fingerprint_seconds": round(child["fingerprint_seconds"], 3),
        "peak_rss_gib": child["peak_rss_gib"],
        **check,
        **resumed,
        "load_average_before_after": [round(load[0], 2), round(os.getloadavg()[0], 2)],
        "summary": child["summary"],
    }
    out = HERE / "results" / f"larger_than_memory_{args.scale}.json"
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps({key: value for key, value in report.items() if key != "summary"}))


if __name__ == "__main__":
    main()
