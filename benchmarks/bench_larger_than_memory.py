"""Larger than memory: `evaluate_in_partitions` over the 1B-row Parquet dataset.

    python benchmarks/generate.py --scale 1B          # ~10 GB of Parquet, in chunks
    python benchmarks/bench_larger_than_memory.py --scale 1B --partitions 64

Runs the bucketed evaluation in a child process and reports its wall time and peak RSS
(target: <= 8 GiB on a 24 GiB machine), then checks the result against the ordinary
in-memory path on a sample of groups (the users of the first data file): identical values.
Writes benchmarks/results/larger_than_memory_<scale>.json.
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


def _child(scale: str, partitions: int, output: str) -> None:
    import polars as pl

    import polars_rankk as rk

    folder = HERE / "data" / scale
    start = time.perf_counter()
    result = rk.evaluate_in_partitions(
        pl.scan_parquet(str(folder / "candidates" / "*.parquet")),
        pl.scan_parquet(str(folder / "truth" / "*.parquet")),
        output=output,
        partitions=partitions,
        k=KS,
        group_by="user",
    )
    summary = result.summary()
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed, "summary": summary.to_dicts()}))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="1B")
    parser.add_argument("--partitions", type=int, default=64)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_output:
        _child(args.scale, args.partitions, args.child_output)
        return
    sys.path.insert(0, str(HERE))
    from generate import generate

    generate(args.scale)
    with tempfile.TemporaryDirectory(prefix="rankk-out-", dir=HERE / "data") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--scale",
                args.scale,
                "--partitions",
                str(args.partitions),
                "--child-output",
                output,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        _, status, usage = os.wait4(process.pid, 0)
        stdout = process.stdout.read() if process.stdout else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"bucketed evaluation failed (status {status})")
        child = json.loads(stdout.strip().splitlines()[-1])
        check = _check_sample(args.scale, output)
    report = {
        "scale": args.scale,
        "partitions": args.partitions,
        "seconds": round(child["seconds"], 1),
        "peak_rss_gib": round(usage.ru_maxrss / 1024**2, 2),
        **check,
        "summary": child["summary"],
    }
    out = HERE / "results" / f"larger_than_memory_{args.scale}.json"
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps({key: value for key, value in report.items() if key != "summary"}))


if __name__ == "__main__":
    main()
