"""The sweep finds where the winner flips: on a log whose two policies' IPS estimates are
known functions of eta (0.5, and 0.2 * 2^eta), the flip is at eta = log2(2.5); under the
item-position model the logging propensities are what the sweep raises; the chart marks it."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk

SHOWN = pl.DataFrame({"session": range(10), "item": ["a", "b"] * 5, "position": 1})
LOG = pl.concat(
    [SHOWN, SHOWN.with_columns(pl.col("item").replace({"a": "b", "b": "a"}), position=2)]
).with_columns(
    query=pl.lit("q"),
    click=(
        ((pl.col("item") == "a") & (pl.col("position") == 1))
        | ((pl.col("item") == "b") & (pl.col("position") == 2) & (pl.col("session") < 4))
    ).cast(pl.Int64),
    propensity=pl.lit(0.5),
)
A_FIRST = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0]})
B_FIRST = A_FIRST.with_columns(pl.Series("score", [1.0, 2.0]))
POLICIES = {"a first": A_FIRST, "b first": B_FIRST}
OPTIONS = {"group_by": "query", "impression": "session", "k": 1, "estimator": "ips",
           "n_bootstrap": 0}  # fmt: skip


def test_the_flip_is_where_the_estimates_cross() -> None:
    etas = np.round(np.arange(0.5, 1.51, 0.01), 2)
    result = rk.counterfactual_sensitivity(
        LOG,
        POLICIES,
        etas=list(etas),
        examination=[1.0, 0.5],
        **OPTIONS,  # type: ignore[arg-type]
    )
    b_first = result.table.filter(pl.col("policy") == "b first").sort("eta")
    np.testing.assert_allclose(b_first["reward_at_k"], 0.2 * 2 ** b_first["eta"].to_numpy())
    assert result.winner == "a first"
    (flip,) = result.flips.iter_rows(named=True)
    assert flip["side"] == "above"
    assert flip["overtaken_by"] == "b first"
    assert flip["eta"] == pytest.approx(math.log2(2.5), abs=1e-3)


def test_under_the_item_position_model_the_propensities_are_raised() -> None:
    result = rk.counterfactual_sensitivity(
        LOG, POLICIES, etas=[0.5, 1.0, 2.0], click_model="item_position",
        propensity="propensity", **OPTIONS,  # type: ignore[arg-type]
    )  # fmt: skip
    assert result.misspecified == "propensity"
    a_first = result.table.filter(pl.col("policy") == "a first").sort("eta")
    # Five clicks of a at position 1 in ten sessions, each weighted 1 / 0.5^eta.
    np.testing.assert_allclose(a_first["reward_at_k"], 0.5 / 0.5 ** np.array([0.5, 1.0, 2.0]))


def test_the_chart_marks_the_flip() -> None:
    result = rk.counterfactual_sensitivity(
        LOG,
        POLICIES,
        etas=[0.5, 1.0, 1.5],
        examination=[1.0, 0.5],
        **OPTIONS,  # type: ignore[arg-type]
    )
    spec = rk.plot_counterfactual_sensitivity(result).to_dict()
    (labels,) = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert "winner flips at eta = 1.3" in str(labels["data"])


def test_marginals_compare_beside_a_ranking_with_options_of_their_own() -> None:
    """A policy given as (candidates, options): a-first as marginals estimates as the
    ranking does at every eta."""
    marginal = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "position": [1, 1],
                             "probability": [1.0, 0.0]})  # fmt: skip
    result = rk.counterfactual_sensitivity(
        LOG,
        {"a first": A_FIRST, "a first, marginals": (marginal, {"probability": "probability"})},
        etas=[0.5, 1.0, 1.5],
        examination=[1.0, 0.5],
        **OPTIONS,  # type: ignore[arg-type]
    )
    by_policy = result.table.sort("eta").partition_by("policy", as_dict=True)
    np.testing.assert_allclose(
        by_policy[("a first",)]["reward_at_k"], by_policy[("a first, marginals",)]["reward_at_k"]
    )
