"""Measures evaluated under their own parameters: one evaluation per policy the names ask for.

The tools evaluate each measure with its own parameters (``P(rel=2)@5`` beside ``R@5``: R@5
at rel = 1). `evaluate` does the same: the names are grouped by the policy each reads
(`Request.parts`), each group is evaluated under its own, and the results are one `Evaluation`
whose tables carry every measure. A measure that reads the evaluation's own policy keeps its
canonical name; one whose name sets a field it reads otherwise is labelled with those fields
(``precision(relevance_threshold=2)``: `polars_rankk.core.names.plan.label_suffix`), in
``per_group`` and ``summary()``, so that a number never stands under a name that does not say
how it was computed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

import polars as pl

from polars_rankk.core.metrics.registry import metric_rank
from polars_rankk.core.names.parse import NameStyle
from polars_rankk.core.names.request import Request
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
    labels: tuple[tuple[str, str], ...]
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


def relabelled(table: Frame, labels: Sequence[tuple[str, str]], canonical_only: bool) -> Frame:
    """`table` with each metric's label suffix after its name (`Part.labels`); for tool
    spellings (`canonical_only`), only after the canonical names a tool could not spell: a
    tool's name already says its parameters."""
    if not labels:
        return table
    # The fields go after the metric's name, before a cut-off written into it (ndcg(...)@10).
    base = pl.col("metric").str.replace(r"@\d+$", "")
    cut = pl.col("metric").str.extract(r"(@\d+)$").fill_null("")
    labelled: Any = pl
    for metric, suffix in labels:
        labelled = labelled.when(base == metric).then(pl.lit(metric + suffix) + cut)
    return table.with_columns(labelled.otherwise(pl.col("metric")).alias("metric"))


def unlabelled(table: FrameLike, labels: Sequence[tuple[str, str]]) -> pl.LazyFrame:
    """`table` with each labelled metric's canonical name back (`relabelled` undone), for a
    step that reads the registry's names."""
    if not labels:
        return table.lazy()
    canonical = {metric + suffix: metric for metric, suffix in labels}
    return table.lazy().with_columns(pl.col("metric").replace(canonical))


def label(evaluation: P, labels: tuple[tuple[str, str], ...]) -> P:
    """`evaluation` of one plan part, its metrics labelled with what they read otherwise than
    the evaluation's policy (`Part.labels`): its ``per_group`` rows now, its ``summary()``
    when it is asked."""
    evaluation.labels = labels
    rows = evaluation.per_group
    if labels and isinstance(rows, pl.DataFrame):
        evaluation.per_group = relabelled(rows, labels, canonical_only=False)
    elif labels:
        evaluation.per_group = relabelled(rows.lazy(), labels, canonical_only=False)
    return evaluation


def combined(evaluations: Sequence[P]) -> P:
    """The first evaluation with the others as its variants: ``per_group`` holds every
    part's rows (each part's already labelled, `label`), ``ks`` every K. One evaluation is
    itself."""
    primary, *others = evaluations
    if not others:
        return primary
    if primary.system is not None:
        raise ValueError(
            "metric names whose parameters ask for different policies cannot be evaluated "
            f"with system={primary.system!r} in one call: evaluate each parameter set on its "
            "own (the names of one call then share their parameters)"
        )
    result = copy.copy(primary)
    result.__dict__["_primary"] = primary
    result.variants = tuple(others)
    tables = [one.per_group.lazy() for one in evaluations]
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
        rows.append(part.summary(average, weights=weights, metrics=chosen, names=names))
    return pl.concat(rows, how="diagonal_relaxed")
