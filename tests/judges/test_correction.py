"""rk.judge_correction: equal to ppi_py's mean estimators, covering where the judge alone does
not, and refusing human groups the judge never saw."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk

ppi = pytest.importorskip("ppi_py")


def _frames(human: np.ndarray, judge: np.ndarray, unlabelled: np.ndarray) -> tuple:
    n = len(human)
    judged = pl.DataFrame(
        {"q": np.arange(n + len(unlabelled)), "metric": "ndcg", "k": 10,
         "value": np.concatenate([judge, unlabelled])}
    )  # fmt: skip
    labelled = pl.DataFrame({"q": np.arange(n), "metric": "ndcg", "k": 10, "value": human})
    return judged, labelled


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(3, 30),
    big_n=st.integers(2, 80),
    alpha=st.sampled_from([0.05, 0.1, 0.32]),
    method=st.sampled_from(["ppi++", "ppi", "classical"]),
)
def test_equals_ppi_py(seed: int, n: int, big_n: int, alpha: float, method: str) -> None:
    """Estimate and interval equal ppi_mean_pointestimate / ppi_mean_ci to 1e-9 (lambda
    tuned, 1 or 0), on metric-like values with ties."""
    rng = np.random.default_rng(seed)
    human = rng.choice([0.0, 0.25, 0.5, 1.0], n)
    judge = np.clip(human + rng.normal(0.1, 0.3, n), 0, 1).round(1)
    unlabelled = rng.uniform(0, 1, big_n).round(1)
    if np.var(np.concatenate([judge, unlabelled])) == 0:
        return
    lam = {"ppi++": None, "ppi": 1.0, "classical": 0.0}[method]
    point = ppi.ppi_mean_pointestimate(human, judge, unlabelled, lam=lam)
    lower, upper = ppi.ppi_mean_ci(human, judge, unlabelled, alpha=alpha, lam=lam)
    result = rk.judge_correction(*_frames(human, judge, unlabelled), alpha=alpha, method=method)
    row = result.row(0, named=True)
    assert row["estimate"] == pytest.approx(float(np.squeeze(point)), abs=1e-9)
    assert row["lower"] == pytest.approx(float(np.squeeze(lower)), abs=1e-9)
    assert row["upper"] == pytest.approx(float(np.squeeze(upper)), abs=1e-9)
    assert (row["n_labelled"], row["n_unlabelled"]) == (n, big_n)


def test_paired_difference_equals_ppi_py_on_differences() -> None:
    """Two systems: the pair's row is the PPI mean of the per-group differences."""
    rng = np.random.default_rng(3)
    n, big_n = 20, 60
    frames = {}
    values = {}
    for name in ("A", "B"):
        human = rng.uniform(0, 1, n)
        judge = np.clip(human + rng.normal(0.2, 0.2, n), 0, 1)
        unlabelled = rng.uniform(0, 1, big_n)
        frames[name] = _frames(human, judge, unlabelled)
        values[name] = (human, judge, unlabelled)
    result = rk.judge_correction(
        {name: pair[0] for name, pair in frames.items()},
        {name: pair[1] for name, pair in frames.items()},
    )
    pair = result.filter(pl.col("baseline") == "B").row(0, named=True)
    (ha, ja, ua), (hb, jb, ub) = values["A"], values["B"]
    expected = ppi.ppi_mean_pointestimate(ha - hb, ja - jb, ua - ub)
    lower, upper = ppi.ppi_mean_ci(ha - hb, ja - jb, ua - ub, alpha=0.05)
    assert pair["system"] == "A"
    assert pair["estimate"] == pytest.approx(float(np.squeeze(expected)), abs=1e-9)
    assert (pair["lower"], pair["upper"]) == pytest.approx(
        (float(np.squeeze(lower)), float(np.squeeze(upper))), abs=1e-9
    )
    assert result.height == 3


def test_covers_the_true_mean_where_the_biased_judge_does_not() -> None:
    """Simulation with known truth: a judge biased by +0.1 misses the true mean in nearly
    every run; the corrected 90% interval covers it in about 90% of runs."""
    rng = np.random.default_rng(0)
    runs, n, big_n, true_mean = 300, 60, 600, 0.5
    covered = judge_covered = 0
    for _ in range(runs):
        truth = rng.uniform(0, 1, n + big_n)
        judge = truth + 0.1 + rng.normal(0, 0.1, n + big_n)
        judged, human = _frames(truth[:n], judge[:n], judge[n:])
        row = rk.judge_correction(judged, human, alpha=0.1).row(0, named=True)
        covered += row["lower"] <= true_mean <= row["upper"]
        judge_covered += row["judge_lower"] <= true_mean <= row["judge_upper"]
    assert 0.85 <= covered / runs <= 0.95
    assert judge_covered / runs < 0.2


def test_human_groups_the_judge_lacks_are_named() -> None:
    judged = pl.DataFrame({"q": [1, 2, 3], "metric": "ndcg", "k": 10, "value": [0.1, 0.2, 0.3]})
    human = pl.DataFrame({"q": [1, 9], "metric": "ndcg", "k": 10, "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match=r"human has a group .* judged lacks.*'q': 9"):
        rk.judge_correction(judged, human)


def test_bad_method_and_systems_are_refused() -> None:
    frame = pl.DataFrame({"q": [1, 2], "metric": "ndcg", "k": 10, "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match="method must be"):
        rk.judge_correction(frame, frame, method="bayes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same systems"):
        rk.judge_correction({"A": frame}, {"B": frame})
