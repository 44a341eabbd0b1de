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


@pytest.mark.parametrize("method", ["ppi++", "ppi", "classical"])
def test_every_group_labelled_gives_the_human_mean_and_says_so(method: str) -> None:
    """People labelled every group: the estimate and interval are ppi_py's classical ones
    (not null), lambda 0, with a warning naming what was done."""
    rng = np.random.default_rng(7)
    human = rng.choice([0.0, 0.25, 0.5, 1.0], 40)
    judge = np.clip(human + rng.normal(0.1, 0.3, 40), 0, 1).round(1)
    judged, labelled = _frames(human, judge, np.array([]))
    with pytest.warns(rk.JudgeCorrectionWarning, match="labelled every group"):
        row = rk.judge_correction(judged, labelled, method=method).row(0, named=True)  # type: ignore[arg-type]
    lower, upper = ppi.classical_mean_ci(human, alpha=0.05)
    assert row["estimate"] == pytest.approx(human.mean(), abs=1e-12)
    assert (row["lower"], row["upper"]) == pytest.approx((lower, upper), abs=1e-9)
    assert (row["lambda"], row["n_unlabelled"]) == (0.0, 0)


def test_an_evaluation_of_several_systems_equals_the_dict_of_them() -> None:
    """evaluate(..., system=) under judge and human labels: the same rows as the
    {system: evaluation} dicts, systems and their paired differences."""
    rng = np.random.default_rng(3)
    groups, items = 30, 8
    candidates = pl.DataFrame(
        {
            "run": np.repeat(["A", "B"], groups * items),
            "q": np.tile(np.repeat(np.arange(groups), items), 2),
            "item": np.tile(np.arange(items), 2 * groups),
            "score": rng.random(2 * groups * items),
        }
    )
    judge_truth = pl.DataFrame(
        {"q": np.repeat(np.arange(groups), items), "item": np.tile(np.arange(items), groups),
         "relevance": rng.integers(0, 2, groups * items)}
    )  # fmt: skip
    human_truth = judge_truth.filter(pl.col("q") < 12).with_columns(
        relevance=pl.col("relevance") * rng.integers(0, 2, 12 * items)
    )
    options = {"k": 5, "metrics": ["precision", "ndcg"], "group_by": "q", "system": "run"}
    judged = rk.evaluate(candidates, judge_truth, **options)
    human = rk.evaluate(candidates.filter(pl.col("q") < 12), human_truth, **options)
    together = rk.judge_correction(judged, human)
    apart = rk.judge_correction(judged.by_system(), human.by_system())
    assert together.equals(apart)
    # The same numbers, to the last bit, on every call.
    assert all(rk.judge_correction(judged, human).equals(together) for _ in range(5))
    assert together["system"].to_list()[:4] == ["A", "A", "B", "B"]
