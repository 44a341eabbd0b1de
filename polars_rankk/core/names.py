"""The metric names users type: canonical, ir_measures and trec_eval spellings.

Every place that takes metric names (`evaluate`, summaries, distributions, curves, compare,
the report and the ``rankk`` command) reads them through `parse_metric_name`, so ``P@5``,
``nDCG(judged_only=True)@10``, ``ndcg_cut_10``, ``recip_rank`` and ``precision`` all name a
metric of the registry. A name that carries a cut-off adds that K to the evaluation; a
parameter in a name sets a `Policy` field of the whole evaluation (``RBP(p=0.9)`` sets
``rbp_persistence``, ``judged_only=True`` sets ``unjudged="condense"``, ``rel=2`` sets
``relevance_threshold``, ``dcg='exp-log2'`` sets ``gain="exponential"``, ``max_rel=3`` sets
``err_max_grade``). A name without a cut-off is evaluated at the evaluation's K, like the
canonical names: ``map`` and ``recip_rank`` are trec_eval's full-list measures only when K is
at least the longest list. `render_name` writes a (metric, K) back in either style.

Examples
--------
>>> from polars_rankk.core.names import parse_metric_name, render_name
>>> parse_metric_name("nDCG(judged_only=True)@10")
MetricRequest(metric='ndcg', k=10, policy={'unjudged': 'condense'})
>>> parse_metric_name("map_cut_10"), parse_metric_name("recip_rank").metric
(MetricRequest(metric='average_precision', k=10, policy={}), 'mrr')
>>> render_name("rbp", 10, style="ir_measures"), render_name("precision", 5, style="trec_eval")
('RBP(p=0.8)@10', 'P_5')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from polars_rankk.core.policy import Policy
from polars_rankk.core.registry import DEFAULT_METRICS, METRICS, REGISTRY

NameStyle = Literal["canonical", "ir_measures", "trec_eval"]

def spellings() -> list[tuple[str, str, str, bool]]:
    """The spellings other tools use, from the registry: (spelling as that tool writes it,
    metric, tool, whether the tool gives it a cut-off). Matching ignores case."""
    return [
        (alias.spelling, name, alias.tool, alias.cut)
        for name, metric in REGISTRY.items()
        for alias in metric.aliases
    ]


def aliases() -> dict[str, str]:
    """Every spelling (lower case) of each metric: canonical names and the tools' spellings."""
    return {
        **{name: name for name in METRICS},
        **{spelling.lower(): metric for spelling, metric, _, _ in spellings()},
    }


#: Parameters a name may carry: the Policy field each sets, and how its value reads.
PARAMETERS: dict[str, tuple[str, dict[str, Any] | type]] = {
    "p": ("rbp_persistence", float),
    "judged_only": ("unjudged", {"true": "condense", "false": "keep"}),
    "rel": ("relevance_threshold", float),
    "dcg": ("gain", {"log2": "linear", "exp-log2": "exponential"}),
    "max_rel": ("err_max_grade", float),
}

_IR_MEASURES = re.compile(
    r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>\d+))?$"
)
_TREC_EVAL = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)_(?P<k>\d+)$")


@dataclass(frozen=True)
class MetricRequest:
    """One parsed name: the canonical metric, the cut-off it carries (or None) and the Policy
    fields its parameters set."""

    metric: str
    k: int | None = None
    policy: dict[str, Any] = field(default_factory=dict)


def _valid_names() -> str:
    return ", ".join(METRICS) + " (or their ir_measures / trec_eval names: docs/metric_names.md)"


def _parameter(name: str, text: str, raw: str) -> tuple[str, Any]:
    key, separator, value = (part.strip() for part in raw.partition("="))
    if not separator or key.lower() not in PARAMETERS:
        known = ", ".join(PARAMETERS)
        raise ValueError(f"metric {name!r}: unknown parameter {raw.strip()!r}; known: {known}")
    policy_field, reader = PARAMETERS[key.lower()]
    value = value.strip("'\"")
    if isinstance(reader, dict):
        if value.lower() not in reader:
            raise ValueError(f"metric {name!r}: {key}={value!r} must be one of {', '.join(reader)}")
        return policy_field, reader[value.lower()]
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"metric {name!r}: {key}={value!r} must be a number") from None
    return policy_field, int(number) if number.is_integer() and key == "rel" else number


def parse_metric_name(text: str) -> MetricRequest:
    """Read one metric name in any accepted spelling (docs/metric_names.md).

    Raises a ValueError naming the text and the valid names when it names no metric, a cut-off
    on a metric without one (``bpref``, ``r_precision``), or an unknown parameter.

    Examples
    --------
    >>> from polars_rankk.core.names import parse_metric_name
    >>> parse_metric_name("P_5")
    MetricRequest(metric='precision', k=5, policy={})
    >>> parse_metric_name("RBP(p=0.9)@10").policy
    {'rbp_persistence': 0.9}
    """
    if not isinstance(text, str):
        raise TypeError(f"a metric name must be a str; got {text!r}")
    name = text.strip()
    known = aliases()
    if name.lower() in known:
        return MetricRequest(known[name.lower()])
    trec = _TREC_EVAL.match(name)
    if trec and trec["base"].lower() in known:
        return _request(text, known[trec["base"].lower()], int(trec["k"]), {})
    ir = _IR_MEASURES.match(name)
    if ir is None or ir["base"].lower() not in known:
        raise ValueError(f"unknown metric name {text!r}; valid names are: {_valid_names()}")
    changes: dict[str, Any] = {}
    for raw in (ir["params"] or "").split(","):
        if raw.strip():
            policy_field, value = _parameter(text, name, raw)
            changes[policy_field] = value
    cutoff = None if ir["k"] is None else int(ir["k"])
    return _request(text, known[ir["base"].lower()], cutoff, changes)


def _request(text: str, metric: str, k: int | None, changes: dict[str, Any]) -> MetricRequest:
    if k is not None and not REGISTRY[metric].has_k:
        raise ValueError(f"metric {text!r}: {metric} has no cut-off K; name it without one")
    if k is not None and k < 1:
        raise ValueError(f"metric {text!r}: the cut-off must be >= 1")
    return MetricRequest(metric, k, changes)


def resolve_metric_names(
    metrics: str | Iterable[str] | None, policy: Policy | None = None
) -> tuple[tuple[str, ...], tuple[int, ...], Policy]:
    """The canonical metrics (in canonical order), the cut-offs the names carry, and `policy`
    with the fields the names' parameters set.

    Two names that set one field differently, or a name that contradicts a field the policy
    already sets away from its default, raise a ValueError naming both.

    Examples
    --------
    >>> from polars_rankk.core.names import resolve_metric_names
    >>> metrics, ks, policy = resolve_metric_names(["P@5", "nDCG(judged_only=True)@10", "AP"])
    >>> metrics, ks, policy.unjudged
    (('precision', 'ndcg', 'average_precision'), (5, 10), 'condense')
    """
    policy = Policy() if policy is None else policy
    if metrics is None:
        return tuple(DEFAULT_METRICS), (), policy
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError(f"metrics is empty; choose among: {_valid_names()}")
    requests = [parse_metric_name(name) for name in names]
    default = Policy()
    changes: dict[str, tuple[Any, str]] = {}
    for name, request in zip(names, requests, strict=True):
        for policy_field, value in request.policy.items():
            if policy_field in changes and changes[policy_field][0] != value:
                earlier = changes[policy_field][1]
                raise ValueError(
                    f"metric names {earlier!r} and {name!r} set Policy.{policy_field} to "
                    f"{changes[policy_field][0]!r} and {value!r}; one evaluation has one policy"
                )
            current = getattr(policy, policy_field)
            if current != getattr(default, policy_field) and current != value:
                raise ValueError(
                    f"metric name {name!r} sets Policy.{policy_field}={value!r}, but the policy "
                    f"given has {policy_field}={current!r}"
                )
            changes[policy_field] = (value, name)
    if changes:
        policy = policy.replace(**{key: value for key, (value, _) in changes.items()})
    chosen = {request.metric for request in requests}
    ks = sorted({request.k for request in requests if request.k is not None})
    return tuple(name for name in METRICS if name in chosen), tuple(ks), policy


def render_name(
    metric: str, k: int | None, policy: Policy | None = None, style: NameStyle = "ir_measures"
) -> str:
    """A (metric, K) in ir_measures' or trec_eval's spelling; the canonical ``metric@K`` (or
    ``metric``) where that tool has no name for it.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.names import render_name
    >>> render_name("ndcg", 10, rk.Policy(unjudged="condense"))
    'nDCG(judged_only=True)@10'
    >>> render_name("ndcg", 10, style="trec_eval"), render_name("f1", 10)
    ('ndcg_cut_10', 'f1@10')
    """
    entry = REGISTRY[metric]
    policy = Policy() if policy is None else policy
    if style == "trec_eval":
        name = entry.trec_eval_name(k)
    elif style == "ir_measures":
        name = entry.ir_measures_name(k, policy)
        parameters = []
        if policy.unjudged == "condense":
            parameters.append("judged_only=True")
        if policy.relevance_threshold != 1:
            parameters.append(f"rel={policy.relevance_threshold:g}")
        if name is not None and parameters:
            base, _, cutoff = name.partition("@")
            if base.endswith(")"):
                base = f"{base[:-1]},{','.join(parameters)})"
            else:
                base = f"{base}({','.join(parameters)})"
            name = f"{base}@{cutoff}" if cutoff else base
    elif style == "canonical":
        name = None
    else:
        raise ValueError(f"names must be 'canonical', 'ir_measures' or 'trec_eval'; got {style!r}")
    return entry.column(k) if name is None else name


class AcceptedName(NamedTuple):
    """One accepted spelling (``K`` stands for any cut-off >= 1), the tool that writes it,
    the canonical metric it names and the K it is evaluated at."""

    spelling: str
    tool: str
    metric: str
    k: str


def accepted_names() -> list[AcceptedName]:
    """Every accepted spelling, in registry order: the rows of docs/metric_names.md.

    Examples
    --------
    >>> from polars_rankk.core.names import accepted_names
    >>> [row.spelling for row in accepted_names() if row.metric == "mrr"]
    ['mrr@K', 'mrr', 'RR@K', 'RR', 'recip_rank']
    """
    rows: list[AcceptedName] = []
    for metric in METRICS:
        entry = REGISTRY[metric]
        if entry.has_k:
            rows.append(AcceptedName(f"{metric}@K", "canonical", metric, ADDS_K))
        rows.append(AcceptedName(metric, "canonical", metric, _plain_k(entry.has_k)))
        for alias in entry.aliases:
            spelling, tool, cut = alias.spelling, alias.tool, alias.cut
            if cut:
                joint = "_" if tool == "trec_eval" else "@"
                base = "RBP(p=0.9)" if spelling == "RBP" else spelling
                rows.append(AcceptedName(f"{base}{joint}K", tool, metric, ADDS_K))
            rows.append(AcceptedName(spelling, tool, metric, _plain_k(entry.has_k)))
    return rows


#: How a spelling with a cut-off is evaluated.
ADDS_K = "K (added to the evaluation's K)"


def _plain_k(has_k: bool) -> str:
    return "the evaluation's K" if has_k else "no K"
