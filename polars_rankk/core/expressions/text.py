"""trec_eval's ``relstring``: the relevance of a group's first N ranked rows, as text.

It is no number (trec_eval prints it per query, and nothing on its summary line), so it is no
metric of the registry: `relstring` is an expression, ranked exactly as the metric expressions
rank the group (`polars_rankk.core.expressions.group.ranked_rows`: ties, duplicates, invalid
scores and condensed lists under the policy).
"""

from __future__ import annotations

import polars as pl

from polars_rankk.core.expressions.group import inputs_of, ranked_rows, refusals
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = ["relstring"]


def relstring(
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    n: int = 10,
    item: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
) -> pl.Expr:
    """The relevance of each group's first `n` ranked rows as a string, one character per row,
    as trec_eval's ``relstring`` prints it (m_relstring.c).

    A grade 0..9 is its digit, a larger one ``>``, a row without a judgement (null relevance:
    not in the truth) ``-``, a negative grade (trec_eval: pooled but unjudged) ``.``, any other
    grade (not an integer) ``<``. A group shorter than `n` gives a shorter string. Use it in
    ``group_by(...).agg(...)`` (one string per group) or ``select`` (one group).

    Parameters
    ----------
    relevance
        The rows' grade column: null for an item the truth does not judge (`rk.label` writes
        it so).
    by
        Score; higher ranks first.
    n
        How many ranked rows to show (trec_eval's ``relstring.N``, default 10), >= 0.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    policy
        The tie order, duplicates, invalid scores and condensing of unjudged rows, as in
        `metrics_expression`; default ``Policy()``.
    rank
        A rank column (1 = best) to rank by instead of `by`.

    Returns
    -------
    Expr
        A String expression.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"q": [1, 1, 1, 1, 2], "item": ["a", "b", "c", "d", "e"],
    ...                    "score": [4.0, 3.0, 2.0, 1.0, 1.0], "rel": [2, None, -1, 12, 0]})
    >>> out = df.group_by("q").agg(rk.relstring("rel", by="score", item="item"))
    >>> out.sort("q")["relstring"].to_list()
    ['2-.>', '0']
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"relstring: n must be an integer >= 0; got {n!r}")
    inputs = inputs_of(relevance, by, rank, item, None, policy)
    _, grade, pooled = ranked_rows(inputs)
    text = (
        pl.when(pooled | (grade < 0))
        .then(pl.lit("."))
        .when(grade.is_null())
        .then(pl.lit("-"))
        .when(grade > 9)
        .then(pl.lit(">"))
        .when(grade == grade.floor())
        .then(grade.cast(pl.Int64).cast(pl.String))
        .otherwise(pl.lit("<"))
    )
    value = text.head(n).str.join("")
    refused = refusals(inputs)
    if refused:
        # The rows `evaluate` refuses raise here too.
        value = pl.coalesce(*(r.cast(pl.String) for r in refused), value)
    return value.alias("relstring")
