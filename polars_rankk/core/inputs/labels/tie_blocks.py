"""Exact expectations over label outcomes where the tie order reads the labels: under
``ties="optimistic"`` the relevant items of a block of equal scores take its first places,
under ``"pessimistic"`` its last, so the ranking differs between outcomes; under
``"expected"`` each outcome's value is the mean over every order of each block, which reads
only how many of the block's items are relevant (`_gained_spread`).

Where each group's possibly relevant items share one grade, what a block adds to a metric's
running sum depends only on how many of its items turn out relevant (x, a Poisson-binomial
count over the block) and on how many were found above it (c): the relevant ones fill places
first .. first + x - 1 of the block (first = its start, or start + size - x). So the recursion
over ranks of `recursion.moments` runs over blocks instead: for each c it carries P(c), E[S; c]
and E[S^2; c], and a block moves c to c + x, adding inc(c, x) — recall's count of those places
within K, AP's (c + i) / place, nDCG's discounts, precision's count over its denominator, DCG's
gain times discounts, RBP's weights, and for hit rate, RR and HitRank (K + 1 less K + 1 - the
place) the first place where c = 0.
Sums over places are differences of prefix sums over positions, so a block of any size costs
one step per possible x. The relevant items of the later blocks and those never ranked add an
independent count y: R = c + y, and recall, AP and nDCG are S h(R) as in `recursion`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.laws import (
    h_over_rest,
    largest,
    poisson_binomial,
    side_by_side,
)
from polars_rankk.core.policy import Policy

#: Tie orders that read the labels, and the metrics this recursion computes under them.
GRADE_READING_TIES = frozenset({"optimistic", "pessimistic"})
#: The tie orders this recursion runs over blocks for: those that read the labels, and the
#: mean over every order of a block (whose value reads how many of its items are relevant).
BLOCK_TIES = GRADE_READING_TIES | {"expected"}
BLOCK_METRICS = frozenset(
    {
        *("precision", "recall", "hit_rate", "mrr", "average_precision", "ndcg", "dcg", "rbp"),
        *("f1", "err", "hit_rank", "relative_precision", "binary_g"),
    }
)
#: The metrics that read the first relevant place (HitRank as K + 1 - its weight there).
_FIRST_RELEVANT = frozenset({"hit_rate", "mrr", "hit_rank"})
#: The metrics whose sum is divided by what R decides (the others read R > 0 only).
_DIVIDED = frozenset(
    {"recall", "average_precision", "ndcg", "f1", "relative_precision", "binary_g"}
)


def block_layout(
    ranked: pl.DataFrame,
    per_item: pl.DataFrame,
    keys: list[str],
    item: str,
    groups: int,
    largest_k: int,
    columns: Sequence[str] = ("_rk_q",),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q: groups x blocks x width x columns, each of `columns` (probabilities) of each item
    that may be relevant of each block that starts within `largest_k`; start and size:
    groups x blocks, each block's first rank and its number of items; 0-sized past a group's
    last block). `ranked` holds keys, item, rank and ``block``
    (`Evaluation.ranked_items(tie_blocks=True)`) of the evaluated groups with their
    ``_rk_group``; `per_item` each possibly relevant item's `columns`."""
    within = ranked.filter(pl.col("block") <= largest_k).join(
        per_item.select(*keys, item, *columns), on=[*keys, item], how="left"
    )
    laid = within.select(
        pl.col("_rk_group"),
        (pl.col("block").rank("dense").over("_rk_group") - 1).cast(pl.Int64).alias("_rk_j"),
        pl.col("block"),
        *(pl.col(column).fill_null(0.0) for column in columns),
    )
    # Only the items with a chance in `columns` (that may be relevant, or gain) enter a
    # block's count (its law is theirs alone); the others still take places, which the
    # block's size keeps.
    chance = pl.sum_horizontal(columns) > 0 if columns else pl.lit(False)
    possible = laid.filter(chance).with_columns(
        pl.int_range(pl.len()).over("_rk_group", "_rk_j").alias("_rk_t")
    )
    blocks = largest(laid["_rk_j"]) + 1 if laid.height else 0
    width = largest(possible["_rk_t"]) + 1 if possible.height else 0
    q = np.zeros((groups, blocks, width, len(columns)))
    start = np.zeros((groups, blocks))
    size = np.zeros((groups, blocks))
    if laid.height:
        g, j = laid["_rk_group"].to_numpy(), laid["_rk_j"].to_numpy()
        start[g, j] = laid["block"].to_numpy()
        np.add.at(size, (g, j), 1.0)
    if possible.height:
        g, j, t = (possible[c].to_numpy() for c in ("_rk_group", "_rk_j", "_rk_t"))
        for index, column in enumerate(columns):
            q[g, j, t, index] = possible[column].to_numpy()
    return q, start, size


def block_moments(
    q: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    rest_law: np.ndarray,
    read: Sequence[np.ndarray],
    cells: Sequence[tuple[str, int]],
    policy: Policy,
    n_candidates: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[V], E[V^2], P(R = 0)) per group (groups x cells; V = 0 where R = 0) of `cells`
    under the policy's tie order. `q`, `start`, `size` from `block_layout`; `rest_law`: the
    law of the relevant count outside the blocks (groups x (m + 1)); `read`: per cell, what
    its increments read of each group (precision's 1 / denominator, DCG's gain); `n_candidates`:
    each list's length."""
    groups, blocks, _ = q.shape
    # Block j adds at most `most[j]` relevant items (its items that may be relevant, in the
    # group with most): the counts reachable before it are 0 .. the sum of those above.
    most = (q > 0).sum(axis=2).max(axis=0, initial=0).astype(np.int64)
    reachable = np.concatenate([[1], np.cumsum(most) + 1])
    counts = int(reachable[-1])
    law = np.zeros((groups, counts))
    law[:, 0] = 1.0
    total = np.zeros((len(cells), groups, counts))
    square = np.zeros((len(cells), groups, counts))
    # Places 1..K: past K every weight is 0, so the prefix sums stay what they are at K (a
    # block reaching past K reads them there).
    prefixes = [_prefix(metric, k, k + 1, policy) for metric, k in cells]
    found = np.arange(counts, dtype=np.float64)[None, :]
    for j in range(blocks):
        relevant = poisson_binomial(q[:, j, :])  # groups x (width + 1)
        reached = int(reachable[j])  # the counts 0 .. reached - 1 before block j
        law_before = law[:, :reached]
        new_law = np.zeros_like(law)
        new_total, new_square = np.zeros_like(total), np.zeros_like(square)
        for x in range(int(most[j]) + 1):
            weight = relevant[:, x : x + 1]
            if not weight.any():
                continue
            new_law[:, x : x + reached] += law_before * weight
            for index, (metric, k) in enumerate(cells):
                if policy.ties == "expected":
                    gained = _gained_spread(
                        metric, prefixes[index], start[:, j], size[:, j], x, found[:, :reached]
                    )
                elif metric == "err":
                    first = first_place(start[:, j], size[:, j], x, policy)
                    gained = _err_gained(k, first, x, found[:, :reached], read[index])
                else:
                    first = first_place(start[:, j], size[:, j], x, policy)
                    gained = _gained(metric, k, prefixes[index], first, x, found[:, :reached])
                gained = gained * read[index][:, None]
                sum_before = total[index][:, :reached]
                new_total[index][:, x : x + reached] += (sum_before + gained * law_before) * weight
                new_square[index][:, x : x + reached] += (
                    square[index][:, :reached] + gained * (2 * sum_before + gained * law_before)
                ) * weight
        law, total, square = new_law, new_total, new_square
    none_relevant = law[:, 0] * rest_law[:, 0]
    first_moment = np.empty((groups, len(cells)))
    second_moment = np.empty((groups, len(cells)))
    for index, (metric, k) in enumerate(cells):
        h1, h2 = _over_rest(metric, k, rest_law, counts, policy, n_candidates)
        first_moment[:, index] = (total[index] * h1).sum(axis=1)
        second_moment[:, index] = (square[index] * h2).sum(axis=1)
    return first_moment, second_moment, none_relevant


def first_place(start: np.ndarray, size: np.ndarray, x: int, policy: Policy) -> np.ndarray:
    """The place of the first of x relevant items of each group's block (groups x 1)."""
    first = start if policy.ties == "optimistic" else start + size - x
    placed: np.ndarray = np.maximum(first, 1.0)[:, None]
    return placed


def _prefix(metric: str, k: int, positions: int, policy: Policy) -> tuple[np.ndarray, ...]:
    """Prefix sums over positions 0..`positions` of a metric's per-place weights within K:
    (count, sum of weights, sum of weights / place) — a block's places p .. p + x - 1 then sum
    as differences."""
    place = np.arange(1, positions + 1, dtype=np.float64)
    within = (place <= k).astype(np.float64)
    if metric in ("ndcg", "dcg"):
        weight = within / np.log2(place + 1)
    elif metric == "rbp":
        p = policy.rbp_persistence
        weight = within * (1 - p) * p ** (place - 1)
    elif metric == "mrr":
        weight = within / place
    elif metric == "hit_rank":  # W = K + 1 - the first relevant place (`laws.hit_rank_of`)
        weight = within * (k + 1 - place)
    else:
        weight = within
    zero = np.zeros(1)
    return (
        np.concatenate([zero, np.cumsum(within)]),
        np.concatenate([zero, np.cumsum(weight)]),
        np.concatenate([zero, np.cumsum(within / place)]),
    )


def _gained(
    metric: str,
    k: int,
    prefix: tuple[np.ndarray, ...],
    first: np.ndarray,
    x: int,
    found: np.ndarray,
) -> np.ndarray:
    """inc(c, x) per group and count c found above the block (groups x counts): what x
    relevant items at places first .. first + x - 1 add to the metric's sum."""
    if x == 0:
        return np.zeros((first.shape[0], found.shape[1]))
    counted, weights, inverse = prefix
    low = np.minimum(first - 1, len(counted) - 1).astype(np.int64)
    high = np.minimum(first + x - 1, len(counted) - 1).astype(np.int64)
    if metric in _FIRST_RELEVANT:
        # The first relevant item of the list, if it is this block's and within K.
        at_first = weights[np.minimum(first, len(weights) - 1).astype(np.int64)] - weights[low]
        first_found: np.ndarray = np.where(found == 0, at_first, 0.0)
        return first_found
    if metric == "average_precision":
        # sum over i of (c + i) / place_i, place_i = first + i - 1: i = place - first + 1.
        over_place = inverse[high] - inverse[low]
        within = counted[high] - counted[low]
        by_count: np.ndarray = found * over_place + within - (first - 1) * over_place
        return by_count
    if metric == "binary_g":
        # The (c + i)-th relevant item at place first + i - 1 has first - 1 - c rows above it
        # not relevant, whatever i: each of the x within K adds 1 / log2(1 + first - c).
        placed = np.clip(k - first + 1, 0, x)
        above = np.maximum(first - found, 1.0)  # >= 1 where c has a chance
        by_rows: np.ndarray = placed / np.log2(1.0 + above)
        return by_rows
    return np.broadcast_to(weights[high] - weights[low], (first.shape[0], found.shape[1]))


def _err_gained(
    k: int, first: np.ndarray, x: int, found: np.ndarray, stop: np.ndarray
) -> np.ndarray:
    """ERR's inc(c, x) over its stopping chance s (groups x counts): the x relevant items at
    places first .. first + x - 1 (within K), the (c + i)-th relevant item reached with
    chance (1 - s)^(c + i) (every relevant item of a group stops the user with chance s, the
    others never), each counting 1 / place."""
    go_on = (1 - stop)[:, None]
    total = np.zeros((first.shape[0], found.shape[1]))
    for i in range(x):
        place = first + i
        total = total + np.where(place <= k, go_on ** (found + i) / place, 0.0)
    return total


def _gained_spread(
    metric: str,
    prefix: tuple[np.ndarray, ...],
    start: np.ndarray,
    size: np.ndarray,
    x: int,
    found: np.ndarray,
) -> np.ndarray:
    """inc(c, x) under ``ties="expected"`` (groups x counts): what x relevant items add to the
    metric's sum on average over every order of the block (places start .. start + size - 1),
    each x-subset of its places equally likely. A place holds a relevant item with chance
    x / size; AP's item at the i-th place (from 0) has c + 1 + i (x - 1) / (size - 1)
    relevant items at or above it on average; hit rate and RR read where the first relevant
    item falls, P(first place >= start + m) = C(size - m, x) / C(size, x), when c = 0."""
    groups = start.shape[0]
    if x == 0:
        return np.zeros((groups, found.shape[1]))
    counted, weights, inverse = prefix
    last = len(counted) - 1
    low = np.minimum(np.maximum(start, 1.0) - 1, last).astype(np.int64)
    high = np.minimum(start + size - 1, last).astype(np.int64)
    share = (x / np.maximum(size, 1.0))[:, None]
    if metric in _FIRST_RELEVANT:
        expected = np.zeros(groups)
        survive = np.ones(groups)  # P(the first relevant place is at or after start + m)
        for m in range(int(size.max(initial=0))):
            later = survive * np.maximum(size - m - x, 0.0) / np.maximum(size - m, 1.0)
            place = np.minimum(start + m, last).astype(np.int64)
            at = weights[place] - weights[np.minimum(start + m - 1, last).astype(np.int64)]
            expected += (survive - later) * at
            survive = later
        spread: np.ndarray = np.where(found == 0, expected[:, None], 0.0)
        return spread
    if metric == "average_precision":
        over_place = (inverse[high] - inverse[low])[:, None]
        within = (counted[high] - counted[low])[:, None]
        # The other x - 1 relevant items over the other size - 1 places (none: size 1).
        pair = ((x - 1) / np.maximum(size - 1, 1.0))[:, None]
        above = within - start[:, None] * over_place  # the sum of i / place over the places
        by_count: np.ndarray = share * ((found + 1) * over_place + pair * above)
        return by_count
    placed = share * (weights[high] - weights[low])[:, None]
    return np.broadcast_to(placed, (groups, found.shape[1]))


def _over_rest(
    metric: str, k: int, rest_law: np.ndarray, counts: int, policy: Policy, n_candidates: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(H1, H2) per group and count c: E[h(c + y)] and E[h(c + y)^2] over the count y of
    the relevant items outside the blocks; 1 for the metrics not divided by R."""
    groups = rest_law.shape[0]
    if metric not in _DIVIDED:
        return np.ones((groups, counts)), np.ones((groups, counts))
    return h_over_rest(metric, k, rest_law, counts, policy, n_candidates)


def block_expectations(
    ranked: pl.DataFrame,
    per_item: pl.DataFrame,
    counted: pl.DataFrame,
    keys: list[str],
    item: str,
    groups: pl.DataFrame,
    cells: Sequence[tuple[str, int]],
    read: Sequence[np.ndarray],
    policy: Policy,
    n_candidates: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`block_moments` of `cells` from the evaluation's ranking with its tie blocks
    (`ranked`: keys, item, rank, block), the possibly relevant items (`per_item`: keys, item,
    ``_rk_group``, ``_rk_q``), those that count in R (`counted`) and the evaluated `groups`
    (keys, ``_rk_group``)."""
    largest_k = max(k for _, k in cells)
    q, start, size, law = relevance_blocks(ranked, per_item, counted, keys, item, groups, largest_k)
    return block_moments(q, start, size, law, read, cells, policy, n_candidates)


def blocks_and_rest(
    ranked: pl.DataFrame,
    per_item: pl.DataFrame,
    counted: pl.DataFrame,
    keys: list[str],
    item: str,
    groups: pl.DataFrame,
    depth: int,
    columns: Sequence[str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`block_layout` of `columns` over the blocks starting within `depth`, and the same
    columns of the items that count in R outside them (groups x m x columns, side by side)."""
    ranked = ranked.join(groups.select(*keys, "_rk_group"), on=keys)
    q, start, size = block_layout(ranked, per_item, keys, item, groups.height, depth, columns)
    within = ranked.filter(pl.col("block") <= depth).select(*keys, item)
    rest = counted.join(within, on=[*keys, item], how="anti", maintain_order="left")
    laid = [side_by_side(rest, column, groups.height) for column in columns]
    others = np.stack(laid, axis=2) if laid else np.zeros((groups.height, 0, 0))
    return q, start, size, others


def relevance_blocks(
    ranked: pl.DataFrame,
    per_item: pl.DataFrame,
    counted: pl.DataFrame,
    keys: list[str],
    item: str,
    groups: pl.DataFrame,
    depth: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`blocks_and_rest` of the relevance probabilities, the others as the law of their
    relevant count."""
    common = (ranked, per_item, counted, keys, item, groups, depth, ["_rk_q"])
    q, start, size, others = blocks_and_rest(*common)
    return q[..., 0], start, size, poisson_binomial(others[..., 0])


def _convolved(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The law of the sum of two independent counts, per group (groups x counts each)."""
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    for value in range(b.shape[1]):
        out[:, value : value + a.shape[1]] += a * b[:, value : value + 1]
    return out


def _hits_in_first(x: int, t: int, size: np.ndarray, policy: Policy) -> np.ndarray:
    """How many of a block's x relevant items lie in its first t places (per group): all
    that fit under ``"optimistic"``, those past its other places under ``"pessimistic"``,
    on average x t / size over every order under ``"expected"``."""
    hits: np.ndarray
    if policy.ties == "optimistic":
        hits = np.full(size.shape, float(min(x, t)))
    elif policy.ties == "pessimistic":
        hits = np.maximum(x - (size - t), 0.0)
    else:
        hits = x * t / np.maximum(size, 1.0)
    return hits


def block_r_precision(
    q: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    rest_law: np.ndarray,
    policy: Policy,
    multiple: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[V], E[V^2], P(R = 0)) per group of hits@c / c, c = (long) (`multiple` R + 0.9)
    (R-precision at 1, trec_eval's Rprec_mult), under the policy's tie order. `q`, `start`,
    `size` from `block_layout` (every block starting at or above the deepest cut a group's R
    may give); `rest_law` the law of the relevant count outside them. Where the cut falls in
    block j, at its t-th place, for each R whose cut it is: R = c + x + y (c relevant above
    the block, x in it, y below or unranked: independent laws) and hits = c plus the block's
    relevant items in its first t places; where the cut is past the list, hits is every
    relevant ranked item."""
    groups, blocks, _ = q.shape
    laws = [poisson_binomial(q[:, j, :]) for j in range(blocks)]
    above = [np.ones((groups, 1))]  # above[j]: the count in the blocks before block j
    for law in laws:
        above.append(_convolved(above[-1], law))
    below = [rest_law] * blocks  # below[j]: the count past block j, the unranked included
    for j in range(blocks - 2, -1, -1):
        below[j] = _convolved(below[j + 1], laws[j + 1])
    first, second = np.zeros(groups), np.zeros(groups)

    def add(weight: np.ndarray, value: np.ndarray) -> None:
        nonlocal first, second
        first = first + (weight * value).sum(axis=1)
        second = second + (weight * value * value).sum(axis=1)

    def cut(relevant: np.ndarray) -> np.ndarray:
        """(long) (multiple R + 0.9), as the evaluation reads it."""
        return np.trunc(multiple * relevant + 0.9)

    # The values of R whose cut is one rank r: R from ceil((r - 0.9) / multiple) - 1 on,
    # at most ceil(1 / multiple) + 1 of them (one where the multiple is 1).
    spread = 1 if multiple == 1.0 else math.ceil(1.0 / multiple) + 2
    for j in range(blocks):
        found = np.arange(above[j].shape[1], dtype=np.float64)[None, :]  # c
        rest = below[j]
        for t in range(1, int(size[:, j].max(initial=0)) + 1):
            r = start[:, j] + t - 1  # the rank the cut would be, where the block has a t-th place
            inside = size[:, j] >= t
            lowest = r if multiple == 1.0 else np.ceil((r - 0.9) / multiple) - 1
            for offset in range(spread):
                relevant = lowest + offset
                # R = 0 has no cut (no relevant item): left to `conditioned`.
                its_cut = ((relevant >= 1) & (cut(relevant) == r) & inside)[:, None]
                for x in range(laws[j].shape[1]):
                    y = relevant[:, None] - found - x
                    kept = its_cut & (y >= 0) & (y < rest.shape[1])
                    ways = np.take_along_axis(
                        rest, np.clip(y, 0, rest.shape[1] - 1).astype(np.int64), 1
                    )
                    weight = np.where(kept, above[j] * laws[j][:, x : x + 1] * ways, 0.0)
                    hits = found + _hits_in_first(x, t, size[:, j], policy)[:, None]
                    add(weight, hits / np.maximum(r, 1.0)[:, None])
    # The cut past the list's end: every ranked relevant item is a hit.
    listed = size.sum(axis=1)[:, None]
    ranked_law, count = above[-1], np.arange(above[-1].shape[1], dtype=np.float64)[None, :]
    for unranked in range(rest_law.shape[1]):
        relevant = count + unranked
        past = cut(relevant)  # R itself at a multiple of 1
        chance = ranked_law * rest_law[:, unranked : unranked + 1]
        weight = np.where(past > listed, chance, 0.0)
        add(weight, count / np.maximum(past, 1.0))
    return first, second, ranked_law[:, 0] * rest_law[:, 0]


def block_r_precision_of(
    ranked: pl.DataFrame,
    per_item: pl.DataFrame,
    counted: pl.DataFrame,
    keys: list[str],
    item: str,
    groups: pl.DataFrame,
    depth: int,
    policy: Policy,
    multiples: Sequence[float] = (1.0,),
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """`block_r_precision` at each of `multiples` from the evaluation's ranking with its tie
    blocks, as `block_expectations` reads it, over the blocks starting within `depth` (at
    least the deepest cut a group's R may give: `layout.ranks_read`)."""
    q, start, size, law = relevance_blocks(ranked, per_item, counted, keys, item, groups, depth)
    return [block_r_precision(q, start, size, law, policy, multiple) for multiple in multiples]
