"""The new policy's three forms agree: draws (sample=) estimate the mean of their rankings'
estimates (IPS and DR draw by draw; SNIPS with the weights averaged over draws, which is
probability= with the draws' empirical marginals); Plackett-Luce marginals are exact (a
brute-force sum over permutations); a ranking is the marginals that put probability 1 on it."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from tests.counterfactual.simulator import candidates, make_world, simulate

K = 3


def _run(log: pl.DataFrame, new: pl.DataFrame, **options: object) -> dict[str, float]:
    settings: dict[str, object] = {"group_by": "query", "k": K, "n_bootstrap": 0}
    settings.update(options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.CounterfactualWarning)
        result = rk.evaluate_counterfactual(log, new, **settings)  # type: ignore[arg-type]
    return dict(result.summary().select("estimator", "reward_at_k").iter_rows())


@pytest.fixture(scope="module")
def world_and_log() -> tuple[object, pl.DataFrame]:
    world = make_world(40, 5, explore=0.7, seed=21)
    log = simulate(world, 6, "pbm", seed=22).rename({"log": "session"})
    return world, log


MODELS = [
    ("pbm", {"examination": [1.0, 0.6, 0.45, 0.3, 0.2]}),
    ("item_position", {"propensity": "item_position"}),
    ("cascade", {"propensity": "prefix"}),
]


@pytest.mark.parametrize(("model", "options"), MODELS)
def test_draws_estimate_the_mean_of_their_rankings(
    world_and_log: tuple[object, pl.DataFrame], model: str, options: dict[str, object]
) -> None:
    world, log = world_and_log
    draws = rk.plackett_luce_samples(candidates(world), group_by="query", samples=3, seed=5)  # type: ignore[arg-type]
    common = {"impression": "session", "click_model": model, **options}
    mixed = _run(log, draws, sample="sample", estimator=["ips", "dr"], **common)
    each = [
        _run(log, draws.filter(pl.col("sample") == s), estimator=["ips", "dr"], **common)
        for s in range(3)
    ]
    for name in ("ips", "dr"):
        assert mixed[name] == pytest.approx(np.mean([e[name] for e in each]), rel=1e-12)


@pytest.mark.parametrize(("model", "options"), MODELS[:2])
def test_draws_equal_their_empirical_marginals(
    world_and_log: tuple[object, pl.DataFrame], model: str, options: dict[str, object]
) -> None:
    world, log = world_and_log
    draws = rk.plackett_luce_samples(candidates(world), group_by="query", samples=5, seed=6)  # type: ignore[arg-type]
    marginal = rk.marginals_from_samples(draws, group_by="query", k=K)
    common = {"impression": "session", "click_model": model, "estimator": ["ips", "snips"]}
    drawn = _run(log, draws, sample="sample", **common, **options)
    given = _run(log, marginal, probability="probability", **common, **options)
    for name in ("ips", "snips"):
        assert drawn[name] == pytest.approx(given[name], rel=1e-12)


def test_a_ranking_is_its_marginals_with_probability_one(
    world_and_log: tuple[object, pl.DataFrame],
) -> None:
    world, log = world_and_log
    ranking = candidates(world)  # type: ignore[arg-type]
    ones = (
        ranking.with_columns(
            pl.col("score").rank("ordinal", descending=True).over("query").alias("position")
        )
        .filter(pl.col("position") <= K)
        .with_columns(pl.col("position").cast(pl.Int64), pl.lit(1.0).alias("probability"))
    )
    options = {"impression": "session", "estimator": ["ips", "snips", "dr"],
               "examination": [1.0, 0.6, 0.45, 0.3, 0.2]}  # fmt: skip
    assert _run(log, ones, probability="probability", **options) == pytest.approx(
        _run(log, ranking, **options), rel=1e-12
    )


@pytest.mark.parametrize("temperature", [0.3, 1.0, 4.0])
def test_plackett_luce_marginals_equal_the_sum_over_permutations(temperature: float) -> None:
    scores = np.array([1.2, -0.3, 0.0, 2.5, 0.7, 0.7])
    frame = pl.DataFrame({"query": [1] * 6, "item": list(range(6)), "score": scores})
    got = rk.plackett_luce_marginals(frame, group_by="query", k=3, temperature=temperature)
    weights = np.exp(scores / temperature)
    expected = np.zeros((6, 3))
    for order in itertools.permutations(range(6), 3):
        probability, rest = 1.0, weights.sum()
        for item in order:
            probability *= weights[item] / rest
            rest -= weights[item]
        for position, item in enumerate(order):
            expected[item, position] += probability
    table = np.zeros((6, 3))
    for row in got.iter_rows(named=True):
        table[row["item"], row["position"] - 1] = row["probability"]
    np.testing.assert_allclose(table, expected, rtol=1e-12, atol=1e-15)


def test_plackett_luce_draws_follow_the_marginals() -> None:
    frame = pl.DataFrame({"query": [1] * 4, "item": list(range(4)), "score": [1.0, 0.5, 0.0, -1.0]})
    exact = rk.plackett_luce_marginals(frame, group_by="query", k=2)
    draws = rk.plackett_luce_samples(frame, group_by="query", samples=40_000, seed=3)
    empirical = rk.marginals_from_samples(draws, group_by="query", k=2)
    joined = exact.join(empirical, on=["query", "item", "position"], suffix="_drawn")
    p = joined["probability"].to_numpy()
    error = np.sqrt(p * (1 - p) / 40_000)
    assert (np.abs(joined["probability_drawn"].to_numpy() - p) < 5 * error).all()


def test_exact_marginals_refuse_an_enumeration_too_large() -> None:
    frame = pl.DataFrame({"query": [1] * 400, "item": list(range(400)), "score": [0.0] * 400})
    with pytest.raises(ValueError, match="plackett_luce_samples"):
        rk.plackett_luce_marginals(frame, group_by="query", k=4)
