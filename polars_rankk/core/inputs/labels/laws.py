"""Laws the label recursions share: the Poisson-binomial count of independent relevant
items, and h(R), what a metric's sum over ranks is multiplied by once R is known."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import numpy as np
import polars as pl

from polars_rankk.core.policy import Policy


class Ranking(Protocol):
    """The evaluation's ranking as the recursion reads it."""

    def listed(self) -> pl.DataFrame:
        """The ranked candidates: keys, item, ``rank`` (and ``block`` under tie orders that
        read the labels)."""
        ...

    def depth(self) -> int:
        """The ranks the recursion reads (`layout.ranks_read`)."""
        ...

    def places(self, pairs: pl.DataFrame, depth: int) -> pl.Series | None:
        """Each of `pairs`' (keys, item) place in its group's ranking (0 absent, its rank up
        to `depth`, ``depth + 1`` deeper; under ``pool="all"``, where the two count alike,
        0 for either), or None where only `listed` gives it."""
        ...


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


def increment(metric: str, rank: int, counts: np.ndarray) -> np.ndarray:
    """a(j, c) at rank j = `rank` (within K) for the counts c = `counts` (those including the
    item at j), 1 x counts: recall's and F-beta's 1, AP's c/j, binG's 1 / log2(2 + j - c),
    nDCG's discount."""
    if metric in ("recall", "f1"):
        return np.ones((1, counts.size))
    if metric == "average_precision":
        return counts[None, :] / rank
    if metric == "binary_g":  # trec_eval binG: the rows above not relevant, j - c
        return 1.0 / np.log2(2.0 + rank - counts[None, :])
    return np.full((1, counts.size), 1.0 / math.log2(rank + 1))  # ndcg


def linear_weight(metric: str, rank: int, per_group: np.ndarray, policy: Policy) -> np.ndarray:
    """The weight of a relevant item at rank j = `rank` (within K) in precision, DCG or RBP,
    per group (`per_group`: 1 / precision's denominator, or the relevant grade's gain)."""
    if metric == "precision":
        return per_group
    if metric == "dcg":
        return per_group / math.log2(rank + 1)
    return np.full(1, (1 - policy.rbp_persistence) * policy.rbp_persistence ** (rank - 1))


def read_per_group(
    metric: str, k: int, n_candidates: np.ndarray, gain: np.ndarray, policy: Policy
) -> np.ndarray:
    """What a metric's increments read of each group: 1 / precision's denominator (K, or
    min(K, n) under ``short_lists="observed"``), DCG's gain, else nothing."""
    if metric == "dcg":
        return gain
    if metric != "precision":
        return np.ones_like(n_candidates)
    denominator = precision_denominator(k, n_candidates, policy)
    return np.where(denominator > 0, 1.0 / np.maximum(denominator, 1.0), 0.0)


def h_of_relevant(
    metric: str, k: int, largest_r: int, policy: Policy, n_candidates: np.ndarray
) -> np.ndarray:
    """h(R) for R = 0..largest_r, 1 x (largest_r + 1) or, where it reads the group's list
    (F-beta's precision denominator under ``short_lists="observed"``), groups x (largest_r
    + 1): what the sum over ranks is multiplied by (0 at R = 0)."""
    r = np.arange(largest_r + 1, dtype=np.float64)[None, :]
    safe = np.maximum(r, 1.0)
    if metric in ("recall", "binary_g") or (
        metric == "average_precision" and policy.ap_denominator == "relevant"
    ):
        return np.where(r > 0, 1.0 / safe, 0.0)
    if metric in ("average_precision", "relative_precision"):
        return np.where(r > 0, 1.0 / np.minimum(safe, k), 0.0)
    if metric == "ndcg":
        # Discounts by math.log2 (C's log2), as the compiled kernel takes them.
        discounts = np.array([1.0 / math.log2(rank + 1) for rank in range(1, k + 1)])
        ideal = np.concatenate([[0.0], np.cumsum(discounts)])
        idcg = ideal[np.minimum(r, k).astype(np.int64)]
        return np.where(r > 0, 1.0 / np.maximum(idcg, 1e-300), 0.0)
    if metric == "f1":
        # F-beta of hits/D and hits/R is hits (1 + b^2) / (b^2 R + D), D = K or min(K, n).
        weight = float(policy.f_beta) ** 2
        below = weight * r + precision_denominator(k, n_candidates, policy)[:, None]
        return np.where(r > 0, (1.0 + weight) / np.maximum(below, 1e-300), 0.0)
    return np.ones_like(r)


def count_moments(
    within: np.ndarray, beyond: np.ndarray, value: Callable[[np.ndarray, int], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """E[V] and E[V^2] per group, V = value(hits, y) a function of two independent
    Poisson-binomial counts: the relevant items among `within` (groups x items, their
    relevance chances) and those among `beyond`; R = hits + y. `value` maps the row of hit
    counts (1 x (items + 1)) and one y to each group's values, groups x (items + 1)."""
    hits_law, beyond_law = poisson_binomial(within), poisson_binomial(beyond)
    hits = np.arange(hits_law.shape[1], dtype=np.float64)[None, :]
    first = np.zeros(within.shape[0])
    second = np.zeros(within.shape[0])
    for y in range(beyond_law.shape[1]):
        given = value(hits, y)
        chance = hits_law * beyond_law[:, y : y + 1]
        first += (chance * given).sum(axis=1)
        second += (chance * given * given).sum(axis=1)
    return first, second


def largest(values: pl.Series) -> int:
    """The largest of integer `values` (0 when there are none)."""
    largest = values.max()
    return int(largest) if isinstance(largest, int) else 0


def precision_denominator(k: int, n_candidates: np.ndarray, policy: Policy) -> np.ndarray:
    """Precision@K's denominator per group: K, or min(K, n) under ``short_lists="observed"``."""
    denominator = np.full_like(n_candidates, float(k), dtype=np.float64)
    if policy.short_lists == "observed":
        denominator = np.minimum(denominator, n_candidates)
    return denominator


def h_over_rest(
    metric: str, k: int, rest_law: np.ndarray, counts: int, policy: Policy, n_candidates: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(H1, H2), groups x counts: E[h(c + y)] and E[h(c + y)^2] for each count c found so
    far, over the law of the count y of the other relevant items (`rest_law`)."""
    groups, width = rest_law.shape
    h = h_of_relevant(metric, k, counts + width, policy, n_candidates)
    # y by y, as the compiled kernel adds them (`native/src/label_moments.rs`).
    h1 = np.zeros((groups, counts))
    h2 = np.zeros((groups, counts))
    for y in range(rest_law.shape[1]):
        h1 += rest_law[:, y : y + 1] * h[:, y : y + counts]
        h2 += rest_law[:, y : y + 1] * (h * h)[:, y : y + counts]
    return h1, h2


def summed_in_order(terms: np.ndarray) -> np.ndarray:
    """Each row's sum, its columns added one after another: the order the compiled kernel
    adds them in (`native/src/label_moments.rs`), so that both give the same numbers bit for
    bit (NumPy's sums add pairwise, its products in BLAS's order)."""
    total = np.zeros(terms.shape[0])
    for column in range(terms.shape[1]):
        total = total + terms[:, column]
    return total


def product_in_order(factors: np.ndarray) -> np.ndarray:
    """Each row's product, its columns multiplied one after another (as `summed_in_order`)."""
    product = np.ones(factors.shape[0])
    for column in range(factors.shape[1]):
        product = product * factors[:, column]
    return product


def side_by_side(frame: pl.DataFrame, value: str, groups: int) -> np.ndarray:
    """`value` of each group's rows of `frame` (``_rk_group``: its row in the groups) side by
    side in their order, groups x (the most rows one group has), 0-padded."""
    place = frame.select(pl.int_range(pl.len()).over("_rk_group")).to_series().to_numpy()
    laid = np.zeros((groups, int(place.max(initial=-1)) + 1))
    laid[frame["_rk_group"].to_numpy(), place] = frame[value].to_numpy()
    return laid


def conditioned(
    first: np.ndarray, second: np.ndarray, none_relevant: np.ndarray, policy: Policy
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, std) from E[V] and E[V^2] (V = 0 where R = 0) as the empty-truth policy reads
    the outcome without a relevant item: left out, a 0, or a NaN."""
    if policy.empty_truth == "exclude":
        kept = np.where(none_relevant < 1, 1 - none_relevant, np.nan)
        first, second = first / kept, second / kept
    elif policy.empty_truth == "nan":
        first = np.where(none_relevant > 0, np.nan, first)
    variance = second - first * first
    # E[V^2] - E[V]^2 cancels: a variance within rounding of E[V^2] (64 ulps) is 0, not the
    # square root of a rounding error (~1e-9 where every outcome gives one value).
    variance = np.where(variance <= 64 * np.finfo(np.float64).eps * second, 0.0, variance)
    return first, np.sqrt(variance)


def first_relevant_moments(q: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E[V] and E[V^2] per group of V = `value` at the first relevant rank (0 where none is
    relevant within the ranks of `q`, groups x ranks): P(first at j) = q_j times the product
    of 1 - q_i above it. `value`: one per rank."""
    miss = np.concatenate([np.ones((q.shape[0], 1)), 1 - q[:, :-1]], axis=1)
    first = q * np.cumprod(miss, axis=1)
    return summed_in_order(first * value), summed_in_order(first * (value * value))


def hit_rank_of(k: int, missed: np.ndarray) -> np.ndarray:
    """HitRank@K from W = (K + 1 - the first relevant rank) where it is within K, else 0:
    HitRank = K + 1 - W (K + 1 where no relevant item is within K, or none at all)."""
    return (k + 1.0) - missed


def scaled_sum_moments(
    rows: pl.DataFrame, groups: int, threshold: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(E[V], E[V^2], E[V; R = 0], E[V^2; R = 0], P(R = 0)) per group of V = S / M, S the sum
    over items of w max(g, 0) and M = max(1, the largest grade of the group's items): trec
    RBP. `rows`: one per item and grade of positive chance (``_rk_group``, ``_rk_item``,
    ``_rk_g``, ``_rk_p``, ``_rk_w`` the item's weight) of the items M and R read, the rest
    of an item's mass grade 0. M <= m is every item's grade at most m: given that,
    the items stay independent, so E[S; M <= m] = P(M <= m) E[S | M <= m] is a sum over
    items and E[S^2; M <= m] adds their variances; M = m_l between the levels m_l (1 and the
    grades past it), and R = 0 (every item below `threshold`) is one more bound."""
    grades = rows.filter(pl.col("_rk_g") > 1)["_rk_g"].unique().sort().to_list()
    levels = [1.0, *grades]
    g, p, w = pl.col("_rk_g"), pl.col("_rk_p"), pl.col("_rk_w")
    found = []
    for empty in (False, True):
        first, second = np.zeros(groups), np.zeros(groups)
        below_first, below_second = np.zeros(groups), np.zeros(groups)
        chance = np.zeros(groups)
        for level in levels:
            kept = g <= level
            if empty:  # and every item below the threshold
                kept = kept & (g < threshold)
            items = rows.group_by("_rk_group", "_rk_item").agg(
                within=1.0 - p.filter(~kept).sum(),
                m1=(g * p).filter(kept & (g > 0)).sum(),
                m2=(g * g * p).filter(kept & (g > 0)).sum(),
                w=w.first(),
            )
            c1 = pl.when(pl.col("within") > 0).then(pl.col("m1") / pl.col("within")).otherwise(0.0)
            c2 = pl.when(pl.col("within") > 0).then(pl.col("m2") / pl.col("within")).otherwise(0.0)
            per_group = items.group_by("_rk_group").agg(
                chance=pl.col("within").product(),
                mean=(pl.col("w") * c1).sum(),
                spread=(pl.col("w") ** 2 * (c2 - c1 * c1)).sum(),
            )
            at = per_group["_rk_group"].to_numpy()
            bound = np.ones(groups)  # a group without rows: every bound holds
            mean, spread = np.zeros(groups), np.zeros(groups)
            bound[at] = per_group["chance"].to_numpy()
            mean[at] = per_group["mean"].to_numpy()
            spread[at] = per_group["spread"].to_numpy()
            s1, s2 = bound * mean, bound * (spread + mean * mean)
            # M = level: the bound at this level less the one below it.
            first += (s1 - below_first) / level
            second += (s2 - below_second) / (level * level)
            below_first, below_second, chance = s1, s2, bound
        found.append((first, second, chance))
    (e1, e2, _), (n1, n2, none) = found
    return e1, e2, n1, n2, none


def scaled_rbp_cells(
    ranking: Ranking,
    truth: pl.DataFrame,
    evaluated: pl.DataFrame,
    cells: pl.DataFrame,
    *,
    keys: list[str],
    item: str,
    relevance: str,
    probability: str,
    policy: Policy,
) -> pl.DataFrame:
    """The rows (keys, metric, k, value, std, standard_error) of trec RBP's `cells`: each
    truth item's grades with their chances, weighed by its place in the evaluation's ranking
    ((1 - p) p^(place - 1), 0 where it is not listed), read by `laws.scaled_sum_moments`."""
    groups = evaluated.select(*keys, "n_candidates").with_row_index("_rk_group")
    items = truth.select(*keys, item).unique(maintain_order=True)
    place = _places(ranking, items, keys, item)
    persistence = float(policy.rbp_persistence)
    weight = pl.when(place > 0).then(
        (1.0 - persistence) * pl.lit(persistence, dtype=pl.Float64).pow(place - 1)
    )
    items = items.with_columns(_rk_w=weight.otherwise(0.0), _rk_item=pl.int_range(pl.len()))
    if policy.pool == "restrict":  # M and R read the listed items alone
        items = items.filter(place > 0)
    rows = (
        truth.filter(pl.col(probability) > 0)
        .join(items, on=[*keys, item])
        .join(groups.select(*keys, "_rk_group"), on=keys)
        .select("_rk_group", "_rk_item", "_rk_w", _rk_g=pl.col(relevance),
                _rk_p=pl.col(probability))
    )  # fmt: skip
    e1, e2, n1, n2, none = scaled_sum_moments(rows, groups.height, policy.relevance_threshold)
    if policy.empty_truth == "exclude":  # E[V; R > 0]: `conditioned` divides by P(R > 0)
        e1, e2 = e1 - n1, e2 - n2
    mean, spread = conditioned(e1, e2, none, policy)
    found = groups.select(*keys, metric=pl.lit("trec_rbp"), value=mean, std=spread)
    return cells.join(
        found, on=[*keys, "metric"], how="left", nulls_equal=True, maintain_order="left"
    ).with_columns(standard_error=pl.lit(0.0))


def _places(ranking: Ranking, items: pl.DataFrame, keys: list[str], item: str) -> pl.Series:
    """Each row of `items`' place in the evaluation's ranking (0 where not listed): from the
    kernel's ranking read to the whole list, or the ranked list itself."""
    place = ranking.places(items.select(*keys, item), ranking.depth())
    if place is not None:
        found: pl.Series = place.alias("_rk_place")
        return found
    ranked = ranking.listed().group_by(*keys, item).agg(_rk_place=pl.col("rank").min())
    joined = items.join(ranked, on=[*keys, item], how="left", maintain_order="left")
    listed: pl.Series = joined["_rk_place"].fill_null(0).cast(pl.Int64)
    return listed
