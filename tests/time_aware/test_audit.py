"""The leakage audit (polars_rankk/time/leakage.py): each kind of leak, planted by hand, is
found — exactly those rows, no others — and a check that could not run says so."""

from __future__ import annotations

from datetime import datetime, timedelta

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rankk.time.audit_report import CHECKS
from polars_rankk.time.leakage import audit
from polars_rankk.time.splits import split_by_time, split_last_n

T0 = datetime(2024, 3, 1)
CUTOFF = T0 + timedelta(days=10)


def _at(day: int) -> datetime:
    return T0 + timedelta(days=day)


def _tables() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """A history, a truth and candidates with one planted leak of every kind."""
    history = pl.DataFrame(
        {
            "user": [1, 1, 2, 2, 3],
            "item": [11, 12, 21, 22, 31],
            "timestamp": [_at(1), _at(2), _at(3), _at(10), _at(4)],  # (2, 22): at the cutoff
        }
    )
    truth = pl.DataFrame(
        {
            "user": [1, 1, 2, 3, 3, 5],
            "item": [11, 13, 23, 32, 33, 51],  # (1, 11) was in the history
            "relevance": [1, 2, 1, 0, 1, 3],  # (3, 32) is not relevant
            "timestamp": [_at(11), _at(12), _at(11), _at(12), _at(9), _at(13)],  # (3, 33): early
        }
    )
    candidates = pl.DataFrame(
        {
            "user": [1, 1, 2, 2, 3, 5],
            "item": [13, 14, 23, 24, 34, 51],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
            # (1, 14) from features at the cutoff; (3, 34) from later ones.
            "feature_ts": [_at(9), _at(10), _at(5), _at(8), _at(15), _at(1)],
        }
    )
    return history, truth, candidates


def _keys(frame: pl.LazyFrame, columns: tuple[str, ...] = ("user", "item")) -> set[tuple]:
    return set(frame.collect().select(columns).iter_rows())


def test_each_leak_is_found_exactly() -> None:
    history, truth, candidates = _tables()
    report = audit(
        candidates.lazy(),
        history=history,
        truth=truth.lazy(),
        cutoff=CUTOFF,
        feature_time="feature_ts",
    )
    assert report.summary["check"].to_list() == list(CHECKS)
    assert _keys(report.flagged["candidates_after_cutoff"]) == {(1, 14), (3, 34)}
    assert _keys(report.flagged["history_after_cutoff"]) == {(2, 22)}
    assert _keys(report.flagged["truth_before_cutoff"]) == {(3, 33)}
    assert _keys(report.flagged["truth_in_history"]) == {(1, 11)}
    assert _keys(report.flagged["cold_start_users"], ("user",)) == {(5,)}
    # No candidate item was ever in the history.
    assert _keys(report.flagged["cold_start_items"]) == _keys(candidates.lazy())
    # Relevant truth (grade >= 1) outside the candidates: (1, 11) and (3, 33).
    assert _keys(report.flagged["truth_outside_pool"]) == {(1, 11), (3, 33)}
    counts = dict(report.summary.select("check", "count").iter_rows())
    totals = dict(report.summary.select("check", "total").iter_rows())
    assert counts == {
        "candidates_after_cutoff": 2,
        "history_after_cutoff": 1,
        "truth_before_cutoff": 1,
        "truth_in_history": 1,
        "cold_start_users": 1,
        "cold_start_items": 6,
        "candidates_in_history": 0,
        "truth_outside_pool": 2,
    }
    assert totals == {
        "candidates_after_cutoff": 6,
        "history_after_cutoff": 5,
        "truth_before_cutoff": 6,
        "truth_in_history": 6,
        "cold_start_users": 4,
        "cold_start_items": 6,
        "candidates_in_history": 6,
        "truth_outside_pool": 5,
    }
    assert report.failed == [
        "candidates_after_cutoff",
        "history_after_cutoff",
        "truth_before_cutoff",
        "truth_in_history",
    ]
    assert not report.passed
    # Users 1: 1 of 2 pooled; 2: 1 of 1; 3: 0 of 1; 5: 1 of 1.
    assert report.recall_ceiling == pytest.approx((0.5 + 1 + 0 + 1) / 4)
    example = report.examples["truth_in_history"].row(0, named=True)
    assert example["last_seen_in_history"] == _at(1)
    assert report.examples["candidates_after_cutoff"]["cutoff"].to_list() == [CUTOFF, CUTOFF]


def test_strict_mode_names_every_failed_check_with_an_example() -> None:
    history, truth, candidates = _tables()
    with pytest.raises(ValueError, match="failed 4 check") as caught:
        audit(
            candidates,
            history=history,
            truth=truth,
            cutoff=CUTOFF,
            feature_time=["feature_ts"],
            strict=True,
        )
    message = str(caught.value)
    for check in ("candidates_after_cutoff", "history_after_cutoff", "truth_before_cutoff"):
        assert f"- {check}:" in message
    assert "'item': 22" in message  # the example row of history_after_cutoff
    assert "cold_start_users" not in message


def test_per_user_cutoffs() -> None:
    history, truth, candidates = _tables()
    cutoffs = pl.DataFrame({"user": [1, 2, 3], "cutoff": [_at(12), _at(11), _at(9)]})
    report = audit(
        candidates,
        history=history,
        truth=truth,
        cutoff=cutoffs,
        feature_time="feature_ts",
    )
    assert _keys(report.flagged["candidates_after_cutoff"]) == {(3, 34)}
    assert _keys(report.flagged["history_after_cutoff"]) == set()
    # User 1's (1, 11) at day 11 is now before its cutoff (day 12); user 5 has no cutoff.
    assert _keys(report.flagged["truth_before_cutoff"]) == {(1, 11)}


def test_options_turn_checks_informational_or_failing() -> None:
    history, truth, candidates = _tables()
    clean_truth = truth.filter(pl.col("item") != 33)
    report = audit(
        candidates.filter(pl.col("feature_ts") < CUTOFF),
        history=history.filter(pl.col("timestamp") < CUTOFF),
        truth=clean_truth,
        cutoff=CUTOFF,
        feature_time="feature_ts",
        allow_repeats=True,
    )
    assert report.passed
    kinds = dict(report.summary.select("check", "kind").iter_rows())
    assert kinds["truth_in_history"] == "protocol"
    strict = audit(
        candidates,
        history=history,
        truth=clean_truth,
        allow_repeats=True,
        allow_cold_start=False,
        min_coverage=0.9,
    )
    assert strict.failed == ["cold_start_users", "truth_outside_pool"]
    lenient = audit(candidates, truth=clean_truth, min_coverage=0.5, allow_unchecked=True)
    assert lenient.passed  # 3 of 4 relevant rows pooled
    # Without history or cutoff the leak checks cannot run: the audit does not pass.
    unchecked = audit(candidates, truth=clean_truth, min_coverage=0.5)
    assert not unchecked.failed
    assert unchecked.unchecked == (
        "candidates_after_cutoff",
        "history_after_cutoff",
        "truth_before_cutoff",
        "truth_in_history",
    )
    assert not unchecked.passed


def test_skipped_checks_say_why() -> None:
    history, truth, _ = _tables()
    report = audit(history=history.drop("timestamp"), truth=truth, allow_unchecked=True)
    rows = {row["check"]: row for row in report.summary.iter_rows(named=True)}
    assert rows["candidates_after_cutoff"]["description"] == "not checked: no candidates"
    assert (
        rows["history_after_cutoff"]["description"]
        == "not checked: history has no 'timestamp' column"
    )
    assert rows["truth_before_cutoff"]["description"] == "not checked: no cutoff given"
    assert rows["truth_outside_pool"]["count"] is None
    assert rows["truth_in_history"]["count"] == 1
    assert report.recall_ceiling is None
    assert report.unchecked == ()
    assert report.failed == ["truth_in_history"]
    assert "truth_in_history" in repr(report)
    with pytest.raises(ValueError, match="needs a candidates table"):
        audit(history=history, feature_time="feature_ts")
    with pytest.raises(ValueError, match="has no column 'feature_ts'"):
        audit(history, feature_time="feature_ts")
    with pytest.raises(ValueError, match=r"unknown check\(s\) \['feature_leak'\]"):
        audit(history=history, allow_unchecked=["feature_leak"])


def test_a_leak_check_without_its_input_is_not_checked_and_fails_strict() -> None:
    """Without feature_time the audit reported "passed" on a model that reads
    future data; the skipped check only showed up as nulls."""
    history, truth, candidates = _tables()
    honest_history = history.filter(pl.col("timestamp") < CUTOFF)
    honest_truth = truth.filter(pl.col("timestamp") >= CUTOFF, pl.col("item") != 11)
    options = {"history": honest_history, "truth": honest_truth, "cutoff": CUTOFF}
    # The candidates of user 3 were scored from features made after the cutoff (day 15).
    report = audit(candidates, **options)
    row = report.summary.row(0, named=True)
    assert row["check"] == "candidates_after_cutoff"
    assert row["status"] == "not checked"
    assert row["passed"] is None
    assert "feature_time" in row["description"]
    assert report.summary["status"].to_list() == [
        "not checked",
        "passed",
        "passed",
        "passed",
        "informational",
        "informational",
        "informational",
        "informational",
    ]
    assert report.failed == []
    assert report.unchecked == ("candidates_after_cutoff",)
    assert not report.passed
    assert "NOT CHECKED: candidates_after_cutoff" in repr(report)
    assert "passed;" not in repr(report)
    assert "not checked" in repr(report)
    with pytest.raises(ValueError, match="could not run 1 check") as caught:
        audit(candidates, **options, strict=True)
    message = str(caught.value)
    assert "- candidates_after_cutoff: not checked: no feature_time" in message
    assert "allow_unchecked=['candidates_after_cutoff']" in message
    # The user opts out, by name or for every check: then strict passes.
    for allowed in (True, ["candidates_after_cutoff"], "candidates_after_cutoff"):
        accepted = audit(candidates, **options, strict=True, allow_unchecked=allowed)
        assert accepted.passed
        assert accepted.summary["status"][0] == "not checked"
        assert repr(accepted).startswith("AuditReport(passed;")
    # With the feature times the leak is found.
    caught_leak = audit(candidates, **options, feature_time="feature_ts")
    assert caught_leak.failed == ["candidates_after_cutoff"]
    # Informational checks that cannot run never block; those an option makes failing do.
    assert audit(candidates, **options, feature_time="feature_ts").unchecked == ()
    no_history = audit(
        candidates,
        truth=honest_truth,
        cutoff=CUTOFF,
        feature_time="feature_ts",
        allow_cold_start=False,
        allow_unchecked=["history_after_cutoff", "truth_in_history"],
    )
    assert no_history.unchecked == ("cold_start_users",)


def test_cold_start_items_are_those_unseen_before_the_cutoff() -> None:
    history = pl.DataFrame(
        {
            "user": [1, 1, 2, 2],
            "item": [10, 11, 12, 13],
            "timestamp": [_at(1), _at(5), _at(10), _at(12)],
        }
    )
    candidates = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3],
            "item": [10, 11, 12, 13, 14, 11],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        }
    )
    # Global cutoff (day 10): 12 first appears at the cutoff, 13 after it, 14 never.
    report = audit(candidates, history=history, cutoff=CUTOFF, allow_unchecked=True)
    flagged = report.flagged["cold_start_items"].collect()
    assert set(flagged.select("user", "item").iter_rows()) == {(1, 12), (2, 13), (2, 14)}
    assert flagged.sort("item")["first_seen_in_history"].to_list() == [_at(10), _at(12), None]
    row = report.summary.filter(pl.col("check") == "cold_start_items").row(0, named=True)
    assert (row["count"], row["total"], row["kind"], row["status"]) == (
        3,
        6,
        "protocol",
        "informational",
    )
    assert row["passed"] is None
    # Per-user cutoffs: user 1 at day 6 (11 seen on day 5), user 2 at day 13; user 3 has none,
    # so any history row counts for it.
    cutoffs = pl.DataFrame({"user": [1, 2], "cutoff": [_at(6), _at(13)]})
    per_user = audit(candidates, history=history, cutoff=cutoffs, allow_unchecked=True)
    assert _keys(per_user.flagged["cold_start_items"]) == {(1, 12), (2, 14)}
    # Without a cutoff (or history timestamps) an item is seen when it is in the history.
    untimed = audit(candidates, history=history.drop("timestamp"), allow_unchecked=True)
    assert _keys(untimed.flagged["cold_start_items"]) == {(2, 14)}
    assert "first_seen_in_history" not in untimed.flagged["cold_start_items"].collect_schema()
    # It needs candidates and history.
    alone = audit(candidates, allow_unchecked=True).summary.filter(
        pl.col("check") == "cold_start_items"
    )
    assert alone["status"].item() == "not checked"
    assert alone["description"].item() == "not checked: needs candidates and history"


def test_cutoff_types_are_checked() -> None:
    history, _, candidates = _tables()
    with pytest.raises(TypeError, match="cannot be compared"):
        audit(candidates, history=history, cutoff=10)
    with pytest.raises(TypeError, match="must share one dtype"):
        audit(
            candidates.with_columns(pl.lit(3).alias("other")),
            cutoff=CUTOFF,
            feature_time=["feature_ts", "other"],
        )


def test_a_split_audits_clean_and_its_truth_carries_the_cutoff() -> None:
    history, truth, _ = _tables()
    log = pl.concat(
        [
            history.with_columns(pl.lit(1).alias("value")),
            truth.select("user", "item", "timestamp", pl.col("relevance").alias("value")),
        ],
        how="vertical_relaxed",
    )
    split = split_last_n(log, 1, value="value")
    candidates = pl.DataFrame({"user": [1, 2], "item": [13, 23], "score": [1.0, 1.0]})
    report = split.audit(candidates)
    counts = dict(report.summary.select("check", "count").iter_rows())
    assert counts["history_after_cutoff"] == 0
    assert counts["truth_before_cutoff"] == 0
    # Without an explicit cutoff the audit reads the truth's own `cutoff` column.
    implied = audit(history=split.history, truth=split.truth)
    assert implied.summary.filter(pl.col("check") == "truth_before_cutoff")["count"].item() == 0


logs = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 10)), max_size=30)


@settings(max_examples=30, deadline=None)
@given(rows=logs, cutoff=st.integers(0, 11))
def test_splits_never_leak_and_repeats_match_reference(
    rows: list[tuple[int, int, int]], cutoff: int
) -> None:
    log = pl.DataFrame(
        {
            "user": [r[0] for r in rows],
            "item": [r[1] for r in rows],
            "timestamp": [r[2] for r in rows],
        },
        schema={"user": pl.Int64, "item": pl.Int64, "timestamp": pl.Int64},
    )
    split = split_by_time(log, cutoff)
    report = split.audit()
    counts = dict(report.summary.select("check", "count").iter_rows())
    assert counts["history_after_cutoff"] == 0
    assert counts["truth_before_cutoff"] == 0
    seen = {(u, i) for u, i, t in rows if t < cutoff}
    truth = {(u, i) for u, i, t in rows if t >= cutoff}
    assert counts["truth_in_history"] == len(truth & seen)
    assert counts["cold_start_users"] == len({u for u, _ in truth} - {u for u, _ in seen})
