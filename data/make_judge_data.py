"""Make the small judge example: three systems, a model judge's label probabilities on every
query, people's labels on a fifth of the queries (fixed seed: rerun to reproduce exactly).

    python data/make_judge_data.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
QUERIES, ITEMS, HUMAN_QUERIES = 200, 20, 40


def main() -> None:
    rng = np.random.default_rng(2026)
    query = np.repeat(np.arange(QUERIES), ITEMS)
    item = np.tile(np.arange(ITEMS), QUERIES)
    # The true grades (0, 1, 2); people see them.
    grade = rng.choice([0, 1, 2], size=query.size, p=[0.6, 0.3, 0.1])
    # The judge: right most of the time, generous on grade 0 (a bias towards relevance),
    # and says how sure it is.
    said = np.where(rng.random(query.size) < 0.75, grade, rng.choice([0, 1, 2], query.size))
    said = np.where((grade == 0) & (rng.random(query.size) < 0.25), 1, said)
    sure = np.round(rng.uniform(0.6, 0.95, query.size), 2)
    judge = pl.DataFrame({"query": query, "item": item, "relevance": said, "p": sure})
    judge = judge.filter(pl.col("relevance") > 0)  # the rest of the mass is grade 0
    human = pl.DataFrame({"query": query, "item": item, "relevance": grade}).filter(
        pl.col("query") < HUMAN_QUERIES
    )
    systems = []
    for name, skill in (("bm25", 0.6), ("dense", 1.0), ("hybrid", 1.3)):
        score = np.round(skill * grade + rng.normal(0, 1, query.size), 2)
        systems.append(pl.DataFrame({"system": name, "query": query, "item": item,
                                     "score": score}))  # fmt: skip
    pl.concat(systems).write_parquet(HERE / "judges_candidates.parquet")
    judge.write_parquet(HERE / "judges_truth.parquet")
    human.write_parquet(HERE / "judges_human.parquet")


if __name__ == "__main__":
    main()
