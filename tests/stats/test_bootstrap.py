"""`bootstrap`: the resampling of groups (by the kernel or NumPy's weights) draws like naive
resampling of groups; intervals cover a known mean about as often as they should; strata,
NaN, one-group and empty inputs; reproducibility."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_rankk as rk
from polars_rankk.core.kernel.resample import resampled_column_sums
from polars_rankk.stats.distributions import distribution
from polars_rankk.stats.resampling import acceleration, bootstrap, weight_blocks
from tests.support.kernel_path import path


def naive_means(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Draw len(values) groups with replacement, n_resamples times: the textbook bootstrap."""
    rng = np.random.default_rng(seed)
    drawn = values[rng.integers(0, len(values), size=(n_resamples, len(values)))]
    return np.asarray(drawn.mean(axis=1), dtype=np.float64)


@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("n", [70_000, 300])
def test_resampled_column_sums_have_the_naive_distribution(kernel: bool, n: int) -> None:
    """The counterfactual's resampling of groups (by the kernel, or NumPy's weights) draws as
    the textbook bootstrap does, every column sharing each resample."""
    values = np.random.default_rng(4).beta(2, 5, size=n)  # continuous: every value distinct
    columns = np.vstack([values, 2 * values])
    with path(kernel):
        sums = resampled_column_sums(np.random.default_rng(5), columns, 400)
    if kernel and sums is None:
        pytest.skip("the kernel is not loaded")
    if sums is None:
        weights = np.concatenate(list(weight_blocks(np.random.default_rng(5), [n], 400)))
        sums = weights @ columns.T
    np.testing.assert_allclose(sums[:, 1], 2 * sums[:, 0], rtol=1e-12)
    drawn = sums[:, 0] / n
    naive = naive_means(values, 400, seed=6)
    assert stats.ks_2samp(drawn, naive).pvalue > 0.01
    expected_sd = values.std() / np.sqrt(n)
    assert drawn.std(ddof=1) == pytest.approx(expected_sd, rel=0.2)
    assert abs(drawn.mean() - values.mean()) < 4 * expected_sd / np.sqrt(400)


def test_the_kernel_sums_the_weights_numpy_draws() -> None:
    columns = np.random.default_rng(7).random((3, 1000)).round(2)
    with path(True):
        sums = resampled_column_sums(np.random.default_rng(8), columns, 120)
    if sums is None:
        pytest.skip("the kernel is not loaded")
    weights = np.concatenate(list(weight_blocks(np.random.default_rng(8), [1000], 120)))
    np.testing.assert_allclose(sums, weights @ columns.T, rtol=1e-13)


def replicate_frame(replicates: int, n: int, seed: int) -> pl.DataFrame:
    """Independent samples of n groups whose per-group value is hits/10, hits ~ Bin(10, 0.3):
    a known population mean of 0.3. One stratum per replicate."""
    rng = np.random.default_rng(seed)
    values = rng.binomial(10, 0.3, size=(replicates, n)) / 10
    return pl.DataFrame(
        {
            "user": np.arange(replicates * n),
            "replicate": np.repeat(np.arange(replicates), n),
            "metric": "precision",
            "k": 10,
            "value": values.ravel(),
        }
    )


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_coverage_of_a_known_mean_is_close_to_nominal(method: str) -> None:
    frame = replicate_frame(replicates=300, n=50, seed=11)
    out = bootstrap(
        frame, n_resamples=500, confidence=0.9, seed=0, method=method,  # type: ignore[arg-type]
        by="replicate", group_keys=["user"],
    )  # fmt: skip
    assert out.height == 300
    covered = ((out["ci_low"] <= 0.3) & (out["ci_high"] >= 0.3)).mean()
    # 300 replicates: nominal 0.90 ± 3 standard errors (0.017 each)
    assert 0.85 <= covered <= 0.95  # type: ignore[operator]


def test_stratified_resampling_keeps_stratum_sizes() -> None:
    rng = np.random.default_rng(12)
    low = rng.integers(0, 2, 300) / 10  # values 0.0 / 0.1
    high = 0.9 + rng.integers(0, 2, 100) / 10  # values 0.9 / 1.0
    frame = pl.DataFrame(
        {"user": range(400), "segment": ["low"] * 300 + ["high"] * 100, "metric": "recall",
         "k": 5, "value": np.concatenate([low, high])}
    )  # fmt: skip
    plain = bootstrap(frame, n_resamples=3000, seed=1, group_keys=["user"])
    layered = bootstrap(frame, n_resamples=3000, seed=1, stratify="segment", group_keys=["user"])
    n = 400
    theory = np.sqrt(sum((len(v) / n) ** 2 * v.var() / len(v) for v in (low, high)))
    assert layered["std_error"][0] == pytest.approx(theory, rel=0.05)
    assert layered["std_error"][0] < 0.5 * plain["std_error"][0]  # the segment mix is fixed
    assert layered["value"][0] == plain["value"][0] == pytest.approx(frame["value"].mean())


def test_acceleration_equals_the_jackknife() -> None:
    values = np.random.default_rng(13).exponential(size=25).round(1)
    leave_one_out = np.array([np.delete(values, i).mean() for i in range(len(values))])
    spread = leave_one_out.mean() - leave_one_out
    jackknife = (spread**3).sum() / (6 * ((spread**2).sum()) ** 1.5)
    distinct, counts = np.unique(values, return_counts=True)
    assert acceleration(distinct, counts) == pytest.approx(jackknife, rel=1e-12)


def test_bca_agrees_with_scipy_within_monte_carlo_error() -> None:
    values = np.random.default_rng(14).exponential(0.2, size=30).clip(0, 1).round(2)
    frame = pl.DataFrame({"user": range(30), "metric": "mrr", "k": 10, "value": values})
    ours = bootstrap(frame, n_resamples=20_000, seed=2, method="bca").row(0, named=True)
    reference = stats.bootstrap(
        (values,), np.mean, n_resamples=20_000, method="BCa", confidence_level=0.95,
        random_state=np.random.default_rng(3),
    ).confidence_interval  # fmt: skip
    width = reference.high - reference.low
    assert ours["ci_low"] == pytest.approx(reference.low, abs=0.03 * width)
    assert ours["ci_high"] == pytest.approx(reference.high, abs=0.03 * width)
    percentile = bootstrap(frame, n_resamples=20_000, seed=2).row(0, named=True)
    assert ours["ci_low"] > percentile["ci_low"]  # right skew moves BCa up


@pytest.mark.parametrize("lazy", [False, True])
def test_one_group_no_group_constant_and_nan(lazy: bool) -> None:
    frame = pl.DataFrame(
        {
            "user": [1, 2, 3, 4, 5, 6, 7],
            "segment": ["one", "none", "none", "flat", "flat", "flat", "flat"],
            "metric": "ndcg",
            "k": 10,
            "value": [0.4, float("nan"), float("nan"), 0.5, 0.5, 0.5, float("nan")],
        }
    )
    out = bootstrap(frame.lazy() if lazy else frame, by="segment", seed=0, group_keys=["user"])
    assert isinstance(out, pl.DataFrame)
    rows = {row["segment"]: row for row in out.iter_rows(named=True)}
    assert rows["one"] | {"segment": None} == {
        "segment": None, "metric": "ndcg", "k": 10, "n_groups": 1, "n_nan": 0, "value": 0.4,
        "ci_low": None, "ci_high": None, "std_error": None,
    }  # fmt: skip
    assert (rows["none"]["n_groups"], rows["none"]["n_nan"], rows["none"]["value"]) == (0, 2, None)
    assert rows["none"]["ci_low"] is None
    flat = rows["flat"]
    assert (flat["n_groups"], flat["n_nan"]) == (3, 1)
    assert flat["ci_low"] == flat["ci_high"] == flat["value"] == 0.5
    assert flat["std_error"] == 0.0


def test_reproducible_and_independent_of_other_rows() -> None:
    frame = replicate_frame(replicates=1, n=200, seed=15).drop("replicate")
    more = pl.concat([frame, frame.with_columns(pl.lit("recall").alias("metric"))])
    first = bootstrap(frame, seed=7)
    assert first.equals(bootstrap(frame, seed=7))
    assert not first.equals(bootstrap(frame, seed=8))
    # adding another metric does not move this one's interval
    assert first.equals(bootstrap(more, seed=7).filter(pl.col("metric") == "precision"))
    assert bootstrap(frame, seed=None)["value"][0] == first["value"][0]


def test_empty_input_and_errors() -> None:
    frame = replicate_frame(replicates=1, n=5, seed=16).drop("replicate")
    empty = bootstrap(frame.clear())
    assert empty.height == 0
    assert empty.columns == [
        "metric", "k", "n_groups", "n_nan", "value", "ci_low", "ci_high", "std_error"
    ]  # fmt: skip
    for options, message in (
        ({"n_resamples": 0}, "n_resamples must be a positive integer"),
        ({"confidence": 1.0}, "confidence must be in"),
        ({"method": "basic"}, "method must be 'percentile' or 'bca'"),
        ({"seed": -1}, "seed must be a non-negative integer"),
    ):
        with pytest.raises(ValueError, match=message):
            bootstrap(frame, **options)


def test_through_evaluate_means_match_distribution() -> None:
    rng = np.random.default_rng(17)
    candidates = pl.DataFrame(
        {"user": np.repeat(np.arange(50), 5), "item": np.tile(np.arange(5), 50),
         "score": rng.random(250)}
    )  # fmt: skip
    truth = pl.DataFrame({"user": np.arange(50), "item": rng.integers(0, 8, 50)})
    result = rk.evaluate(candidates.lazy(), truth.lazy(), k=[1, 3], group_by="user")
    intervals = bootstrap(result, n_resamples=200, seed=0)
    summary = distribution(result, quantiles=[])
    summary = summary.collect() if isinstance(summary, pl.LazyFrame) else summary
    joined = intervals.join(summary, on=["metric", "k"], nulls_equal=True)
    assert joined.height == summary.height == intervals.height
    np.testing.assert_allclose(joined["value"], joined["mean"], rtol=1e-12)
    assert (joined["ci_low"] <= joined["value"]).all()
    assert (joined["value"] <= joined["ci_high"]).all()
