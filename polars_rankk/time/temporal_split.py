"""`TemporalSplit`, the result of every time-aware split, and the validated log it is cut from."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import CUTOFF, TimePoint, check_log
from polars_rankk.time.truth import Combine, build_truth, check_combine

if TYPE_CHECKING:
    from polars_rankk.time.audit_report import AuditReport
    from polars_rankk.time.seen import SeenFiltered


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
        allow_unchecked: bool | Iterable[str] = False,
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
            allow_unchecked=allow_unchecked,
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
class Log:
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
        """The split with this `history` and `future`, and the truth built from the future."""
        truth = build_truth(
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


def read_log(
    log: FrameLike,
    *,
    user: str,
    item: str,
    timestamp: str,
    value: str | None,
    combine: str,
    relevance: str,
    check_values: bool,
) -> Log:
    """Validate a log and the options of a split (raises ValueError / TypeError)."""
    frame, dtype = check_log(
        log, user=user, item=item, timestamp=timestamp, value=value, check_values=check_values
    )
    if not isinstance(relevance, str) or relevance in (user, item, timestamp, CUTOFF):
        raise ValueError(
            f"relevance must name a new column of the truth, other than {user!r}, {item!r}, "
            f"{timestamp!r} and {CUTOFF!r}; got {relevance!r}"
        )
    return Log(frame, dtype, user, item, timestamp, value, check_combine(combine), relevance)
