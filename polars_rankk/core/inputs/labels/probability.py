"""Metrics when the labels are probabilities: each per-group value is its expectation over
the label outcomes, with its standard deviation.

Truth rows ``(group, item, relevance, p)`` say the item has that grade with probability
``p``; an item's rows sum to at most 1 and the rest of its mass is grade 0 (judged, not
relevant). Items are independent. A group's outcomes are the combinations of its items'
grades: where they are few (at most ``max_outcomes``) every one is evaluated with its
probability as weight, so the expectation and the standard deviation are exact for every
metric; otherwise ``draws`` outcomes are drawn (seeded, from a hash of the group, item and
draw) and the standard error of the Monte Carlo mean is reported. Each outcome is an ordinary
deterministic evaluation, keyed by an outcome column beside the group keys, so the compiled
kernel and the pure-Polars path give the same numbers by construction, and labels of
probability 1 give exactly the deterministic numbers (one outcome, weight 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.inputs.frames import to_lazy
from polars_rankk.core.inputs.labels.linearity import LINEAR_METRICS, linear_moments
from polars_rankk.core.inputs.normalize import align_ids
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.types import FrameLike

if TYPE_CHECKING:  # the recursion is NumPy, which the command's start-up does not load
    from polars_rankk.core.inputs.labels.recursion import CompiledMoments

#: The outcome column added beside the group keys while the outcomes are evaluated.
OUTCOME = "__label_outcome"
#: Groups with at most this many label outcomes are enumerated (exact); others are sampled.
MAX_OUTCOMES = 4096
#: Tolerance on an item's probabilities summing past 1 (rounding in the judge's output).
SUM_TOLERANCE = 1e-9


def checked_probabilities(
    truth: pl.LazyFrame, keys: list[str], item: str, relevance: str, probability: str
) -> pl.LazyFrame:
    """`truth` with ``probability`` checked: numeric, in [0, 1], an item's rows summing to at
    most 1; a ValueError naming the column and an offending row otherwise."""
    schema = truth.collect_schema()
    for column in (*keys, item, relevance, probability):
        if column not in schema:
            raise ValueError(
                f"truth: label_probability={probability!r} needs column {column!r}; "
                f"columns are {schema.names()}"
            )
    if not schema[probability].is_numeric():
        raise TypeError(
            f"truth: column {probability!r} (label_probability) must be numeric; "
            f"got {schema[probability]}"
        )
    p = pl.col(probability).cast(pl.Float64)
    outside = truth.filter(p.is_null() | p.is_nan() | (p < 0) | (p > 1)).head(1).collect()
    if outside.height:
        raise ValueError(
            f"truth: column {probability!r} (label_probability) must hold probabilities in "
            f"[0, 1]; got row {outside.row(0, named=True)}"
        )
    summed = (
        truth.group_by(*keys, item)
        .agg(p.sum().alias(f"sum of {probability}"))
        .filter(pl.col(f"sum of {probability}") > 1 + SUM_TOLERANCE)
        .head(1)
        .collect()
    )
    if summed.height:
        raise ValueError(
            f"truth: an item's probabilities in column {probability!r} (label_probability) "
            f"must sum to at most 1 (the rest is grade 0); got {summed.row(0, named=True)}"
        )
    return truth.select(*keys, item, pl.col(relevance).cast(pl.Float64), p.alias(probability))


def label_outcomes(
    truth: pl.LazyFrame,
    keys: list[str],
    item: str,
    relevance: str,
    probability: str,
    *,
    draws: int,
    seed: int,
    max_outcomes: int = MAX_OUTCOMES,
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    """(truth of every outcome: keys, OUTCOME, item, relevance; outcomes: keys, OUTCOME,
    ``weight``, ``exact``; every item's options: keys, item, relevance, probability). Each
    item's options are its rows and, when they sum below 1, grade 0; an enumerated group's
    outcome ``o`` reads option ``(o // stride) % options`` of each item (mixed radix), a
    sampled one the option whose cumulative interval holds a uniform draw."""
    p = pl.col(probability)
    per_item = [*keys, item]
    rest = (
        truth.group_by(per_item)
        .agg((1 - p.sum()).alias(probability))
        .filter(pl.col(probability) > SUM_TOLERANCE)
        .with_columns(pl.lit(0.0).alias(relevance))
    )
    options = (
        pl.concat([truth.filter(p > 0), rest.select(truth.collect_schema().names())])
        .sort([*per_item, relevance])
        .with_columns(
            option=pl.int_range(pl.len()).over(per_item),
            options=pl.len().over(per_item),
            upper=p.cum_sum().over(per_item),
        )
        .with_columns(lower=pl.col("upper") - p)
    )
    items = (
        options.filter(pl.col("option") == 0)
        .select(*per_item, "options")
        .sort(per_item)
        .with_columns(
            stride=(pl.col("options").cum_prod().over(keys) // pl.col("options")),
            log_options=pl.col("options").cast(pl.Float64).log().sum().over(keys),
        )
    )
    groups = items.group_by(keys).agg(
        exact=pl.col("log_options").first() <= math.log(max_outcomes) + 1e-9,
        count=pl.col("options").cast(pl.Int64).product(),
    )
    outcomes = groups.with_columns(
        pl.int_ranges(0, pl.when("exact").then("count").otherwise(draws)).alias(OUTCOME)
    ).explode(OUTCOME)
    grid = outcomes.join(items, on=keys).join(options, on=per_item)
    uniform = pl.struct(*per_item, OUTCOME).hash(seed).cast(pl.Float64) / 2.0**64
    chosen = (
        pl.when("exact")
        .then(pl.col("option") == (pl.col(OUTCOME) // pl.col("stride")) % pl.col("options"))
        .otherwise((pl.col("lower") <= uniform) & (uniform < pl.col("upper")))
    )
    picked = grid.filter(chosen)
    weights = picked.group_by(*keys, OUTCOME).agg(
        weight=pl.when(pl.col("exact").first()).then(p.product()).otherwise(1.0 / draws),
        exact=pl.col("exact").first(),
    )
    every_option = options.select(*per_item, relevance, probability)
    return picked.select(*keys, OUTCOME, item, relevance), weights, every_option


def expected_values(
    per_outcome: pl.LazyFrame, weights: pl.LazyFrame, keys: list[str], draws: int
) -> pl.LazyFrame:
    """Per (group, metric, k): the expectation (``value``), the standard deviation over the
    label outcomes (``std``) and the Monte Carlo standard error of ``value`` (0 when every
    outcome was evaluated). An outcome in which a policy drops the group does not count (the
    expectation is over the outcomes where the group is evaluated)."""
    weighted = per_outcome.join(weights, on=[*keys, OUTCOME])
    w, v = pl.col("weight"), pl.col("value")
    # Shifted by one outcome's value: identical outcomes give that value exactly.
    first = v.first()
    mean = first + (w * (v - first)).sum() / w.sum()
    spread = ((w * (v - mean) ** 2).sum() / w.sum()).clip(lower_bound=0.0).sqrt()
    return (
        weighted.sort(*keys, OUTCOME)
        .group_by(*keys, "metric", "k", maintain_order=True)
        .agg(value=mean, std=spread, exact=pl.col("exact").all())
        .with_columns(
            standard_error=pl.when("exact").then(0.0).otherwise(pl.col("std") / math.sqrt(draws))
        )
    )


@dataclass(frozen=True)
class LabelDraws:
    """How `evaluate` reads probabilistic labels: the truth's probability column, and the
    outcomes drawn (seeded) for a group with more than `MAX_OUTCOMES`."""

    probability: str
    draws: int = 1000
    seed: int = 0
    #: The recursion over ranks in compiled code, where the kernel is loaded
    #: (`polars_rankk.core.kernel.label_moments.fixed_order_moments`).
    compiled: CompiledMoments | None = None


#: `evaluate_plan`: a plan evaluated on tables (passed in: the evaluation builds on this module).
EvaluatePlan = Callable[[Plan, Inputs], Any]


def evaluated_over_labels(
    evaluate_plan: EvaluatePlan, plan: Plan, inputs: Inputs, labels: LabelDraws
) -> Any:
    """`evaluate` with ``label_probability``: the outcomes evaluated as groups of their own,
    their values reduced to expectations, ``groups`` R_g's expectations; the rest of the
    `Evaluation` (the groups dropped, the diagnostics) is that of each item at its highest
    grade of positive probability (which drops a group for want of a relevant item exactly
    where every outcome does). Each table is evaluated under `plan` (no name read again)."""
    probability, draws = labels.probability, labels.draws
    if len(plan.parts) > 1:
        raise ValueError(
            "label_probability evaluates the names under one policy: evaluate the measures "
            "asking for other parameters on their own"
        )
    if draws < 2:
        raise ValueError(f"label_draws must be at least 2; got {draws}")
    if inputs.truth is None or inputs.system is not None:
        raise ValueError(
            "label_probability needs a truth table and one system (evaluate each system "
            "on its own, or rk.evaluate_systems)"
        )
    keys, item, relevance, eager = inputs.keys, inputs.item, inputs.relevance, inputs.eager
    truth = checked_probabilities(
        to_lazy(inputs.truth, "truth"), keys, item, relevance, probability
    )
    # The group keys in one dtype, as `evaluate` aligns them (the outcomes join on them).
    candidates, truth = align_ids(to_lazy(inputs.candidates, "candidates"), truth, keys)
    # The groups a policy drops whatever the labels (no list, a short list) or in every
    # outcome (no relevant item in any): those of each item at its highest grade of positive
    # probability. Its per-group values are replaced by the expectations below.
    highest = pl.col(relevance).filter(pl.col(probability) > 0).max().fill_null(0.0)
    possible = truth.group_by(*keys, item).agg(highest)  # every judged item stays judged
    if eager:
        # The checked truth read once for both (the recursion reads its rows); the ranking pass
        # lists the items at the ranks the recursion reads: no second one.
        checked, judged = pl.collect_all([truth, possible])
        truth = checked.lazy()
        from polars_rankk.core.inputs.labels.layout import plan_metrics, r_multiple, ranks_read

        threshold = plan.parts[0].policy.relevance_threshold
        reads_r = r_multiple(plan_metrics(plan))
        depth = ranks_read(plan.ks, reads_r, judged, keys, item, relevance, None, threshold)
        listed = replace(inputs, truth=judged, places=depth)
        base = evaluate_plan(plan, listed)
    else:
        base = evaluate_plan(plan, replace(inputs, truth=possible))
    # Imported here: the recursion is NumPy, which the command's start-up does not load.
    from polars_rankk.core.inputs.labels.exact import exact_cells

    exact = exact_cells(base, truth, plan, inputs, probability, draws, labels.compiled)
    if exact is not None and exact.complete:
        base.per_group, base.groups, base.label_methods = exact.rows, exact.groups, exact.methods
        return base
    outcome_truth, weights, options = label_outcomes(
        truth, keys, item, relevance, probability, draws=draws, seed=labels.seed
    )
    replicated = candidates.join(weights.select(*keys, OUTCOME), on=keys)
    lazy_tables = [outcome_truth, replicated, weights]
    tables: list[pl.DataFrame] | list[pl.LazyFrame] = (
        pl.collect_all(lazy_tables) if eager else lazy_tables
    )
    outcome_truth_table, replicated_table, weights_table = tables
    by_outcome = replace(inputs, group_by=[*keys, OUTCOME])
    per_outcome = evaluate_plan(
        plan, replace(by_outcome, candidates=replicated_table, truth=outcome_truth_table)
    )
    expected = expected_values(per_outcome.per_group.lazy(), weights_table.lazy(), keys, draws)
    from polars_rankk.core.names.listing import metric_rank

    sampled = weights_table.lazy().filter(~pl.col("exact")).select(keys).unique()
    linear = None
    # Eager: no evaluation of the single-item outcomes when every group was enumerated.
    if not eager or weights_table.lazy().filter(~pl.col("exact")).head(1).collect().height:
        single_item = partial(_on_outcome_tables, evaluate_plan, plan, by_outcome)
        policy = plan.parts[0].policy
        linear = linear_moments(
            single_item, policy, inputs, candidates, options, sampled, outcome=OUTCOME,
            probability=probability,
        )  # fmt: skip
    expected = expected.with_columns(exact_before=pl.col("exact"))
    if linear is not None:
        cell = [*keys, "metric", "k"]
        exact_now = pl.col("value_linear").is_not_null()
        expected = expected.join(linear, on=cell, how="left", nulls_equal=True, suffix="_linear")
        expected = expected.select(
            *cell,
            value=pl.when(exact_now).then("value_linear").otherwise("value"),
            std=pl.when(exact_now).then("std_linear").otherwise("std"),
            exact=pl.col("exact") | exact_now,
            standard_error=pl.when(exact_now).then(0.0).otherwise("standard_error"),
            exact_before="exact_before",
        )
    rows = expected.sort(*keys, metric_rank(), "k", nulls_last=True)
    linear_names = list(LINEAR_METRICS) if linear is not None else []
    methods = rows.group_by("metric", "k", maintain_order=True).agg(
        method=pl.when(~pl.col("exact").all()).then(pl.lit("monte_carlo"))
        .when(pl.col("metric").first().is_in(linear_names) & (~pl.col("exact_before")).any())
        .then(pl.lit("linearity"))
        .otherwise(pl.lit("enumeration")),
        n_enumerated=pl.col("exact_before").sum(),
        n_linear=(pl.col("exact") & ~pl.col("exact_before")).sum(),
        n_sampled=(~pl.col("exact")).sum(),
        n_recursion=pl.lit(0, dtype=pl.UInt32),
        draws=pl.lit(draws),
    )  # fmt: skip
    rows = rows.drop("exact", "exact_before")
    groups = expected_groups(per_outcome.groups.lazy(), weights_table.lazy(), keys)
    if exact is not None:  # exact where the recursion reads the cell
        rows, methods = exact.in_place_of(rows, methods, keys)
    base.per_group = rows.collect() if eager else rows
    base.label_methods = methods.collect() if eager else methods
    base.groups = groups.collect() if eager else groups
    return base


def _on_outcome_tables(
    evaluate_plan: EvaluatePlan,
    plan: Plan,
    by_outcome: Inputs,
    candidates: FrameLike,
    truth: FrameLike,
) -> Any:
    """`plan` evaluated on outcome tables (grouped by the keys and the outcome)."""
    return evaluate_plan(plan, replace(by_outcome, candidates=candidates, truth=truth))


def expected_groups(
    per_outcome: pl.LazyFrame, weights: pl.LazyFrame, keys: list[str]
) -> pl.LazyFrame:
    """One row per group evaluated in some outcome: the keys, ``n_candidates`` and
    ``n_relevant`` (Float64), R_g's expectation over the outcomes in which the group is
    evaluated, as each value's."""
    w = pl.col("weight")
    return (
        per_outcome.join(weights, on=[*keys, OUTCOME])
        .group_by(keys)
        .agg(
            pl.col("n_candidates").first(),
            ((w * pl.col("n_relevant")).sum() / w.sum()).alias("n_relevant"),
        )
        .sort(keys)
    )
