"""Leakage audit of an offline ranking evaluation (see docs/definitions.md, time-aware evaluation).

Nothing in the metric arithmetic notices when the future leaks into a ranking: a candidate
scored from features computed after the cutoff, a history that runs past it, relevance taken
from before it. `audit` looks for each of these, plus protocol issues that change what the
numbers mean — users with no history and candidate items never seen before the cutoff (cold
start), truth that no candidate covers (the recall ceiling) — and reports counts with example
rows, or raises in strict mode.

Checks (`AuditReport.summary`, in this order):

============================  ========  ===================================================
check                         kind      offending rows
============================  ========  ===================================================
``candidates_after_cutoff``   leak      candidates whose `feature_time` is >= the cutoff
``history_after_cutoff``      leak      history rows whose timestamp is >= the cutoff
``truth_before_cutoff``       leak      truth rows whose timestamp is < the cutoff
``truth_in_history``          leak      truth (user, item) pairs already in the history
``cold_start_users``          protocol  users in the truth with no history row
``cold_start_items``          protocol  candidates whose item has no history row before
                                        the user's cutoff
``candidates_in_history``     protocol  candidates the user already has: (user, item) pairs
                                        in the history
``truth_outside_pool``        coverage  relevant truth rows no candidate of the user covers
============================  ========  ===================================================

A leak check passes when it finds nothing. ``truth_in_history`` becomes a protocol check with
``allow_repeats=True`` (repeat consumption is the point in some domains); protocol and
coverage checks are informational (``passed`` null) unless ``allow_cold_start=False`` or
``min_coverage`` is given. A check whose inputs are missing is ``not checked``; when it could
have failed the audit, the audit does not pass unless ``allow_unchecked`` accepts it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.inputs.spec import align_ids, require_columns, to_lazy
from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import CUTOFF, Cutoff, TimePoint
from polars_rankk.time.audit_report import (
    AuditReport,
    Check,
    Verdicts,
    allowed_unchecked,
    build_report,
)

_POOLED = "_rk_pooled"
_FIRST_SEEN = "first_seen_in_history"


@dataclass(frozen=True)
class _Inputs:
    """The audited tables (lazy, columns checked) and how to read them."""

    candidates: pl.LazyFrame | None
    history: pl.LazyFrame | None
    truth: pl.LazyFrame | None
    cutoff: Cutoff | None
    feature_times: tuple[str, ...]
    user: str
    item: str
    timestamp: str


def _read_inputs(
    candidates: FrameLike | None,
    history: FrameLike | None,
    truth: FrameLike | None,
    cutoff: TimePoint | FrameLike | None,
    *,
    user: str,
    item: str,
    timestamp: str,
    feature_time: str | Sequence[str] | None,
    check_values: bool,
) -> _Inputs:
    times = [feature_time] if isinstance(feature_time, str) else list(feature_time or [])
    ids = {user: "the user id", item: "the item id"}
    tables: dict[str, pl.LazyFrame | None] = {}
    for name, frame, required in (
        ("candidates", candidates, {**ids, **dict.fromkeys(times, "a feature time")}),
        ("history", history, ids),
        ("truth", truth, ids),
    ):
        lazy = None if frame is None else to_lazy(frame, name)
        if lazy is not None:
            require_columns(lazy, name, required)
        tables[name] = lazy
    if candidates is None and times:
        raise ValueError(f"feature_time={feature_time!r} needs a candidates table")
    truth_frame = tables["truth"]
    if cutoff is None and truth_frame is not None and CUTOFF in truth_frame.collect_schema():
        cutoff = truth_frame.select(user, CUTOFF).unique()
    return _Inputs(
        candidates=tables["candidates"],
        history=tables["history"],
        truth=truth_frame,
        cutoff=None if cutoff is None else Cutoff(cutoff, user, check_values),
        feature_times=tuple(times),
        user=user,
        item=item,
        timestamp=timestamp,
    )


def _candidates_after_cutoff(inputs: _Inputs) -> Check:
    candidates, times = inputs.candidates, list(inputs.feature_times)
    if candidates is None:
        return Check.missing("no candidates")
    if not times:
        return Check.missing("no feature_time column (when each candidate's features were made)")
    if inputs.cutoff is None:
        return Check.missing("no cutoff given")
    schema = candidates.collect_schema()
    if len({schema[column] for column in times}) > 1:
        raise TypeError(
            f"candidates feature_time columns {times} must share one dtype; they have "
            f"{[schema[column] for column in times]}"
        )
    attached = inputs.cutoff.attach(candidates, times[0], "candidates")
    late = pl.any_horizontal([pl.col(column) >= pl.col(CUTOFF) for column in times])
    return Check.rows(candidates, attached.filter(late), order=[inputs.user, inputs.item])


def _tables_on_wrong_side(inputs: _Inputs) -> dict[str, Check]:
    """History rows at or after the cutoff, truth rows before it."""
    checks = {}
    column = inputs.timestamp
    for name, frame, later in (
        ("history_after_cutoff", inputs.history, True),
        ("truth_before_cutoff", inputs.truth, False),
    ):
        table = name.split("_", 1)[0]
        if frame is None:
            checks[name] = Check.missing(f"no {table}")
        elif column not in frame.collect_schema():
            checks[name] = Check.missing(f"{table} has no {column!r} column")
        elif inputs.cutoff is None:
            checks[name] = Check.missing("no cutoff given")
        else:
            attached = inputs.cutoff.attach(frame, column, table)
            moment, cutoff = pl.col(column), pl.col(CUTOFF)
            wrong = moment >= cutoff if later else moment < cutoff
            checks[name] = Check.rows(frame, attached.filter(wrong), order=[inputs.user, column])
    return checks


def _truth_against_history(inputs: _Inputs) -> dict[str, Check]:
    """Truth pairs already in the history, and truth users without any history."""
    if inputs.truth is None or inputs.history is None:
        missing = Check.missing("needs history and truth")
        return {"truth_in_history": missing, "cold_start_users": missing}
    user, item = inputs.user, inputs.item
    truth, history = align_ids(inputs.truth, inputs.history, [user, item], ("truth", "history"))
    seen = history.select(user, item).unique()
    if inputs.timestamp in history.collect_schema():
        seen = history.group_by(user, item).agg(
            pl.col(inputs.timestamp).max().alias("last_seen_in_history")
        )
    repeated = truth.join(seen, on=[user, item], how="inner", maintain_order="left")
    per_user = truth.group_by(user).agg(pl.len().cast(pl.Int64).alias("truth_rows"))
    cold = per_user.join(history.select(user).unique(), on=user, how="anti")
    return {
        "truth_in_history": Check.rows(inputs.truth, repeated, order=[user, item]),
        "cold_start_users": Check.rows(per_user, cold, order=[user]),
    }


def _cold_start_items(inputs: _Inputs) -> Check:
    """Candidate rows whose item has no history row before the user's cutoff (anywhere in
    the history when there is no cutoff, or no timestamp to compare with it)."""
    if inputs.candidates is None or inputs.history is None:
        return Check.missing("needs candidates and history")
    user, item, timestamp = inputs.user, inputs.item, inputs.timestamp
    candidates, history = align_ids(
        inputs.candidates, inputs.history, [item], ("candidates", "history")
    )
    timed = timestamp in history.collect_schema() and inputs.cutoff is not None
    if timed:
        first_seen = pl.col(timestamp).min().alias(_FIRST_SEEN)
        items = history.group_by(item).agg(first_seen)
    else:
        items = history.select(item).unique().with_columns(pl.lit(True).alias(_FIRST_SEEN))
    rows = candidates.join(items, on=item, how="left", maintain_order="left")
    unseen = pl.col(_FIRST_SEEN).is_null()
    if not timed:
        flagged = rows.filter(unseen).drop(_FIRST_SEEN)
        return Check.rows(inputs.candidates, flagged, order=[user, item])
    assert inputs.cutoff is not None
    rows = inputs.cutoff.attach(rows, _FIRST_SEEN, "history", keep_all=True)
    unseen |= pl.col(CUTOFF).is_not_null() & (pl.col(_FIRST_SEEN) >= pl.col(CUTOFF))
    return Check.rows(inputs.candidates, rows.filter(unseen), order=[user, item])


def _candidates_in_history(inputs: _Inputs) -> Check:
    """Candidate rows recommending an item the user already has (a (user, item) pair of the
    history): a list of them is scored as if the user needed them again."""
    if inputs.candidates is None or inputs.history is None:
        return Check.missing("needs candidates and history")
    user, item = inputs.user, inputs.item
    candidates, history = align_ids(
        inputs.candidates, inputs.history, [user, item], ("candidates", "history")
    )
    had = candidates.join(history.select(user, item).unique(), on=[user, item], how="semi")
    return Check.rows(inputs.candidates, had, order=[user, item])


def _coverage(
    inputs: _Inputs, relevance: str, threshold: float
) -> tuple[Check, pl.LazyFrame | None]:
    """Relevant truth rows outside the candidates, and the recall ceiling they imply."""
    if inputs.truth is None or inputs.candidates is None:
        return Check.missing("needs candidates and truth"), None
    user, item = inputs.user, inputs.item
    truth, candidates = align_ids(
        inputs.truth, inputs.candidates, [user, item], ("truth", "candidates")
    )
    relevant = truth
    if relevance in truth.collect_schema():
        relevant = truth.filter(pl.col(relevance) >= threshold)
    pool = candidates.select(user, item).unique().with_columns(pl.lit(True).alias(_POOLED))
    marked = relevant.join(pool, on=[user, item], how="left").with_columns(
        pl.col(_POOLED).fill_null(False)
    )
    outside = marked.filter(~pl.col(_POOLED)).drop(_POOLED)
    ceiling = (
        marked.group_by(user)
        .agg(pl.col(_POOLED).mean().alias("_rk_share"))
        .select(pl.col("_rk_share").sort().mean())
    )
    return Check.rows(relevant, outside, order=[user, item]), ceiling


def audit(
    candidates: FrameLike | None = None,
    *,
    history: FrameLike | None = None,
    truth: FrameLike | None = None,
    cutoff: TimePoint | FrameLike | None = None,
    user: str = "user",
    item: str = "item",
    timestamp: str = "timestamp",
    relevance: str = "relevance",
    feature_time: str | Sequence[str] | None = None,
    relevance_threshold: float = 1,
    allow_repeats: bool = False,
    allow_cold_start: bool = True,
    min_coverage: float | None = None,
    allow_unchecked: bool | Iterable[str] = False,
    examples: int = 5,
    strict: bool = False,
    check_values: bool = True,
) -> AuditReport:
    """Audit an evaluation's inputs for temporal leakage and protocol problems.

    Parameters
    ----------
    candidates
        The scored candidates (`user`, `item`, …); audit one system at a time.
    history
        What the model could use (`user`, `item`, and `timestamp` for the time check), e.g.
        ``split.history``.
    truth
        The truth (`user`, `item`, optional `relevance` and `timestamp`), e.g. ``split.truth``.
    cutoff
        A datetime / date / int for every user, or a table (`user`, ``cutoff``). None: the
        truth's own ``cutoff`` column when it has one (the truth of a `TemporalSplit` does),
        else the time checks are skipped. Rows of users without a cutoff are not time-checked.
    user, item, timestamp, relevance
        Column names (`timestamp` in history and truth).
    feature_time
        Candidate column(s) saying when each candidate's features were computed; a row is
        flagged when any of them is at or after the cutoff.
    relevance_threshold
        Truth rows with ``relevance >= relevance_threshold`` are relevant (for coverage).
    allow_repeats
        Truth items already in the history are expected (repeat consumption): report
        ``truth_in_history`` without failing.
    allow_cold_start
        False: users in the truth without history fail the audit.
    min_coverage
        Fail when the share of relevant truth rows inside the candidates is below this.
    allow_unchecked
        Checks that may stay ``not checked`` without failing the audit: True for all, or
        their names. By default a leak check (or a check an option above made failing) that
        cannot run because its input is missing — no `feature_time`, no cutoff, no history …
        — keeps ``AuditReport.passed`` False and makes `strict` raise: the audit cannot say
        that it passed.
    examples
        Example rows kept per check.
    strict
        Raise a ValueError when a check fails or could not run (see
        `AuditReport.raise_if_failed`).
    check_values
        Validate a per-user cutoff table (nulls, one cutoff per user).

    Returns
    -------
    AuditReport
        ``summary`` (one row per check), ``examples``, ``flagged``, ``recall_ceiling``,
        ``unchecked``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time import audit
    >>> history = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"],
    ...                         "timestamp": [1, 2, 3]})
    >>> truth = pl.DataFrame({"user": [1, 1, 2], "item": ["b", "c", "d"],
    ...                       "timestamp": [6, 7, 4]})
    >>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": ["c", "d", "e"],
    ...                            "score": [0.9, 0.8, 0.7], "feature_ts": [4, 5, 3]})
    >>> report = audit(candidates, history=history, truth=truth, cutoff=5,
    ...                feature_time="feature_ts")
    >>> report.summary.select("check", "status", "count", "total")
    shape: (8, 4)
    ┌─────────────────────────┬───────────────┬───────┬───────┐
    │ check                   ┆ status        ┆ count ┆ total │
    │ ---                     ┆ ---           ┆ ---   ┆ ---   │
    │ str                     ┆ str           ┆ i64   ┆ i64   │
    ╞═════════════════════════╪═══════════════╪═══════╪═══════╡
    │ candidates_after_cutoff ┆ failed        ┆ 1     ┆ 3     │
    │ history_after_cutoff    ┆ passed        ┆ 0     ┆ 3     │
    │ truth_before_cutoff     ┆ failed        ┆ 1     ┆ 3     │
    │ truth_in_history        ┆ failed        ┆ 1     ┆ 3     │
    │ cold_start_users        ┆ informational ┆ 0     ┆ 2     │
    │ cold_start_items        ┆ informational ┆ 3     ┆ 3     │
    │ candidates_in_history   ┆ informational ┆ 0     ┆ 3     │
    │ truth_outside_pool      ┆ informational ┆ 2     ┆ 3     │
    └─────────────────────────┴───────────────┴───────┴───────┘
    >>> report.examples["truth_before_cutoff"]
    shape: (1, 4)
    ┌──────┬──────┬───────────┬────────┐
    │ user ┆ item ┆ timestamp ┆ cutoff │
    │ ---  ┆ ---  ┆ ---       ┆ ---    │
    │ i64  ┆ str  ┆ i64       ┆ i64    │
    ╞══════╪══════╪═══════════╪════════╡
    │ 2    ┆ d    ┆ 4         ┆ 5      │
    └──────┴──────┴───────────┴────────┘
    >>> report.raise_if_failed()
    Traceback (most recent call last):
    ...
    ValueError: leakage audit failed 3 check(s):
    - candidates_after_cutoff: 1 of 3 (33.3%) candidate rows ..., e.g. {'user': 1, 'item': 'd', ...}
    ...

    Without `feature_time` the first leak check cannot run: the audit says so, and does
    not pass unless told that this is expected.

    >>> unchecked = audit(candidates, history=history, truth=truth.filter(pl.col("timestamp") >= 5),
    ...                   cutoff=5, allow_repeats=True)
    >>> unchecked.unchecked, unchecked.passed
    (('candidates_after_cutoff',), False)
    >>> audit(candidates, history=history, truth=truth.filter(pl.col("timestamp") >= 5),
    ...       cutoff=5, allow_repeats=True, allow_unchecked=["candidates_after_cutoff"]).passed
    True
    """
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 0:
        raise ValueError(f"examples must be an int >= 0; got {examples!r}")
    if min_coverage is not None and not 0 <= min_coverage <= 1:
        raise ValueError(f"min_coverage must be in [0, 1]; got {min_coverage!r}")
    verdicts = Verdicts(
        allow_repeats=allow_repeats,
        allow_cold_start=allow_cold_start,
        min_coverage=min_coverage,
        allow_unchecked=allowed_unchecked(allow_unchecked),
    )
    inputs = _read_inputs(
        candidates,
        history,
        truth,
        cutoff,
        user=user,
        item=item,
        timestamp=timestamp,
        feature_time=feature_time,
        check_values=check_values,
    )
    coverage, ceiling = _coverage(inputs, relevance, relevance_threshold)
    checks = {
        "candidates_after_cutoff": _candidates_after_cutoff(inputs),
        **_tables_on_wrong_side(inputs),
        **_truth_against_history(inputs),
        "cold_start_items": _cold_start_items(inputs),
        "candidates_in_history": _candidates_in_history(inputs),
        "truth_outside_pool": coverage,
    }
    report = build_report(checks, examples=examples, ceiling=ceiling, verdicts=verdicts)
    if strict:
        report.raise_if_failed()
    return report
