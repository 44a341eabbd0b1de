"""Generate the bundled demo interaction log (fixed seed; rerun to reproduce the file exactly).

``demo_log.parquet``: eight weeks (2024-01-01 to 2024-02-25) of interactions of the demo
users (``demo_users.parquet``, made by ``make_demo_data.py``) with the same 3,000 items —
``user`` (Int64), ``item`` (Int64), ``timestamp`` (Datetime, second precision) and ``value``
(Int64: 1 click, 2 add to cart, 3 purchase). What is in it on purpose, for the time-aware
notebook (``notebooks/time_aware.ipynb``):

- **activity**: heavy users have many sessions, light users a few; **new** users only start
  in the last three weeks, so a late cutoff leaves some of them without history (cold start);
- **sessions**: bursts of 1–6 interactions a few minutes apart, separated by hours or days;
- **repeats**: about a fifth of interactions return to an item the user already had, so
  dropping seen items matters;
- **drift**: some items launch during the period and are briefly popular, so popularity
  measured on the future differs from popularity measured on the past — a leak pays.

Run from the repository root: ``.venv/bin/python data/make_demo_log.py``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl

SEED = 20240612
N_ITEMS = 3000
DIM = 8
WEEKS = 8
START = datetime(2024, 1, 1)
HERE = Path(__file__).resolve().parent
SESSIONS_PER_USER = {"light": 2.0, "medium": 4.5, "heavy": 10.0}
REPEAT_SHARE = 0.2


def _weekly_popularity(rng: np.random.Generator) -> np.ndarray:
    """(WEEKS, N_ITEMS) log-popularity: a stable base, plus launches that fade."""
    base = rng.normal(0.0, 1.0, N_ITEMS)
    popularity = np.tile(base, (WEEKS, 1))
    launched = rng.random(N_ITEMS) < 0.12
    launch_week = rng.integers(1, WEEKS, N_ITEMS)
    weeks = np.arange(WEEKS)[:, None]
    since = weeks - launch_week[None, :]
    boost = np.where(since >= 0, 4.0 * np.exp(-np.clip(since, 0, None) / 1.5), -np.inf)
    return np.where(launched[None, :], base[None, :] - 0.5 + boost, popularity)


def make(seed: int = SEED) -> pl.DataFrame:
    """Build the demo log from the demo users."""
    users = pl.read_parquet(HERE / "demo_users.parquet").sort("user")
    rng = np.random.default_rng(seed)
    items = np.arange(100_001, 100_001 + N_ITEMS)
    popularity = _weekly_popularity(rng)
    user_vec = rng.normal(size=(users.height, DIM))
    item_vec = rng.normal(size=(N_ITEMS, DIM))
    affinity = user_vec @ item_vec.T / np.sqrt(DIM) * 1.5
    span = WEEKS * 7 * 86_400  # seconds

    rows_user, rows_item, rows_time, rows_value = [], [], [], []
    for index, (user, activity, tenure) in enumerate(
        users.select(
            "user", pl.col("activity").cast(pl.String), pl.col("tenure").cast(pl.String)
        ).iter_rows()
    ):
        first = 5 * 7 * 86_400 if tenure == "new" else 0  # new users arrive in week 6
        n_sessions = 1 + rng.poisson(SESSIONS_PER_USER[activity] * (0.5 if tenure == "new" else 1))
        starts = np.sort(rng.integers(first, span - 3_600, n_sessions))
        had: list[int] = []
        for start in starts:
            week = int(start // (7 * 86_400))
            length = 1 + min(rng.poisson(1.5), 5)
            gaps = np.concatenate([[0], rng.exponential(180, length - 1)])
            moments = start + np.cumsum(gaps).astype(np.int64)
            logits = affinity[index] + popularity[week]
            fresh = np.argpartition(-(logits + rng.gumbel(size=N_ITEMS)), length)[:length]
            for position, moment in enumerate(moments):
                if had and rng.random() < REPEAT_SHARE:
                    chosen = had[rng.integers(len(had))]
                else:
                    chosen = int(fresh[position])
                    had.append(chosen)
                strength = affinity[index, chosen] + rng.normal(0, 1)
                value = 3 if strength > 4.2 else 2 if strength > 3.0 else 1
                rows_user.append(user)
                rows_item.append(items[chosen])
                rows_time.append(int(moment))
                rows_value.append(value)
    log = pl.DataFrame(
        {
            "user": np.asarray(rows_user, dtype=np.int64),
            "item": np.asarray(rows_item, dtype=np.int64),
            "seconds": np.asarray(rows_time, dtype=np.int64),
            "value": np.asarray(rows_value, dtype=np.int64),
        }
    )
    timestamp = pl.lit(START) + pl.duration(seconds=pl.col("seconds"))
    return (
        log.select("user", "item", timestamp.alias("timestamp"), "value")
        .with_columns(pl.col("timestamp").dt.cast_time_unit("us"))
        .sort("user", "timestamp", "item")
    )


def main() -> None:
    log = make()
    path = HERE / "demo_log.parquet"
    log.write_parquet(path, compression="zstd", compression_level=19, statistics=False)
    print(f"{path.name}: {log.height} rows, {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
