"""Time-aware splits of an interaction log: history before a cutoff, truth after it.

A ranking made at time t may use only what was observable before t, and its relevance comes
from after t. `split_by_time`, `split_last_n`, `split_last_fraction` and `rolling_splits` cut a
log ``(user, item, timestamp[, value])`` into a **history** and a **future**, and build the
**truth** from the future (`polars_rankk.time.truth`). The resulting `TemporalSplit` can then
drop the items users already had (`polars_rankk.drop_seen`) and audit candidates for leakage
(`polars_rankk.audit`).

Conventions
-----------
- The cutoff belongs to the future: history is ``timestamp < cutoff``, future ``>= cutoff``.
- Per-user cutoffs never separate interactions with the same timestamp: the future of
  `split_last_n` holds every interaction at or after the user's n-th most recent timestamp,
  so it holds more than n rows when timestamps tie at the boundary.
- The truth carries each pair's first future ``timestamp`` and the user's ``cutoff``.
- Everything is lazy: the frames of a split are ``pl.LazyFrame`` plans over the log.

Rolling evaluation: `rolling_splits` cuts a log at ``start``, ``start + every``, … and gives one
`TemporalSplit` per period: the futures tile the timeline, the histories expand (or slide, with
`history_window`). Evaluate the periods together with `polars_rankk.evaluate_over_time` on the
concatenated truths.
"""

from __future__ import annotations

import warnings
from typing import Literal

import polars as pl

from polars_rankk.core import EmptyResultWarning
from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import (
    CUTOFF,
    Duration,
    TimePoint,
    cutoff_literal,
    cutoff_table,
    duration_text,
    offset,
)
from polars_rankk.time.temporal_split import TemporalSplit, read_log
from polars_rankk.time.truth import Combine

_CUTOFF = "_rk_cutoff"
_FUTURE = "_rk_future"


def split_by_time(
    log: FrameLike,
    cutoff: TimePoint | FrameLike,
    *,
    horizon: Duration | None = None,
    user: str = "user",
    item: str = "item",
    timestamp: str = "timestamp",
    value: str | None = None,
    combine: Combine = "max",
    relevance: str = "relevance",
    check_values: bool = True,
) -> TemporalSplit:
    """Split a log at one cutoff time, or at a cutoff per user.

    Parameters
    ----------
    log
        Interactions: `user`, `item`, `timestamp` (Datetime, Date or integer), any others.
    cutoff
        A datetime / date / int for every user, or a table (`user`, ``cutoff``) with one
        cutoff per user; users it does not list keep all their rows in the history.
    horizon
        Keep only the future before ``cutoff + horizon`` (``"1w"``, a timedelta, an int for
        integer clocks); later rows belong to neither side. None: the whole future.
    user, item, timestamp, value, combine, relevance
        Columns, and how the truth is built (see `truth_from_log`).
    check_values
        Scan the log once for nulls first (default).

    Returns
    -------
    TemporalSplit
        Lazy ``history`` (``timestamp < cutoff``), ``future`` (``>= cutoff``), ``truth`` and
        ``cutoffs``.

    Examples
    --------
    >>> import polars as pl
    >>> from datetime import date
    >>> from polars_rankk.time.splits import split_by_time
    >>> log = pl.DataFrame({"user": [1, 1, 1, 2], "item": ["a", "b", "c", "a"],
    ...                     "timestamp": [date(2024, 1, d) for d in (1, 5, 9, 9)]})
    >>> split = split_by_time(log, date(2024, 1, 5))
    >>> split.history.collect()["item"].to_list()
    ['a']
    >>> split.truth.sort("user", "item").collect()
    shape: (3, 5)
    ┌──────┬──────┬───────────┬────────────┬────────────┐
    │ user ┆ item ┆ relevance ┆ timestamp  ┆ cutoff     │
    │ ---  ┆ ---  ┆ ---       ┆ ---        ┆ ---        │
    │ i64  ┆ str  ┆ i64       ┆ date       ┆ date       │
    ╞══════╪══════╪═══════════╪════════════╪════════════╡
    │ 1    ┆ b    ┆ 1         ┆ 2024-01-05 ┆ 2024-01-05 │
    │ 1    ┆ c    ┆ 1         ┆ 2024-01-09 ┆ 2024-01-05 │
    │ 2    ┆ a    ┆ 1         ┆ 2024-01-09 ┆ 2024-01-05 │
    └──────┴──────┴───────────┴────────────┴────────────┘

    See Also
    --------
    split_last_n, split_last_fraction : per-user cutoffs from each user's own timeline.
    rolling_splits : one split per period.
    """
    source = read_log(
        log,
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=combine,
        relevance=relevance,
        check_values=check_values,
    )
    frame, dtype, moment = source.frame, source.dtype, pl.col(timestamp)
    if isinstance(cutoff, pl.DataFrame | pl.LazyFrame):
        cutoffs = cutoff_table(cutoff, user=user, dtype=dtype, check_values=check_values)
        joined = frame.join(
            cutoffs.rename({CUTOFF: _CUTOFF}), on=user, how="left", maintain_order="left"
        )
        boundary = pl.col(_CUTOFF)
        history = joined.filter(boundary.is_null() | (moment < boundary)).drop(_CUTOFF)
        in_future = moment >= boundary
        if horizon is not None:
            in_future &= moment < offset(boundary, horizon, dtype, what="horizon")
        return source.split(history, joined.filter(in_future).drop(_CUTOFF), cutoffs, None)
    boundary = cutoff_literal(cutoff, dtype)
    if check_values:
        _warn_empty_side(frame, moment, boundary, cutoff)
    in_future = moment >= boundary
    if horizon is not None:
        in_future &= moment < offset(boundary, horizon, dtype, what="horizon")
    cutoffs = frame.select(user).unique().with_columns(boundary.alias(CUTOFF))
    return source.split(frame.filter(moment < boundary), frame.filter(in_future), cutoffs, cutoff)


def _warn_empty_side(
    frame: pl.LazyFrame, moment: pl.Expr, boundary: pl.Expr, cutoff: object
) -> None:
    """Say so when one cutoff leaves the history or the future empty (one pass over the
    timestamps): an empty truth would evaluate to an empty table without a word."""
    found = frame.select(
        (moment < boundary).sum().alias("history"),
        (moment >= boundary).sum().alias("future"),
        moment.min().alias("first"),
        moment.max().alias("last"),
    ).collect()
    if not found.height or found.item(0, "first") is None:
        return
    row = found.row(0, named=True)
    for side, other in (("future", "at or after"), ("history", "before")):
        if not row[side]:
            what = "truth" if side == "future" else "history"
            warnings.warn(
                f"split_by_time: cutoff {cutoff!r} leaves the {side} empty (the log runs from "
                f"{row['first']} to {row['last']}; no event {other} the cutoff), so the "
                f"{what} is empty and evaluating on it gives an empty table. Choose a cutoff "
                f"inside the log",
                EmptyResultWarning,
                stacklevel=3,
            )


def _split_last(
    log: FrameLike,
    count: pl.Expr,
    *,
    user: str,
    item: str,
    timestamp: str,
    value: str | None,
    combine: str,
    relevance: str,
    check_values: bool,
) -> TemporalSplit:
    source = read_log(
        log,
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=combine,
        relevance=relevance,
        check_values=check_values,
    )
    # Rows with fewer than `count` strictly later rows of the same user: ties stay together.
    later = pl.col(timestamp).rank("min", descending=True).over(user)
    flagged = source.frame.with_columns((later <= count).alias(_FUTURE))
    history = flagged.filter(~pl.col(_FUTURE)).drop(_FUTURE)
    future = flagged.filter(pl.col(_FUTURE)).drop(_FUTURE)
    cutoffs = future.group_by(user).agg(pl.col(timestamp).min().alias(CUTOFF))
    return source.split(history, future, cutoffs, None)


def split_last_n(
    log: FrameLike,
    n: int = 1,
    *,
    user: str = "user",
    item: str = "item",
    timestamp: str = "timestamp",
    value: str | None = None,
    combine: Combine = "max",
    relevance: str = "relevance",
    check_values: bool = True,
) -> TemporalSplit:
    """Leave-last-n-out: each user's last `n` interactions are its future.

    The user's cutoff is its n-th most recent timestamp; interactions tied with it go to the
    future too (the split never separates equal timestamps). A user with at most `n`
    interactions has no history: a cold start, which `audit` reports.

    Parameters
    ----------
    log
        Interactions: `user`, `item`, `timestamp`, any others.
    n
        Interactions per user to hold out (>= 1).
    user, item, timestamp, value, combine, relevance, check_values
        As in `split_by_time`.

    Returns
    -------
    TemporalSplit
        With per-user ``cutoffs`` (``cutoff`` is None).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time.splits import split_last_n
    >>> log = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 10, 13],
    ...                     "timestamp": [1, 2, 3, 5, 5]})
    >>> split = split_last_n(log, 1)
    >>> split.future.sort("user", "item").collect().rows()
    [(1, 12, 3), (2, 10, 5), (2, 13, 5)]
    >>> split.cutoffs.sort("user").collect().rows()
    [(1, 3), (2, 5)]
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an int >= 1; got {n!r}")
    return _split_last(
        log,
        pl.lit(n),
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=combine,
        relevance=relevance,
        check_values=check_values,
    )


def split_last_fraction(
    log: FrameLike,
    fraction: float = 0.2,
    *,
    user: str = "user",
    item: str = "item",
    timestamp: str = "timestamp",
    value: str | None = None,
    combine: Combine = "max",
    relevance: str = "relevance",
    check_values: bool = True,
) -> TemporalSplit:
    """Each user's most recent `fraction` of interactions is its future.

    A user with m interactions holds out its last ``ceil(fraction * m)`` (at least one;
    the product is rounded to 9 decimals first, so ``0.7 * 10`` is 7), plus any tied with
    the earliest of them, as in `split_last_n`.

    Parameters
    ----------
    log
        Interactions: `user`, `item`, `timestamp`, any others.
    fraction
        Share of each user's interactions to hold out, in (0, 1].
    user, item, timestamp, value, combine, relevance, check_values
        As in `split_by_time`.

    Returns
    -------
    TemporalSplit
        With per-user ``cutoffs``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time.splits import split_last_fraction
    >>> log = pl.DataFrame({"user": [1] * 5, "item": range(5), "timestamp": range(5)})
    >>> split_last_fraction(log, 0.4).future.collect()["item"].sort().to_list()
    [3, 4]
    """
    if isinstance(fraction, bool) or not isinstance(fraction, int | float):
        raise TypeError(f"fraction must be a number in (0, 1]; got {fraction!r}")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1]; got {fraction!r}")
    count = (pl.len().over(user).cast(pl.Float64) * float(fraction)).round(9).ceil()
    return _split_last(
        log,
        count,
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=combine,
        relevance=relevance,
        check_values=check_values,
    )


def _period_starts(
    frame: pl.LazyFrame,
    dtype: pl.DataType,
    *,
    timestamp: str,
    start: TimePoint,
    end: TimePoint | None,
    every: Duration,
) -> list[TimePoint]:
    first = cutoff_literal(start, dtype, name="start")
    offset(first, every, dtype, what="every")  # validates `every`
    if end is None:
        last: pl.Expr = pl.lit(frame.select(pl.col(timestamp).max()).collect().item())
        closed: Literal["both", "left"] = "both"
    else:
        last = cutoff_literal(end, dtype, name="end")
        closed = "left"
    if dtype.is_integer():
        assert isinstance(every, int)
        stop = pl.select(last).item()
        if stop is None:
            return []
        return list(range(pl.select(first).item(), stop + (closed == "both"), every))
    interval = duration_text(every, "every", dtype)
    if dtype == pl.Date:
        ranged = pl.date_range(first, last.cast(pl.Date), interval=interval, closed=closed)
    else:
        ranged = pl.datetime_range(first, last.cast(dtype), interval=interval, closed=closed)
    values: list[TimePoint] = pl.select(ranged.alias("start")).to_series().drop_nulls().to_list()
    return values


def rolling_splits(
    log: FrameLike,
    *,
    start: TimePoint,
    end: TimePoint | None = None,
    every: Duration = "1w",
    horizon: Duration | None = None,
    history_window: Duration | None = None,
    user: str = "user",
    item: str = "item",
    timestamp: str = "timestamp",
    value: str | None = None,
    combine: Combine = "max",
    relevance: str = "relevance",
    check_values: bool = True,
) -> list[TemporalSplit]:
    """One split per period: cutoffs at `start`, ``start + every``, … before `end`.

    Each split's future is ``[cutoff, cutoff + horizon)`` (horizon defaults to `every`, so the
    futures tile the timeline and every later row is in exactly one of them); its history is
    everything before the cutoff (expanding), or only the last `history_window` (sliding).
    Each truth carries its ``cutoff``: concatenate them and evaluate per period with
    `polars_rankk.evaluate_over_time` (``time="cutoff"``).

    Parameters
    ----------
    log
        Interactions: `user`, `item`, `timestamp`, any others.
    start
        The first cutoff.
    end
        Where the evaluated time ends (exclusive): no cutoff at or after it, and futures stop
        there. None: after the last interaction (one small query finds it).
    every
        The step between cutoffs (``"1d"``, ``"1w"``, ``"1mo"``, a timedelta, an int).
    horizon
        Length of each future; default `every`.
    history_window
        Keep only this much history before each cutoff; None: all of it (expanding).
    user, item, timestamp, value, combine, relevance, check_values
        As in `split_by_time`.

    Returns
    -------
    list[TemporalSplit]
        In time order, one per period (``split.cutoff`` is its start).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time import rolling_splits
    >>> log = pl.DataFrame({"user": [1, 1, 1, 1], "item": [1, 2, 3, 4],
    ...                     "timestamp": [0, 10, 20, 25]})
    >>> splits = rolling_splits(log, start=10, every=10)
    >>> [(s.cutoff, s.history.collect().height, s.future.collect().height) for s in splits]
    [(10, 1, 1), (20, 2, 2)]
    """
    source = read_log(
        log,
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=combine,
        relevance=relevance,
        check_values=check_values,
    )
    frame, dtype, moment = source.frame, source.dtype, pl.col(timestamp)
    starts = _period_starts(frame, dtype, timestamp=timestamp, start=start, end=end, every=every)
    if not starts:
        raise ValueError(f"no period starts at or after start={start!r} and before end={end!r}")
    stop = None if end is None else cutoff_literal(end, dtype, name="end")
    length = every if horizon is None else horizon
    users = frame.select(user).unique()
    splits = []
    for cutoff in starts:  # one per period, never per row or group
        boundary = cutoff_literal(cutoff, dtype)
        in_history = moment < boundary
        if history_window is not None:
            window = offset(boundary, history_window, dtype, what="history_window", backwards=True)
            in_history &= moment >= window
        end_of_future = offset(boundary, length, dtype, what="horizon")
        in_future = (moment >= boundary) & (moment < end_of_future)
        if stop is not None:
            in_future &= moment < stop
        cutoffs = users.with_columns(boundary.alias(CUTOFF))
        splits.append(
            source.split(frame.filter(in_history), frame.filter(in_future), cutoffs, cutoff)
        )
    return splits
