"""bpref's expectation and standard deviation over label outcomes, exactly, by a walk down the
ranked judged items (no outcome enumerated), every group at once.

Every truth item is judged in every outcome: relevant with probability ``q`` (its mass on
grades at or above the threshold), else judged non-relevant (``q = 0`` included: a sure
non-relevant item raises the count above the relevant items after it, and N). With T a
group's truth items, R = the relevant ones and N = T - R; bpref is S_R / R, S_r the sum over
the relevant ranked items of g_r(b) = 1 if b = 0 else 1 - min(b, r) / min(T - r, r), b the
judged non-relevant items ranked above. The i-th ranked judged item, when it is the c-th
relevant one, has b = i - c: the walk keeps, for each count c of relevant items seen, P(c)
and, for each possible R = r, E[S_r; c] and E[S_r^2; c]. The relevant truth items not among
the candidates add a count y of their own Poisson-binomial law, independent: R = c + y, and
E[bpref] = sum over r, c of E[S_r; c] P(y = r - c) / r (E[bpref^2] with E[S_r^2; c] / r^2).
R ranges from the sure relevant items to the possible ones, so the work is groups x ranked
judged items^2 x (uncertain items + 1).

Under ``pool="restrict"`` only the listed truth items are judged: the others leave R and N
(T counts the listed ones, y is 0). The ranking must be the same in every outcome and each
judged item judged in all: fixed tie orders, one row per item, unjudged rows kept, no
negative grade, no declared ``n_relevant`` (`bpref_is_exact`); elsewhere bpref keeps the
enumeration.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.cells import FIXED_ORDER_TIES
from polars_rankk.core.inputs.labels.laws import (
    Ranking,
    conditioned,
    largest,
    poisson_binomial,
    side_by_side,
)
from polars_rankk.core.inputs.labels.layout import padded, relevance_chance
from polars_rankk.core.inputs.labels.tie_blocks import GRADE_READING_TIES
from polars_rankk.core.policy import Policy

#: The most (truth items + 1) x (uncertain items + 1) states one group's walk may keep.
_LARGEST_STATES = 250_000
#: The most states of all groups walked at once (chunks of groups bound the memory).
_STATES_AT_ONCE = 1 << 21


def bpref_is_exact(
    policy: Policy, truth: pl.DataFrame, keys: list[str], item: str, relevance: str,
    probability: str, declared_relevant: bool,
) -> bool:  # fmt: skip
    """Whether the walk computes bpref under `policy` on the probabilistic `truth` (and no
    declared relevant count, `declared_relevant`): a ranking fixed before the labels are
    read, each judged item judged in every outcome and counted in R or N, and few enough
    states in each group."""
    # Each truth item is judged in every outcome: a list condensed to its judged items is
    # the same in every outcome, its judged items in the same order.
    fixed = (
        policy.ties in FIXED_ORDER_TIES | GRADE_READING_TIES
        and policy.duplicates != "keep"
        and policy.relevance_threshold > 0
        and not declared_relevant
    )
    # A negative grade is a judged non-relevant item, as grade 0 (under
    # negative_grades="unjudged" it would leave the judged items, T and N, to the labels).
    negative = truth.filter((pl.col(probability) > 0) & (pl.col(relevance) < 0)).height
    if not fixed or (negative and policy.negative_grades == "unjudged"):
        return False
    q = pl.col("_rk_q")
    uncertain = ((q > 0) & (q < 1)).sum().cast(pl.Int64)
    states = (
        truth.group_by(*keys, item)
        .agg(relevance_chance(relevance, probability, policy).alias("_rk_q"))
        .group_by(keys)
        .agg(((pl.len().cast(pl.Int64) + 1) * (uncertain + 1)).alias("_rk_states"))
    )
    return largest(states["_rk_states"]) <= _LARGEST_STATES


def bpref_moments(
    ranked_q: np.ndarray, rest_q: np.ndarray, total: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[bpref], E[bpref^2], P(R = 0)) per group, bpref taken as 0 where R = 0.

    `ranked_q`: groups x M, the relevance chance of each group's i-th ranked judged item
    (0-padded: an item sure not relevant changes nothing past the last); `rest_q`: groups x
    m, those of the judged truth items not among the candidates (0-padded); `total`: each
    group's judged truth items T."""
    groups = ranked_q.shape[0]
    every = np.hstack([ranked_q, rest_q])
    lowest = (every >= 1).sum(axis=1)  # the sure relevant items: the least R
    width = int(((every > 0) & (every < 1)).sum(axis=1).max(initial=0)) + 1
    ranked = ranked_q.shape[1]
    chunk = max(1, _STATES_AT_ONCE // (width * (ranked + 1)))
    first, second, none = np.zeros(groups), np.zeros(groups), np.zeros(groups)
    for start in range(0, groups, chunk):  # chunks of groups, each walked at once
        part = slice(start, start + chunk)
        found = _walked(ranked_q[part], rest_q[part], total[part], lowest[part], width)
        first[part], second[part], none[part] = found
    return first, second, none


def _walked(
    ranked_q: np.ndarray, rest_q: np.ndarray, total: np.ndarray, lowest: np.ndarray, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`bpref_moments` of some groups, R = `lowest` + j for j < `width` (R's possible values)."""
    groups, ranked = ranked_q.shape
    r = (lowest[:, None] + np.arange(width)[None, :]).astype(np.float64)  # groups x width
    # min(N, R) with N = T - R: where it is 0 no judged non-relevant item can be above.
    below = np.minimum(total[:, None] - r, r)[:, :, None]
    safe = np.where(below > 0, below, 1.0)
    law = np.zeros((groups, ranked + 1))
    law[:, 0] = 1.0
    first = np.zeros((groups, width, ranked + 1))  # E[S_r; c]
    second = np.zeros((groups, width, ranked + 1))  # E[S_r^2; c]
    for i in range(1, ranked + 1):
        q = ranked_q[:, i - 1, None, None]
        stay = 1 - q
        # The i-th ranked judged item as the c-th relevant one (c = 1..i): b = i - c above it.
        b = (i - np.arange(1, i + 1, dtype=np.float64))[None, None, :]
        g = np.where(b == 0, 1.0, np.where(below > 0, 1 - np.minimum(b, r[:, :, None]) / safe, 0.0))
        seen = law[:, None, :i]
        total_so_far, square = first[:, :, :i], second[:, :, :i]
        up_square = (square + g * (2 * total_so_far + g * seen)) * q
        up_total = (total_so_far + g * seen) * q
        second[:, :, 1 : i + 1] *= stay
        second[:, :, 1 : i + 1] += up_square
        second[:, :, :1] *= stay
        first[:, :, 1 : i + 1] *= stay
        first[:, :, 1 : i + 1] += up_total
        first[:, :, :1] *= stay
        moved = law[:, :i] * q[:, :, 0]
        law[:, : i + 1] *= stay[:, :, 0]
        law[:, 1 : i + 1] += moved
    return _read_at_r(first, second, law, rest_q, r)


def _read_at_r(
    first: np.ndarray, second: np.ndarray, law: np.ndarray, rest_q: np.ndarray, r: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[bpref], E[bpref^2], P(R = 0)) from the walk's E[S_r; c], E[S_r^2; c] and P(c) (r
    one of R's possible values, `r`), with the count y of the relevant items not among the
    candidates (`rest_q`): R = c + y."""
    groups, width, counts = first.shape
    rest = poisson_binomial(rest_q)
    index = np.arange(counts)
    e1, e2 = np.zeros(groups), np.zeros(groups)
    for j in range(width):
        # R = r: c relevant items ranked and y = r - c not.
        y = r[:, j : j + 1].astype(np.int64) - index[None, :]
        possible = (y >= 0) & (y < rest.shape[1])
        read = np.take_along_axis(rest, np.clip(y, 0, rest.shape[1] - 1), axis=1)
        chance = np.where(possible, read, 0.0)
        share = np.where(r[:, j] > 0, 1.0 / np.maximum(r[:, j], 1.0), 0.0)
        e1 += (first[:, j, :] * chance).sum(axis=1) * share
        e2 += (second[:, j, :] * chance).sum(axis=1) * share * share
    return e1, e2, law[:, 0] * rest[:, 0]


def bpref_by_recursion(
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
    """Per-group rows (keys, metric, k, value, std, standard_error) of the bpref `cells`
    (keys, metric, k), from the evaluation's `ranking` (read to the end of every list), the
    checked probabilistic `truth` and the groups it evaluated (`evaluated`: keys,
    n_candidates)."""
    groups = evaluated.select(*keys, "n_candidates").with_row_index("_rk_group")
    items = (
        truth.group_by(*keys, item)
        .agg(relevance_chance(relevance, probability, policy).alias("_rk_q"))
        .join(groups.select(*keys, "_rk_group"), on=keys)
        .sort("_rk_group", item)
    )
    if policy.ties in GRADE_READING_TIES:
        # The labels order each tie block: its judged items walked as one (`_blocks_walked`).
        listed = ranking.listed().select(*keys, item, pl.col("block").cast(pl.Int64))
        blocks = items.join(listed, on=[*keys, item], how="left", maintain_order="left")
        ranks = blocks["block"].fill_null(0)
    else:
        ranks = _ranks(ranking, items, keys, item, largest(groups["n_candidates"]))
    items = items.with_columns(ranks.alias("_rk_rank"))
    if policy.pool == "restrict":  # only the listed truth items are judged (R and N)
        items = items.filter(pl.col("_rk_rank") > 0)
    ranked = items.filter(pl.col("_rk_rank") > 0).sort("_rk_group", "_rk_rank")
    rest = items.filter(pl.col("_rk_rank") == 0)
    n = groups.height
    ranked_q, rest_q = side_by_side(ranked, "_rk_q", n), side_by_side(rest, "_rk_q", n)
    total = np.zeros(n)
    counted = items.group_by("_rk_group").len()
    total[counted["_rk_group"].to_numpy()] = counted["len"].to_numpy()
    if policy.ties in GRADE_READING_TIES:
        found = _blocks_walked(ranked, rest_q, total, n, policy.ties == "pessimistic")
    else:
        found = bpref_moments(ranked_q, rest_q, total)
    mean, spread = conditioned(*found, policy)
    values = groups.select(
        *keys, pl.Series("value", mean), pl.Series("std", spread), standard_error=pl.lit(0.0)
    )
    return cells.select(*keys, "metric", "k").join(
        values, on=keys, how="left", nulls_equal=True, maintain_order="left"
    )


def _ranks(
    ranking: Ranking, items: pl.DataFrame, keys: list[str], item: str, depth: int
) -> pl.Series:
    """Each of `items`' rank in its group's ranking (0 where it is not a candidate): from
    the kernel's places where it gives them, else from the ranked list."""
    places = ranking.places(items.select(*keys, item), depth)
    if places is not None and largest(places) <= depth:  # every list read to its end
        found: pl.Series = places.cast(pl.Int64)
        return found
    listed = ranking.listed().select(*keys, item, pl.col("rank").cast(pl.Int64))
    ranks = items.select(*keys, item).join(listed, on=[*keys, item], how="left",
                                           maintain_order="left")  # fmt: skip
    return ranks["rank"].fill_null(0)


def _blocks_walked(
    ranked: pl.DataFrame, rest_q: np.ndarray, total: np.ndarray, groups: int, last: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`bpref_moments` where the labels order each tie block (``_rk_rank``: its first rank):
    a block's relevant items come first (or `last`), so each of its x relevant items has the
    same b, i0 - c above it (i0 + J - c - x last; i0 the judged items above the block, J its
    own, c the relevant ones above it). The walk goes block by block: for each count c before
    the block, x follows the block's Poisson-binomial law and the sum gains x g(b)."""
    block = pl.col("_rk_rank")
    laid = ranked.with_columns(
        _rk_block=block.rank("dense").over("_rk_group").cast(pl.Int64) - 1,
        _rk_place=pl.int_range(pl.len()).over("_rk_group", block),
        _rk_size=pl.len().over("_rk_group", block).cast(pl.Float64),
        _rk_above=pl.int_range(pl.len()).over("_rk_group").cast(pl.Float64),
    )
    firsts = laid.filter(pl.col("_rk_place") == 0)
    n_blocks = largest(laid["_rk_block"]) + 1 if laid.height else 0
    counts = largest(laid["_rk_above"].cast(pl.Int64)) + 2 if laid.height else 1  # c's range
    # Each group's ranked judged items side by side (a block's are contiguous), and where
    # each block starts and how many it holds.
    laid = laid.with_columns(pl.col("_rk_above").cast(pl.Int64).alias("_rk_position"))
    q = padded(laid, "_rk_group", "_rk_position", "_rk_q", groups, counts - 1)
    above = padded(firsts, "_rk_group", "_rk_block", "_rk_above", groups, n_blocks)
    sizes = padded(firsts, "_rk_group", "_rk_block", "_rk_size", groups, n_blocks)
    every = np.hstack([q, rest_q])
    width = int(((every > 0) & (every < 1)).sum(axis=1).max(initial=0)) + 1
    chunk = max(1, _STATES_AT_ONCE // (width * counts))
    first, second, none = np.zeros(groups), np.zeros(groups), np.zeros(groups)
    for start in range(0, groups, chunk):  # chunks of groups, each walked at once
        part = slice(start, start + chunk)
        found = _block_walk(q[part], above[part], sizes[part], rest_q[part], total[part],
                            counts, last)  # fmt: skip
        first[part], second[part], none[part] = found
    return first, second, none


def _block_walk(
    q: np.ndarray, above: np.ndarray, sizes: np.ndarray, rest_q: np.ndarray, total: np.ndarray,
    counts: int, last: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """`_blocks_walked` of some groups: `q` groups x ranked judged items, `above` and `sizes`
    (groups x blocks) the judged items above each block and in it, c < `counts`."""
    groups, n_blocks = above.shape
    every = np.hstack([q, rest_q])
    lowest = (every >= 1).sum(axis=1)
    width = int(((every > 0) & (every < 1)).sum(axis=1).max(initial=0)) + 1
    r = (lowest[:, None] + np.arange(width)[None, :]).astype(np.float64)
    below = np.minimum(total[:, None] - r, r)[:, :, None]
    safe = np.where(below > 0, below, 1.0)
    law = np.zeros((groups, counts))
    law[:, 0] = 1.0
    first = np.zeros((groups, width, counts))
    second = np.zeros((groups, width, counts))
    c = np.arange(counts, dtype=np.float64)[None, :]
    for j in range(n_blocks):
        size = int(sizes[:, j].max(initial=0))
        # The block's items: from its start, as many as it holds (0 past them).
        place = above[:, j : j + 1].astype(np.int64) + np.arange(size)[None, :]
        inside = np.arange(size)[None, :] < sizes[:, j : j + 1]
        read = np.take_along_axis(q, np.clip(place, 0, max(q.shape[1] - 1, 0)), axis=1)
        chances = poisson_binomial(np.where(inside, read, 0.0))  # groups x (size + 1)
        new_law = np.zeros_like(law)
        new_first, new_second = np.zeros_like(first), np.zeros_like(second)
        for x in range(min(size, counts - 1) + 1):
            b = above[:, j : j + 1] - c + (sizes[:, j : j + 1] - x if last else 0.0)
            b = b[:, None, :]
            g = np.where(
                b == 0, 1.0, np.where(below > 0, 1 - np.minimum(b, r[:, :, None]) / safe, 0.0)
            )
            gained = x * g
            p = chances[:, x : x + 1]
            kept = counts - x
            new_law[:, x:] += law[:, :kept] * p
            p3 = p[:, :, None]
            f, s2, seen = first[:, :, :kept], second[:, :, :kept], law[:, None, :kept]
            a = gained[:, :, :kept]
            new_first[:, :, x:] += (f + a * seen) * p3
            new_second[:, :, x:] += (s2 + a * (2 * f + a * seen)) * p3
        law, first, second = new_law, new_first, new_second
    return _read_at_r(first, second, law, rest_q, r)
