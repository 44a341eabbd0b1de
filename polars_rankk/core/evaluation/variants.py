"""Measures evaluated under their own parameters: one evaluation per policy the names ask for.

The tools evaluate each measure with its own parameters (``P(rel=2)@5`` beside ``R@5``: R@5
at rel = 1). `evaluate` does the same: the names are grouped by the policy each reads
(`Request.parts`), each group is evaluated under its own, and the results are one `Evaluation`
whose tables carry every measure. The measures under the evaluation's own policy keep their
canonical names; another policy's measures are labelled with the fields they read otherwise
(``precision(relevance_threshold=2)``), in ``per_group`` and ``summary()``, so that a number
never stands under a name that does not say how it was computed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import polars as pl

from polars_rankk.core.metrics.registry import METRICS, metric_rank
from polars_rankk.core.names.parse import NameStyle
from polars_rankk.core.names.request import Request, differences, unread_fields
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import Average, FrameLike


class Part(Protocol):
    """What this module reads of an `Evaluation` (it is imported by `Evaluation`'s module)."""

    policy: Policy
    metrics: list[str]
    ks: list[int]
    per_group: FrameLike
    is_lazy: bool
    system: str | None
    variants: tuple[Any, ...]
    _keys: list[str]

    def summary(
        self,
        average: Average = "macro",
        *,
        weights: str | FrameLike | None = None,
        metrics: Iterable[str] | None = None,
        names: NameStyle = "canonical",
    ) -> pl.DataFrame: ...


P = TypeVar("P", bound=Part)
Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def label_suffix(policy: Policy, primary: Policy, metrics: Iterable[str] = ()) -> str:
    """What `metrics` evaluated under `policy` add to their names beside `primary`'s measures:
    the fields they read otherwise.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.evaluation.variants import label_suffix
    >>> label_suffix(rk.Policy(relevance_threshold=2, q_beta=2), rk.Policy(), ["precision"])
    '(relevance_threshold=2)'
    """
    return f"({differences(policy, primary, ignore=unread_fields(metrics))})"


def _relabelled(table: Frame, suffix: str, canonical_only: bool) -> Frame:
    """`table` with `suffix` after each metric name (for tool spellings, only after the
    canonical names a tool could not spell: a tool's name already says its parameters)."""
    # The fields go after the metric's name, before a cut-off written into it (ndcg(...)@10).
    labelled = pl.col("metric").str.replace(r"^([^@]+)(@\d+)?$", "${1}" + suffix + "${2}")
    if canonical_only:
        canonical = pl.col("metric").str.replace(r"@\d+$", "").is_in(list(METRICS))
        labelled = pl.when(canonical).then(labelled).otherwise(pl.col("metric"))
    return table.with_columns(labelled.alias("metric"))


def evaluated_apart(
    parts: Sequence[tuple[Request, Policy]], evaluate_part: Callable[[Request, Policy], P]
) -> P:
    """One `Evaluation` of every part (`Request.parts`): the first part's is the evaluation
    itself (its policy, groups and diagnostics), the others' its `variants`."""
    evaluations = [evaluate_part(part, policy) for part, policy in parts]
    return combined(evaluations)


def combined(evaluations: Sequence[P]) -> P:
    """The first evaluation with the others as its variants: ``per_group`` holds every
    part's rows (the variants' metrics labelled by `label_suffix`), ``ks`` every K."""
    primary, *others = evaluations
    if primary.system is not None:
        raise ValueError(
            "metric names whose parameters ask for different policies cannot be evaluated "
            f"with system={primary.system!r} in one call: evaluate each parameter set on its "
            "own (the names of one call then share their parameters)"
        )
    result = copy.copy(primary)
    result.__dict__["_primary"] = primary
    result.variants = tuple(others)
    tables = [primary.per_group] + [
        _relabelled(
            other.per_group.lazy(),
            label_suffix(other.policy, primary.policy, other.metrics),
            canonical_only=False,
        )
        for other in others
    ]
    per_group = pl.concat([table.lazy() for table in tables], how="vertical")
    if not primary.is_lazy:
        keys = list(primary._keys)
        per_group = per_group.sort([*keys, metric_rank(), "metric", "k"], nulls_last=True)
    result.per_group = per_group if primary.is_lazy else per_group.collect()
    result.ks = sorted({k for one in evaluations for k in one.ks})
    return result


def summary_of_parts(
    evaluation: Part,
    how: tuple[Average, str | FrameLike | None, Iterable[str] | None, NameStyle],
) -> pl.DataFrame:
    """`Evaluation.summary` of an evaluation with variants: each part's own, stacked, the
    variants' metrics labelled (for a tool's names, only those no tool spells); `metrics`, in
    any accepted spelling, chooses among every part's measures."""
    average, weights, metrics, names = how
    primary: Part = evaluation.__dict__["_primary"]
    parts: list[Part] = [primary, *evaluation.variants]
    asked = None if metrics is None else Request.of(metrics)
    if asked is not None:
        evaluated = sorted({m for part in parts for m in part.metrics})
        missing = sorted(set(asked.metrics) - set(evaluated))
        if missing:
            raise ValueError(f"metrics {missing} were not evaluated; evaluated: {evaluated}")
    rows = []
    for part in parts:
        chosen = None if asked is None else [m for m in part.metrics if m in asked.metrics]
        if chosen == []:
            continue  # none of the chosen metrics is in this part
        found = part.summary(average, weights=weights, metrics=chosen, names=names)
        if part is not primary:
            suffix = label_suffix(part.policy, primary.policy, part.metrics)
            found = _relabelled(found, suffix, names != "canonical")
        rows.append(found)
    return pl.concat(rows, how="diagonal_relaxed")
