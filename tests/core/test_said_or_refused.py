"""Every path says what it did, or refuses: the warnings and errors a user needs, with the
words (column, what to pass) that fix the input."""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.inputs.spec import IgnoredColumnWarning

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def demo() -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates = pl.read_parquet(DATA / "demo_candidates.parquet")
    truth = pl.read_parquet(DATA / "demo_truth.parquet")
    return candidates, truth


def test_an_unnamed_numeric_truth_column_warns_once(
    demo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    candidates, truth = demo
    run = candidates.filter(system="two_tower").drop("system")
    rated = truth.rename({"relevance": "rating"})
    with pytest.warns(IgnoredColumnWarning) as caught:
        ungraded = rk.evaluate(run, rated, k=10, metrics="ndcg", group_by="user")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "no 'relevance' column" in message
    assert "'rating' is not used" in message
    assert "pass relevance='rating'" in message
    graded = rk.evaluate(run, rated, k=10, metrics="ndcg", group_by="user", relevance="rating")
    assert graded.summary()["value"].item() != ungraded.summary()["value"].item()


def test_a_named_relevance_column_that_does_not_exist_raises(
    demo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    candidates, truth = demo
    run = candidates.filter(system="two_tower").drop("system")
    with pytest.raises(ValueError, match=r"relevance='grade' is not a column of the truth.*"
                       r"'user', 'item', 'relevance'.*pass relevance='relevance'"):  # fmt: skip
        rk.evaluate(run, truth, k=10, group_by="user", relevance="grade")


def test_no_warning_when_the_grades_are_used_or_absent() -> None:
    candidates = pl.DataFrame({"q": [1], "item": [1], "score": [1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [1]}), k=1, group_by="q")
        rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [1], "relevance": [2]}), k=1,
                    group_by="q")  # fmt: skip


def test_pooling_rows_of_several_systems_warns(demo: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    candidates, truth = demo
    with pytest.warns(IgnoredColumnWarning, match=r"53,353 rows share a \(group, 'item'\) pair "
                      r"with a row whose 'system' differs.*pass system='system'"):  # fmt: skip
        pooled = rk.evaluate(candidates, truth, k=[5, 10], group_by="user")
    assert pooled.diagnostics.counts["duplicate_rows_removed"] == 27_825
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rk.evaluate(candidates, truth, k=[5, 10], group_by="user", system="system")
