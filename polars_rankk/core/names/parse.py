"""The metric names users type: canonical, ir_measures, trec_eval and ranx spellings.

Every path that takes metric names (`evaluate`, curves, the engines, the ``rankk`` command)
reads them once, into a `polars_rankk.core.names.request.Request`, through
`parse_metric_names`, so ``P@5``,
``nDCG(judged_only=True)@10``, ``ndcg_cut_10``, trec_eval's own ``P.5,10`` and
``ndcg_cut.10``, ``recip_rank`` and ``precision`` all name a metric of the registry. A name
that carries a cut-off adds that K to the evaluation; a parameter in a name sets a `Policy`
field for that name's measure alone, over the evaluation's policy, as the tools evaluate each
measure with its own (``RBP(p=0.9)`` sets ``rbp_persistence``, ``judged_only=True``
sets ``unjudged="condense"``, ``rel=2`` sets ``relevance_threshold``, ``dcg='exp-log2'`` sets
``gain="exponential"``, ``max_rel=3`` sets ``err_max_grade``, ``gains={0:1,1:4}`` sets
``gains``, ``beta=x`` sets ``f_beta`` to sqrt(x), ranx's ``-lN`` suffix sets the threshold and,
for nDCG, ``nonrelevant_gain="zero"``). ir_measures' ``RBP`` without ``rel=`` weighs ranks by
grade (``rbp_grades="graded"``), as ir_measures does; the canonical ``rbp`` is binary. A tool's
name without a cut-off means what that tool means by it: the whole ranked list for trec_eval's
``map`` and ``recip_rank`` and ir_measures' ``AP``, ``RR``, ``nDCG``, ``ERR``, ``RBP`` and
``Judged`` (their rows have no K); a canonical name (``ndcg``) and a name the tool always cuts
(``P``, ``recall``) are evaluated at the evaluation's K. `render_name` writes a (metric, K) back
where that tool computes the same number (`polars_rankk.core.names.write`).

Examples
--------
>>> from polars_rankk.core.names.parse import parse_metric_name, render_name
>>> parse_metric_name("nDCG(judged_only=True)@10")
MetricRequest(metric='ndcg', k=10, policy={'unjudged': 'condense'})
>>> parse_metric_name("map_cut_10"), parse_metric_name("recip_rank")
(MetricRequest(metric='average_precision', k=10, policy={}), MetricRequest(metric='mrr', \
k=None, policy={}, whole_list=True))
>>> from polars_rankk.core.policy import Policy
>>> in_order = Policy(ties="input_order")
>>> render_name("rbp", None, in_order), render_name("precision", 5, style="trec_eval")
('RBP(p=0.8,rel=1)', 'P_5')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from polars_rankk.core.metrics.registry import METRICS, REGISTRY
from polars_rankk.core.names.known import refuse_known_elsewhere
from polars_rankk.core.names.write import written_name
from polars_rankk.core.policy import Policy

NameStyle = Literal["canonical", "ir_measures", "trec_eval"]


def spellings() -> list[tuple[str, str, str, bool]]:
    """The spellings other tools use, from the registry: (spelling as that tool writes it,
    metric, tool, whether the tool gives it a cut-off). Matching ignores case."""
    return [
        (alias.spelling, name, alias.tool, alias.cut)
        for name, metric in REGISTRY.items()
        for alias in metric.aliases
    ]


def names_whole_list(base: str) -> bool:
    """Whether `base`, typed without a cut-off, names the whole ranked list: a tool's spelling
    that tool reads so (``map``, ``AP``, ``nDCG``; matched ignoring case), not a canonical name
    (``ndcg``, ``rbp``: the evaluation's K)."""
    if base in METRICS:
        return False
    return base.lower() in {
        alias.spelling.lower()
        for metric in REGISTRY.values()
        if metric.has_k
        for alias in metric.aliases
        if alias.whole_list
    }


def aliases() -> dict[str, str]:
    """Every spelling (lower case) of each metric: canonical names and the tools' spellings."""
    return {
        **{name: name for name in METRICS},
        **{spelling.lower(): metric for spelling, metric, _, _ in spellings()},
    }


_IR_MEASURES = re.compile(
    r"^(?P<base>[^\W\d_][\w-]*?)(?:\((?P<params>.*)\))?(?:@(?P<k>\d+))?"
    r"(?:-l(?P<level>\d+))?$"
)
# trec_eval's own syntax: P_5, P.5, P.5,10, P_5,10, ndcg_cut.10, set_F.0.5.
_TREC_EVAL = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)[_.](?P<k>\d+(?:,\d+)*)$")
_TREC_EVAL_PARAMETER = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)\.(?P<value>\d*\.?\d+)$")
#: trec_eval measures whose one parameter is not a cut-off: the Policy field it sets.
_TREC_EVAL_PARAMETERS = {"set_f": "beta"}
# trec_eval's measures parameterised by fractions, as -m takes them: iprec_at_recall,
# Rprec_mult.0.2,0.4.
_TREC_EVAL_LEVELS = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)(?:\.(?P<levels>[\d.,]+))?$")
_LEVELLED_SPELLING = re.compile(r"^(?P<base>.+)_(?P<level>\d\.\d\d)$")
#: ranx's RBP: ``rbp.95`` is p = 0.95 over the whole list, graded (trec_eval's own rbp takes
#: its p as ``rbp.p=0.95``, and never a cut-off).
_RANX_RBP = re.compile(r"^rbp\.(?P<digits>\d+)$", re.IGNORECASE)
#: ir_measures' interpolated precision at a recall level: ``IPrec@0.5``, ``IPrec(recall=0.5)``.
_IPREC = re.compile(
    r"^IPrec(?:@(?P<at>\d*\.?\d+)|\(\s*recall\s*=\s*(?P<recall>\d*\.?\d+)\s*\))$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class MetricRequest:
    """One measure asked: the canonical metric, the cut-off it carries (or None), the Policy
    fields its parameters set, whether it names the whole ranked list (a tool's name without
    a cut-off, such as trec_eval's ``map``), and the spelling and tool it came from."""

    metric: str
    k: int | None = None
    policy: dict[str, Any] = field(default_factory=dict)
    whole_list: bool = False
    #: The name as typed, and the tool whose spelling it is (None: the canonical name).
    spelling: str = field(default="", compare=False)
    tool: str | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        whole = ", whole_list=True" if self.whole_list else ""
        return f"MetricRequest(metric={self.metric!r}, k={self.k!r}, policy={self.policy!r}{whole})"


def valid_names() -> str:
    """The valid metric names, for error messages."""
    return ", ".join(METRICS) + " (or their ir_measures / trec_eval names: docs/metric_names.md)"


def _split_parameters(text: str) -> list[str]:
    """``p=0.9,gains={0:1,1:4}`` -> ``['p=0.9', 'gains={0:1,1:4}']`` (commas inside braces
    stay)."""
    parts, depth, current = [], 0, ""
    for character in text:
        depth += {"{": 1, "}": -1}.get(character, 0)
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    return [part for part in [*parts, current] if part.strip()]


def split_metric_list(text: str) -> list[str]:
    """Comma-separated metric names as a list, commas inside a name kept: within parentheses
    or braces (``RBP(p=0.9,rel=1)@3``, ``nDCG(gains={0:1,1:4})``) and in trec_eval's cut-off
    lists (``P.5,10``).

    Examples
    --------
    >>> from polars_rankk.core.names.parse import split_metric_list
    >>> split_metric_list("P.5,10, nDCG(gains={0:1,1:4}),RBP(p=0.9,rel=1)@3,recall")
    ['P.5,10', 'nDCG(gains={0:1,1:4})', 'RBP(p=0.9,rel=1)@3', 'recall']
    """
    parts, depth, current = [], 0, ""
    for character in text:
        depth += {"(": 1, "{": 1, ")": -1, "}": -1}.get(character, 0)
        if character == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    names: list[str] = []
    for part in [*parts, current.strip()]:
        if part.isdigit() and names and _TREC_EVAL.match(names[-1]):
            names[-1] = f"{names[-1]},{part}"  # P.5,10: one more cut-off of P
        elif re.fullmatch(r"\d*\.\d+", part) and names and _levelled(names[-1]) is not None:
            names[-1] = f"{names[-1]},{part}"  # Rprec_mult.0.2,0.4: one more level
        elif part:
            names.append(part)
    return names


def _tool_defaults(metric: str, base: str, changes: dict[str, Any]) -> dict[str, Any]:
    """A tool's spelling (not the canonical name) means the tool's default for a parameter it
    leaves out, where that differs from the policy's (`Parameter.tool_default`: ir_measures'
    NERR10 has p = 0.9)."""
    if base in METRICS:
        return changes
    defaults = {
        parameter.field: parameter.tool_default
        for parameter in REGISTRY[metric].takes
        if parameter.tool_default is not None
    }
    return {**defaults, **changes}


def _parameter(name: str, metric: str, raw: str) -> tuple[str, Any]:
    """The Policy field and value one parameter typed in `name` sets: by its key (``p=0.9``)
    or by its field's name (``rbp_persistence=0.9``), among those `metric` takes
    (`Metric.takes`); any other is refused, listing them, as ir_measures refuses it."""
    key, separator, value = (part.strip() for part in raw.partition("="))
    takes = REGISTRY[metric].takes
    by_key = next((p for p in takes if p.key.lower() == key.lower()), None)
    by_field = next((p for p in takes if p.field == key), None)
    if by_key is None and by_field is None:
        own = ", ".join(p.key for p in takes) or "none"
        raise ValueError(f"metric {name!r}: {metric} takes no {key}; its parameters: {own}")
    if not separator:
        raise ValueError(f"metric {name!r}: parameter {key!r} has no value ({key}=...)")
    try:
        if by_key is not None:
            return by_key.field, by_key.read(value)
        assert by_field is not None
        return by_field.field, by_field.read_field(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"metric {name!r}: {error}") from None


def _checked(name: str, changes: dict[str, Any]) -> dict[str, Any]:
    """The Policy fields a name sets, validated as Policy validates them, errors naming it."""
    try:
        Policy(**changes)
    except (TypeError, ValueError) as error:
        raise ValueError(f"metric {name!r}: {error}") from None
    return changes


def parse_metric_name(text: str) -> MetricRequest:
    """Read one metric name in any accepted spelling (docs/metric_names.md).

    Raises a ValueError naming the text and the valid names when it names no metric, a cut-off
    on a metric without one (``bpref``, ``r_precision``), an unknown parameter or a value the
    policy rejects. A trec_eval name with several cut-offs (``P.5,10``) is read by
    `parse_metric_names`.

    Examples
    --------
    >>> from polars_rankk.core.names.parse import parse_metric_name
    >>> parse_metric_name("P_5")
    MetricRequest(metric='precision', k=5, policy={})
    >>> parse_metric_name("RBP(p=0.9)@10").policy
    {'rbp_persistence': 0.9, 'rbp_grades': 'graded'}
    """
    requests = parse_metric_names(text)
    if len(requests) > 1:
        raise ValueError(f"metric {text!r} names several cut-offs; read it with parse_metric_names")
    return requests[0]


def parse_metric_names(text: str) -> list[MetricRequest]:
    """Read one metric name, which in trec_eval's syntax may carry several cut-offs
    (``P.5,10``: P_5 and P_10).

    Examples
    --------
    >>> from polars_rankk.core.names.parse import parse_metric_names
    >>> [(r.metric, r.k) for r in parse_metric_names("P.5,10")]
    [('precision', 5), ('precision', 10)]
    """
    if not isinstance(text, str):
        raise TypeError(f"a metric name must be a str; got {text!r}")
    tool = spelled_by(text)
    return [replace(request, spelling=text, tool=tool) for request in _read(text)]


def spelled_by(text: str) -> str | None:
    """The tool whose spelling `text` is (``trec_eval``, ``ir_measures``, ``ranx``), or None
    for a canonical name.

    Examples
    --------
    >>> from polars_rankk.core.names.parse import spelled_by
    >>> spelled_by("ndcg_cut_10"), spelled_by("nDCG@10"), spelled_by("ndcg@10-l2")
    ('trec_eval', 'ir_measures', 'ranx')
    >>> spelled_by("ndcg"), spelled_by("precision@5")
    (None, None)
    """
    name = text.strip()
    ir = _IR_MEASURES.match(name)
    if (ir is not None and ir["level"] is not None) or _RANX_RBP.match(name):
        return "ranx"
    if _IPREC.match(name):
        return "ir_measures"
    base = ir["base"] if ir is not None else name
    if base in METRICS or name in METRICS:
        return None
    tools = [tool for spelling, _, tool, _ in spellings() if spelling == base]
    tools = tools or [t for s, _, t, _ in spellings() if s.lower() == base.lower()]
    if tools and (ir is not None or _TREC_EVAL.match(name) is None):
        return tools[0]
    levelled = _TREC_EVAL_LEVELS.match(name)
    if (
        _TREC_EVAL.match(name)
        or _TREC_EVAL_PARAMETER.match(name)
        or (levelled is not None and levelled["base"].lower() in levels())
    ):
        return "trec_eval"
    return tools[0] if tools else None


def _read(text: str) -> list[MetricRequest]:
    """`parse_metric_names` without the spelling and tool."""
    name = text.strip()
    known = aliases()
    if name.lower() in known:
        whole = names_whole_list(name)
        named = known[name.lower()]
        defaults = _tool_defaults(named, name, _graded_rbp(name, None, {}))
        return [MetricRequest(named, None, defaults, whole)]
    levelled = _levelled(name) or _iprec(name)
    if levelled is not None:
        return levelled
    ranx_rbp = _RANX_RBP.match(name)
    if ranx_rbp is not None:
        persistence = float(f"0.{ranx_rbp['digits']}")
        ranx = {"rbp_persistence": persistence, "rbp_grades": "graded"}
        return [MetricRequest("rbp", None, _checked(text, ranx), whole_list=True)]
    parameter = _TREC_EVAL_PARAMETER.match(name)
    if parameter and parameter["base"].lower() in _TREC_EVAL_PARAMETERS:
        key = _TREC_EVAL_PARAMETERS[parameter["base"].lower()]
        metric = known[parameter["base"].lower()]
        field_name, value = _parameter(text, metric, f"{key}={parameter['value']}")
        return [MetricRequest(metric, None, _checked(text, {field_name: value}))]
    trec = _TREC_EVAL.match(name)
    if trec and trec["base"].lower() in known:
        metric = known[trec["base"].lower()]
        return [_request(text, metric, int(k), {}) for k in trec["k"].split(",")]
    ir = _IR_MEASURES.match(name)
    if ir is None or ir["base"].lower() not in known:
        refuse_known_elsewhere(text)
        raise ValueError(f"unknown metric name {text!r}; valid names are: {valid_names()}")
    changes: dict[str, Any] = {}
    metric = known[ir["base"].lower()]
    for raw in _split_parameters(ir["params"] or ""):
        policy_field, value = _parameter(text, metric, raw)
        changes[policy_field] = value
    changes = _tool_defaults(metric, ir["base"], changes)
    if ir["level"] is not None:
        # ranx's ndcg@k-lN: relevant at grade N; for (n)DCG, grades below N gain nothing.
        changes["relevance_threshold"] = int(ir["level"])
        if metric in ("ndcg", "dcg"):
            changes["nonrelevant_gain"] = "zero"
    changes = _graded_rbp(ir["base"], ir["params"], changes)
    if metric == "num_retrieved" and "relevance_threshold" in changes:
        metric = "num_relevant_retrieved"  # ir_measures' NumRet(rel=1) is trec_eval num_rel_ret
    cutoff = None if ir["k"] is None else int(ir["k"])
    request = _request(text, metric, cutoff, _checked(text, changes))
    if cutoff is None and names_whole_list(ir["base"]):
        request = MetricRequest(request.metric, None, request.policy, whole_list=True)
    return [request]


def levels() -> dict[str, dict[str, str]]:
    """trec_eval's measures parameterised by fractions, from the registry's trec_eval
    spellings (``iprec_at_recall_0.50``): base (lower case) -> {level as printed: metric}."""
    found: dict[str, dict[str, str]] = {}
    for spelling, metric, tool, _ in spellings():
        match = _LEVELLED_SPELLING.match(spelling)
        if tool == "trec_eval" and match:
            found.setdefault(match["base"].lower(), {})[match["level"]] = metric
    return found


def _levelled(name: str) -> list[MetricRequest] | None:
    """``iprec_at_recall`` (every default level) or ``Rprec_mult.0.2,0.4`` (those levels) as
    trec_eval's -m takes them; None when `name` is no such measure."""
    match = _TREC_EVAL_LEVELS.match(name)
    table = levels().get(match["base"].lower()) if match else None
    if match is None or table is None:
        return None
    if match["levels"] is None:
        return [MetricRequest(metric) for metric in table.values()]
    requests = []
    for raw in match["levels"].split(","):
        try:
            level = f"{float(raw):.2f}"
        except ValueError:
            raise ValueError(f"metric {name!r}: {raw!r} is not a number") from None
        if level not in table:
            raise ValueError(
                f"metric {name!r}: {match['base']} is computed here at trec_eval's default "
                f"levels only ({', '.join(table)}); {raw} is not one of them"
            )
        requests.append(MetricRequest(table[level]))
    return requests


def _iprec(name: str) -> list[MetricRequest] | None:
    """ir_measures' ``IPrec@0.5`` or ``IPrec(recall=0.5)``: trec_eval's iprec_at_recall at that
    level; None when `name` is no such measure."""
    match = _IPREC.match(name)
    if match is None:
        return None
    level = match["at"] or match["recall"]
    table = levels()["iprec_at_recall"]
    if f"{float(level):.2f}" not in table:
        raise ValueError(
            f"metric {name!r}: IPrec is computed here at trec_eval's recall levels only "
            f"({', '.join(table)}); {level} is not one of them"
        )
    return [MetricRequest(table[f"{float(level):.2f}"])]


def _graded_rbp(base: str, parameters: str | None, changes: dict[str, Any]) -> dict[str, Any]:
    """ir_measures' ``RBP`` (upper case, or with parameters) weighs ranks by grade unless
    ``rel=`` is given; the canonical ``rbp`` is binary."""
    if base.lower() != "rbp" or (base != "RBP" and parameters is None):
        return changes
    if "relevance_threshold" in changes:
        return {**changes, "rbp_grades": "binary"}
    return {**changes, "rbp_grades": "graded"}


def _request(text: str, metric: str, k: int | None, changes: dict[str, Any]) -> MetricRequest:
    if k is not None and not REGISTRY[metric].has_k:
        raise ValueError(f"metric {text!r}: {metric} has no cut-off K; name it without one")
    if k is not None and k < 1:
        raise ValueError(f"metric {text!r}: the cut-off must be >= 1")
    return MetricRequest(metric, k, changes)


def render_name(
    metric: str, k: int | None, policy: Policy | None = None, style: NameStyle = "ir_measures"
) -> str:
    """A (metric, K) in ir_measures' or trec_eval's spelling where that tool computes the same
    number under `policy` (`polars_rankk.core.names.write.written_name`); the canonical
    ``metric@K`` (or ``metric``) otherwise.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.names.parse import render_name
    >>> render_name("ndcg", 10, rk.Policy.trec_eval(unjudged="condense"))
    'nDCG(judged_only=True)@10'
    >>> render_name("ndcg", 10, style="trec_eval"), render_name("f1", 10)
    ('ndcg_cut_10', 'f1@10')
    """
    if style == "canonical":
        return REGISTRY[metric].column(k)
    return written_name(metric, k, policy, style)[0]
