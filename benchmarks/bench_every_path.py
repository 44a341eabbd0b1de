"""The ways users reach the kernel, each against one `evaluate`: K-curves, compare, metric
expressions in ``group_by().agg()``, and the C/W/L tails as expressions.

    python benchmarks/bench_every_path.py CANDIDATES.parquet TRUTH.parquet [--users N]

Reads ``(user, item, score)`` candidates and ``(user, item, relevance)`` truth (for example
``benchmarks/generate.py``'s), keeps the first `--users` users (default all), and prints one
JSON line per phase: the median of 3 runs of the path and of its baseline, their ratio, and
the load average when the phase ran (ratios are measured in one run, side by side).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polars_rankk as rk  # noqa: E402


def _median(run: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _phase(name: str, path: Callable[[], object], baseline: Callable[[], object]) -> None:
    path_s, baseline_s = _median(path), _median(baseline)
    print(
        json.dumps(
            {
                "phase": name,
                "path_s": round(path_s, 3),
                "baseline_s": round(baseline_s, 3),
                "ratio": round(path_s / baseline_s, 2),
                "load_average": [round(x, 2) for x in os.getloadavg()],
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("candidates")
    parser.add_argument("truth")
    parser.add_argument("--users", type=int, default=None)
    parser.add_argument("--tail-users", type=int, default=200)
    args = parser.parse_args()
    candidates = pl.read_parquet(args.candidates)
    truth = pl.read_parquet(args.truth)
    if args.users is not None:
        candidates = candidates.filter(pl.col("user") < args.users)
        truth = truth.filter(pl.col("user") < args.users)
    options = {"group_by": "user"}

    def evaluate_once() -> object:
        return rk.evaluate(candidates, truth, k=10, **options).summary()

    for ci in (False, True):
        _phase(
            f"k_curve k_max=100 ci={ci} (eager)",
            lambda ci=ci: rk.k_curve(
                {"A": candidates}, truth, k_max=100, ci=ci, progress=False, **options
            ),
            evaluate_once,
        )

    # Three systems: the same candidates, scores shifted by a different amount per item.
    systems = pl.concat(
        [
            candidates.with_columns(
                system=pl.lit(name), score=pl.col("score") + shift * (pl.col("item") % 7)
            )
            for shift, name in enumerate(("A", "B", "C"))
        ]
    )

    def evaluate_systems() -> rk.Evaluation:
        return rk.evaluate(systems, truth, k=10, system="system", **options)

    _phase(
        "compare 3 systems vs evaluate(system=)",
        lambda: rk.compare(evaluate_systems(), progress=False),
        lambda: evaluate_systems().summary(),
    )

    labelled = rk.label(candidates, truth, group_by="user")
    five = [
        rk.precision_at_k("relevance", by="score", k=10, item="item"),
        rk.recall_at_k("relevance", by="score", k=10, item="item", unretrieved="unretrieved"),
        rk.ndcg_at_k("relevance", by="score", k=10, item="item", unretrieved="unretrieved"),
        rk.average_precision_at_k(
            "relevance", by="score", k=10, item="item", unretrieved="unretrieved"
        ),
        rk.mrr_at_k("relevance", by="score", k=10, item="item"),
    ]
    _phase(
        "five expressions in group_by().agg() vs evaluate",
        lambda: labelled.group_by("user").agg(five),
        lambda: rk.evaluate(
            candidates,
            truth,
            k=10,
            metrics=["precision", "recall", "ndcg", "average_precision", "mrr"],
            **options,
        ).summary(),
    )

    few = labelled.filter(pl.col("user") < args.tail_users)
    few_candidates = candidates.filter(pl.col("user") < args.tail_users)
    few_truth = truth.filter(pl.col("user") < args.tail_users)
    for name in ("inst", "nerr9", "nerr11"):
        expression = getattr(rk, f"{name}_at_k")(
            "relevance", by="score", k=10, item="item", unretrieved="unretrieved"
        )
        _phase(
            f"{name}@10 expression ({args.tail_users} users; {len(str(expression))} chars)",
            lambda expression=expression: few.group_by("user").agg(expression),
            lambda name=name: rk.evaluate(
                few_candidates, few_truth, k=10, metrics=[name], **options
            ).summary(),
        )


if __name__ == "__main__":
    main()
