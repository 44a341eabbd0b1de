"""rk.judge_cross_correction: ppi_py's cross-prediction-powered mean (estimate and interval),
each labelled group read by its own fold's judge; bad folds named with a row."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk

ppi = pytest.importorskip("ppi_py")


def _case(seed: int, n: int, big_n: int, n_folds: int) -> tuple[dict, pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    groups = n + big_n
    truth = rng.choice([0.0, 0.25, 0.5, 1.0], groups)
    judges = {
        f"f{j}": pl.DataFrame(
            {
                "q": np.arange(groups),
                "metric": "ndcg",
                "k": 10,
                "value": np.clip(truth + rng.normal(0.1, 0.3, groups), 0, 1).round(2),
            }
        )
        for j in range(n_folds)
    }
    human = pl.DataFrame({"q": np.arange(n), "metric": "ndcg", "k": 10, "value": truth[:n]})
    folds = pl.DataFrame({"q": np.arange(n), "fold": [f"f{i % n_folds}" for i in range(n)]})
    return judges, human, folds


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(4, 40),
    big_n=st.integers(2, 80),
    n_folds=st.integers(2, 5),
    alpha=st.sampled_from([0.05, 0.1]),
)
def test_equals_ppi_py_crossppi(seed: int, n: int, big_n: int, n_folds: int, alpha: float) -> None:
    judges, human, folds = _case(seed, n, big_n, n_folds)
    values = np.column_stack([judges[f"f{j}"]["value"].to_numpy() for j in range(n_folds)])
    y = human["value"].to_numpy()
    yhat = values[np.arange(n), np.arange(n) % n_folds]
    unlabelled = values[n:]
    point = ppi.crossppi_mean_pointestimate(y, yhat, unlabelled)
    lower, upper = ppi.crossppi_mean_ci(y, yhat, unlabelled, alpha=alpha)
    row = rk.judge_cross_correction(judges, human, folds, alpha=alpha).row(0, named=True)
    assert row["estimate"] == pytest.approx(float(np.squeeze(point)), abs=1e-9)
    assert row["lower"] == pytest.approx(float(np.squeeze(lower)), abs=1e-9)
    assert row["upper"] == pytest.approx(float(np.squeeze(upper)), abs=1e-9)
    assert (row["n_labelled"], row["n_unlabelled"], row["lambda"]) == (n, big_n, 1.0)


def test_bad_folds_are_named() -> None:
    judges, human, folds = _case(0, 6, 4, 2)
    with pytest.raises(ValueError, match=r"folds names a fold that judges lacks .*'fold': 'zz'"):
        rk.judge_cross_correction(judges, human, folds.with_columns(fold=pl.lit("zz")))
    with pytest.raises(ValueError, match=r"needs its fold in folds: e.g. .*'q': 5"):
        rk.judge_cross_correction(judges, human, folds.filter(pl.col("q") != 5))
    twice = pl.concat([folds, folds.head(1).with_columns(fold=pl.lit("f1"))])
    with pytest.raises(ValueError, match="gives a group two folds"):
        rk.judge_cross_correction(judges, human, twice)
    with pytest.raises(ValueError, match="two folds or more"):
        rk.judge_cross_correction({"f0": judges["f0"]}, human, folds)
    short = {**judges, "f1": judges["f1"].filter(pl.col("q") != 8)}
    with pytest.raises(ValueError, match=r"every fold's judge must give every unlabelled group"):
        rk.judge_cross_correction(short, human, folds)


def test_fold_keys_are_aligned_as_evaluate_aligns_ids() -> None:
    """Int32 fold keys beside Int64 ones give the same estimate; text keys beside integers
    are refused naming both tables, not with a raw join error."""
    judges, human, folds = _case(1, 8, 6, 2)
    want = rk.judge_cross_correction(judges, human, folds)["estimate"].item()
    narrow = folds.with_columns(pl.col("q").cast(pl.Int32))
    got = rk.judge_cross_correction(judges, human, narrow)["estimate"].item()
    assert got == pytest.approx(want, abs=1e-12)
    text = folds.with_columns(pl.col("q").cast(pl.String))
    with pytest.raises(TypeError, match=r"column 'q' has dtype Int64 in human but String in folds"):
        rk.judge_cross_correction(judges, human, text)
