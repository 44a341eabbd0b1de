"""Generate the bundled demo dataset (fixed seed; rerun to reproduce the files exactly).

A synthetic e-commerce recommender evaluated offline:

- ``demo_users.parquet``: one row per user — ``user`` (Int64), ``activity`` (light / medium /
  heavy, from the number of past interactions), ``tenure`` (new / returning) and
  ``past_interactions``.
- ``demo_truth.parquet``: what each user did in the test period — ``user``, ``item`` and a
  graded ``relevance``: 0 = shown but ignored, 1 = click, 2 = add to cart, 3 = purchase.
  Some users have only grade-0 rows (no relevant item); many relevant items lie outside every
  system's top-50 (truth outside the candidate pool).
- ``demo_candidates.parquet``: the top-50 lists of three systems — ``system``, ``user``,
  ``item``, ``score``:

  * ``popularity``: the same most-popular items for everyone, scored by a rounded
    popularity count (large blocks of tied scores);
  * ``two_tower``: a noisy latent-factor model; new users get short lists (cold start), a few
    get none, and a pipeline bug duplicates some rows;
  * ``two_tower_v2``: the same model retrained with more signal for active users — better for
    heavy users, about the same for light ones.

Run from the repository root: ``.venv/bin/python data/make_demo_data.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

SEED = 20240611
N_USERS = 2000
N_ITEMS = 3000
DIM = 16
LIST_LENGTH = 50
HERE = Path(__file__).resolve().parent


def _softmax_sample(rng: np.random.Generator, logits: np.ndarray, size: int) -> np.ndarray:
    """`size` distinct indices drawn with probability proportional to exp(logits)."""
    # Gumbel top-k: exact sampling without replacement.
    gumbel = logits + rng.gumbel(size=logits.shape)
    return np.argpartition(-gumbel, size)[:size]


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n highest scores, best first."""
    idx = np.argpartition(-scores, n)[:n]
    return idx[np.argsort(-scores[idx], kind="stable")]


def make(seed: int = SEED) -> dict[str, pl.DataFrame]:
    """Build the three demo tables."""
    rng = np.random.default_rng(seed)
    users = np.arange(1, N_USERS + 1)
    items = np.arange(100_001, 100_001 + N_ITEMS)

    # Users: activity from a heavy-tailed count of past interactions, some new users.
    tenure_new = rng.random(N_USERS) < 0.2
    past = np.where(tenure_new, rng.poisson(2, N_USERS), rng.lognormal(2.6, 0.9, N_USERS))
    past = np.round(past).astype(np.int64)
    activity = np.where(past < 8, "light", np.where(past < 30, "medium", "heavy"))

    # Items: latent vectors and a Zipf-like popularity.
    item_vec = rng.normal(size=(N_ITEMS, DIM))
    log_pop = rng.normal(0.0, 1.0, N_ITEMS)
    user_vec = rng.normal(size=(N_USERS, DIM))
    affinity = user_vec @ item_vec.T / np.sqrt(DIM) * 2.6 + 0.9 * log_pop

    # Truth: interactions in the test period, more for active users.
    n_pos = np.clip(
        rng.poisson(np.where(activity == "light", 1.5, np.where(activity == "medium", 4, 9))),
        0,
        40,
    )
    truth_rows: list[tuple[int, int, int]] = []
    for u in range(N_USERS):
        count = int(n_pos[u])
        shown_only = rng.random() < 0.04  # the user saw recommendations but acted on none
        chosen = _softmax_sample(rng, affinity[u], count + 5)
        positives = chosen[: 0 if shown_only else count]
        for i in positives:
            strength = affinity[u, i] + rng.normal(0, 1)
            grade = 3 if strength > 6.5 else 2 if strength > 5.0 else 1
            truth_rows.append((users[u], items[i], grade))
        n_ignored = rng.integers(1, 4) if shown_only or rng.random() < 0.3 else 0
        for i in chosen[count : count + n_ignored]:
            truth_rows.append((users[u], items[i], 0))
    truth = pl.DataFrame(
        truth_rows, schema={"user": pl.Int64, "item": pl.Int64, "relevance": pl.Int64}, orient="row"
    ).sort("user", "item")

    # Systems.
    parts = []
    popularity_score = np.round(np.exp(log_pop) * 20)  # integer counts: many ties
    pop_top = _top(popularity_score + rng.random(N_ITEMS) * 1e-6, LIST_LENGTH)
    parts.append(
        pl.DataFrame(
            {
                "system": "popularity",
                "user": np.repeat(users, LIST_LENGTH),
                "item": np.tile(items[pop_top], N_USERS),
                "score": np.tile(popularity_score[pop_top], N_USERS),
            }
        )
    )
    # Signal the models recover about each user grows with past activity.
    signal = np.clip(np.log1p(past) / np.log1p(60), 0.05, 1.0)
    for name, noise, boost in (("two_tower", 0.8, 0.0), ("two_tower_v2", 0.8, 0.5)):
        strength = np.clip(signal + boost * signal**2, 0.0, 1.6)[:, None]
        estimate = strength * user_vec + rng.normal(0, noise, size=user_vec.shape)
        model_rng = np.random.default_rng(seed + len(name))
        scores = estimate @ item_vec.T / np.sqrt(DIM) * 2.6 + 0.9 * log_pop
        scores += model_rng.normal(0, 0.3, size=scores.shape)
        rows_u, rows_i, rows_s = [], [], []
        for u in range(N_USERS):
            length = LIST_LENGTH
            if tenure_new[u]:
                if model_rng.random() < 0.05:
                    continue  # cold start: no list at all
                length = int(model_rng.integers(3, 30))
            top = _top(scores[u], length)
            rows_u.append(np.full(length, users[u]))
            rows_i.append(items[top])
            rows_s.append(np.round(scores[u, top], 2))  # rounded: some ties
        frame = pl.DataFrame(
            {
                "system": name,
                "user": np.concatenate(rows_u),
                "item": np.concatenate(rows_i),
                "score": np.concatenate(rows_s),
            }
        )
        if name == "two_tower":  # a join bug upstream duplicated ~0.3% of rows
            frame = pl.concat([frame, frame.sample(fraction=0.003, seed=seed)])
        parts.append(frame)
    candidates = pl.concat(parts).sort(
        "system", "user", "score", "item", descending=[False, False, True, False]
    )

    user_table = pl.DataFrame(
        {
            "user": users,
            "activity": activity,
            "tenure": np.where(tenure_new, "new", "returning"),
            "past_interactions": past,
        }
    ).with_columns(
        pl.col("activity").cast(pl.Enum(["light", "medium", "heavy"])),
        pl.col("tenure").cast(pl.Enum(["new", "returning"])),
    )
    return {"candidates": candidates, "truth": truth, "users": user_table}


def main() -> None:
    tables = make()
    for name, frame in tables.items():
        path = HERE / f"demo_{name}.parquet"
        frame.write_parquet(path, compression="zstd", compression_level=19, statistics=False)
        print(f"{path.name}: {frame.height} rows, {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
