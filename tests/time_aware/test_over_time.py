"""Metrics per period (polars_rankk/time/over_time.py): equal to evaluating each period alone."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.charts import plot_over_time
from polars_rankk.time.over_time import OVER_TIME_COLUMNS, evaluate_over_time
from polars_rankk.time.splits import rolling_splits

START = datetime(2024, 1, 1)  # a Monday


def _log(n_users: int = 12, n_days: int = 21) -> pl.DataFrame:
    rows = [
        (user, (user * 7 + day * 3) % 10, START + timedelta(days=day, hours=user % 5))
        for user in range(n_users)
        for day in range(n_days)
        if (user + day) % 3 != 0
    ]
    return pl.DataFrame(rows, schema=["user", "item", "timestamp"], orient="row")


def _candidates(users: pl.LazyFrame, shift: int) -> pl.LazyFrame:
    items = pl.LazyFrame({"item": list(range(10))})
    return users.join(items, how="cross").with_columns(
        (((pl.col("item") * 7 + pl.col("user") + shift) % 10) / 10).alias("score")
    )


@pytest.mark.parametrize("lazy", [False, True])
def test_static_candidates_equal_one_evaluation_per_week(lazy: bool) -> None:
    log = _log()
    truth = log.with_columns(pl.lit(1).alias("relevance"))
    candidates = _candidates(log.lazy().select("user").unique(), 0).collect()
    table = evaluate_over_time(
        candidates.lazy() if lazy else candidates,
        truth.lazy() if lazy else truth,
        time="timestamp",
        every="1w",
        k=[1, 3],
        metrics=["precision", "ndcg", "r_precision"],
    )
    assert table.columns == list(OVER_TIME_COLUMNS)
    weeks = truth["timestamp"].dt.truncate("1w").unique().sort().to_list()
    assert table["period"].unique().sort().to_list() == weeks
    for week in weeks:
        week_truth = truth.filter(pl.col("timestamp").dt.truncate("1w") == week)
        week_candidates = candidates.join(week_truth.select("user").unique(), on="user")
        expected = rk.evaluate(
            week_candidates,
            week_truth,
            k=[1, 3],
            metrics=["precision", "ndcg", "r_precision"],
            group_by="user",
        ).summary()
        got = table.filter(pl.col("period") == week).drop("period")
        assert got.rows() == expected.select(got.columns).rows()


def test_rolling_splits_feed_per_period_candidates() -> None:
    log = _log()
    splits = rolling_splits(log, start=START + timedelta(days=7), every="1w")
    assert len(splits) == 2
    parts = []
    for shift, split in enumerate(splits):
        users = split.truth.select("user").unique()
        parts.append(_candidates(users, shift).with_columns(pl.lit(split.cutoff).alias("cutoff")))
    candidates = pl.concat(parts)
    truth = pl.concat([split.truth for split in splits])
    table = evaluate_over_time(candidates, truth, time="cutoff", k=2, metrics="recall")
    assert table["period"].to_list() == [s.cutoff for s in splits]
    for split, shift, row in zip(splits, range(2), table.iter_rows(named=True), strict=True):
        users = split.truth.select("user").unique()
        expected = rk.evaluate(
            _candidates(users, shift), split.truth, k=2, metrics="recall", group_by="user"
        ).summary()
        assert (row["value"], row["n_groups"]) == (expected["value"][0], expected["n_groups"][0])


def test_integer_periods_nan_and_errors() -> None:
    candidates = pl.DataFrame({"user": [1, 2], "item": [1, 1], "score": [1.0, 1.0]})
    truth = pl.DataFrame(
        {"user": [1, 2, 1], "item": [1, 2, 2], "relevance": [1, 0, 1], "day": [3, 4, 12]}
    )
    table = evaluate_over_time(
        candidates,
        truth,
        time="day",
        every=10,
        k=1,
        metrics="hit_rate",
        policy=rk.Policy(empty_truth="nan"),
    )
    assert table.select("period", "value", "n_groups", "n_nan").rows() == [
        (0, 1.0, 1, 1),
        (10, 0.0, 1, 0),
    ]
    with pytest.raises(ValueError, match="may not contain"):
        evaluate_over_time(candidates, truth, time="day", group_by=["user", "period"])
    with pytest.raises(ValueError, match="has no column 'when'"):
        evaluate_over_time(candidates, truth, time="when")
    with pytest.raises(TypeError, match="in candidates but"):
        evaluate_over_time(
            candidates.with_columns(pl.lit(date(2024, 1, 1)).alias("day")), truth, time="day"
        )


def test_plot_over_time_draws_aggregated_rows_only() -> None:
    pytest.importorskip("altair")
    table = pl.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "period": [date(2024, 1, 1), date(2024, 1, 8)] * 4,
            "metric": ["precision"] * 8,
            "k": [5, 5, 10, 10] * 2,
            "value": [0.2, 0.15, 0.15, 0.12, 0.3, 0.2, 0.25, 0.2],
            "n_groups": 100,
        }
    )
    spec = plot_over_time(table, k=10, title="Drift").to_dict()
    values = spec["data"]["values"]
    assert len(values) == 4
    assert {(row["system"], row["series"]) for row in values} == {
        ("a", "precision@10"),
        ("b", "precision@10"),
    }
    assert values[0]["period"] == "2024-01-01"
    assert spec["encoding"]["x"]["type"] == "ordinal"
    assert spec["encoding"]["strokeDash"]["field"] == "system"
    assert spec["title"]["text"] == "Drift"
    hourly = table.filter(pl.col("system") == "a").with_columns(
        pl.col("period").cast(pl.Datetime) + pl.duration(hours=6)
    )
    one_system = plot_over_time(hourly.drop("system")).to_dict()
    assert "strokeDash" not in one_system["encoding"]
    assert one_system["data"]["values"][0]["period"] == "2024-01-01 06:00"
    numeric = plot_over_time(hourly.with_columns(pl.col("period").dt.day())).to_dict()
    assert numeric["encoding"]["x"]["type"] == "quantitative"
    with pytest.raises(ValueError, match="rows repeat"):
        plot_over_time(pl.concat([table, table]))
    res = rk.evaluate(
        pl.DataFrame({"u": [1], "item": [1], "score": [1.0]}),
        pl.DataFrame({"u": [1], "item": [1]}),
        group_by="u",
    )
    with pytest.raises(TypeError, match="not an evaluation"):
        plot_over_time(res)  # type: ignore[arg-type]
