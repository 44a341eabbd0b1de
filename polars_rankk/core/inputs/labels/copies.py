"""Metrics over label outcomes where copies of an item are kept (``duplicates="keep"``): each
copy is a ranked row that counts as its item does, and the copies share one label outcome, so
their terms move together.

A metric that adds a weight of the rank over the relevant rows (precision, DCG, RBP, SDCG's
and INSQ's rate and total gain) is a sum over the distinct items of x_i A_i, A_i the weights of
item i's copies within K added up: independent terms, so E[V] = Σ q_i A_i and
Var[V] = Σ A_i^2 q_i (1 - q_i). Hit rate and RR read the first relevant row, the first copy of
the first relevant item: each item's later copies are never first (where the item is relevant,
its first copy is above them), so the law of the first relevant rank is that of the items at
their first copies. R counts each item once. The metrics that read the relevant count as they
go (recall, AP, nDCG, R-precision, ERR, F-beta) are not computed here: a copy's relevance is
then not independent of the count above it, and they keep the enumeration (or Monte Carlo).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.cwl import cwl_gain
from polars_rankk.core.inputs.labels.laws import (
    conditioned,
    hit_rank_of,
    precision_denominator,
    side_by_side,
)
from polars_rankk.core.inputs.labels.layout import counted_items
from polars_rankk.core.policy import Policy

#: The metrics computed where copies are kept, each at a cut-off.
KEPT_COPIES = frozenset(
    {
        "precision", "dcg", "rbp", "hit_rate", "mrr", "hit_rank",
        "sdcg", "sdcg_total_gain", "sdcg_depth", "insq", "insq_total_gain", "insq_depth",
    }
)  # fmt: skip
_CWL_DEPTH = 1000


def kept_copies_frames(
    ranked: pl.DataFrame, per_item: pl.DataFrame, groups: pl.DataFrame, keys: list[str],
    item: str, cells: list[tuple[str, int]], depth: int, policy: Policy,
) -> tuple[list[tuple[str, int, np.ndarray, np.ndarray]], np.ndarray]:  # fmt: skip
    """(the cells' (metric, k, mean, std), groups x items: the chance of each item R counts)
    from the ranked list (`ranked`: every copy) and the items that may be relevant
    (`per_item`, `layout.possible_items`)."""
    top = ranked.filter(pl.col("rank") <= depth).select(*keys, item, "rank")
    indexed = per_item.with_row_index("_rk_item")
    rows = (
        indexed.select(*keys, item, "_rk_group", "_rk_item", "_rk_q")
        .join(top, on=[*keys, item])
        .sort("_rk_group", "rank")
    )
    counted = counted_items(per_item, ranked, keys, item, policy)
    counted_q = side_by_side(counted, "_rk_q", groups.height)
    grade = np.zeros(groups.height)
    tops = per_item.group_by("_rk_group").agg(pl.col("_rk_grade").max())
    grade[tops["_rk_group"].to_numpy()] = tops["_rk_grade"].to_numpy()
    n_candidates = groups["n_candidates"].cast(pl.Float64).to_numpy()
    found = kept_copies_moments(rows, counted_q, cells, n_candidates, grade, policy)
    return found, counted_q


def kept_copies_moments(
    rows: pl.DataFrame,
    counted_q: np.ndarray,
    cells: list[tuple[str, int]],
    n_candidates: np.ndarray,
    grade: np.ndarray,
    policy: Policy,
) -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """(metric, k, mean, std) per group of each cell. `rows`: the ranked rows whose item may
    be relevant (``_rk_group``, ``rank``, ``_rk_item``: the item's index, ``_rk_q``), every
    copy; `counted_q`: groups x items, the chance of each item R counts (each once); `grade`:
    each group's relevant grade."""
    from polars_rankk.core.metrics.order import gain_of

    groups = counted_q.shape[0]
    none = np.prod(1 - counted_q, axis=1)
    graded = pl.DataFrame({"grade": pl.Series(grade, dtype=pl.Float64)})
    gains = graded.select(gain_of(pl.col("grade"), policy).alias("gain"))["gain"].to_numpy()
    group = rows["_rk_group"].to_numpy()
    rank = rows["rank"].to_numpy().astype(np.float64)
    item = rows["_rk_item"].cast(pl.Int64).to_numpy()
    q = rows["_rk_q"].to_numpy()
    n_items = int(item.max(initial=-1)) + 1
    item_q = np.zeros(n_items)
    item_q[item] = q
    item_group = np.zeros(n_items, dtype=np.int64)
    item_group[item] = group
    # Each item's first copy: the rows come in rank order within their group.
    first_copy = np.zeros(rank.shape, dtype=bool)
    _, first_rows = np.unique(item, return_index=True)
    first_copy[first_rows] = True
    found = []
    for metric, k in cells:
        within = rank <= k
        if metric in ("hit_rate", "mrr", "hit_rank"):
            e1, e2 = _first_relevant(metric, k, group[within & first_copy],
                                     rank[within & first_copy], q[within & first_copy],
                                     groups)  # fmt: skip
        elif metric.endswith("_depth"):
            constant = _cwl_depth(metric, k, policy)
            e1, e2 = constant * (1 - none), constant**2 * (1 - none)
        else:
            weight = _weights(metric, k, rank, group, n_candidates, gains, grade, policy)
            summed = np.bincount(item[within], weight[within], minlength=n_items)
            e1 = np.bincount(item_group, item_q * summed, minlength=groups)
            variance = np.bincount(
                item_group, summed * summed * item_q * (1 - item_q), minlength=groups
            )
            e2 = variance + e1 * e1
        mean, spread = conditioned(e1, e2, none, policy)
        if metric == "hit_rank":
            mean = hit_rank_of(k, mean)
        if metric.endswith("_depth") and policy.empty_truth != "exclude":
            # A list without a relevant item still has its expected depth: the constant.
            mean = np.where(np.isnan(mean), mean, _cwl_depth(metric, k, policy))
            spread = np.zeros_like(mean)
        found.append((metric, k, mean, spread))
    return found


def _first_relevant(
    metric: str, k: int, group: np.ndarray, rank: np.ndarray, q: np.ndarray, groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """E[V], E[V^2] of hit rate, RR or HitRank's K + 1 - rank (`laws.hit_rank_of`) from the
    items at their first copies (rank order)."""
    order = np.lexsort((rank, group))
    group, rank, q = group[order], rank[order], q[order]
    # Π (1 - q) over the items above, within the group.
    frame = pl.DataFrame({"group": group, "q": q})
    miss = (1.0 - pl.col("q")).cum_prod().shift(1, fill_value=1.0).over("group")
    chance = q * frame.select(miss.alias("before"))["before"].to_numpy()
    value = (
        np.ones_like(rank)
        if metric == "hit_rate"
        else (k + 1.0) - rank
        if metric == "hit_rank"
        else 1.0 / rank
    )
    e1 = np.bincount(group, chance * value, minlength=groups)
    e2 = np.bincount(group, chance * value * value, minlength=groups)
    return e1, e2


def _weights(
    metric: str, k: int, rank: np.ndarray, group: np.ndarray, n_candidates: np.ndarray,
    gains: np.ndarray, grade: np.ndarray, policy: Policy,
) -> np.ndarray:  # fmt: skip
    """Each row's weight when its item is relevant."""
    weight: np.ndarray
    if metric == "precision":
        denominator = precision_denominator(k, n_candidates, policy)
        per_group = np.where(denominator > 0, 1.0 / np.maximum(denominator, 1.0), 0.0)
        weight = per_group[group] + rank * 0.0
    elif metric == "dcg":
        weight = gains[group] / np.log2(rank + 1.0)
    elif metric == "rbp":
        p = float(policy.rbp_persistence)
        weight = (1 - p) * p ** (rank - 1.0)
    elif metric.startswith("sdcg"):
        total = 1.0 / np.log2(rank + 1.0)
        scale = _cwl_depth("sdcg_depth", k, policy) if metric == "sdcg" else 1.0
        weight = cwl_gain(grade, policy)[group] * total / scale
    else:
        twice = 2.0 * float(policy.cwl_target)
        reached = (twice / (rank - 1.0 + twice)) ** 2
        if metric == "insq":
            reached = reached / _cwl_depth("insq_depth", k, policy)
        else:  # the total gain: less the chance of reaching past cwl_eval's depth
            reached = reached - (twice / (_CWL_DEPTH + twice)) ** 2
        weight = cwl_gain(grade, policy)[group] * reached
    return weight


def _cwl_depth(metric: str, k: int, policy: Policy) -> float:
    """SDCG's and INSQ's expected depth, a constant (`cwl._sdcg`, `cwl._insq`)."""
    if metric.startswith("sdcg"):
        return math.fsum(1.0 / math.log2(i + 1.0) for i in range(1, k + 1))
    twice = 2.0 * float(policy.cwl_target)
    return math.fsum((twice / (i - 1.0 + twice)) ** 2 for i in range(1, _CWL_DEPTH + 1))
