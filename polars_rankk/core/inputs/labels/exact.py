"""The cells of a label-probability evaluation computed exactly — by the recursion over
ranks (`recursion`) and by bpref's walk down the ranked judged items (`bpref`) — chosen once
from the plan, the policy and the labels, and computed when `evaluate` is called, on eager
and lazy inputs alike, so that both give the same numbers and name the same methods."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.inputs.labels.bpref import BPREF_METRICS, bpref_by_recursion, bpref_is_exact
from polars_rankk.core.inputs.labels.cells import (
    RelevantGains,
    recursive_cells,
    relevant_gains,
)
from polars_rankk.core.inputs.labels.laws import largest
from polars_rankk.core.inputs.labels.layout import plan_metrics, ranks_read
from polars_rankk.core.inputs.labels.recursion import CompiledMoments, expected_by_recursion
from polars_rankk.core.inputs.labels.tie_blocks import BLOCK_TIES
from polars_rankk.core.inputs.spec import truncated_grade
from polars_rankk.core.names.listing import metric_rank
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

_CELL = {"metric": pl.String, "k": pl.Int64}
_VALUES = {"value": pl.Float64, "std": pl.Float64, "standard_error": pl.Float64}
_METHODS = {
    **_CELL, "method": pl.String, "n_enumerated": pl.UInt32, "n_linear": pl.UInt32,
    "n_sampled": pl.UInt32, "n_recursion": pl.UInt32, "draws": pl.Int32,
}  # fmt: skip


@dataclass(frozen=True)
class ExactCells:
    """The recursion's cells: their per-group rows, their `label_methods` rows, the groups'
    R_g expectations (lazy frames for a lazy evaluation), and whether they are every cell
    of the evaluation."""

    rows: FrameLike
    methods: FrameLike
    groups: FrameLike
    complete: bool

    def in_place_of(
        self, rows: pl.LazyFrame, methods: pl.LazyFrame, keys: list[str]
    ) -> tuple[pl.LazyFrame, pl.LazyFrame]:
        """Another method's `rows` and `methods` with the recursion's cells in their place."""
        cell, cut = [*keys, "metric", "k"], ["metric", "k"]
        own_rows, own_methods = self.rows.lazy(), self.methods.lazy()
        others = rows.join(own_rows, on=cell, how="anti", nulls_equal=True)
        combined = pl.concat([others, own_rows]).sort(*keys, metric_rank(), "k", nulls_last=True)
        rest = methods.join(own_methods, on=cut, how="anti", nulls_equal=True)
        listed = pl.concat([own_methods, rest.cast(_METHODS)])  # type: ignore[arg-type]
        return combined, listed.sort(metric_rank(), "k", nulls_last=True)


def exact_cells(
    base: Any,
    truth: pl.LazyFrame,
    plan: Plan,
    inputs: Inputs,
    probability: str,
    draws: int,
    compiled: CompiledMoments | None = None,
) -> ExactCells | None:
    """The cells of `plan` the recursion computes on `truth` (checked probabilities; `base`
    the evaluation under each item's highest grade, whose groups and ranking it reads), or
    None where it computes none."""
    policy = plan.parts[0].policy
    judged = truth.collect()  # small beside the candidates; its checks have read it already
    if policy.fractional_grades == "truncate":
        # The grades the evaluation reads (its outcomes are truncated as it evaluates them).
        grade = pl.col(inputs.relevance)
        judged = judged.with_columns(truncated_grade(grade).cast(pl.Float64))
    gains = relevant_gains(judged, inputs.keys, inputs.item, inputs.relevance, probability, policy)
    chosen = _chosen_metrics(plan, policy, judged, inputs, probability, gains)
    if not chosen:
        return None
    complete = chosen == plan_metrics(plan)
    computed = _computed(base, judged, chosen, policy, inputs, probability, gains, compiled)
    rows, methods, groups = _methods_named(*computed, draws)
    if inputs.eager:
        return ExactCells(rows, methods, groups, complete)
    # Computed now for lazy inputs too (the recursion is NumPy over collected rows; inside a
    # deferred frame its own collects could wait on the engine's busy threads): the same
    # numbers and methods as eager tables, as lazy frames.
    return ExactCells(rows.lazy(), methods.lazy(), groups.lazy(), complete)


def _chosen_metrics(
    plan: Plan,
    policy: Policy,
    truth: pl.DataFrame,
    inputs: Inputs,
    probability: str,
    gains: RelevantGains,
) -> frozenset[str]:
    """The metrics the recursion computes at every cut-off of the plan: read at a K (or
    R-precision, which has none), under a policy and labels it reads (`recursive_cells`),
    and bpref by its walk down the ranked judged items (`bpref.bpref_is_exact`)."""
    request = plan.parts[0].request
    whole = {m.metric for m in request.measures if m.whole_list and m.metric != "r_precision"}
    deepest = max(plan.ks, default=0)
    metrics = plan_metrics(plan)
    asked = [
        (metric, None if metric == "r_precision" else deepest)
        for metric in metrics
        if metric not in whole
    ]
    chosen = recursive_cells(asked, policy, truth, inputs.relevance, probability, gains)
    found = {metric for metric, _ in chosen}
    declared = inputs.n_relevant is not None
    if metrics & BPREF_METRICS and bpref_is_exact(
        policy, truth, inputs.keys, inputs.item, inputs.relevance, probability, declared
    ):
        found |= metrics & BPREF_METRICS
    return frozenset(found)


def _computed(
    base: Any,
    truth: pl.DataFrame,
    chosen: frozenset[str],
    policy: Policy,
    inputs: Inputs,
    probability: str,
    gains: RelevantGains,
    compiled: CompiledMoments | None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rows, groups) of the `chosen` metrics' cells, by the recursion (`compiled`: in the
    kernel, where it computes them)."""
    keys, relevance = inputs.keys, inputs.relevance
    lazy = isinstance(base.per_group, pl.LazyFrame)
    per_group, groups = (
        pl.collect_all([base.per_group.lazy(), base.groups.lazy()])
        if lazy
        else (base.per_group, base.groups)
    )
    asked = per_group.select(*keys, "metric", "k").filter(pl.col("metric").is_in(list(chosen)))
    by_walk = pl.col("metric").is_in(list(BPREF_METRICS))
    asked, walked = asked.filter(~by_walk), asked.filter(by_walk)
    ks = asked["k"].drop_nulls().unique().to_list()  # the cut-offs, each once

    def depth() -> int:
        """The ranks the ranked list is read to (where the recursion reads the list, not the
        places): `layout.ranks_read`."""
        reads_r = "r_precision" in chosen
        return ranks_read(ks, reads_r, truth, keys, inputs.item, relevance, probability,
                          policy.relevance_threshold)  # fmt: skip

    rows, expected_groups = expected_by_recursion(
        _BaseRanking(base, policy, depth), truth, groups, asked, keys=keys, item=inputs.item,
        relevance=relevance, probability=probability, policy=policy, gains=gains,
        compiled=compiled,
    )  # fmt: skip
    if walked.height:  # bpref reads every ranked judged item: the whole list
        whole = largest(groups["n_candidates"])
        rows = pl.concat([rows, bpref_by_recursion(
            _BaseRanking(base, policy, lambda: whole), truth, groups, walked, keys=keys,
            item=inputs.item, relevance=relevance, probability=probability, policy=policy,
        )])  # fmt: skip
    if lazy or walked.height:  # eager rows of one method are sorted already (the join keeps them)
        rows = rows.sort(*keys, metric_rank(), "k", nulls_last=True)
    return rows, expected_groups


class _BaseRanking:
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


def _methods_named(
    rows: pl.DataFrame, groups: pl.DataFrame, draws: int
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(rows, label_methods, groups): the recursion named as the method of each of its cells."""
    methods = rows.group_by("metric", "k", maintain_order=True).agg(
        method=pl.lit("recursion"),
        n_enumerated=pl.lit(0, dtype=pl.UInt32),
        n_linear=pl.lit(0, dtype=pl.UInt32),
        n_sampled=pl.lit(0, dtype=pl.UInt32),
        n_recursion=pl.len().cast(pl.UInt32),
        draws=pl.lit(draws, dtype=pl.Int32),
    )
    return rows, methods, groups
