"""Names written back in another tool's spelling, only where that tool gives the same number.

`written_name` spells a (metric, K) under a `Policy` the way trec_eval or ir_measures would
name it, with the parameters that tool needs (``rel=2``, ``judged_only=True``,
``dcg='exp-log2'``, ``gains={0:1,1:4}``, ``beta=0.25``), and only when the tool, run with its
own defaults and those parameters, computes the same per-group number. Otherwise it gives the
canonical name and the reason: a convention the tool spells as a command-line flag
(trec_eval's ``-l`` and ``-J``), one it cannot express (non-integer thresholds, binary gain),
or a tie order it does not use. What each tool does by default: docs/conformance.md.

Examples
--------
>>> import polars_rankk as rk
>>> from polars_rankk.core.names.write import written_name
>>> written_name("ndcg", 10, rk.Policy(gain="exponential"), "ir_measures")
("nDCG(dcg='exp-log2')@10", None)
>>> written_name("ndcg", 10, rk.Policy(gain="exponential"), "trec_eval")[1]
"trec_eval's ndcg_cut has linear gain only (Policy.gain='exponential')"
>>> written_name("mrr", 10, rk.Policy(ties="item_asc"), "ir_measures")
('RR@10', None)
"""

from __future__ import annotations

import warnings
from typing import Literal

import polars as pl

from polars_rankk.core.metrics.families.cwl import CWL_METRICS
from polars_rankk.core.metrics.registry import METRICS, REGISTRY
from polars_rankk.core.names.providers import Reason as _Reason
from polars_rankk.core.names.providers import compat as _compat
from polars_rankk.core.names.providers import is_integer as _is_integer
from polars_rankk.core.names.providers import number as _number
from polars_rankk.core.names.providers import pyndeval as _pyndeval
from polars_rankk.core.names.providers import spelled as _spelled
from polars_rankk.core.names.providers import threshold as _threshold
from polars_rankk.core.policy import Policy

Tool = Literal["ir_measures", "trec_eval"]

#: Metrics whose number depends on which candidates are judged (not only on relevant ones).
_JUDGEMENT_AWARE = frozenset(
    {"bpref", "judged", "rbp_residual", "infap", "unjudged", "num_nonrelevant_judged_retrieved"}
    | {"gm_bpref", "trec_rbp_residual"}
)
#: Metrics a condensed list leaves unchanged (ir_measures gives them no judged_only).
_SAME_CONDENSED = frozenset({"bpref", "set_recall", "num_relevant", "num_relevant_retrieved"})
#: Metrics whose ir_measures name takes judged_only (its pytrec_eval provider's measures).
_TAKES_JUDGED_ONLY = frozenset(
    {"precision", "recall", "hit_rate", "ndcg", "average_precision", "mrr", "r_precision"}
    | {"set_precision", "set_f"}
)
#: Metrics whose number does not depend on the relevance threshold.
_THRESHOLD_FREE = frozenset({"ndcg", "dcg", "err", "judged", "rbp_residual", "num_retrieved"})
_THRESHOLD_FREE |= {"normalized_g", "ndcg_over_relevant", "trec_rbp"}
#: The C/W/L measures, which ir_measures computes with its cwl_eval provider.
_CWL = frozenset(metric.name for metric in CWL_METRICS)
#: trec_eval's default persistence of its rbp (m_rbp.c).
_TREC_RBP_P = 0.9
#: trec_eval's G, ndcg_rel and Rndcg: their gains are nDCG's (`Policy.gain`, `Policy.gains`).
_GAIN_LEVEL_METRICS = frozenset({"normalized_g", "ndcg_over_relevant", "ndcg_at_gain_levels"})


#: Metrics whose summary line the tools write as the sum over queries, not the mean
#: (trec_eval's num_ret, num_rel, num_rel_ret; ir_measures' NumRet and NumRel aggregate by sum).
SUMMED_BY_TOOLS = frozenset(
    {"num_retrieved", "num_relevant", "num_relevant_retrieved", "num_nonrelevant_judged_retrieved"}
)


def _common(
    metric: str,
    policy: Policy,
    tool: str,
    ties: str = "trec_eval",
    order: str = "breaks ties by item id descending",
) -> str | None:
    """A convention every trec_eval-computed number needs (the tie order `ties` aside, for a
    provider that orders otherwise), or why the policy breaks it."""
    if policy.ties != ties:
        return _Reason(f"{tool} {order}", ties=ties)
    if policy.pool != "all":
        return _Reason(f"{tool} counts every judged relevant item in R", pool="all")
    if policy.short_lists == "observed" and metric in ("precision", "f1", "judged"):
        return _Reason(f"{tool} divides precision by K", short_lists="fixed")
    averaged = metric in ("average_precision", "gm_average_precision")
    if averaged and policy.ap_denominator != "relevant":
        return _Reason(f"{tool} divides AP by R", ap_denominator="relevant")
    judged_matters = metric in _JUDGEMENT_AWARE or policy.unjudged == "condense"
    if judged_matters and policy.negative_grades != "unjudged":
        return _Reason(
            f"{tool} treats a negative grade as unjudged, which this metric sees",
            negative_grades="unjudged",
        )
    return None


def _gain(metric: str, policy: Policy, tool: str) -> str | None:
    """Why the nDCG gain of `policy` is not the tool's, for ndcg/dcg (and trec_eval's G,
    ndcg_rel and Rndcg)."""
    if metric not in ("ndcg", "dcg", *_GAIN_LEVEL_METRICS):
        return None
    if policy.gain == "binary":
        return f"{tool} has no binary gain (Policy.gain='binary')"
    if policy.nonrelevant_gain != "grade":
        return f"{tool} gives grades below the threshold their gain (Policy.nonrelevant_gain)"
    return None


def whole_list_name(metric: str, tool: str) -> str | None:
    """`tool`'s spelling of `metric` over the whole list (trec_eval's ``map``), or None."""
    return next(
        (a.spelling for a in REGISTRY[metric].aliases if a.tool == tool and a.whole_list), None
    )


#: How ir_measures' cwl provider (RBP) orders a query's documents.
_CWL_ORDER = "scores the run in the order given, never sorting"

#: ir_measures' whole-list measures it computes: pytrec_eval's map, recip_rank and ndcg, the
#: judged provider's Judged and cwl's binary RBP (ERR needs gdeval's cut-off, graded RBP has
#: no provider).
_IR_MEASURES_WHOLE = frozenset({"average_precision", "mrr", "ndcg", "judged", "rbp"})


def _trec_eval(metric: str, k: int | None, policy: Policy) -> tuple[str | None, str | None]:
    entry = REGISTRY[metric]
    if metric == "rbp":
        return None, (
            "trec_eval's rbp is another measure: graded over the whole list, trec_rbp here "
            "(and the name rbp reads here as this binary rbp)"
        )
    if entry.has_k and k is None:  # the whole list
        name = whole_list_name(metric, "trec_eval")
        if name is None and metric == "ndcg":
            return None, (
                "trec_eval's whole-list ndcg is spelled as the canonical ndcg, which reads here "
                "at the evaluation's K (ir_measures' nDCG reads as the whole list)"
            )
        if name is None:
            return None, f"trec_eval has no whole-list {metric} under a measure name of its own"
    elif metric == "mrr":
        return None, "trec_eval's recip_rank reads the whole list; it has no cut-off"
    else:
        name = entry.trec_eval_name(k)
    if name is None:
        return None, f"trec_eval has no {metric}"
    reason = _common(metric, policy, "trec_eval") or _gain(metric, policy, "trec_eval")
    if reason:
        return None, reason
    if metric in ("ndcg", "dcg") and policy.gain != "linear":
        return None, f"trec_eval's ndcg_cut has linear gain only (Policy.gain={policy.gain!r})"
    if metric in ("ndcg", "dcg") and policy.gains is not None:
        return None, "trec_eval reads a gain map from its qrels, not from a measure name"
    if metric in _GAIN_LEVEL_METRICS and policy.gain != "linear":
        return None, f"trec_eval's {name} has linear gain only (Policy.gain={policy.gain!r})"
    if metric in _GAIN_LEVEL_METRICS and policy.gains is not None:
        return None, (
            f"trec_eval's {name} takes a gain map as its parameters ({name}.1=3.5,2=9), "
            "which are not written here (Policy.gains)"
        )
    if metric == "trec_rbp" and policy.rbp_persistence != _TREC_RBP_P:
        return None, (
            f"trec_eval's rbp has p = 0.9 unless given as its parameter (rbp.p=...), which is "
            f"not written here (Policy.rbp_persistence={_number(policy.rbp_persistence)})"
        )
    if metric == "trec_rbp" and policy.gains is not None:
        return None, "trec_eval's rbp rescales mapped gains; trec_rbp rescales grades"
    if policy.relevance_threshold != 1 and metric not in _THRESHOLD_FREE:
        threshold = _number(policy.relevance_threshold)
        return None, f"trec_eval sets the relevance threshold with the flag -l {threshold}"
    if policy.unjudged == "condense":
        return None, "trec_eval condenses lists with the flag -J, not in a measure name"
    if metric == "set_f" and policy.f_beta != 1:
        # trec_eval's set_F.x weighs with x = beta^2.
        return f"set_F.{_number(policy.f_beta**2)}", None
    return name, None


def _cwl_eval(metric: str, k: int | None, policy: Policy) -> tuple[str | None, str | None]:
    """ir_measures' cwl_eval provider: runs sorted by score, equal scores in the run's order."""
    entry = REGISTRY[metric]
    base = str(entry.ir_measures).split("@")[0]
    cut = entry.ir_measures is not None and "@" in entry.ir_measures
    if cut and k is None:
        return None, f"ir_measures' {base} takes a cut-off"
    if not cut and k is not None:
        return None, f"ir_measures' {base} reads the whole list (cwl_eval's 1000 ranks)"
    if policy.ties != "input_order":
        return None, "ir_measures' cwl_eval keeps the run's order in ties (ties='input_order')"
    if policy.unjudged == "condense" or policy.short_lists == "skip":
        return None, f"ir_measures' {base} has no judged_only and scores every query"
    parameters = []
    for parameter in entry.parameters:
        key, value = parameter.key, float(getattr(policy, parameter.field))
        if key == "max_rel" and not _is_integer(value):
            return None, f"ir_measures' max_rel is an integer; cwl_max_grade={_number(value)}"
        tool_default = parameter.tool_default
        default = float(parameter.default) if tool_default is None else tool_default
        if key == "max_rel" or value != default:
            parameters.append(f"{key}={_number(value)}")
    return _spelled(base, parameters, k), None


def _ir_measures(metric: str, k: int | None, policy: Policy) -> tuple[str | None, str | None]:
    entry = REGISTRY[metric]
    if entry.ir_measures is None:
        return None, f"ir_measures has no {metric}"
    if metric in _CWL:
        return _cwl_eval(metric, k, policy)
    base = entry.ir_measures.split("(")[0].split("@")[0]
    parameters: list[str] = []
    whole = entry.has_k and k is None
    if whole and metric not in _IR_MEASURES_WHOLE:
        return None, f"ir_measures computes {base} only at a cut-off"
    # Which ir_measures provider computes the name, and the conventions it keeps.
    if entry.kind == "diversity":
        return _pyndeval(metric, base, k, policy)
    if metric == "compat":
        return _compat(base, policy)
    if metric == "judged":
        if policy.ties != "item_asc" or (policy.short_lists != "observed" and not whole):
            why = "ir_measures' judged provider sorts ties by docid ascending and divides by"
            return None, _Reason(f"{why} min(K, n)", ties="item_asc", short_lists="observed")
        if policy.negative_grades != "nonrelevant" or policy.unjudged != "keep":
            return None, "ir_measures' Judged counts every qrels entry, negative grades included"
        return _spelled(base, [], k), None
    if metric == "mrr" and not whole:
        if policy.ties != "item_asc":
            why = "ir_measures computes RR@k with its msmarco provider, which breaks ties by"
            return None, _Reason(f"{why} docid ascending", ties="item_asc")
        if policy.unjudged == "condense":
            return None, "ir_measures' RR@k (msmarco provider) has no judged_only"
        reason = _threshold(policy, parameters)
        return (None, reason) if reason else (_spelled(base, parameters, k), None)
    if metric == "err":
        if policy.err_max_grade != 4:
            return None, "ir_measures' ERR@k (gdeval) stops with (2^g - 1) / 16: err_max_grade=4"
        if policy.ties != "trec_eval" or policy.unjudged == "condense":
            return None, "ir_measures' ERR@k (gdeval) keeps trec_eval's order and unjudged rows"
        return _spelled(base, parameters, k), None
    if metric == "rbp":
        # ir_measures' cwl provider scores each query's documents in the order the run gives
        # them (it never sorts), as cwl-eval does: checked against ir_measures itself.
        reason = _common(metric, policy, "ir_measures (cwl)", "input_order", _CWL_ORDER)
    else:
        reason = _common(metric, policy, "ir_measures (pytrec_eval)")
    if reason:
        return None, reason
    if metric == "num_retrieved":
        if policy.unjudged == "condense":
            return None, "ir_measures' NumRet has no judged_only"
        return base, None  # ir_measures' NumRet with rel= is num_rel_ret
    if metric == "num_relevant_retrieved":
        reason = _threshold(policy, parameters, always=True)
        return (None, reason) if reason else (_spelled(base, parameters, None), None)
    if metric == "num_relevant" and policy.relevance_threshold != 1:
        return None, "ir_measures' NumRel (pytrec_eval) counts grades >= 1 only"
    if metric == "set_f" and policy.f_beta != 1:
        parameters.append(f"beta={_number(policy.f_beta**2)}")
    if metric == "rbp":
        # Its only provider, cwl, computes binary RBP (rel=) over the whole list.
        if not whole:
            return None, "ir_measures' RBP (cwl provider) has no cut-off: it reads the whole list"
        if policy.rbp_grades != "binary":
            return None, "ir_measures has no provider for graded RBP (RBP without rel=)"
        parameters.append(f"p={_number(policy.rbp_persistence)}")
        reason = _threshold(policy, parameters, always=True)
        if reason:
            return None, reason
    elif metric == "ndcg":
        reason = _gain(metric, policy, "ir_measures")
        if reason:
            return None, reason
        if policy.gain == "exponential":
            if policy.gains is not None or policy.unjudged == "condense":
                return None, "ir_measures' exp-log2 nDCG (gdeval) takes no gains or judged_only"
            parameters.append("dcg='exp-log2'")
        if policy.gains is not None:
            mapped = policy.gain_map()
            if not all(_is_integer(g) and _is_integer(v) for g, v in mapped.items()):
                return None, "ir_measures maps integer grades to integer gains only"
            listed = ",".join(f"{int(g)}:{int(v)}" for g, v in mapped.items())
            parameters.append(f"gains={{{listed}}}")
    else:
        reason = _threshold(policy, parameters)
        if reason:
            return None, reason
    if policy.unjudged == "condense" and metric not in _SAME_CONDENSED:
        if metric not in _TAKES_JUDGED_ONLY:
            return None, _Reason(f"ir_measures' {base} takes no judged_only", unjudged="keep")
        parameters.append("judged_only=True")
    return _spelled(base, parameters, k if entry.has_k else None), None


def written_name(
    metric: str,
    k: int | None,
    policy: Policy | None = None,
    tool: Tool = "ir_measures",
    *,
    read_back: bool = True,
) -> tuple[str, str | None]:
    """(name, None) when `tool` computes the same per-group number under that name, else
    (the canonical ``metric@K``, why the tool's name would mean something else). A name is
    written only when it reads back here as the same measure (`read_back`; False: whether the
    tool computes that number, whatever its name reads as here).

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.names.write import written_name
    >>> written_name("precision", 5, rk.Policy(relevance_threshold=2), "ir_measures")
    ('P(rel=2)@5', None)
    >>> written_name("precision", 5, rk.Policy(relevance_threshold=2), "trec_eval")
    ('precision@5', 'trec_eval sets the relevance threshold with the flag -l 2')
    """
    policy = Policy() if policy is None else policy
    entry = REGISTRY[metric]
    if policy.duplicates == "keep" and tool in ("trec_eval", "ir_measures"):
        # Every tool reads a run as one entry per (query, doc): a kept copy is a second
        # relevant row here (nDCG, Q or Compat above 1), never there.
        return entry.column(k), (
            f"{tool} reads each item of a list once; Policy(duplicates='keep') counts every copy"
        )
    if tool == "trec_eval":
        name, reason = _trec_eval(metric, k, policy)
    elif tool == "ir_measures":
        name, reason = _ir_measures(metric, k, policy)
    else:
        raise ValueError(f"names must be 'canonical', 'ir_measures' or 'trec_eval'; got {tool!r}")
    if name is None:
        return entry.column(k), reason
    reason = _reads_back(name, metric, k, tool) if read_back else None
    if reason is not None:
        return entry.column(k), reason
    return name, None


def trec_eval_flags(metric: str, k: int | None, policy: Policy) -> tuple[str, str] | None:
    """trec_eval's name of (`metric`, `k`) and the command-line flags (``-l 2``, ``-J``) with
    which trec_eval computes its number under `policy`, where only those flags keep it from
    being trec_eval's default number; None otherwise (the name is trec_eval's without a flag,
    or no flag makes it so).

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.names.write import trec_eval_flags
    >>> policy = rk.Policy.trec_eval(relevance_threshold=2, unjudged="condense")
    >>> trec_eval_flags("precision", 5, policy)
    ('P_5', '-l 2 -J')
    >>> trec_eval_flags("precision", 5, rk.Policy.trec_eval()) is None
    True
    """
    if written_name(metric, k, policy, "trec_eval")[1] is None:
        return None
    flags = []
    if policy.relevance_threshold != 1:  # one run of trec_eval with the policy's flags
        if not _is_integer(policy.relevance_threshold):
            return None  # trec_eval's -l reads an integer level
        flags.append(f"-l {_number(policy.relevance_threshold)}")
    if policy.unjudged == "condense":
        flags.append("-J")
    unflagged = policy.replace(relevance_threshold=1, unjudged="keep")
    name, reason = written_name(metric, k, unflagged, "trec_eval")
    return None if not flags or reason is not None else (name, " ".join(flags))


def trec_eval_flag_note(names: list[str], flags: str) -> str:
    """What is said of trec_eval's `names` whose numbers here are trec_eval's run with
    `flags` (``-l 2``): one note for all of them, typed or written back.

    Examples
    --------
    >>> from polars_rankk.core.names.write import trec_eval_flag_note
    >>> trec_eval_flag_note(["P_5", "map"], "-l 2")
    "metrics 'P_5', 'map': the values here are trec_eval's run with the flag -l 2"
    """
    listed = ", ".join(repr(name) for name in names)
    which, metrics = ("flags" if " -" in flags else "flag"), "metrics" if names[1:] else "metric"
    return f"{metrics} {listed}: the values here are trec_eval's run with the {which} {flags}"


def _reads_back(name: str, metric: str, k: int | None, tool: str) -> str | None:
    """None unless `name` is the canonical name of another metric, which it would read back
    as here (trec_eval's ``rbp`` is trec_rbp here; ``rbp`` the canonical binary RBP)."""
    other = name.strip().lower()
    if other in METRICS and other != metric:
        return f"{tool} names it {name!r}, which reads here as another measure ({other})"
    return None


def _mean_reason(row: dict[str, object], tool: str) -> str | None:
    """Why a summary row's mean is not `tool`'s although its per-group numbers are: the groups
    averaged. The tools average every query without a relevant item in, as 0."""
    dropped = row.get("dropped_empty_truth") or 0
    if isinstance(dropped, int) and dropped > 0:
        return (
            f"the mean leaves out {dropped} group(s) without a relevant item, which {tool} "
            f"averages in as 0 (Policy.empty_truth='zero')"
        )
    return None


def written_summary(
    result: pl.DataFrame,
    names: str,
    policy: Policy,
    per_group: pl.LazyFrame | None = None,
) -> pl.DataFrame:
    """A summary's ``metric`` column in another tool's spelling (with K folded in), a warning
    naming the rows that keep their canonical name and why.

    A row keeps its canonical name where its mean is not the tool's summary line: a weighted
    or micro average (`per_group` None: only a macro summary gives its rows), or a mean that
    leaves out groups without a relevant item (the tools average them in as 0). The tools'
    summary line of num_ret, num_rel and num_rel_ret is the sum over queries: those rows then
    hold the sum of `per_group`.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.core.names.write import written_summary
    >>> summary = pl.DataFrame({"metric": ["precision", "num_retrieved"], "k": [5, None],
    ...                         "value": [0.5, 4.0]})
    >>> per_group = pl.LazyFrame({"metric": ["num_retrieved"] * 2, "k": [None, None],
    ...                           "value": [3.0, 5.0]}, schema_overrides={"k": pl.Int64})
    >>> written_summary(summary, "trec_eval", rk.Policy.trec_eval(), per_group).rows()
    [('P_5', 5, 0.5), ('num_ret', None, 8.0)]
    """
    if names == "canonical":
        return result
    if names not in ("ir_measures", "trec_eval"):
        raise ValueError(f"names must be 'canonical', 'ir_measures' or 'trec_eval'; got {names!r}")
    tool: Tool = "trec_eval" if names == "trec_eval" else "ir_measures"
    counted = [c for c in ("dropped_empty_truth",) if c in result.columns]
    pairs = result.select("metric", "k", *counted).to_dicts()
    rendered, reasons, summed = [], {}, []
    flags: dict[str, list[str]] = {}  # trec_eval's names its flags reproduce, by those flags
    for row in pairs:
        if row["metric"] not in REGISTRY:
            name = row["metric"] if row["k"] is None else f"{row['metric']}@{row['k']}"
        else:
            name, reason = written_name(row["metric"], row["k"], policy, tool)
            trec_eval = reason is not None and tool == "trec_eval"
            flagged = trec_eval_flags(row["metric"], row["k"], policy) if trec_eval else None
            if flagged is not None:
                name, reason = flagged[0], None  # trec_eval's number run with its flags
            mean_reason = None if reason is not None else _mean_reason(row, names)
            if mean_reason is None and reason is None and per_group is None:
                # A weighted or micro average: no tool's summary line.
                mean_reason = f"{names} averages each query alike; this summary is not the mean"
                if row["metric"] in SUMMED_BY_TOOLS:
                    mean_reason = f"{names} sums it over queries; this summary is not their mean"
            if mean_reason is not None:
                name, reason = REGISTRY[row["metric"]].column(row["k"]), mean_reason
            if reason is None and row["metric"] in SUMMED_BY_TOOLS:
                summed.append(row["metric"])
            if reason is not None:
                reasons[name] = reason
            elif flagged is not None:
                flags.setdefault(flagged[1], []).append(name)
        rendered.append(name)
    if reasons:
        listed = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
        warnings.warn(
            f"names={names!r}: kept the canonical name where {names} would compute another "
            f"number under this policy ({listed})",
            stacklevel=3,
        )
    for flag, written in flags.items():
        warnings.warn(trec_eval_flag_note(written, flag), stacklevel=3)
    if summed and per_group is not None:
        result = _summed(result, summed, per_group)
    return result.with_columns(pl.Series("metric", rendered, dtype=pl.String))


def _summed(result: pl.DataFrame, metrics: list[str], per_group: pl.LazyFrame) -> pl.DataFrame:
    """`result` with the value of `metrics` (num_ret, ...) the sum over groups, as the tools'
    summary line (NaN values skipped, as the mean skips them)."""
    sums = (
        per_group.filter(pl.col("metric").is_in(metrics) & ~pl.col("value").is_nan())
        .group_by("metric", "k")
        .agg(pl.col("value").sum().alias("_rk_sum"))
        .collect()
    )
    joined = result.join(
        sums, on=["metric", "k"], how="left", nulls_equal=True, maintain_order="left"
    )
    value = pl.when(pl.col("metric").is_in(metrics)).then(pl.col("_rk_sum").fill_null(0.0))
    return joined.with_columns(value.otherwise(pl.col("value")).alias("value")).drop("_rk_sum")
