"""Cost of label probabilities: `evaluate(..., label_probability="p")` against the same
evaluation under deterministic labels.

A `p` column is added to the truth of a `gen.py` workload (``gen.py 50000 100 DIR``: 5M
candidate rows): `--uncertain` truth rows per group get a probability in (0.5, 1), the
others 1. Each group then has 2**uncertain label outcomes, each evaluated (enumeration up to
4096): the cost grows with the outcomes, which the figures show. `--users` keeps the first
users only. `--binary` makes every grade 1 (binary labels): the expectations are then computed
by the recursion over ranks, whatever the number of outcomes.

    python benchmarks/bench_label_probability.py DIR5M --uncertain 1
    python benchmarks/bench_label_probability.py DIR5M --uncertain 6 --users 5000
    python benchmarks/bench_label_probability.py DIR5M --uncertain 6 --users 5000 --binary
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

import polars_rankk as rk
from benchmarks.timing import best_of

METRICS = ["precision", "recall", "ndcg", "average_precision", "mrr", "hit_rate", "r_precision"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("--uncertain", type=int, default=1)
    parser.add_argument("--users", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--binary", action="store_true", help="every grade 1")
    args = parser.parse_args()
    candidates = pl.read_parquet(args.data / "candidates.parquet")
    truth = pl.read_parquet(args.data / "truth.parquet")
    if args.users is not None:
        candidates = candidates.filter(pl.col("user") < args.users)
        truth = truth.filter(pl.col("user") < args.users)
    if args.binary:
        truth = truth.with_columns(pl.lit(1).alias("relevance"))
    position = pl.int_range(pl.len()).over("user")
    uniform = pl.struct("user", "item").hash(1).cast(pl.Float64) / 2.0**64
    truth = truth.with_columns(
        p=pl.when(position < args.uncertain).then(0.5 + uniform / 2).otherwise(1.0)
    )
    options = {"k": [10], "metrics": METRICS, "group_by": "user"}
    plain, expected = best_of(
        args.repeats,
        lambda: rk.evaluate(candidates, truth.drop("p"), **options).summary(),
        lambda: rk.evaluate(candidates, truth, label_probability="p", **options).summary(),
    )
    methods = rk.evaluate(candidates, truth, label_probability="p", **options).label_methods
    print("methods:", sorted(set(methods["method"])) if methods is not None else None)
    print(
        f"rows={candidates.height} groups={truth['user'].n_unique()} "
        f"outcomes_per_group=2**{args.uncertain} binary={args.binary} deterministic={plain:.2f}s "
        f"label_probability={expected:.2f}s ratio={expected / plain:.1f}x"
    )


if __name__ == "__main__":
    main()
