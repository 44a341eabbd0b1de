"""Exact expectations and standard deviations over label outcomes without enumerating them:
one recursion over the ranks, every group at once.

An item is relevant with probability ``q`` (its grades at or above the threshold), the items
independently. Precision, DCG and RBP are sums of independent terms, hit rate and RR read the
first relevant rank: each has a closed form over the ranks. The metrics divided by what R
decides walk down the ranking with the number ``c`` of relevant items seen as state: recall
adds 1, AP c/j and nDCG the discount when the item at rank ``j <= K`` is the ``c``-th relevant
one, and for each ``c`` the recursion keeps P(c), E[S; c] and E[S^2; c] (S the sum so far), a
Poisson-binomial recursion carrying the sum's first two moments. The relevant items not ranked
within K (deeper in the list, or not retrieved) add a count ``y`` of their own
Poisson-binomial law, independent of S: R = c + y, and the metric is S h(R) with h = 1/R
(recall, AP), 1/min(K, R) (AP under ``ap_denominator="min_k_relevant"``) or 1/IDCG@K(R) (nDCG,
whose relevant items share one gain: the ideal DCG is then a function of R). So E[value] =
sum over c, y of E[S; c] P(y) h(c + y), and E[value^2] the same with E[S^2; c] and h^2: exact,
in O(groups x K^2) work, whatever the number of outcomes (2^64 as cheaply as 2). R-precision
reads hits@R from the prefix and suffix laws of each R; F-beta@K reads hits@K and the count
past K, independent (`graded.f_beta_moments`); ERR walks the ranks with the stopping chances'
moments (`graded.err_moments`). Ties ordered by the labels run over tie blocks
(`tie_blocks`).

The outcome with no relevant item (R = 0) is left out under ``empty_truth="exclude"`` (the
moments are conditional on R > 0), scores 0 under ``"zero"`` and makes the value NaN under
``"nan"``, as in the enumeration. Several relevant gains in a group: nDCG and DCG come from
`graded` (counts per gain level). The C/W/L measures come from `cwl`, kept copies from
`copies`. Where a policy or a metric has no recursion (copies kept for the metrics that read
the relevant count as they go, an unjudged negative grade in a condensed list),
`cells.recursive_cells` leaves it out and the outcomes are enumerated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.cells import RelevantGains
from polars_rankk.core.inputs.labels.copies import kept_copies_frames
from polars_rankk.core.inputs.labels.cwl import CWL_EXACT, cwl_gain, cwl_moments
from polars_rankk.core.inputs.labels.graded import Gains, Stops, closed_forms, graded_cells
from polars_rankk.core.inputs.labels.graded_blocks import (
    block_q_moments,
    by_grade_counts,
    graded_block_moments,
    grades_of,
)
from polars_rankk.core.inputs.labels.laws import (
    Ranking,
    conditioned,
    h_over_rest,
    hit_rank_of,
    increment,
    linear_weight,
    poisson_binomial,
    product_in_order,
    read_per_group,
    summed_in_order,
)
from polars_rankk.core.inputs.labels.layout import (
    counted_items,
    laid_out,
    laid_out_by_places,
    possible_items,
)
from polars_rankk.core.inputs.labels.tie_blocks import (
    BLOCK_TIES,
    block_expectations,
    block_r_precision_of,
    blocks_and_rest,
    relevance_blocks,
)
from polars_rankk.core.metrics.families.trec_eval import RPREC_MULTIPLE_OF as R_OF
from polars_rankk.core.policy import Policy

#: One cell's (metric, k, mean, std): its mean and standard deviation per group.
CellMoments = tuple[str, int | None, np.ndarray, np.ndarray]
#: (mean, std) per group and cell, and R-precision's or None: what `_fixed_order` returns.
Moments = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]
#: The same recursion in compiled code (`polars_rankk.core.kernel.label_moments`, passed in:
#: the kernel builds on this folder), with `_fixed_order`'s arguments; None where it does not
#: compute the cells.
CompiledMoments = Callable[
    [np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[tuple[str, int]], int, bool, Policy],
    Moments | None,
]


def moments(
    ranked_q: np.ndarray,
    rest_q: np.ndarray,
    n_candidates: np.ndarray,
    gain: np.ndarray,
    cells: Sequence[tuple[str, int]],
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, std) per group and cell (groups x cells).

    `ranked_q`: groups x max K, the relevance probability of the item at each rank (0 past
    a list's end); `rest_q`: groups x m, those of the relevant-possible items not ranked
    within max K (0-padded); `n_candidates`: each list's length; `gain`: each group's gain
    of its relevant grade (for DCG); `cells`: (metric, K) pairs."""
    groups, largest_k = ranked_q.shape
    counts = largest_k + 1
    rest = poisson_binomial(rest_q)  # groups x (m + 1)
    none_relevant = product_in_order(1 - ranked_q) * rest[:, 0]
    mean = np.empty((groups, len(cells)))
    spread = np.empty((groups, len(cells)))
    # The metrics not divided by R need no count: a closed form over the ranks.
    by_count = [index for index, (metric, _) in enumerate(cells) if metric not in _UNDIVIDED]
    for index, (metric, k) in enumerate(cells):
        if metric in _UNDIVIDED:
            read = read_per_group(metric, k, n_candidates, gain, policy)
            e1, e2 = _undivided(metric, k, ranked_q, read, policy)
            mean[:, index], spread[:, index] = conditioned(e1, e2, none_relevant, policy)
    if not by_count:
        return mean, spread
    recursive = [cells[index] for index in by_count]
    above = np.arange(1, counts, dtype=np.float64)  # the count after a relevant item
    law = np.zeros((groups, counts))
    law[:, 0] = 1.0
    # Every metric at once (metrics x groups x counts): one set of array operations per rank.
    first = np.zeros((len(recursive), groups, counts))
    second = np.zeros((len(recursive), groups, counts))
    for rank in range(1, largest_k + 1):
        # Counts 0..rank are reachable: the new count c = 1..rank comes from c - 1 = 0..rank-1.
        q = ranked_q[:, rank - 1 : rank]
        stay = 1 - q
        below = law[:, :rank]
        # Relevant at this rank: from count c - 1 to c, the sum gaining a(j, c) (0 past K).
        a = np.stack(
            [
                increment(metric, rank, above[:rank]) if rank <= k else np.zeros((1, rank))
                for metric, k in recursive
            ]
        )
        total, square = first[:, :, :rank], second[:, :, :rank]
        up_square = (square + a * (2 * total + a * below)) * q
        up_total = (total + a * below) * q
        second[:, :, 1 : rank + 1] *= stay
        second[:, :, 1 : rank + 1] += up_square
        second[:, :, :1] *= stay
        first[:, :, 1 : rank + 1] *= stay
        first[:, :, 1 : rank + 1] += up_total
        first[:, :, :1] *= stay
        moved = below * q
        law[:, : rank + 1] *= stay
        law[:, 1 : rank + 1] += moved
    for index, (metric, k), total, square in zip(by_count, recursive, first, second, strict=True):
        # H[c] = sum over y of P(y) h(c + y), and the same with h^2.
        h1, h2 = h_over_rest(metric, k, rest, counts, policy, n_candidates)
        e1, e2 = summed_in_order(total * h1), summed_in_order(square * h2)
        mean[:, index], spread[:, index] = conditioned(e1, e2, none_relevant, policy)
    return mean, spread


#: The metrics whose sum over the ranks is not divided by anything R decides.
_UNDIVIDED = frozenset({"precision", "dcg", "rbp", "hit_rate", "mrr"})


def _undivided(
    metric: str, k: int, ranked_q: np.ndarray, read: np.ndarray, policy: Policy
) -> tuple[np.ndarray, np.ndarray]:
    """E[V] and E[V^2] of a metric not divided by R (0 where no item is relevant): a sum of
    independent terms (precision, DCG, RBP), or the first relevant rank's (hit rate, RR)."""
    q = ranked_q[:, :k]
    rank = np.arange(1, q.shape[1] + 1, dtype=np.float64)
    if metric in ("hit_rate", "mrr"):
        # P(the first relevant item is at rank j) = q_j * prod over i < j of (1 - q_i).
        before = np.cumprod(np.concatenate([np.ones((q.shape[0], 1)), 1 - q[:, :-1]], axis=1), 1)
        first = q * before
        value = np.ones_like(rank) if metric == "hit_rate" else 1.0 / rank
        return summed_in_order(first * value), summed_in_order(first * (value * value))
    terms = [linear_weight(metric, int(j), read, policy) for j in rank]
    a = np.broadcast_to(np.stack(terms).T, q.shape)  # groups x ranks
    e1 = summed_in_order(a * q)
    variance = summed_in_order(a * a * q * (1 - q))
    return e1, variance + e1 * e1


def r_precision_moments(
    ranked_q: np.ndarray, rest_q: np.ndarray, policy: Policy, multiple: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, std) per group of hits@c / c, c = (long) (`multiple` R + 0.9) (R-precision at 1,
    trec_eval Rprec_mult; 0 at c = 0): R = r with the first c ranks holding x relevant items
    and the items past them r - x, independent Poisson-binomial laws. `ranked_q`: the first W
    ranks' probabilities (W at least every group's possible R and its c); `rest_q`: others'."""
    groups, width = ranked_q.shape
    # Suffix laws, from the last rank back: the count past rank r, r = width .. 0.
    suffix = [poisson_binomial(rest_q)]
    for rank in range(width, 0, -1):
        law = suffix[-1]
        q = ranked_q[:, rank - 1 : rank]
        grown = np.zeros((groups, law.shape[1] + 1))
        grown[:, :-1] += law * (1 - q)
        grown[:, 1:] += law * q
        suffix.append(grown)
    suffix.reverse()  # suffix[r]: the count past rank r
    prefix = np.zeros((groups, width + 1))
    prefix[:, 0] = 1.0
    first, second = np.zeros(groups), np.zeros(groups)
    rank = 0  # the prefix's law reaches this rank (cut grows with r)
    for r in range(1, width + 1):
        cut = min(int(multiple * r + 0.9), width)  # past width no R has a chance
        while rank < cut:
            rank += 1
            q = ranked_q[:, rank - 1 : rank]
            prefix[:, 1:] = prefix[:, 1:] * (1 - q) + prefix[:, :-1] * q
            prefix[:, :1] *= 1 - q
        law = suffix[cut]
        # R = r: x hits in the first `cut` ranks and r - x relevant items past them.
        hits = np.arange(max(0, r - law.shape[1] + 1), min(r, cut) + 1)
        weight = prefix[:, hits] * law[:, r - hits]
        share = hits / cut if cut else np.zeros(hits.size)
        first += summed_in_order(weight * share)
        second += summed_in_order(weight * (share * share))
    none_relevant = suffix[0][:, 0]
    return conditioned(first, second, none_relevant, policy)


def expected_by_recursion(
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
    gains: RelevantGains,
    compiled: CompiledMoments | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(per-group rows: keys, metric, k, value, std, standard_error; groups: keys,
    n_candidates, n_relevant) of the `cells` (keys, metric, k: those the evaluation reports)
    by the recursion, from the evaluation's `ranking`, the checked
    probabilistic `truth` (its `gains`) and the groups it evaluated (`evaluated`: keys,
    n_candidates)."""
    from polars_rankk.core.metrics.order import gain_of
    from polars_rankk.core.metrics.terms import err_stop

    levels = gains.graded_levels
    by_ranks = policy.ties not in BLOCK_TIES
    # Tie blocks whose cells read the grades read each item's chance of each grade.
    grades = () if by_ranks else tuple(gains.grades)
    groups = evaluated.select(*keys, "n_candidates").with_row_index("_rk_group")
    per_item = possible_items(truth, groups, keys, item, relevance, probability, policy, levels,
                              grades, gains.in_between)  # fmt: skip
    pairs = cells.select("metric", "k").unique().sort("metric", "k", nulls_last=True)
    listed = [(str(m), int(k)) for m, k in pairs.iter_rows() if k is not None]
    no_k = [str(m) for m, k in pairs.iter_rows() if k is None]  # R-precision, Rprec_mult
    by_r, multiples = "r_precision" in no_k, [m for m in no_k if m != "r_precision"]
    largest_k = max((k for _, k in listed), default=0)
    depth = ranking.depth()  # the ranks read, laid out once (`layout.ranks_read`)
    if policy.duplicates == "keep":  # copies share their item's label (`copies`)
        found, counted_q = kept_copies_frames(
            ranking.listed(), per_item, groups, keys, item, listed, depth, policy
        )
        empty = np.zeros((groups.height, 0))
        return _rows_of(groups, keys, cells, found, counted_q, empty, policy)
    level_columns = [f"_rk_q{j}" for j in range(len(levels))]
    below = ["_rk_b1", "_rk_b2"] if gains.in_between else []
    columns = ["_rk_q", "_rk_s1", "_rk_s2", *below, *level_columns]
    # Each item's place from the kernel's ranking where it gives them, else the ranked list.
    places = ranking.places(per_item.select(*keys, item), depth) if by_ranks else None
    laid = (
        laid_out_by_places(per_item, places, groups.height, depth, policy, columns)
        if places is not None
        else laid_out(per_item, ranking.listed(), groups.height, keys, item, depth, policy,
                      columns)
    )  # fmt: skip
    (ranked_q, rest_q), (stop_1, _), (stop_2, _), *more = laid
    by_level = more[len(below) :]
    # What grades below the threshold add to ERR's stopping chances (none where there are none).
    below_stops = (more[0][0], more[1][0]) if below else (np.zeros_like(stop_1),) * 2
    # P(R = 0): every item that may be relevant turns out not.
    none = np.prod(1 - ranked_q, axis=1) * np.prod(1 - rest_q, axis=1)
    frames: list[CellMoments] = []
    graded = [(m, k) for m, k in listed if m in ("ndcg", "dcg")] if len(levels) and by_ranks else []
    if graded:
        listed = [cell for cell in listed if cell not in graded]
        by_gain = Gains(levels, gains.relevant_levels, by_level, (ranked_q, rest_q))
        frames += graded_cells(graded, by_gain, none, policy)
    stops = Stops((stop_1, stop_2), below_stops, ranked_q)
    n_candidates = groups["n_candidates"].cast(pl.Float64).to_numpy()
    # Each group's relevant grade (Q-measure's gain, C/W/L's), where a cell reads it.
    grade = np.zeros(groups.height)
    if any(metric == "q_measure" or metric in CWL_EXACT for metric, _ in listed):
        highest = per_item.group_by("_rk_group").agg(pl.col("_rk_grade").max())
        grade[highest["_rk_group"].to_numpy()] = highest["_rk_grade"].to_numpy()
    listed, closed = closed_forms(
        listed, ranked_q, rest_q, stops, none, n_candidates, policy, grade
    )
    frames += closed
    gain, stop = np.zeros(groups.height), np.zeros(groups.height)
    by_cwl = [cell for cell in listed if cell[0] in CWL_EXACT]
    if by_cwl:  # C/W/L along the fixed order, each group's relevant items of one gain
        listed = [cell for cell in listed if cell not in by_cwl]
        cwl = cwl_gain(grade, policy)
        frames += cwl_moments(by_cwl, ranked_q, rest_q, n_candidates, cwl, policy)
    # DCG reads the gain of each group's relevant grade, ERR (over tie blocks) its chance of
    # stopping the user.
    if any(metric in ("dcg", "err") for metric, _ in listed):
        top = pl.col("_rk_grade").max()
        tops = per_item.group_by("_rk_group").agg(
            gain_of(top, policy).alias("_rk_gain"), err_stop(top, policy).alias("_rk_stop")
        )
        gain[tops["_rk_group"].to_numpy()] = tops["_rk_gain"].to_numpy()
        stop[tops["_rk_group"].to_numpy()] = tops["_rk_stop"].to_numpy()
    if by_ranks and (listed or by_r or multiples):
        mean, spread, r_moments = _fixed_order(
            ranked_q, rest_q, n_candidates, gain, listed, largest_k, by_r, policy, compiled
        )
        frames += [
            (metric, k, mean[:, index], spread[:, index])
            for index, (metric, k) in enumerate(listed)
        ]
        if r_moments is not None:
            frames.append(("r_precision", None, *r_moments))
        for name in multiples:  # hits at another multiple of R
            frames.append((name, None, *r_precision_moments(ranked_q, rest_q, policy, R_OF[name])))
    elif listed or no_k:  # ties ordered by the labels, or averaged over orders
        blocks = _TieBlocks(ranking.listed(), per_item, keys, item, groups, policy)
        several = [c for c in listed if by_grade_counts(c[0], gains.one_positive, policy)]
        listed = [cell for cell in listed if cell not in several]
        frames += blocks.graded_frames(several, grades)
        reads = _block_reads(listed, stop, grade, n_candidates, gain, policy)
        frames += blocks.frames(listed, reads, n_candidates, depth, no_k)  # R-precision's too
    return _rows_of(groups, keys, cells, frames, ranked_q, rest_q, policy)


def _rows_of(
    groups: pl.DataFrame, keys: list[str], cells: pl.DataFrame, frames: Sequence[CellMoments],
    ranked_q: np.ndarray, rest_q: np.ndarray, policy: Policy,
) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """`expected_by_recursion`'s (rows, groups) from the computed `frames` and the chances of
    the items R counts (`ranked_q`, `rest_q`)."""
    cell = [*keys, "metric", "k"]
    none = np.prod(1 - ranked_q, axis=1) * np.prod(1 - rest_q, axis=1)
    expected_r = _expected_relevant(groups, keys, ranked_q, rest_q, none, policy)
    if not frames:  # no cell to compute (no group evaluated)
        empty = pl.lit(None, dtype=pl.Float64)
        return cells.select(*cell, value=empty, std=empty, standard_error=empty), expected_r
    computed = _cell_rows(groups, keys, frames)
    rows = cells.select(cell).join(
        computed, on=cell, how="left", nulls_equal=True, maintain_order="left"
    )
    return rows, expected_r


def _block_reads(
    listed: Sequence[tuple[str, int]], stop: np.ndarray, grade: np.ndarray,
    n_candidates: np.ndarray, gain: np.ndarray, policy: Policy,
) -> list[np.ndarray]:  # fmt: skip
    """What each cell over tie blocks reads of each group: ERR the relevant grade's chance of
    stopping the user, Q-measure the grade, the others `laws.read_per_group`."""
    return [
        stop if metric == "err" else grade if metric == "q_measure"
        else read_per_group(metric, k, n_candidates, gain, policy)
        for metric, k in listed
    ]  # fmt: skip


class _TieBlocks:
    """The cells over a ranking's tie blocks, whose order the labels decide (or that are
    averaged over their orders): the ranked list's blocks, the items that may be relevant
    and those of them that count in R."""

    def __init__(
        self,
        ranked: pl.DataFrame,
        per_item: pl.DataFrame,
        keys: list[str],
        item: str,
        groups: pl.DataFrame,
        policy: Policy,
    ) -> None:
        self.ranked, self.per_item, self.keys, self.item = ranked, per_item, keys, item
        self.groups, self.policy = groups, policy
        self.counted = counted_items(per_item, ranked, keys, item, policy)

    def frames(
        self,
        listed: list[tuple[str, int]],
        reads: list[np.ndarray],
        n_candidates: np.ndarray,
        r_depth: int,
        by_r: Sequence[str],
    ) -> list[CellMoments]:
        """(metric, k, mean, std) of the `listed` cells (each reading `reads`) and those of
        `by_r` (R-precision, hits at other multiples of R: read to `r_depth`)."""
        found: list[CellMoments] = []
        common = (self.ranked, self.per_item, self.counted, self.keys, self.item, self.groups)
        for (metric, k), grade in zip(listed, reads, strict=True):  # Q-measure reads the grade
            if metric == "q_measure":
                q, start, size, rest = relevance_blocks(*common, k)
                e1, e2, none = block_q_moments(q, start, size, rest, grade, k, self.policy)
                found.append(("q_measure", k, *conditioned(e1, e2, none, self.policy)))
        reads = [read for cell, read in zip(listed, reads, strict=True) if cell[0] != "q_measure"]
        listed = [cell for cell in listed if cell[0] != "q_measure"]
        if listed:
            e1, e2, none = block_expectations(*common, listed, reads, self.policy, n_candidates)
            mean, spread = conditioned(e1, e2, none[:, None], self.policy)
            found += [
                (m, k, hit_rank_of(k, mean[:, i]) if m == "hit_rank" else mean[:, i], spread[:, i])
                for i, (m, k) in enumerate(listed)
            ]
        if by_r:
            multiples = [R_OF.get(name, 1.0) for name in by_r]
            laws = block_r_precision_of(*common, r_depth, self.policy, multiples)
            found += [
                (name, None, *conditioned(e1, e2, none_r, self.policy))
                for name, (e1, e2, none_r) in zip(by_r, laws, strict=True)
            ]
        return found

    def graded_frames(
        self, cells: list[tuple[str, int]], grades: Sequence[float]
    ) -> list[CellMoments]:
        """(metric, k, mean, std) of `cells` (nDCG, DCG, ERR, RBP weighing ranks by grade)
        where a group's positive grades may differ (`grades`, highest first, those below the
        threshold included): by the blocks' counts per grade."""
        if not cells:
            return []
        columns = [f"_rk_r{j}" for j in range(len(grades))]
        common = (self.ranked, self.per_item, self.counted, self.keys, self.item, self.groups)
        laid = blocks_and_rest(*common, max(k for _, k in cells), columns)
        found = graded_block_moments(*laid, cells, grades_of(grades, self.policy), self.policy)
        return [(m, k, *conditioned(e1, e2, none, self.policy)) for m, k, e1, e2, none in found]


def _fixed_order(
    ranked_q: np.ndarray,
    rest_q: np.ndarray,
    n_candidates: np.ndarray,
    gain: np.ndarray,
    listed: list[tuple[str, int]],
    largest_k: int,
    by_r: bool,
    policy: Policy,
    compiled: CompiledMoments | None,
) -> Moments:
    """(mean, std) of the `listed` cells walked down a fixed ranking, and R-precision's where
    `by_r` (else None): by `compiled` where it computes them, else in NumPy (`moments`,
    `r_precision_moments`): the same recursion, the same sums in the same order."""
    arguments = (ranked_q, rest_q, n_candidates, gain, listed, largest_k, by_r, policy)
    found = None if compiled is None else compiled(*arguments)
    if found is not None:
        return found
    mean = spread = np.empty((ranked_q.shape[0], 0))
    if listed:
        # Past the largest K, the ranked items count in R as the unranked ones do.
        past_k = np.hstack([ranked_q[:, largest_k:], rest_q])
        mean, spread = moments(ranked_q[:, :largest_k], past_k, n_candidates, gain, listed, policy)
    return mean, spread, r_precision_moments(ranked_q, rest_q, policy) if by_r else None


def _cell_rows(
    groups: pl.DataFrame,
    keys: list[str],
    cells: Sequence[tuple[str, int | None, np.ndarray, np.ndarray]],
) -> pl.DataFrame:
    """The per-group rows of every (metric, k, mean, spread) of `cells`, built at once: each
    cell's groups in the order of `groups`."""
    index = pl.Series(np.repeat(np.arange(len(cells)), groups.height))
    names = pl.Series("metric", [metric for metric, *_ in cells], dtype=pl.String)
    cuts = pl.Series("k", [k for _, k, *_ in cells], dtype=pl.Int64)
    return pl.concat([groups.select(*keys)] * len(cells)).with_columns(
        names.gather(index),
        cuts.gather(index),
        value=pl.Series(np.concatenate([mean for *_, mean, _ in cells]), dtype=pl.Float64),
        std=pl.Series(np.concatenate([spread for *_, spread in cells]), dtype=pl.Float64),
        standard_error=pl.lit(0.0),
    )


def _expected_relevant(groups: pl.DataFrame, keys: list[str], ranked_q: np.ndarray,
                       rest_q: np.ndarray, none: np.ndarray,
                       policy: Policy) -> pl.DataFrame:  # fmt: skip
    """keys, n_candidates, n_relevant: R_g's expectation over the outcomes in which the group
    is evaluated (under ``empty_truth="exclude"``, those with a relevant item: `none` is
    P(R = 0)), from the laid out probabilities: the items ranked within the depth and the
    others R counts."""
    expected = ranked_q.sum(axis=1) + rest_q.sum(axis=1)
    if policy.empty_truth == "exclude":
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 / 0: no outcome counts
            expected = expected / (1 - none)
    return groups.select(
        *keys, "n_candidates", pl.Series("n_relevant", expected, dtype=pl.Float64)
    ).sort(keys)
