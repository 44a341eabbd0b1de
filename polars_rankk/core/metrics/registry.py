"""The metric registry: every fact about a metric, declared once.

A `Metric` says what a metric is — its name and the names other tools give it, whether higher
or lower is better, whether it takes a cut-off K, its kind (a per-group accuracy metric, a
per-group beyond-accuracy metric, or one figure over the catalogue), the per-rank terms it reads
(`polars_rankk.core.metrics.terms`), its formula, its micro average (or none), and whether
K-curves read
it from sums over ranks. Validation, names, evaluation, aggregation, curves, comparisons, charts
and tables (which value is "best"), the report, the CLI's choices, the docs generators and the
tests' parametrisation all read this table. A built-in metric is one entry in its family's
module, `polars_rankk.core.metrics.families` (plus its term in `polars_rankk.core.metrics.terms`
if it reads a new one, and its docs); this module assembles them in `FAMILIES`' order. A user's
metric is one call of `polars_rankk.register_metric`.

Examples
--------
>>> from polars_rankk.core.metrics.registry import REGISTRY
>>> REGISTRY["ndcg"].trec_eval_name(10), REGISTRY["ndcg"].ir_measures_name(10)
('ndcg_cut_10', 'nDCG@10')
>>> [name for name, metric in REGISTRY.items() if metric.micro]
['precision', 'recall', 'f1', 'hit_rate', 'r_precision']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload

from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.declaration import (
    Alias,
    Direction,
    Formula,
    Kind,
    Metric,
    Micro,
    MicroSums,
)
from polars_rankk.core.metrics.families import (
    beyond_accuracy,
    catalogue,
    compat_q,
    cutoff,
    judgements,
    sets,
    trec_eval,
    trec_gain,
)
from polars_rankk.core.metrics.families.cwl import CWL_METRICS
from polars_rankk.core.metrics.families.diversity import DIVERSITY_METRICS
from polars_rankk.core.policy import Policy

__all__ = [
    "ACCURACY_METRICS",
    "DEFAULT_METRICS",
    "K_METRICS",
    "LOWER_IS_BETTER",
    "METRICS",
    "METRIC_DEFINITIONS",
    "MICRO_METRICS",
    "RANK_SUMMED_METRICS",
    "REGISTRY",
    "Alias",
    "Direction",
    "Formula",
    "Kind",
    "Metric",
    "MetricNames",
    "Micro",
    "MicroSums",
    "add_metric",
    "higher_is_better",
    "remove_metric",
    "term_needs",
]

#: The built-in families, in canonical order (one line each; a family is a module of
#: `polars_rankk.core.metrics.families`).
FAMILIES: tuple[tuple[Metric, ...], ...] = (
    cutoff.METRICS,
    judgements.METRICS,
    sets.METRICS,
    trec_eval.METRICS,
    trec_gain.METRICS,
    beyond_accuracy.METRICS,
    catalogue.METRICS,
    CWL_METRICS,
    DIVERSITY_METRICS,
    compat_q.METRICS,
)

#: Every metric by name, in canonical order (the order of ``metrics=None`` and of outputs);
#: `polars_rankk.register_metric` adds to it.
REGISTRY: dict[str, Metric] = {metric.name: metric for family in FAMILIES for metric in family}


class MetricNames(Sequence[str]):
    """The names of the registered metrics that satisfy a condition, in canonical order.

    A live view: a metric registered later is in it. It compares equal to a tuple of the same
    names.
    """

    def __init__(self, keep: Callable[[Metric], bool]) -> None:
        self._keep = keep

    def _names(self) -> tuple[str, ...]:
        return tuple(name for name, metric in REGISTRY.items() if self._keep(metric))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        metric = REGISTRY.get(name) if isinstance(name, str) else None
        return metric is not None and self._keep(metric)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MetricNames):
            return self._names() == other._names()
        if isinstance(other, (tuple, list)):
            return self._names() == tuple(other)
        if isinstance(other, (set, frozenset)):
            return set(self._names()) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._names())

    def __repr__(self) -> str:
        return repr(self._names())


#: The canonical metric names, in order.
METRICS = MetricNames(lambda metric: True)
#: The metrics ``metrics=None`` evaluates.
DEFAULT_METRICS = MetricNames(lambda metric: metric.default)
#: Metrics that take a cut-off K.
K_METRICS = MetricNames(lambda metric: metric.has_k)
#: Metrics computed from relevance (the rest are beyond-accuracy metrics).
ACCURACY_METRICS = MetricNames(lambda metric: metric.accuracy)
#: Metrics with a micro average.
MICRO_METRICS = MetricNames(lambda metric: metric.micro is not None)
#: Metrics whose K-curves are read from sums over ranks.
RANK_SUMMED_METRICS = MetricNames(lambda metric: metric.rank_summed)
#: Metrics where lower values are better.
LOWER_IS_BETTER = MetricNames(lambda metric: metric.direction == "lower")


class _Definitions(Mapping[str, str]):
    """One line per metric: what it measures, with its reference convention (live)."""

    def __getitem__(self, name: str) -> str:
        return REGISTRY[name].definition

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


#: One line per metric: what it measures, with its reference convention.
METRIC_DEFINITIONS: Mapping[str, str] = _Definitions()


def higher_is_better(metric: str) -> bool:
    """Whether larger values of `metric` are better (an unknown name: True).

    Examples
    --------
    >>> from polars_rankk.core.metrics.registry import higher_is_better
    >>> higher_is_better("ndcg"), higher_is_better("gini")
    (True, False)
    """
    entry = REGISTRY.get(metric)
    return True if entry is None else entry.higher_is_better


def add_metric(metric: Metric, *, replace: bool = False) -> None:
    """Add `metric` to the registry (after the metrics already there).

    A name or alias another metric already uses raises a ValueError, unless `replace` is True
    and the name is that of a metric registered at run time (built-in metrics stay).
    """
    existing = REGISTRY.get(metric.name)
    if existing is not None and (not replace or existing.origin == "built-in"):
        raise ValueError(
            f"a metric called {metric.name!r} is already registered "
            f"({'built in' if existing.origin == 'built-in' else existing.origin}); "
            f"choose another name{'' if existing.origin == 'built-in' else ' or replace=True'}"
        )
    taken = {
        alias.spelling.lower(): other.name
        for other in REGISTRY.values()
        if other.name != metric.name
        for alias in other.aliases
    } | {other.lower(): other for other in REGISTRY if other != metric.name}
    for spelling in (metric.name, *(alias.spelling for alias in metric.aliases)):
        if spelling.lower() in taken:
            raise ValueError(
                f"metric {metric.name!r}: the name {spelling!r} already names "
                f"{taken[spelling.lower()]!r}"
            )
    for term in metric.own_terms:
        term_table.add_term(term, replace=replace)
    REGISTRY[metric.name] = metric


def remove_metric(name: str) -> None:
    """Remove a metric registered at run time (built-in metrics stay)."""
    metric = REGISTRY.get(name)
    if metric is None:
        raise ValueError(f"no metric {name!r} is registered")
    if metric.origin == "built-in":
        raise ValueError(f"{name} is built in; only metrics registered at run time can go")
    del REGISTRY[name]
    for term in metric.own_terms:
        term_table.TERMS.pop(term.column, None)


def term_needs(metrics: Iterable[str], policy: Policy) -> term_table.TermNeeds:
    """The per-rank terms and counts the accuracy `metrics` read, checked against `policy`.

    Under ``ties="expected"`` a metric reading a term without an exact expectation over tie
    orderings raises a ValueError naming it.
    """
    chosen = [REGISTRY[name] for name in metrics if REGISTRY[name].accuracy]
    if policy.ties == "expected":
        unsupported = [metric.name for metric in chosen if not metric.supports_expected_ties]
        if unsupported:
            raise ValueError(
                f"{' and '.join(unsupported)} have no exact expectation over tie orderings "
                f"here: Policy(ties='expected') cannot evaluate them; choose another tie "
                f"policy (e.g. 'trec_eval' or 'pessimistic') for them"
            )
    return term_table.TermNeeds(
        columns=term_table.ordered(column for metric in chosen for column in metric.terms),
        hits_at_r=any("hits_at_r" in metric.counts for metric in chosen),
    )
