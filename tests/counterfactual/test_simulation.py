"""Simulated logs with known truth: over many logs the estimators' means equal the new
ranking's analytic expected reward@K within their standard errors (IPS, DR and the papers'
slate estimators unbiased, SNIPS consistent), the naive clicks-as-labels estimate is far off,
and the bootstrap's 95% intervals cover the truth at about the nominal rate."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from tests.counterfactual.simulator import candidates, make_world, simulate, true_value

GROUPS, ITEMS, K, LOGS = 100, 5, 3, 300


def _per_log(model: str, estimators: list[str], **options: object) -> tuple[pl.DataFrame, float]:
    """Each estimator's estimate on each simulated log, and the true value."""
    world = make_world(GROUPS, ITEMS, seed=1)
    log = simulate(world, LOGS, model, seed=2)
    new = candidates(world).join(pl.DataFrame({"log": np.arange(LOGS)}), how="cross")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.CounterfactualWarning)
        result = rk.evaluate_counterfactual(
            log.lazy(),
            new.lazy(),
            group_by=["log", "query"],
            k=K,
            estimator=estimators,
            n_bootstrap=0,
            **options,  # type: ignore[arg-type]
        )
    per_log = result.per_group.group_by("estimator", "log").agg(pl.col("reward_at_k").mean())
    return per_log, float(true_value(world, K, model).mean())


def _assert_unbiased(per_log: pl.DataFrame, truth: float, name: str) -> None:
    values = per_log.filter(pl.col("estimator") == name)["reward_at_k"].to_numpy()
    error = values.std(ddof=1) / np.sqrt(len(values))
    assert abs(values.mean() - truth) < 4 * error, (name, values.mean(), truth, error)


def _assert_biased(per_log: pl.DataFrame, truth: float) -> None:
    values = per_log.filter(pl.col("estimator") == "naive")["reward_at_k"].to_numpy()
    error = values.std(ddof=1) / np.sqrt(len(values))
    assert abs(values.mean() - truth) > 20 * error, (values.mean(), truth, error)


def test_position_based_estimators_are_unbiased_and_naive_is_not() -> None:
    world = make_world(GROUPS, ITEMS, seed=1)
    per_log, truth = _per_log(
        "pbm", ["ips", "snips", "dr", "naive"], examination=list(world.examination)
    )
    for name in ("ips", "snips", "dr"):
        _assert_unbiased(per_log, truth, name)
    _assert_biased(per_log, truth)


def test_item_position_ips_is_unbiased_under_position_based_clicks() -> None:
    per_log, truth = _per_log(
        "pbm",
        ["iips", "snips", "dr", "naive"],
        click_model="item_position",
        propensity="item_position",
    )
    for name in ("iips", "snips", "dr"):
        _assert_unbiased(per_log, truth, name)
    _assert_biased(per_log, truth)


def test_cascade_estimators_are_unbiased_under_cascade_clicks() -> None:
    per_log, truth = _per_log(
        "cascade",
        ["rips", "snips", "cascade_dr", "naive"],
        click_model="cascade",
        propensity="prefix",
    )
    for name in ("rips", "snips", "cascade_dr"):
        _assert_unbiased(per_log, truth, name)
    _assert_biased(per_log, truth)


@pytest.mark.parametrize("estimator", ["ips", "snips", "dr"])
def test_bootstrap_intervals_cover_the_truth_at_about_the_nominal_rate(estimator: str) -> None:
    world = make_world(GROUPS, ITEMS, seed=3)
    truth = float(true_value(world, K, "pbm").mean())
    logs = simulate(world, 120, "pbm", seed=4).partition_by("log", maintain_order=True)
    new = candidates(world)
    covered = 0
    for index, log in enumerate(logs):
        result = rk.evaluate_counterfactual(
            log,
            new,
            group_by="query",
            k=K,
            estimator=estimator,
            examination=list(world.examination),
            n_bootstrap=300,
            seed=index,
        )
        row = result.overall.row(0, named=True)
        covered += row["lower"] <= truth <= row["upper"]
    # 120 intervals at 95%: the count of covers is Binomial(120, 0.95), sd about 2.4.
    assert 105 <= covered <= 120, covered


def _stochastic_truth(world: object, marginal: pl.DataFrame) -> float:
    """The marginals' expected reward@K under the position-based model, analytically."""
    attraction = pl.DataFrame(
        {
            "query": np.repeat(np.arange(GROUPS), ITEMS),
            "item": np.tile(np.arange(ITEMS), GROUPS),
            "attraction": world.attraction.ravel(),  # type: ignore[attr-defined]
        }
    )
    theta = pl.DataFrame(
        {"position": np.arange(1, ITEMS + 1), "theta": world.examination}  # type: ignore[attr-defined]
    )
    value = (
        marginal.join(attraction, on=["query", "item"])
        .join(theta, on="position")
        .select((pl.col("probability") * pl.col("attraction") * pl.col("theta")).sum())
        .item()
    )
    return float(value) / GROUPS


def _coverage(
    world: object, logs: pl.DataFrame, new: pl.DataFrame, truth: float, **options: object
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Each log's estimates and how many of the logs' 95% intervals cover the truth."""
    values: dict[str, list[float]] = {}
    covered: dict[str, int] = {}
    for index, log in enumerate(logs.partition_by("log", maintain_order=True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rk.CounterfactualWarning)
            result = rk.evaluate_counterfactual(
                log, new, group_by="query", k=K, n_bootstrap=300, seed=index,
                **options,  # type: ignore[arg-type]
            )  # fmt: skip
        for row in result.summary().iter_rows(named=True):
            values.setdefault(row["estimator"], []).append(row["reward_at_k"])
            covered[row["estimator"]] = covered.get(row["estimator"], 0) + (
                row["lower"] <= truth <= row["upper"]
            )
    return values, covered


def _assert_recovered(
    values: dict[str, list[float]], covered: dict[str, int], truth: float
) -> None:
    for name, estimates in values.items():
        array = np.array(estimates)
        error = array.std(ddof=1) / np.sqrt(len(array))
        assert abs(array.mean() - truth) < 4 * error, (name, array.mean(), truth, error)
        # 100 intervals at 95%: nominal +- 5 points.
        assert 90 <= covered[name] <= 100, (name, covered[name])


@pytest.mark.slow
def test_a_stochastic_policy_as_marginals_under_the_position_based_model() -> None:
    """A Plackett-Luce policy's exact marginals (probability=): IPS, SNIPS and DR recover
    its analytic reward@K, and their intervals cover it at the nominal rate."""
    world = make_world(GROUPS, ITEMS, seed=11)
    scores = candidates(world).with_columns(pl.col("score") / 2)
    marginal = rk.plackett_luce_marginals(scores, group_by="query", k=K, temperature=1.0)
    truth = _stochastic_truth(world, marginal)
    logs = simulate(world, 100, "pbm", seed=12)
    values, covered = _coverage(
        world, logs, marginal.with_columns(pl.lit(0.3).alias("predicted")),
        truth, probability="probability", estimator=["ips", "snips", "dr"],
        examination=list(world.examination), reward_model="predicted",
    )  # fmt: skip
    _assert_recovered(values, covered, truth)


@pytest.mark.slow
def test_a_stochastic_policy_as_draws_under_the_cascade_model() -> None:
    """Four Plackett-Luce draws per query (sample=) under cascade clicks: RIPS, SNIPS and
    cascade-DR recover the draws' mean cascade value, their intervals cover it."""
    world = make_world(GROUPS, 4, explore=0.8, seed=13)
    draws = rk.plackett_luce_samples(candidates(world), group_by="query", samples=4, seed=14)
    orders = (
        draws.sort("score", descending=True)
        .group_by("query", "sample", maintain_order=True)
        .agg("item")
        .sort("query", "sample")
    )
    attraction = world.attraction
    per_draw = []
    for query, items in zip(orders["query"], orders["item"], strict=True):
        shown = attraction[query, items.to_list()[:K]]
        survive = np.cumprod(np.concatenate([[1.0], 1 - shown[:-1]]))
        per_draw.append(float((shown * survive).sum()))
    truth = float(np.mean(per_draw))
    logs = simulate(world, 100, "cascade", seed=15)
    values, covered = _coverage(
        world, logs, draws.with_columns(pl.lit(0.3).alias("predicted")), truth,
        sample="sample", click_model="cascade", propensity="prefix",
        estimator=["rips", "snips", "cascade_dr"], reward_model="predicted",
    )  # fmt: skip
    _assert_recovered(values, covered, truth)
