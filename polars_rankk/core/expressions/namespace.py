"""The ``rankk`` namespaces: thin, explicit forwarding to the expressions and `evaluate`.

Importing ``polars_rankk`` registers them, so ``pl.col("rel").rankk.ndcg_at_k(by="score",
k=10)`` and ``candidates.rankk.evaluate(truth, k=10, group_by="user")`` work. Every method is
written out (no ``__getattr__``) so that autocompletion and type checkers see it; the
expression namespace is generated with the expression functions
(`polars_rankk.core.expressions.generated`), so a method takes exactly its function's arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from polars_rankk.core.evaluation.evaluation import Evaluation
from polars_rankk.core.evaluation.pipeline import evaluate
from polars_rankk.core.expressions.generated import RankkExpr
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

__all__ = ["RankkDataFrame", "RankkExpr", "RankkLazyFrame"]


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
