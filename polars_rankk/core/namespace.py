"""The ``rankk`` namespaces: thin, explicit forwarding to `expressions` and `evaluate`.

Importing ``polars_rankk`` registers them, so ``pl.col("rel").rankk.ndcg_at_k(by="score",
k=10)`` and ``candidates.rankk.evaluate(truth, k=10, group_by="user")`` work. Every method is
written out (no ``__getattr__``) so that autocompletion and type checkers see it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from polars_rankk.core import expressions
from polars_rankk.core.evaluation import Evaluation
from polars_rankk.core.pipeline import evaluate
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike, IntoExprColumn


@pl.api.register_expr_namespace("rankk")
class RankkExpr:
    """Metric expressions with the relevance column as ``self``.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(pl.col("rel").rankk.precision_at_k(by="score", k=2, item="item")).item()
    0.5
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def precision_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.precision_at_k`."""
        return expressions.precision_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def recall_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.recall_at_k`."""
        return expressions.recall_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def f1_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.f1_at_k`."""
        return expressions.f1_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def hit_rate_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.hit_rate_at_k`."""
        return expressions.hit_rate_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def ndcg_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.ndcg_at_k`."""
        return expressions.ndcg_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def average_precision_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.average_precision_at_k`."""
        return expressions.average_precision_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def mrr_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.mrr_at_k`."""
        return expressions.mrr_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def r_precision(
        self,
        *,
        by: IntoExprColumn,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.r_precision`."""
        return expressions.r_precision(
            self._expr, by=by, item=item, n_relevant=n_relevant, policy=policy
        )

    def dcg_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.dcg_at_k`."""
        return expressions.dcg_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def err_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.err_at_k`."""
        return expressions.err_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def rbp_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.rbp_at_k`."""
        return expressions.rbp_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def rbp_residual_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.rbp_residual_at_k`."""
        return expressions.rbp_residual_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def judged_at_k(
        self,
        *,
        by: IntoExprColumn,
        k: int,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.judged_at_k`."""
        return expressions.judged_at_k(
            self._expr, by=by, k=k, item=item, n_relevant=n_relevant, policy=policy
        )

    def bpref(
        self,
        *,
        by: IntoExprColumn,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.bpref`."""
        return expressions.bpref(self._expr, by=by, item=item, n_relevant=n_relevant, policy=policy)


class _RankkFrame:
    """``evaluate`` with the frame as the candidates."""

    def __init__(self, frame: FrameLike) -> None:
        self._frame = frame

    def evaluate(
        self,
        truth: FrameLike | None = None,
        *,
        k: int | Iterable[int] = 10,
        metrics: str | Iterable[str] | None = None,
        group_by: str | Sequence[str],
        item: str = "item",
        score: str = "score",
        relevance: str = "relevance",
        n_relevant: str | None = None,
        policy: Policy | None = None,
        **options: Any,
    ) -> Evaluation:
        """See `polars_rankk.evaluate`; this frame is the candidates.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.2, 0.9]})
        >>> res = candidates.rankk.evaluate(pl.DataFrame({"q": [1], "item": [2]}), k=1,
        ...                                 metrics="precision", group_by="q")
        >>> res.per_group["value"].to_list()
        [1.0]
        """
        return evaluate(
            self._frame,
            truth,
            k=k,
            metrics=metrics,
            group_by=group_by,
            item=item,
            score=score,
            relevance=relevance,
            n_relevant=n_relevant,
            policy=policy,
            **options,
        )


@pl.api.register_dataframe_namespace("rankk")
class RankkDataFrame(_RankkFrame):
    """``df.rankk.evaluate(truth, ...)``."""


@pl.api.register_lazyframe_namespace("rankk")
class RankkLazyFrame(_RankkFrame):
    """``lf.rankk.evaluate(truth, ...)``: a lazy `Evaluation`."""
