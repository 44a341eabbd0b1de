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
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES, N_RELEVANT
from polars_rankk.core.evaluation.aggregate import no_micro_form, order_metrics
from polars_rankk.core.metrics.parameters import written_value
from polars_rankk.core.metrics.registry import MICRO_METRICS, REGISTRY
from polars_rankk.core.names.cells import Label, at_cutoff
from polars_rankk.core.names.listing import metric_rank
from polars_rankk.core.names.parse import NameStyle
from polars_rankk.core.names.plan import Plan
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
    groups: FrameLike
    labels: tuple[Label, ...]
    plan: Plan | None
    _keys: list[str]

    def _summary_of_part(
        self,
        chosen: list[str] | None,
        how: tuple[Average, str | FrameLike | None, NameStyle],
        cells: set[tuple[str, int | None]] | None = None,
    ) -> pl.DataFrame: ...


P = TypeVar("P", bound=Part)
Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def _cell(metric: str, k: int | None) -> pl.Expr:
    return (pl.col("metric") == metric) & pl.col("k").eq_missing(pl.lit(k, dtype=pl.Int64))


def relabelled(table: Frame, labels: Sequence[Label], canonical_only: bool) -> Frame:
    """`table` (``metric`` and ``k`` columns) with each labelled cell's name (`Part.labels`):
    as typed; with a tool's names (`canonical_only`), only where the tool could not write it
    (its canonical ``metric@K`` stands), as the canonical name with the fields it reads
    otherwise (a tool's spelling would claim the tool's number)."""
    if not labels:
        return table
    named: Any = pl
    for found in labels:
        if canonical_only:
            written = REGISTRY[found.metric].column(found.k)
            named = named.when(
                (pl.col("metric") == written) & pl.col("k").eq_missing(found.k)
            ).then(pl.lit(at_cutoff(found.canonical, found.k)))
        else:
            named = named.when(_cell(found.metric, found.k)).then(pl.lit(found.typed))
    return table.with_columns(named.otherwise(pl.col("metric")).alias("metric"))


def unlabelled(table: FrameLike, labels: Sequence[Label]) -> pl.LazyFrame:
    """`table` with each labelled cell's metric name back (`relabelled` undone), for a step
    that reads the registry's names."""
    if not labels:
        return table.lazy()
    named: Any = pl
    for found in labels:
        named = named.when(_cell(found.typed, found.k)).then(pl.lit(found.metric))
    return table.lazy().with_columns(named.otherwise(pl.col("metric")).alias("metric"))


def label(evaluation: P, labels: tuple[Label, ...], plan: Plan | None) -> P:
    """`evaluation` of one plan part, its metrics labelled with what they read otherwise than
    the evaluation's policy (`Part.labels`): its ``per_group`` rows now, its ``summary()``
    when it is asked."""
    evaluation.labels, evaluation.plan = labels, plan
    if not labels:  # (an eager evaluation's rows are then built when first read)
        return evaluation
    rows = evaluation.per_group
    if isinstance(rows, pl.DataFrame):
        evaluation.per_group = relabelled(rows, labels, canonical_only=False)
    else:
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
    # The primary's cached diagnostics are one part's: the whole's are computed on access.
    result.__dict__.pop("diagnostics", None)
    result.__dict__["_primary"] = primary
    result.variants = tuple(others)
    tables = [one.per_group.lazy() for one in evaluations]
    per_group = pl.concat([table.lazy() for table in tables], how="vertical")
    if not primary.is_lazy:
        keys = list(primary._keys)
        per_group = per_group.sort([*keys, metric_rank(), "metric", "k"], nulls_last=True)
    result.per_group = per_group if primary.is_lazy else per_group.collect()
    result.ks = sorted({k for one in evaluations for k in one.ks})
    result.groups = _groups_of_parts(primary, others)
    return result


#: The Policy fields that decide a group's list length and R (its row in ``groups``).
_GROUP_FIELDS = ("relevance_threshold", "pool", "negative_grades", "unjudged")


def _groups_of_parts(primary: Part, others: Sequence[Part]) -> FrameLike:
    """``groups`` of an evaluation in parts: the first part's, and the list length and R of
    each part that counts them otherwise (``n_relevant(relevance_threshold=2)``), side by
    side (null where a part's policy left the group out)."""
    keys, joined = list(primary._keys), primary.groups.lazy()
    for other in others:
        differing = [
            f"{name}={written_value(name, getattr(other.policy, name))}"
            for name in _GROUP_FIELDS
            if getattr(other.policy, name) != getattr(primary.policy, name)
        ]
        if not differing:
            continue
        suffix = f"({','.join(differing)})"
        theirs = other.groups.lazy().select(
            *keys, *(pl.col(c).alias(c + suffix) for c in (N_CANDIDATES, N_RELEVANT))
        )
        columns = joined.collect_schema().names()
        if f"{N_RELEVANT}{suffix}" not in columns:
            joined = joined.join(theirs, on=keys, how="full", coalesce=True)
    joined = joined.sort(keys)
    return joined if primary.is_lazy else joined.collect()


def summary_of_parts(
    parts: Sequence[Part],
    evaluation: Policy,
    metrics: Iterable[str] | None,
    how: tuple[Average, str | FrameLike | None, NameStyle],
) -> pl.DataFrame:
    """`Evaluation.summary` of the `parts` of an evaluation under the `evaluation`'s policy:
    each part's summary, stacked, its labelled cells named as labelled. `metrics`, in any
    accepted spelling, chooses cells: a name's parameters choose the part that reads them
    (``P(rel=2)@5``: precision at threshold 2, not the policy's precision), its cut-off the
    K. A micro average leaves out the parts without a micro form, saying so."""
    average = how[0]
    chosen = _chosen(parts, evaluation, metrics)
    rows, without = [], []
    for part, (names, cells) in zip(parts, chosen, strict=True):
        if names == [] or not part.metrics:
            continue  # none of the chosen metrics is in this part (or only catalogue figures)
        if metrics is None and average == "micro" and not set(part.metrics) & set(MICRO_METRICS):
            without.append(part)
            continue
        rows.append(part._summary_of_part(names, how, cells))
    if without:
        left = list(dict.fromkeys(_name(part, m) for part in without for m in part.metrics))
        if not rows:
            raise ValueError(no_micro_form(left))
        warnings.warn(
            f"summary(average='micro'): {', '.join(left)} have no micro form and are left out",
            stacklevel=3,
        )
    if not rows:  # only catalogue-level figures were asked: the summary's columns, no row
        rows.append(pl.DataFrame(schema=_SUMMARY_SCHEMA))
    # One order on every path (the engines' summaries sort so): system, metric, K, label.
    system = parts[0].system
    return order_metrics(pl.concat(rows, how="diagonal_relaxed"), [system] if system else [])


#: The columns of a summary with no row.
_SUMMARY_SCHEMA = {
    "metric": pl.String,
    "k": pl.Int64,
    "value": pl.Float64,
    **dict.fromkeys(
        ("n_groups", "n_nan", "dropped_empty_truth", "dropped_missing", "dropped_short"),
        pl.Int64,
    ),
}


def _name(part: Part, metric: str) -> str:
    """`metric` as `part` names it (its label, where it has one)."""
    return next((label.typed for label in part.labels if label.metric == metric), metric)


Chosen = tuple[list[str] | None, set[tuple[str, int | None]] | None]


def _chosen(
    parts: Sequence[Part], evaluation: Policy, metrics: Iterable[str] | None
) -> list[Chosen]:
    """Per part, the canonical metrics `metrics` choose there (None: every one) and the
    cells, where a name gives its cut-off (None: every K)."""
    if metrics is None:
        return [(None, None)] * len(parts)
    asked = Request.of([metrics] if isinstance(metrics, str) else list(metrics))
    chosen: list[tuple[list[str], set[tuple[str, int | None]] | None]] = [
        ([], set()) for _ in parts
    ]
    for measure in asked.measures:
        if REGISTRY[measure.metric].kind == "catalogue":
            continue  # one figure over every list: `with_catalogue` adds its row
        wanted = evaluation.replace(**measure.policy) if measure.policy else evaluation
        reads = REGISTRY[measure.metric].reads
        index = next(
            (
                i
                for i, part in enumerate(parts)
                if measure.metric in part.metrics
                and all(getattr(part.policy, f) == getattr(wanted, f) for f in reads)
            ),
            None,
        )
        if index is None:
            evaluated = sorted({_name(part, m) for part in parts for m in part.metrics})
            raise ValueError(
                f"metrics [{measure.spelling or measure.metric!r}] were not evaluated; "
                f"evaluated: {evaluated}"
            )
        names, cells = chosen[index]
        if measure.metric not in names:
            names.append(measure.metric)
        if cells is not None and (measure.k is not None or measure.whole_list):
            cells.add((measure.metric, measure.k))
        elif cells is not None:
            chosen[index] = (names, None)  # a name without a cut-off: every K of its metric
    return [(names, cells) for names, cells in chosen]


def with_catalogue(
    summary: pl.DataFrame,
    catalogue: FrameLike | None,
    metrics: Iterable[str] | None,
    system: str | None,
) -> pl.DataFrame:
    """`summary` with the catalogue-level figures asked (coverage, gini...: one value over
    every list, the same under every average; no group counts), so that every metric asked
    appears where a user reads results."""
    if catalogue is None:
        return summary
    rows = catalogue.lazy()
    if metrics is not None:
        asked = Request.of([metrics] if isinstance(metrics, str) else list(metrics))
        rows = rows.filter(pl.col("metric").is_in([m.metric for m in asked.measures]))
    columns = [c for c in (system, "metric", "k", "value") if c is not None]
    found = rows.select(columns).collect()
    if found.height == 0:
        return summary
    by = [system] if system else []
    return order_metrics(pl.concat([summary, found], how="diagonal_relaxed"), by)
