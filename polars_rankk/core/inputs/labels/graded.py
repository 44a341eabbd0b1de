"""nDCG and DCG over graded uncertain labels, exactly, without enumerating the outcomes.

DCG@K is a sum of independent terms, one per rank (the gain of the item's grade times the
rank's discount): its mean and variance are sums over the ranks. nDCG@K divides it by the
ideal DCG@K, which reads the grades of every item that counts in R: ranked at the top, deeper
or not retrieved. The ideal list puts the items of the highest gain first, so IDCG@K depends
only on m_j = min(K, n_1 + ... + n_j), the count of items whose gain is at least the j-th
largest, capped at K. The recursion walks down the ranking carrying, for each state
``m_1 <= ... <= m_G`` (G the distinct positive gains), P(m), E[S; m] and E[S^2; m] (S the DCG
so far, which grows only within K); the items past K and those not retrieved then move the
state alone. E[nDCG] = sum over m of E[S; m] / IDCG(m), and E[nDCG^2] the same with E[S^2; m]
and IDCG(m)^2. The states number C(K + G, G): 286 at K = 10 with three grades; past
`MAX_STATES` the outcomes are enumerated instead (`affordable`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl

from polars_rankk.core.policy import Policy

#: The most states (capped counts per gain level) a recursion carries for one nDCG cut-off.
MAX_STATES = 20_000


def affordable(k: int, levels: int) -> bool:
    """Whether nDCG@`k` over `levels` distinct positive gains has at most `MAX_STATES` (and
    their ideal gains at each rank fit in as many numbers times 20)."""
    states = math.comb(k + levels, levels)
    return states <= MAX_STATES and states * k <= 20 * MAX_STATES


def _log_discount(rank: int) -> float:
    """log2(rank + 1) as the evaluation computes it (ln over ln 2): certain labels then give
    its numbers bit for bit."""
    return math.log(rank + 1) / math.log(2)


def gain_levels(truth: pl.DataFrame, relevance: str, policy: Policy) -> np.ndarray:
    """The distinct positive gains of the relevant grades in `truth`, largest first."""
    from polars_rankk.core.metrics.order import gain_of

    relevant = truth.filter(pl.col(relevance) >= policy.relevance_threshold)
    found = relevant.select(gain_of(pl.col(relevance), policy).unique().alias("gain"))
    gains = found.filter(pl.col("gain") > 0)["gain"].sort(descending=True)
    found_gains: np.ndarray = gains.to_numpy().astype(np.float64)
    return found_gains


def dcg_moments(ranked: np.ndarray, gains: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """E[DCG@k] and E[DCG@k^2] per group: `ranked` is groups x ranks x levels, the
    probability that the item at each rank has each positive gain (`gains`, descending)."""
    p = ranked[:, :k, :]
    mean_gain = p @ gains  # groups x ranks
    mean_square = p @ (gains * gains)
    e1 = np.zeros(p.shape[0])
    variance = np.zeros(p.shape[0])
    # Rank by rank, as the evaluation sums them: certain labels give its numbers bit for bit.
    for rank in range(p.shape[1]):
        log = _log_discount(rank + 1)
        e1 += mean_gain[:, rank] / log
        spread = mean_square[:, rank] - mean_gain[:, rank] * mean_gain[:, rank]
        variance += spread / (log * log)
    return e1, variance + e1 * e1


def ndcg_moments(
    ranked: np.ndarray, rest: np.ndarray, gains: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[nDCG@k], E[nDCG@k^2], P(no item relevant)) per group, nDCG 0 where no item is.

    `ranked`: groups x ranks x levels, the probability that the item at each rank (to k at
    least, 0 past a list's end) has each positive gain of `gains` (descending); `rest`:
    groups x m x levels, the same for the items that count in R outside the first k ranks."""
    levels = len(gains)
    states = _states(k, levels)
    index = {state: position for position, state in enumerate(states)}
    moves = [_moves(states, index, level, k) for level in range(levels)]
    ideal = _ideal(states, gains, k)
    groups = ranked.shape[0]
    law = np.zeros((groups, len(states)))
    law[:, 0] = 1.0
    total = np.zeros_like(law)
    square = np.zeros_like(law)
    # Each rank's log discount within k (None past it: the sum no longer grows).
    walk: list[tuple[np.ndarray, float | None]] = [
        (ranked[:, rank, :], _log_discount(rank + 1) if rank < k else None)
        for rank in range(ranked.shape[1])
    ]
    walk += [(rest[:, j, :], None) for j in range(rest.shape[1])]
    for p, log in walk:
        stay = 1 - p.sum(axis=1, keepdims=True)
        new_law, new_total, new_square = law * stay, total * stay, square * stay
        for level, (sources, targets) in enumerate(moves):
            q = p[:, level : level + 1]
            a = 0.0 if log is None else gains[level] / log
            from_law = law[:, sources] * q
            from_total = total[:, sources] * q
            up_total = from_total + a * from_law
            up_square = square[:, sources] * q + a * (2 * from_total + a * from_law)
            _scatter(new_law, targets, from_law)
            _scatter(new_total, targets, up_total)
            _scatter(new_square, targets, up_square)
        law, total, square = new_law, new_total, new_square
    scale = np.where(ideal > 0, 1.0 / np.where(ideal > 0, ideal, 1.0), 0.0)
    return total @ scale, square @ (scale * scale), law[:, 0]


def _states(k: int, levels: int) -> list[tuple[int, ...]]:
    """Every ``m_1 <= ... <= m_levels`` in 0..k, the empty state (all 0) first."""
    return list(itertools.combinations_with_replacement(range(k + 1), levels))


def _moves(
    states: list[tuple[int, ...]], index: dict[tuple[int, ...], int], level: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(sources, targets): an item of gain level `level` moves each state to the one with
    m_j + 1 (capped at k) for every j >= level; ``targets`` sorted, for `_scatter`."""
    targets = np.array(
        [
            index[tuple(m if j < level else min(k, m + 1) for j, m in enumerate(state))]
            for state in states
        ]
    )
    order = np.argsort(targets, kind="stable")
    return order, targets[order]


def _scatter(out: np.ndarray, targets: np.ndarray, values: np.ndarray) -> None:
    """``out[:, t] += sum of values[:, i] where targets[i] == t`` (`targets` sorted)."""
    starts = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
    out[:, targets[starts]] += np.add.reduceat(values, starts, axis=1)


def _ideal(states: list[tuple[int, ...]], gains: np.ndarray, k: int) -> np.ndarray:
    """IDCG@k of each state: ranks m_{j-1} + 1 .. m_j hold gain level j, summed rank by rank
    as the evaluation sums them."""
    bounds = np.array(states, dtype=np.int64).reshape(len(states), -1)
    rank = np.arange(1, k + 1)
    # The level at each rank: how many bounds lie below it (past the last bound, no gain).
    level = (bounds[:, :, None] < rank[None, None, :]).sum(axis=1)
    held = np.append(gains, 0.0)[level]  # states x k
    logs = np.array([_log_discount(int(r)) for r in rank])
    ideal: np.ndarray = np.zeros(len(states))
    for position in range(k):
        ideal = ideal + held[:, position] / logs[position]
    return ideal
