"""One small expression builder per metric, on a group's prepared statistics.

Each builder reads the cumulated sums of the ranking at cut-off ``k`` through a `GroupStats`,
and divides by a column, never by a Python scalar, so that a value is the same whether its frame
has one row or many. `evaluate` reads the statistics as columns of its one-row-per-group table
(`COLUMNS`); the expression API builds them inline for one group — the formulas are the same
code. What each metric means is written once, in the registry (`polars_rankk.core.metrics.registry`)
and `docs/definitions.md`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.columns import (
    BPREF,
    DCG,
    ERR,
    FIRST_HIT,
    HITS,
    HITS_AT_R,
    IDEAL_DCG,
    JUDGED,
    N_CANDIDATES,
    N_RELEVANT,
    PRECISION_SUM,
    RBP,
    RBP_JUDGED,
    RECIPROCAL_RANK,
    RELEVANT_RETRIEVED,
    WHOLE_LIST,
    stat_column,
)
from polars_rankk.core.policy import Policy


@dataclass(frozen=True)
class GroupStats:
    """Where a metric reads one group's statistics from.

    Attributes
    ----------
    at
        ``at(stat, k)``: a cumulated per-row term at cut-off k.
    n_candidates
        The length of the ranked list.
    n_relevant
        R_g under the policy.
    hits_at_r
        Hits within the first R_g ranks.
    whole
        ``whole(stat)``: a cumulated per-row term over the whole ranked list (bpref).
    cutoff
        K as a column, when each row has its own K (K-curves evaluate a formula once on
        (class, K) rows, `polars_rankk.core.metrics.summed`); None: the formula's ``k``.
        `cutoff` reads it; a formula whose value depends on K only through `cutoff` gives
        the same numbers either way (checked on probe values before it is used).
    """

    at: Callable[[str, int], pl.Expr]
    n_candidates: pl.Expr
    n_relevant: pl.Expr
    hits_at_r: pl.Expr
    whole: Callable[[str], pl.Expr] = pl.col
    cutoff: pl.Expr | None = None


#: The statistics as columns of the prepared per-group table.
COLUMNS = GroupStats(
    at=lambda stat, k: pl.col(stat_column(stat, k)),
    n_candidates=pl.col(N_CANDIDATES),
    n_relevant=pl.col(N_RELEVANT),
    hits_at_r=pl.col(HITS_AT_R),
    whole=pl.col,
)


def ratio_or_zero(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, or 0 where the denominator is 0."""
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))
        .otherwise(0.0)
    )


def safe_ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, or NaN where the denominator is 0 (a micro average over no
    count)."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(float("nan"))


def cutoff(k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """K as a full column: Polars divides by a scalar (or a broadcast column) through its
    reciprocal, which would make a value depend on how many rows its frame has. The stats'
    own K column (`GroupStats.cutoff`) when they have one."""
    return stats.n_candidates * 0 + (k if stats.cutoff is None else stats.cutoff)


def precision_denominator(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """K, or min(K, n) under ``short_lists="observed"``; n over the whole list."""
    if policy.short_lists == "observed" or k == WHOLE_LIST:
        return pl.min_horizontal(cutoff(k, stats), stats.n_candidates)
    return cutoff(k, stats)


def precision(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """hits@K / K, or / min(K, n) under ``short_lists="observed"``."""
    return ratio_or_zero(stats.at(HITS, k), precision_denominator(policy, k, stats))


def recall(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """hits@K / R_g."""
    return ratio_or_zero(stats.at(HITS, k), stats.n_relevant)


def f_measure(precision_value: pl.Expr, recall_value: pl.Expr, policy: Policy) -> pl.Expr:
    """(1 + b^2) P R / (b^2 P + R), b = ``Policy.f_beta``; 0 when both are 0."""
    weight = float(policy.f_beta) ** 2
    return ratio_or_zero(
        (1.0 + weight) * precision_value * recall_value, weight * precision_value + recall_value
    )


def f1(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """F-beta of precision@K and recall@K (F1 under the default beta = 1)."""
    return f_measure(precision(policy, k, stats), recall(policy, k, stats), policy)


def hit_rate(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """1 if a relevant item is within K (its expectation under ``ties="expected"``)."""
    return stats.at(FIRST_HIT, k).cast(pl.Float64)


def ndcg(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """DCG@K / IDCG@K; 0 when the ideal DCG is 0."""
    return ratio_or_zero(stats.at(DCG, k), stats.at(IDEAL_DCG, k))


def ap_denominator(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """What AP@K (and every measure averaged as it, the Q-measure) divides by: R_g, or
    min(K, R_g) under ``Policy(ap_denominator="min_k_relevant")``."""
    if policy.ap_denominator == "min_k_relevant":
        return pl.min_horizontal(cutoff(k, stats), stats.n_relevant)
    return stats.n_relevant


def average_precision(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Sum of precision@i at relevant ranks i <= K, over R_g or min(K, R_g)."""
    return ratio_or_zero(stats.at(PRECISION_SUM, k), ap_denominator(policy, k, stats))


def mrr(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """1 / rank of the first relevant item within K; 0 if none."""
    return stats.at(RECIPROCAL_RANK, k).cast(pl.Float64)


def r_precision(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """hits@R_g / R_g (it has no K)."""
    return ratio_or_zero(stats.hits_at_r, stats.n_relevant)


def dcg(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """DCG@K, unnormalised."""
    return stats.at(DCG, k).cast(pl.Float64)


def err(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Σ_{i<=K} (1/i) R_i Π_{j<i} (1 - R_j), R = (2^g - 1) / 2^g_max."""
    return stats.at(ERR, k).cast(pl.Float64)


def rbp(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """(1 - p) Σ_{relevant i<=K} p^(i-1)."""
    return stats.at(RBP, k).cast(pl.Float64)


def rbp_residual(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """The weight rbp@K leaves unknown: unjudged ranks within min(K, n) and every rank past
    it, 1 - (1 - p) Σ_{judged i<=min(K, n)} p^(i-1)."""
    return 1.0 - stats.at(RBP_JUDGED, k).cast(pl.Float64)


def judged(policy: Policy, k: int, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Judged rows in the top K / K, or / min(K, n) under ``short_lists="observed"``."""
    return ratio_or_zero(stats.at(JUDGED, k), precision_denominator(policy, k, stats))


def bpref(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Σ over retrieved relevant items of 1 - min(n, R)/min(N, R), / R_g (trec_eval bpref)."""
    return ratio_or_zero(stats.whole(BPREF), stats.n_relevant)


def finished(value: pl.Expr, policy: Policy, k: int | None, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Apply the per-group policies to a value: NaN for an empty truth under
    ``empty_truth="nan"``, null (dropped) for a list shorter than K under ``short_lists="skip"``.
    """
    if policy.empty_truth == "nan":
        value = pl.when(stats.n_relevant == 0).then(float("nan")).otherwise(value)
    if policy.short_lists == "skip" and k is not None:
        value = pl.when(stats.n_candidates >= k).then(value)
    return value.cast(pl.Float64)


def relevant_retrieved(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Relevant items anywhere in the ranked list (trec_eval num_rel_ret)."""
    return stats.whole(RELEVANT_RETRIEVED).cast(pl.Float64)


def retrieved(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """The length of the ranked list (trec_eval num_ret)."""
    return stats.n_candidates.cast(pl.Float64)


def relevant(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """R_g, the relevant items in the truth (trec_eval num_rel)."""
    return stats.n_relevant.cast(pl.Float64)


def set_precision(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Relevant retrieved / retrieved, over the whole list (trec_eval set_P)."""
    return ratio_or_zero(relevant_retrieved(policy, stats), stats.n_candidates)


def set_recall(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """Relevant retrieved / R_g, over the whole list (trec_eval set_recall)."""
    return ratio_or_zero(relevant_retrieved(policy, stats), stats.n_relevant)


def set_f(policy: Policy, stats: GroupStats = COLUMNS) -> pl.Expr:
    """F-beta of set precision and set recall (trec_eval set_F with x = beta^2)."""
    return f_measure(set_precision(policy, stats), set_recall(policy, stats), policy)
