"""The HTML report, given human labels beside a judge's, shows the judge-vs-corrected section
with the numbers of rk.judge_correction."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.reports.document import render_report

pytest.importorskip("altair")


def test_the_section_holds_judge_correction_numbers() -> None:
    rng = np.random.default_rng(1)
    groups, items = 20, 6
    keys = {"q": np.repeat(np.arange(groups), items), "item": np.tile(np.arange(items), groups)}
    grades = rng.integers(0, 2, groups * items)
    judge = pl.DataFrame({**keys, "relevance": np.maximum(grades, rng.integers(0, 2, grades.size))})
    human = pl.DataFrame({**keys, "relevance": grades}).filter(pl.col("q") < 8)
    systems = {name: pl.DataFrame({**keys, "score": rng.normal(size=groups * items)})
               for name in ("A", "B")}  # fmt: skip
    options = {"k": [5], "metrics": ["precision"], "group_by": "q"}
    page = render_report(systems, judge, human_truth=human, n_resamples=20, **options)
    assert "Judge and human labels" in page
    judged = {n: rk.evaluate(c, judge, **options) for n, c in systems.items()}
    people = {n: rk.evaluate(c, human, **options) for n, c in systems.items()}
    estimate = rk.judge_correction(judged, people).filter(
        pl.col("system") == "A", pl.col("baseline").is_null()
    )["estimate"][0]
    assert f"{estimate:.4f}" in page


def _judged_systems() -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    rng = np.random.default_rng(4)
    groups, items = 12, 5
    keys = {"q": np.repeat(np.arange(groups), items), "item": np.tile(np.arange(items), groups)}
    truth = pl.DataFrame({**keys, "relevance": 1, "p": rng.choice([0.1, 0.5, 0.9], groups * items)})
    systems = {name: pl.DataFrame({**keys, "score": rng.normal(size=groups * items)})
               for name in ("A", "B")}  # fmt: skip
    return systems, truth


def test_a_report_over_label_probabilities_resamples_the_labels_in_every_interval() -> None:
    from polars_rankk.reports.content import build_content

    systems, truth = _judged_systems()
    options = {"k": [1, 3], "metrics": ["P", "nDCG"], "group_by": "q", "label_probability": "p"}
    page = render_report(systems, truth, n_resamples=50, **options)
    assert "each value is its expectation over the label outcomes" in page
    evaluations = rk.evaluate_systems(systems, truth, **options)
    content = build_content(
        evaluations, k=[1, 3], by=None, attributes=None, baseline="A", ui_k=None,
        n_resamples=50, confidence=0.95, seed=0, say=lambda _: None, bars=False,
        curve_k_max=None,
    )  # fmt: skip
    assert content.labels
    noisy = rk.bootstrap(evaluations["A"], n_resamples=50, seed=0, labels=True)
    row = next(r for r in content.summary if (r.metric, r.k) == ("precision", 3))
    expected = noisy.filter(metric="precision", k=3).row(0, named=True)
    assert row.values["A"] == (expected["value"], expected["ci_low"], expected["ci_high"])
    compared = rk.compare(evaluations, baseline="A", n_resamples=50, seed=0, labels=True)
    assert content.comparison is not None
    assert content.comparison.table.equals(compared)


def test_a_report_of_systems_judged_otherwise_is_refused_in_words() -> None:
    systems, truth = _judged_systems()
    options = {"k": [3], "metrics": ["P"], "group_by": "q"}
    judged = rk.evaluate(systems["A"], truth, label_probability="p", **options)
    plain = rk.evaluate(systems["B"], truth.drop("p"), **options)
    from polars_rankk.reports.document import render_evaluations

    with pytest.raises(ValueError, match="'A' was evaluated over label probabilities"):
        render_evaluations({"A": judged, "B": plain}, n_resamples=20)
