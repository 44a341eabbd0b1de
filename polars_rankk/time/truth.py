"""The truth of a time-aware evaluation: what each user did after the cutoff, one row per item.

Truth: one row per (user, item) of the future. ``relevance`` is the highest value among the
pair's interactions (``combine="sum"``: their sum; no value column: 1, or the number of
interactions under ``"sum"``); negative values (dislikes) count as 0, not relevant. The core's
``Policy.relevance_threshold`` then decides relevance inside `evaluate`. The truth also carries
the pair's first future ``timestamp`` (and, from a split, the user's ``cutoff``, for `audit`).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import check_log

Combine = Literal["max", "sum"]


def check_combine(combine: str) -> Combine:
    """`combine` as a `Combine`, or a ValueError naming the choices."""
    if combine == "max":
        return "max"
    if combine == "sum":
        return "sum"
    raise ValueError(f"combine must be 'max' or 'sum'; got {combine!r}")


def build_truth(
    future: pl.LazyFrame,
    *,
    user: str,
    item: str,
    timestamp: str,
    value: str | None,
    combine: Combine,
    relevance: str,
    cutoffs: pl.LazyFrame | None,
) -> pl.LazyFrame:
    """The truth of a validated future log, with each user's cutoff when `cutoffs` is given."""
    if value is None:
        combined = pl.lit(1, dtype=pl.Int64) if combine == "max" else pl.len().cast(pl.Int64)
    else:
        column = pl.col(value).cast(pl.Float64)
        grade = pl.when(column > 0).then(column).otherwise(0.0)
        combined = grade.max() if combine == "max" else grade.sum()
    truth = future.group_by(user, item).agg(
        combined.alias(relevance), pl.col(timestamp).min().alias(timestamp)
    )
    if cutoffs is None:
        return truth
    return truth.join(cutoffs, on=user, how="left")


def truth_from_log(
    future: FrameLike,
    *,
    user: str = "user",
    item: str = "item",
    timestamp: str = "timestamp",
    value: str | None = None,
    combine: Combine = "max",
    relevance: str = "relevance",
    check_values: bool = True,
) -> pl.LazyFrame:
    """The truth table of a future log: one row per (user, item) with its grade.

    Parameters
    ----------
    future
        Interactions after the cutoff: `user`, `item`, `timestamp` and optionally `value`.
    user, item, timestamp
        Column names.
    value
        A numeric column whose value is the grade (click 1, purchase 3 …); None: every
        interaction has grade 1.
    combine
        Repeated (user, item) interactions: the highest grade (``"max"``) or the sum
        (``"sum"``; without `value`, the number of interactions). Negative values count 0.
    relevance
        Name of the grade column of the truth.
    check_values
        Scan for nulls first (default).

    Returns
    -------
    pl.LazyFrame
        `user`, `item`, `relevance` (Int64 without `value`, Float64 with it) and `timestamp`
        (the pair's first interaction).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time import truth_from_log
    >>> future = pl.DataFrame({"user": [1, 1, 1], "item": ["a", "a", "b"],
    ...                        "timestamp": [5, 6, 7], "value": [1, 3, -1]})
    >>> truth_from_log(future, value="value").sort("item").collect()
    shape: (2, 4)
    ┌──────┬──────┬───────────┬───────────┐
    │ user ┆ item ┆ relevance ┆ timestamp │
    │ ---  ┆ ---  ┆ ---       ┆ ---       │
    │ i64  ┆ str  ┆ f64       ┆ i64       │
    ╞══════╪══════╪═══════════╪═══════════╡
    │ 1    ┆ a    ┆ 3.0       ┆ 5         │
    │ 1    ┆ b    ┆ 0.0       ┆ 7         │
    └──────┴──────┴───────────┴───────────┘

    See Also
    --------
    split_by_time : splits a log and builds this truth from the future.
    """
    frame, _ = check_log(
        future,
        table="future",
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        check_values=check_values,
    )
    return build_truth(
        frame,
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=check_combine(combine),
        relevance=relevance,
        cutoffs=None,
    )
