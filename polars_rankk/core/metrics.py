"""One small expression builder per metric, on the prepared per-group table (SPEC §2).

Each builder reads the cumulated sums of `prepare` at cut-off ``k`` (columns ``stat@k``) and
divides by a column, never by a Python scalar, so that a value is the same whether its frame
has one row or many.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rankk.core.policy import Policy
from polars_rankk.core.prepare import (
    DCG,
    FIRST_HIT,
    HITS,
    HITS_AT_R,
    IDEAL_DCG,
    N_CANDIDATES,
    N_RELEVANT,
    PRECISION_SUM,
    RECIPROCAL_RANK,
    stat_column,
)
from polars_rankk.core.types import MetricName

#: One line per metric: what it measures, with its reference convention.
METRIC_DEFINITIONS: dict[MetricName, str] = {
    "precision": "hits in the top K / K (trec_eval P_k)",
    "recall": "hits in the top K / R, the number of relevant items (trec_eval recall_k)",
    "f1": "harmonic mean of precision@K and recall@K; 0 when both are 0",
    "hit_rate": "1 if any relevant item is in the top K, else 0 (trec_eval success_k)",
    "ndcg": "DCG@K / ideal DCG@K, gain / log2(rank + 1) (trec_eval ndcg_cut_k)",
    "average_precision": "sum of precision@i at relevant ranks i <= K, / R (trec_eval map_cut_k)",
    "mrr": "1 / rank of the first relevant item within K, 0 if none (trec_eval recip_rank)",
    "r_precision": "precision at rank R, the number of relevant items (trec_eval Rprec)",
}


def _ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, or 0 where the denominator is 0."""
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))
        .otherwise(0.0)
    )


def cutoff(k: int) -> pl.Expr:
    """K as a full column: Polars divides by a scalar (or a broadcast column) through its
    reciprocal, which would make a value depend on how many rows its frame has."""
    return pl.col(N_CANDIDATES) * 0 + k


def _at(stat: str, k: int) -> pl.Expr:
    return pl.col(stat_column(stat, k))


def precision_denominator(policy: Policy, k: int) -> pl.Expr:
    """K, or min(K, n) under ``short_lists="observed"``."""
    if policy.short_lists == "observed":
        return pl.min_horizontal(cutoff(k), pl.col(N_CANDIDATES))
    return cutoff(k)


def precision(policy: Policy, k: int) -> pl.Expr:
    """hits@K / K, or / min(K, n) under ``short_lists="observed"``."""
    return _ratio(_at(HITS, k), precision_denominator(policy, k))


def recall(policy: Policy, k: int) -> pl.Expr:
    """hits@K / R_g."""
    return _ratio(_at(HITS, k), pl.col(N_RELEVANT))


def f1(policy: Policy, k: int) -> pl.Expr:
    """2PR / (P + R); 0 when P + R = 0."""
    p = precision(policy, k)
    r = recall(policy, k)
    return _ratio(2.0 * p * r, p + r)


def hit_rate(policy: Policy, k: int) -> pl.Expr:
    """1 if a relevant item is within K (its expectation under ``ties="expected"``)."""
    return _at(FIRST_HIT, k).cast(pl.Float64)


def ndcg(policy: Policy, k: int) -> pl.Expr:
    """DCG@K / IDCG@K; 0 when the ideal DCG is 0."""
    return _ratio(_at(DCG, k), _at(IDEAL_DCG, k))


def average_precision(policy: Policy, k: int) -> pl.Expr:
    """Sum of precision@i at relevant ranks i <= K, over R_g or min(K, R_g)."""
    denominator = pl.col(N_RELEVANT)
    if policy.ap_denominator == "min_k_relevant":
        denominator = pl.min_horizontal(cutoff(k), pl.col(N_RELEVANT))
    return _ratio(_at(PRECISION_SUM, k), denominator)


def mrr(policy: Policy, k: int) -> pl.Expr:
    """1 / rank of the first relevant item within K; 0 if none."""
    return _at(RECIPROCAL_RANK, k).cast(pl.Float64)


def r_precision(policy: Policy) -> pl.Expr:
    """hits@R_g / R_g (it has no K)."""
    return _ratio(pl.col(HITS_AT_R), pl.col(N_RELEVANT))


#: Metric name -> expression builder on the per-(group, k) table.
K_METRIC_BUILDERS: dict[str, Callable[[Policy, int], pl.Expr]] = {
    "precision": precision,
    "recall": recall,
    "f1": f1,
    "hit_rate": hit_rate,
    "ndcg": ndcg,
    "average_precision": average_precision,
    "mrr": mrr,
}

#: Metrics whose value divides by R_g: 0 for empty-truth groups under ``empty_truth="zero"``.
DIVIDES_BY_RELEVANT = frozenset({"recall", "average_precision", "r_precision"})
