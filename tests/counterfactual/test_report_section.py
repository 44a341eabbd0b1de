"""The report shows what each ranking would have earned from logged interactions: the
estimates of `evaluate_counterfactual`, their intervals and the diagnostics that qualify them,
in a section of its own; a wrong argument is refused in words."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.reports.counterfactual import estimates_table

LOG = pl.DataFrame(
    {
        "user": [1, 1, 2, 2, 3, 3],
        "item": [1, 2, 1, 3, 2, 3],
        "position": [1, 2, 1, 2, 1, 2],
        "click": [1, 0, 0, 1, 1, 0],
    }
)
NEW = pl.DataFrame(
    {
        "user": [1, 1, 2, 2, 3, 3],
        "item": [2, 1, 3, 1, 3, 2],
        "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
    }
)
TRUTH = pl.DataFrame({"user": [1, 2, 3], "item": [1, 3, 2]})


def _result() -> rk.CounterfactualResult:
    return rk.evaluate_counterfactual(
        LOG, NEW, group_by="user", k=2, examination=[1.0, 0.5], estimator=["naive", "snips"],
        n_bootstrap=20,
    )  # fmt: skip


def test_the_table_holds_each_estimate_and_the_diagnostics() -> None:
    """One row per (system, estimator), equal to the result's own overall table."""
    result = _result()
    table = estimates_table({"new": result})
    assert table["estimator"].to_list() == result.overall["estimator"].to_list()
    assert table["reward_at_k"].to_list() == result.overall["reward_at_k"].to_list()
    assert table["largest_weight"].to_list() == [result.diagnostics.largest_weight] * 2


def test_the_report_has_the_section(tmp_path: Path) -> None:
    """`report(counterfactual=...)` adds the section, its chart and its table."""
    path = rk.report({"new": NEW}, TRUTH, group_by="user", k=[1, 2], n_resamples=20,
                     path=tmp_path / "report.html", counterfactual={"new": _result()})  # fmt: skip
    page = path.read_text()
    assert "Estimates from logged interactions" in page
    assert "top K never logged" in page


def test_a_wrong_argument_is_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="evaluate_counterfactual"):
        rk.report({"new": NEW}, TRUTH, group_by="user", k=1, n_resamples=20,
                  path=tmp_path / "r.html", counterfactual={"new": NEW})  # type: ignore[dict-item]  # fmt: skip
