"""The label recursion's inputs laid out per group: each item that may be relevant with its
chance of being so (`possible_items`), and those chances side by side by rank, with the others
that count in R after them (`laid_out`, or `laid_out_by_places` from each item's place in the
ranking: the `laws.Ranking` the recursion reads), whether each is in its group's list
(`in_list`) and each group's chance that none is relevant (`empty_chance`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.laws import largest
from polars_rankk.core.inputs.labels.tie_blocks import BLOCK_TIES
from polars_rankk.core.metrics.families.trec_eval import RPREC_MULTIPLE_OF
from polars_rankk.core.metrics.registry import DEFAULT_METRICS
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import Policy


def padded(frame: pl.DataFrame, index: str, position: str, value: str, rows: int,
           width: int) -> np.ndarray:  # fmt: skip
    """`value` laid out at (`index`, `position`) in a rows x width array of zeros."""
    out = np.zeros((rows, max(width, 0)))
    if frame.height and width > 0:
        out[frame[index].to_numpy(), frame[position].to_numpy()] = frame[value].to_numpy()
    return out


def relevance_chance(relevance: str, probability: str, policy: Policy) -> pl.Expr:
    """An item's chance of being relevant (aggregated over its truth rows): its mass on
    grades at or above the threshold."""
    grade, p = pl.col(relevance), pl.col(probability)
    return p.filter((grade >= policy.relevance_threshold) & (p > 0)).sum().clip(0.0, 1.0)


def possible_items(
    truth: pl.DataFrame,
    groups: pl.DataFrame,
    keys: list[str],
    item: str,
    relevance: str,
    probability: str,
    policy: Policy,
    levels: np.ndarray,
    grades: Sequence[float] = (),
    below_threshold: bool = False,
) -> pl.DataFrame:
    """One row per item that may be relevant, in its group's order (``_rk_group``, a row of
    `groups`): its chance of being relevant (``_rk_q``), its highest relevant grade, its
    chance at each gain of `levels` (nDCG and DCG of several relevant grades read each
    item's law over the gains; ``_rk_q{j}``), at each of `grades` (``_rk_r{j}``: where the
    labels order tie blocks), ERR's chance of stopping at it and its square (``_rk_s1``,
    ``_rk_s2``; where `below_threshold`, ``_rk_b1`` and ``_rk_b2`` from its grades below the
    threshold, and an item that may gain there without being relevant has a row too)."""
    from polars_rankk.core.metrics.order import gain_of
    from polars_rankk.core.metrics.terms import err_stop

    grade, p = pl.col(relevance), pl.col(probability)
    relevant = (grade >= policy.relevance_threshold) & (p > 0)
    below = (grade > 0) & (grade < policy.relevance_threshold) & (p > 0)
    per_level = [
        p.filter((grade > 0) & (p > 0) & (gain_of(grade, policy) == level)).sum().alias(f"_rk_q{j}")
        for j, level in enumerate(levels)
    ]
    per_grade = [
        p.filter((p > 0) & (grade == level)).sum().alias(f"_rk_r{j}")
        for j, level in enumerate(grades)
    ]
    stop = err_stop(grade, policy)
    read = [
        relevance_chance(relevance, probability, policy).alias("_rk_q"),
        grade.filter(relevant).max().alias("_rk_grade"),
        *per_level,
        *per_grade,
        (p * stop).filter(p > 0).sum().alias("_rk_s1"),
        (p * stop * stop).filter(p > 0).sum().alias("_rk_s2"),
    ]
    kept = pl.col("_rk_q") > 0
    if below_threshold:
        # What a grade below the threshold adds to ERR's stopping chance (nDCG and DCG read
        # its gain among the levels), read where no item is relevant; such an item has a row
        # even where it cannot be relevant.
        read += [
            (p * stop).filter(below).sum().alias("_rk_b1"),
            (p * stop * stop).filter(below).sum().alias("_rk_b2"),
        ]
        kept = kept | (pl.col("_rk_b1") > 0)
    per_item = truth.group_by(*keys, item).agg(read).filter(kept)
    # In a fixed order: the sums below are then the same on every call, bit for bit.
    return per_item.join(groups.select(*keys, "_rk_group"), on=keys).sort("_rk_group", item)


def laid_out(per_item: pl.DataFrame, ranked: pl.DataFrame, groups: int, keys: list[str],
             item: str, depth: int, policy: Policy,
             columns: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """Per column of `columns` (probabilities per item): (groups x depth, the item's at each
    rank up to `depth`; groups x m, those of the others R counts: ranked deeper, or, under
    ``pool="all"``, not retrieved), the others in the same order for every column."""
    top = ranked.filter(pl.col("rank") <= depth).select(*keys, item, "rank")
    placed = per_item.join(top, on=[*keys, item]).with_columns(pl.col("rank") - 1)
    counted = counted_items(per_item, ranked, keys, item, policy)
    rest = counted.join(top, on=[*keys, item], how="anti", maintain_order="left")
    rest = rest.with_columns(pl.int_range(pl.len()).over("_rk_group").alias("_rk_position"))
    width = largest(rest["_rk_position"]) + 1 if rest.height else 0
    return [
        (
            padded(placed, "_rk_group", "rank", column, groups, depth),
            padded(rest, "_rk_group", "_rk_position", column, groups, width),
        )
        for column in columns
    ]


def laid_out_by_places(
    per_item: pl.DataFrame,
    places: pl.Series,
    groups: int,
    depth: int,
    policy: Policy,
    columns: Sequence[str],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`laid_out` from each item's place in its group's ranking (`places`, one per row of
    `per_item`: 0 not among the candidates, its rank up to `depth`, ``depth + 1`` deeper):
    the same arrays, without the ranked list. `per_item` is in its groups' order."""
    place = places.to_numpy()
    group = per_item["_rk_group"].to_numpy()
    ranked = (place >= 1) & (place <= depth)
    # The others R counts, in `per_item`'s order: every one, or those among the candidates.
    counted = np.ones(place.shape, dtype=bool) if policy.pool == "all" else place > 0
    rest = np.flatnonzero(counted & ~ranked)
    rest_group = group[rest]
    # Each one's position among its group's others (the rows come group by group).
    position = np.arange(rest.size) - np.searchsorted(rest_group, rest_group, side="left")
    width = int(position.max()) + 1 if rest.size else 0
    at_rank = np.flatnonzero(ranked)
    laid = []
    for column in columns:
        values = per_item[column].to_numpy()
        top = np.zeros((groups, max(depth, 0)))
        top[group[at_rank], place[at_rank] - 1] = values[at_rank]
        others = np.zeros((groups, width))
        others[rest_group, position] = values[rest]
        laid.append((top, others))
    return laid


def counted_items(per_item: pl.DataFrame, ranked: pl.DataFrame, keys: list[str], item: str,
                  policy: Policy) -> pl.DataFrame:  # fmt: skip
    """The items that may be relevant and count in R: every one, or (``pool="restrict"``)
    those among the candidates."""
    if policy.pool == "all":
        return per_item
    listed = ranked.select(*keys, item)
    return per_item.join(listed, on=[*keys, item], how="semi", maintain_order="left")


def plan_metrics(plan: Plan) -> frozenset[str]:
    """The canonical metrics of the plan's one part."""
    request = plan.parts[0].request
    return frozenset(DEFAULT_METRICS if request.default else request.metrics)


#: The metrics that read hits at a multiple of R, and the multiple: R-precision and trec_eval's
#: Rprec_mult, precision at (long) (multiple R + 0.9).
R_MULTIPLES = {"r_precision": 1.0, **RPREC_MULTIPLE_OF}


def r_multiple(metrics: Iterable[str]) -> float:
    """The largest multiple of R the `metrics` read hits at (0: none reads R)."""
    return max((R_MULTIPLES[metric] for metric in metrics if metric in R_MULTIPLES), default=0.0)


def ranks_read(
    ks: Iterable[int | None], reads_r: float, truth: pl.DataFrame, keys: list[str], item: str,
    relevance: str, probability: str | None, threshold: float,
) -> int:  # fmt: skip
    """The ranks of the ranking the label recursion reads: to the largest of `ks` and, where
    hits at a multiple of R are read (`reads_r`, the largest multiple: `r_multiple`), to the
    most items one group of `truth` may find relevant (a grade at or above `threshold`, of
    positive `probability` where it is given) and to that multiple's rank. The one depth the
    evaluation's pass lists places to (`evaluated_over_labels`), the recursion lays out and
    reads the ranked list to (`exact`, `recursion`): where the pass lists fewer places than
    the recursion reads, the places come from a second ranking."""
    deepest = max((k for k in ks if k is not None), default=0)
    if not reads_r:
        return deepest
    relevant = pl.col(relevance) >= threshold
    if probability is not None:
        relevant = relevant & (pl.col(probability) > 0)
    counts = truth.filter(relevant).group_by(keys).agg(pl.col(item).n_unique().alias("n"))
    most = counts.get_column("n").max() if counts.height else 0
    most = int(most) if isinstance(most, int) else 0
    return max(deepest, most, int(reads_r * most + 0.9))


class BaseRanking:
    """The ranking of `base` (the evaluation at each item's highest grade), read to `depth()`:
    each item's place from the kernel's one ranking, or the ranked list (collected once)."""

    def __init__(self, base: Any, policy: Policy, depth: Callable[[], int]) -> None:
        self._base, self._policy, self._read = base, policy, depth
        self._listed: pl.DataFrame | None = None
        self._depth: int | None = None

    def depth(self) -> int:
        if self._depth is None:  # read once: the truth's relevant items counted once
            self._depth = self._read()
        return self._depth

    def listed(self) -> pl.DataFrame:
        if self._listed is None:
            if self._policy.ties in BLOCK_TIES:
                # The ranking's tie blocks, whose order the labels decide in each outcome.
                ranked = self._base.ranked_items(tie_blocks=True)
            else:
                pool_all = self._policy.pool == "all"
                ranked = self._base.ranked_items(top=self.depth() if pool_all else None)
            self._listed = ranked.collect()
        return self._listed

    def places(self, pairs: pl.DataFrame, depth: int) -> pl.Series | None:
        found: pl.Series | None = None
        if self._policy.pool == "all":
            # An item past the depth counts in R as one not retrieved does: the places the
            # evaluation's own ranking pass listed serve (0 for both), without ranking again.
            found = self._base.ranked_places(pairs, depth)
        if found is None:
            found = self._base.item_ranks(pairs, depth)
        return found


def empty_chance(
    ranking: BaseRanking, truth: pl.DataFrame, evaluated: pl.DataFrame, keys: list[str],
    item: str, relevance: str, probability: str, policy: Policy,
) -> pl.DataFrame:  # fmt: skip
    """keys, ``_rk_none``: each evaluated group's chance that no item R counts is relevant
    (those listed alone under ``pool="restrict"``)."""
    groups = evaluated.select(*keys, "n_candidates").with_row_index("_rk_group")
    per_item = possible_items(
        truth, groups, keys, item, relevance, probability, policy, np.empty(0)
    )
    if policy.pool == "restrict":
        per_item = per_item.filter(in_list(ranking, per_item, keys, item, policy))
    none = per_item.group_by(keys).agg(_rk_none=(1.0 - pl.col("_rk_q")).product())
    return (
        groups.select(keys)
        .join(none, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col("_rk_none").fill_null(1.0))
    )


def in_list(
    ranking: BaseRanking, per_item: pl.DataFrame, keys: list[str], item: str, policy: Policy
) -> pl.Series:
    """Whether each row of `per_item` is among its group's candidates: its place in the
    evaluation's ranking (read to the whole list), or the ranked list itself (its tie blocks
    under the orders that read the labels)."""
    if policy.ties not in BLOCK_TIES:
        place = ranking.places(per_item.select(*keys, item), ranking.depth())
        if place is not None:
            return place >= 1
    found = ranking.listed().select(*keys, item).unique().with_columns(_rk_listed=pl.lit(True))
    joined = per_item.join(found, on=[*keys, item], how="left", maintain_order="left")
    return joined["_rk_listed"].fill_null(False)
