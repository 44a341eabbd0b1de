"""What the family modules share: formula adapters, alias builders, common citations."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rankk.core.columns import HITS
from polars_rankk.core.metrics.declaration import Alias, Formula
from polars_rankk.core.metrics.formulas import GroupStats
from polars_rankk.core.policy import Policy

__all__ = ["MANNING", "at_k", "hits", "ir", "relevant", "trec", "without_k"]

MANNING = "Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4"


def at_k(builder: Callable[[Policy, int, GroupStats], pl.Expr]) -> Formula:
    """A formula of a metric that takes a cut-off K."""

    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        assert k is not None  # checked by Metric.value
        return builder(policy, k, stats)

    return formula


def without_k(builder: Callable[[Policy, GroupStats], pl.Expr]) -> Formula:
    """A formula of a metric without a cut-off."""

    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        return builder(policy, stats)

    return formula


def hits(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
    """Relevant items in the top K (at rank R without K)."""
    return stats.hits_at_r if k is None else stats.at(HITS, k)


def relevant(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
    """R, the relevant items of the group."""
    return stats.n_relevant


def ir(spelling: str, cut: bool = True, whole_list: bool = False) -> Alias:
    """An ir_measures spelling."""
    return Alias(spelling, "ir_measures", cut, whole_list)


def trec(spelling: str, cut: bool = True, whole_list: bool = False) -> Alias:
    """A trec_eval spelling."""
    return Alias(spelling, "trec_eval", cut, whole_list)
