"""Names kept for one release after a rename, each warning with the name that replaced it."""

from __future__ import annotations

import warnings

import polars as pl

from polars_rankk.core.expressions.expressions import one_metric_expression
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = ["metric_expression"]


def metric_expression(
    metric: str,
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Deprecated: `metrics_expression` takes one metric name as well as several.

    Examples
    --------
    >>> import warnings, polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = df.select(rk.metric_expression("P@2", "rel", by="score", item="item")).item()
    >>> value, str(caught[0].message)
    (0.5, 'metric_expression is deprecated: use metrics_expression (one name or several)')
    """
    warnings.warn(
        "metric_expression is deprecated: use metrics_expression (one name or several)",
        DeprecationWarning,
        stacklevel=2,
    )
    return one_metric_expression(
        metric,
        relevance,
        by=by,
        k=k,
        item=item,
        n_relevant=n_relevant,
        policy=policy,
        rank=rank,
        unretrieved=unretrieved,
    )
