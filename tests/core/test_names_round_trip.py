"""Every tool's spelling read both ways, against the tool it comes from.

For every (tool, spelling) the registry knows (`REFERENCES`, asserted complete: a spelling
added without a reference fails here), typed on one small generated dataset full of ties,
graded and negative grades, unjudged items, a short list and a query without a relevant item:

- under the first policy where this library says the tool computes the same number (the
  writer, `written_name`, gives its name), the number per query equals the tool's own
  (ir_measures, which picks its provider: pytrec_eval, msmarco, judged, gdeval, cwl_eval,
  compat; pytrec_eval for trec_eval's names), and the name written back reads back as the
  same measure;
- the summary row written back under the tool's name (`summary(names=...)`) holds the tool's
  own mean (the groups averaged included), and a summary whose mean the tool does not compute
  keeps its canonical name;
- under a policy where the tool computes another number, typing its name warns
  (`ToolNameWarning`) and names the policy field that reproduces it.

The spellings whose numbers need data this dataset lacks are held elsewhere and said so in
`REFERENCES`: ndeval's subtopic measures (pyndeval, `tests/core/test_diversity.py`) and the
trec_eval 10 measures its 9.x in pytrec_eval lacks or rounds otherwise (the bundled trec_eval
10 files, `tests/core/test_trec_eval_conformance.py`).
"""

from __future__ import annotations

import math
import random
import warnings

import ir_measures
import polars as pl
import pytest
import pytrec_eval

import polars_rankk as rk
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.conventions import (
    ToolNameWarning,
    parameters_left_out,
    warn_tool_conventions,
)
from polars_rankk.core.names.parse import MetricRequest, parse_metric_names, spellings
from polars_rankk.core.names.request import Request
from polars_rankk.core.names.write import SUMMED_BY_TOOLS, written_name

IR_MEASURES = "ir_measures (its own provider), per query and mean"
PYTREC_EVAL = "pytrec_eval (trec_eval 9.x), per query and mean"
PYNDEVAL = "pyndeval through ir_measures: tests/core/test_diversity.py (subtopic qrels)"
TREC_EVAL_FILES = "trec_eval 10's bundled files: tests/core/test_trec_eval_conformance.py"
Q_TRANSCRIPTION = "Sakai's Q-measure transcribed: tests/core/test_compat_q.py"
GDEVAL = (
    "gdeval's perl fails here: ERR against the paper's algorithm (tests/core/test_ir_measures.py)"
)
RBP_GRADED = "ir_measures' RBP(rel=1) by its cwl provider; graded RBP (no provider) as ranx's"


def same_as(spelling: str) -> str:
    """An alternative spelling: reads as the same measure as `spelling`, which is checked."""
    return f"same as {spelling}"


#: Each (tool, spelling) of the registry and the reference its number is held equal to.
REFERENCES: dict[tuple[str, str], str] = {
    ("ir_measures", "P"): IR_MEASURES,
    ("trec_eval", "P"): PYTREC_EVAL,
    ("ir_measures", "R"): IR_MEASURES,
    ("trec_eval", "recall"): PYTREC_EVAL,
    ("ir_measures", "Success"): IR_MEASURES,
    ("trec_eval", "success"): PYTREC_EVAL,
    ("alias", "hitrate"): same_as("Success"),
    ("alias", "HR"): same_as("Success"),
    ("alias", "Hit"): same_as("Success"),
    ("ir_measures", "nDCG"): IR_MEASURES,
    ("trec_eval", "ndcg_cut"): PYTREC_EVAL,
    ("ir_measures", "AP"): IR_MEASURES,
    ("trec_eval", "map_cut"): PYTREC_EVAL,
    ("trec_eval", "map"): PYTREC_EVAL,
    ("ir_measures", "RR"): IR_MEASURES,
    ("ir_measures", "MRR"): IR_MEASURES,
    ("trec_eval", "recip_rank"): PYTREC_EVAL,
    ("ir_measures", "Rprec"): IR_MEASURES,
    ("trec_eval", "Rprec"): PYTREC_EVAL,
    ("ir_measures", "ERR"): GDEVAL,
    ("ir_measures", "RBP"): RBP_GRADED,
    ("ir_measures", "Judged"): IR_MEASURES,
    ("ir_measures", "Bpref"): IR_MEASURES,
    ("trec_eval", "bpref"): PYTREC_EVAL,
    ("ir_measures", "SetP"): IR_MEASURES,
    ("trec_eval", "set_P"): PYTREC_EVAL,
    ("ir_measures", "SetR"): IR_MEASURES,
    ("trec_eval", "set_recall"): PYTREC_EVAL,
    ("ir_measures", "SetF"): IR_MEASURES,
    ("trec_eval", "set_F"): PYTREC_EVAL,
    ("ir_measures", "NumRet"): IR_MEASURES,
    ("trec_eval", "num_ret"): PYTREC_EVAL,
    ("ir_measures", "NumRel"): IR_MEASURES,
    ("trec_eval", "num_rel"): PYTREC_EVAL,
    ("trec_eval", "num_rel_ret"): PYTREC_EVAL,
    ("alias", "NumRelRet"): same_as("num_rel_ret"),
    ("trec_eval", "iprec_at_recall_0.00"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.10"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.20"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.30"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.40"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.50"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.60"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.70"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.80"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_0.90"): TREC_EVAL_FILES,
    ("trec_eval", "iprec_at_recall_1.00"): TREC_EVAL_FILES,
    ("trec_eval", "11pt_avg"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_0.20"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_0.40"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_0.60"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_0.80"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_1.00"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_1.20"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_1.40"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_1.60"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_1.80"): TREC_EVAL_FILES,
    ("trec_eval", "Rprec_mult_2.00"): TREC_EVAL_FILES,
    ("trec_eval", "relative_P"): PYTREC_EVAL,
    ("trec_eval", "unj"): TREC_EVAL_FILES,
    ("trec_eval", "infAP"): PYTREC_EVAL,
    ("ir_measures", "infAP"): IR_MEASURES,
    ("trec_eval", "binG"): PYTREC_EVAL,
    ("trec_eval", "set_relative_P"): PYTREC_EVAL,
    ("ir_measures", "SetRelP"): IR_MEASURES,
    ("trec_eval", "set_map"): PYTREC_EVAL,
    ("ir_measures", "SetAP"): IR_MEASURES,
    ("trec_eval", "utility"): PYTREC_EVAL,
    ("trec_eval", "num_nonrel_judged_ret"): PYTREC_EVAL,
    ("trec_eval", "gm_map"): TREC_EVAL_FILES,
    ("trec_eval", "gm_bpref"): TREC_EVAL_FILES,
    ("trec_eval", "rbp_resid"): TREC_EVAL_FILES,
    ("trec_eval", "G"): PYTREC_EVAL,
    ("trec_eval", "ndcg_rel"): PYTREC_EVAL,
    ("trec_eval", "Rndcg"): PYTREC_EVAL,
    ("ir_measures", "SDCG"): IR_MEASURES,
    ("ir_measures", "INSQ"): IR_MEASURES,
    ("ir_measures", "INST"): IR_MEASURES,
    ("ir_measures", "BPM"): IR_MEASURES,
    ("ir_measures", "NERR8"): IR_MEASURES,
    ("ir_measures", "NERR9"): IR_MEASURES,
    ("ir_measures", "NERR10"): IR_MEASURES,
    ("ir_measures", "NERR11"): IR_MEASURES,
    ("ir_measures", "alpha_nDCG"): PYNDEVAL,
    ("alias", "alpha-nDCG"): same_as("alpha_nDCG"),
    ("alias", "α-nDCG"): same_as("alpha_nDCG"),
    ("alias", "α_nDCG"): same_as("alpha_nDCG"),
    ("ir_measures", "alpha_DCG"): PYNDEVAL,
    ("alias", "alpha-DCG"): same_as("alpha_DCG"),
    ("ir_measures", "ERR_IA"): PYNDEVAL,
    ("alias", "ERR-IA"): same_as("ERR_IA"),
    ("ir_measures", "nERR_IA"): PYNDEVAL,
    ("alias", "nERR-IA"): same_as("nERR_IA"),
    ("ir_measures", "P_IA"): PYNDEVAL,
    ("alias", "P-IA"): same_as("P_IA"),
    ("ir_measures", "AP_IA"): PYNDEVAL,
    ("ir_measures", "MAP_IA"): PYNDEVAL,
    ("alias", "MAP-IA"): same_as("AP_IA"),
    ("ir_measures", "StRecall"): PYNDEVAL,
    ("alias", "strec"): same_as("StRecall"),
    ("ir_measures", "NRBP"): PYNDEVAL,
    ("ir_measures", "nNRBP"): PYNDEVAL,
    ("alias", "Q"): Q_TRANSCRIPTION,
    ("ir_measures", "Compat"): IR_MEASURES,
}

#: ranx's spellings read here (parsed by their syntax, not registry aliases): what they read as.
RANX: dict[str, MetricRequest] = {
    "rbp.95": MetricRequest("rbp", None, {"rbp_persistence": 0.95, "rbp_grades": "graded"}, True),
    "ndcg@10-l2": MetricRequest("ndcg", 10, {"relevance_threshold": 2, "nonrelevant_gain": "zero"}),
}

#: Policies tried, in order, for the one under which a tool computes a spelling's number.
POLICIES = (
    rk.Policy.trec_eval(),
    rk.Policy.trec_eval(ties="item_asc"),
    rk.Policy.trec_eval(err_max_grade=4),
    rk.Policy.trec_eval(ties="item_asc", short_lists="observed", negative_grades="nonrelevant"),
    rk.Policy.trec_eval(ties="input_order", negative_grades="nonrelevant"),
    rk.Policy.trec_eval(ties="input_order"),
    # ir_measures' RBP(rel=1) leaves p out: its own 0.8, not trec_eval's 0.9.
    rk.Policy.trec_eval(ties="input_order", rbp_persistence=0.8),
)
#: How a spelling is typed for the check: with a cut-off of 5 where the tool cuts it.
K = 5


def _dataset() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Six queries: tied scores, grades -1..3, unjudged items, a 2-item list, a query whose
    judged items are all non-relevant (no relevant item)."""
    draw = random.Random(20261204)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for number in range(1, 7):
        query = f"q{number}"
        docs = [f"d{i:02d}" for i in range(12)]
        draw.shuffle(docs)
        length = 2 if number == 6 else draw.randint(5, 10)
        run[query] = {doc: float(draw.choice([1, 2, 2, 3, 4])) for doc in docs[:length]}
        judged = docs[: length + 2]
        grades = [0] if number == 5 else [-1, 0, 0, 1, 2, 3]
        qrels[query] = {doc: draw.choice(grades) for doc in judged if draw.random() < 0.8}
        qrels[query].setdefault(docs[0], 0 if number == 5 else 1)
    return qrels, run


QRELS, RUN = _dataset()
CANDIDATES = pl.DataFrame(
    [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
    schema=["query", "item", "score"],
    orient="row",
)
TRUTH = pl.DataFrame(
    [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
    schema=["query", "item", "relevance"],
    orient="row",
)


def _typed(tool: str, spelling: str, cut: bool) -> list[str]:
    """The names typed for a spelling: cut at K where the tool cuts it, and bare where the
    tool reads it bare (its whole list, or no K at all)."""
    alias = next(a for a in REGISTRY[_metric(tool, spelling)].aliases if a.spelling == spelling)
    cut_name = f"{spelling}_{K}" if tool == "trec_eval" else f"{spelling}@{K}"
    names = [cut_name] if cut else []
    if not cut or alias.whole_list:
        names.append(spelling)
    return names


def _metric(tool: str, spelling: str) -> str:
    return next(m for s, m, t, _ in spellings() if (t, s) == (tool, spelling))


def _cut_of(request: MetricRequest) -> int | None:
    """The K a measure is written back with: its own, none for the whole list or no K."""
    return request.k


def _tool_policy(typed: str, request: MetricRequest, tool: str) -> tuple[rk.Policy, str] | None:
    """The first policy tried (with the fields the name's parameters set) under which `tool`
    computes the number, and the name written back there; None when none does."""
    for policy in POLICIES:
        try:
            merged = Request.of([typed]).policy(policy)
        except ValueError:
            continue
        name, reason = written_name(request.metric, _cut_of(request), merged, tool)  # type: ignore[arg-type]
        # (A spelling leaving out a parameter the policy sets otherwise than the tool's
        # default is not the tool's number: it warns, `parameters_left_out`.)
        if reason is None and parameters_left_out(request, merged) is None:
            return merged, name
    return None


def _reads(name: str) -> tuple[str, int | None, bool]:
    (request,) = parse_metric_names(name)
    return request.metric, request.k, request.whole_list or not REGISTRY[request.metric].has_k


def _ours(
    typed: str, request: MetricRequest, policy: rk.Policy, names: str, tools: bool = True
) -> tuple[dict[str, float], pl.DataFrame]:
    """Our value per query and the summary written back under `names`, with no warning that
    the tool computes another number when the policy is the tool's (`tools`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error" if tools else "ignore", ToolNameWarning)
        res = rk.evaluate(
            CANDIDATES, TRUTH, k=None, metrics=[typed], group_by="query", policy=policy
        ).collect()
    assert isinstance(res.per_group, pl.DataFrame)
    rows = res.per_group.filter(
        pl.col("metric") == request.metric,
        pl.col("k").is_null() if request.k is None else pl.col("k") == request.k,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = res.summary(names=names)  # type: ignore[arg-type]
    return dict(zip(rows["query"], rows["value"], strict=True)), summary


def _tools(reference: str, written: str, typed: str) -> tuple[dict[str, float], float]:
    """The tool's value per query and its summary line."""
    if reference == IR_MEASURES:
        measure = ir_measures.parse_measure(written)
        per_query = {
            m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], QRELS, RUN)
        }
        return per_query, float(ir_measures.calc_aggregate([measure], QRELS, RUN)[measure])
    base = typed.rsplit("_", 1)[0] if typed.endswith(f"_{K}") else typed
    evaluated = pytrec_eval.RelevanceEvaluator(QRELS, {base}).evaluate(RUN)
    per_query = {query: float(values[written]) for query, values in evaluated.items()}
    summed = REGISTRY[_reads(written)[0]].name in SUMMED_BY_TOOLS
    total = sum(per_query.values())
    return per_query, total if summed else total / len(per_query)


def test_every_spelling_of_the_registry_has_a_reference() -> None:
    """A spelling added to the registry without a reference here fails: the table is the
    registry's spellings, no more and no fewer."""
    known = {(tool, spelling) for spelling, _, tool, _ in spellings()}
    assert set(REFERENCES) == known, (known - set(REFERENCES), set(REFERENCES) - known)


@pytest.mark.parametrize(("tool", "spelling"), sorted(REFERENCES))
def test_a_spelling_reads_as_the_tools_measure_and_back(tool: str, spelling: str) -> None:
    """Typed under the tool's policy, the spelling equals the tool per query and its written
    name reads back; its summary row carries the tool's name only with the tool's mean; under
    a policy where the tool differs, typing it warns, naming the policy field."""
    reference = REFERENCES[(tool, spelling)]
    cut = next(c for s, _, t, c in spellings() if (t, s) == (tool, spelling))
    typed_names = _typed(tool, spelling, cut)
    if reference == RBP_GRADED:  # graded RBP has no provider: the binary one is checked
        assert all(_tool_policy(t, parse_metric_names(t)[0], tool) is None for t in typed_names)
        typed_names, reference = ["RBP(rel=1)"], IR_MEASURES
    for typed in typed_names:
        (request,) = parse_metric_names(typed)
        if reference.startswith("same as "):
            other = reference.removeprefix("same as ")
            other_tool = next(t for s, _, t, _ in spellings() if s == other and t != "alias")
            want = [_reads(n) for n in _typed(other_tool, other, cut)]
            assert _reads(typed) in want, (typed, want)
            continue
        found = _tool_policy(typed, request, "ir_measures" if tool == "alias" else tool)
        if reference == Q_TRANSCRIPTION or (reference == GDEVAL and request.k is None):
            continue  # gdeval's ERR has a cut-off: the whole-list ERR is no tool's here
        assert found is not None, f"no policy tried makes {tool} compute {typed!r}"
        policy, written = found
        assert _reads(written) == _reads(typed), (typed, written)
        _warns_elsewhere(typed, request, tool)
        if reference not in (IR_MEASURES, PYTREC_EVAL):
            continue
        names = "trec_eval" if tool == "trec_eval" else "ir_measures"
        ours, summary = _ours(typed, request, policy, names)
        theirs, mean = _tools(reference, written, typed)
        assert theirs, typed
        for query, value in theirs.items():
            assert math.isclose(ours[query], value, abs_tol=1e-4), (typed, query, ours, theirs)
        row = summary.filter(pl.col("metric") == written)
        assert row.height == 1, (typed, written, summary["metric"].to_list())
        assert math.isclose(row["value"][0], mean, abs_tol=1e-4), (typed, row, mean)
        # Leaving out the query without a relevant item, the mean is no longer the tool's:
        # the row keeps its canonical name (the same text where the tool spells it so).
        _, excluded = _ours(typed, request, policy.replace(empty_truth="exclude"), names, False)
        canonical = REGISTRY[request.metric].column(request.k)
        kept = excluded.filter(pl.col("metric") == written)
        assert written == canonical or kept.is_empty() or math.isclose(kept["value"][0], mean)


def _warns_elsewhere(typed: str, request: MetricRequest, tool: str) -> None:
    """Under each policy tried where the writer says the tool differs, typing the name warns
    (`ToolNameWarning`), the warning naming a Policy field."""
    writer = "ir_measures" if tool == "alias" else tool
    for policy in POLICIES:
        try:
            merged = Request.of([typed]).policy(policy)
        except ValueError:
            continue
        _, reason = written_name(request.metric, _cut_of(request), merged, writer)  # type: ignore[arg-type]
        if reason is None or (tool == "alias" and REGISTRY[request.metric].kind != "diversity"):
            continue
        if request.tool is None and (merged.negative_grades, merged.empty_truth) != (
            "unjudged",
            "zero",
        ):
            continue  # a canonical name (bpref) is trec_eval's only under trec_eval's policy
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn_tool_conventions([typed], merged)
        said = [str(w.message) for w in caught if issubclass(w.category, ToolNameWarning)]
        assert said, (typed, merged, reason)


def test_ranx_spellings_read_as_ranx_computes_them() -> None:
    """ranx's rbp.95 is p = 0.95, graded, over the whole list; its ndcg@10-l2 a threshold."""
    for name, want in RANX.items():
        assert parse_metric_names(name) == [want]
    ranx = pytest.importorskip("ranx")
    tie_free = {
        q: {d: s + i * 1e-3 for i, (d, s) in enumerate(docs.items())} for q, docs in RUN.items()
    }
    candidates = pl.DataFrame(
        [(q, d, s) for q, docs in tie_free.items() for d, s in docs.items()],
        schema=["query", "item", "score"],
        orient="row",
    )
    positive = {
        q: {d: g for d, g in docs.items() if g > 0} or {"none": 0} for q, docs in QRELS.items()
    }
    res = rk.evaluate(
        candidates,
        TRUTH,
        k=None,
        metrics=["rbp.95"],
        group_by="query",
        policy=rk.Policy(empty_truth="zero"),
    ).collect()
    ours = dict(zip(res.per_group["query"], res.per_group["value"], strict=True))
    scores = ranx.evaluate(ranx.Qrels(positive), ranx.Run(tie_free), "rbp.95", return_mean=False)
    for query, value in zip(sorted(tie_free), scores, strict=True):
        assert math.isclose(ours[query], float(value), abs_tol=1e-9), (query, ours, scores)


def _said(names: list[str], policy: rk.Policy) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_tool_conventions(names, policy)
    return [str(w.message) for w in caught if issubclass(w.category, ToolNameWarning)]


def test_trec_evals_rbp_and_ndcg_are_named_one_way() -> None:
    """``rbp`` and ``ndcg`` are the canonical names (at the evaluation's K) under any policy;
    typed under trec_eval's, a warning names the spelling reading as trec_eval's measure
    (``trec_rbp``, ``nDCG``); trec_rbp is never written back as ``rbp``, which would read back
    as the canonical binary rbp."""
    assert parse_metric_names("rbp") == [MetricRequest("rbp")]
    (rbp,) = _said(["rbp"], rk.Policy.trec_eval())
    assert "'trec_rbp'" in rbp
    (ndcg,) = _said(["ndcg"], rk.Policy.trec_eval())
    assert "'nDCG'" in ndcg
    assert _said(["rbp", "ndcg", "trec_rbp", "nDCG"], rk.Policy()) == []
    name, reason = written_name("trec_rbp", None, rk.Policy.trec_eval(), "trec_eval")
    assert name == "trec_rbp"
    assert reason is not None
    assert "'rbp'" in reason
    res = rk.evaluate(
        CANDIDATES, TRUTH, k=None, metrics=["trec_rbp"], group_by="query",
        policy=rk.Policy.trec_eval(),
    )  # fmt: skip
    with pytest.warns(UserWarning, match="trec_rbp"):
        assert res.collect().summary(names="trec_eval")["metric"].to_list() == ["trec_rbp"]


def test_whole_list_names_and_their_cutoffs() -> None:
    """ir_measures' ``MRR`` is its ``RR`` (the whole list; ``MRR@5`` warns as ``RR@5`` does);
    a name carrying its cut-off or reading the whole list adds no default K (k=None)."""
    assert parse_metric_names("MRR") == parse_metric_names("RR")
    assert parse_metric_names("MRR")[0].whole_list
    assert parse_metric_names("mrr") == [MetricRequest("mrr")]  # the canonical name: at K
    assert _said(["MRR@5"], rk.Policy())
    assert _said(["RR@5"], rk.Policy())
    assert _said(["ndcg_cut_5"], rk.Policy(ties="item_asc"))
    res = rk.evaluate(
        CANDIDATES, TRUTH, k=None, metrics=["R@1000", "map", "MRR"], group_by="query"
    ).collect()
    assert sorted(res.summary().select("metric", "k").rows(), key=str) == [
        ("average_precision", None), ("mrr", None), ("recall", 1000),
    ]  # fmt: skip
    res = rk.evaluate(CANDIDATES, TRUTH, k=None, metrics=["R@1000", "ndcg"], group_by="query")
    assert sorted(set(res.collect().summary()["k"].to_list())) == [10, 1000]


def test_names_computed_here_are_read_not_refused() -> None:
    """The tools' spellings of measures computed here read as them: ir_measures' IPrec,
    SetRelP, MAP_IA and its measure objects; α_nDCG, HR@10 and Hit@10."""
    iprec = [MetricRequest("iprec_at_recall_0_50")]
    assert parse_metric_names("IPrec@0.5") == parse_metric_names("IPrec(recall=0.5)") == iprec
    assert parse_metric_names("SetRelP") == [MetricRequest("set_relative_precision")]
    assert parse_metric_names("MAP_IA") == parse_metric_names("AP_IA")
    assert parse_metric_names("α_nDCG@10") == parse_metric_names("alpha_nDCG@10")
    assert parse_metric_names("HR@10") == parse_metric_names("Hit@10")
    assert parse_metric_names("Hit@10") == [MetricRequest("hit_rate", 10)]
    measures = [ir_measures.nDCG @ 10, ir_measures.MRR @ 5, ir_measures.IPrec @ 0.5]
    assert Request.of(measures).measures == (
        MetricRequest("ndcg", 10), MetricRequest("mrr", 5), MetricRequest("iprec_at_recall_0_50"),
    )  # fmt: skip
    with pytest.raises(ValueError, match="recall levels"):
        parse_metric_names("IPrec@0.55")


def test_subtopic_names_warn_where_pyndeval_computes_another_number() -> None:
    """ir_measures' and ndeval's subtopic names typed under trec_eval's tie order warn
    through `evaluate` (the subtopic measures are split off before the other names are
    read), naming pyndeval's tie order where the tie changes the number (the tied items ``a``
    and ``b`` cover two subtopics and one); under pyndeval's policy they do not."""
    run = pl.DataFrame({"query": ["1"] * 3, "item": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    truth = pl.DataFrame(
        {"query": ["1"] * 4, "item": ["a", "a", "b", "c"], "subtopic": [1, 2, 1, 1],
         "relevance": [1] * 4}
    )  # fmt: skip
    for name in ("alpha_nDCG@2", "alpha-nDCG@2", "ERR_IA@2", "NRBP", "AP_IA", "nNRBP"):
        with pytest.warns(ToolNameWarning, match="ties='item_asc'"):
            rk.evaluate(
                run, truth, group_by="query", metrics=[name], subtopic="subtopic",
                policy=rk.Policy.trec_eval(),
            )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("error", ToolNameWarning)
            rk.evaluate(
                run, truth, group_by="query", metrics=[name], subtopic="subtopic",
                policy=rk.Policy(ties="item_asc", empty_truth="zero"),
            )  # fmt: skip


def test_a_mean_leaving_out_groups_keeps_its_canonical_name() -> None:
    """ir_measures averages a query without a relevant item in as 0: under
    ``empty_truth="exclude"`` the summary's RR@5 and P(rel=2)@2 are not its means and keep
    their canonical names; under ``"zero"`` they are written back with its means."""
    measures = [ir_measures.parse_measure("RR@5"), ir_measures.parse_measure("P(rel=2)@2")]
    theirs = ir_measures.calc_aggregate(measures, QRELS, RUN)
    for empty_truth, spelled in (("exclude", False), ("zero", True)):
        for name, measure in zip(("RR@5", "P(rel=2)@2"), measures, strict=True):
            policy = rk.Policy(ties="item_asc", empty_truth=empty_truth)  # type: ignore[arg-type]
            if name != "RR@5":  # pytrec_eval's order
                policy = policy.replace(ties="trec_eval")
            res = rk.evaluate(
                CANDIDATES, TRUTH, k=None, metrics=[name], group_by="query", policy=policy
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                summary = res.collect().summary(names="ir_measures")
            row = summary.filter(pl.col("metric") == name)
            assert (row.height == 1) == spelled, (name, empty_truth, summary)
            if spelled:
                assert math.isclose(row["value"][0], theirs[measure], abs_tol=1e-9)
