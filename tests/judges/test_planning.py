"""rk.judge_labelling_plan: the designs of ppi_py's ``ppi_mean_power`` (cheapest pair for a
precision, most precise pair for a budget, at most ``n_max`` groups), from a pilot's values."""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk

ppi = pytest.importorskip("ppi_py")


def _pilot(seed: int, n: int, noise: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    human = rng.choice([0.0, 0.2, 0.5, 0.8, 1.0], n)
    judge = np.clip(human + rng.normal(0.05, noise, n), 0, 1).round(2)
    frame = {"q": np.arange(n), "metric": "ndcg", "k": 10}
    return pl.DataFrame({**frame, "value": judge}), pl.DataFrame({**frame, "value": human})


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(5, 60),
    noise=st.sampled_from([0.05, 0.2, 0.6]),
    cost_judge=st.sampled_from([0.001, 0.05, 0.5]),
    mode=st.sampled_from(["effective_n", "budget"]),
    n_max=st.sampled_from([None, 300, 5000]),
)
def test_equals_ppi_mean_power(
    seed: int, n: int, noise: float, cost_judge: float, mode: str, n_max: int | None
) -> None:
    judged, human = _pilot(seed, n, noise)
    y, yhat = human["value"].to_numpy(), judged["value"].to_numpy()
    if np.std(y) == 0 or np.std(yhat) == 0:
        return
    target = {"effective_n": 400} if mode == "effective_n" else {"budget": 250.0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = rk.judge_labelling_plan(
            judged, human, cost_judge=cost_judge, n_max=n_max, **target
        ).row(0, named=True)
        try:
            want = ppi.ppi_mean_power(y, yhat, 1.0, cost_judge, n_max=n_max, **target)
        except ValueError:
            # A correlation within rounding of 0 (not exactly 0) makes ppi_py divide 0 by 0;
            # the judge is then worth nothing: people only.
            assert abs(np.corrcoef(y, yhat)[0, 1]) < 1e-12
            assert row["n_judge_only"] == 0
            return
    assert row["ppi_corr"] == pytest.approx(want["ppi_corr"], abs=1e-12)
    got = (row["n_labelled"], row["n_judge_only"], row["effective_n"])
    assert got == (want["n"], want["N"], want["effective_n"])
    assert row["cost"] == pytest.approx(want["cost"], rel=1e-12)


def test_a_target_width_is_the_human_only_groups_it_takes() -> None:
    """width w at 1 - alpha: the precision of (2 z sd / w)^2 human-labelled groups."""
    judged, human = _pilot(1, 40, 0.2)
    y, yhat = human["value"].to_numpy(), judged["value"].to_numpy()
    z = NormalDist().inv_cdf(0.95)
    n0 = (2 * z * np.std(y) / 0.05) ** 2
    row = rk.judge_labelling_plan(judged, human, width=0.05, alpha=0.1).row(0, named=True)
    want = ppi.ppi_mean_power(y, yhat, 1.0, 0.01, effective_n=n0)
    assert (row["n_labelled"], row["n_judge_only"]) == (want["n"], want["N"])
    assert row["human_only_n"] == math.ceil(n0)


def test_a_worthless_judge_plans_people_only_and_bad_options_are_refused() -> None:
    judged, human = _pilot(2, 30, 0.05)
    noise = judged.with_columns(value=pl.Series(np.random.default_rng(0).random(30)))
    row = rk.judge_labelling_plan(noise, human, effective_n=100, cost_judge=0.5).row(0, named=True)
    assert (row["n_labelled"], row["n_judge_only"]) == (100, 0)
    with pytest.raises(ValueError, match="exactly one of width=, effective_n= or budget="):
        rk.judge_labelling_plan(judged, human, width=0.1, budget=10.0)
    with pytest.raises(ValueError, match="cost_human and cost_judge must be positive"):
        rk.judge_labelling_plan(judged, human, effective_n=10, cost_judge=0.0)
    with pytest.warns(rk.JudgeCorrectionWarning, match="out of reach with at most n_max=50"):
        rk.judge_labelling_plan(judged, human, effective_n=400, n_max=50)
    flat = human.head(1)
    with pytest.raises(ValueError, match="needs at least two groups"):
        rk.judge_labelling_plan(judged, flat, effective_n=10)
