"""The diagnostics of a label-probability evaluation that read the labels, as expectations
over the label outcomes: how many relevant items the truth holds and how many lie outside the
candidates, how many groups have no relevant item, how many rows carry each grade, and the
recall ceiling at each K. An item is relevant with probability q (its grades at or above the
threshold), the items independently; the counts add up over items (their expectations are
sums of q), a group has no relevant item with probability the product of its 1 - q, and the
ceiling min(K, c) / R reads the relevant candidates c and the others y, two independent
Poisson-binomial counts (R = c + y)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.laws import poisson_binomial, side_by_side
from polars_rankk.core.policy import Policy


@dataclass(frozen=True)
class ExpectedCounts:
    """The label-reading diagnostics as expectations: scalar counts by name, the recall
    ceiling per K (``k``, ``recall_ceiling``) and the rows per grade (``grade``, ``rows``)."""

    counts: dict[str, float]
    recall_ceiling: pl.DataFrame
    grades: pl.DataFrame


def expected_counts(
    truth: pl.DataFrame,
    listed: pl.DataFrame,
    evaluated: pl.DataFrame,
    *,
    keys: list[str],
    item: str,
    relevance: str,
    probability: str,
    policy: Policy,
    ks: Sequence[int],
    no_relevant_for_certain: float,
) -> ExpectedCounts:
    """`ExpectedCounts` from the checked probabilistic `truth` (keys, item, relevance,
    probability), the candidates' (keys, item) pairs (`listed`), the groups evaluated
    (`evaluated`: keys, n_candidates) and the count of groups without any possibly relevant
    item (`no_relevant_for_certain`: those count whatever the labels)."""
    p, grade = pl.col(probability), pl.col(relevance)
    relevant = (grade >= policy.relevance_threshold) & (p > 0)
    # In a fixed order: the sums below are then the same on every call, bit for bit.
    per_item = (
        truth.group_by(*keys, item)
        .agg(p.filter(relevant).sum().clip(0.0, 1.0).alias("_rk_q"), p.sum().alias("_rk_mass"))
        .sort(*keys, item)
    )
    pooled = listed.select(*keys, item).unique().with_columns(pl.lit(True).alias("_rk_pooled"))
    per_item = per_item.join(pooled, on=[*keys, item], how="left", maintain_order="left")
    per_item = per_item.with_columns(pl.col("_rk_pooled").fill_null(False))
    q = pl.col("_rk_q")
    counted = per_item if policy.pool == "all" else per_item.filter("_rk_pooled")
    none = (
        counted.filter(q > 0)
        .group_by(keys, maintain_order=True)
        .agg((1.0 - q).product().alias("_rk_none"))
    )
    counts = {
        "relevant_in_truth": float(per_item["_rk_q"].sum()),
        "relevant_outside_pool": float(per_item.filter(~pl.col("_rk_pooled"))["_rk_q"].sum()),
        "groups_with_no_relevant": no_relevant_for_certain + float(none["_rk_none"].sum()),
    }
    return ExpectedCounts(
        counts=counts,
        recall_ceiling=_recall_ceiling(counted, evaluated, keys, policy, ks),
        grades=_grades(truth, per_item, relevance, probability),
    )


def _grades(
    truth: pl.DataFrame, per_item: pl.DataFrame, relevance: str, probability: str
) -> pl.DataFrame:
    """Expected (group, item) rows per grade: each grade's probability summed, and the mass
    an item's rows leave to grade 0."""
    given = (
        truth.sort(pl.all())
        .group_by(pl.col(relevance).alias("grade"), maintain_order=True)
        .agg(pl.col(probability).sum().alias("rows"))
    )
    rest = pl.DataFrame(
        {"grade": [0.0], "rows": [float((1.0 - per_item["_rk_mass"]).clip(0.0, 1.0).sum())]}
    )
    both = pl.concat([given.cast({"grade": pl.Float64, "rows": pl.Float64}), rest])
    return both.group_by("grade").agg(pl.col("rows").sum()).filter(pl.col("rows") > 0).sort("grade")


def _recall_ceiling(
    counted: pl.DataFrame,
    evaluated: pl.DataFrame,
    keys: list[str],
    policy: Policy,
    ks: Sequence[int],
) -> pl.DataFrame:
    """Per K: the mean over the groups recall@K is averaged over of E[min(K, c) / R], c the
    relevant candidates and R = c + y, as the evaluation reads a group without a relevant
    item in an outcome (left out, 0, or NaN: the group left out of the mean)."""
    groups = evaluated.select(*keys, "n_candidates").with_row_index("_rk_group")
    placed = counted.filter(pl.col("_rk_q") > 0).join(groups, on=keys, maintain_order="left")
    inside, outside = (
        poisson_binomial(side_by_side(placed.filter(pl.col("_rk_pooled") == pooled), "_rk_q",
                                      groups.height))
        for pooled in (True, False)
    )  # fmt: skip
    none = inside[:, 0] * outside[:, 0]
    c = np.arange(inside.shape[1], dtype=np.float64)[None, :]
    n_candidates = groups["n_candidates"].cast(pl.Float64).to_numpy()
    rows = []
    for k in ks:
        expected = np.zeros(groups.height)
        for y in range(outside.shape[1]):
            share = np.where(c + y > 0, np.minimum(k, c) / np.maximum(c + y, 1.0), 0.0)
            expected += (inside * share).sum(axis=1) * outside[:, y]
        kept = np.ones(groups.height, dtype=bool)
        if policy.empty_truth == "exclude":
            expected = expected / np.where(none < 1, 1.0 - none, 1.0)
        elif policy.empty_truth == "nan":
            kept &= none == 0  # a NaN recall leaves the group out of the mean
        if policy.short_lists == "skip":
            kept &= n_candidates >= k
        chosen = np.sort(expected[kept])
        rows.append((k, float(chosen.mean()) if chosen.size else None))
    return pl.DataFrame(rows, schema={"k": pl.Int64, "recall_ceiling": pl.Float64}, orient="row")
