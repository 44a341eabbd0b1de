"""The new ranking's top K is ranked as `rk.evaluate` ranks: on the kernel (where it is loaded)
and in pure Polars alike, equal to `evaluate`'s own ranked items, on candidates full of tied
scores, repeated items, invalid scores and short lists, under every deterministic tie order."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.kernel import loader
from polars_rankk.counterfactual.new_policy import RANK, Columns, ranked_top

COLUMNS = Columns(["g", "s"], "item", "position", "click", "score", None, None)


def _candidates(seed: int, text_items: bool) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = 4000
    items = rng.integers(0, 25, n)
    score = np.where(rng.random(n) < 0.05, np.nan, rng.integers(0, 5, n) * 1.0)
    frame = pl.DataFrame(
        {
            "g": rng.integers(0, 200, n),
            "s": rng.integers(0, 2, n).astype(str),
            "item": items.astype(str) if text_items else items,
            "score": score,
        }
    )
    row = pl.int_range(pl.len())
    score_column = (
        pl.when(row % 97 == 0)
        .then(None)
        .when(row % 89 == 0)
        .then(-0.0)
        .when(row % 83 == 0)
        .then(float("inf"))
        .otherwise(pl.col("score"))
    )
    return frame.with_columns(score_column.alias("score"))


def _evaluates_ranking(candidates: pl.DataFrame, policy: rk.Policy, k: int) -> pl.DataFrame:
    """`evaluate`'s ranked items, its duplicates and invalid scores as the estimate reads them:
    the best copy of an item, invalid scores last."""
    settings = rk.Policy(ties=policy.ties, duplicates="first", invalid_scores="lowest")
    # Every item judged alike: the deterministic tie orders do not read grades.
    truth = candidates.select("g", "s", "item").unique().with_columns(relevance=pl.lit(1))
    ranked = rk.evaluate(candidates, truth, group_by=["g", "s"], k=k, policy=settings)
    items = ranked.ranked_items()
    assert items is not None
    top = items.filter(pl.col("rank") <= k).collect()
    return top.rename({"rank": RANK}).select("g", "s", "item", RANK)


@pytest.mark.parametrize("text_items", [False, True])
@pytest.mark.parametrize("ties", ["trec_eval", "item_asc", "input_order"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_the_top_k_is_evaluates_ranking_on_every_path(
    ties: str, k: int, text_items: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    candidates = _candidates(k * 10 + len(ties), text_items)
    policy = rk.Policy(ties=ties)  # type: ignore[arg-type]
    order = ["g", "s", RANK]
    expected = _evaluates_ranking(candidates, policy, k).sort(order)
    paths = {"pure": "0", "kernel": "1"} if loader.status().loaded else {"pure": "0"}
    for path, switch in paths.items():
        monkeypatch.setenv(loader.SWITCH, switch)
        top = ranked_top(candidates.lazy(), ["g", "s"], COLUMNS, k, policy, None)
        assert top.collect().sort(order).equals(expected), path
