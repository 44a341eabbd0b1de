"""Metric expressions for pre-labelled rows, inside ``group_by().agg()`` or ``.over()``.

Each function returns a ``pl.Expr`` computing one metric of one group's rows: ``relevance``
(a grade per row), ranked by ``by`` (higher first) with ties broken as `Policy.ties` says.
R_g is the number of relevant rows of the group (or an ``n_relevant`` expression), and the
ideal DCG is built from the group's own grades — the same numbers `evaluate` gives for
pre-labelled candidates without a truth table. Rows are taken as given: de-duplicate first
(or use `evaluate`, which applies `Policy.duplicates`).

These expressions sort inside each group, so Polars runs them on its in-memory engine; for
very large tables use `evaluate`, whose pipeline stays streaming.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.policy import Policy
from polars_rankk.core.prepare import gain_of
from polars_rankk.core.types import IntoExprColumn

__all__ = [
    "average_precision_at_k",
    "f1_at_k",
    "hit_rate_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "recall_at_k",
]


def _expr(value: IntoExprColumn) -> pl.Expr:
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Series):
        return pl.lit(value)
    raise TypeError(f"expected a column name, expression or Series; got {type(value).__name__}")


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
        raise ValueError(f"k must be an int >= 1; got {k!r}")
    return k


def _ranked_grades(
    relevance: IntoExprColumn, by: IntoExprColumn, item: IntoExprColumn | None, policy: Policy
) -> pl.Expr:
    """The group's grades in rank order (score descending, ties per the policy)."""
    grade = _expr(relevance).cast(pl.Float64)
    score = _expr(by).cast(pl.Float64) + 0.0
    ties = policy.ties
    if ties == "expected":
        raise ValueError("ties='expected' is not available in the expression API; use rk.evaluate")
    if ties in ("trec_eval", "item_asc") and item is None:
        raise ValueError(
            f"ties={ties!r} breaks ties by item id: pass item=<column>, "
            f"or use Policy(ties='input_order')"
        )
    if ties == "trec_eval":
        assert item is not None
        keys, descending = [score, _expr(item).cast(pl.String)], [True, True]
    elif ties == "item_asc":
        assert item is not None
        keys, descending = [score, _expr(item)], [True, False]
    elif ties == "pessimistic":
        keys, descending = [score, grade], [True, False]
    elif ties == "optimistic":
        keys, descending = [score, grade], [True, True]
    else:  # input_order
        keys, descending = [score], [True]
    return grade.sort_by(keys, descending=descending, maintain_order=True)


def _relevant(grade: pl.Expr, policy: Policy) -> pl.Expr:
    return (grade >= policy.relevance_threshold).cast(pl.Int64)


def _discounted_sum(gains: pl.Expr) -> pl.Expr:
    """Σ gain_i / log2(i + 1), summed in rank order as `evaluate` does."""
    discount = (pl.int_range(1, gains.len() + 1) + 1).cast(pl.Float64).log(2)
    return (gains / discount).cum_sum().last().fill_null(0.0)


def _divide(numerator: pl.Expr, denominator: pl.Expr | int) -> pl.Expr:
    """numerator / denominator, 0 where the denominator is 0.

    The denominator is turned into a column as long as the numerator: Polars divides by a
    scalar through its reciprocal on long columns, which would change the last bit.
    """
    numerator = numerator.cast(pl.Float64)
    if isinstance(denominator, int):
        denominator = numerator * 0.0 + float(denominator)
    denominator = denominator.cast(pl.Float64)
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)


def _n_relevant(
    relevance: IntoExprColumn, n_relevant: IntoExprColumn | None, policy: Policy
) -> pl.Expr:
    if n_relevant is not None:
        return _expr(n_relevant).first().cast(pl.Int64)
    return _relevant(_expr(relevance).cast(pl.Float64), policy).sum()


def _finish(
    value: pl.Expr, n_relevant: pl.Expr, policy: Policy, metric: str, k: int | None
) -> pl.Expr:
    """Apply `Policy.empty_truth` to a group with no relevant row; name it ``metric@k``."""
    if policy.empty_truth != "zero":
        empty = pl.lit(float("nan")) if policy.empty_truth == "nan" else pl.lit(None, pl.Float64)
        value = pl.when(n_relevant == 0).then(empty).otherwise(value)
    return value.alias(metric if k is None else f"{metric}@{k}")


def _hits(ranked: pl.Expr, k: int, policy: Policy) -> pl.Expr:
    return _relevant(ranked.head(k), policy).sum()


def _precision(ranked: pl.Expr, k: int, policy: Policy) -> pl.Expr:
    hits = _hits(ranked, k, policy)
    if policy.short_lists == "observed":
        return _divide(hits, pl.min_horizontal(ranked.len(), hits * 0 + k))
    return _divide(hits, k)


def _skip_short(value: pl.Expr, ranked: pl.Expr, k: int, policy: Policy) -> pl.Expr:
    if policy.short_lists != "skip":
        return value
    return pl.when(ranked.len() >= k).then(value).otherwise(None)


@dataclass(frozen=True)
class _Group:
    """One group's rows, ranked: what every metric expression starts from."""

    policy: Policy
    k: int
    grade: pl.Expr  # grades in input order
    ranked: pl.Expr  # grades in rank order
    total: pl.Expr  # R_g


def _metric(
    name: str,
    value: Callable[[_Group], pl.Expr],
    relevance: IntoExprColumn,
    by: IntoExprColumn,
    k: int | None,
    item: IntoExprColumn | None,
    n_relevant: IntoExprColumn | None,
    policy: Policy | None,
) -> pl.Expr:
    """Rank the group, compute `value`, then apply short_lists='skip' and empty_truth."""
    policy = Policy() if policy is None else policy
    cutoff = 0 if k is None else _check_k(k)
    group = _Group(
        policy=policy,
        k=cutoff,
        grade=_expr(relevance).cast(pl.Float64),
        ranked=_ranked_grades(relevance, by, item, policy),
        total=_n_relevant(relevance, n_relevant, policy),
    )
    result = value(group)
    if k is not None:
        result = _skip_short(result, group.ranked, cutoff, policy)
    return _finish(result, group.total, policy, name, k)


def _precision_of(group: _Group) -> pl.Expr:
    return _precision(group.ranked, group.k, group.policy)


def _recall(group: _Group) -> pl.Expr:
    return _divide(_hits(group.ranked, group.k, group.policy), group.total)


def _f1(group: _Group) -> pl.Expr:
    p = _precision(group.ranked, group.k, group.policy)
    r = _recall(group)
    return _divide(2.0 * p * r, p + r)


def _hit_rate(group: _Group) -> pl.Expr:
    return (_hits(group.ranked, group.k, group.policy) > 0).cast(pl.Float64)


def _ndcg(group: _Group) -> pl.Expr:
    dcg = _discounted_sum(gain_of(group.ranked.head(group.k), group.policy))
    ideal = _discounted_sum(gain_of(group.grade, group.policy).sort(descending=True).head(group.k))
    return _divide(dcg, ideal)


def _average_precision(group: _Group) -> pl.Expr:
    relevant = _relevant(group.ranked.head(group.k), group.policy)
    rank = pl.int_range(1, relevant.len() + 1).cast(pl.Float64)
    terms = (relevant * relevant.cum_sum()).cast(pl.Float64) / rank
    precision_sum = terms.cum_sum().last().fill_null(0.0)
    denominator = group.total
    if group.policy.ap_denominator == "min_k_relevant":
        denominator = pl.min_horizontal(group.total, group.total * 0 + group.k)
    return _divide(precision_sum, denominator)


def _mrr(group: _Group) -> pl.Expr:
    first = (_relevant(group.ranked.head(group.k), group.policy) == 1).arg_true().first()
    return (1.0 / (first + 1).cast(pl.Float64)).fill_null(0.0)


def _r_precision(group: _Group) -> pl.Expr:
    within = pl.int_range(1, group.ranked.len() + 1) <= group.total
    hits = (_relevant(group.ranked, group.policy) * within.cast(pl.Int64)).sum()
    return _divide(hits, group.total)


def precision_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """Precision@K of each group: relevant rows in the top K / K (trec_eval ``P_k``).

    Parameters
    ----------
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``).
    by
        Score; higher ranks first.
    k
        Cut-off.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or
        ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item.
    policy
        `Policy` for ties, short lists, threshold, empty truth.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 1, 1, 1, 0]})
    >>> df.group_by("user").agg(
    ...     rk.precision_at_k("rel", by="score", k=2, item="item").alias("p@2")
    ... ).sort("user")
    shape: (2, 2)
    ┌──────┬─────┐
    │ user ┆ p@2 │
    │ ---  ┆ --- │
    │ i64  ┆ f64 │
    ╞══════╪═════╡
    │ 1    ┆ 0.5 │
    │ 2    ┆ 0.5 │
    └──────┴─────┘

    See Also
    --------
    evaluate : every metric at every K for candidate and truth tables.
    """
    return _metric("precision", _precision_of, relevance, by, k, item, n_relevant, policy)


def recall_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """Recall@K of each group: relevant rows in the top K / R_g (trec_eval ``recall_k``).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.recall_at_k("rel", by="score", k=2, item="item")).item()
    0.5

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric("recall", _recall, relevance, by, k, item, n_relevant, policy)


def f1_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """F1@K: 2PR / (P + R) of precision@K and recall@K; 0 when both are 0.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.f1_at_k("rel", by="score", k=2, item="item")).item()
    0.5

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric("f1", _f1, relevance, by, k, item, n_relevant, policy)


def hit_rate_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """HitRate@K: 1.0 if a relevant row is in the top K, else 0.0 (trec_eval ``success_k``).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.hit_rate_at_k("rel", by="score", k=1, item="item")).item()
    0.0

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric("hit_rate", _hit_rate, relevance, by, k, item, n_relevant, policy)


def ndcg_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """nDCG@K: DCG of the top K over the DCG of the group's grades in ideal order.

    Gain is the grade (``gain="linear"``, trec_eval ``ndcg_cut``) or ``2**grade - 1``;
    discount ``log2(rank + 1)``; 0 when the ideal DCG is 0.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 2, 1]})
    >>> round(df.select(rk.ndcg_at_k("rel", by="score", k=3, item="item")).item(), 6)
    0.669672

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric("ndcg", _ndcg, relevance, by, k, item, n_relevant, policy)


def average_precision_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """AP@K: Σ precision@i over relevant ranks i ≤ K, / R_g (trec_eval ``map_cut_k``).

    ``Policy(ap_denominator="min_k_relevant")`` divides by min(K, R_g) instead.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.average_precision_at_k("rel", by="score", k=3, item="item")).item()
    0.5833333333333333

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric(
        "average_precision", _average_precision, relevance, by, k, item, n_relevant, policy
    )


def mrr_at_k(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    k: int,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """Reciprocal rank of the first relevant row within K; 0 if none (trec_eval ``recip_rank``).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.mrr_at_k("rel", by="score", k=3, item="item")).item()
    0.5

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric("mrr", _mrr, relevance, by, k, item, n_relevant, policy)


def r_precision(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
) -> pl.Expr:
    """R-precision: precision at rank R_g, the group's number of relevant items (``Rprec``).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.r_precision("rel", by="score", item="item")).item()
    0.5

    See Also
    --------
    precision_at_k : parameters.
    """
    return _metric("r_precision", _r_precision, relevance, by, None, item, n_relevant, policy)
