"""Exact expectations of the metrics that add up over items, for groups with too many label
outcomes to enumerate.

Precision, DCG, RBP and the relevant retrieved count are sums of one term per listed item,
the term of a non-relevant item being 0; the items' labels are independent. So the
expectation is the sum over items and grades of the grade's probability times the metric of
the outcome in which that item alone has that grade, and the variance the sum over items of
each item's variance — where an item's rank does not depend on the other items' labels
(not under tie orders that rank by grade). These single-item outcomes (as many as the items'
grades, not their product) are evaluated as groups of their own, as the enumeration's
outcomes are. Under ``empty_truth="exclude"`` the outcome with no relevant item is not
evaluated: the moments are then conditional on at least one relevant item (probability
``1 - P0``), as the enumeration's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

#: The metrics that add up over items, each non-relevant item adding 0.
LINEAR_METRICS = frozenset({"precision", "dcg", "rbp", "num_relevant_retrieved"})
#: Tie orders that rank tied items by their grades ("expected" averages over every order of
#: a tie block, which keeps each item's term a function of its own grade).
GRADE_ORDERED_TIES = frozenset({"optimistic", "pessimistic"})
#: The linear metrics whose terms do not read the rank (a count over the whole list): an
#: item's term stays a function of its own grade whatever order the ties take.
ORDER_FREE_METRICS = frozenset({"num_relevant_retrieved"})


def linear_moments(
    evaluate_outcomes: Callable[[FrameLike, FrameLike], Any],
    policy: Policy,
    inputs: Inputs,
    candidates: pl.LazyFrame,
    options: pl.LazyFrame,
    sampled: pl.LazyFrame,
    *,
    outcome: str,
    probability: str,
) -> pl.LazyFrame | None:
    """(keys, metric, k, value, std) of the linear metrics for the `sampled` groups whose
    every non-zero grade is relevant (so an outcome without a relevant item scores 0), from
    the items' `options` (keys, item, relevance, probability: every grade, grade 0 included);
    None where the policy makes a term depend on more than its item's grade.
    `evaluate_outcomes` evaluates the plan on (candidates, truth) keyed by `outcome` too."""
    keys, item, relevance, eager = inputs.keys, inputs.item, inputs.relevance, inputs.eager
    if policy.gains is not None or policy.pool != "all" or inputs.n_relevant is not None:
        return None
    # A tie order that reads the grades makes an item's rank, and so a term that reads it,
    # depend on the other items' labels (13 tied items of p=0.5 gave precision@5 = 1.3).
    linear = ORDER_FREE_METRICS if policy.ties in GRADE_ORDERED_TIES else LINEAR_METRICS
    threshold = policy.relevance_threshold
    grade = pl.col(relevance)
    eligible = (
        options.join(sampled, on=keys)
        .group_by(keys)
        .agg(((grade == 0) | (grade >= threshold)).all().alias("eligible"))
        .filter("eligible")
        .select(keys)
    )
    if eager and not eligible.head(1).collect().height:
        return None  # nothing to evaluate (and no empty evaluation to warn about)
    options = options.join(eligible, on=keys)
    # Numbered in a fixed order: `single` is read twice (the outcomes evaluated, then their
    # values joined back), and a join's row order is not fixed.
    single = (
        options.filter(pl.col(relevance) != 0)
        .sort(*keys, item, relevance)
        .with_columns(pl.int_range(pl.len()).over(keys).alias(outcome))
    )
    items = options.select(*keys, item).unique()
    chosen = single.select(
        *keys, outcome, pl.col(item).alias("chosen"), pl.col(relevance).alias("grade")
    )
    truth = chosen.join(items, on=keys).select(
        *keys, outcome, item,
        pl.when(pl.col(item) == pl.col("chosen")).then("grade").otherwise(0.0).alias(relevance),
    )  # fmt: skip
    replicated = candidates.join(single.select(*keys, outcome), on=keys)
    if not eager:
        evaluation = evaluate_outcomes(replicated, truth)
    else:
        evaluation = evaluate_outcomes(*pl.collect_all([replicated, truth]))
    values = evaluation.per_group.lazy().filter(pl.col("metric").is_in(list(linear)))
    cells = values.select("metric", "k").unique()
    per_item = (
        single.join(cells, how="cross")
        .join(values, on=[*keys, outcome, "metric", "k"], how="left", nulls_equal=True)
        .with_columns(pl.col("value").fill_null(0.0).fill_nan(0.0))
        .group_by(*keys, item, "metric", "k")
        .agg(
            first=(pl.col(probability) * pl.col("value")).sum(),
            second=(pl.col(probability) * pl.col("value") ** 2).sum(),
        )
    )
    moments = per_item.group_by(*keys, "metric", "k").agg(
        mean=pl.col("first").sum(),
        variance=(pl.col("second") - pl.col("first") ** 2).sum(),
    )
    relevant = pl.col(relevance) >= threshold
    none_relevant = (
        options.group_by(*keys, item)
        .agg((1 - pl.col(probability).filter(relevant).sum()).clip(0.0, 1.0).alias("none"))
        .group_by(keys)
        .agg(pl.col("none").product().alias("p0"))
    )
    p0 = pl.col("p0")
    second = pl.col("variance") + pl.col("mean") ** 2
    if policy.empty_truth == "exclude":
        mean, second = pl.col("mean") / (1 - p0), second / (1 - p0)
    else:
        mean = pl.col("mean")
    value = (
        pl.when(pl.lit(policy.empty_truth == "nan") & (p0 > 0)).then(float("nan")).otherwise(mean)
    )
    return (
        moments.join(none_relevant, on=keys)
        .filter(p0 < 1)
        .with_columns(value=value, std=(second - mean**2).clip(lower_bound=0.0).sqrt())
        .select(*keys, "metric", "k", "value", "std")
    )
