"""Leakage audit of an offline ranking evaluation (SPEC §6; seed 000 §2.2.2, §4.4).

Nothing in the metric arithmetic notices when the future leaks into a ranking: a candidate
scored from features computed after the cutoff, a history that runs past it, relevance taken
from before it. `audit` looks for each of these, plus two protocol issues that change what
the numbers mean — users with no history (cold start) and truth that no candidate covers
(the recall ceiling) — and reports counts with example rows, or raises in strict mode.

Checks (`AuditReport.summary`, in this order):

============================  ========  ===================================================
check                         kind      offending rows
============================  ========  ===================================================
``candidates_after_cutoff``   leak      candidates whose `feature_time` is >= the cutoff
``history_after_cutoff``      leak      history rows whose timestamp is >= the cutoff
``truth_before_cutoff``       leak      truth rows whose timestamp is < the cutoff
``truth_in_history``          leak      truth (user, item) pairs already in the history
``cold_start_users``          protocol  users in the truth with no history row
``truth_outside_pool``        coverage  relevant truth rows no candidate of the user covers
============================  ========  ===================================================

A leak check passes when it finds nothing. ``truth_in_history`` becomes a protocol check with
``allow_repeats=True`` (repeat consumption is the point in some domains); protocol and
coverage checks are informational (``passed`` null) unless ``allow_cold_start=False`` or
``min_coverage`` is given. A check whose inputs are missing is listed as skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_rankk.core.inputs import align_ids, require_columns, to_lazy
from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import (
    CUTOFF,
    TimePoint,
    cutoff_literal,
    cutoff_table,
    is_time,
)

#: The checks, in report order, with their kind and what an offending row is.
CHECKS: dict[str, tuple[str, str]] = {
    "candidates_after_cutoff": (
        "leak",
        "candidate rows with a feature time at or after the user's cutoff",
    ),
    "history_after_cutoff": ("leak", "history rows at or after the user's cutoff"),
    "truth_before_cutoff": ("leak", "truth rows time-stamped before the user's cutoff"),
    "truth_in_history": ("leak", "truth (user, item) pairs already in the user's history"),
    "cold_start_users": ("protocol", "users in the truth with no history"),
    "truth_outside_pool": (
        "coverage",
        "relevant truth rows outside the user's candidates (recall ceiling < 1)",
    ),
}
SUMMARY_SCHEMA: dict[str, pl.DataType] = {
    "check": pl.String(),
    "kind": pl.String(),
    "count": pl.Int64(),
    "total": pl.Int64(),
    "share": pl.Float64(),
    "passed": pl.Boolean(),
    "description": pl.String(),
}


@dataclass(frozen=True)
class AuditReport:
    """What `audit` found.

    Attributes
    ----------
    summary
        One row per check: ``check``, ``kind`` (leak / protocol / coverage), ``count``
        (offending rows; users for ``cold_start_users``), ``total`` (rows examined), ``share``
        (count / total), ``passed`` (True, False, or null for an informational or skipped
        check) and ``description``.
    examples
        check -> up to `examples` offending rows (a DataFrame), for the checks that ran.
    flagged
        check -> every offending row, as a LazyFrame to collect or count.
    recall_ceiling
        The mean over users with relevant truth of the share of their relevant items that
        are among their candidates: the best recall any ranking of these candidates can
        reach (None without candidates or truth).
    """

    summary: pl.DataFrame
    examples: dict[str, pl.DataFrame] = field(default_factory=dict)
    flagged: dict[str, pl.LazyFrame] = field(default_factory=dict)
    recall_ceiling: float | None = None

    @property
    def failed(self) -> list[str]:
        """The checks that failed, in report order."""
        return self.summary.filter(pl.col("passed").not_()).get_column("check").to_list()

    @property
    def passed(self) -> bool:
        """True when no check failed (informational and skipped checks do not fail)."""
        return not self.failed

    def raise_if_failed(self) -> None:
        """Raise a ValueError naming every failed check with its count and one example row."""
        failed = self.failed
        if not failed:
            return
        lines = []
        for row in self.summary.filter(pl.col("check").is_in(failed)).iter_rows(named=True):
            examples = self.examples.get(row["check"])
            example = examples.row(0, named=True) if examples is not None else None
            lines.append(
                f"- {row['check']}: {row['count']} of {row['total']} ({row['share']:.1%}) "
                f"{row['description']}, e.g. {example}"
            )
        raise ValueError(
            f"leakage audit failed {len(failed)} check(s):\n"
            + "\n".join(lines)
            + "\nSee AuditReport.examples / .flagged for the rows."
        )

    def __repr__(self) -> str:
        ceiling = "n/a" if self.recall_ceiling is None else f"{self.recall_ceiling:.4f}"
        verdict = "passed" if self.passed else f"FAILED: {', '.join(self.failed)}"
        table = self.summary.select("check", "kind", "count", "total", "share", "passed")
        return f"AuditReport({verdict}; recall ceiling {ceiling})\n{table}"


class _Cutoff:
    """A global or per-user cutoff, applied to any table with a user and a time column."""

    def __init__(self, cutoff: TimePoint | FrameLike, user: str, check_values: bool) -> None:
        self.value = cutoff
        self.user = user
        self.check_values = check_values

    def attach(self, frame: pl.LazyFrame, column: str, table: str) -> pl.LazyFrame:
        """`frame` with the cutoff that applies to each row (rows of users without one drop)."""
        dtype = frame.collect_schema()[column]
        if not is_time(dtype):
            raise TypeError(
                f"{table} column {column!r} must be a Datetime, Date or integer time; it has "
                f"dtype {dtype}"
            )
        frame = frame.drop(CUTOFF, strict=False)
        if isinstance(self.value, pl.DataFrame | pl.LazyFrame):
            per_user = cutoff_table(
                self.value, user=self.user, dtype=dtype, check_values=self.check_values
            )
            frame, per_user = align_ids(frame, per_user, [self.user], (table, "cutoffs"))
            return frame.join(per_user, on=self.user, how="inner", maintain_order="left")
        literal = cutoff_literal(self.value, dtype, name="cutoff")
        return frame.with_columns(literal.alias(CUTOFF))


@dataclass(frozen=True)
class _Check:
    """One check: the rows it examined and those it flagged, or why it was skipped."""

    examined: pl.LazyFrame | None
    flagged: pl.LazyFrame | None
    order: tuple[str, ...] = ()
    note: str | None = None

    @staticmethod
    def skip(note: str) -> _Check:
        return _Check(None, None, (), note)

    @staticmethod
    def rows(examined: pl.LazyFrame, flagged: pl.LazyFrame, order: Sequence[str]) -> _Check:
        return _Check(examined, flagged, tuple(order))


def _passed(
    name: str,
    count: int,
    total: int,
    *,
    allow_repeats: bool,
    allow_cold_start: bool,
    min_coverage: float | None,
) -> bool | None:
    if name == "truth_in_history" and allow_repeats:
        return None
    if name == "cold_start_users":
        return None if allow_cold_start else count == 0
    if name == "truth_outside_pool":
        if min_coverage is None or total == 0:
            return None
        return (total - count) / total >= min_coverage
    return count == 0


def _report(
    checks: dict[str, _Check],
    *,
    examples: int,
    ceiling: pl.LazyFrame | None,
    allow_repeats: bool,
    allow_cold_start: bool,
    min_coverage: float | None,
    strict: bool,
) -> AuditReport:
    ran = {
        name: check
        for name, check in checks.items()
        if check.examined is not None and check.flagged is not None
    }
    queries: list[pl.LazyFrame] = []
    for check in ran.values():
        assert check.examined is not None
        assert check.flagged is not None
        queries.append(
            pl.concat(
                [
                    check.examined.select(pl.len().cast(pl.Int64)),
                    check.flagged.select(pl.len().cast(pl.Int64)),
                ],
                how="vertical",
            )
        )
        queries.append(check.flagged.sort(list(check.order), nulls_last=True).head(examples))
    if ceiling is not None:
        queries.append(ceiling)
    results = pl.collect_all(queries)
    rows: list[dict[str, Any]] = []
    found: dict[str, pl.DataFrame] = {}
    position = 0
    for name, (declared_kind, description) in CHECKS.items():
        repeats = name == "truth_in_history" and allow_repeats
        kind = "protocol" if repeats else declared_kind
        check = checks[name]
        if name not in ran:
            rows.append(
                {
                    "check": name,
                    "kind": kind,
                    "count": None,
                    "total": None,
                    "share": None,
                    "passed": None,
                    "description": check.note,
                }
            )
            continue
        total, count = results[position].to_series().to_list()
        found[name] = results[position + 1]
        position += 2
        passed = _passed(
            name,
            count,
            total,
            allow_repeats=allow_repeats,
            allow_cold_start=allow_cold_start,
            min_coverage=min_coverage,
        )
        rows.append(
            {
                "check": name,
                "kind": kind,
                "count": count,
                "total": total,
                "share": count / total if total else None,
                "passed": passed,
                "description": description,
            }
        )
    recall_ceiling = None
    if ceiling is not None:
        value = results[position].item()
        recall_ceiling = None if value is None else float(value)
    report = AuditReport(
        summary=pl.DataFrame(rows, schema=SUMMARY_SCHEMA, orient="row"),
        examples=found,
        flagged={name: check.flagged for name, check in ran.items() if check.flagged is not None},
        recall_ceiling=recall_ceiling,
    )
    if strict:
        report.raise_if_failed()
    return report


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
    examples
        Example rows kept per check.
    strict
        Raise a ValueError when a check fails (see `AuditReport.raise_if_failed`).
    check_values
        Validate a per-user cutoff table (nulls, one cutoff per user).

    Returns
    -------
    AuditReport
        ``summary`` (one row per check), ``examples``, ``flagged``, ``recall_ceiling``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time.leakage import audit
    >>> history = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"],
    ...                         "timestamp": [1, 2, 3]})
    >>> truth = pl.DataFrame({"user": [1, 1, 2], "item": ["b", "c", "d"],
    ...                       "timestamp": [6, 7, 4]})
    >>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": ["c", "d", "e"],
    ...                            "score": [0.9, 0.8, 0.7], "feature_ts": [4, 5, 3]})
    >>> report = audit(candidates, history=history, truth=truth, cutoff=5,
    ...                feature_time="feature_ts")
    >>> report.summary.select("check", "count", "total", "passed")
    shape: (6, 4)
    ┌─────────────────────────┬───────┬───────┬────────┐
    │ check                   ┆ count ┆ total ┆ passed │
    │ ---                     ┆ ---   ┆ ---   ┆ ---    │
    │ str                     ┆ i64   ┆ i64   ┆ bool   │
    ╞═════════════════════════╪═══════╪═══════╪════════╡
    │ candidates_after_cutoff ┆ 1     ┆ 3     ┆ false  │
    │ history_after_cutoff    ┆ 0     ┆ 3     ┆ true   │
    │ truth_before_cutoff     ┆ 1     ┆ 3     ┆ false  │
    │ truth_in_history        ┆ 1     ┆ 3     ┆ false  │
    │ cold_start_users        ┆ 0     ┆ 2     ┆ null   │
    │ truth_outside_pool      ┆ 2     ┆ 3     ┆ null   │
    └─────────────────────────┴───────┴───────┴────────┘
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
    """
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 0:
        raise ValueError(f"examples must be an int >= 0; got {examples!r}")
    if min_coverage is not None and not 0 <= min_coverage <= 1:
        raise ValueError(f"min_coverage must be in [0, 1]; got {min_coverage!r}")
    times = [feature_time] if isinstance(feature_time, str) else list(feature_time or [])
    ids = {user: "the user id", item: "the item id"}
    cand = history_lf = truth_lf = None
    if candidates is not None:
        cand = to_lazy(candidates, "candidates")
        require_columns(cand, "candidates", {**ids, **dict.fromkeys(times, "a feature time")})
    elif times:
        raise ValueError(f"feature_time={feature_time!r} needs a candidates table")
    if history is not None:
        history_lf = to_lazy(history, "history")
        require_columns(history_lf, "history", ids)
    if truth is not None:
        truth_lf = to_lazy(truth, "truth")
        require_columns(truth_lf, "truth", ids)
    if cutoff is None and truth_lf is not None and CUTOFF in truth_lf.collect_schema():
        cutoff = truth_lf.select(user, CUTOFF).unique()
    bound = None if cutoff is None else _Cutoff(cutoff, user, check_values)

    checks: dict[str, _Check] = {}
    no_cutoff = "skipped: no cutoff given"
    # Leaks in time.
    if cand is None or not times:
        checks["candidates_after_cutoff"] = _Check.skip("skipped: no candidates / feature_time")
    elif bound is None:
        checks["candidates_after_cutoff"] = _Check.skip(no_cutoff)
    else:
        schema = cand.collect_schema()
        if len({schema[column] for column in times}) > 1:
            raise TypeError(
                f"candidates feature_time columns {times} must share one dtype; they have "
                f"{[schema[column] for column in times]}"
            )
        attached = bound.attach(cand, times[0], "candidates")
        late = pl.any_horizontal([pl.col(column) >= pl.col(CUTOFF) for column in times])
        checks["candidates_after_cutoff"] = _Check.rows(
            cand, attached.filter(late), order=[user, item]
        )
    for name, frame, column, later in (
        ("history_after_cutoff", history_lf, timestamp, True),
        ("truth_before_cutoff", truth_lf, timestamp, False),
    ):
        table = name.split("_", 1)[0]
        if frame is None:
            checks[name] = _Check.skip(f"skipped: no {table}")
        elif column not in frame.collect_schema():
            checks[name] = _Check.skip(f"skipped: {table} has no {column!r} column")
        elif bound is None:
            checks[name] = _Check.skip(no_cutoff)
        else:
            attached = bound.attach(frame, column, table)
            wrong = pl.col(column) >= pl.col(CUTOFF) if later else pl.col(column) < pl.col(CUTOFF)
            checks[name] = _Check.rows(frame, attached.filter(wrong), order=[user, column])
    # Truth against history.
    if truth_lf is None or history_lf is None:
        for name in ("truth_in_history", "cold_start_users"):
            checks[name] = _Check.skip("skipped: needs history and truth")
    else:
        truth_al, history_al = align_ids(truth_lf, history_lf, [user, item], ("truth", "history"))
        seen = history_al.select(user, item).unique()
        if timestamp in history_al.collect_schema():
            seen = history_al.group_by(user, item).agg(
                pl.col(timestamp).max().alias("last_seen_in_history")
            )
        repeated = truth_al.join(seen, on=[user, item], how="inner", maintain_order="left")
        checks["truth_in_history"] = _Check.rows(truth_lf, repeated, order=[user, item])
        per_user = truth_al.group_by(user).agg(pl.len().cast(pl.Int64).alias("truth_rows"))
        cold = per_user.join(history_al.select(user).unique(), on=user, how="anti")
        checks["cold_start_users"] = _Check.rows(per_user, cold, order=[user])
    # Coverage of the truth by the candidate pool.
    ceiling_query = None
    if truth_lf is None or cand is None:
        checks["truth_outside_pool"] = _Check.skip("skipped: needs candidates and truth")
    else:
        truth_al, cand_al = align_ids(truth_lf, cand, [user, item], ("truth", "candidates"))
        relevant = truth_al
        if relevance in truth_al.collect_schema():
            relevant = truth_al.filter(pl.col(relevance) >= relevance_threshold)
        pool = cand_al.select(user, item).unique().with_columns(pl.lit(True).alias("_rk_pool"))
        marked = relevant.join(pool, on=[user, item], how="left").with_columns(
            pl.col("_rk_pool").fill_null(False)
        )
        outside = marked.filter(~pl.col("_rk_pool")).drop("_rk_pool")
        checks["truth_outside_pool"] = _Check.rows(relevant, outside, order=[user, item])
        ceiling_query = (
            marked.group_by(user)
            .agg(pl.col("_rk_pool").mean().alias("_rk_share"))
            .select(pl.col("_rk_share").sort().mean())
        )
    return _report(
        checks,
        examples=examples,
        ceiling=ceiling_query,
        allow_repeats=allow_repeats,
        allow_cold_start=allow_cold_start,
        min_coverage=min_coverage,
        strict=strict,
    )
