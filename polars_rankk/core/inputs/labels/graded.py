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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.laws import (
    conditioned,
    count_moments,
    first_relevant_moments,
    hit_rank_of,
    poisson_binomial,
    precision_denominator,
)
from polars_rankk.core.policy import Policy

#: The most states (capped counts per gain level) a recursion carries for one nDCG cut-off.
MAX_STATES = 20_000


def affordable(k: int, levels: int) -> bool:
    """Whether nDCG@`k` over `levels` distinct positive gains has at most `MAX_STATES` (and
    their ideal gains at each rank fit in as many numbers times 20)."""
    states = math.comb(k + levels, levels)
    return states <= MAX_STATES and states * k <= 20 * MAX_STATES


def log_discount(rank: int) -> float:
    """log2(rank + 1) as the evaluation computes it (ln over ln 2): certain labels then give
    its numbers bit for bit."""
    return math.log(rank + 1) / math.log(2)


def gain_levels(
    truth: pl.DataFrame, relevance: str, policy: Policy, below: bool = False
) -> np.ndarray:
    """The distinct positive gains of the relevant grades in `truth` (of the positive grades
    below the threshold where `below`), largest first."""
    from polars_rankk.core.metrics.order import gain_of

    grade, threshold = pl.col(relevance), policy.relevance_threshold
    relevant = truth.filter((grade > 0) & (grade < threshold) if below else grade >= threshold)
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
        log = log_discount(rank + 1)
        e1 += mean_gain[:, rank] / log
        spread = mean_square[:, rank] - mean_gain[:, rank] * mean_gain[:, rank]
        variance += spread / (log * log)
    return e1, variance + e1 * e1


#: The numbers (states x groups) one block of groups carries through the walk: a few MB per
#: array, so that a walk step's gathers and sums stay in the cache.
_BLOCK_NUMBERS = 1 << 18


def ndcg_moments(
    ranked: np.ndarray, rest: np.ndarray, gains: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[nDCG@k], E[nDCG@k^2], P(no item relevant)) per group, nDCG 0 where no item is.

    `ranked`: groups x ranks x levels, the probability that the item at each rank (to k at
    least, 0 past a list's end) has each positive gain of `gains` (descending); `rest`:
    groups x m x levels, the same for the items that count in R outside the first k ranks."""
    levels = len(gains)
    states = nested_states(k, levels)
    index = {state: position for position, state in enumerate(states)}
    moves = [level_moves(states, index, level, k) for level in range(levels)]
    scale = ideal_dcg(states, gains, k)
    scale = np.where(scale > 0, 1.0 / np.where(scale > 0, scale, 1.0), 0.0)
    # Each rank's log discount within k (infinite past it: the sum no longer grows).
    logs = np.array([log_discount(r + 1) if r < k else np.inf for r in range(ranked.shape[1])])
    logs = np.concatenate([logs, np.full(rest.shape[1], np.inf)])
    every = np.concatenate([ranked, rest], axis=1)
    # An item that cannot be relevant moves no state: each group walks only the others, in
    # rank order (a group with fewer walks items of no mass at the end).
    possible = every.sum(axis=2) > 0
    walked = int(possible.sum(axis=1).max(initial=0))
    order = np.argsort(~possible, axis=1, kind="stable")[:, :walked]
    items = np.take_along_axis(every, order[:, :, None], axis=1)
    item_logs = logs[order]
    groups = ranked.shape[0]
    found = (np.empty(groups), np.empty(groups), np.empty(groups))
    block = max(1, _BLOCK_NUMBERS // len(states))
    for start in range(0, groups, block):
        chunk = slice(start, start + block)
        moments = _walk(items[chunk], item_logs[chunk], gains, moves, len(states), scale)
        for out, values in zip(found, moments, strict=True):
            out[chunk] = values
    return found


def _walk(
    items: np.ndarray,
    item_logs: np.ndarray,
    gains: np.ndarray,
    moves: list[tuple[np.ndarray, np.ndarray]],
    n_states: int,
    scale: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`ndcg_moments` of one block of groups: the walk over their items (groups x items x
    levels, with each item's log discount), the state laws carried as states x groups."""
    groups = items.shape[0]
    # States x groups: a state's row of every group is contiguous, for the gathers and sums.
    law = np.zeros((n_states, groups))
    law[0] = 1.0
    total = np.zeros_like(law)
    square = np.zeros_like(law)
    for j in range(items.shape[1]):
        p = items[:, j, :].T  # levels x groups
        log = item_logs[None, :, j]
        stay = 1 - p.sum(axis=0, keepdims=True)
        new_law, new_total, new_square = law * stay, total * stay, square * stay
        for level, (sources, targets) in enumerate(moves):
            q = p[level : level + 1]
            a = gains[level] / log  # per group: 0 past k
            from_law = law[sources] * q
            from_total = total[sources] * q
            up_total = from_total + a * from_law
            up_square = square[sources] * q + a * (2 * from_total + a * from_law)
            scatter_sorted(new_law, targets, from_law)
            scatter_sorted(new_total, targets, up_total)
            scatter_sorted(new_square, targets, up_square)
        law, total, square = new_law, new_total, new_square
    return scale @ total, (scale * scale) @ square, law[0]


def nested_states(k: int, levels: int) -> list[tuple[int, ...]]:
    """Every ``m_1 <= ... <= m_levels`` in 0..k, the empty state (all 0) first."""
    return list(itertools.combinations_with_replacement(range(k + 1), levels))


def level_moves(
    states: list[tuple[int, ...]], index: dict[tuple[int, ...], int], level: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(sources, targets): an item of gain level `level` moves each state to the one with
    m_j + 1 (capped at k) for every j >= level; ``targets`` sorted, for `scatter_sorted`."""
    targets = np.array(
        [
            index[tuple(m if j < level else min(k, m + 1) for j, m in enumerate(state))]
            for state in states
        ]
    )
    order = np.argsort(targets, kind="stable")
    return order, targets[order]


def scatter_sorted(out: np.ndarray, targets: np.ndarray, values: np.ndarray) -> None:
    """``out[t] += sum of values[i] where targets[i] == t`` (`targets` sorted). A target that
    one row reaches takes it by an indexed add; those several rows reach take their rows'
    sums (`reduceat`, in row order): the same numbers as one `reduceat` over every row, at a
    fraction of its cost (most moves reach distinct states)."""
    if not targets.size:
        return
    first = np.r_[True, targets[1:] != targets[:-1]]
    alone = first & np.r_[first[1:], True]
    out[targets[alone]] += values[alone]
    if not alone.all():
        shared = ~alone
        reached, summed = targets[shared], values[shared]
        starts = np.flatnonzero(np.r_[True, reached[1:] != reached[:-1]])
        out[reached[starts]] += np.add.reduceat(summed, starts, axis=0)


def ideal_dcg(states: list[tuple[int, ...]], gains: np.ndarray, k: int) -> np.ndarray:
    """IDCG@k of each state: ranks m_{j-1} + 1 .. m_j hold gain level j, summed rank by rank
    as the evaluation sums them."""
    bounds = np.array(states, dtype=np.int64).reshape(len(states), -1)
    rank = np.arange(1, k + 1)
    # The level at each rank: how many bounds lie below it (past the last bound, no gain).
    level = (bounds[:, :, None] < rank[None, None, :]).sum(axis=1)
    held = np.append(gains, 0.0)[level]  # states x k
    logs = np.array([log_discount(int(r)) for r in rank])
    ideal: np.ndarray = np.zeros(len(states))
    for position in range(k):
        ideal = ideal + held[:, position] / logs[position]
    return ideal


def err_moments(
    stop: np.ndarray, stop_squared: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """E[ERR@k] and E[ERR@k^2] per group: `stop` and `stop_squared` are groups x ranks, the
    expectations of s and s^2 at each rank, s = (2^g - 1) / 2^g_max the chance that the user
    stops there. ERR = sum over ranks j of (1/j) s_j S_{j-1}, S the chance of reaching rank
    j + 1 (the product of the 1 - s above); the items are independent, so a walk down the
    ranks carries E[X], E[X^2], E[X S], E[S] and E[S^2] (X the sum so far): exact."""
    groups = stop.shape[0]
    total, square, joint = np.zeros(groups), np.zeros(groups), np.zeros(groups)
    reach, reach_squared = np.ones(groups), np.ones(groups)
    for rank in range(1, min(k, stop.shape[1]) + 1):
        s1, s2 = stop[:, rank - 1], stop_squared[:, rank - 1]
        a = 1.0 / rank
        # X' = X + a s S and S' = S (1 - s), s independent of (X, S).
        square = square + 2 * a * s1 * joint + a * a * s2 * reach_squared
        joint = joint * (1 - s1) + a * (s1 - s2) * reach_squared
        total = total + a * s1 * reach
        reach = reach * (1 - s1)
        reach_squared = reach_squared * (1 - 2 * s1 + s2)
    return total, square


def f_beta_moments(
    within: np.ndarray, beyond: np.ndarray, denominator: np.ndarray, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """E[F@k] and E[F@k^2] per group: hits@k (the Poisson-binomial count of `within`, the
    relevance probabilities of ranks 1..k) and the relevant items beyond k (`beyond`: ranked
    deeper or never) are independent, and F reads only them and the precision `denominator`
    (K or min(K, n), per group). Each (hits, R) pair's F is computed as the evaluation
    computes it, so certain labels give its number exactly."""
    from polars_rankk.core.inputs.labels.laws import count_moments

    weight = beta * beta
    below = denominator[:, None]

    def f_beta(hits: np.ndarray, y: int) -> np.ndarray:
        precision = np.where(below > 0, hits / np.where(below > 0, below, 1.0), 0.0)
        relevant = hits + y
        recall = np.where(relevant > 0, hits / np.maximum(relevant, 1.0), 0.0)
        numerator = (1.0 + weight) * precision * recall
        sum_of = weight * precision + recall
        return np.where(sum_of > 0, numerator / np.where(sum_of > 0, sum_of, 1.0), 0.0)

    return count_moments(within, beyond, f_beta)


#: One cell's (metric, k, mean, std) per group.
Cell = tuple[str, int | None, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Gains:
    """The items' laws over the gain levels, laid out as the recursion reads them: `levels`
    (largest first), which are relevant grades' (`relevant`), each level's chances (ranked,
    others) and the relevance chances (ranked, others) in the same layout."""

    levels: np.ndarray
    relevant: np.ndarray
    by_level: Sequence[tuple[np.ndarray, np.ndarray]]
    q: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Stops:
    """ERR's stopping chances at each rank: the moments of s (mean, square) and their parts
    from the grades below the threshold (`below`), with the ranks' relevance chances `q`."""

    moments: tuple[np.ndarray, np.ndarray]
    below: tuple[np.ndarray, np.ndarray]
    q: np.ndarray


def given_none(chances: np.ndarray, q: np.ndarray) -> np.ndarray:
    """An item's chances (items x ... , last axis or not) given that no item is relevant:
    its mass below the threshold over 1 - q (0 where it is surely relevant: then no outcome
    has none)."""
    scale = np.where(q < 1, 1.0 / np.where(q < 1, 1 - q, 1.0), 0.0)
    given: np.ndarray = chances * (scale[..., None] if chances.ndim > q.ndim else scale)
    return given


def graded_cells(
    cells: Sequence[tuple[str, int]], gains: Gains, none: np.ndarray, policy: Policy
) -> list[Cell]:
    """(metric, k, mean, std) of nDCG and DCG `cells` over graded labels. A grade below the
    threshold gains without being relevant, so an outcome without a relevant item may still
    gain: where such outcomes are left out (``empty_truth="exclude"``), V = M 1(R > 0) has
    E[V] = E[M] - P(R = 0) E[M | R = 0] (the same for M^2), the items given R = 0 still
    independent, each at its grades below the threshold; kept (``"zero"``), they score M."""
    ranked = np.stack([r for r, _ in gains.by_level], axis=2)
    rest = np.stack([r for _, r in gains.by_level], axis=2)
    below = not gains.relevant.all() and policy.empty_truth == "exclude"
    if below:  # each item's law given that none is relevant
        keep = np.where(gains.relevant, 0.0, 1.0)
        ranked_none = given_none(ranked * keep, gains.q[0])
        rest_none = given_none(rest * keep, gains.q[1])
    found: list[Cell] = []
    for metric, k in cells:
        none_g = none
        if metric == "dcg":
            e1, e2 = dcg_moments(ranked, gains.levels, k)
            if below:
                n1, n2 = dcg_moments(ranked_none, gains.levels, k)
                e1, e2 = e1 - none * n1, e2 - none * n2
        else:
            e1, e2, none_g = ndcg_moments(ranked, rest, gains.levels, k)
            if not gains.relevant.all():  # P(no item gains) is not P(R = 0)
                none_g = none
            if below:
                n1, n2, _ = ndcg_moments(ranked_none, rest_none, gains.levels, k)
                e1, e2 = e1 - none * n1, e2 - none * n2
        found.append((metric, k, *conditioned(e1, e2, none_g, policy)))
    return found


def closed_forms(
    listed: list[tuple[str, int]],
    ranked_q: np.ndarray,
    rest_q: np.ndarray,
    stops: Stops,
    none: np.ndarray,
    n_list: np.ndarray,
    policy: Policy,
    grade: np.ndarray | None = None,
) -> tuple[list[tuple[str, int]], list[Cell]]:
    """The cells of `listed` with a closed form of their own — ERR (its stopping chances
    `stops`), F-beta, HitRank, relative precision and Q-measure (each group's relevant
    `grade`) where the ranking is fixed — as (metric, k, mean, std), read as the
    empty-truth policy reads P(R = 0) (`none`), and the cells left for the recursion. ERR
    given R = 0 reads the stopping chances below the threshold alone (`graded_cells`)."""
    from polars_rankk.core.inputs.labels.tie_blocks import BLOCK_TIES

    frames: list[Cell] = []
    left = []
    below = bool(stops.below[0].any()) and policy.empty_truth == "exclude"
    for metric, k in listed:
        if metric == "err" and policy.ties not in BLOCK_TIES:
            e1, e2 = err_moments(*stops.moments, k)
            if below:
                given = (given_none(stops.below[0], stops.q), given_none(stops.below[1], stops.q))
                n1, n2 = err_moments(*given, k)
                e1, e2 = e1 - none * n1, e2 - none * n2
        elif metric == "hit_rank" and policy.ties not in BLOCK_TIES:
            # K + 1 - W, W = K + 1 - the first relevant rank within K (0 where none is): the
            # first relevant rank's law, as RR's; R = 0 scores K + 1 (W = 0) where it counts.
            missed = (k + 1.0) - np.arange(1, min(k, ranked_q.shape[1]) + 1, dtype=np.float64)
            w1, w2 = first_relevant_moments(ranked_q[:, :k], missed)
            mean, spread = conditioned(w1, w2, none, policy)
            frames.append((metric, k, hit_rank_of(k, mean), spread))
            continue
        elif metric == "q_measure" and policy.ties not in BLOCK_TIES and grade is not None:
            e1, e2 = q_measure_moments(ranked_q, rest_q, grade, k, policy)
        elif metric == "relative_precision" and policy.ties not in BLOCK_TIES:
            # hits@K / min(K, R): hits@K and the relevant items past K, independent counts.
            beyond = np.hstack([ranked_q[:, k:], rest_q])
            e1, e2 = count_moments(ranked_q[:, :k], beyond, partial(_relative, k))
        elif metric == "f1" and policy.ties not in BLOCK_TIES:
            denominator = precision_denominator(k, n_list, policy)
            beyond = np.hstack([ranked_q[:, k:], rest_q])
            e1, e2 = f_beta_moments(ranked_q[:, :k], beyond, denominator, float(policy.f_beta))
        else:
            left.append((metric, k))
            continue
        frames.append((metric, k, *conditioned(e1, e2, none, policy)))
    return left, frames


#: The most numbers (groups x possible R x counts) one block of groups carries through
#: Q-measure's walk.
Q_NUMBERS = 1 << 21


def q_measure_moments(
    ranked_q: np.ndarray, rest_q: np.ndarray, grade: np.ndarray, k: int, policy: Policy
) -> tuple[np.ndarray, np.ndarray]:
    """E[Q@k] and E[Q@k^2] per group (0 where R = 0), each group's relevant items of one grade
    g (`grade`): the c-th relevant item at rank j <= k adds c (1 + b g) / (j + b g min(j, R))
    (cg = g C, the ideal's cg* = g min(j, R)), so the sum reads R at every step. The walk down
    the first k ranks carries, for each count c found and each value rho R may take, P(c),
    E[S_rho; c] and E[S_rho^2; c]; the items past k add y, independent, and R = c + y reads
    S_(c + y) / R (or / min(k, R): ``ap_denominator``)."""
    top = ranked_q[:, :k]
    beyond = poisson_binomial(np.hstack([ranked_q[:, k:], rest_q]))
    groups, width = top.shape
    values = width + beyond.shape[1]  # rho = 0 .. width + the most items past k
    block = max(1, Q_NUMBERS // (values * (width + 1)))
    e1, e2 = np.zeros(groups), np.zeros(groups)
    for at in range(0, groups, block):  # blocks of groups: the state stays a few MB
        part = slice(at, at + block)
        first, second = _q_walk(top[part], beyond[part], grade[part], k, values, policy)
        e1[part], e2[part] = first, second
    return e1, e2


def _q_walk(
    top: np.ndarray, beyond: np.ndarray, grade: np.ndarray, k: int, values: int, policy: Policy
) -> tuple[np.ndarray, np.ndarray]:
    """`q_measure_moments` of one block of groups."""
    groups, width = top.shape
    weight = (float(policy.q_beta) * np.maximum(grade, 0.0))[:, None, None]  # b g
    rho = np.arange(values, dtype=np.float64)[None, :, None]
    law = np.zeros((groups, 1, width + 1))
    law[:, :, 0] = 1.0
    total = np.zeros((groups, values, width + 1))
    square = np.zeros((groups, values, width + 1))
    for rank in range(1, width + 1):
        q = top[:, rank - 1][:, None, None]
        below = law[:, :, :rank]
        counts = np.arange(1, rank + 1, dtype=np.float64)[None, None, :]
        a = counts * (1 + weight) / (rank + weight * np.minimum(rank, rho))
        total_before, square_before = total[:, :, :rank], square[:, :, :rank]
        up_square = (square_before + a * (2 * total_before + a * below)) * q
        up_total = (total_before + a * below) * q
        moved = below * q  # before the law below is scaled (`below` is a view of it)
        for state in (square, total):
            state[:, :, 1 : rank + 1] *= 1 - q
            state[:, :, :1] *= 1 - q
        square[:, :, 1 : rank + 1] += up_square
        total[:, :, 1 : rank + 1] += up_total
        law[:, :, : rank + 1] *= 1 - q
        law[:, :, 1 : rank + 1] += moved
    found = np.arange(width + 1)
    e1, e2 = np.zeros(groups), np.zeros(groups)
    for y in range(beyond.shape[1]):
        r = found + y  # R = c + y
        over = np.where(r > 0, 1.0 / np.maximum(r if policy.ap_denominator == "relevant"
                                                else np.minimum(r, k), 1), 0.0)  # fmt: skip
        chance = beyond[:, y : y + 1]
        e1 += (chance * total[:, r, found] * over).sum(axis=1)
        e2 += (chance * square[:, r, found] * (over * over)).sum(axis=1)
    return e1, e2


def _relative(k: int, hits: np.ndarray, y: int) -> np.ndarray:
    """Relative precision@k of hits@k and y relevant items past k: hits / min(k, R), 0 where
    R = 0 (`count_moments`' value)."""
    most = np.minimum(float(k), hits + y)
    value: np.ndarray = np.where(most > 0, hits / np.maximum(most, 1.0), 0.0)
    return value
