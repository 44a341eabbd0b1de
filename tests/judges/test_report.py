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
