"""What the user asked for: one typed request per measure, parsed once where a path starts.

A `Request` holds each metric name as typed beside what it reads as (`MetricRequest`: the
canonical metric, its cut-off or the whole list, the Policy fields its parameters set, and the
tool and spelling it came from). It is built once at the entry of a path (`evaluate`,
`k_curve`, the engines, the ``rankk`` command) and handed down: everything downstream reads
the parsed measures, never the names again. A `Request` is itself an iterable of the names as
typed, so a function that takes metric names takes a `Request` as they are, without parsing
them a second time (`Request.of` returns it unchanged).

Examples
--------
>>> from polars_rankk.core.names.request import Request
>>> request = Request.of(["P@5", "nDCG(judged_only=True)@10", "map"])
>>> list(request), request.metrics, request.ks
(['P@5', 'nDCG(judged_only=True)@10', 'map'], ('precision', 'ndcg', 'average_precision'), (5, 10))
>>> [(m.metric, m.k, m.whole_list, m.tool) for m in request.measures]
[('precision', 5, False, 'ir_measures'), ('ndcg', 10, False, 'ir_measures'), \
('average_precision', None, True, 'trec_eval')]
>>> Request.of(request) is request
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import NamedTuple

from polars_rankk.core.metrics.parameters import PARAMETER_FIELDS
from polars_rankk.core.metrics.registry import DEFAULT_METRICS, METRICS, REGISTRY
from polars_rankk.core.names import parse
from polars_rankk.core.names.parse import MetricRequest
from polars_rankk.core.policy import Policy


class Asked(NamedTuple):
    """One name as typed and the measures it reads as (trec_eval's ``P.5,10``: two)."""

    name: str
    measures: tuple[MetricRequest, ...]


class WholeList(NamedTuple):
    """The metrics names ask for over the whole ranked list (``map``, ``AP``, ``RR``), and
    those of them no other name asks for at a cut-off (no row at the evaluation's K)."""

    metrics: tuple[str, ...]
    only: tuple[str, ...]


@dataclass(frozen=True)
class Request:
    """The metrics asked for, parsed once: each name as typed and the measures it reads as.

    ``default`` is True when no names were given (``metrics=None``): the default metrics.
    Iterating yields the names as typed (none for the default metrics).
    """

    asked: tuple[Asked, ...] = ()
    default: bool = True

    @classmethod
    def of(cls, metrics: str | Iterable[str] | Request | None) -> Request:
        """The request for `metrics` (names in any accepted spelling, or None for the default
        metrics); a `Request` is returned as it is, so a path parses its names once.

        Raises a ValueError naming the text for a name that names no metric (and the valid
        names), and for an empty list.

        Examples
        --------
        >>> from polars_rankk.core.names.request import Request
        >>> Request.of("P.5,10").measures
        (MetricRequest(metric='precision', k=5, policy={}), MetricRequest(metric='precision', \
k=10, policy={}))
        >>> Request.of(None).metrics
        ('precision', 'recall', 'f1', 'hit_rate', 'ndcg', 'average_precision', 'mrr', \
'r_precision')
        """
        if isinstance(metrics, Request):
            return metrics
        if metrics is None:
            return cls()
        single = isinstance(metrics, str) or _measure_object(metrics)
        names = [_typed(name) for name in ([metrics] if single else list(metrics))]
        if not names:
            raise ValueError(f"metrics is empty; choose among: {parse.valid_names()}")
        return cls(tuple(Asked(name, tuple(parse.parse_metric_names(name))) for name in names),
                   default=False)  # fmt: skip

    def __iter__(self) -> Iterator[str]:
        return iter(asked.name for asked in self.asked)

    def __len__(self) -> int:
        return len(self.asked)

    @property
    def names(self) -> list[str] | None:
        """The names as typed, or None for the default metrics."""
        return None if self.default else [asked.name for asked in self.asked]

    @property
    def measures(self) -> tuple[MetricRequest, ...]:
        """Every measure asked, in the order typed."""
        return tuple(measure for asked in self.asked for measure in asked.measures)

    @property
    def metrics(self) -> tuple[str, ...]:
        """The canonical metrics asked, in canonical order (the default metrics for None)."""
        if self.default:
            return tuple(DEFAULT_METRICS)
        chosen = {measure.metric for measure in self.measures}
        return tuple(name for name in METRICS if name in chosen)

    @property
    def ks(self) -> tuple[int, ...]:
        """The cut-offs the names carry (``P@5`` -> 5), sorted."""
        return tuple(sorted({m.k for m in self.measures if m.k is not None}))

    def select(self, keep: Callable[[MetricRequest], bool]) -> Request:
        """The names whose measures `keep` accepts (a name is kept whole or left out; for
        the default metrics, self)."""
        if self.default:
            return self
        kept = tuple(asked for asked in self.asked if all(keep(m) for m in asked.measures))
        return Request(kept, default=False)

    def without(self, other: Request) -> Request:
        """The names of self that `other` does not hold."""
        if self.default:
            return self
        taken = {asked.name for asked in other.asked}
        return Request(tuple(a for a in self.asked if a.name not in taken), default=False)

    def parts(self, policy: Policy | None = None) -> list[tuple[Request, Policy]]:
        """The names grouped by the policy each is evaluated under: `policy` with the fields
        that name's parameters set (a name's parameters apply to its measures alone, over the
        evaluation's policy, as the tools evaluate each measure with its own). The part under
        `policy` itself comes first (else the first name's); one part when every name reads
        the same policy.

        Examples
        --------
        >>> from polars_rankk.core.names.request import Request
        >>> parts = Request.of(["P(rel=2)@5", "R@5", "nDCG@5"]).parts()
        >>> [(list(part), policy.relevance_threshold) for part, policy in parts]
        [(['R@5', 'nDCG@5'], 1), (['P(rel=2)@5'], 2)]
        """
        policy = Policy() if policy is None else policy
        if self.default:
            return [(self, policy)]
        found: list[tuple[list[Asked], Policy, frozenset[str]]] = []
        for asked in self.asked:
            effective, reads = _under(policy, asked), _reads(asked)
            for index, (names, known, known_reads) in enumerate(found):
                # A field only one side reads does not set the two apart (a name's
                # parameters set only fields its metric reads: the rest are the policy's).
                if all(getattr(known, f) == getattr(effective, f) for f in reads & known_reads):
                    new = {f: getattr(effective, f) for f in reads - known_reads}
                    found[index] = ([*names, asked], known.replace(**new), known_reads | reads)
                    break
            else:
                found.append(([asked], effective, reads))
        order = {asked.name: index for index, asked in enumerate(self.asked)}
        parts = [(Request(tuple(names), default=False), known) for names, known, _ in found]
        # The given policy's part first (else the first name's), each in the order typed.
        parts.sort(key=lambda part: (part[1] != policy, order[part[0].asked[0].name]))
        return parts

    def policy(self, policy: Policy | None = None) -> Policy:
        """`policy` with the fields the names' parameters set, for a path that evaluates every
        measure under one policy.

        Names whose parameters ask for different policies (``P(rel=2)@5`` beside ``R@5``)
        raise a ValueError naming them: `evaluate` evaluates each under its own.

        Examples
        --------
        >>> from polars_rankk.core.names.request import Request
        >>> Request.of(["P@5", "nDCG(judged_only=True)@10"]).policy()
        Traceback (most recent call last):
        ...
        ValueError: the metric names 'nDCG(judged_only=True)@10' and 'P@5' are evaluated under ...
        >>> Request.of(["nDCG(judged_only=True)@10"]).policy().unjudged
        'condense'
        """
        parts = self.parts(policy)
        if len(parts) > 1:
            (first, one), (second, other) = parts[-1], parts[0]
            raise ValueError(
                f"the metric names {first.asked[0].name!r} and {second.asked[0].name!r} are "
                f"evaluated under different policies ({differences(one, other)} and "
                f"{differences(other, one)}), which this path cannot do in one call: "
                f"rk.evaluate evaluates each measure under its own parameters, or evaluate "
                f"them in separate calls"
            )
        return parts[0][1]

    @property
    def whole_list(self) -> WholeList:
        """Which metrics the names ask for over the whole list, in canonical order.

        Examples
        --------
        >>> from polars_rankk.core.names.request import Request
        >>> Request.of(["map", "recip_rank", "RR@10", "P@5"]).whole_list
        WholeList(metrics=('average_precision', 'mrr'), only=('average_precision',))
        >>> Request.of(["ndcg", "ndcg_cut_10"]).whole_list
        WholeList(metrics=(), only=())
        """
        whole = {m.metric for m in self.measures if m.whole_list}
        cut = {m.metric for m in self.measures if not m.whole_list}
        in_order = [name for name in METRICS if name in whole]
        return WholeList(tuple(in_order), tuple(name for name in in_order if name not in cut))


def _measure_object(value: object) -> bool:
    """Whether `value` is an ir_measures measure object (``ir_measures.nDCG@10``)."""
    return type(value).__module__.split(".")[0] == "ir_measures"


def _typed(name: object) -> str:
    """A name as typed: an ir_measures measure object reads as its ``str()`` (``nDCG@10``),
    the name ir_measures itself writes for it; anything else is left to the parser."""
    return str(name) if _measure_object(name) else name  # type: ignore[return-value]


def _reads(asked: Asked) -> frozenset[str]:
    """The Policy fields `asked`'s measures read (`Metric.reads`)."""
    return frozenset().union(*(REGISTRY[measure.metric].reads for measure in asked.measures))


def unread_fields(metrics: Iterable[str]) -> tuple[str, ...]:
    """The parameter fields (`PARAMETER_FIELDS`) none of `metrics` reads, in Policy's order.

    Examples
    --------
    >>> from polars_rankk.core.names.request import unread_fields
    >>> unread_fields(["ndcg", "compat"])[:4]
    ('ap_denominator', 'rbp_persistence', 'err_max_grade', 'f_beta')
    """
    read = frozenset().union(*(REGISTRY[metric].reads for metric in metrics))
    return tuple(f.name for f in fields(Policy) if f.name in PARAMETER_FIELDS - read)


def _under(policy: Policy, asked: Asked) -> Policy:
    """`policy` with the fields `asked`'s parameters set (each of its measures sets the same)."""
    changes = asked.measures[0].policy if asked.measures else {}
    return policy.replace(**changes) if changes else policy


def differences(policy: Policy, other: Policy, ignore: Iterable[str] = ()) -> str:
    """The fields where `policy` differs from `other`, as ``field=value`` (comma-separated).

    Examples
    --------
    >>> from polars_rankk.core.policy import Policy
    >>> from polars_rankk.core.names.request import differences
    >>> differences(Policy(relevance_threshold=2, unjudged="condense"), Policy())
    "relevance_threshold=2,unjudged='condense'"
    """
    return ",".join(
        f"{item.name}={getattr(policy, item.name)!r}"
        for item in fields(policy)
        if getattr(policy, item.name) != getattr(other, item.name) and item.name not in ignore
    )


def resolve_metric_names(
    metrics: str | Iterable[str] | None, policy: Policy | None = None
) -> tuple[tuple[str, ...], tuple[int, ...], Policy]:
    """The canonical metrics (in canonical order), the cut-offs the names carry, and `policy`
    with the fields the names' parameters set (`Request.policy`).

    Examples
    --------
    >>> from polars_rankk.core.names.request import resolve_metric_names
    >>> metrics, ks, policy = resolve_metric_names(["P(rel=2)@5", "nDCG(rel=2)@10"])
    >>> metrics, ks, policy.relevance_threshold
    (('precision', 'ndcg'), (5, 10), 2)
    """
    request = Request.of(metrics)
    return request.metrics, request.ks, request.policy(policy)
