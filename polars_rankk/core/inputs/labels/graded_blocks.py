"""nDCG, DCG and ERR of several relevant grades over tie blocks whose order the labels decide
(or that are averaged over their orders), exactly, without enumerating the outcomes.

Under ``ties="optimistic"`` a block of equal scores lists its items by grade, highest first
(``"pessimistic"``: lowest first, so the relevant ones come last), so what a block adds depends
only on x = (x_1 <= ... <= x_L), x_l the number of its items at or above the l-th highest
relevant grade. Its law is a recursion over the block's items on these nested counts, as
`graded` counts the whole list's (the items independent, each at one grade or none). Given x:

- DCG: the x_l items at or above grade l take the block's first x_l places (its last x_l under
  "pessimistic"), so the block adds the sum over l of (g_l - g_{l+1}) D(x_l), D(n) the sum of
  those places' discounts within K (g_{L+1} = 0, the gains falling with the grade); under
  ``"expected"`` (the mean over every order of the block) each item takes the mean discount
  of the block's places, D(n) = n times it;
- ERR: the block's relevant items in that order add A(x), the sum of s / place times the chance
  of reaching the item from the block's top, and pass the user on with chance B(x), the product
  of their 1 - s.

The blocks hold different items, so what they add is independent: DCG's mean and variance are
sums over the blocks; ERR walks the blocks carrying E[X], E[X^2], E[X S], E[S] and E[S^2] (X the
sum so far, S the chance of reaching the next block), as `graded.err_moments` walks ranks; nDCG
walks them carrying, for each state m of capped counts over the whole list (`graded`), P(m),
E[S; m] and E[S^2; m]: a block moves m to min(K, m + x) and adds C(x); the items that count in
R outside the blocks move m alone. A block's states number C(w + L, L) (w its items that may be
relevant, at most K under "optimistic", where the places past K add nothing): `affordable`
bounds them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.graded import (
    MAX_STATES,
    Q_NUMBERS,
    given_none,
    ideal_dcg,
    level_moves,
    log_discount,
    nested_states,
    scatter_sorted,
)
from polars_rankk.core.inputs.labels.graded import (
    affordable as ndcg_affordable,
)
from polars_rankk.core.inputs.labels.laws import poisson_binomial
from polars_rankk.core.inputs.labels.tie_blocks import first_place
from polars_rankk.core.policy import Policy

#: The metrics this module computes where a group's relevant items may differ in grade.
GRADED_BLOCK_METRICS = frozenset({"dcg", "ndcg", "err", "rbp"})
#: One cell's (metric, k, E[V], E[V^2], P(no item relevant)) per group.
BlockMoments = tuple[str, int, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Grades:
    """The positive grades the labels may take, highest first: each one's gain (DCG, nDCG),
    ERR's chance of stopping at an item of that grade, what RBP counts for it and whether it
    is relevant (a grade below the threshold gains without being so)."""

    gains: np.ndarray
    stops: np.ndarray
    rbp: np.ndarray
    relevant: np.ndarray


def grades_of(grades: Sequence[float], policy: Policy) -> Grades:
    """The `Grades` of `grades` (highest first), each read as the evaluation reads it."""
    from polars_rankk.core.metrics.order import gain_of, rbp_gain
    from polars_rankk.core.metrics.terms import err_stop

    grade = pl.col("grade")
    read = pl.DataFrame({"grade": list(grades)}, schema={"grade": pl.Float64}).select(
        gain_of(grade, policy).alias("gain"),
        err_stop(grade, policy).alias("stop"),
        rbp_gain(grade, policy).alias("rbp"),
    )
    relevant = np.asarray(grades, dtype=np.float64) >= policy.relevance_threshold
    gains, stops, rbp = (read[column].to_numpy() for column in ("gain", "stop", "rbp"))
    return Grades(gains, stops, rbp, relevant)


def by_grade_counts(metric: str, one_grade: bool, policy: Policy) -> bool:
    """Whether a cell over tie blocks reads the blocks' counts per grade: nDCG, DCG and ERR
    where a group's positive grades may differ (`one_grade` False: several relevant grades,
    or one below the threshold), RBP where it weighs ranks by grade."""
    if metric == "rbp":
        return policy.rbp_grades == "graded"
    return metric in GRADED_BLOCK_METRICS and not one_grade


def affordable(metric: str, k: int, grades: int, most_possible: int, ties: str) -> bool:
    """Whether `metric`@`k` over tie blocks of `grades` relevant grades, a group finding at
    most `most_possible` items relevant, has few enough states (`graded.MAX_STATES`)."""
    block = math.comb(_cap(most_possible, k, ties) + grades, grades)
    if block > MAX_STATES or block * max(most_possible, 1) > 20 * MAX_STATES:
        return False
    return metric != "ndcg" or ndcg_affordable(k, grades)


def _cap(width: int, k: int, ties: str) -> int:
    """The count a block's law carries each grade's count to: past K the places add nothing
    under "optimistic"; the others read where the last items fall, or every count."""
    return min(width, k) if ties == "optimistic" else width


def graded_block_moments(
    q: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    rest: np.ndarray,
    cells: Sequence[tuple[str, int]],
    grades: Grades,
    policy: Policy,
) -> list[BlockMoments]:
    """(metric, k, E[V], E[V^2], P(no item relevant)) per cell of `cells` (DCG, nDCG, ERR,
    RBP).

    `q`: groups x blocks x width x grades, each item's chance of each grade, block by block
    (those starting within the largest K; `tie_blocks.blocks_and_rest`); `start`, `size`:
    groups x blocks; `rest`: groups x m x grades, the same for the items that count in R
    outside those blocks. A grade below the threshold gains (and may stop the user) without
    making R > 0: where the outcomes without a relevant item are left out, V = M 1(R > 0) is
    read as E[M] - P(R = 0) E[M | R = 0], the items given R = 0 at their grades below it."""
    groups = q.shape[0]
    relevant = np.where(grades.relevant, 1.0, 0.0)
    q_relevant, rest_relevant = (q * relevant).sum(axis=3), (rest * relevant).sum(axis=2)
    none = np.prod(1 - q_relevant, axis=(1, 2)) * np.prod(1 - rest_relevant, axis=1)
    given = None
    if not grades.relevant.all() and policy.empty_truth == "exclude":
        given = (
            given_none(q * (1 - relevant), q_relevant),
            given_none(rest * (1 - relevant), rest_relevant),
        )
    largest_k = max(k for _, k in cells)
    widths = [int((q[:, j].sum(axis=2) > 0).sum(axis=1).max(initial=0)) for j in range(q.shape[1])]
    most = max([math.comb(_cap(w, largest_k, policy.ties) + q.shape[3], q.shape[3]) for w in widths]
               + [math.comb(k + q.shape[3], q.shape[3]) for _, k in cells])  # fmt: skip
    chunk = max(1, (1 << 18) // most)
    found = [(m, k, np.empty(groups), np.empty(groups), none) for m, k in cells]
    for first in range(0, groups, chunk):
        part = slice(first, first + chunk)
        between = (start[part], size[part])
        read = _Blocks(between, widths, largest_k, grades, policy)
        moments = read.moments(q[part], rest[part], cells)
        if given is not None:
            without = read.moments(given[0][part], given[1][part], cells)
            moments = [(e1 - none[part] * n1, e2 - none[part] * n2)
                       for (e1, e2), (n1, n2) in zip(moments, without, strict=True)]  # fmt: skip
        for (_, _, e1, e2, _), (m1, m2) in zip(found, moments, strict=True):
            e1[part], e2[part] = m1, m2
    return found


@dataclass(frozen=True)
class _Blocks:
    """One chunk of groups' tie blocks (`between`: start and size), read to the largest K."""

    between: tuple[np.ndarray, np.ndarray]
    widths: list[int]
    largest_k: int
    grades: Grades
    policy: Policy

    def moments(
        self, q: np.ndarray, rest: np.ndarray, cells: Sequence[tuple[str, int]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """E[M] and E[M^2] per cell, the items at the grades' chances `q` (and `rest`)."""
        ties = self.policy.ties
        laws = [
            _block_law(q[:, j, : self.widths[j]], _cap(self.widths[j], self.largest_k, ties))
            for j in range(q.shape[1])
        ]
        found = []
        for metric, k in cells:
            if metric == "err":
                found.append(_err(laws, self.between, self.grades, k, ties))
                continue
            weighed = _Weighed.of(metric, self.grades, k, self.policy)
            if metric in ("dcg", "rbp"):
                found.append(_dcg(laws, self.between, weighed))
            else:
                e1, e2, _ = _ndcg(laws, self.between, rest, self.grades, weighed)
                found.append((e1, e2))
        return found


def _block_law(q: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """(counts: states x grades, each state's nested counts; law: states x groups) of one
    block's items (`q`: groups x width x grades), each count capped at `cap`."""
    grades = q.shape[2]
    states = nested_states(cap, grades)
    index = {state: position for position, state in enumerate(states)}
    moves = [level_moves(states, index, level, cap) for level in range(grades)]
    law = np.zeros((len(states), q.shape[0]))
    law[0] = 1.0
    for t in range(q.shape[1]):
        p = q[:, t, :].T  # grades x groups
        new_law = law * (1 - p.sum(axis=0, keepdims=True))
        for level, (sources, targets) in enumerate(moves):
            scatter_sorted(new_law, targets, law[sources] * p[level : level + 1])
        law = new_law
    counts = np.array(states, dtype=np.int64).reshape(len(states), grades)
    return counts, law


@dataclass(frozen=True)
class _Weighed:
    """A sum over the places within K of a weight times what the item's grade counts (DCG's
    discount times its gain, RBP's (1 - p) p^(place - 1) times its grade): the prefix sums of
    the places' weights (index n: places 1..n) and the steps between the grades' counts."""

    prefix: np.ndarray
    steps: np.ndarray
    k: int
    ties: str

    @classmethod
    def of(cls, metric: str, grades: Grades, k: int, policy: Policy) -> _Weighed:
        places = range(1, k + 1)
        if metric == "rbp":
            p = policy.rbp_persistence
            weights, counted = [(1 - p) * p ** (r - 1) for r in places], grades.rbp
        else:
            weights, counted = [1.0 / log_discount(r) for r in places], grades.gains
        prefix = np.concatenate([[0.0], np.cumsum(weights)])
        return cls(prefix, counted - np.append(counted[1:], 0.0), k, policy.ties)

    def placed(self, between: tuple[np.ndarray, np.ndarray], n: np.ndarray) -> np.ndarray:
        """D(n), states x groups: the weights within K of the places the block's n items at
        or above a grade take (its first n, its last n, or n mean places under "expected")."""
        start, size = (side[None, :] for side in between)
        count = n[:, None].astype(np.float64)

        def upto(place: np.ndarray) -> np.ndarray:
            taken: np.ndarray = self.prefix[np.clip(place, 0, self.k).astype(np.int64)]
            return taken

        placed: np.ndarray
        if self.ties == "optimistic":
            placed = upto(start + count - 1) - upto(start - 1)
        elif self.ties == "pessimistic":
            placed = upto(start + size - 1) - upto(start + size - 1 - count)
        else:
            placed = count * (upto(start + size - 1) - upto(start - 1)) / np.maximum(size, 1.0)
        return placed

    def added(self, counts: np.ndarray, between: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """C(x), states x groups: what a block adds in each state of its counts."""
        added = np.zeros((counts.shape[0], between[0].shape[0]))
        for level in range(counts.shape[1]):
            if self.steps[level] != 0.0:
                added += self.steps[level] * self.placed(between, counts[:, level])
        return added


def _dcg(laws: list[tuple[np.ndarray, np.ndarray]], between: tuple[np.ndarray, np.ndarray],
         weighed: _Weighed) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """E[V] and E[V^2] per group of DCG@k or RBP@k: the blocks add independently."""
    groups = between[0].shape[0]
    mean, variance = np.zeros(groups), np.zeros(groups)
    for j, (counts, law) in enumerate(laws):
        added = weighed.added(counts, (between[0][:, j], between[1][:, j]))
        first = (law * added).sum(axis=0)
        mean += first
        variance += (law * added * added).sum(axis=0) - first * first
    return mean, variance + mean * mean


def _err(laws: list[tuple[np.ndarray, np.ndarray]], between: tuple[np.ndarray, np.ndarray],
         grades: Grades, k: int, ties: str) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """E[ERR@k] and E[ERR@k^2] per group, walking the blocks (X' = X + S A, S' = S B, the
    block's (A, B) independent of what came before)."""
    groups = between[0].shape[0]
    total, square, joint = np.zeros(groups), np.zeros(groups), np.zeros(groups)
    reach, reach_squared = np.ones(groups), np.ones(groups)
    for j, (counts, law) in enumerate(laws):
        a, b = _err_block(counts, between[0][:, j], between[1][:, j], grades, k, ties)
        ea, ea2 = (law * a).sum(axis=0), (law * a * a).sum(axis=0)
        eb, eb2, eab = (law * b).sum(axis=0), (law * b * b).sum(axis=0), (law * a * b).sum(axis=0)
        square = square + 2 * joint * ea + reach_squared * ea2
        joint = joint * eb + reach_squared * eab
        total = total + reach * ea
        reach, reach_squared = reach * eb, reach_squared * eb2
    return total, square


def _err_block(counts: np.ndarray, start: np.ndarray, size: np.ndarray, grades: Grades,
               k: int, ties: str) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(A, B), states x groups: ERR's sum within a block from its top, and the chance of
    passing it, in each state of its counts (the relevant items in grade order)."""
    relevant = counts[:, -1]  # every relevant item is at or above the lowest grade
    a = np.zeros((counts.shape[0], start.shape[0]))
    passing = np.ones((counts.shape[0], 1))
    for i in range(int(relevant.max(initial=0))):
        # The i-th relevant item from the block's top: highest grades first ("optimistic"),
        # lowest first after the others ("pessimistic"); its grade level counts the levels
        # whose items all lie before it.
        at = i if ties == "optimistic" else relevant - 1 - i
        level = (counts <= np.reshape(at, (-1, 1))).sum(axis=1)
        present = i < relevant
        stop = np.where(present, grades.stops[np.minimum(level, len(grades.stops) - 1)], 0.0)
        offset = i if ties == "optimistic" else size[None, :] - relevant[:, None] + i
        place = start[None, :] + offset
        within = np.where(place <= k, 1.0 / np.maximum(place, 1.0), 0.0)
        a += passing * stop[:, None] * within
        passing = passing * (1 - stop[:, None])
    return a, np.broadcast_to(passing, a.shape)


def _ndcg(laws: list[tuple[np.ndarray, np.ndarray]], between: tuple[np.ndarray, np.ndarray],
          rest: np.ndarray, grades: Grades,
          weighed: _Weighed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(E[nDCG@k], E[nDCG@k^2], P(no item relevant)) per group: the walk over the blocks and
    then the items outside them, carrying the whole list's capped counts."""
    levels, k = len(grades.gains), weighed.k
    states = nested_states(k, levels)
    codes = _coded(np.array(states, dtype=np.int64).reshape(len(states), levels), k)
    order = np.argsort(codes, kind="stable")
    ideal = ideal_dcg(states, grades.gains, k)
    scale = np.where(ideal > 0, 1.0 / np.where(ideal > 0, ideal, 1.0), 0.0)
    groups = between[0].shape[0]
    law = np.zeros((len(states), groups))
    law[0] = 1.0
    carried = (law, np.zeros_like(law), np.zeros_like(law))
    bounds = np.array(states, dtype=np.int64).reshape(len(states), levels)
    for j, (counts, block_law) in enumerate(laws):
        added = weighed.added(counts, (between[0][:, j], between[1][:, j]))
        carried = _moved(carried, bounds, counts, block_law, added, k, codes[order], order)
    law, total, square = _outside(carried, rest, states, k)
    return scale @ total, (scale * scale) @ square, law[0]


def _outside(
    carried: tuple[np.ndarray, np.ndarray, np.ndarray],
    rest: np.ndarray,
    states: list[tuple[int, ...]],
    k: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The walk's laws after the items that count in R outside the blocks (`rest`: groups x m
    x grades), one item at a time: each moves the state alone, the sums gaining nothing."""
    index = {state: position for position, state in enumerate(states)}
    moves = [level_moves(states, index, level, k) for level in range(rest.shape[2])]
    law, total, square = carried
    for t in range(rest.shape[1]):
        p = rest[:, t, :].T  # grades x groups
        if not p.any():
            continue
        stay = 1 - p.sum(axis=0, keepdims=True)
        new_law, new_total, new_square = law * stay, total * stay, square * stay
        for level, (sources, targets) in enumerate(moves):
            chance = p[level : level + 1]
            scatter_sorted(new_law, targets, law[sources] * chance)
            scatter_sorted(new_total, targets, total[sources] * chance)
            scatter_sorted(new_square, targets, square[sources] * chance)
        law, total, square = new_law, new_total, new_square
    return law, total, square


def _coded(counts: np.ndarray, k: int) -> np.ndarray:
    """Each state's counts as one number (base k + 1)."""
    coded: np.ndarray = (counts * (k + 1) ** np.arange(counts.shape[1])).sum(axis=1)
    return coded


def _moved(carried: tuple[np.ndarray, np.ndarray, np.ndarray], bounds: np.ndarray,
           counts: np.ndarray, law: np.ndarray, added: np.ndarray, k: int,
           sorted_codes: np.ndarray,
           order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(P(m), E[S; m], E[S^2; m]) after one block: each state m moves to min(k, m + x) with
    the block's chance of x, its sum gaining C(x) (`added`)."""
    before, total, square = carried
    # x = 0 (none of the block's items at a positive grade) moves no state: no gather.
    weight = law[0]
    new_law, new_total = before * weight, total * weight
    new_square = square * weight
    if added[0].any():
        gained = added[0]
        new_square = new_square + gained * (2 * new_total + gained * new_law)
        new_total = new_total + gained * new_law
    for x in range(1, counts.shape[0]):
        weight = law[x]
        if not weight.any():
            continue
        moved = _coded(np.minimum(k, bounds + counts[x]), k)
        targets = order[np.searchsorted(sorted_codes, moved)]
        by_target = np.argsort(targets, kind="stable")
        targets = targets[by_target]
        gained = added[x]
        from_law = before[by_target] * weight
        from_total = total[by_target] * weight
        scatter_sorted(new_law, targets, from_law)
        scatter_sorted(new_total, targets, from_total + gained * from_law)
        scatter_sorted(
            new_square,
            targets,
            square[by_target] * weight + gained * (2 * from_total + gained * from_law),
        )
    return new_law, new_total, new_square


def block_q_moments(
    q: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    rest_law: np.ndarray,
    grade: np.ndarray,
    k: int,
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[Q@k], E[Q@k^2], P(R = 0)) per group over tie blocks the labels order, each group's
    relevant items of one grade g (`grade`): `graded.q_measure_moments`' walk, block by block.
    A block's x relevant items take its first x places (``"optimistic"``) or its last x
    (``"pessimistic"``), so from c found above it the i-th of them, at rank r_i <= k, adds
    (c + i) (1 + b g) / (r_i + b g min(r_i, rho)) for each value rho R may take; the walk
    carries P(c), E[S_rho; c] and E[S_rho^2; c] past the blocks, and R = c + y (y: the
    relevant items outside them, `rest_law`) reads S_R / R (or / min(k, R))."""
    groups = q.shape[0]
    values = int(size.sum(axis=1).max(initial=0)) + rest_law.shape[1]  # rho, and c below it
    chunk = max(1, Q_NUMBERS // (values * values))
    e1, e2, none = np.zeros(groups), np.zeros(groups), np.zeros(groups)
    for at in range(0, groups, chunk):  # chunks of groups: the state stays a few MB
        part = slice(at, at + chunk)
        found = _q_block_walk(q[part], start[part], size[part], grade[part], k, values, policy)
        e1[part], e2[part], none[part] = _q_over_rest(*found, rest_law[part], k, policy)
    return e1, e2, none


def _q_block_walk(
    q: np.ndarray, start: np.ndarray, size: np.ndarray, grade: np.ndarray, k: int,
    values: int, policy: Policy,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(law, total, square): P(c), E[S_rho; c], E[S_rho^2; c] after every block (groups x
    values x counts, the law groups x 1 x counts)."""
    groups, blocks, _ = q.shape
    weight = (float(policy.q_beta) * np.maximum(grade, 0.0))[:, None, None]  # b g
    rho = np.arange(values, dtype=np.float64)[None, :, None]
    found = np.arange(values, dtype=np.float64)[None, None, :]  # c, the count above
    law = np.zeros((groups, 1, values))
    law[:, :, 0] = 1.0
    total, square = np.zeros((groups, values, values)), np.zeros((groups, values, values))
    for j in range(blocks):
        block_law = poisson_binomial(q[:, j, :])
        new_law, new_total, new_square = (
            np.zeros_like(law),
            np.zeros_like(total),
            np.zeros_like(square),
        )
        for x in range(block_law.shape[1]):
            p = block_law[:, x][:, None, None]
            first = first_place(start[:, j], size[:, j], x, policy)[:, :, None]
            added = np.zeros((groups, values, values))
            for i in range(1, x + 1):
                rank = first + i - 1
                term = (found + i) * (1 + weight) / (rank + weight * np.minimum(rank, rho))
                added += np.where(rank <= k, term, 0.0)
            keep = values - x  # the counts c that stay within the state after x more
            a, before = added[:, :, :keep], law[:, :, :keep]
            new_law[:, :, x:] += p * before
            new_total[:, :, x:] += p * (total[:, :, :keep] + a * before)
            new_square[:, :, x:] += p * (
                square[:, :, :keep] + a * (2 * total[:, :, :keep] + a * before)
            )
        law, total, square = new_law, new_total, new_square
    return law, total, square


def _q_over_rest(
    law: np.ndarray, total: np.ndarray, square: np.ndarray, rest_law: np.ndarray, k: int,
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(E[Q], E[Q^2], P(R = 0)): R = c + y, the walk's sums at rho = R over R (or over
    min(k, R): ``ap_denominator``), 0 where R = 0."""
    groups, values, _ = total.shape
    counts = np.arange(values)
    e1, e2 = np.zeros(groups), np.zeros(groups)
    for y in range(rest_law.shape[1]):
        r = counts + y
        inside = r < values
        c, r = counts[inside], r[inside]
        denominator = r if policy.ap_denominator == "relevant" else np.minimum(r, k)
        over = np.where(r > 0, 1.0 / np.maximum(denominator, 1), 0.0)
        chance = rest_law[:, y : y + 1]
        e1 += (chance * total[:, r, c] * over).sum(axis=1)
        e2 += (chance * square[:, r, c] * (over * over)).sum(axis=1)
    return e1, e2, law[:, 0, 0] * rest_law[:, 0]
