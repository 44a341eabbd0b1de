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
from dataclasses import dataclass, field, replace
from typing import Final

from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.cells import Cell, Label, cells_of, labels_of
from polars_rankk.core.names.conventions import warn_ranx_whole_list, warn_tool_conventions
from polars_rankk.core.names.cutoffs import DEFAULT_K, asked_ks, normalize_ks
from polars_rankk.core.names.parse import MetricRequest
from polars_rankk.core.names.request import Asked, Request, differences
from polars_rankk.core.policy import Policy

__all__ = ["Part", "Plan"]

#: The beyond-accuracy metrics computed per group, and those over the catalogue, in registry
#: order.
_BEYOND_KINDS: Final = ("beyond_accuracy", "catalogue")


#: The cheap metric read where only the ranking is needed (reported by none), as a request
#: made once: the names typed are the only ones read.
_RANKING_ONLY: Final = Request(
    asked=(Asked("hit_rate", (MetricRequest("hit_rate", spelling="hit_rate"),)),), default=False
)


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
    cells
        The (metric, K) its results report (`polars_rankk.core.names.cells`): a name with its
        own cut-off at that cut-off alone; None: every metric at every K (the default
        metrics, or a K-curve).
    labels
        The names of its cells whose name reads the policy otherwise than the evaluation
        (`polars_rankk.core.names.cells.Label`); a cell without one keeps its metric's name.
    """

    request: Request
    policy: Policy
    accuracy: Request | None
    beyond_group: tuple[str, ...] = ()
    beyond_catalogue: tuple[str, ...] = ()
    subtopic: Request = field(default_factory=lambda: Request(default=False))
    cells: tuple[Cell, ...] | None = None
    labels: tuple[Label, ...] = ()

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
        return _RANKING_ONLY if self.ranking_only else self.accuracy


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
        Every cut-off evaluated: `asked_ks` and each cut-off a name carries.
    asked_ks
        The cut-offs of the names typed without one: `k` as given, else the default K where
        a name is read at the evaluation's K.
    every_k
        Whether every name is reported at every K (a K-curve), not a name with its own
        cut-off at that cut-off alone.
    parts
        The names grouped by the policy each reads (`Request.parts`); the part under `policy`
        itself first (else the first name's). One part when every name reads one policy.
    """

    request: Request
    policy: Policy
    ks: tuple[int, ...]
    parts: tuple[Part, ...]
    asked_ks: tuple[int, ...] = ()
    every_k: bool = False

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
        parts = tuple(Part.of(names, rules) for names, rules in request.parts(policy))
        for part in parts:
            # Said where the path was called (its caller: Plan.of, then the path's entry).
            warn_tool_conventions(part.request, part.policy, stacklevel=5)
            _refuse_expected_subtopics(part)
        ks = asked_ks(k, request, default_k)
        warn_ranx_whole_list(request, ks, stacklevel=5)
        plan = cls(request, policy, (), parts)
        return plan.at(ks)

    def at(self, k: int | Iterable[int], *, every_k: bool | None = None) -> Plan:
        """The same plan with its names typed without a cut-off read at `k` (and every name
        at every K, with `every_k`: a K-curve): no name is read again."""
        chosen = normalize_ks(k)
        every = self.every_k if every_k is None else every_k
        ks = tuple(sorted({*chosen, *self.request.ks}))
        parts = tuple(
            replace(
                part,
                cells=cells_of(part.request, ks if every else chosen, every_k=every),
                labels=labels_of(
                    part.request, part.policy, self.policy, ks if every else chosen, every_k=every
                ),
            )
            for part in self.parts
        )
        return replace(self, ks=ks, parts=parts, asked_ks=chosen, every_k=every)

    def with_policy(self, **changes: object) -> Plan:
        """The same plan with `changes` to every part's policy and the evaluation's (what the
        data asks of every measure, such as scoring groups without truth: no name is read
        again)."""
        parts = tuple(replace(part, policy=part.policy.replace(**changes)) for part in self.parts)
        planned = replace(self, policy=self.policy.replace(**changes), parts=parts)
        return planned.at(self.asked_ks)  # the labels, relative to the changed policy

    def alone(self, name: str) -> Plan | None:
        """The part that reads `name`, with that name alone, at this plan's cut-offs (read
        already: no name is read again, no plan made again); None where no name is `name`."""
        for part in self.parts:
            for asked in part.request.asked:
                if asked.name == name:
                    request = Request(asked=(asked,), default=False)
                    alone = replace(self, request=request, parts=(Part.of(request, part.policy),))
                    return alone.at(self.asked_ks)
        return None

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


def _refuse_expected_subtopics(part: Part) -> None:
    """Subtopic metrics have no exact expectation over tie orderings: refused in words."""
    if part.subtopic_metrics and part.policy.ties == "expected":
        raise ValueError(
            f"the subtopic metrics {list(part.subtopic_metrics)} have no exact expectation over "
            f"tie orderings: Policy(ties='expected') cannot evaluate them; choose another tie "
            f"policy (ndeval ranks tied scores by item id ascending: ties='item_asc')"
        )
