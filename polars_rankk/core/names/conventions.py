"""Tools' conventions on the names typed: a tool's spelling read under a policy where that tool
computes another number is said (`ToolNameWarning`), naming the policy that reproduces it.

Every tool's spelling is looked at: trec_eval's (``ndcg_cut_5``, ``P.5,10``), ir_measures'
(``RR@5``, ``MRR@5``, ``alpha_nDCG@10``) and ndeval's (``alpha-nDCG@10``, ``MAP-IA``), each
against the tool whose spelling it is (ndeval's against ir_measures' pyndeval provider, which
runs it). A canonical name means one thing whatever policy it is read under: trec_eval's own
``rbp`` and whole-list ``ndcg`` are also canonical names (binary RBP and nDCG at the
evaluation's K), so under trec_eval's policy (`Policy.trec_eval`) a warning names the spelling that
reads as trec_eval's measure (``trec_rbp``, ``nDCG``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.parse import MetricRequest
from polars_rankk.core.names.providers import tool_fields
from polars_rankk.core.names.request import Request
from polars_rankk.core.names.write import Tool, trec_eval_flag_note, trec_eval_flags, written_name
from polars_rankk.core.policy import Policy

#: Canonical names that trec_eval spells too, for another measure: (what trec_eval computes
#: under that name as this library's metric, a cut-off whose conventions are the same (None:
#: it has none), the spelling that reads as it here).
_TREC_EVAL_HOMONYMS: dict[str, tuple[str, int | None, str]] = {
    "rbp": ("trec_rbp", None, "trec_rbp"),
    "ndcg": ("ndcg", 10, "nDCG"),  # whole-list ndcg keeps ndcg_cut's conventions
}


#: Canonical names that are ranx's own spelling of its measure over the whole list (ranx has
#: no separate K), and the spelling that reads as ranx's measure here. (Its ``precision``,
#: ``recall``... are every tool's generic words: typed beside a K they mean it.)
_RANX_WHOLE_LIST: dict[str, str] = {"mrr": "RR", "ndcg": "nDCG"}


_POSSESSIVE = {"trec_eval": "trec_eval's", "ir_measures": "ir_measures'"}


class ToolNameWarning(UserWarning):
    """A tool's metric name was typed, and under the evaluation's policy that tool computes
    another number: the warning names the policy that reproduces it.

    Attributes
    ----------
    name
        The name as typed (None for a note about several names).
    tool_fields
        The Policy fields under which this library computes the tool's number (empty where
        the reason is a flag or a setting the tool lacks): what a check on the data evaluates.
    """

    def __init__(
        self, message: str, name: str | None = None, tool_fields: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.name = name
        self.tool_fields: dict[str, object] = dict(tool_fields or {})

    def checked_on_data(self) -> ToolNameWarning:
        """This warning in the words said once the data showed the tool's number differs."""
        return ToolNameWarning(checked_on_data(str(self)), self.name, self.tool_fields)


#: How a tool-name warning naming the tool's policy fields says the tool's number differs:
#: said as planned, the data not read (a lazy frame, the engines, out of core), it may; said by
#: `evaluate` of eager tables, only where the name evaluated under those fields differs, it does.
_MAY_DIFFER = "may compute another number: the data were not read to check;"
_DIFFERS = "computes another number:"


def checked_on_data(message: str) -> str:
    """A tool-name warning's words once the data showed the tool's number differs.

    Examples
    --------
    >>> from polars_rankk.core.names.conventions import checked_on_data
    >>> checked_on_data("... ir_measures may compute another number: the data were not read "
    ...                 "to check; why")
    '... ir_measures computes another number: why'
    """
    return message.replace(_MAY_DIFFER, _DIFFERS)


def _trec_eval_preset(policy: Policy) -> bool:
    """Whether `policy` is asked as trec_eval's (`Policy.trec_eval`: a negative grade
    unjudged, groups without a relevant item scored 0), whatever else it overrides."""
    return (policy.negative_grades, policy.empty_truth) == ("unjudged", "zero")


def _tool_of(measure: MetricRequest, policy: Policy) -> Tool | None:
    """The tool whose conventions a spelling follows: its own, ndeval's names run by
    ir_measures' pyndeval provider, and trec_eval's for a canonical name that is also its
    spelling of that measure (``bpref``, ``set_recall``) under trec_eval's policy; None for
    other canonical names and spellings of no tool here."""
    if measure.tool in ("ir_measures", "trec_eval"):
        return measure.tool  # type: ignore[return-value]
    if measure.tool == "alias" and REGISTRY[measure.metric].kind == "diversity":
        return "ir_measures"
    spelled = measure.spelling.strip()
    own = {a.spelling for a in REGISTRY[measure.metric].aliases if a.tool == "trec_eval"}
    if measure.tool is None and spelled in own and _trec_eval_preset(policy):
        return "trec_eval"
    return None


def _read_as(measure: MetricRequest, policy: Policy) -> tuple[int | None, Policy]:
    """The cut-off and policy a tool's conventions are looked at for `measure`."""
    k = measure.k
    if k is None and not measure.whole_list and REGISTRY[measure.metric].has_k:
        k = 10  # read at the evaluation's K: the conventions are the same at every K
    own = policy.replace(**measure.policy) if measure.policy else policy  # its own parameters
    return k, own


def _reason(measure: MetricRequest, tool: Tool, policy: Policy) -> str | None:
    """Why `tool` computes another number than `measure` under `policy`, or None."""
    return written_name(measure.metric, *_read_as(measure, policy), tool)[1]


def _flags(measure: MetricRequest, tool: Tool | None, policy: Policy) -> str | None:
    """The trec_eval flags (``-l 2``) that alone make `measure`'s number trec_eval's, or None."""
    if tool != "trec_eval":
        return None
    flagged = trec_eval_flags(measure.metric, *_read_as(measure, policy))
    return None if flagged is None else flagged[1]


def _homonym(measure: MetricRequest, policy: Policy) -> str | None:
    """For a canonical name trec_eval spells for another measure, typed without a cut-off
    under a policy reproducing trec_eval: what trec_eval computes and the name reading so."""
    if measure.tool is not None or measure.k is not None:
        return None
    meant = _TREC_EVAL_HOMONYMS.get(measure.spelling.strip())
    if meant is None:
        return None
    metric, k, spelling = meant
    if not _trec_eval_preset(policy):
        return None  # not asked as trec_eval (Policy.trec_eval()): the canonical name is meant
    if written_name(metric, k, policy, "trec_eval", read_back=False)[1] is not None:
        return None  # not trec_eval's conventions: the canonical reading is expected
    return (
        f"trec_eval's {measure.spelling.strip()} is another measure (its whole list, as "
        f"{spelling!r} reads here); {measure.spelling.strip()!r} is read as the canonical "
        f"{measure.metric} at the evaluation's K"
    )


def parameters_left_out(measure: MetricRequest, policy: Policy) -> str | None:
    """For a tool's parameterised spelling (ir_measures', ndeval's) that leaves out a
    parameter of its measure the policy sets otherwise than that tool's default: which value
    was used and what to type for the tool's number (``RBP(rel=1)`` under ``p = 0.5``)."""
    if measure.tool not in ("ir_measures", "alias"):
        return None
    differing = []
    for parameter in REGISTRY[measure.metric].parameters:
        if parameter.field in measure.policy:
            continue
        default = parameter.default if parameter.tool_default is None else parameter.tool_default
        used = getattr(policy, parameter.field)
        if used != default:
            differing.append((parameter.key, parameter.field, default, used))
    if not differing:
        return None
    said = "; ".join(
        f"its {key} defaults to {default!r} and the policy's {field} = {used!r} is used here"
        for key, field, default, used in differing
    )
    typed = ", ".join(f"{key}={default!r}" for key, _, default, _ in differing)
    return f"{said} (type {typed} in the name for the tool's number)"


def warn_tool_conventions(
    metrics: str | Iterable[str] | None, policy: Policy, *, stacklevel: int = 2
) -> None:
    """Warn for each tool's name typed whose number that tool computes otherwise under
    `policy` (a tie order, a denominator...): the reason `written_name` gives for not writing
    that name back, which names the policy that reproduces the tool.

    Examples
    --------
    >>> import warnings, polars_rankk as rk
    >>> from polars_rankk.core.names.conventions import warn_tool_conventions
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_tool_conventions(["RR@10", "nDCG@10", "ndcg_cut_5"], rk.Policy(ties="item_asc"))
    >>> [str(w.message)[:60] for w in caught]
    ["metric 'nDCG@10' is ir_measures' name, but under this policy", \
"metric 'ndcg_cut_5' is trec_eval's name, but under this poli"]
    """
    # A name is said once for how the tool computes it, and once for a parameter left out.
    said: set[str] = set()
    said_left_out: set[str] = set()
    # A convention trec_eval takes as a command-line flag (-l 2, -J): its names typed give
    # trec_eval's numbers run with that flag, said once for all of them.
    flagged: dict[str, list[str]] = {}
    for name, measures in Request.of(metrics).asked:
        for measure in measures:
            tool = _tool_of(measure, policy)
            reason = None if tool is None else _reason(measure, tool, policy)
            flags = None if reason is None else _flags(measure, tool, policy)
            if flags is not None:
                if name not in said:
                    said.add(name)
                    flagged.setdefault(flags, []).append(name)
            elif reason is not None and name not in said:
                said.add(name)
                whose = "ndeval's" if measure.tool == "alias" else _POSSESSIVE[str(tool)]
                said_as = f"metric {name!r} is {whose} name, but under this policy {tool}"
                fields = tool_fields(reason)  # where given, the data may leave the numbers equal
                differs = _MAY_DIFFER if fields else _DIFFERS
                message = f"{said_as} {differs} {reason}. The value here follows the policy"
                warnings.warn(ToolNameWarning(message, name, fields), stacklevel=stacklevel)
            left = parameters_left_out(measure, policy)
            if left is not None and name not in said_left_out:
                said_left_out.add(name)
                whose = "ndeval's" if measure.tool == "alias" else "ir_measures'"
                warnings.warn(
                    f"metric {name!r} is {whose} name: {left}",
                    ToolNameWarning,
                    stacklevel=stacklevel,
                )
            homonym = _homonym(measure, policy)
            if homonym is not None and name not in said:
                said.add(name)
                warnings.warn(f"metric {name!r}: {homonym}", ToolNameWarning, stacklevel=stacklevel)
    for flags, names in flagged.items():
        warnings.warn(trec_eval_flag_note(names, flags), ToolNameWarning, stacklevel=stacklevel)


def warn_ranx_whole_list(request: Request, ks: object, *, stacklevel: int = 2) -> None:
    """Warn for each canonical name ranx spells for its whole list (``mrr``, ``ndcg``) typed
    without a cut-off beside names that carry theirs (``P@3``): read at the evaluation's K
    (`ks`) here, where ranx — and a request spelling cut-offs in its names — reads the whole
    list. The warning names the spelling that reads as ranx's measure. (Typed among names
    without cut-offs, the canonical names mean the evaluation's K, as documented.)

    Examples
    --------
    >>> import warnings
    >>> from polars_rankk.core.names.conventions import warn_ranx_whole_list
    >>> from polars_rankk.core.names.request import Request
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_ranx_whole_list(Request.of(["mrr", "ndcg@3", "P"]), 3)
    ...     warn_ranx_whole_list(Request.of(["mrr", "P"]), 3)
    >>> [str(w.message)[:52] for w in caught]
    ["metric 'mrr' is read at k=3; ranx's mrr is the whole"]
    """
    if not any(measure.k is not None for measure in request.measures):
        return  # no name spells a cut-off: a name without one means the evaluation's K
    for asked in request.asked:
        spelled = asked.name.strip()
        whole = _RANX_WHOLE_LIST.get(spelled)
        if whole is None or any(measure.k is not None for measure in asked.measures):
            continue
        warnings.warn(
            f"metric {spelled!r} is read at k={ks}; ranx's {spelled} is the whole ranked list "
            f"(type {whole!r} for that number, or {spelled}@K for a cut-off of its own)",
            ToolNameWarning,
            stacklevel=stacklevel,
        )
