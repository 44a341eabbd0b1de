"""Cost of trec_eval's further measures next to the default metric set.

Times `evaluate` with the default metrics alone, then with every measure of the trec_eval
family (`polars_rankk.core.metrics.families.trec_eval`: iprec_at_recall_*, 11pt_avg,
Rprec_mult_*, relative_P, unj, infAP, set_relative_P, set_map, utility,
num_nonrel_judged_ret) added, and then with trec_eval's gain measures
(`families.trec_gain`: G, ndcg_rel, Rndcg, trec_eval's rbp, which join the ideal ranking)
added, on the workload of `generate.py`. Both wall time and the
process's CPU time are reported (the machine may be shared: compare the ratio of one run),
with the load average beside them.

    python benchmarks/bench_trec_eval_measures.py --scale 5M --k 10
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import polars as pl

import polars_rankk as rk
from benchmarks.generate import generate
from polars_rankk.core.metrics.families import trec_eval as family
from polars_rankk.core.metrics.families import trec_gain
from polars_rankk.core.metrics.registry import DEFAULT_METRICS


def _best_of(repeats: int, *runs: Callable[[], None]) -> list[tuple[float, float]]:
    """The best (wall, CPU) seconds of each run over `repeats` rounds, the runs alternating
    within a round so that a machine whose load varies slows them alike."""
    best = [(float("inf"), float("inf"))] * len(runs)
    for _ in range(repeats):
        for index, run in enumerate(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            measured = (time.perf_counter() - wall, time.process_time() - cpu)
            best[index] = (min(best[index][0], measured[0]), min(best[index][1], measured[1]))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="5M")
    parser.add_argument("--k", type=int, nargs="+", default=[10])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    folder = generate(args.scale)
    candidates = pl.read_parquet(folder / "candidates")
    truth = pl.read_parquet(folder / "truth")
    common = {"k": args.k, "group_by": "user", "check_values": False}
    default = list(DEFAULT_METRICS)
    added = [metric.name for metric in family.METRICS]
    gains = [metric.name for metric in trec_gain.METRICS]

    def defaults() -> None:
        rk.evaluate(candidates, truth, metrics=default, **common)  # type: ignore[arg-type]

    def everything() -> None:
        rk.evaluate(candidates, truth, metrics=default + added, **common)  # type: ignore[arg-type]

    def with_gains() -> None:
        rk.evaluate(candidates, truth, metrics=default + gains, **common)  # type: ignore[arg-type]

    defaults()  # warm-up: the first run pays for reading and caching
    runs = _best_of(args.repeats, defaults, everything, with_gains)
    (base_wall, base_cpu), (full_wall, full_cpu), (gain_wall, gain_cpu) = runs
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"{candidates.height:,} rows, k={args.k}, load average {load}: default metrics "
        f"{base_wall:.2f}s wall / {base_cpu:.2f}s CPU; with the {len(added)} trec_eval "
        f"measures {full_wall:.2f}s wall / {full_cpu:.2f}s CPU; ratio {full_wall / base_wall:.2f} "
        f"wall, {full_cpu / base_cpu:.2f} CPU; with the {len(gains)} gain measures "
        f"{gain_wall:.2f}s wall / {gain_cpu:.2f}s CPU; ratio {gain_wall / base_wall:.2f} wall, "
        f"{gain_cpu / base_cpu:.2f} CPU"
    )


if __name__ == "__main__":
    main()
