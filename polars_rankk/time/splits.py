"""Time-aware splits of an interaction log (SPEC §6): history before a cutoff, truth after it.

A ranking made at time t may use only what was observable before t, and its relevance comes
from after t. `split_by_time`, `split_last_n`, `split_last_fraction` and `rolling_splits` cut
a log ``(user, item, timestamp[, value])`` into a **history** and a **future**, and build the
**truth** from the future. A `TemporalSplit` can then drop the items users already had
(`polars_rankk.drop_seen`) and audit candidates for leakage (`polars_rankk.audit`).

Conventions
-----------
- The cutoff belongs to the future: history is ``timestamp < cutoff``, future ``>= cutoff``.
- Per-user cutoffs never separate interactions with the same timestamp: the future of
  `split_last_n` holds every interaction at or after the user's n-th most recent timestamp,
  so it holds more than n rows when timestamps tie at the boundary.
- Truth: one row per (user, item) of the future. ``relevance`` is the highest value among the
  pair's interactions (``combine="sum"``: their sum; no value column: 1, or the number of
  interactions under ``"sum"``); negative values (dislikes) count as 0, not relevant. The
  core's ``Policy.relevance_threshold`` then decides relevance inside `evaluate`. The truth
  also carries the pair's first future ``timestamp`` and the user's ``cutoff``, for `audit`.
- Everything is lazy: the frames of a split are ``pl.LazyFrame`` plans over the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import (
    CUTOFF,
    Duration,
    TimePoint,
    check_log,
    cutoff_literal,
    cutoff_table,
    duration_text,
    offset,
)

if TYPE_CHECKING:
    from polars_rankk.time.leakage import AuditReport
    from polars_rankk.time.seen import SeenFiltered

Combine = Literal["max", "sum"]

_CUTOFF = "_rk_cutoff"
_FUTURE = "_rk_future"


def _combine(combine: str) -> Combine:
    if combine == "max":
        return "max"
    if combine == "sum":
        return "sum"
    raise ValueError(f"combine must be 'max' or 'sum'; got {combine!r}")


def _truth(
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
    >>> from polars_rankk.time.splits import truth_from_log
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
    return _truth(
        frame,
        user=user,
        item=item,
        timestamp=timestamp,
        value=value,
        combine=_combine(combine),
        relevance=relevance,
        cutoffs=None,
    )


@dataclass(frozen=True)
class TemporalSplit:
    """A log cut at a cutoff: what was observable before it, and what happened after.

    Attributes
    ----------
    history
        Log rows with ``timestamp < cutoff`` (all columns of the log): what a model may use.
    future
        Log rows with ``timestamp >= cutoff`` (and ``< cutoff + horizon`` when given).
    truth
        One row per (user, item) of the future: user, item, `relevance`, the first
        `timestamp`, and ``cutoff``. Pass it to `evaluate` as ``truth``.
    cutoffs
        One row per user: user, ``cutoff``.
    cutoff
        The global cutoff, or None when cutoffs are per user.
    user, item, timestamp, relevance
        Column names.
    """

    history: pl.LazyFrame
    future: pl.LazyFrame
    truth: pl.LazyFrame
    cutoffs: pl.LazyFrame
    cutoff: TimePoint | None
    user: str = "user"
    item: str = "item"
    timestamp: str = "timestamp"
    relevance: str = "relevance"

    def drop_seen(
        self,
        candidates: FrameLike | None = None,
        *,
        from_candidates: bool = True,
        from_truth: bool = True,
    ) -> SeenFiltered:
        """Remove the items each user already had in the history (see `drop_seen`)."""
        from polars_rankk.time.seen import drop_seen

        return drop_seen(
            candidates,
            self.history,
            self.truth,
            user=self.user,
            item=self.item,
            from_candidates=from_candidates,
            from_truth=from_truth,
        )

    def audit(
        self,
        candidates: FrameLike | None = None,
        *,
        feature_time: str | Sequence[str] | None = None,
        relevance_threshold: float = 1,
        allow_repeats: bool = False,
        allow_cold_start: bool = True,
        min_coverage: float | None = None,
        examples: int = 5,
        strict: bool = False,
    ) -> AuditReport:
        """Audit `candidates` against this split's history, truth and cutoff (see `audit`)."""
        from polars_rankk.time.leakage import audit

        return audit(
            candidates,
            history=self.history,
            truth=self.truth,
            cutoff=self.cutoffs if self.cutoff is None else self.cutoff,
            user=self.user,
            item=self.item,
            timestamp=self.timestamp,
            relevance=self.relevance,
            feature_time=feature_time,
            relevance_threshold=relevance_threshold,
            allow_repeats=allow_repeats,
            allow_cold_start=allow_cold_start,
            min_coverage=min_coverage,
            examples=examples,
            strict=strict,
        )

    def __repr__(self) -> str:
        cutoff = "per user" if self.cutoff is None else repr(self.cutoff)
        return (
            f"TemporalSplit(cutoff={cutoff}, user={self.user!r}, item={self.item!r}, "
            f"timestamp={self.timestamp!r}; lazy history, future, truth, cutoffs)"
        )


@dataclass(frozen=True)
class _Log:
    """A validated log and how to read it."""

    frame: pl.LazyFrame
    dtype: pl.DataType
    user: str
    item: str
    timestamp: str
    value: str | None
    combine: Combine
    relevance: str

    def split(
        self,
        history: pl.LazyFrame,
        future: pl.LazyFrame,
        cutoffs: pl.LazyFrame,
        cutoff: TimePoint | None,
    ) -> TemporalSplit:
        truth = _truth(
            future,
            user=self.user,
            item=self.item,
            timestamp=self.timestamp,
            value=self.value,
            combine=self.combine,
            relevance=self.relevance,
            cutoffs=cutoffs,
        )
        return TemporalSplit(
            history=history,
            future=future,
            truth=truth,
            cutoffs=cutoffs,
            cutoff=cutoff,
            user=self.user,
            item=self.item,
            timestamp=self.timestamp,
            relevance=self.relevance,
        )


def _read_log(
    log: FrameLike,
    *,
    user: str,
    item: str,
    timestamp: str,
    value: str | None,
    combine: str,
    relevance: str,
    check_values: bool,
) -> _Log:
    frame, dtype = check_log(
        log, user=user, item=item, timestamp=timestamp, value=value, check_values=check_values
    )
    if not isinstance(relevance, str) or relevance in (user, item, timestamp, CUTOFF):
        raise ValueError(
            f"relevance must name a new column of the truth, other than {user!r}, {item!r}, "
            f"{timestamp!r} and {CUTOFF!r}; got {relevance!r}"
        )
    return _Log(frame, dtype, user, item, timestamp, value, _combine(combine), relevance)


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
    source = _read_log(
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
    in_future = moment >= boundary
    if horizon is not None:
        in_future &= moment < offset(boundary, horizon, dtype, what="horizon")
    cutoffs = frame.select(user).unique().with_columns(boundary.alias(CUTOFF))
    return source.split(frame.filter(moment < boundary), frame.filter(in_future), cutoffs, cutoff)


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
    source = _read_log(
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
    interval = duration_text(every, "every")
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
    >>> from polars_rankk.time.splits import rolling_splits
    >>> log = pl.DataFrame({"user": [1, 1, 1, 1], "item": [1, 2, 3, 4],
    ...                     "timestamp": [0, 10, 20, 25]})
    >>> splits = rolling_splits(log, start=10, every=10)
    >>> [(s.cutoff, s.history.collect().height, s.future.collect().height) for s in splits]
    [(10, 1, 1), (20, 2, 2)]
    """
    source = _read_log(
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
