"""One plan per evaluation: what was asked (the names, K, the policy), read once where a path
starts and executed by every path.

A `Plan` holds the request (`Request`: each name as typed and what it reads as), the cut-offs
the evaluation reads (``k`` given, else the default K where a name is read at it, and every
cut-off a name carries) and its parts: the names grouped by the policy each reads
(`Request.parts`: a name's parameters apply to its own measures alone, as the tools evaluate
each measure with its own). Each `Part` says what computes its names: the ranking's sums (the
accuracy metrics), the top-K rows and item tables (the beyond-accuracy metrics, per group or
over the catalogue) or the subtopic judgements. `evaluate`, the engines, out of core,
`k_curve`, `unjudged_bounds` and the ``rankk`` command build the plan once and hand it down;
nothing after reads the names, the K or the policy again.

The tools' conventions on the names typed are said here, once per plan (`ToolNameWarning`).

Examples
--------
>>> import polars_rankk as rk
>>> from polars_rankk.core.names.plan import Plan
>>> plan = Plan.of(["P(rel=2)@5", "R@5", "novelty@3", "map"], None, rk.Policy())
>>> plan.ks, [list(part.request) for part in plan.parts]
((3, 5), [['R@5', 'novelty@3', 'map'], ['P(rel=2)@5']])
>>> part = plan.parts[0]
>>> list(part.accuracy), part.beyond_group, part.policy == plan.policy
(['R@5', 'map'], ('novelty',), True)
>>> Plan.of(plan, None, None) is plan
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Final

from polars_rankk.core.metrics.parameters import written_value
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.conventions import warn_tool_conventions
from polars_rankk.core.names.cutoffs import DEFAULT_K, asked_ks, normalize_ks
from polars_rankk.core.names.parse import MetricRequest
from polars_rankk.core.names.request import Request, differences
from polars_rankk.core.policy import Policy

__all__ = ["Part", "Plan", "label_suffix"]

#: The beyond-accuracy metrics computed per group, and those over the catalogue, in registry
#: order.
_BEYOND_KINDS: Final = ("beyond_accuracy", "catalogue")


def _kind(measure: MetricRequest) -> str:
    return REGISTRY[measure.metric].kind


@dataclass(frozen=True)
class Part:
    """The names one policy reads, split by what computes them.

    Attributes
    ----------
    request
        Every name of the part, as typed (the default metrics: ``request.default``).
    policy
        The policy its measures read: the evaluation's, with the fields its names' parameters
        set.
    accuracy
        Its accuracy names, computed from the ranking's sums; None: the default metrics.
    beyond_group, beyond_catalogue
        Its beyond-accuracy metrics (canonical names, registry order): per group, and over the
        catalogue.
    subtopic
        Its subtopic names, computed from the subtopic judgements (an empty request: none).
    labels
        What its metrics add to their names in results, where they read the policy otherwise
        than the evaluation: ``(metric, "(field=value,...)")``, the fields each reads that
        its part sets otherwise (`label_suffix`); a metric without one keeps its name.
    """

    request: Request
    policy: Policy
    accuracy: Request | None
    beyond_group: tuple[str, ...] = ()
    beyond_catalogue: tuple[str, ...] = ()
    subtopic: Request = field(default_factory=lambda: Request(default=False))
    labels: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, request: Request, policy: Policy) -> Part:
        """The part of `request`'s names (which read one policy, `policy`), split."""
        if request.default:
            return cls(request, policy, None)
        subtopic = request.select(lambda m: _kind(m) == "diversity")
        beyond = {m.metric for m in request.measures if _kind(m) in _BEYOND_KINDS}
        accuracy = request.select(lambda m: _kind(m) == "accuracy")
        return cls(
            request,
            policy,
            accuracy,
            tuple(n for n, m in REGISTRY.items() if n in beyond and m.kind == "beyond_accuracy"),
            tuple(n for n, m in REGISTRY.items() if n in beyond and m.kind == "catalogue"),
            subtopic,
        )

    @property
    def subtopic_metrics(self) -> tuple[str, ...]:
        """The canonical subtopic metrics it asks for (none without subtopic names)."""
        return self.subtopic.metrics if self.subtopic.asked else ()

    @property
    def beyond(self) -> tuple[str, ...]:
        """Its beyond-accuracy metrics, per group then over the catalogue."""
        return (*self.beyond_group, *self.beyond_catalogue)

    @property
    def ranking_only(self) -> bool:
        """No accuracy metric is asked: the ranking is needed (for the beyond-accuracy or
        subtopic metrics), not an accuracy metric's sums."""
        return self.accuracy is not None and not self.accuracy.asked

    @property
    def checked(self) -> Request | None:
        """What the input checks and the ranking read: the accuracy names, the default metrics
        (None), or a cheap metric when only the ranking is needed (reported by none)."""
        return Request.of("hit_rate") if self.ranking_only else self.accuracy


@dataclass(frozen=True)
class Plan:
    """What an evaluation computes, read once from the names, the cut-offs and the policy.

    Attributes
    ----------
    request
        The names as typed, parsed (`Request`).
    policy
        The evaluation's policy, as given (each part's own is `Part.policy`).
    ks
        Every cut-off evaluated: `k` as given (else the default K where a name is read at
        the evaluation's K), and each cut-off a name carries.
    parts
        The names grouped by the policy each reads (`Request.parts`); the part under `policy`
        itself first (else the first name's). One part when every name reads one policy.
    """

    request: Request
    policy: Policy
    ks: tuple[int, ...]
    parts: tuple[Part, ...]

    @classmethod
    def of(
        cls,
        metrics: str | Iterable[str] | Request | Plan | None,
        k: int | Iterable[int] | None,
        policy: Policy | None,
        *,
        default_k: Iterable[int] = DEFAULT_K,
    ) -> Plan:
        """The plan of `metrics` (names in any accepted spelling, a parsed `Request`, or None
        for the default metrics) at `k` under `policy`; a `Plan` is returned as it is, so a
        path plans once. The tools' conventions are said here (`warn_tool_conventions`)."""
        if isinstance(metrics, Plan):
            return metrics
        return cls.build(Request.of(metrics), k, Policy() if policy is None else policy, default_k)

    @classmethod
    def build(
        cls,
        request: Request,
        k: int | Iterable[int] | None,
        policy: Policy,
        default_k: Iterable[int],
    ) -> Plan:
        """`Plan.of` for a parsed request (the one place a plan is made)."""
        parts = tuple(
            _labelled(Part.of(names, rules), policy) for names, rules in request.parts(policy)
        )
        for part in parts:
            # Said where the path was called (its caller: Plan.of, then the path's entry).
            warn_tool_conventions(part.request, part.policy, stacklevel=5)
            _refuse_expected_subtopics(part)
        ks = tuple(sorted({*normalize_ks(asked_ks(k, request, default_k)), *request.ks}))
        return cls(request, policy, ks, parts)

    def at(self, k: int | Iterable[int]) -> Plan:
        """The same plan at the cut-offs `k` (and the names' own): a curve reads its points
        from one plan at several K."""
        return replace(self, ks=tuple(sorted({*normalize_ks(k), *self.request.ks})))

    def with_policy(self, **changes: object) -> Plan:
        """The same plan with `changes` to every part's policy and the evaluation's (what the
        data asks of every measure, such as scoring groups without truth: no name is read
        again)."""
        parts = tuple(replace(part, policy=part.policy.replace(**changes)) for part in self.parts)
        return replace(self, policy=self.policy.replace(**changes), parts=parts)

    @property
    def one_policy(self) -> Part:
        """The only part, for a path that evaluates one policy; names asking for several are
        refused in words (`evaluate` evaluates each under its own)."""
        if len(self.parts) > 1:
            first, second = self.parts[-1], self.parts[0]
            raise ValueError(
                f"the metric names {first.request.asked[0].name!r} and "
                f"{second.request.asked[0].name!r} are evaluated under different policies "
                f"({differences(first.policy, second.policy)} and "
                f"{differences(second.policy, first.policy)}), which this path cannot do in "
                f"one call: rk.evaluate evaluates each measure under its own parameters, or "
                f"evaluate them in separate calls"
            )
        return self.parts[0]


def label_suffix(metric: str, policy: Policy, evaluation: Policy) -> str:
    """What `metric` read under `policy` adds to its name beside the `evaluation`'s policy:
    the fields it reads (`Metric.reads`) that differ, as a name's parameters write them (so
    that the label reads back as the same measure); empty when none differs.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.names.plan import label_suffix
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


def _labelled(part: Part, evaluation: Policy) -> Part:
    """`part` with the labels of its metrics that read its policy otherwise than the
    evaluation's."""
    metrics = {m.metric for m in part.request.measures}
    found = ((m, label_suffix(m, part.policy, evaluation)) for m in REGISTRY if m in metrics)
    return replace(part, labels=tuple((m, suffix) for m, suffix in found if suffix))


def _refuse_expected_subtopics(part: Part) -> None:
    """Subtopic metrics have no exact expectation over tie orderings: refused in words."""
    if part.subtopic_metrics and part.policy.ties == "expected":
        raise ValueError(
            f"the subtopic metrics {list(part.subtopic_metrics)} have no exact expectation over "
            f"tie orderings: Policy(ties='expected') cannot evaluate them; choose another tie "
            f"policy (ndeval ranks tied scores by item id ascending: ties='item_asc')"
        )
