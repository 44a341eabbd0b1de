"""Each estimator equals a brute-force transcription of its formula, per group, to 1e-12: the
position-based IPS / SNIPS / DR written row by row in plain Python, and Open Bandit
Pipeline's slate estimators (`obp/ope/estimators_slate.py`: independent-item IPS, reward-
interaction IPS, their self-normalised forms, cascade-DR) transcribed loop by loop with the new
ranking as a deterministic evaluation policy."""

from __future__ import annotations

import random
import warnings

import polars as pl
import pytest

import polars_rankk as rk

K = 3
SHOWN = 4
ITEMS = "abcdef"


def _world(seed: int, impressions: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A small log (every impression shows SHOWN distinct items, graded rewards, random
    propensities) and a new ranking with a predicted reward per item."""
    rng = random.Random(seed)
    log, new = [], []
    for group in range(4):
        for impression in range(impressions):
            for position, item in enumerate(rng.sample(ITEMS, SHOWN), start=1):
                log.append(
                    {
                        "query": group,
                        "session": impression,
                        "item": item,
                        "position": position,
                        "click": rng.choice([0.0, 0.0, 1.0, 0.5]),
                        "propensity": rng.uniform(0.05, 1.0),
                    }
                )
        for item in rng.sample(ITEMS, 5):
            new.append(
                {"query": group, "item": item, "score": rng.random(), "predicted": rng.random()}
            )
    return pl.DataFrame(log), pl.DataFrame(new)


def _new_ranking(new: pl.DataFrame) -> dict[int, list[tuple[str, float]]]:
    """Per group, the top K (item, predicted reward) by score, highest first."""
    ranking = {}
    for group, rows in new.sort("score", descending=True).group_by("query", maintain_order=True):
        ranking[group[0]] = list(zip(rows["item"], rows["predicted"], strict=True))[:K]
    return ranking  # type: ignore[return-value]


def _slates(log: pl.DataFrame) -> dict[int, list[list[dict[str, object]]]]:
    slates: dict[int, list[list[dict[str, object]]]] = {}
    for row in log.sort("query", "session", "position").iter_rows(named=True):
        group = slates.setdefault(row["query"], [])
        if not group or group[-1][0]["session"] != row["session"]:
            group.append([])
        group[-1].append(row)
    return slates


def _ours(log: pl.DataFrame, new: pl.DataFrame, estimator: str, **options: object) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.CounterfactualWarning)
        result = rk.evaluate_counterfactual(
            log,
            new,
            group_by="query",
            impression="session",
            k=K,
            estimator=estimator,
            n_bootstrap=0,
            **options,  # type: ignore[arg-type]
        )
    return dict(result.per_group.select("query", "reward_at_k").iter_rows())


THETA = [1.0, 0.6, 0.45, 0.3]


def _position_based(log: pl.DataFrame, new: pl.DataFrame) -> dict[str, dict[int, float]]:
    """IPS, SNIPS and DR under the position-based model, row by row: w = theta_r /
    (theta_k p), u = 1 / p, per rank r of the new ranking."""
    ranking, slates = _new_ranking(new), _slates(log)
    ips, dr, numerators, controls = {}, {}, {}, {}
    for group, impressions in slates.items():
        n = len(impressions)
        top = {item: (rank, predicted) for rank, (item, predicted) in enumerate(ranking[group], 1)}
        weighted = [0.0] * K
        control = [0.0] * K
        for slate in impressions:
            for row in slate:
                if row["item"] in top:
                    rank = top[row["item"]][0]
                    weight = THETA[rank - 1] / (THETA[row["position"] - 1] * row["propensity"])
                    weighted[rank - 1] += weight * row["click"]
                    control[rank - 1] += 1 / row["propensity"]
        predicted = [p for _, p in ranking[group]]
        ips[group] = sum(weighted) / n
        terms = zip(predicted, weighted, control, strict=True)
        dr[group] = sum(q + (w - q * u) / n for q, w, u in terms)
        numerators[group] = [w / n for w in weighted]
        controls[group] = [u / n for u in control]
    normaliser = [sum(c[r] for c in controls.values()) / len(controls) for r in range(K)]
    snips = {
        group: sum(num[r] / normaliser[r] for r in range(K) if normaliser[r] > 0)
        for group, num in numerators.items()
    }
    return {"ips": ips, "snips": snips, "dr": dr}


@pytest.mark.parametrize("estimator", ["ips", "snips", "dr"])
def test_position_based_estimators_equal_their_formula(estimator: str) -> None:
    log, new = _world(0, impressions=3)
    expected = _position_based(log, new)[estimator]
    assert any(value != 0 for value in expected.values())
    got = _ours(
        log, new, estimator, examination=THETA, propensity="propensity", reward_model="predicted"
    )
    assert got.keys() == expected.keys()
    for group, value in expected.items():
        assert got[group] == pytest.approx(value, abs=1e-12, rel=1e-12)


def _obp_slate(log: pl.DataFrame, new: pl.DataFrame, kind: str) -> dict[str, dict[int, float]]:
    """Open Bandit Pipeline's slate estimators, transcribed: behaviour pscores from the log's
    propensity column (item-position marginals or cascade prefixes), the evaluation policy's
    pscores 1 where the new ranking agrees (at the position, or on the whole prefix), else 0;
    one slate per group, positions 1..K (the new slate's length)."""
    ranking, slates = _new_ranking(new), _slates(log)
    rounds = []
    for group, impressions in slates.items():
        (slate,) = impressions
        items = [item for item, _ in ranking[group]]
        predicted = dict(ranking[group])
        rows = []
        prefix = True
        for row in slate[:K]:
            at = row["position"] - 1
            agrees = at < len(items) and row["item"] == items[at]
            prefix = prefix and agrees
            evaluation = float(prefix if kind == "cascade" else agrees)
            rows.append((row, evaluation / row["propensity"]))
        rounds.append((group, rows, items, predicted))
    ips = {g: sum(r["click"] * iw for r, iw in rows) for g, rows, _, _ in rounds}
    # SelfNormalized*: reward * iw / iw.mean(), the mean over rounds at the position.
    means = [sum(rows[pos][1] for _, rows, _, _ in rounds) / len(rounds) for pos in range(K)]
    snips = {
        g: sum(r["click"] * iw / means[pos] for pos, (r, iw) in enumerate(rows) if means[pos] > 0)
        for g, rows, _, _ in rounds
    }
    # SlateCascadeDoublyRobust: iw (r - q_hat(observed)) + iw_prev * E_eval[q_hat], with the
    # Q-function q(a, l) + the predictions of the new ranking below l; other actions' q_hat
    # get an arbitrary value (0.123), which the formula must not read.
    cascade_dr = {}
    for g, rows, items, predicted in rounds:

        def q_function(
            action: str, at: int, items: list[str] = items, predicted: dict[str, float] = predicted
        ) -> float:
            below = sum(predicted[item] for item in items[at + 1 :])
            return (predicted[action] if items[at] == action else 0.123) + below

        total, previous = 0.0, 1.0
        for at, (row, iw) in enumerate(rows):
            observed = q_function(row["item"], at)
            expected = q_function(items[at], at)  # the deterministic policy's action
            total += iw * (row["click"] - observed) + previous * expected
            previous = iw
        cascade_dr[g] = total
    return {"ips": ips, "snips": snips, "dr": cascade_dr}


@pytest.mark.parametrize(
    ("model", "estimator", "base"),
    [
        ("item_position", "iips", "ips"),
        ("item_position", "snips", "snips"),
        ("cascade", "rips", "ips"),
        ("cascade", "snips", "snips"),
        ("cascade", "cascade_dr", "dr"),
    ],
)
def test_slate_estimators_equal_open_bandit_pipelines(
    model: str, estimator: str, base: str
) -> None:
    for seed in range(5):
        log, new = _world(seed, impressions=1)
        # Make the new ranking agree with some logged prefixes, so that weights are non-zero.
        agreeing = log.filter(pl.col("query") < 2, pl.col("position") <= K).select(
            "query",
            "item",
            (10.0 - pl.col("position")).alias("score"),
            pl.lit(0.7).alias("predicted"),
        )
        new = pl.concat([agreeing, new.filter(pl.col("query") >= 2)])
        expected = _obp_slate(log, new, model)[base]
        assert any(value != 0 for value in expected.values())
        got = _ours(
            log,
            new,
            estimator,
            click_model=model,
            propensity="propensity",
            reward_model="predicted",
        )
        for group, value in expected.items():
            assert got[group] == pytest.approx(value, abs=1e-12, rel=1e-12), (seed, group)
