"""`evaluate` against the floor on the same rows grouped by user and in random order.

Logs arrive in any order, so the kernel is measured on both layouts of one workload: the
candidates as written (random order, `write_workload`) and the same rows sorted by user
(`maintain_order=True`). Each system runs in a fresh process (its own peak RSS), the systems
alternate (floor, lean, rankk) for `--rounds` rounds, and the medians are printed with the load
average. `floor` is the benchmark floor (an `int_range(...).over("user", order_by=[-score,
item])` rank, cut at K_max, a left join with the truth, hits per K); `lean` a leaner
hand-written query (an ordinal rank over the user, the same cut, join and sums); `rankk` is
`rk.evaluate` of the eight default metrics at every K. Wall seconds, process CPU seconds (all
threads: the steadier figure on a shared machine) and peak RSS.

    python benchmarks/bench_row_order.py generate 50000 100 DIR   # 5M rows, seed 7
    python benchmarks/bench_row_order.py run DIR --rounds 3
    POLARS_RANKK_NATIVE_TIMING=1 python benchmarks/bench_row_order.py one rankk random DIR

Long lists read at a small K (a TREC run of 1,000 documents per query read at K=10, a
recommender's candidates read at K=20): the same generator with 1,000 per group, one K,

    python benchmarks/bench_row_order.py generate 5000 1000 DIR   # 5M rows, 1,000 per group
    python benchmarks/bench_row_order.py run DIR --rounds 3 --ks 10
    python benchmarks/bench_row_order.py run DIR --rounds 3 --ks 100
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

KS = (1, 5, 10, 20, 50, 100)
SYSTEMS = ("floor", "lean", "rankk")
ORDERS = ("grouped", "random")


def write_workload(n_users: int, per_user: int, out: Path, seed: int = 7) -> None:
    """Candidates (user, item, score; rows in random order, ~2% tied scores, relevant items
    scoring higher on average) and graded truth (1..3, about a third outside the candidates).
    """
    rng = np.random.default_rng(seed)
    n = n_users * per_user
    user = np.repeat(np.arange(n_users, dtype=np.int64), per_user)
    item = (np.tile(np.arange(per_user, dtype=np.int64), n_users) * 7919 + user * 13) % 2_000_003
    is_relevant = rng.random(n) < (4.0 / per_user)
    # Rounding to two decimals creates the ties.
    score = np.round(rng.normal(0, 1, n) + 1.2 * is_relevant, 2)
    grade = np.where(is_relevant, rng.integers(1, 4, n), 0)
    order = rng.permutation(n)
    out.mkdir(parents=True, exist_ok=True)
    pl.DataFrame({"user": user[order], "item": item[order], "score": score[order]}).write_parquet(
        out / "candidates.parquet", row_group_size=1_000_000
    )
    in_pool = pl.DataFrame(
        {"user": user[is_relevant], "item": item[is_relevant], "relevance": grade[is_relevant]}
    )
    outside_users = np.repeat(np.arange(n_users, dtype=np.int64), 2)
    outside = pl.DataFrame(
        {
            "user": outside_users,
            "item": 3_000_000 + rng.integers(0, 1_000_000, len(outside_users)),
            "relevance": rng.integers(1, 4, len(outside_users)),
        }
    )
    truth = pl.concat([in_pool, outside]).unique(["user", "item"], keep="first").sort("user")
    truth.write_parquet(out / "truth.parquet")


def _hits(
    candidates: pl.LazyFrame, truth: pl.LazyFrame, rank: pl.Expr, ks: tuple[int, ...]
) -> pl.LazyFrame:
    hit = (pl.col("relevance").fill_null(0) > 0).cast(pl.Int32)
    return (
        candidates.with_columns(rank=rank)
        .filter(pl.col("rank") <= max(ks))
        .join(truth, on=["user", "item"], how="left")
        .group_by("user")
        .agg(hit.filter(pl.col("rank") <= k).sum().alias(f"hits@{k}") for k in ks)
    )


def one(system: str, order: str, data: Path, ks: tuple[int, ...] = KS) -> dict[str, object]:
    """Run `system` once on `order`'s layout at cut-offs `ks`; its time excludes reading the
    files."""
    candidates = pl.read_parquet(data / "candidates.parquet")
    truth = pl.read_parquet(data / "truth.parquet")
    if order == "grouped":
        candidates = candidates.sort("user", maintain_order=True)
    if system == "rankk":
        # Imported before the timer, as the peers benchmark times every system: the import is the
        # same for every evaluation a process runs.
        import polars_rankk  # noqa: F401
    started, cpu = time.perf_counter(), time.process_time()
    if system == "floor":
        rank = pl.int_range(1, pl.len() + 1).over(
            "user", order_by=[-pl.col("score"), pl.col("item")]
        )
        _hits(candidates.lazy(), truth.lazy(), rank, ks).collect(engine="streaming")
    elif system == "lean":
        rank = pl.col("score").rank("ordinal", descending=True).over("user")
        _hits(candidates.lazy(), truth.lazy(), rank, ks).collect()
    else:
        import polars_rankk as rk

        evaluation = rk.evaluate(
            candidates.lazy(), truth.lazy(), k=list(ks), group_by="user", relevance="relevance"
        )
        per_group = evaluation.per_group
        if isinstance(per_group, pl.LazyFrame):
            per_group.collect()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "system": system,
        "order": order,
        "eval_s": round(seconds, 3),
        "cpu_s": round(cpu, 3),
        "rss_mib": round(peak),
    }


def run(data: Path, rounds: int, ks: tuple[int, ...] = KS) -> None:
    """Alternate the systems on both orders, each in a fresh process; print the medians."""
    found: dict[tuple[str, str], list[dict[str, object]]] = {}
    for _ in range(rounds):
        for order in ORDERS:
            for system in SYSTEMS:
                command = [sys.executable, __file__, "one", system, order, str(data)]
                command += ["--ks", ",".join(map(str, ks))]
                line = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                result = json.loads(line.strip().splitlines()[-1])
                result["load"] = round(os.getloadavg()[0], 2)
                print(json.dumps(result), flush=True)
                found.setdefault((system, order), []).append(result)
    for order in ORDERS:
        floor = statistics.median(float(str(r["eval_s"])) for r in found[("floor", order)])
        floor_rss = statistics.median(float(str(r["rss_mib"])) for r in found[("floor", order)])
        floor_cpu = statistics.median(float(str(r["cpu_s"])) for r in found[("floor", order)])
        for system in SYSTEMS:
            results = found[(system, order)]
            seconds = statistics.median(float(str(r["eval_s"])) for r in results)
            cpu = statistics.median(float(str(r["cpu_s"])) for r in results)
            rss = statistics.median(float(str(r["rss_mib"])) for r in results)
            loads = [float(str(r["load"])) for r in results]
            print(
                f"{order:8} {system:6} {seconds:7.3f} s {cpu:7.3f} CPU s {rss:6.0f} MiB  "
                f"x floor {seconds / floor:5.2f} time {cpu / floor_cpu:5.2f} CPU "
                f"{rss / floor_rss:5.2f} RSS  load {min(loads):.1f}-{max(loads):.1f}"
            )


def _cutoffs(text: str) -> tuple[int, ...]:
    return tuple(int(k) for k in text.split(","))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate")
    generate.add_argument("users", type=int)
    generate.add_argument("per_user", type=int)
    generate.add_argument("data", type=Path)
    generate.add_argument("--seed", type=int, default=7)
    measure = commands.add_parser("run")
    measure.add_argument("data", type=Path)
    measure.add_argument("--rounds", type=int, default=3)
    measure.add_argument("--ks", type=_cutoffs, default=KS, help="K,K,... (default: 1 to 100)")
    single = commands.add_parser("one")
    single.add_argument("system", choices=SYSTEMS)
    single.add_argument("order", choices=ORDERS)
    single.add_argument("data", type=Path)
    single.add_argument("--ks", type=_cutoffs, default=KS)
    arguments = parser.parse_args()
    if arguments.command == "generate":
        write_workload(arguments.users, arguments.per_user, arguments.data, arguments.seed)
    elif arguments.command == "run":
        run(arguments.data, arguments.rounds, arguments.ks)
    else:
        print(json.dumps(one(arguments.system, arguments.order, arguments.data, arguments.ks)))


if __name__ == "__main__":
    main()
