"""Cost of the beyond-accuracy metrics next to the accuracy suite.

Times `evaluate` with the accuracy metrics alone, then with every beyond-accuracy metric
(novelty, arp, long_tail_share, intra_list_diversity on a 16-dimensional embedding; coverage,
gini, entropy, personalization) added, on the workload of `generate.py`. The popularity log
is the truth table (each of its rows is one interaction). Target: at most 1.5x.

    python benchmarks/bench_beyond_accuracy.py --scale 5M --k 10
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl

import polars_rankk as rk
from benchmarks.generate import generate
from benchmarks.timing import best_of

ACCURACY = ["precision", "recall", "f1", "hit_rate", "ndcg", "average_precision", "mrr"]
BEYOND = [
    "novelty",
    "arp",
    "long_tail_share",
    "intra_list_diversity",
    "coverage",
    "gini",
    "entropy",
    "personalization",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="5M")
    parser.add_argument("--k", type=int, nargs="+", default=[10])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    folder = generate(args.scale)
    candidates = pl.read_parquet(folder / "candidates")
    truth = pl.read_parquet(folder / "truth")
    items = candidates.select("item").unique()
    rng = np.random.default_rng(0)
    features = items.with_columns(
        pl.Series("embedding", rng.normal(size=(items.height, 16)).tolist())
    )
    common = {"k": args.k, "group_by": "user", "check_values": False}

    def accuracy() -> None:
        rk.evaluate(candidates, truth, metrics=ACCURACY, **common)  # type: ignore[arg-type]

    def everything() -> None:
        res = rk.evaluate(
            candidates, truth, metrics=ACCURACY + BEYOND, popularity=truth,
            item_features=features, **common,  # type: ignore[arg-type]
        )  # fmt: skip
        assert res.catalogue is not None

    accuracy()  # warm-up: the first run pays for reading and caching
    base, full = best_of(args.repeats, accuracy, everything)
    print(
        f"{candidates.height:,} rows, k={args.k}: accuracy {base:.2f}s, with beyond-accuracy "
        f"{full:.2f}s, ratio {full / base:.2f} (target <= 1.5)"
    )


if __name__ == "__main__":
    main()
