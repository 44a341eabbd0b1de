"""Generate the benchmark workload: candidates (user, item, score) and graded truth.

100 candidates per user, about 2% of scores tied with a neighbour, graded truth (1..3) with
about a third of the relevant items outside the candidate pool. Fixed seeds; written in
chunks of users so that any scale fits in memory.

    python benchmarks/generate.py --scale 5M          # Parquet
    python benchmarks/generate.py --scale 5M --trec   # and the same as TREC run + qrels text
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

SCALES = {"100K": 100_000, "1M": 1_000_000, "5M": 5_000_000, "50M": 50_000_000, "1B": 1_000_000_000}
CANDIDATES_PER_USER = 100
USERS_PER_CHUNK = 50_000
DATA = Path(__file__).parent / "data"


def _chunk(first_user: int, n_users: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    n = n_users * CANDIDATES_PER_USER
    users = np.repeat(
        np.arange(first_user, first_user + n_users, dtype=np.int64), CANDIDATES_PER_USER
    )
    # Items drawn from a catalogue of 1M, distinct within a user with overwhelming odds.
    items = rng.integers(0, 1_000_000, size=n, dtype=np.int64)
    scores = rng.random(n).astype(np.float64)
    # ~2% ties: copy the previous row's score (same user except at chunk edges).
    tie = rng.random(n) < 0.02
    tie[0] = False
    scores[tie] = scores[np.flatnonzero(tie) - 1]
    candidates = pl.DataFrame({"user": users, "item": items, "score": scores})
    # Truth: ~6 relevant items per user; two thirds picked from the candidates (biased to
    # high scores), one third from outside the pool.
    n_truth_pool = rng.poisson(4, size=n_users)
    n_truth_out = rng.poisson(2, size=n_users)
    pooled_users = np.repeat(np.arange(n_users), n_truth_pool)
    offsets = rng.integers(0, CANDIDATES_PER_USER, size=pooled_users.size)
    pooled_rows = pooled_users * CANDIDATES_PER_USER + offsets
    outside_users = np.repeat(np.arange(n_users), n_truth_out)
    truth = pl.DataFrame(
        {
            "user": np.concatenate([users[pooled_rows], first_user + outside_users]),
            "item": np.concatenate(
                [
                    items[pooled_rows],
                    rng.integers(1_000_000, 2_000_000, size=outside_users.size, dtype=np.int64),
                ]
            ),
            "relevance": rng.integers(1, 4, size=pooled_rows.size + outside_users.size),
        }
    ).unique(["user", "item"], keep="first", maintain_order=True)
    return candidates, truth


def generate(scale: str, *, force: bool = False) -> Path:
    """Write benchmarks/data/<scale>/{candidates,truth}/part-*.parquet; return the folder."""
    rows = SCALES[scale]
    folder = DATA / scale
    done = folder / "_SUCCESS"
    if done.exists() and not force:
        return folder
    n_users = rows // CANDIDATES_PER_USER
    for sub in ("candidates", "truth"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
        for old in (folder / sub).glob("*.parquet"):
            old.unlink()
    for part, first in enumerate(range(0, n_users, USERS_PER_CHUNK)):
        count = min(USERS_PER_CHUNK, n_users - first)
        candidates, truth = _chunk(first, count, seed=part)
        candidates.write_parquet(folder / "candidates" / f"part-{part:05d}.parquet")
        truth.write_parquet(folder / "truth" / f"part-{part:05d}.parquet")
    done.touch()
    return folder


def generate_trec(scale: str, *, force: bool = False) -> tuple[Path, Path]:
    """The same workload as TREC text, ``benchmarks/data/<scale>/{run,qrels}.txt``: a run
    ``user Q0 item rank score tag`` (one line per distinct candidate, single spaces, ranks by score)
    and qrels ``user 0 item relevance``; return both paths."""
    folder = generate(scale)
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    if run.exists() and qrels.exists() and not force:
        return run, qrels
    # trec_eval and pytrec_eval refuse a document twice in one query's ranking.
    candidates = pl.scan_parquet(folder / "candidates" / "*.parquet").unique(
        ["user", "item"], keep="first", maintain_order=True
    )
    rank = pl.int_range(1, pl.len() + 1).over("user", order_by=-pl.col("score"))
    candidates.select(
        pl.concat_str(
            pl.col("user"),
            pl.lit("Q0"),
            pl.col("item"),
            rank,
            pl.col("score"),
            pl.lit("bench"),
            separator=" ",
        )
    ).sink_csv(run, include_header=False, quote_style="never")
    pl.scan_parquet(folder / "truth" / "*.parquet").select(
        pl.concat_str(pl.col("user"), pl.lit("0"), pl.col("item"), pl.col("relevance"),
                      separator=" ")
    ).sink_csv(qrels, include_header=False, quote_style="never")  # fmt: skip
    return run, qrels


def generate_single(scale: str) -> tuple[Path, Path]:
    """The workload as one Parquet file each, ``candidates.parquet`` and ``truth.parquet``,
    for the ``rankk`` command (which reads one file per argument); return both paths."""
    folder = generate(scale)
    paths = folder / "candidates.parquet", folder / "truth.parquet"
    for path in paths:
        if not path.exists():
            pl.scan_parquet(folder / path.stem / "*.parquet").sink_parquet(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", choices=list(SCALES), default="5M")
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--trec", action="store_true", help="also write run.txt and qrels.txt")
    args = parser.parse_args()
    print(generate(args.scale, force=args.force))
    if args.trec:
        print(*generate_trec(args.scale, force=args.force))


if __name__ == "__main__":
    main()
