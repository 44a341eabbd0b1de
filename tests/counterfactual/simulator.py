"""A click simulator with known truth: per-group item attractiveness, examination per
position, a logging ranker that shows a random permutation with probability `explore` (else its
own fixed order) with known propensities, and clicks by the position-based or cascade model.
Everything is vectorised over (simulated log, group, position) with NumPy."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl


@dataclass(frozen=True)
class World:
    """The fixed world: attractiveness (groups x items), examination per position, the
    logger's own order and the new ranking (item index at each rank), per group."""

    attraction: np.ndarray
    examination: np.ndarray
    logger_order: np.ndarray
    new_order: np.ndarray
    explore: float

    @property
    def items(self) -> int:
        return int(self.attraction.shape[1])


def make_world(groups: int, items: int, *, explore: float = 0.5, seed: int = 0) -> World:
    """Attractiveness uniform in [0.05, 0.9]; the logger ranks worst first (so clicks as labels
    are pulled towards the bad items it puts on top); the new ranking puts the best first."""
    rng = np.random.default_rng(seed)
    attraction = rng.uniform(0.05, 0.9, size=(groups, items))
    examination = 1.0 / np.arange(1, items + 1) ** 0.9
    logger_order = np.argsort(attraction, axis=1)  # worst first
    new_order = np.argsort(-attraction, axis=1)
    return World(attraction, examination, logger_order, new_order, explore)


def true_value(world: World, k: int, model: str) -> np.ndarray:
    """The new ranking's expected reward@k per group, analytically."""
    shown = np.take_along_axis(world.attraction, world.new_order[:, :k], axis=1)
    if model == "pbm":
        return np.asarray((shown * world.examination[:k]).sum(axis=1))
    survive = np.cumprod(np.hstack([np.ones((len(shown), 1)), 1 - shown[:, :-1]]), axis=1)
    return np.asarray((shown * survive).sum(axis=1))


def simulate(world: World, logs: int, model: str, *, seed: int) -> pl.DataFrame:
    """`logs` simulated logs (column ``log``), one impression per group, the whole list shown:
    columns log, query, item, position, click, item_position (the logger's probability of the
    item at the position) and prefix (of the logged prefix through the position)."""
    rng = np.random.default_rng(seed)
    groups, n = world.attraction.shape
    explores = rng.random((logs, groups)) < world.explore
    random_order = np.argsort(rng.random((logs, groups, n)), axis=2)
    order = np.where(explores[..., None], random_order, world.logger_order[None])
    attraction = np.take_along_axis(np.broadcast_to(world.attraction, (logs, groups, n)), order, 2)
    if model == "pbm":
        clicks = rng.random((logs, groups, n)) < world.examination * attraction
    else:
        attractive = rng.random((logs, groups, n)) < attraction
        first = np.cumsum(attractive, axis=2) == 1
        clicks = attractive & first
    own = order == world.logger_order[None]
    item_position = (1 - world.explore) * own + world.explore / n
    prefix_matches = np.cumprod(own, axis=2).astype(bool)
    uniform_prefix = np.array([math.perm(n, j) for j in range(1, n + 1)], dtype=np.float64)
    prefix = (1 - world.explore) * prefix_matches + world.explore / uniform_prefix
    shape = (logs, groups, n)
    index = np.indices(shape)
    return pl.DataFrame(
        {
            "log": index[0].ravel(),
            "query": index[1].ravel(),
            "item": order.ravel(),
            "position": index[2].ravel() + 1,
            "click": clicks.ravel().astype(np.int64),
            "item_position": item_position.ravel(),
            "prefix": prefix.ravel(),
        }
    )


def candidates(world: World) -> pl.DataFrame:
    """The new ranking as scores (higher first): rank r gets score n - r."""
    groups, n = world.attraction.shape
    score = np.empty((groups, n))
    np.put_along_axis(score, world.new_order, np.arange(n, 0, -1, dtype=np.float64), axis=1)
    return pl.DataFrame(
        {
            "query": np.repeat(np.arange(groups), n),
            "item": np.tile(np.arange(n), groups),
            "score": score.ravel(),
        }
    )
