"""The Open Bandit Dataset's layout, and Open Bandit Pipeline's estimators.

The dataset (Saito et al., NeurIPS 2021 Datasets and Benchmarks) logs one row per impression:
the item shown (``item_id``), the one position of three it was shown at (``position``, from 1
in the CSV; obp counts from 0), the click and ``propensity_score``, the logging policy's
probability of the item *given* that position was shown. `synthetic_log` makes a log of that
layout with a known truth; `obp_estimates` transcribes obp's IPW, SNIPW and DR
(`obp/ope/estimators.py`, `_estimate_round_rewards` of each, version 0.5.7) array for array;
`load_obp` loads obp's own estimators where obp is installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pytest

POSITIONS = 3


@dataclass(frozen=True)
class OpenBanditLog:
    """A log in the dataset's layout, the evaluation policy's ``action_dist`` (rounds x items
    x positions), a reward model's predictions of the same shape, and the true value of the
    evaluation policy (expected clicks summed over the three positions)."""

    log: pl.DataFrame
    action_dist: np.ndarray
    predicted: np.ndarray
    truth: float


def synthetic_log(
    rounds: int,
    items: int,
    *,
    seed: int,
    per_round: bool = False,
    logger: str = "uniform",
    world: int = 0,
) -> OpenBanditLog:
    """A uniform (or skewed) logger showing one item at one of three positions per round;
    clicks by the item-position model (attractiveness x position effect); an evaluation
    policy's marginals per position (the same for every round, or drawn per round). The
    world (click rates, logger, policy, predictions) is drawn from `world`, the log from
    `seed`."""
    fixed = np.random.default_rng(world)
    attraction = fixed.uniform(0.02, 0.3, size=items)
    position_effect = np.array([1.0, 0.7, 0.5])
    click_rate = attraction[:, None] * position_effect[None, :]  # items x positions
    if logger == "uniform":
        logging = np.full((items, POSITIONS), 1.0 / items)
    else:
        raw = fixed.uniform(0.2, 1.0, size=(items, POSITIONS))
        logging = raw / raw.sum(axis=0)
    rng = np.random.default_rng(seed)
    position = rng.integers(0, POSITIONS, size=rounds)
    # The logger's item given the position: inverse-CDF draws per round.
    cumulative = np.cumsum(logging, axis=0)[:, position].T  # rounds x items
    action = (rng.random(rounds)[:, None] > cumulative).sum(axis=1).clip(max=items - 1)
    pscore = logging[action, position]
    click = (rng.random(rounds) < click_rate[action, position]).astype(np.int64)
    shape = (rounds if per_round else 1, items, POSITIONS)
    raw_policy = (rng if per_round else fixed).gamma(0.5, size=shape)
    action_dist = np.broadcast_to(raw_policy / raw_policy.sum(axis=1, keepdims=True),
                                  (rounds, items, POSITIONS)).copy()  # fmt: skip
    predicted = np.broadcast_to(
        click_rate + fixed.normal(0, 0.02, size=click_rate.shape), (rounds, items, POSITIONS)
    ).copy()
    truth = float((action_dist * click_rate[None]).sum(axis=(1, 2)).mean())
    log = pl.DataFrame(
        {
            "campaign": ["all"] * rounds,
            "impression": np.arange(rounds),
            "item_id": action,
            "position": position + 1,
            "click": click,
            "propensity_score": pscore,
        }
    )
    return OpenBanditLog(log, action_dist, predicted, truth)


def marginals(data: OpenBanditLog, *, per_round: bool) -> pl.DataFrame:
    """``action_dist`` (and the predictions) as the candidates' rows: (campaign [,
    impression], item_id, position from 1, probability, predicted)."""
    rounds, items, positions = data.action_dist.shape
    if not per_round:
        return pl.DataFrame(
            {
                "campaign": ["all"] * (items * positions),
                "item_id": np.repeat(np.arange(items), positions),
                "position": np.tile(np.arange(1, positions + 1), items),
                "probability": data.action_dist[0].ravel(),
                "predicted": data.predicted[0].ravel(),
            }
        )
    index = np.indices((rounds, items, positions))
    return pl.DataFrame(
        {
            "campaign": ["all"] * data.action_dist.size,
            "impression": index[0].ravel(),
            "item_id": index[1].ravel(),
            "position": index[2].ravel() + 1,
            "probability": data.action_dist.ravel(),
            "predicted": data.predicted.ravel(),
        }
    )


def obp_arrays(log: pl.DataFrame) -> dict[str, np.ndarray]:
    """The log as obp's bandit feedback: reward, action, position (from 0) and pscore."""
    return {
        "reward": log["click"].to_numpy().astype(np.float64),
        "action": log["item_id"].to_numpy(),
        "position": log["position"].to_numpy() - 1,
        "pscore": log["propensity_score"].to_numpy(),
    }


def obp_round_rewards(
    name: str,
    feedback: dict[str, np.ndarray],
    action_dist: np.ndarray,
    predicted: np.ndarray,
    clip: float = np.inf,
) -> np.ndarray:
    """obp's ``_estimate_round_rewards`` of IPW, SNIPW and DR, transcribed."""
    reward, action, position = feedback["reward"], feedback["action"], feedback["position"]
    n = action.shape[0]
    iw = action_dist[np.arange(n), action, position] / feedback["pscore"]
    if name == "snips":
        return np.asarray(reward * iw / iw.mean())
    iw = np.minimum(iw, clip)
    if name == "ips":
        return np.asarray(reward * iw)
    q_hat_at_position = predicted[np.arange(n), :, position]
    q_hat_factual = predicted[np.arange(n), action, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    estimated = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    return np.asarray(estimated + iw * (reward - q_hat_factual))


def per_position_sum(
    name: str,
    feedback: dict[str, np.ndarray],
    action_dist: np.ndarray,
    predicted: np.ndarray,
    clip: float = np.inf,
) -> float:
    """obp's estimator run on each position's rows (its ``estimate_policy_value``: the mean of
    the round rewards) and summed over the positions."""
    total = 0.0
    for at in range(POSITIONS):
        rows = feedback["position"] == at
        subset = {key: value[rows] for key, value in feedback.items()}
        total += float(
            obp_round_rewards(name, subset, action_dist[rows], predicted[rows], clip).mean()
        )
    return total


def load_obp(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """obp's estimators and Bernoulli TS policy, loaded from the installed package.

    obp 0.5.7 installs with ``--no-deps`` (its metadata pins Python < 3.11); its package
    ``__init__`` files import the torch-based learners, which these modules do not use, so
    the packages are entered as empty shells (and ``torch``, if absent, as a shell too:
    ``obp.utils`` names it in annotations only for the functions used here). Skips where obp is
    not installed.
    """
    spec = importlib.util.find_spec("obp")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("obp is not installed (pip install --no-deps --ignore-requires-python obp)")
    root = Path(next(iter(spec.submodule_search_locations)))
    for name, folder in (("obp", root), ("obp.ope", root / "ope"), ("obp.policy", root / "policy")):
        shell = types.ModuleType(name)
        shell.__path__ = [str(folder)]
        monkeypatch.setitem(sys.modules, name, shell)
    if importlib.util.find_spec("torch") is None:
        torch = types.ModuleType("torch")
        torch.tensor = torch.Tensor = object  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "torch", torch)
    for name in ("obp.utils", "obp.ope.helper", "obp.ope.estimators", "obp.policy.base",
                 "obp.policy.contextfree"):  # fmt: skip
        monkeypatch.delitem(sys.modules, name, raising=False)
    estimators = importlib.import_module("obp.ope.estimators")
    contextfree = importlib.import_module("obp.policy.contextfree")
    return types.SimpleNamespace(
        estimators=estimators, contextfree=contextfree, data=root / "dataset" / "obd"
    )
