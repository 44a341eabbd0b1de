"""Laws the label recursions share: the Poisson-binomial count of independent relevant
items, and h(R), what a metric's sum over ranks is multiplied by once R is known."""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_rankk.core.policy import Policy


def poisson_binomial(q: np.ndarray) -> np.ndarray:
    """Per row of `q` (groups x items, 0 where a group has fewer items): the law of the
    number of successes, groups x (items + 1)."""
    groups, items = q.shape
    law = np.zeros((groups, items + 1))
    law[:, 0] = 1.0
    for j in range(items):
        p = q[:, j : j + 1]
        law[:, 1 : j + 2] = law[:, 1 : j + 2] * (1 - p) + law[:, : j + 1] * p
        law[:, :1] *= 1 - p
    return law


def h_of_relevant(metric: str, k: int, largest_r: int, policy: Policy) -> np.ndarray:
    """h(R) for R = 0..largest_r: what the sum over ranks is multiplied by (0 at R = 0)."""
    r = np.arange(largest_r + 1, dtype=np.float64)
    safe = np.maximum(r, 1.0)
    if metric == "recall" or (
        metric == "average_precision" and policy.ap_denominator == "relevant"
    ):
        return np.where(r > 0, 1.0 / safe, 0.0)
    if metric == "average_precision":
        return np.where(r > 0, 1.0 / np.minimum(safe, k), 0.0)
    if metric == "ndcg":
        ideal = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2)))])
        idcg = ideal[np.minimum(r, k).astype(np.int64)]
        return np.where(r > 0, 1.0 / np.maximum(idcg, 1e-300), 0.0)
    return np.ones_like(r)


def largest(values: pl.Series) -> int:
    """The largest of integer `values` (0 when there are none)."""
    largest = values.max()
    return int(largest) if isinstance(largest, int) else 0
