"""The cells of a label-probability evaluation computed exactly — by the recursion over
ranks (`recursion`) and by bpref's walk down the ranked judged items (`bpref`) — chosen once
from the plan, the policy and the labels, and computed when `evaluate` is called, on eager
and lazy inputs alike, so that both give the same numbers and name the same methods."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import polars as pl

from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.inputs.labels.bpref import bpref_by_recursion, bpref_is_exact
from polars_rankk.core.inputs.labels.cells import (
    FIXED_ORDER_TIES,
    RelevantGains,
    recursive_cells,
    relevant_gains,
)
from polars_rankk.core.inputs.labels.laws import largest, scaled_rbp_cells
from polars_rankk.core.inputs.labels.layout import (
    R_MULTIPLES,
    BaseRanking,
    empty_chance,
    in_list,
    plan_metrics,
    r_multiple,
    ranks_read,
)
from polars_rankk.core.inputs.labels.recursion import CompiledMoments, expected_by_recursion
from polars_rankk.core.inputs.labels.tie_blocks import GRADE_READING_TIES
from polars_rankk.core.inputs.spec import truncated_grade
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.listing import metric_rank
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

#: The metrics that read no label, only which listed items the truth judges and the list
#: itself: the same in every outcome wherever every truth item stays judged in each
#: (`constant_is_exact`), so their value is the evaluation's at each item's highest grade.
CONSTANT_METRICS = frozenset({"judged", "unjudged", "rbp_residual", "num_retrieved"})
#: The whole list's counts and the set measures over them (trec_eval num_rel, num_rel_ret,
#: set_P, set_recall, set_F, set_relative_P, set_map, utility, num_nonrel_judged_ret):
#: functions of the list's relevant count h and R = h + y alone, two independent
#: Poisson-binomial counts whatever the order (`_count_cells`).
COUNT_METRICS = frozenset(
    {
        *("num_relevant", "num_relevant_retrieved", "set_precision", "set_recall", "set_f"),
        *("set_relative_precision", "set_average_precision", "utility"),
        "num_nonrelevant_judged_retrieved",
    }
)
#: The metrics whose value over the whole list is their value at any cut-off past the list and
#: past the group's relevant count (`Metric.deep`: trec_eval's map, recip_rank, ndcg, binG):
#: read by the recursion there.
WHOLE_AS_DEEP = frozenset(metric.name for metric in REGISTRY.values() if metric.deep)
#: The metrics whose value per group is another's (`Metric.per_group_as`: their summaries
#: differ, a geometric mean over groups), computed as that metric's cells.
SAME_PER_GROUP = {
    metric.name: metric.per_group_as for metric in REGISTRY.values() if metric.per_group_as
}
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
    threshold = policy.relevance_threshold

    @cache
    def whole_depth() -> int:  # whole-list cells' cut-off: past every list and R (read once)
        groups = base.groups.lazy().collect()
        return ranks_read([largest(groups["n_candidates"])], 1.0, judged, inputs.keys,
                          inputs.item, inputs.relevance, probability, threshold)  # fmt: skip

    chosen = _chosen_metrics(plan, policy, judged, inputs, probability, gains, whole_depth)
    if not chosen:
        return None
    complete = chosen == plan_metrics(plan)
    computed = _computed(
        base, judged, chosen, policy, inputs, probability, gains, compiled, whole_depth
    )
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
    whole_depth: Callable[[], int],
) -> frozenset[str]:
    """The metrics the recursion computes at every cut-off of the plan: read at a K (or
    R-precision, which has none), under a policy and labels it reads (`recursive_cells`),
    and bpref by its walk down the ranked judged items (`bpref.bpref_is_exact`)."""
    request = plan.parts[0].request
    metrics = plan_metrics(plan)
    whole = {m.metric for m in request.measures if m.whole_list and m.metric != "r_precision"}
    # A metric without a cut-off whose value is its sum's at a deep one (binG) is read there.
    whole |= {metric for metric in metrics & WHOLE_AS_DEEP if not REGISTRY[metric].has_k}
    deepest = max(plan.ks, default=0)
    asked = [
        (metric, None if metric in R_MULTIPLES else deepest)
        for metric in metrics
        if metric not in whole
    ]
    asked += [
        (metric, max(deepest, whole_depth()))
        for metric in whole
        if SAME_PER_GROUP.get(metric, metric) in WHOLE_AS_DEEP
    ]
    as_asked = [(SAME_PER_GROUP.get(metric, metric), k) for metric, k in asked]
    chosen = set(recursive_cells(as_asked, policy, truth, inputs.relevance, probability, gains))
    found = {metric for (metric, _), cell in zip(asked, as_asked, strict=True) if cell in chosen}
    if metrics & CONSTANT_METRICS and constant_is_exact(
        policy, truth, inputs.relevance, probability
    ):
        found |= metrics & CONSTANT_METRICS
    elif "num_retrieved" in metrics:
        # The list's length: the same in every outcome whatever order the labels give it.
        fixed_order = replace(policy, ties="trec_eval")
        if constant_is_exact(fixed_order, truth, inputs.relevance, probability):
            found.add("num_retrieved")
    declared = inputs.n_relevant is not None
    if metrics & COUNT_METRICS and counts_are_exact(
        policy, truth, inputs.relevance, probability, declared
    ):
        found |= metrics & COUNT_METRICS
        # J - h where the judged items listed, J, are the same in every outcome (no negative
        # grade of positive chance unjudged), whatever the order: it counts the whole list.
        fixed_order = replace(policy, ties="trec_eval")
        if not constant_is_exact(fixed_order, truth, inputs.relevance, probability):
            found -= {"num_nonrelevant_judged_retrieved"}
    if "trec_rbp" in metrics and scaled_rbp_is_exact(policy, truth, inputs.relevance, probability):
        found.add("trec_rbp")
    walked = {metric for metric in metrics if SAME_PER_GROUP.get(metric, metric) == "bpref"}
    if walked and bpref_is_exact(
        policy, truth, inputs.keys, inputs.item, inputs.relevance, probability, declared
    ):
        found |= walked
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
    whole_depth: Callable[[], int],
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
    # A twin's cells are its metric's (computed once where both are asked), renamed at the end.
    asked, twins = _twins_apart(asked, keys) if chosen & SAME_PER_GROUP.keys() else (asked, None)
    resolved = {SAME_PER_GROUP.get(metric, metric) for metric in chosen}
    # The same in every outcome, and the whole list's counts: apart from the recursion's.
    fixed, counted = per_group.clear(), asked.clear()
    if chosen & CONSTANT_METRICS:
        by_constant = pl.col("metric").is_in(list(chosen & CONSTANT_METRICS))
        fixed, asked = per_group.filter(by_constant), asked.filter(~by_constant)
    if chosen & COUNT_METRICS:
        by_counts = pl.col("metric").is_in(list(COUNT_METRICS))
        # With the values at each item's highest grade: the judged items listed read there.
        counted = per_group.filter(by_counts & pl.col("metric").is_in(list(chosen)))
        asked = asked.filter(~by_counts)
    scaled = asked.clear()
    if "trec_rbp" in chosen:  # read by its grade laws, apart from the recursion's
        scaled = asked.filter(pl.col("metric") == "trec_rbp")
        asked = asked.filter(pl.col("metric") != "trec_rbp")
    walked = deep = asked.clear()
    if "bpref" in resolved:  # GM-bpref's cells too, as its twin's
        by_walk = pl.col("metric") == "bpref"
        asked, walked = asked.filter(~by_walk), asked.filter(by_walk)
    if resolved & WHOLE_AS_DEEP:
        by_depth = pl.col("k").is_null() & pl.col("metric").is_in(list(WHOLE_AS_DEEP))
        asked, deep = asked.filter(~by_depth), asked.filter(by_depth)
    ks = asked["k"].drop_nulls().unique().to_list()  # the cut-offs, each once

    def depth() -> int:
        """The ranks the ranked list is read to (where the recursion reads the list, not the
        places): `layout.ranks_read`."""
        reads_r = r_multiple(chosen)
        return ranks_read(ks, reads_r, truth, keys, inputs.item, relevance, probability,
                          policy.relevance_threshold)  # fmt: skip

    rows, expected_groups = expected_by_recursion(
        BaseRanking(base, policy, depth), truth, groups, asked, keys=keys, item=inputs.item,
        relevance=relevance, probability=probability, policy=policy, gains=gains,
        compiled=compiled,
    )  # fmt: skip
    if deep.height:  # whole-list cells: their values at a cut-off past every list and R
        cut = whole_depth()
        found, _ = expected_by_recursion(
            BaseRanking(base, policy, lambda: cut), truth, groups, deep.with_columns(k=cut),
            keys=keys, item=inputs.item, relevance=relevance, probability=probability,
            policy=policy, gains=gains, compiled=compiled)  # fmt: skip
        rows = pl.concat([rows, found.with_columns(k=pl.lit(None, rows.schema["k"]))])
    if walked.height:  # bpref reads every ranked judged item: the whole list
        whole = largest(groups["n_candidates"])
        rows = pl.concat([rows, bpref_by_recursion(
            BaseRanking(base, policy, lambda: whole), truth, groups, walked, keys=keys,
            item=inputs.item, relevance=relevance, probability=probability, policy=policy,
        )])  # fmt: skip
    if counted.height:  # the whole list's relevant count: every ranked item's place
        whole_list = largest(groups["n_candidates"])
        rows = pl.concat([rows, _count_cells(
            BaseRanking(base, policy, lambda: whole_list), truth, groups, counted, keys=keys,
            item=inputs.item, relevance=relevance, probability=probability, policy=policy,
        )])  # fmt: skip
    if scaled.height:  # trec RBP reads every ranked item's place: the whole list
        whole_ranks = largest(groups["n_candidates"])
        rows = pl.concat([rows, scaled_rbp_cells(
            BaseRanking(base, policy, lambda: whole_ranks), truth, groups, scaled, keys=keys,
            item=inputs.item, relevance=relevance, probability=probability, policy=policy,
        )])  # fmt: skip
    if fixed.height:  # the same in every outcome: no spread
        zero = pl.lit(0.0, dtype=pl.Float64)
        own = fixed.select(*keys, "metric", "k", "value", std=zero, standard_error=zero)
        if policy.empty_truth == "nan":  # NaN wherever an outcome without R has a chance
            ranked = BaseRanking(base, policy, lambda: largest(groups["n_candidates"]))
            none = empty_chance(ranked, truth, groups, keys, inputs.item, relevance,
                                probability, policy)  # fmt: skip
            nan = pl.when(pl.col("_rk_none") > 0).then(float("nan"))
            own = own.join(none, on=keys, how="left", nulls_equal=True, maintain_order="left")
            own = own.with_columns(value=nan.otherwise("value"), std=nan.otherwise("std")).drop(
                "_rk_none"
            )
        rows = pl.concat([rows, own.cast(rows.schema)])
    if twins is not None:
        rows = _twins_renamed(rows, *twins, keys)
    # Eager rows of one method are sorted already (the join keeps them).
    if lazy or twins or any(part.height for part in (walked, fixed, counted, scaled, deep)):
        rows = rows.sort(*keys, metric_rank(), "k", nulls_last=True)
    return rows, expected_groups


def _twins_apart(
    asked: pl.DataFrame, keys: list[str]
) -> tuple[pl.DataFrame, tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame] | None]:
    """(the cells to compute, each twin's as its metric's once; (the twins' cells with the
    metric they read, ``_rk_as``; those cells as that metric's; the other cells asked), or
    None where no twin is asked)."""
    is_twin = pl.col("metric").is_in(list(SAME_PER_GROUP))
    twins = asked.filter(is_twin).with_columns(_rk_as=pl.col("metric").replace(SAME_PER_GROUP))
    if not twins.height:
        return asked, None
    not_twins = asked.filter(~is_twin)
    as_twin = twins.select(*keys, metric="_rk_as", k="k")
    return pl.concat([not_twins, as_twin]).unique(maintain_order=True), (twins, as_twin, not_twins)


def _twins_renamed(
    rows: pl.DataFrame, twins: pl.DataFrame, as_twin: pl.DataFrame, not_twins: pl.DataFrame,
    keys: list[str],
) -> pl.DataFrame:  # fmt: skip
    """`rows` with each twin's cells under its own name (and its metric's left out where that
    metric was not asked itself)."""
    cell = [*keys, "metric", "k"]
    named = twins.select(*keys, metric="_rk_as", k="k", _rk_name="metric")
    renamed = rows.join(named, on=cell, nulls_equal=True).with_columns(metric="_rk_name")
    added = as_twin.join(not_twins, on=cell, how="anti", nulls_equal=True)
    rows = rows.join(added, on=cell, how="anti", nulls_equal=True)
    return pl.concat([rows, renamed.drop("_rk_name")])


def constant_is_exact(
    policy: Policy, truth: pl.DataFrame, relevance: str, probability: str
) -> bool:
    """Whether `CONSTANT_METRICS` are the same in every label outcome: each truth item judged
    in each (a grade of positive probability below 0 would be unjudged under
    ``negative_grades="unjudged"``), the order fixed before the labels are read (the
    orders by grade could move a judged item past K in place of an unjudged one). Under
    ``empty_truth="nan"`` the expectation is NaN wherever an outcome without a relevant item
    has a chance (`layout.empty_chance`), the constant elsewhere."""
    if policy.ties in GRADE_READING_TIES:
        return False
    if policy.negative_grades != "unjudged":
        return True
    negative = (pl.col(relevance) < 0) & (pl.col(probability) > 0)
    return truth.filter(negative).height == 0


def counts_are_exact(
    policy: Policy, truth: pl.DataFrame, relevance: str, probability: str, declared: bool
) -> bool:
    """Whether `COUNT_METRICS` are read from the laws of h and y: R counted from the truth
    (no declared R), each item once (kept copies would count a relevant item once per copy),
    grade 0 not relevant, and the list the same in every outcome (an unjudged negative grade
    would leave a list condensed to its judged items)."""
    if declared or policy.duplicates == "keep" or policy.relevance_threshold <= 0:
        return False
    return _one_list_in_every_outcome(policy, truth, relevance, probability)


def _count_cells(
    ranking: BaseRanking,
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
    """The rows (keys, metric, k, value, std, standard_error) of the `cells` of
    `COUNT_METRICS`: h, the relevant items in the list, and y, those R counts outside it, are
    independent Poisson-binomial counts over the items that may be relevant (the work is
    their number squared, not the list's length), and each (h, y) pair's value is computed as
    the evaluation computes it (`laws.count_moments`; set_F by `graded.f_beta_moments`, the
    F-beta@K of a K that holds the whole list)."""
    import numpy as np

    from polars_rankk.core.inputs.labels.graded import f_beta_moments
    from polars_rankk.core.inputs.labels.laws import conditioned, count_moments, side_by_side
    from polars_rankk.core.inputs.labels.layout import possible_items
    from polars_rankk.core.metrics.families.trec_eval import UTILITY_COEFFICIENTS

    groups = evaluated.select(*keys, "n_candidates").with_row_index("_rk_group")
    per_item = possible_items(
        truth, groups, keys, item, relevance, probability, policy, np.empty(0)
    )
    listed = in_list(ranking, per_item, keys, item, policy)
    within = side_by_side(per_item.filter(listed), "_rk_q", groups.height)
    # The relevant items R counts outside the list: every other one, or none (pool="restrict").
    others = per_item.filter(~listed) if policy.pool == "all" else per_item.clear()
    beyond = side_by_side(others, "_rk_q", groups.height)
    n_list = groups["n_candidates"].cast(pl.Float64).to_numpy()
    shape = (groups.height, within.shape[1] + 1)

    def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
        """As the evaluation's ratio_or_zero: 0 where the denominator is 0."""
        safe = np.where(denominator > 0, denominator, 1.0)
        return np.broadcast_to(np.where(denominator > 0, numerator / safe, 0.0), shape)

    n = n_list[:, None]
    a, b, c, d = UTILITY_COEFFICIENTS

    def utility(hits: np.ndarray, y: int) -> np.ndarray:
        """trec_eval's utility. Where R = 0 it is -n, kept under ``empty_truth="zero"`` (the
        outcome scores it), else 0 (left out, or NaN: as `conditioned` reads it)."""
        value = a * hits + b * (n - hits) + c * y + d * (hits - n - (hits + y))
        return np.where((hits + y > 0) | (policy.empty_truth == "zero"), value, 0.0)

    values = {
        "num_relevant_retrieved": lambda hits, y: np.broadcast_to(hits, shape),
        "num_relevant": lambda hits, y: np.broadcast_to(hits + y, shape),
        "set_precision": lambda hits, y: ratio(hits, n),
        "set_recall": lambda hits, y: ratio(hits, hits + y),
        "set_relative_precision": lambda hits, y: ratio(hits, np.minimum(n, hits + y)),
        "set_average_precision": lambda hits, y: ratio(hits * hits, n * (hits + y)),
        "utility": utility,
    }
    # The judged items listed, J: the value at each item's highest grade, J less the items
    # listed that may be relevant (each relevant there).
    judged = cells.filter(metric="num_nonrelevant_judged_retrieved").select(*keys, "value")
    listed_j = groups.join(judged, on=keys, how="left", nulls_equal=True, maintain_order="left")
    j = (listed_j["value"].fill_null(0.0).to_numpy() + (within > 0).sum(axis=1))[:, None]
    values["num_nonrelevant_judged_retrieved"] = lambda hits, y: np.where(
        (hits + y > 0) | (policy.empty_truth == "zero"), j - hits, 0.0
    )  # J where R = 0: scored under "zero", else left out or NaN (as `conditioned` reads)
    none = np.prod(1 - within, axis=1) * np.prod(1 - beyond, axis=1)
    frames = []
    for metric in cells["metric"].unique(maintain_order=True):
        moments = (
            f_beta_moments(within, beyond, n_list, float(policy.f_beta))
            if metric == "set_f"
            else count_moments(within, beyond, values[metric])
        )
        mean, spread = conditioned(*moments, none, policy)
        frames.append(groups.select(*keys, metric=pl.lit(metric), value=mean, std=spread))
    return cells.select(*keys, "metric", "k").join(
        pl.concat(frames), on=[*keys, "metric"], how="left", nulls_equal=True,
        maintain_order="left",
    ).with_columns(standard_error=pl.lit(0.0))  # fmt: skip


def scaled_rbp_is_exact(
    policy: Policy, truth: pl.DataFrame, relevance: str, probability: str
) -> bool:
    """Whether trec RBP is read from the items' grade laws (`laws.scaled_sum_moments`): the
    order fixed before the labels are read, each item listed once, a relevance threshold
    above 0 (R = 0 is every item below it) and the list the same in every outcome."""
    if policy.ties not in FIXED_ORDER_TIES or policy.duplicates == "keep":
        return False
    if policy.relevance_threshold <= 0:
        return False
    return _one_list_in_every_outcome(policy, truth, relevance, probability)


def _methods_named(
    rows: pl.DataFrame, groups: pl.DataFrame, draws: int
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(rows, label_methods, groups): the recursion named as the method of each of its cells."""
    constant = pl.col("metric").first().is_in(list(CONSTANT_METRICS))
    counts = pl.col("metric").first().is_in(list(COUNT_METRICS))
    methods = rows.group_by("metric", "k", maintain_order=True).agg(
        method=pl.when(constant)
        .then(pl.lit("constant"))
        .when(counts)
        .then(pl.lit("counts"))
        .otherwise(pl.lit("recursion")),
        n_enumerated=pl.lit(0, dtype=pl.UInt32),
        n_linear=pl.lit(0, dtype=pl.UInt32),
        n_sampled=pl.lit(0, dtype=pl.UInt32),
        n_recursion=pl.len().cast(pl.UInt32),
        draws=pl.lit(draws, dtype=pl.Int32),
    )
    return rows, methods, groups


def _one_list_in_every_outcome(
    policy: Policy, truth: pl.DataFrame, relevance: str, probability: str
) -> bool:
    """Whether the evaluated list is the same in every outcome: only a list condensed to its
    judged items under unjudged negative grades changes with a negative grade's chance."""
    if policy.unjudged != "condense" or policy.negative_grades != "unjudged":
        return True
    negative = (pl.col(relevance) < 0) & (pl.col(probability) > 0)
    return truth.filter(negative).height == 0
