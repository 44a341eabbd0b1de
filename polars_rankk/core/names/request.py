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
from dataclasses import dataclass
from typing import Any, NamedTuple

from polars_rankk.core.metrics.registry import DEFAULT_METRICS, METRICS
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

    def policy(self, policy: Policy | None = None) -> Policy:
        """`policy` with the fields the names' parameters set.

        Two names that set one field differently, or a name that contradicts a field the
        policy already sets away from its default, raise a ValueError naming both.

        Examples
        --------
        >>> from polars_rankk.core.names.request import Request
        >>> Request.of(["P@5", "nDCG(judged_only=True)@10"]).policy().unjudged
        'condense'
        """
        policy = Policy() if policy is None else policy
        default = Policy()
        changes: dict[str, tuple[Any, str]] = {}
        for asked in self.asked:
            for measure in asked.measures:
                for policy_field, value in measure.policy.items():
                    if policy_field in changes and changes[policy_field][0] != value:
                        earlier = changes[policy_field][1]
                        raise ValueError(
                            f"metric names {earlier!r} and {asked.name!r} set Policy."
                            f"{policy_field} to {changes[policy_field][0]!r} and {value!r}; "
                            f"one evaluation has one policy"
                        )
                    current = getattr(policy, policy_field)
                    if current != getattr(default, policy_field) and current != value:
                        raise ValueError(
                            f"metric name {asked.name!r} sets Policy.{policy_field}={value!r}, "
                            f"but the policy given has {policy_field}={current!r}"
                        )
                    changes[policy_field] = (value, asked.name)
        if changes:
            policy = policy.replace(**{key: value for key, (value, _) in changes.items()})
        return policy

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


def resolve_metric_names(
    metrics: str | Iterable[str] | None, policy: Policy | None = None
) -> tuple[tuple[str, ...], tuple[int, ...], Policy]:
    """The canonical metrics (in canonical order), the cut-offs the names carry, and `policy`
    with the fields the names' parameters set (`Request.policy`).

    Examples
    --------
    >>> from polars_rankk.core.names.request import resolve_metric_names
    >>> metrics, ks, policy = resolve_metric_names(["P@5", "nDCG(judged_only=True)@10", "AP"])
    >>> metrics, ks, policy.unjudged
    (('precision', 'ndcg', 'average_precision'), (5, 10), 'condense')
    """
    request = Request.of(metrics)
    return request.metrics, request.ks, request.policy(policy)
