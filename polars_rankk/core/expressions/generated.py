"""One expression function per built-in accuracy metric, and the ``.rankk`` expression namespace.

Generated from the metric registry by scripts/expression_api.py; do not edit by hand. Each
function is `polars_rankk.core.expressions.expressions.metric_expression` for one metric, and
each method of
the namespace forwards to its function with the same arguments, the relevance column as
``self``. A metric registered at run time (`polars_rankk.register_metric`) is computed by
``rk.metric_expression(name, ...)`` and ``pl.col(...).rankk.metric(name, ...)``.
"""

from __future__ import annotations

import polars as pl

from polars_rankk.core.expressions.expressions import metric_expression
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = [
    "average_precision_at_k",
    "bpref",
    "dcg_at_k",
    "err_at_k",
    "f1_at_k",
    "hit_rank_at_k",
    "hit_rate_at_k",
    "judged_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "num_relevant",
    "num_relevant_retrieved",
    "num_retrieved",
    "precision_at_k",
    "r_precision",
    "rbp_at_k",
    "rbp_residual_at_k",
    "recall_at_k",
    "set_f",
    "set_precision",
    "set_recall",
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "f1",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "ndcg",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def average_precision_at_k(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "average_precision",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    """MRR@K of each group: 1 / rank of the first relevant item within K, 0 if none (trec_eval
    recip_rank).

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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "dcg",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def err_at_k(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "err",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def rbp_at_k(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "rbp",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )


def rbp_residual_at_k(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "rbp_residual",
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "set_f",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
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
    metric_expression : any registered metric by name.
    evaluate : every metric at every K for candidate and truth tables.
    """
    return metric_expression(
        "num_relevant_retrieved",
        relevance,
        by=by,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
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
        """See `polars_rankk.metric_expression`: any registered metric by name."""
        return metric_expression(
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
