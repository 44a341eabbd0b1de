"""Temporal splits, truth from the future, seen items and sessions (polars_rankk/time/: splits,
rolling, truth, seen, sessions), checked against plain-Python implementations."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.time.seen import drop_seen
from polars_rankk.time.sessions import sessionize, summarize_by
from polars_rankk.time.splits import (
    rolling_splits,
    split_by_time,
    split_last_fraction,
    split_last_n,
)
from polars_rankk.time.temporal_split import TemporalSplit
from polars_rankk.time.truth import truth_from_log

Row = tuple[int, int, int, int, int]  # row id, user, item, timestamp, value

logs = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 5), st.integers(0, 12), st.integers(-1, 3)),
    min_size=0,
    max_size=40,
)
FAST = settings(max_examples=40, deadline=None)


def _frame(rows: list[tuple[int, int, int, int]], clock: str = "int") -> pl.DataFrame:
    frame = pl.DataFrame(
        {
            "row": list(range(len(rows))),
            "user": [r[0] for r in rows],
            "item": [r[1] for r in rows],
            "timestamp": [r[2] for r in rows],
            "value": [r[3] for r in rows],
        },
        schema={
            "row": pl.Int64,
            "user": pl.Int64,
            "item": pl.Int64,
            "timestamp": pl.Int64,
            "value": pl.Int64,
        },
    )
    if clock == "datetime":
        base = datetime(2024, 1, 1)
        frame = frame.with_columns(pl.lit(base) + pl.duration(hours=pl.col("timestamp")))
    return frame


def _rows(frame: pl.LazyFrame) -> list[int]:
    return sorted(frame.collect().get_column("row").to_list())


def _partition(split: TemporalSplit, n_rows: int) -> tuple[list[int], list[int]]:
    history, future = _rows(split.history), _rows(split.future)
    assert sorted(history + future) == list(range(n_rows)), "a row was lost or duplicated"
    return history, future


def _reference_last(rows: list[tuple[int, int, int, int]], count: dict[int, int]) -> list[int]:
    """Row ids in the future: per user, rows at or after its count-th latest timestamp."""
    by_user: dict[int, list[int]] = defaultdict(list)
    for user, _, moment, _ in rows:
        by_user[user].append(moment)
    cutoff = {user: sorted(times, reverse=True)[count[user] - 1] for user, times in by_user.items()}
    return [i for i, (user, _, moment, _) in enumerate(rows) if moment >= cutoff[user]]


@FAST
@given(rows=logs, cutoff=st.integers(0, 13), lazy=st.booleans())
def test_global_cutoff_matches_reference(
    rows: list[tuple[int, int, int, int]], cutoff: int, lazy: bool
) -> None:
    frame = _frame(rows)
    split = split_by_time(frame.lazy() if lazy else frame, cutoff, value="value")
    history, future = _partition(split, len(rows))
    assert future == [i for i, r in enumerate(rows) if r[2] >= cutoff]
    assert history == [i for i, r in enumerate(rows) if r[2] < cutoff]


@FAST
@given(rows=logs, cutoffs=st.dictionaries(st.integers(0, 3), st.integers(0, 13)))
def test_per_user_cutoffs_are_honoured(
    rows: list[tuple[int, int, int, int]], cutoffs: dict[int, int]
) -> None:
    table = pl.DataFrame(
        {"user": list(cutoffs), "cutoff": list(cutoffs.values())},
        schema={"user": pl.Int64, "cutoff": pl.Int64},
    )
    split = split_by_time(
        _frame(rows, "datetime"),
        table.with_columns(pl.lit(datetime(2024, 1, 1)) + pl.duration(hours=pl.col("cutoff"))),
    )
    _, future = _partition(split, len(rows))
    expected = [i for i, r in enumerate(rows) if r[0] in cutoffs and r[2] >= cutoffs[r[0]]]
    assert future == expected


@FAST
@given(rows=logs, n=st.integers(1, 4))
def test_leave_last_n_out_matches_reference(rows: list[tuple[int, int, int, int]], n: int) -> None:
    split = split_last_n(_frame(rows), n)
    _, future = _partition(split, len(rows))
    users = {r[0] for r in rows}
    counts = {user: min(n, sum(r[0] == user for r in rows)) for user in users}
    assert future == _reference_last(rows, counts)
    # Each user's cutoff separates its history (strictly before) from its future.
    cutoffs = dict(split.cutoffs.collect().iter_rows())
    for i, (user, _, moment, _) in enumerate(rows):
        assert (moment >= cutoffs[user]) == (i in future)


@FAST
@given(rows=logs, fraction=st.sampled_from([0.1, 0.2, 0.25, 1 / 3, 0.5, 0.7, 1.0]))
def test_last_fraction_matches_reference(
    rows: list[tuple[int, int, int, int]], fraction: float
) -> None:
    split = split_last_fraction(_frame(rows), fraction)
    _, future = _partition(split, len(rows))
    sizes = defaultdict(int)
    for r in rows:
        sizes[r[0]] += 1
    counts = {user: math.ceil(round(fraction * m, 9)) for user, m in sizes.items()}
    assert future == _reference_last(rows, counts)


@FAST
@given(rows=logs, combine=st.sampled_from(["max", "sum"]))
def test_truth_matches_reference(rows: list[tuple[int, int, int, int]], combine: str) -> None:
    split = split_by_time(_frame(rows), 6, value="value", combine=combine)  # type: ignore[arg-type]
    grades: dict[tuple[int, int], list[float]] = defaultdict(list)
    first: dict[tuple[int, int], int] = {}
    for user, item, moment, value in rows:
        if moment >= 6:
            grades[(user, item)].append(max(value, 0))
            first[(user, item)] = min(first.get((user, item), moment), moment)
    fold = max if combine == "max" else sum
    expected = {key: (float(fold(values)), first[key], 6) for key, values in grades.items()}
    got = {
        (row["user"], row["item"]): (row["relevance"], row["timestamp"], row["cutoff"])
        for row in split.truth.collect().iter_rows(named=True)
    }
    assert got == expected


@FAST
@given(rows=logs, every=st.integers(1, 5), window=st.one_of(st.none(), st.integers(1, 6)))
def test_rolling_splits_tile_the_timeline(
    rows: list[tuple[int, int, int, int]], every: int, window: int | None
) -> None:
    frame = _frame(rows)
    last = max((r[2] for r in rows), default=-1)
    if last < 3:
        with pytest.raises(ValueError, match="no period starts"):
            rolling_splits(frame, start=3, every=every)
        return
    splits = rolling_splits(frame, start=3, every=every, history_window=window)
    assert [s.cutoff for s in splits] == list(range(3, last + 1, every))
    futures: list[int] = []
    for split in splits:
        c = split.cutoff
        assert isinstance(c, int)
        futures += _rows(split.future)
        lower = -1 if window is None else c - window
        assert _rows(split.history) == [i for i, r in enumerate(rows) if lower <= r[2] < c]
    assert sorted(futures) == [i for i, r in enumerate(rows) if r[2] >= 3]  # each once


def test_ties_at_the_boundary_stay_together_and_engines_agree(engine: str) -> None:
    log = pl.LazyFrame({"user": [1, 1, 1, 1], "item": [1, 2, 3, 4], "timestamp": [1, 2, 3, 3]})
    split = split_last_n(log, 1)
    assert split.future.collect(engine=engine)["item"].sort().to_list() == [3, 4]
    assert split.history.collect(engine=engine)["item"].sort().to_list() == [1, 2]
    assert split.cutoff is None
    assert "per user" in repr(split)


def test_datetime_date_and_time_zone_cutoffs() -> None:
    moments = [datetime(2024, 1, d, 12) for d in (1, 2, 3)]
    log = pl.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "timestamp": moments})
    # A date cutoff on a Datetime column means midnight.
    assert split_by_time(log, date(2024, 1, 2)).future.collect().height == 2
    aware = log.with_columns(pl.col("timestamp").dt.replace_time_zone("Europe/Paris"))
    cutoff = datetime(2024, 1, 2, 11, 30, tzinfo=timezone.utc)  # 12:30 in Paris
    assert split_by_time(aware, cutoff).future.collect()["item"].to_list() == [3]
    with pytest.raises(TypeError, match="time zone"):
        split_by_time(aware, datetime(2024, 1, 2))
    with pytest.raises(TypeError, match="cannot be compared"):
        split_by_time(log, 5)
    dates = log.with_columns(pl.col("timestamp").dt.date())
    with pytest.raises(TypeError, match="a date for Date columns"):
        split_by_time(dates, datetime(2024, 1, 2))
    weekly = split_by_time(dates, date(2024, 1, 2), horizon="1d")
    assert weekly.future.collect()["item"].to_list() == [2]


def test_horizon_and_rolling_with_dates() -> None:
    log = pl.DataFrame(
        {
            "user": [1] * 5,
            "item": [1, 2, 3, 4, 5],
            "timestamp": [date(2024, 1, d) for d in (1, 3, 8, 10, 16)],
        }
    )
    split = split_by_time(log, date(2024, 1, 3), horizon=timedelta(days=7))
    assert split.future.collect()["item"].to_list() == [2, 3]
    splits = rolling_splits(log, start=date(2024, 1, 1), end=date(2024, 1, 15), every="1w")
    assert [s.cutoff for s in splits] == [date(2024, 1, 1), date(2024, 1, 8)]
    assert splits[1].future.collect()["item"].to_list() == [3, 4]  # 16th is past `end`
    truth = pl.concat([s.truth for s in splits]).collect()
    assert truth["cutoff"].unique().sort().to_list() == [date(2024, 1, 1), date(2024, 1, 8)]


def test_rolling_splits_on_dates_take_a_timedelta_like_a_duration_string() -> None:
    """Every=timedelta(days=7) on a Date column raised a raw ComputeError."""
    log = pl.DataFrame(
        {
            "user": [1] * 5,
            "item": [1, 2, 3, 4, 5],
            "timestamp": [date(2024, 1, d) for d in (1, 3, 8, 10, 16)],
        }
    )
    by_text = rolling_splits(log, start=date(2024, 1, 1), every="1w", history_window="2w")
    by_delta = rolling_splits(
        log,
        start=date(2024, 1, 1),
        every=timedelta(days=7),
        history_window=timedelta(days=14),
        horizon=timedelta(weeks=1),
    )
    assert [s.cutoff for s in by_delta] == [s.cutoff for s in by_text]
    assert [s.cutoff for s in by_delta] == [date(2024, 1, d) for d in (1, 8, 15)]
    for text, delta in zip(by_text, by_delta, strict=True):
        assert delta.future.collect().equals(text.future.collect())
        assert delta.history.collect().equals(text.history.collect())
    # Dates move in whole days: a part of a day is refused with a clear message.
    with pytest.raises(ValueError, match=r"every .*not a whole number of days.*Date"):
        rolling_splits(log, start=date(2024, 1, 1), every=timedelta(hours=36))
    with pytest.raises(ValueError, match=r"horizon .*not a whole number of days"):
        split_by_time(log, date(2024, 1, 3), horizon=timedelta(hours=7))


def test_invalid_logs_raise_with_the_column_and_a_row() -> None:
    log = pl.DataFrame({"user": [1, 2], "item": [1, 2], "timestamp": [1, None]})
    with pytest.raises(ValueError, match=r"'timestamp' must not be null.*'user': 2"):
        split_by_time(log, 1)
    with pytest.raises(ValueError, match="has no column 'when'"):
        split_by_time(log, 1, timestamp="when")
    text = log.with_columns(pl.col("timestamp").cast(pl.String))
    with pytest.raises(TypeError, match=r"Datetime, Date or integer.*str.to_datetime"):
        split_by_time(text, 1)
    with pytest.raises(ValueError, match="n must be an int >= 1"):
        split_last_n(log.drop_nulls(), 0)
    with pytest.raises(ValueError, match=r"fraction must be in \(0, 1\]"):
        split_last_fraction(log.drop_nulls(), 1.5)
    with pytest.raises(ValueError, match="not a duration"):
        split_by_time(
            log.drop_nulls().with_columns(pl.from_epoch("timestamp")),
            date(1970, 1, 1),
            horizon="1 week",
        )
    with pytest.raises(ValueError, match="combine must be"):
        split_by_time(log.drop_nulls(), 1, combine="mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="each user must have one cutoff"):
        split_by_time(log.drop_nulls(), pl.DataFrame({"user": [1, 1], "cutoff": [1, 2]}))
    with pytest.raises(ValueError, match="no period starts"):
        rolling_splits(log.drop_nulls(), start=10, every=1)


def test_truth_from_log_counts_repeats_and_feeds_evaluate() -> None:
    future = pl.DataFrame({"user": [1, 1, 1, 2], "item": [1, 1, 2, 3], "timestamp": [5, 6, 7, 8]})
    truth = truth_from_log(future, combine="sum").sort("user", "item").collect()
    assert truth["relevance"].to_list() == [2, 1, 1]
    candidates = pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [2.0, 1.0, 1.0]})
    res = rk.evaluate(candidates, truth, k=1, metrics="ndcg", group_by="user")
    assert res.per_group["value"].to_list() == [1.0, 1.0]


def test_drop_seen_filters_and_reports() -> None:
    history = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "timestamp": [1, 2, 3]})
    candidates = pl.LazyFrame(
        {
            "system": ["a", "a", "a", "b", "a"],
            "user": [1, 1, 1, 1, 2],
            "item": [10, 12, 13, 10, 10],
            "score": [0.9, 0.8, 0.7, 0.5, 0.4],
        },
        schema_overrides={"item": pl.Int32},  # id dtypes are unified
    )
    truth = pl.DataFrame({"user": [1, 1, 2], "item": [11, 12, 10]})
    seen = drop_seen(candidates, history, truth)
    assert isinstance(seen.candidates, pl.LazyFrame)
    assert isinstance(seen.truth, pl.DataFrame)
    assert seen.candidates.collect().select("system", "item").rows() == [("a", 12), ("a", 13)]
    assert seen.truth.rows() == [(1, 12)]
    report = {row["table"]: row for row in seen.report.iter_rows(named=True)}
    assert report["candidates"] == {
        "table": "candidates",
        "rows_before": 5,
        "rows_removed": 3,
        "rows_after": 2,
        "users_affected": 2,
        "users_emptied": 1,
    }
    assert (report["truth"]["rows_removed"], report["truth"]["users_emptied"]) == (2, 1)
    only_truth = drop_seen(candidates, history, truth, from_candidates=False)
    assert only_truth.candidates is candidates
    assert only_truth.report["table"].to_list() == ["truth"]
    with pytest.raises(TypeError, match="in candidates but"):
        drop_seen(candidates.with_columns(pl.col("item").cast(pl.String)), history)


def test_split_drop_seen_matches_the_function() -> None:
    log = pl.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 1, 3], "timestamp": [1, 2, 5, 6]})
    split = split_by_time(log, 4)
    candidates = pl.DataFrame({"user": [1, 1], "item": [1, 4], "score": [1.0, 0.5]})
    seen = split.drop_seen(candidates)
    assert isinstance(seen.candidates, pl.DataFrame)
    assert seen.candidates["item"].to_list() == [4]
    assert isinstance(seen.truth, pl.LazyFrame)
    assert seen.truth.collect()["item"].to_list() == [3]
    assert "SeenFiltered" in repr(seen)


def _reference_sessions(rows: list[tuple[int, int]], gap: int) -> list[int]:
    ids = [0] * len(rows)
    by_user: dict[int, list[int]] = defaultdict(list)
    for i, (user, _) in enumerate(rows):
        by_user[user].append(i)
    for indices in by_user.values():
        ordered = sorted(indices, key=lambda i: rows[i][1])
        session, previous = 0, None
        for i in ordered:
            if previous is None or rows[i][1] - previous >= gap:
                session += 1
            ids[i] = session
            previous = rows[i][1]
    return ids


@FAST
@given(
    rows=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 60)), max_size=30),
    gap=st.integers(1, 20),
)
def test_sessionize_matches_reference(rows: list[tuple[int, int]], gap: int) -> None:
    log = pl.DataFrame(
        {"user": [r[0] for r in rows], "timestamp": [r[1] for r in rows]},
        schema={"user": pl.Int64, "timestamp": pl.Int64},
    )
    assert sessionize(log, gap)["session"].to_list() == _reference_sessions(rows, gap)


def test_sessionize_datetimes_lazy_and_errors() -> None:
    start = datetime(2024, 1, 1, 9)
    moments = [start, start + timedelta(minutes=30), start + timedelta(minutes=59)]
    log = pl.LazyFrame({"user": [1, 1, 1], "timestamp": moments})
    out = sessionize(log, timedelta(minutes=30))
    assert isinstance(out, pl.LazyFrame)
    assert out.collect()["session"].to_list() == [1, 2, 2]  # exactly `gap` opens a session
    with pytest.raises(ValueError, match="must name a new column"):
        sessionize(out, "30m")
    with pytest.raises(ValueError, match="positive"):
        sessionize(log, timedelta(0))


def test_summarize_by_averages_sessions_within_users() -> None:
    per_group = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3],
            "session": [1, 2, 3, 1, 2, 1],
            "metric": ["recall"] * 6,
            "k": [5] * 6,
            "value": [1.0, 0.0, 0.5, 0.25, float("nan"), float("nan")],
        }
    )
    summary = summarize_by(per_group, "user")
    assert summary.row(0, named=True) == {
        "metric": "recall",
        "k": 5,
        "value": (0.5 + 0.25) / 2,
        "n_groups": 2,
        "n_nan": 1,
        "n_subgroups": 4,
        "n_nan_subgroups": 2,
    }
    # Row order does not change the result.
    assert summarize_by(per_group.reverse(), "user").equals(summary)


def test_summarize_by_an_evaluation_with_r_precision() -> None:
    candidates = pl.DataFrame(
        {"user": [1, 1, 2], "session": [1, 2, 1], "item": [1, 1, 1], "score": [1.0] * 3}
    )
    truth = pl.DataFrame({"user": [1, 1, 2], "session": [1, 2, 1], "item": [1, 2, 2]})
    res = rk.evaluate(
        candidates, truth, k=1, metrics=["precision", "r_precision"], group_by=["user", "session"]
    )
    summary = summarize_by(res, "user")
    assert summary.select("metric", "k", "value").rows() == [
        ("precision", 1, 0.25),
        ("r_precision", None, 0.25),
    ]
    with pytest.raises(ValueError, match="strict subset"):
        summarize_by(res, ["user", "session"])
    with pytest.raises(TypeError, match="Evaluation or its per_group"):
        summarize_by([1, 2], "user")  # type: ignore[arg-type]
