"""What a result reports of the names asked: its cells, one (metric, K) each, and the labels of
the cells whose name reads the policy otherwise than the evaluation.

A name carrying its cut-off is reported at that cut-off alone (``P@5`` beside ``R@1000``: P at
5, R at 1000, as ir_measures and trec_eval report them); a name read at the evaluation's K
(``ndcg``, ``P``) at each K given (``k=``, else the default); a name over the whole list
(``map``) and a metric without a cut-off (``bpref``) once, K null. The default metrics are
reported at every K.

A cell whose name sets a field its metric reads (`Metric.reads`) to another value than the
evaluation's policy is labelled: by the name as typed without its cut-off (``P(rel=2)`` for
``P(rel=2)@5``), or, for a canonical name, by the canonical name with exactly those fields
(``precision(relevance_threshold=2)``). Either reads back as the same measure (`at_cutoff`).

Examples
--------
>>> import polars_rankk as rk
>>> from polars_rankk.core.names.cells import cells_of, labels_of
>>> from polars_rankk.core.names.request import Request
>>> request = Request.of(["P(rel=2)@5", "precision(rel=2)", "map"])
>>> cells_of(request, (10, 20))
(Cell(metric='precision', k=5), Cell(metric='precision', k=10), Cell(metric='precision', \
k=20), Cell(metric='average_precision', k=None))
>>> rel2 = Request.of(["P(rel=2)@5", "precision(rel=2)"])
>>> [(label.k, label.typed, label.canonical)
...  for label in labels_of(rel2, rk.Policy(relevance_threshold=2), rk.Policy(), (10,))]
[(5, 'P(rel=2)', 'precision(relevance_threshold=2)'), (10, \
'precision(relevance_threshold=2)', 'precision(relevance_threshold=2)')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import fields
from typing import NamedTuple

from polars_rankk.core.metrics.parameters import written_value
from polars_rankk.core.metrics.registry import METRICS, REGISTRY
from polars_rankk.core.names.parse import MetricRequest
from polars_rankk.core.names.request import Request
from polars_rankk.core.policy import Policy

__all__ = ["Cell", "Label", "at_cutoff", "cells_of", "label_suffix", "labels_of"]


class Cell(NamedTuple):
    """One (metric, K) a result reports; K None for a metric without one or a name read over
    the whole list."""

    metric: str
    k: int | None


class Label(NamedTuple):
    """What a cell's rows are named where its name reads the policy otherwise than the
    evaluation: as typed (without its cut-off) and as the canonical name with the fields it
    reads otherwise (what a tool's spelling falls back to where the tool computes another
    number)."""

    metric: str
    k: int | None
    typed: str
    canonical: str


def _cells_of_measure(measure: MetricRequest, ks: tuple[int, ...], every_k: bool) -> Iterator[Cell]:
    entry = REGISTRY[measure.metric]
    # A K-curve reads every measure with a K at every K, whole-list names too (``nDCG``).
    if not entry.has_k or (measure.whole_list and not every_k):
        yield Cell(measure.metric, None)
    elif measure.k is not None and not every_k:
        yield Cell(measure.metric, measure.k)
    else:
        yield from (Cell(measure.metric, k) for k in ks)


def cells_of(
    request: Request, ks: Iterable[int], *, every_k: bool = False
) -> tuple[Cell, ...] | None:
    """The cells `request`'s names ask for, names without a cut-off read at each of `ks`
    (`every_k`: every name, as a K-curve reads it), in the order typed, each once; None for
    the default metrics (every metric at every K)."""
    if request.default:
        return None
    chosen = tuple(ks)
    found = (
        cell for measure in request.measures for cell in _cells_of_measure(measure, chosen, every_k)
    )
    return tuple(dict.fromkeys(found))


def label_suffix(metric: str, policy: Policy, evaluation: Policy) -> str:
    """What `metric` read under `policy` adds to its canonical name beside the `evaluation`'s
    policy: the fields it reads (`Metric.reads`) that differ, as a name's parameters write
    them (so that the label reads back as the same measure); empty when none differs.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.names.cells import label_suffix
    >>> label_suffix("precision", rk.Policy(relevance_threshold=2, q_beta=2), rk.Policy())
    '(relevance_threshold=2)'
    >>> label_suffix("ndcg", rk.Policy(gains={0: 1, 1: 4}), rk.Policy())
    '(gains={0:1,1:4})'
    """
    reads = REGISTRY[metric].reads
    differing = [
        f"{item.name}={written_value(item.name, getattr(policy, item.name))}"
        for item in fields(Policy)
        if item.name in reads and getattr(policy, item.name) != getattr(evaluation, item.name)
    ]
    return f"({','.join(differing)})" if differing else ""


#: A cut-off written in a name, before ranx's relevance level (``ndcg@10-l2``).
_CUTOFF = re.compile(r"@\d+(?=(?:-l\d+)?$)")


def _uncut(spelling: str) -> str:
    """A name as typed without its cut-off: ``RBP(p=0.5)@10`` -> ``RBP(p=0.5)``,
    ``ndcg@10-l2`` -> ``ndcg-l2``."""
    return _CUTOFF.sub("", spelling.strip())


def at_cutoff(label: str, k: int | None) -> str:
    """A label with its cell's cut-off written in, as a name reads it back: ``P(rel=2)`` at 5
    is ``P(rel=2)@5``; ranx's ``ndcg-l2`` at 10 is ``ndcg@10-l2``.

    Examples
    --------
    >>> from polars_rankk.core.names.cells import at_cutoff
    >>> at_cutoff("P(rel=2)", 5), at_cutoff("ndcg-l2", 10), at_cutoff("bpref", None)
    ('P(rel=2)@5', 'ndcg@10-l2', 'bpref')
    """
    if k is None:
        return label
    level = re.search(r"-l\d+$", label)
    if level is not None and "(" not in label[level.start() :]:
        return f"{label[: level.start()]}@{k}{level.group()}"
    return f"{label}@{k}"


def _typed(measure: MetricRequest, canonical: str) -> str:
    """The label of a cell as typed: a tool's spelling as typed (without its cut-off), a
    canonical name as `canonical` (the name with the fields it reads otherwise)."""
    spelled = _uncut(measure.spelling)
    base = re.split(r"[(@-]", spelled, maxsplit=1)[0]
    return canonical if measure.tool is None or base in METRICS else spelled


def labels_of(
    request: Request,
    policy: Policy,
    evaluation: Policy,
    ks: Iterable[int],
    *,
    every_k: bool = False,
) -> tuple[Label, ...]:
    """The labels of the cells of `request`'s names read under `policy` (their part's) where
    a field their metric reads differs from the `evaluation`'s policy; the first name of a
    cell names it."""
    if request.default:
        return ()
    chosen = tuple(ks)
    found: dict[Cell, Label] = {}
    for measure in request.measures:
        suffix = label_suffix(measure.metric, policy, evaluation)
        if not suffix:
            continue
        canonical = measure.metric + suffix
        for cell in _cells_of_measure(measure, chosen, every_k):
            found.setdefault(cell, Label(*cell, _typed(measure, canonical), canonical))
    return tuple(found.values())
