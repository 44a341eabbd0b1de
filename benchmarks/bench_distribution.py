"""Benchmark of the distribution module at a million groups.

Synthetic per-group values for 6 metric × K columns that look like real ones — five discrete
(hits/10, hits/R, 0/1, 1/rank, a product of the two) and one continuous nDCG — for three
systems over the same groups. Times `distribution`, `histogram`, `bootstrap` (1,000 resamples)
and `compare` (3 systems, baseline vs 2, 1,000 resamples, 10,000 permutations, t / randomization
/ Wilcoxon), prints a table and writes ``benchmarks/results/distribution.json``.

Run: ``.venv/bin/python benchmarks/bench_distribution.py [--groups 1000000]``.
Target: bootstrap and compare each under 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("POLARS_MAX_THREADS", "2")

import numpy as np
import polars as pl

from polars_rankk.stats.comparison import compare
from polars_rankk.stats.distributions import distribution, histogram
from polars_rankk.stats.resampling import bootstrap

RESULTS = Path(__file__).parent / "results" / "distribution.json"
METRICS = ("precision", "recall", "hit_rate", "ndcg", "average_precision", "mrr")


def synthetic_system(n_groups: int, skill: float, seed: int) -> pl.DataFrame:
    """Per-group values of one system: 6 metric × K columns at K = 10, long format."""
    rng = np.random.default_rng(seed)
    relevant = 1 + rng.poisson(3, n_groups)
    chance = np.clip(rng.beta(1.2, 6, n_groups) * skill, 0, 1)
    hits = np.minimum(rng.binomial(10, chance), relevant)
    first = np.where(hits > 0, np.minimum(rng.geometric(0.45, n_groups), 10), 0)
    reciprocal = np.where(first > 0, 1 / np.maximum(first, 1), 0.0)
    recall = hits / relevant
    values = {
        "precision": hits / 10,
        "recall": recall,
        "hit_rate": (hits > 0).astype(np.float64),
        "ndcg": np.clip(recall * rng.beta(5, 2, n_groups), 0, 1),  # continuous
        "average_precision": recall * reciprocal,
        "mrr": reciprocal,
    }
    matrix = np.column_stack([values[m] for m in METRICS])
    return pl.DataFrame(
        {
            "user": np.repeat(np.arange(n_groups, dtype=np.int64), len(METRICS)),
            "metric": np.tile(np.array(METRICS), n_groups),
            "k": np.full(n_groups * len(METRICS), 10, dtype=np.int64),
            "value": matrix.ravel(),
        }
    )


def timed(label: str, action: Callable[[], Any], rows: list[dict[str, Any]]) -> Any:
    start = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - start
    rows.append({"step": label, "seconds": round(seconds, 3)})
    print(f"{label:<58} {seconds:8.2f} s", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    n = args.groups
    threads = os.environ["POLARS_MAX_THREADS"]
    print(f"{n:,} groups x {len(METRICS)} metric x K columns, POLARS_MAX_THREADS={threads}")
    rows: list[dict[str, Any]] = []
    systems = timed(
        "generate 3 systems",
        lambda: {name: synthetic_system(n, skill, seed)
                 for name, skill, seed in (("A", 1.0, 1), ("B", 1.05, 2), ("C", 0.95, 3))},
        rows,
    )  # fmt: skip
    a = systems["A"]
    timed("distribution (eager)", lambda: distribution(a), rows)
    timed("distribution (lazy input, collected)", lambda: distribution(a.lazy()).collect(), rows)
    timed("histogram, 10 bins", lambda: histogram(a), rows)
    ci = timed(
        f"bootstrap, {args.resamples} resamples, percentile",
        lambda: bootstrap(a, n_resamples=args.resamples, seed=0),
        rows,
    )
    timed(
        f"bootstrap, {args.resamples} resamples, BCa",
        lambda: bootstrap(a, n_resamples=args.resamples, seed=0, method="bca"),
        rows,
    )
    result = timed(
        f"compare 3 systems (baseline), {args.resamples} resamples, {args.permutations} perms",
        lambda: compare(systems, baseline="A", n_resamples=args.resamples,
                        n_permutations=args.permutations, seed=0),
        rows,
    )  # fmt: skip
    timed(
        "compare 3 systems, lazy inputs in another row order (join path)",
        lambda: compare({name: f.lazy().reverse() if name == "B" else f.lazy()
                         for name, f in systems.items()}, baseline="A",
                        n_resamples=args.resamples, n_permutations=args.permutations, seed=0),
        rows,
    )  # fmt: skip
    with pl.Config(tbl_rows=20, tbl_cols=12, tbl_width_chars=160):
        print(ci)
        shown = ["metric", "system", "diff", "ci_low", "ci_high", "p_value_t"]
        shown += ["p_value_randomization", "p_value_wilcoxon", "randomization_method"]
        print(result.select(shown))
    report = {
        "groups": n,
        "columns": len(METRICS),
        "resamples": args.resamples,
        "permutations": args.permutations,
        "polars_max_threads": os.environ["POLARS_MAX_THREADS"],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "polars": pl.__version__,
        "numpy": np.__version__,
        "timings": rows,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
