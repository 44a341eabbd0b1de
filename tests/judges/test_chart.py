"""rk.plot_judge_correction draws each system's judge-only and corrected means with their
intervals, and refuses a table that is not judge_correction's."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk

pytest.importorskip("altair")


def test_both_intervals_of_every_system_are_drawn() -> None:
    judged = pl.DataFrame({"q": [1, 2, 3, 4], "metric": "ndcg", "k": 10,
                           "value": [0.8, 0.6, 0.4, 0.6]})  # fmt: skip
    human = pl.DataFrame({"q": [1, 2], "metric": "ndcg", "k": 10, "value": [0.6, 0.5]})
    other = judged.with_columns(pl.col("value") / 2)
    table = rk.judge_correction({"A": judged, "B": other}, {"A": human, "B": human})
    spec = rk.plot_judge_correction(table).to_dict()
    rows = spec["data"]["values"] if "data" in spec else spec["spec"]["data"]["values"]
    drawn = {(row["system"], row["labels"]) for row in rows}
    assert drawn == {(s, label) for s in "AB"
                     for label in ("judge only", "corrected with human labels")}  # fmt: skip
    corrected = next(r for r in rows if r["system"] == "A" and r["labels"].startswith("corr"))
    expected = table.filter(pl.col("system") == "A", pl.col("baseline").is_null()).row(
        0, named=True
    )
    assert (corrected["lower"], corrected["upper"]) == (expected["lower"], expected["upper"])


def test_another_table_is_refused() -> None:
    with pytest.raises(ValueError, match="missing columns"):
        rk.plot_judge_correction(pl.DataFrame({"metric": ["ndcg"], "k": [10]}))
