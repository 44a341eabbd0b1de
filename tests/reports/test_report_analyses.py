"""The report's optional analyses: risk (table and chart), groups needed and unjudged bounds
appear when asked for, with the numbers of `rk.risk`, `rk.comparison_power` and
`rk.unjudged_bounds`, and not by default."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.evaluation.display import number
from polars_rankk.reports.document import render_evaluations, render_report

pytest.importorskip("altair")


def inputs() -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    rng = np.random.default_rng(0)
    users, items = np.repeat(np.arange(20), 6), np.tile(np.arange(6), 20)
    score = rng.random(users.size)
    systems = {
        "A": pl.DataFrame({"user": users, "item": items, "score": score}),
        "B": pl.DataFrame({"user": users, "item": items, "score": score + (items == 0) * 0.3}),
    }
    truth = pl.DataFrame({"user": np.arange(20), "item": 0}).vstack(
        pl.DataFrame({"user": np.arange(0, 20, 2), "item": 3})
    )
    return systems, truth


def test_the_analyses_are_off_by_default() -> None:
    systems, truth = inputs()
    page = render_report(systems, truth, k=[1, 3], group_by="user", n_resamples=20)
    for anchor in ('id="risk"', 'id="groups-needed"', 'id="unjudged"'):
        assert anchor not in page


def test_each_analysis_shows_the_numbers_of_its_function() -> None:
    systems, truth = inputs()
    page = render_report(
        systems, truth, k=[1, 3], group_by="user", n_resamples=20, risk_alpha=2.0,
        groups_needed=True, unjudged_bounds=True, metrics=["precision", "ndcg"],
    )  # fmt: skip
    chosen = ["precision", "ndcg"]
    evaluations = {
        n: rk.evaluate(c, truth, k=[1, 3], group_by="user", metrics=chosen)
        for n, c in systems.items()
    }
    risk = rk.risk(evaluations, "A", alpha=2.0)
    assert 'id="risk"' in page
    assert f"<td>{number(risk['urisk'][0])}</td>" in page
    assert f"<td>{number(risk['trisk'][0])}</td>" in page
    assert 'id="groups-needed"' in page
    bounds = rk.unjudged_bounds(systems["B"], truth, k=[1, 3], group_by="user",
                                metrics=["precision", "ndcg"])  # fmt: skip
    assert 'id="unjudged"' in page
    assert f"<td>{number(bounds.summary['upper'][0])}</td>" in page


def test_render_evaluations_adds_risk_and_groups_needed() -> None:
    systems, truth = inputs()
    evaluations = {n: rk.evaluate(c, truth, k=[1, 3], group_by="user") for n, c in systems.items()}
    page = render_evaluations(evaluations, n_resamples=20, risk_alpha=1.0, groups_needed=True)
    assert 'id="risk"' in page
    assert 'id="groups-needed"' in page
    assert "groups needed" in page


def test_unjudged_bounds_refuse_evaluations_without_candidates() -> None:
    systems, truth = inputs()
    evaluations = {n: rk.evaluate(c, truth, k=[1, 3], group_by="user") for n, c in systems.items()}
    with pytest.raises(ValueError, match="unjudged_bounds=True evaluates candidates again"):
        render_report(evaluations, truth, k=[1, 3], n_resamples=20, unjudged_bounds=True)
