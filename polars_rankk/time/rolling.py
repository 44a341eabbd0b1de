"""Rolling evaluation: one split per period, each with its own cutoff, history and future.

`rolling_splits` cuts a log at ``start``, ``start + every``, … and gives one `TemporalSplit` per
period: the futures tile the timeline, the histories expand (or slide, with `history_window`).
Evaluate the periods together with `polars_rankk.evaluate_over_time` on the concatenated truths.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import (
    CUTOFF,
    Duration,
    TimePoint,
    cutoff_literal,
    duration_text,
    offset,
)
from polars_rankk.time.temporal_split import TemporalSplit, read_log
from polars_rankk.time.truth import Combine


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
