"""What a leakage audit found: the checks, their verdicts, and the rows behind them.

`polars_rankk.time.leakage` decides which rows each check examines and flags; this module
counts them in one multi-query pass and turns the counts into an `AuditReport`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

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
    "cold_start_items": (
        "protocol",
        "candidate rows whose item has no history row before the user's cutoff",
    ),
    "candidates_in_history": (
        "protocol",
        "candidate rows whose (user, item) is already in the user's history",
    ),
    "truth_outside_pool": (
        "coverage",
        "relevant truth rows outside the user's candidates (recall ceiling < 1)",
    ),
}
SUMMARY_SCHEMA: dict[str, pl.DataType] = {
    "check": pl.String(),
    "kind": pl.String(),
    "status": pl.String(),
    "count": pl.Int64(),
    "total": pl.Int64(),
    "share": pl.Float64(),
    "passed": pl.Boolean(),
    "description": pl.String(),
}
#: The values of the summary's ``status`` column.
PASSED, FAILED, INFORMATIONAL, NOT_CHECKED = "passed", "failed", "informational", "not checked"


@dataclass(frozen=True)
class AuditReport:
    """What `audit` found.

    Attributes
    ----------
    summary
        One row per check: ``check``, ``kind`` (leak / protocol / coverage), ``status``
        (``passed``, ``failed``, ``informational``, or ``not checked`` when an input the check
        needs was not given), ``count`` (offending rows; users for ``cold_start_users``),
        ``total`` (rows examined), ``share`` (count / total), ``passed`` (True, False, or null
        for an informational or unchecked check) and ``description`` (for an unchecked check:
        what was missing).
    examples
        check -> up to `examples` offending rows (a DataFrame), for the checks that ran.
    flagged
        check -> every offending row, as a LazyFrame to collect or count.
    recall_ceiling
        The mean over users with relevant truth of the share of their relevant items that
        are among their candidates: the best recall any ranking of these candidates can
        reach (None without candidates or truth).
    unchecked
        The checks that could decide the verdict (every leak check, and the protocol or
        coverage checks an option made failing) but did not run, and that ``allow_unchecked``
        did not accept: the audit cannot say these passed.
    """

    summary: pl.DataFrame
    examples: dict[str, pl.DataFrame] = field(default_factory=dict)
    flagged: dict[str, pl.LazyFrame] = field(default_factory=dict)
    recall_ceiling: float | None = None
    unchecked: tuple[str, ...] = ()

    @property
    def failed(self) -> list[str]:
        """The checks that ran and failed, in report order."""
        return self.summary.filter(pl.col("passed").not_()).get_column("check").to_list()

    @property
    def passed(self) -> bool:
        """True when no check failed and every check that could fail ran (or was allowed
        not to run); informational checks never fail."""
        return not self.failed and not self.unchecked

    def raise_if_failed(self) -> None:
        """Raise a ValueError naming every failed check with its count and one example row,
        and every check that could not run."""
        failed, unchecked = self.failed, list(self.unchecked)
        if not failed and not unchecked:
            return
        lines = []
        for row in self.summary.filter(pl.col("check").is_in(failed)).iter_rows(named=True):
            examples = self.examples.get(row["check"])
            example = examples.row(0, named=True) if examples is not None else None
            lines.append(
                f"- {row['check']}: {row['count']} of {row['total']} ({row['share']:.1%}) "
                f"{row['description']}, e.g. {example}"
            )
        for row in self.summary.filter(pl.col("check").is_in(unchecked)).iter_rows(named=True):
            lines.append(f"- {row['check']}: {row['description']}")
        problems = []
        if failed:
            problems.append(f"failed {len(failed)} check(s)")
        if unchecked:
            problems.append(f"could not run {len(unchecked)} check(s)")
        advice = "\nSee AuditReport.examples / .flagged for the rows."
        if unchecked:
            advice += (
                "\nGive the missing inputs, or accept the unchecked checks with "
                f"allow_unchecked={unchecked!r} (or True)."
            )
        raise ValueError(f"leakage audit {' and '.join(problems)}:\n" + "\n".join(lines) + advice)

    def __repr__(self) -> str:
        ceiling = "n/a" if self.recall_ceiling is None else f"{self.recall_ceiling:.4f}"
        verdicts = []
        if self.failed:
            verdicts.append(f"FAILED: {', '.join(self.failed)}")
        if self.unchecked:
            verdicts.append(f"NOT CHECKED: {', '.join(self.unchecked)}")
        verdict = "; ".join(verdicts) or "passed"
        table = self.summary.select("check", "kind", "status", "count", "total", "share")
        return f"AuditReport({verdict}; recall ceiling {ceiling})\n{table}"


@dataclass(frozen=True)
class Check:
    """One check: the rows it examined and those it flagged, or why it could not run."""

    examined: pl.LazyFrame | None
    flagged: pl.LazyFrame | None
    order: tuple[str, ...] = ()
    note: str | None = None

    @staticmethod
    def missing(what: str) -> Check:
        """A check that cannot run without `what`."""
        return Check(None, None, (), f"not checked: {what}")

    @staticmethod
    def rows(examined: pl.LazyFrame, flagged: pl.LazyFrame, order: Sequence[str]) -> Check:
        return Check(examined, flagged, tuple(order))


@dataclass(frozen=True)
class Verdicts:
    """The options that decide what each check's count means."""

    allow_repeats: bool
    allow_cold_start: bool
    min_coverage: float | None
    allow_unchecked: frozenset[str]

    def kind(self, name: str) -> str:
        if name == "truth_in_history" and self.allow_repeats:
            return "protocol"  # repeat consumption is expected
        return CHECKS[name][0]

    def decisive(self, name: str) -> bool:
        """Whether the check can fail the audit (else it is informational)."""
        if name == "cold_start_users":
            return not self.allow_cold_start
        if name == "truth_outside_pool":
            return self.min_coverage is not None
        return self.kind(name) == "leak"

    def passed(self, name: str, count: int, total: int) -> bool | None:
        if not self.decisive(name):
            return None
        if name == "truth_outside_pool":
            if self.min_coverage is None or total == 0:
                return None
            return (total - count) / total >= self.min_coverage
        return count == 0


def allowed_unchecked(allow_unchecked: bool | Iterable[str]) -> frozenset[str]:
    """The checks `allow_unchecked` accepts not running (True: all of them)."""
    if isinstance(allow_unchecked, bool):
        return frozenset(CHECKS) if allow_unchecked else frozenset()
    if isinstance(allow_unchecked, str):
        allow_unchecked = [allow_unchecked]
    names = frozenset(allow_unchecked)
    unknown = sorted(names - set(CHECKS))
    if unknown:
        raise ValueError(
            f"allow_unchecked names unknown check(s) {unknown}; the checks are {list(CHECKS)}"
        )
    return names


def build_report(
    checks: dict[str, Check],
    *,
    examples: int,
    ceiling: pl.LazyFrame | None,
    verdicts: Verdicts,
) -> AuditReport:
    """Count every check's rows (one multi-query pass) and judge them."""
    ran = {
        name: (check.examined, check.flagged, check.order)
        for name, check in checks.items()
        if check.examined is not None and check.flagged is not None
    }
    queries: list[pl.LazyFrame] = []
    for examined, flagged, order in ran.values():
        counts = [frame.select(pl.len().cast(pl.Int64)) for frame in (examined, flagged)]
        queries.append(pl.concat(counts, how="vertical"))
        queries.append(flagged.sort(list(order), nulls_last=True).head(examples))
    if ceiling is not None:
        queries.append(ceiling)
    results = iter(pl.collect_all(queries))
    rows: list[dict[str, Any]] = []
    found: dict[str, pl.DataFrame] = {}
    unchecked: list[str] = []
    for name, (_, description) in CHECKS.items():
        row: dict[str, Any] = {"check": name, "kind": verdicts.kind(name)}
        if name not in ran:
            if verdicts.decisive(name) and name not in verdicts.allow_unchecked:
                unchecked.append(name)
            row.update(status=NOT_CHECKED, description=checks[name].note)
            rows.append(row)
            continue
        total, count = next(results).to_series().to_list()
        found[name] = next(results)
        passed = verdicts.passed(name, count, total)
        status = INFORMATIONAL if passed is None else PASSED if passed else FAILED
        share = count / total if total else None
        row.update(status=status, count=count, total=total, share=share, passed=passed)
        rows.append({**row, "description": description})
    recall_ceiling = None
    if ceiling is not None:
        value = next(results).item()
        recall_ceiling = None if value is None else float(value)
    return AuditReport(
        summary=pl.DataFrame(rows, schema=SUMMARY_SCHEMA, orient="row"),
        examples=found,
        flagged={name: flagged for name, (_, flagged, _) in ran.items()},
        recall_ceiling=recall_ceiling,
        unchecked=tuple(unchecked),
    )
