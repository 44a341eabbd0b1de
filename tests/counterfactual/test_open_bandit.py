"""On the Open Bandit Dataset's layout (one item at one of three positions per row, the
propensity the probability of the item given its position), a stochastic new policy given as
marginals (obp's ``action_dist``) is estimated as Open Bandit Pipeline's IPW, SNIPW and DR
run on each position's rows and summed over the positions: equal to obp's estimators (their
transcription always, obp's own classes where obp is installed) to 1e-12, with the same
reward model; and the estimates recover the synthetic logs' truth."""

from __future__ import annotations

import types
import warnings

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from tests.counterfactual.open_bandit import (
    OpenBanditLog,
    load_obp,
    marginals,
    obp_arrays,
    obp_round_rewards,
    per_position_sum,
    synthetic_log,
)

OPTIONS = {
    "group_by": "campaign",
    "impression": "impression",
    "item": "item_id",
    "pscore": "propensity_score",
    "probability": "probability",
    "click_model": "item_position",
    "k": 3,
}


def _ours(data: OpenBanditLog, *, per_round: bool, **options: object) -> dict[str, float]:
    settings = {**OPTIONS, "estimator": ["ips", "snips", "dr"], "n_bootstrap": 0}
    settings.update(options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.CounterfactualWarning)
        result = rk.evaluate_counterfactual(
            data.log,
            marginals(data, per_round=per_round),
            **settings,  # type: ignore[arg-type]
        )
    return dict(result.summary().select("estimator", "reward_at_k").iter_rows())


@pytest.mark.parametrize("per_round", [False, True])
@pytest.mark.parametrize("logger", ["uniform", "skewed"])
def test_estimates_equal_obps_estimators_per_position_summed(per_round: bool, logger: str) -> None:
    data = synthetic_log(600, 8, seed=3, per_round=per_round, logger=logger)
    ours = _ours(data, per_round=per_round, reward_model="predicted")
    feedback = obp_arrays(data.log)
    for name in ("ips", "snips", "dr"):
        expected = per_position_sum(name, feedback, data.action_dist, data.predicted)
        assert ours[name] == pytest.approx(expected, rel=1e-12, abs=1e-12), name


def test_clipping_equals_obps_lambda() -> None:
    data = synthetic_log(600, 8, seed=4, logger="skewed")
    ours = _ours(data, per_round=False, reward_model="predicted", clip=6.0)
    feedback = obp_arrays(data.log)
    for name in ("ips", "dr"):
        expected = per_position_sum(name, feedback, data.action_dist, data.predicted, 6.0)
        assert ours[name] == pytest.approx(expected, rel=1e-12, abs=1e-12), name


def test_the_default_reward_model_is_the_mean_click_per_item_and_position() -> None:
    """Without reward_model=, DR is obp's DR with q-hat the log's mean click per (item,
    position), 0 where the item was never shown there."""
    data = synthetic_log(400, 12, seed=5)
    log = data.log
    means = log.group_by("item_id", "position").agg(pl.col("click").mean())
    predicted = np.zeros(data.action_dist.shape[1:])
    predicted[means["item_id"].to_numpy(), means["position"].to_numpy() - 1] = means["click"]
    tiled = np.broadcast_to(predicted, data.action_dist.shape)
    ours = _ours(data, per_round=False, estimator="dr")
    expected = per_position_sum("dr", obp_arrays(log), data.action_dist, tiled)
    assert ours["dr"] == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_obps_per_round_number_is_the_position_weighted_mean() -> None:
    """obp's usual number (its estimator over all rows) weighs each position by its share of
    the rows; the estimate here sums the positions (a full slate of three)."""
    data = synthetic_log(900, 6, seed=6)
    feedback = obp_arrays(data.log)
    per_round = float(obp_round_rewards("ips", feedback, data.action_dist, data.predicted).mean())
    shares = np.bincount(feedback["position"], minlength=3) / len(feedback["position"])
    result = rk.evaluate_counterfactual(
        data.log, marginals(data, per_round=False), estimator="ips", n_bootstrap=0, **OPTIONS
    )
    by_position = result.per_position["expected_reward"].to_numpy()
    assert per_round == pytest.approx(float(shares @ by_position), rel=1e-12)


def test_one_campaign_gets_an_interval_over_its_impressions() -> None:
    data = synthetic_log(2000, 6, seed=7)
    result = rk.evaluate_counterfactual(
        data.log, marginals(data, per_round=False), estimator="snips", n_bootstrap=400, **OPTIONS
    )
    row = result.summary().row(0, named=True)
    assert result.diagnostics.interval_over == "impressions"
    assert np.isfinite(row["standard_error"])
    assert row["lower"] < row["reward_at_k"] < row["upper"]


@pytest.mark.slow
def test_estimates_recover_the_truth_and_intervals_cover_it() -> None:
    """Over many synthetic logs of the layout: IPS, SNIPS and DR average to the truth within
    4 standard errors, and the bootstrap intervals over impressions cover it at 95% +- 5."""
    logs, covered, values = 100, {"ips": 0, "snips": 0, "dr": 0}, []
    for index in range(logs):
        data = synthetic_log(1500, 6, seed=100 + index)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rk.CounterfactualWarning)
            result = rk.evaluate_counterfactual(
                data.log, marginals(data, per_round=False), estimator=["ips", "snips", "dr"],
                reward_model="predicted", n_bootstrap=200, seed=index, **OPTIONS,
            )  # fmt: skip
        summary = result.summary()
        values.append(summary["reward_at_k"].to_list())
        for row in summary.iter_rows(named=True):
            covered[row["estimator"]] += row["lower"] <= data.truth <= row["upper"]
    truth = data.truth  # one world, drawn logs
    estimates = np.array(values)
    for column, name in enumerate(("ips", "snips", "dr")):
        error = estimates[:, column].std(ddof=1) / np.sqrt(logs)
        assert abs(estimates[:, column].mean() - truth) < 4 * error, name
        assert 90 <= covered[name] <= 100, (name, covered[name])


def test_obps_own_estimators_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    obp = load_obp(monkeypatch)
    data = synthetic_log(500, 8, seed=8, logger="skewed", per_round=True)
    ours = _ours(data, per_round=True, reward_model="predicted")
    expected = _obps_own(obp, data)
    for name in ("ips", "snips", "dr"):
        assert ours[name] == pytest.approx(expected[name], rel=1e-12, abs=1e-12), name


@pytest.mark.slow
def test_the_open_bandit_dataset_sample_random_to_bernoulli_ts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """obp's bundled sample, campaign "all": the uniform-random log, Bernoulli TS's
    ``action_dist`` from obp's own policy (its production prior, 100,000 draws, seed 12345):
    the estimates equal obp's IPW, SNIPW and DR (the same reward model) per position summed,
    are the numbers the docs report, and obp's per-round IPW is the 0.00455 of its
    quickstart."""
    obp = load_obp(monkeypatch)
    policy = obp.contextfree.BernoulliTS(
        n_actions=80, len_list=3, is_zozotown_prior=True, campaign="all", random_state=12345
    )
    action_dist = policy.compute_batch_action_dist(n_rounds=1, n_sim=100_000)[0]
    log = (
        pl.read_csv(obp.data / "random" / "all" / "all.csv",
                    columns=["timestamp", "item_id", "position", "click", "propensity_score"])
        .sort("timestamp", maintain_order=True)
        .with_row_index("impression")
        .with_columns(pl.lit("all").alias("campaign"))
    )  # fmt: skip
    rounds = log.height
    # DR's default reward model: the log's mean click per (item, position), 0 where never.
    means = log.group_by("item_id", "position").agg(pl.col("click").mean())
    predicted = np.zeros((80, 3))
    predicted[means["item_id"].to_numpy(), means["position"].to_numpy() - 1] = means["click"]
    data = OpenBanditLog(
        log,
        np.broadcast_to(action_dist, (rounds, 80, 3)),
        np.broadcast_to(predicted, (rounds, 80, 3)),
        float("nan"),
    )
    ours = _ours(data, per_round=False)
    expected = _obps_own(obp, data)
    for name in ("ips", "snips", "dr"):
        assert ours[name] == pytest.approx(expected[name], rel=1e-12), name
    # The numbers docs/counterfactual.md reports.
    assert {name: round(value, 5) for name, value in ours.items()} == {
        "ips": 0.01351, "snips": 0.01407, "dr": 0.01367
    }  # fmt: skip
    per_round = obp.estimators.InverseProbabilityWeighting().estimate_policy_value(
        action_dist=data.action_dist, **obp_arrays(log)
    )
    assert round(per_round, 5) == 0.00455


def _obps_own(obp: types.SimpleNamespace, data: OpenBanditLog) -> dict[str, float]:
    """obp's own IPW, SNIPW and DR (``estimate_policy_value``) run on each position's rows,
    summed over the positions."""
    feedback = obp_arrays(data.log)
    classes = {
        "ips": obp.estimators.InverseProbabilityWeighting(),
        "snips": obp.estimators.SelfNormalizedInverseProbabilityWeighting(),
        "dr": obp.estimators.DoublyRobust(),
    }
    totals = dict.fromkeys(classes, 0.0)
    for name, estimator in classes.items():
        for at in range(3):
            rows = feedback["position"] == at
            totals[name] += estimator.estimate_policy_value(
                **{key: value[rows] for key, value in feedback.items()},
                action_dist=data.action_dist[rows],
                estimated_rewards_by_reg_model=data.predicted[rows],
            )
    return totals
