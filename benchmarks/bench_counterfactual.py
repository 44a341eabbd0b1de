"""Cost of a counterfactual estimate next to `evaluate` on the same rows.

The candidates of `generate.py`'s workload are the new ranking; a synthetic log shows each
user's distinct candidate items once (the workload repeats some), in a random order
(positions 1, 2, ...), with position-based clicks (examination 1/position, attractiveness
rising with the score). Both paths read lazy Parquet
scans. `evaluate` computes its default metrics at K = 10 (its summary, the default path);
`evaluate_counterfactual` computes IPS, SNIPS and DR at K = 10 under the position-based model
with the examination given, and a 200-resample bootstrap over users, its plan collected by
`--engine`: as it runs (the new ranking ranked, and the log's per-slot sums read, by the
kernel where it is loaded) and in pure Polars.

    python benchmarks/bench_counterfactual.py --scale 5M [--engine streaming] [--order random]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
import polars as pl

import polars_rankk as rk
from benchmarks.generate import generate
from benchmarks.timing import median_of

K = 10


def _log(folder: Path) -> Path:
    """The synthetic log beside the workload (written once)."""
    path = folder / "counterfactual_log_distinct.parquet"
    if path.exists():
        return path
    # A logged list shows an item once (evaluate_counterfactual refuses a repeat).
    candidates = pl.read_parquet(folder / "candidates").unique(
        ["user", "item"], keep="first", maintain_order=True
    )
    rng = np.random.default_rng(0)
    shuffled = candidates.with_columns(pl.Series("shuffle", rng.random(candidates.height)))
    log = shuffled.with_columns(
        pl.col("shuffle").rank("ordinal").over("user").cast(pl.Int64).alias("position")
    )
    chance = (1.0 / log["position"].to_numpy()) * (0.05 + 0.85 * log["score"].to_numpy() ** 4)
    clicks = (rng.random(log.height) < chance).astype(np.int8)
    log.select("user", "item", "position").with_columns(pl.Series("click", clicks)).write_parquet(
        path
    )
    return path


def _shuffled(path: Path) -> Path:
    """The rows of `path` (a file or a folder of Parquet files) in random order, written once
    beside it."""
    target = path.parent / f"{path.stem}_random_order.parquet"
    if not target.exists():
        frame = pl.read_parquet(path)
        frame.sample(fraction=1.0, shuffle=True, seed=0).write_parquet(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="5M")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engine", default="auto", choices=["auto", "in-memory", "streaming"])
    parser.add_argument(
        "--order", default="grouped", choices=["grouped", "random"],
        help="the rows of both tables as written (grouped by user) or shuffled",
    )  # fmt: skip
    args = parser.parse_args()
    folder = generate(args.scale)
    log_path, candidates_path = _log(folder), folder / "candidates"
    if args.order == "random":
        log_path, candidates_path = _shuffled(log_path), _shuffled(candidates_path)
    examination = [1.0 / position for position in range(1, 101)]

    def evaluate() -> None:
        rk.evaluate(
            pl.scan_parquet(candidates_path), pl.scan_parquet(folder / "truth"),
            k=K, group_by="user",
        ).summary()  # fmt: skip

    def counterfactual() -> None:
        result = rk.evaluate_counterfactual(
            pl.scan_parquet(log_path), pl.scan_parquet(candidates_path), group_by="user",
            k=K, estimator=["ips", "snips", "dr"], examination=examination, n_bootstrap=200,
            engine=args.engine,
        )  # fmt: skip
        assert result.overall.height == 3

    def ranked_in_polars() -> None:
        # The same estimate in pure Polars (the reference path: the ranking and the log's
        # per-slot sums): the kernel's switch is read at each call.
        os.environ["POLARS_RANKK_NATIVE"] = "0"
        try:
            counterfactual()
        finally:
            os.environ.pop("POLARS_RANKK_NATIVE")

    evaluate()  # warm-up: the first runs pay for reading and caching
    counterfactual()
    base, estimate, in_polars = median_of(args.repeats, evaluate, counterfactual, ranked_in_polars)
    rows = pl.scan_parquet(log_path).select(pl.len()).collect().item()
    print(
        f"{rows:,} log rows ({args.order}), K={K}: evaluate {base:.2f}s, evaluate_counterfactual "
        f"(ips, snips, dr, 200 resamples, engine {args.engine}) {estimate:.2f}s, "
        f"ratio {estimate / base:.2f}; in pure Polars {in_polars:.2f}s, "
        f"ratio {in_polars / base:.2f} (medians of {args.repeats}); "
        f"load average {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
