"""Names kept for one release after a rename, each warning with the name that replaced it."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import polars as pl

from polars_rankk.core.expressions import generated
from polars_rankk.core.expressions.expressions import one_metric_expression
from polars_rankk.core.expressions.points import DEPRECATED_POINTS
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = ["metric_expression", "point_function"]


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


def point_function(name: str) -> Callable[..., pl.Expr]:
    """The previous release's function per point (``rk.iprec_at_recall_0_50``), deprecated:
    its family's function at that point (``rk.iprec_at_recall(recall=0.5)``).

    Examples
    --------
    >>> import warnings, polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old = df.select(rk.iprec_at_recall_0_50("rel", by="score", item="item")).item()
    >>> new = df.select(rk.iprec_at_recall("rel", recall=0.5, by="score", item="item")).item()
    >>> old == new, str(caught[0].message)
    (True, 'iprec_at_recall_0_50 is deprecated: use iprec_at_recall(recall=0.5)')
    """
    family, parameter, value = DEPRECATED_POINTS[name]
    replacement: Callable[..., pl.Expr] = getattr(generated, family)

    def function(relevance: IntoExprColumn, **arguments: Any) -> pl.Expr:
        warnings.warn(
            f"{name} is deprecated: use {family}({parameter}={value:g})",
            DeprecationWarning,
            stacklevel=2,
        )
        return replacement(relevance, **{parameter: value}, **arguments)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Deprecated: `{family}` at {parameter}={value:g}."
    return function


def __getattr__(name: str) -> Any:
    """The previous release's functions per point, made on first use."""
    if name in DEPRECATED_POINTS:
        return point_function(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
