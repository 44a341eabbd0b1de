"""bootstrap(labels=True): with values that are expectations over uncertain labels, the
interval that resamples the labels as well as the groups covers the mean under the labels
that turn out true at about the nominal rate; the groups-only interval does not."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk

pytest.importorskip("numpy")


def test_coverage_of_the_mean_under_the_true_labels() -> None:
    """Simulation with known truth: 40 groups of 5 listed items, each relevant with a judge's
    probability (calibrated) in [0.3, 0.7]; precision@5's expectation is the mean of the
    probabilities and its variance over the labels the sum of p(1 - p) over 25. The truth
    is one draw of the labels; its mean over the groups is what the interval should hold."""
    rng = np.random.default_rng(11)
    trials, groups, items = 200, 40, 5
    covered = {False: 0, True: 0}
    for _ in range(trials):
        p = rng.uniform(0.3, 0.7, (groups, items))
        true_mean = (rng.random((groups, items)) < p).mean()
        frame = pl.DataFrame({
            "q": np.arange(groups), "metric": "precision", "k": 5,
            "value": p.mean(axis=1), "std": np.sqrt((p * (1 - p)).sum(axis=1)) / items,
        })  # fmt: skip
        for labels in (False, True):
            row = rk.bootstrap(frame, n_resamples=400, confidence=0.9, seed=1, labels=labels,
                               group_keys=["q"]).row(0, named=True)  # fmt: skip
            covered[labels] += row["ci_low"] <= true_mean <= row["ci_high"]
    assert 0.84 <= covered[True] / trials <= 0.97
    assert covered[False] / trials < 0.6


def test_labels_need_the_std_column() -> None:
    frame = pl.DataFrame({"q": [1, 2], "metric": "ndcg", "k": 10, "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match="'std' column"):
        rk.bootstrap(frame, labels=True)


def test_without_labels_the_numbers_are_unchanged() -> None:
    frame = pl.DataFrame({"q": range(9), "metric": "ndcg", "k": 10,
                          "value": [0.1, 0.2, 0.5, 0.3, 0.9, 0.4, 0.4, 0.6, 0.0]})  # fmt: skip
    spread = frame.with_columns(std=pl.lit(0.0))
    plain = rk.bootstrap(frame, n_resamples=200)
    assert rk.bootstrap(spread, n_resamples=200, labels=True, group_keys=["q"]).equals(plain)


def test_a_k_curves_interval_resamples_the_labels_as_bootstrap_does() -> None:
    """curve_of_evaluations(labels=True) of an evaluation over uncertain labels: at every K
    the interval of bootstrap(labels=True) on its per-group values (same seed), wider than
    the groups-only one; an evaluation without label probabilities is refused in words."""
    from polars_rankk.stats.curves import curve_of_evaluations

    rng = np.random.default_rng(5)
    groups, items = 30, 6
    candidates = pl.DataFrame({"q": np.repeat(np.arange(groups), items),
                               "item": np.tile(np.arange(items), groups),
                               "score": rng.random(groups * items)})  # fmt: skip
    truth = candidates.select("q", "item", relevance=pl.lit(1.0),
                              p=pl.Series(rng.uniform(0.2, 0.8, groups * items)))  # fmt: skip
    evaluation = rk.evaluate(candidates, truth, k=[1, 3], metrics=["precision", "ndcg"],
                             group_by="q", label_probability="p")  # fmt: skip
    options = {"n_resamples": 300, "seed": 3}
    curve = curve_of_evaluations({"run": evaluation}, labels=True, **options)
    plain = curve_of_evaluations({"run": evaluation}, **options)
    expected = rk.bootstrap(evaluation.per_group, labels=True, group_keys=["q"], **options)
    want = {
        (r["metric"], r["k"]): (r["ci_low"], r["ci_high"]) for r in expected.iter_rows(named=True)
    }
    for row, other in zip(curve.iter_rows(named=True), plain.iter_rows(named=True), strict=True):
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(want[(row["metric"], row["k"])])
        assert row["ci_high"] - row["ci_low"] >= other["ci_high"] - other["ci_low"]
    deterministic = rk.evaluate(candidates, truth.drop("p"), k=3, group_by="q")
    with pytest.raises(ValueError, match="labels=True resamples the label outcomes"):
        curve_of_evaluations({"run": deterministic}, labels=True)


def test_a_label_evaluations_per_group_frame_keeps_its_spread_out_of_the_keys() -> None:
    """``std`` and ``standard_error`` beside ``value`` are values, not group keys: the
    per-group frame alone resamples as the evaluation does."""
    rng = np.random.default_rng(2)
    candidates = pl.DataFrame({"q": np.repeat(np.arange(20), 4), "item": np.tile(np.arange(4), 20),
                               "score": rng.random(80)})  # fmt: skip
    truth = candidates.select("q", "item", relevance=pl.lit(1.0),
                              p=pl.Series(rng.uniform(0.2, 0.8, 80)))  # fmt: skip
    evaluation = rk.evaluate(candidates, truth, k=[1, 3], metrics=["precision", "ndcg"],
                             group_by="q", label_probability="p")  # fmt: skip
    assert {"std", "standard_error"} <= set(evaluation.per_group.columns)
    options = {"n_resamples": 200, "seed": 1, "labels": True}
    assert rk.bootstrap(evaluation.per_group, **options).equals(rk.bootstrap(evaluation, **options))


def test_a_k_curve_over_label_probabilities_is_each_ks_expectation_and_interval() -> None:
    rng = np.random.default_rng(8)
    candidates = pl.DataFrame({"q": np.repeat(np.arange(15), 5), "item": np.tile(np.arange(5), 15),
                               "score": rng.random(75)})  # fmt: skip
    truth = candidates.select("q", "item", relevance=pl.lit(1.0),
                              p=pl.Series(rng.uniform(0.1, 0.9, 75)))  # fmt: skip
    options = {"n_resamples": 200, "seed": 4}
    curve = rk.k_curve({"run": candidates}, truth, k_max=3, metrics=["P", "nDCG"], group_by="q",
                       label_probability="p", **options)  # fmt: skip
    # The curve reads ``nDCG`` (the whole list's name) at every K, as nDCG@K.
    evaluation = rk.evaluate(candidates, truth, k=[1, 2, 3], metrics=["precision", "ndcg"],
                             group_by="q", label_probability="p")  # fmt: skip
    expected = rk.bootstrap(evaluation, labels=True, **options)
    joined = curve.join(expected, on=["metric", "k"], suffix="_expected")
    assert joined.height == curve.height == 6
    for column in ("value", "ci_low", "ci_high"):
        assert (joined[column] - joined[f"{column}_expected"]).abs().max() < 1e-12
    plain = rk.evaluate(candidates, truth.drop("p"), k=3, group_by="q")
    with pytest.raises(ValueError, match="'a' was evaluated over label probabilities"):
        rk.k_curve({"a": evaluation, "b": plain}, k_max=3)
