"""One expression function per built-in accuracy metric, and the ``.rankk`` expression namespace.

Generated from the metric registry by scripts/expression_api.py; do not edit by hand. Each
function is `polars_rankk.core.expressions.expressions.metrics_expression` of one metric,
and each method of the namespace forwards to its function with the same arguments, the
relevance column as ``self``. A metric registered at run time (`polars_rankk.register_metric`)
is computed by ``rk.metrics_expression(name, ...)`` and ``pl.col(...).rankk.metric(name, ...)``.
A family of metrics that are points of one parameter (trec_eval's iprec_at_recall levels) has
one function taking the point (``rk.iprec_at_recall(recall=0.5)``:
`polars_rankk.core.expressions.points`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from polars_rankk.core.expressions.expressions import metrics_expression, with_parameters
from polars_rankk.core.expressions.points import DEPRECATED_POINTS, family_point
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = [
    "average_precision_at_k",
    "binary_g",
    "bpm_at_k",
    "bpm_depth_at_k",
    "bpm_total_gain_at_k",
    "bpref",
    "dcg_at_k",
    "eleven_point_precision",
    "err_at_k",
    "f1_at_k",
    "gm_average_precision_at_k",
    "gm_bpref",
    "hit_rank_at_k",
    "hit_rate_at_k",
    "infap",
    "insq_at_k",
    "insq_depth_at_k",
    "insq_total_gain_at_k",
    "inst_at_k",
    "inst_depth_at_k",
    "inst_total_gain_at_k",
    "iprec_at_recall",
    "judged_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "nerr8_at_k",
    "nerr8_depth_at_k",
    "nerr8_total_gain_at_k",
    "nerr9_at_k",
    "nerr9_depth_at_k",
    "nerr9_total_gain_at_k",
    "nerr10_at_k",
    "nerr10_depth_at_k",
    "nerr10_total_gain_at_k",
    "nerr11_at_k",
    "nerr11_depth_at_k",
    "nerr11_total_gain_at_k",
    "num_nonrelevant_judged_retrieved",
    "num_relevant",
    "num_relevant_retrieved",
    "num_retrieved",
    "precision_at_k",
    "r_precision",
    "r_precision_times",
    "rbp_at_k",
    "rbp_residual_at_k",
    "recall_at_k",
    "relative_precision_at_k",
    "sdcg_at_k",
    "sdcg_depth_at_k",
    "sdcg_total_gain_at_k",
    "set_average_precision",
    "set_f",
    "set_precision",
    "set_recall",
    "set_relative_precision",
    "trec_rbp_residual_at_k",
    "unjudged_at_k",
    "utility",
]


def precision_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Precision@K of each group: hits in the top K / K (trec_eval P_k).

    Reference: Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.precision_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────┐
    │ user ┆ precision@2 │
    │ ---  ┆ ---         │
    │ i64  ┆ f64         │
    ╞══════╪═════════════╡
    │ 1    ┆ 0.5         │
    │ 2    ┆ 0.5         │
    └──────┴─────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "precision",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def recall_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Recall@K of each group: hits in the top K / R, the number of relevant items (trec_eval
    recall_k).

    Reference: Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.recall_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ recall@2 │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 1.0      │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "recall",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def f1_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    beta: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """F1@K of each group: F-beta of precision@K and recall@K, (1 + b^2) P R / (b^2 P + R), b =
    Policy.f_beta (default 1: the harmonic mean); 0 when both are 0.

    Reference: van Rijsbergen, Information Retrieval (1979), ch. 7.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    beta
        F's beta, typed squared as trec_eval and ir_measures type it (beta=0.25 is beta 0.5)
        (``beta`` in its name; sets ``Policy.f_beta``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.f1_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ f1@2     │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.666667 │
    │ 2    ┆ 0.666667 │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "f1",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("f1", policy, beta=beta),
        rank=rank,
        unretrieved=unretrieved,
    )


def hit_rate_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """HitRate@K of each group: 1 if any relevant item is in the top K, else 0 (trec_eval
    success_k).

    Reference: trec_eval success_k; Deshpande & Karypis, TOIS 22(1) 2004 (hit rate).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.hit_rate_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────┐
    │ user ┆ hit_rate@2 │
    │ ---  ┆ ---        │
    │ i64  ┆ f64        │
    ╞══════╪════════════╡
    │ 1    ┆ 1.0        │
    │ 2    ┆ 1.0        │
    └──────┴────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "hit_rate",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def ndcg_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    dcg: str | None = None,
    gains: Mapping[float, float] | None = None,
    nonrelevant_gain: str | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """nDCG@K of each group: DCG@K / ideal DCG@K, gain / log2(rank + 1) (trec_eval ndcg_cut_k).

    Reference: Järvelin & Kekäläinen, TOIS 20(4) 2002.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    dcg
        The gain of a grade: 'log2' the grade, 'exp-log2' 2^grade - 1 (``dcg`` in its name; sets
        ``Policy.gain``, default: the policy's).
    gains
        The gain of listed grades, e.g. {0:1,1:4} (``gains`` in its name; sets ``Policy.gains``,
        default: the policy's).
    nonrelevant_gain
        Whether grades below the relevance threshold keep their gain (``nonrelevant_gain`` in
        its name; sets ``Policy.nonrelevant_gain``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.ndcg_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────┐
    │ user ┆ ndcg@2  │
    │ ---  ┆ ---     │
    │ i64  ┆ f64     │
    ╞══════╪═════════╡
    │ 1    ┆ 0.63093 │
    │ 2    ┆ 1.0     │
    └──────┴─────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "ndcg",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters(
            "ndcg", policy, dcg=dcg, gains=gains, nonrelevant_gain=nonrelevant_gain
        ),
        rank=rank,
        unretrieved=unretrieved,
    )


def average_precision_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    ap_denominator: str | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """AP@K of each group: sum of precision@i at relevant ranks i <= K, / R (trec_eval map_cut_k).

    Reference: Buckley & Voorhees, SIGIR 2000; trec_eval map_cut.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    ap_denominator
        Divide by R ('relevant') or by min(K, R) ('min_k_relevant') (``ap_denominator`` in its
        name; sets ``Policy.ap_denominator``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.average_precision_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────────────┐
    │ user ┆ average_precision@2 │
    │ ---  ┆ ---                 │
    │ i64  ┆ f64                 │
    ╞══════╪═════════════════════╡
    │ 1    ┆ 0.5                 │
    │ 2    ┆ 1.0                 │
    └──────┴─────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "average_precision",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("average_precision", policy, ap_denominator=ap_denominator),
        rank=rank,
        unretrieved=unretrieved,
    )


def hit_rank_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """HitRank@K of each group: rank of the first relevant item within K, K + 1 if none (lower is
    better).

    Reference: the rank of the first hit; its reciprocal is MRR@K.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.hit_rank_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────┐
    │ user ┆ hit_rank@2 │
    │ ---  ┆ ---        │
    │ i64  ┆ f64        │
    ╞══════╪════════════╡
    │ 1    ┆ 2.0        │
    │ 2    ┆ 1.0        │
    └──────┴────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "hit_rank",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def mrr_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """MRR@K of each group: 1 / rank of the first relevant item within K, 0 if none.

    Reference: Voorhees, TREC-8 Question Answering Track Report (1999).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.mrr_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────┐
    │ user ┆ mrr@2 │
    │ ---  ┆ ---   │
    │ i64  ┆ f64   │
    ╞══════╪═══════╡
    │ 1    ┆ 0.5   │
    │ 2    ┆ 1.0   │
    └──────┴───────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "mrr",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def r_precision(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """R-precision of each group: precision at rank R, the number of relevant items (trec_eval
    Rprec).

    Reference: Buckley & Voorhees, SIGIR 2000; trec_eval Rprec.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.r_precision("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────┐
    │ user ┆ r_precision │
    │ ---  ┆ ---         │
    │ i64  ┆ f64         │
    ╞══════╪═════════════╡
    │ 1    ┆ 0.0         │
    │ 2    ┆ 1.0         │
    └──────┴─────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "r_precision",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def dcg_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    dcg: str | None = None,
    gains: Mapping[float, float] | None = None,
    nonrelevant_gain: str | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """DCG@K of each group: unnormalised DCG@K: sum of gain / log2(rank + 1) over the top K.

    Reference: Järvelin & Kekäläinen, TOIS 20(4) 2002.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    dcg
        The gain of a grade: 'log2' the grade, 'exp-log2' 2^grade - 1 (``dcg`` in its name; sets
        ``Policy.gain``, default: the policy's).
    gains
        The gain of listed grades, e.g. {0:1,1:4} (``gains`` in its name; sets ``Policy.gains``,
        default: the policy's).
    nonrelevant_gain
        Whether grades below the relevance threshold keep their gain (``nonrelevant_gain`` in
        its name; sets ``Policy.nonrelevant_gain``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.dcg_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────┐
    │ user ┆ dcg@2   │
    │ ---  ┆ ---     │
    │ i64  ┆ f64     │
    ╞══════╪═════════╡
    │ 1    ┆ 1.26186 │
    │ 2    ┆ 1.0     │
    └──────┴─────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "dcg",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters(
            "dcg", policy, dcg=dcg, gains=gains, nonrelevant_gain=nonrelevant_gain
        ),
        rank=rank,
        unretrieved=unretrieved,
    )


def err_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """ERR@K of each group: expected reciprocal rank of the stop of a cascade user, a grade g
    stopping with chance (2^g - 1) / 2^g_max (Policy.err_max_grade, default 4 as gdeval).

    Reference: Chapelle, Metzler, Zhang & Grinspan, CIKM 2009.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The highest grade g_max: grade g stops with (2^g - 1) / 2^g_max (``max_rel`` in its
        name; sets ``Policy.err_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.err_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────┐
    │ user ┆ err@2   │
    │ ---  ┆ ---     │
    │ i64  ┆ f64     │
    ╞══════╪═════════╡
    │ 1    ┆ 0.09375 │
    │ 2    ┆ 0.0625  │
    └──────┴─────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "err",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("err", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def rbp_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    p: float | None = None,
    rbp_grades: str | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """RBP@K of each group: rank-biased precision (1 - p) sum of p^(i-1) over relevant ranks i <=
    K, p = Policy.rbp_persistence (default 0.8); unjudged items count as non-relevant.

    Reference: Moffat & Zobel, TOIS 27(1) 2008.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    p
        The persistence p, the chance a user goes on to the next rank (``p`` in its name; sets
        ``Policy.rbp_persistence``, default: the policy's).
    rbp_grades
        Weigh a relevant rank by 1 ('binary') or its grade (``rbp_grades`` in its name; sets
        ``Policy.rbp_grades``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.rbp_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────┐
    │ user ┆ rbp@2 │
    │ ---  ┆ ---   │
    │ i64  ┆ f64   │
    ╞══════╪═══════╡
    │ 1    ┆ 0.16  │
    │ 2    ┆ 0.2   │
    └──────┴───────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "rbp",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("rbp", policy, p=p, rbp_grades=rbp_grades),
        rank=rank,
        unretrieved=unretrieved,
    )


def rbp_residual_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    p: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """RBP residual@K of each group: the most rbp@K could grow were every unjudged rank within
    min(K, n) and every rank past it relevant: 1 - (1 - p) sum of p^(i-1) over judged ranks i.

    Reference: Moffat & Zobel, TOIS 27(1) 2008, §4 (residuals).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    p
        The persistence p, the chance a user goes on to the next rank (``p`` in its name; sets
        ``Policy.rbp_persistence``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.rbp_residual_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────┐
    │ user ┆ rbp_residual@2 │
    │ ---  ┆ ---            │
    │ i64  ┆ f64            │
    ╞══════╪════════════════╡
    │ 1    ┆ 0.64           │
    │ 2    ┆ 0.64           │
    └──────┴────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "rbp_residual",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("rbp_residual", policy, p=p),
        rank=rank,
        unretrieved=unretrieved,
    )


def judged_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Judged@K of each group: share of the top K with any judgement in the truth (non-relevant
    grades included); / min(K, n) under short_lists='observed', as ir_measures.

    Reference: ir_measures Judged@k (after OpenNIR); Sakai, SIGIR 2007.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.judged_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ judged@2 │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 1.0      │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "judged",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def bpref(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """bpref of each group: over retrieved relevant items, 1 - min(n, R) / min(N, R) for the n
    judged non-relevant items above it (N judged non-relevant in all), / R; unjudged skipped.

    Reference: Buckley & Voorhees, SIGIR 2004; trec_eval bpref (m_bpref.c).

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.bpref("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────┐
    │ user ┆ bpref │
    │ ---  ┆ ---   │
    │ i64  ┆ f64   │
    ╞══════╪═══════╡
    │ 1    ┆ 0.0   │
    │ 2    ┆ 1.0   │
    └──────┴───────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "bpref",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def set_precision(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Set precision of each group: relevant items in the whole list / its length (trec_eval
    set_P).

    Reference: Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4; trec_eval set_P.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.set_precision("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────┐
    │ user ┆ set_precision │
    │ ---  ┆ ---           │
    │ i64  ┆ f64           │
    ╞══════╪═══════════════╡
    │ 1    ┆ 0.333333      │
    │ 2    ┆ 0.5           │
    └──────┴───────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "set_precision",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def set_recall(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Set recall of each group: relevant items in the whole list / R (trec_eval set_recall).

    Reference: Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4; trec_eval set_recall.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.set_recall("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────┐
    │ user ┆ set_recall │
    │ ---  ┆ ---        │
    │ i64  ┆ f64        │
    ╞══════╪════════════╡
    │ 1    ┆ 1.0        │
    │ 2    ┆ 1.0        │
    └──────┴────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "set_recall",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def set_f(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    beta: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Set F of each group: F-beta of set precision and set recall, b = Policy.f_beta (trec_eval
    set_F.x with x = b^2).

    Reference: van Rijsbergen, Information Retrieval (1979), ch. 7; trec_eval set_F.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    beta
        F's beta, typed squared as trec_eval and ir_measures type it (beta=0.25 is beta 0.5)
        (``beta`` in its name; sets ``Policy.f_beta``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.set_f("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ set_f    │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.5      │
    │ 2    ┆ 0.666667 │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "set_f",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("set_f", policy, beta=beta),
        rank=rank,
        unretrieved=unretrieved,
    )


def num_retrieved(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Retrieved of each group: the length of the ranked list after de-duplication (trec_eval
    num_ret).

    Reference: trec_eval num_ret.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.num_retrieved("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────┐
    │ user ┆ num_retrieved │
    │ ---  ┆ ---           │
    │ i64  ┆ f64           │
    ╞══════╪═══════════════╡
    │ 1    ┆ 3.0           │
    │ 2    ┆ 2.0           │
    └──────┴───────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "num_retrieved",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def num_relevant(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Relevant of each group: R, the relevant items in the truth (trec_eval num_rel).

    Reference: trec_eval num_rel.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.num_relevant("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────┐
    │ user ┆ num_relevant │
    │ ---  ┆ ---          │
    │ i64  ┆ f64          │
    ╞══════╪══════════════╡
    │ 1    ┆ 1.0          │
    │ 2    ┆ 1.0          │
    └──────┴──────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "num_relevant",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def num_relevant_retrieved(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Relevant retrieved of each group: relevant items in the whole ranked list (trec_eval
    num_rel_ret; ir_measures NumRet(rel=1)).

    Reference: trec_eval num_rel_ret.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.num_relevant_retrieved("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────────┐
    │ user ┆ num_relevant_retrieved │
    │ ---  ┆ ---                    │
    │ i64  ┆ f64                    │
    ╞══════╪════════════════════════╡
    │ 1    ┆ 1.0                    │
    │ 2    ┆ 1.0                    │
    └──────┴────────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "num_relevant_retrieved",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def iprec_at_recall(
    relevance: IntoExprColumn,
    *,
    recall: float,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Interpolated precision at a recall level of each group: the best precision at a rank holding
    at least lround(recall R) relevant items, 0 if none (trec_eval iprec_at_recall).

    Reference: trec_eval 10 (m_iprec_at_recall.c); Manning et al. (2008), §8.4.

    The points computed are trec_eval's; another raises a ValueError naming them.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    recall
        Recall level: one of trec_eval's 0.0, 0.1, ..., 1.0.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.iprec_at_recall("rel", recall=0.5, by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────────────┐
    │ user ┆ iprec_at_recall_0_50 │
    │ ---  ┆ ---                  │
    │ i64  ┆ f64                  │
    ╞══════╪══════════════════════╡
    │ 1    ┆ 0.5                  │
    │ 2    ┆ 1.0                  │
    └──────┴──────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    """
    return metrics_expression(
        family_point("iprec_at_recall", "recall", recall),
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def eleven_point_precision(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """11-point average precision of each group: the mean of the 11 interpolated precisions at
    recall 0.0, 0.1, ..., 1.0 (trec_eval 11pt_avg).

    Reference: trec_eval 10 (m_11pt_avg.c); Manning et al. (2008), §8.4.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.eleven_point_precision("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────────┐
    │ user ┆ eleven_point_precision │
    │ ---  ┆ ---                    │
    │ i64  ┆ f64                    │
    ╞══════╪════════════════════════╡
    │ 1    ┆ 0.5                    │
    │ 2    ┆ 1.0                    │
    └──────┴────────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "eleven_point_precision",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def r_precision_times(
    relevance: IntoExprColumn,
    *,
    multiple: float,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Precision at a multiple of R of each group: hits within c / c at rank c = (long) (multiple R
    + 0.9), 0 when c is 0 (trec_eval Rprec_mult).

    Reference: trec_eval 10 (m_Rprec_mult.c).

    The points computed are trec_eval's; another raises a ValueError naming them.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    multiple
        Multiple of R the precision is cut at: one of trec_eval's (Rprec_mult) 0.2, 0.4, ...,
        2.0.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.r_precision_times("rel", multiple=1.0, by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────────┐
    │ user ┆ r_precision_times_1_00 │
    │ ---  ┆ ---                    │
    │ i64  ┆ f64                    │
    ╞══════╪════════════════════════╡
    │ 1    ┆ 0.0                    │
    │ 2    ┆ 1.0                    │
    └──────┴────────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    """
    return metrics_expression(
        family_point("r_precision_times", "multiple", multiple),
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def relative_precision_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Relative P@K of each group: hits in the top K / min(K, R), the most the top K can hold; 0
    when R = 0 (trec_eval relative_P_k).

    Reference: trec_eval 10 (m_rel_P.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.relative_precision_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────────────┐
    │ user ┆ relative_precision@2 │
    │ ---  ┆ ---                  │
    │ i64  ┆ f64                  │
    ╞══════╪══════════════════════╡
    │ 1    ┆ 1.0                  │
    │ 2    ┆ 1.0                  │
    └──────┴──────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "relative_precision",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def unjudged_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Unjudged@K of each group: share of the top K without a judgement in the truth, / K; a
    negative grade is unjudged under Policy.trec_eval() (trec_eval unj_k).

    Reference: trec_eval 10 (m_unjudged.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.unjudged_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────┐
    │ user ┆ unjudged@2 │
    │ ---  ┆ ---        │
    │ i64  ┆ f64        │
    ╞══════╪════════════╡
    │ 1    ┆ 0.0        │
    │ 2    ┆ 0.0        │
    └──────┴────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "unjudged",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def infap(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """infAP of each group: inferred AP: over retrieved relevant rows at rank i with x judged rows
    above, r of them relevant, u pooled but unjudged (a negative grade under
    negative_grades='unjudged'), (1 + (x + u) (r + e) / (x + 2e)) / i, summed, / R; e = 1e-5; AP
    when every row above a relevant one is judged (trec_eval infAP).

    Reference: Yilmaz & Aslam, CIKM 2006; trec_eval 10 (m_infap.c, form_res_rels.c).

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.infap("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ infap    │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.500005 │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "infap",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def binary_g(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """binG of each group: over retrieved relevant rows, 1 / log2(2 + the rows above it that are
    not relevant, unjudged included), summed, / R (trec_eval binG).

    Reference: trec_eval 10 (m_binG.c).

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.binary_g("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ binary_g │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.63093  │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "binary_g",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def set_relative_precision(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Set relative precision of each group: relevant items in the whole list / min(its length, R)
    (trec_eval set_relative_P).

    Reference: trec_eval 10 (m_set_rel_P.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.set_relative_precision("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────────┐
    │ user ┆ set_relative_precision │
    │ ---  ┆ ---                    │
    │ i64  ┆ f64                    │
    ╞══════╪════════════════════════╡
    │ 1    ┆ 1.0                    │
    │ 2    ┆ 1.0                    │
    └──────┴────────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "set_relative_precision",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def set_average_precision(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Set MAP of each group: set precision x set recall: relevant retrieved^2 / (retrieved R)
    (trec_eval set_map).

    Reference: trec_eval 10 (m_set_map.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.set_average_precision("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────────────┐
    │ user ┆ set_average_precision │
    │ ---  ┆ ---                   │
    │ i64  ┆ f64                   │
    ╞══════╪═══════════════════════╡
    │ 1    ┆ 0.333333              │
    │ 2    ┆ 0.5                   │
    └──────┴───────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "set_average_precision",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def utility(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Utility of each group: set utility 1 a - 1 b + 0 c + 0 d over relevant retrieved a, non-
    relevant retrieved b, relevant not retrieved c (trec_eval utility, default coefficients).

    Reference: trec_eval 10 (m_utility.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.utility("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────┐
    │ user ┆ utility │
    │ ---  ┆ ---     │
    │ i64  ┆ f64     │
    ╞══════╪═════════╡
    │ 1    ┆ -1.0    │
    │ 2    ┆ 0.0     │
    └──────┴─────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "utility",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def num_nonrelevant_judged_retrieved(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Judged non-relevant retrieved of each group: judged non-relevant items in the whole ranked
    list (trec_eval num_nonrel_judged_ret).

    Reference: trec_eval 10 (m_num_nonrel_judged_ret.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.num_nonrelevant_judged_retrieved("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────────────────────────┐
    │ user ┆ num_nonrelevant_judged_retriev… │
    │ ---  ┆ ---                             │
    │ i64  ┆ f64                             │
    ╞══════╪═════════════════════════════════╡
    │ 1    ┆ 1.0                             │
    │ 2    ┆ 1.0                             │
    └──────┴─────────────────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "num_nonrelevant_judged_retrieved",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def gm_average_precision_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    ap_denominator: str | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """GM-AP of each group: AP per group; summary() takes the geometric mean over groups, each
    value floored at 1e-5 (trec_eval gm_map, summary only).

    Reference: trec_eval 10 (m_gm_map.c, meas_avg.c).

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    ap_denominator
        Divide by R ('relevant') or by min(K, R) ('min_k_relevant') (``ap_denominator`` in its
        name; sets ``Policy.ap_denominator``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.gm_average_precision_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────────┐
    │ user ┆ gm_average_precision@2 │
    │ ---  ┆ ---                    │
    │ i64  ┆ f64                    │
    ╞══════╪════════════════════════╡
    │ 1    ┆ 0.5                    │
    │ 2    ┆ 1.0                    │
    └──────┴────────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "gm_average_precision",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("gm_average_precision", policy, ap_denominator=ap_denominator),
        rank=rank,
        unretrieved=unretrieved,
    )


def gm_bpref(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """GM-bpref of each group: bpref per group; summary() takes the geometric mean over groups,
    each value floored at 1e-5 (trec_eval gm_bpref, summary only).

    Reference: trec_eval 10 (m_gm_bpref.c, meas_avg.c).

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.gm_bpref("rel", by="score", item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ gm_bpref │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.0      │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "gm_bpref",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def trec_rbp_residual_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    p: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """RBP resid@K of each group: rbp_residual@K where the top min(K, n) holds an unjudged row,
    else 0: p^n + (1 - p) sum of p^(i-1) over unjudged ranks i (trec_eval rbp_resid, whole list,
    p = Policy.rbp_persistence, 0.9 under Policy.trec_eval()).

    Reference: trec_eval 10 (m_rbp_resid.c); Moffat & Zobel, TOIS 27(1) 2008.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    p
        The persistence p, the chance a user goes on to the next rank (``p`` in its name; sets
        ``Policy.rbp_persistence``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.trec_rbp_residual_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────────────┐
    │ user ┆ trec_rbp_residual@2 │
    │ ---  ┆ ---                 │
    │ i64  ┆ f64                 │
    ╞══════╪═════════════════════╡
    │ 1    ┆ 0.0                 │
    │ 2    ┆ 0.0                 │
    └──────┴─────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "trec_rbp_residual",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("trec_rbp_residual", policy, p=p),
        rank=rank,
        unretrieved=unretrieved,
    )


def sdcg_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """SDCG@K of each group: C/W/L SDCG, expected rate of gain Σ W_i g_i: C(i) = log2(i + 1) /
    log2(i + 2) below K, 0 at K: scaled DCG@K; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat et al., TOIS 35(3) 2017 (C/W/L SDCG); cwl_eval: Azzopardi et al., SIGIR 2019.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.sdcg_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ sdcg@2   │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.386853 │
    │ 2    ┆ 0.613147 │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "sdcg",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("sdcg", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def sdcg_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """SDCG total gain@K of each group: C/W/L SDCG, expected total gain Σ L_i Σ_{j ≤ i} g_j: C(i) =
    log2(i + 1) / log2(i + 2) below K, 0 at K: scaled DCG@K; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat et al., TOIS 35(3) 2017 (C/W/L SDCG); cwl_eval: Azzopardi et al., SIGIR 2019.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.sdcg_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────────┐
    │ user ┆ sdcg_total_gain@2 │
    │ ---  ┆ ---               │
    │ i64  ┆ f64               │
    ╞══════╪═══════════════════╡
    │ 1    ┆ 0.63093           │
    │ 2    ┆ 1.0               │
    └──────┴───────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "sdcg_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("sdcg_total_gain", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def sdcg_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """SDCG depth@K of each group: C/W/L SDCG, expected depth 1 / W_1 (cwl_eval's expected items):
    C(i) = log2(i + 1) / log2(i + 2) below K, 0 at K: scaled DCG@K; gains min(max(g, 0), M) / M
    (M = Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat et al., TOIS 35(3) 2017 (C/W/L SDCG); cwl_eval: Azzopardi et al., SIGIR 2019.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.sdcg_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────┐
    │ user ┆ sdcg_depth@2 │
    │ ---  ┆ ---          │
    │ i64  ┆ f64          │
    ╞══════╪══════════════╡
    │ 1    ┆ 1.63093      │
    │ 2    ┆ 1.63093      │
    └──────┴──────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "sdcg_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("sdcg_depth", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def insq_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """INSQ@K of each group: C/W/L INSQ, expected rate of gain Σ W_i g_i: C(i) = ((i + 2T - 1) / (i
    + 2T))^2, T = Policy.cwl_target; gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade),
    ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat, Scholer & Thomas, ADCS 2012; cwl_eval: Azzopardi et al., SIGIR 2019.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.insq_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ insq@2   │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.17255  │
    │ 2    ┆ 0.388238 │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "insq",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("insq", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def insq_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """INSQ total gain@K of each group: C/W/L INSQ, expected total gain Σ L_i Σ_{j ≤ i} g_j: C(i) =
    ((i + 2T - 1) / (i + 2T))^2, T = Policy.cwl_target; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat, Scholer & Thomas, ADCS 2012; cwl_eval: Azzopardi et al., SIGIR 2019.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.insq_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────────┐
    │ user ┆ insq_total_gain@2 │
    │ ---  ┆ ---               │
    │ i64  ┆ f64               │
    ╞══════╪═══════════════════╡
    │ 1    ┆ 0.44444           │
    │ 2    ┆ 0.999996          │
    └──────┴───────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "insq_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("insq_total_gain", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def insq_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """INSQ depth@K of each group: C/W/L INSQ, expected depth 1 / W_1 (cwl_eval's expected items):
    C(i) = ((i + 2T - 1) / (i + 2T))^2, T = Policy.cwl_target; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat, Scholer & Thomas, ADCS 2012; cwl_eval: Azzopardi et al., SIGIR 2019.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.insq_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────┐
    │ user ┆ insq_depth@2 │
    │ ---  ┆ ---          │
    │ i64  ┆ f64          │
    ╞══════╪══════════════╡
    │ 1    ┆ 2.575742     │
    │ 2    ┆ 2.575742     │
    └──────┴──────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "insq_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("insq_depth", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def inst_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """INST@K of each group: C/W/L INST, expected rate of gain Σ W_i g_i: C(i) = ((i + T + T_i - 1)
    / (i + T + T_i))^2, T_i = T - the gain up to i, T = Policy.cwl_target; gains min(max(g, 0),
    M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Moffat, Bailey, Scholer & Thomas, SIGIR 2017; cwl_eval: Azzopardi et al., SIGIR 2019.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.inst_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ inst@2   │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.207222 │
    │ 2    ┆ 0.608297 │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "inst",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("inst", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def inst_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """INST total gain@K of each group: C/W/L INST, expected total gain Σ L_i Σ_{j ≤ i} g_j: C(i) =
    ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - the gain up to i, T = Policy.cwl_target;
    gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as
    cwl_eval.

    Reference: Moffat, Bailey, Scholer & Thomas, SIGIR 2017; cwl_eval: Azzopardi et al., SIGIR 2019.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.inst_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────────┐
    │ user ┆ inst_total_gain@2 │
    │ ---  ┆ ---               │
    │ i64  ┆ f64               │
    ╞══════╪═══════════════════╡
    │ 1    ┆ 0.444443          │
    │ 2    ┆ 0.999999          │
    └──────┴───────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "inst_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("inst_total_gain", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def inst_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """INST depth@K of each group: C/W/L INST, expected depth 1 / W_1 (cwl_eval's expected items):
    C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - the gain up to i, T =
    Policy.cwl_target; gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain
    0, depth 1000 as cwl_eval.

    Reference: Moffat, Bailey, Scholer & Thomas, SIGIR 2017; cwl_eval: Azzopardi et al., SIGIR 2019.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.inst_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────┐
    │ user ┆ inst_depth@2 │
    │ ---  ┆ ---          │
    │ i64  ┆ f64          │
    ╞══════╪══════════════╡
    │ 1    ┆ 2.144773     │
    │ 2    ┆ 1.643935     │
    └──────┴──────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "inst_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("inst_depth", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def bpm_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """BPM@K of each group: C/W/L BPM, expected rate of gain Σ W_i g_i: C(i) = 1 while the gain up
    to i is below T (Policy.cwl_target) and i < K, else 0 (static Bejewelled player); gains
    min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as
    cwl_eval.

    Reference: Zhang et al., SIGIR 2017 (BPM); cwl_eval: Azzopardi et al., SIGIR 2019.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.bpm_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────┐
    │ user ┆ bpm@2 │
    │ ---  ┆ ---   │
    │ i64  ┆ f64   │
    ╞══════╪═══════╡
    │ 1    ┆ 0.5   │
    │ 2    ┆ 1.0   │
    └──────┴───────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "bpm",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("bpm", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def bpm_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """BPM total gain@K of each group: C/W/L BPM, expected total gain Σ L_i Σ_{j ≤ i} g_j: C(i) = 1
    while the gain up to i is below T (Policy.cwl_target) and i < K, else 0 (static Bejewelled
    player); gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth
    1000 as cwl_eval.

    Reference: Zhang et al., SIGIR 2017 (BPM); cwl_eval: Azzopardi et al., SIGIR 2019.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.bpm_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────────────┐
    │ user ┆ bpm_total_gain@2 │
    │ ---  ┆ ---              │
    │ i64  ┆ f64              │
    ╞══════╪══════════════════╡
    │ 1    ┆ 1.0              │
    │ 2    ┆ 1.0              │
    └──────┴──────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "bpm_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("bpm_total_gain", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def bpm_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """BPM depth@K of each group: C/W/L BPM, expected depth 1 / W_1 (cwl_eval's expected items):
    C(i) = 1 while the gain up to i is below T (Policy.cwl_target) and i < K, else 0 (static
    Bejewelled player); gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K
    gain 0, depth 1000 as cwl_eval.

    Reference: Zhang et al., SIGIR 2017 (BPM); cwl_eval: Azzopardi et al., SIGIR 2019.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.bpm_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────┐
    │ user ┆ bpm_depth@2 │
    │ ---  ┆ ---         │
    │ i64  ┆ f64         │
    ╞══════╪═════════════╡
    │ 1    ┆ 2.0         │
    │ 2    ┆ 1.0         │
    └──────┴─────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "bpm_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("bpm_depth", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr8_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR8@K of each group: C/W/L NERR8, expected rate of gain Σ W_i g_i: C(i) = 1 - g_i below K,
    0 at K; gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth
    1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 8.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr8_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────┐
    │ user ┆ nerr8@2 │
    │ ---  ┆ ---     │
    │ i64  ┆ f64     │
    ╞══════╪═════════╡
    │ 1    ┆ 0.5     │
    │ 2    ┆ 1.0     │
    └──────┴─────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr8",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr8", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr8_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR8 total gain@K of each group: C/W/L NERR8, expected total gain Σ L_i Σ_{j ≤ i} g_j: C(i)
    = 1 - g_i below K, 0 at K; gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks
    past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 8.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr8_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────┐
    │ user ┆ nerr8_total_gain@2 │
    │ ---  ┆ ---                │
    │ i64  ┆ f64                │
    ╞══════╪════════════════════╡
    │ 1    ┆ 1.0                │
    │ 2    ┆ 1.0                │
    └──────┴────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr8_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr8_total_gain", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr8_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR8 depth@K of each group: C/W/L NERR8, expected depth 1 / W_1 (cwl_eval's expected
    items): C(i) = 1 - g_i below K, 0 at K; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 8.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr8_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────┐
    │ user ┆ nerr8_depth@2 │
    │ ---  ┆ ---           │
    │ i64  ┆ f64           │
    ╞══════╪═══════════════╡
    │ 1    ┆ 2.0           │
    │ 2    ┆ 1.0           │
    └──────┴───────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr8_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr8_depth", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr9_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR9@K of each group: C/W/L NERR9, expected rate of gain Σ W_i g_i: C(i) = i / (i + 1) (1 -
    g_i) below K, 0 at K; gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K
    gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 9.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr9_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ nerr9@2  │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.333333 │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr9",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr9", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr9_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR9 total gain@K of each group: C/W/L NERR9, expected total gain Σ L_i Σ_{j ≤ i} g_j: C(i)
    = i / (i + 1) (1 - g_i) below K, 0 at K; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 9.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr9_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────────┐
    │ user ┆ nerr9_total_gain@2 │
    │ ---  ┆ ---                │
    │ i64  ┆ f64                │
    ╞══════╪════════════════════╡
    │ 1    ┆ 0.5                │
    │ 2    ┆ 1.0                │
    └──────┴────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr9_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr9_total_gain", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr9_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR9 depth@K of each group: C/W/L NERR9, expected depth 1 / W_1 (cwl_eval's expected
    items): C(i) = i / (i + 1) (1 - g_i) below K, 0 at K; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 9.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr9_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬───────────────┐
    │ user ┆ nerr9_depth@2 │
    │ ---  ┆ ---           │
    │ i64  ┆ f64           │
    ╞══════╪═══════════════╡
    │ 1    ┆ 1.5           │
    │ 2    ┆ 1.0           │
    └──────┴───────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr9_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr9_depth", policy, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr10_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    p: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR10@K of each group: C/W/L NERR10, expected rate of gain Σ W_i g_i: C(i) = p (1 - g_i), p
    = Policy.rbp_persistence; gains min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past
    K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 10.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    p
        The persistence p, the chance a user goes on to the next rank (``p`` in its name; sets
        ``Policy.rbp_persistence``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr10_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ nerr10@2 │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.444444 │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr10",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr10", policy, p=p, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr10_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    p: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR10 total gain@K of each group: C/W/L NERR10, expected total gain Σ L_i Σ_{j ≤ i} g_j:
    C(i) = p (1 - g_i), p = Policy.rbp_persistence; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 10.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    p
        The persistence p, the chance a user goes on to the next rank (``p`` in its name; sets
        ``Policy.rbp_persistence``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr10_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────────────┐
    │ user ┆ nerr10_total_gain@2 │
    │ ---  ┆ ---                 │
    │ i64  ┆ f64                 │
    ╞══════╪═════════════════════╡
    │ 1    ┆ 0.8                 │
    │ 2    ┆ 1.0                 │
    └──────┴─────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr10_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr10_total_gain", policy, p=p, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr10_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    p: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR10 depth@K of each group: C/W/L NERR10, expected depth 1 / W_1 (cwl_eval's expected
    items): C(i) = p (1 - g_i), p = Policy.rbp_persistence; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 10.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    p
        The persistence p, the chance a user goes on to the next rank (``p`` in its name; sets
        ``Policy.rbp_persistence``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr10_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────┐
    │ user ┆ nerr10_depth@2 │
    │ ---  ┆ ---            │
    │ i64  ┆ f64            │
    ╞══════╪════════════════╡
    │ 1    ┆ 1.8            │
    │ 2    ┆ 1.0            │
    └──────┴────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr10_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr10_depth", policy, p=p, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr11_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR11@K of each group: C/W/L NERR11, expected rate of gain Σ W_i g_i: C(i) = ((i + 2T - 1)
    / (i + 2T))^2 (1 - g_i), T = Policy.cwl_target; gains min(max(g, 0), M) / M (M =
    Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 11.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr11_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ nerr11@2 │
    │ ---  ┆ ---      │
    │ i64  ┆ f64      │
    ╞══════╪══════════╡
    │ 1    ┆ 0.307692 │
    │ 2    ┆ 1.0      │
    └──────┴──────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr11",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr11", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr11_total_gain_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR11 total gain@K of each group: C/W/L NERR11, expected total gain Σ L_i Σ_{j ≤ i} g_j:
    C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i), T = Policy.cwl_target; gains min(max(g, 0), M)
    / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 11.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr11_total_gain_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────────────────────┐
    │ user ┆ nerr11_total_gain@2 │
    │ ---  ┆ ---                 │
    │ i64  ┆ f64                 │
    ╞══════╪═════════════════════╡
    │ 1    ┆ 0.444444            │
    │ 2    ┆ 1.0                 │
    └──────┴─────────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr11_total_gain",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr11_total_gain", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


def nerr11_depth_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int,
    T: float | None = None,
    max_rel: float | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """NERR11 depth@K of each group: C/W/L NERR11, expected depth 1 / W_1 (cwl_eval's expected
    items): C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i), T = Policy.cwl_target; gains
    min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth 1000 as
    cwl_eval.

    Reference: Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 11.

    ``Policy(ties="expected")`` raises a ValueError: it has no exact expectation
    over tie orderings here.

    An invalid score (``invalid_scores="error"``) or a repeated item
    (``duplicates="error"``) makes the query raise, naming the column and the item.
    A group without rows has no value (`evaluate` scores it 0 under
    ``missing_groups="zero"``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged.
    by
        Score; higher ranks first.
    k
        Cut-off.
    T
        The target T, the total gain a user wants (``T`` in its name; sets
        ``Policy.cwl_target``, default: the policy's).
    max_rel
        The gain scale M: a grade g gains min(max(g, 0), M) / M (``max_rel`` in its name; sets
        ``Policy.cwl_max_grade``, default: the policy's).
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item. Without it (and without
        `unretrieved`) a group whose rows hold no relevant item scores NaN under
        ``empty_truth="nan"``, else 0, as a list that found nothing; with it, ``empty_truth``
        applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items the
        rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged non-
        relevant count are then the truth's, so the value equals `evaluate`'s; null for a group
        the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.nerr11_depth_at_k("rel", by="score", k=2, item="item")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬────────────────┐
    │ user ┆ nerr11_depth@2 │
    │ ---  ┆ ---            │
    │ i64  ┆ f64            │
    ╞══════╪════════════════╡
    │ 1    ┆ 1.444444       │
    │ 2    ┆ 1.0            │
    └──────┴────────────────┘

    See Also
    --------
    metrics_expression : any registered metrics by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metrics_expression(
        "nerr11_depth",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=with_parameters("nerr11_depth", policy, T=T, max_rel=max_rel),
        rank=rank,
        unretrieved=unretrieved,
    )


@pl.api.register_expr_namespace("rankk")
class RankkExpr:
    """Metric expressions with the relevance column as ``self``: one method per function.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(pl.col("rel").rankk.precision_at_k(by="score", k=2, item="item")).item()
    0.5
    >>> df.select(pl.col("rel").rankk.metric("P@2", by="score", item="item")).item()
    0.5
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def metric(
        self,
        metric: str,
        *,
        by: IntoExprColumn | None = None,
        k: int | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.metrics_expression`: any registered metric by name."""
        return metrics_expression(
            metric,
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def __getattr__(self, name: str) -> Callable[..., pl.Expr]:
        """The previous release's method per point (``iprec_at_recall_0_50``), deprecated: its
        family's method at that point (``iprec_at_recall(recall=0.5)``)."""
        if name not in DEPRECATED_POINTS:
            raise AttributeError(f"'.rankk' has no method {name!r}")
        family, parameter, value = DEPRECATED_POINTS[name]

        def method(**arguments: Any) -> pl.Expr:
            warnings.warn(
                f".rankk.{name} is deprecated: use .rankk.{family}({parameter}={value:g})",
                DeprecationWarning,
                stacklevel=2,
            )
            family_method: Callable[..., pl.Expr] = getattr(self, family)
            return family_method(**{parameter: value}, **arguments)

        return method

    def precision_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.precision_at_k`."""
        return precision_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def recall_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.recall_at_k`."""
        return recall_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def f1_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        beta: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.f1_at_k`."""
        return f1_at_k(
            self._expr,
            by=by,
            k=k,
            beta=beta,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def hit_rate_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.hit_rate_at_k`."""
        return hit_rate_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def ndcg_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        dcg: str | None = None,
        gains: Mapping[float, float] | None = None,
        nonrelevant_gain: str | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.ndcg_at_k`."""
        return ndcg_at_k(
            self._expr,
            by=by,
            k=k,
            dcg=dcg,
            gains=gains,
            nonrelevant_gain=nonrelevant_gain,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def average_precision_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        ap_denominator: str | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.average_precision_at_k`."""
        return average_precision_at_k(
            self._expr,
            by=by,
            k=k,
            ap_denominator=ap_denominator,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def hit_rank_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.hit_rank_at_k`."""
        return hit_rank_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def mrr_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.mrr_at_k`."""
        return mrr_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def r_precision(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.r_precision`."""
        return r_precision(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def dcg_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        dcg: str | None = None,
        gains: Mapping[float, float] | None = None,
        nonrelevant_gain: str | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.dcg_at_k`."""
        return dcg_at_k(
            self._expr,
            by=by,
            k=k,
            dcg=dcg,
            gains=gains,
            nonrelevant_gain=nonrelevant_gain,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def err_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.err_at_k`."""
        return err_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def rbp_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        p: float | None = None,
        rbp_grades: str | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.rbp_at_k`."""
        return rbp_at_k(
            self._expr,
            by=by,
            k=k,
            p=p,
            rbp_grades=rbp_grades,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def rbp_residual_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        p: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.rbp_residual_at_k`."""
        return rbp_residual_at_k(
            self._expr,
            by=by,
            k=k,
            p=p,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def judged_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.judged_at_k`."""
        return judged_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def bpref(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.bpref`."""
        return bpref(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def set_precision(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.set_precision`."""
        return set_precision(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def set_recall(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.set_recall`."""
        return set_recall(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def set_f(
        self,
        *,
        by: IntoExprColumn | None = None,
        beta: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.set_f`."""
        return set_f(
            self._expr,
            by=by,
            beta=beta,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def num_retrieved(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.num_retrieved`."""
        return num_retrieved(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def num_relevant(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.num_relevant`."""
        return num_relevant(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def num_relevant_retrieved(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.num_relevant_retrieved`."""
        return num_relevant_retrieved(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def iprec_at_recall(
        self,
        *,
        recall: float,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.iprec_at_recall`."""
        return iprec_at_recall(
            self._expr,
            recall=recall,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def eleven_point_precision(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.eleven_point_precision`."""
        return eleven_point_precision(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def r_precision_times(
        self,
        *,
        multiple: float,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.r_precision_times`."""
        return r_precision_times(
            self._expr,
            multiple=multiple,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def relative_precision_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.relative_precision_at_k`."""
        return relative_precision_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def unjudged_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.unjudged_at_k`."""
        return unjudged_at_k(
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def infap(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.infap`."""
        return infap(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def binary_g(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.binary_g`."""
        return binary_g(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def set_relative_precision(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.set_relative_precision`."""
        return set_relative_precision(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def set_average_precision(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.set_average_precision`."""
        return set_average_precision(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def utility(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.utility`."""
        return utility(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def num_nonrelevant_judged_retrieved(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.num_nonrelevant_judged_retrieved`."""
        return num_nonrelevant_judged_retrieved(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def gm_average_precision_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        ap_denominator: str | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.gm_average_precision_at_k`."""
        return gm_average_precision_at_k(
            self._expr,
            by=by,
            k=k,
            ap_denominator=ap_denominator,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def gm_bpref(
        self,
        *,
        by: IntoExprColumn | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.gm_bpref`."""
        return gm_bpref(
            self._expr,
            by=by,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def trec_rbp_residual_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        p: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.trec_rbp_residual_at_k`."""
        return trec_rbp_residual_at_k(
            self._expr,
            by=by,
            k=k,
            p=p,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def sdcg_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.sdcg_at_k`."""
        return sdcg_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def sdcg_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.sdcg_total_gain_at_k`."""
        return sdcg_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def sdcg_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.sdcg_depth_at_k`."""
        return sdcg_depth_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def insq_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.insq_at_k`."""
        return insq_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def insq_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.insq_total_gain_at_k`."""
        return insq_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def insq_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.insq_depth_at_k`."""
        return insq_depth_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def inst_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.inst_at_k`."""
        return inst_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def inst_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.inst_total_gain_at_k`."""
        return inst_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def inst_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.inst_depth_at_k`."""
        return inst_depth_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def bpm_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.bpm_at_k`."""
        return bpm_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def bpm_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.bpm_total_gain_at_k`."""
        return bpm_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def bpm_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.bpm_depth_at_k`."""
        return bpm_depth_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr8_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr8_at_k`."""
        return nerr8_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr8_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr8_total_gain_at_k`."""
        return nerr8_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr8_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr8_depth_at_k`."""
        return nerr8_depth_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr9_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr9_at_k`."""
        return nerr9_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr9_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr9_total_gain_at_k`."""
        return nerr9_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr9_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr9_depth_at_k`."""
        return nerr9_depth_at_k(
            self._expr,
            by=by,
            k=k,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr10_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        p: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr10_at_k`."""
        return nerr10_at_k(
            self._expr,
            by=by,
            k=k,
            p=p,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr10_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        p: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr10_total_gain_at_k`."""
        return nerr10_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            p=p,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr10_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        p: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr10_depth_at_k`."""
        return nerr10_depth_at_k(
            self._expr,
            by=by,
            k=k,
            p=p,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr11_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr11_at_k`."""
        return nerr11_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr11_total_gain_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr11_total_gain_at_k`."""
        return nerr11_total_gain_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def nerr11_depth_at_k(
        self,
        *,
        by: IntoExprColumn | None = None,
        k: int,
        T: float | None = None,
        max_rel: float | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.nerr11_depth_at_k`."""
        return nerr11_depth_at_k(
            self._expr,
            by=by,
            k=k,
            T=T,
            max_rel=max_rel,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )
