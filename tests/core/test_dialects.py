"""The peers' conventions as Policy fields, each against the tool that defines it.

Hypothesis draws runs with graded relevance, negative grades, judged non-relevant items,
unjudged candidates, ties, repeated items and short lists (`tests.support.ranking_cases`).

- negative grades: trec_eval (pytrec_eval) reads a grade below 0 as unjudged, so ``-J`` drops
  such documents and bpref skips them: ``Policy.trec_eval()`` (``negative_grades="unjudged"``);
  ir_measures' ``Judged@K`` counts them as judged: ``negative_grades="nonrelevant"``.
- gain maps: ir_measures' ``nDCG(gains={...})`` (pytrec_eval on remapped qrels).
- F-beta: trec_eval's ``set_F.x`` formula (1 + x) P R / (x P + R), x = beta^2, on P_k and
  recall_k from pytrec_eval.
- graded RBP: ranx's ``rbp`` kernel (each rank weighed by its grade at or above the level).
- ranx's ``ndcg@k-lN``: ranx's ``ndcg`` kernel with ``rel_lvl=N``.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.external_refs import _trec_order, trec_dicts
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(40), derandomize=True, database=None)
TOL = 1e-12
NEGATIVE = (-2, -1, 0, 1, 2, 3)

ks_strategy = st.lists(st.integers(1, 8), min_size=1, max_size=3, unique=True)


def _ours(case: dict[str, Any], ks: list[int], policy: rk.Policy, metrics: list[str]) -> ref.Result:
    cand, truth = frames(case)
    res = rk.evaluate(cand, truth, k=ks, group_by=case["group_by"], policy=policy, metrics=metrics)
    assert isinstance(res.per_group, pl.DataFrame)
    return ref.per_group_dict(res.per_group, case["group_by"], labels_as_metrics=True)


def _close(got: ref.Result, want: ref.Result, context: str) -> None:
    assert want or not got
    for key, value in want.items():
        assert key in got, (key, context)
        assert math.isclose(got[key], value, rel_tol=0, abs_tol=TOL), (
            key,
            got[key],
            value,
            context,
        )


def _without_negative_only(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]], set[str]]:
    """pytrec_eval crashes (a segmentation fault) on a query whose every grade is negative:
    such queries are left out of its input; trec_eval scores them 0 (no relevant item)."""
    dropped = {query for query, docs in qrels.items() if all(g < 0 for g in docs.values())}
    kept = {query: docs for query, docs in qrels.items() if query not in dropped}
    return kept, {query: docs for query, docs in run.items() if query not in dropped}, dropped


def _pytrec(
    case: dict[str, Any], measures: set[str], judged_only: bool = False, threshold: int = 1
) -> tuple[dict[str, dict[str, float]], dict[str, tuple[Any, ...]]]:
    import pytrec_eval

    qrels, run, key_of = trec_dicts(case)
    qrels, run, dropped = _without_negative_only(qrels, run)
    values: dict[str, dict[str, float]] = {}
    if qrels:
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, measures, relevance_level=threshold, judged_docs_only_flag=judged_only
        )
        values = evaluator.evaluate(run)
    zeros = set()
    for measure in measures:
        base, _, cuts = measure.partition(".")
        zeros |= {f"{base}_{k}" for k in cuts.split(",")} if cuts else {base}
    for query in dropped:
        values[query] = dict.fromkeys(zeros, 0.0)
    return values, key_of


# --- negative grades -----------------------------------------------------------------------------


@SETTINGS
@given(case=cases(grades=NEGATIVE), ks=ks_strategy, judged_only=st.booleans())
def test_negative_grades_follow_trec_eval(
    case: dict[str, Any], ks: list[int], judged_only: bool
) -> None:
    cuts = ",".join(map(str, ks))
    measures = {f"P.{cuts}", f"recall.{cuts}", f"ndcg_cut.{cuts}", f"map_cut.{cuts}", "Rprec"}
    values, key_of = _pytrec(case, measures, judged_only=judged_only)
    # One evaluator for bpref: pytrec_eval crashes computing Rprec and bpref together on a
    # query whose every grade is negative.
    bpref, _ = _pytrec(case, {"bpref"}, judged_only=judged_only)
    for query, row in bpref.items():
        values[query]["bpref"] = row["bpref"]
    want: ref.Result = {}
    for query, row in values.items():
        key = key_of[query]
        for k in ks:
            want[key, "precision", k] = row[f"P_{k}"]
            want[key, "recall", k] = row[f"recall_{k}"]
            want[key, "ndcg", k] = row[f"ndcg_cut_{k}"]
            want[key, "average_precision", k] = row[f"map_cut_{k}"]
        want[key, "r_precision", None] = row["Rprec"]
        want[key, "bpref", None] = row["bpref"]
    policy = rk.Policy.trec_eval(unjudged="condense" if judged_only else "keep")
    metrics = ["precision", "recall", "ndcg", "average_precision", "r_precision", "bpref"]
    _close(_ours(case, ks, policy, metrics), want, repr(case))


@SETTINGS
@given(case=cases(grades=NEGATIVE, id_kinds=("str",)), ks=ks_strategy)
def test_negative_grades_are_judged_for_ir_measures_judged(
    case: dict[str, Any], ks: list[int]
) -> None:
    import ir_measures
    from ir_measures import Judged

    qrels, run, key_of = trec_dicts(case)
    run = {query: docs for query, docs in run.items() if docs}  # it divides by len(run)
    want: ref.Result = {}
    for metric in ir_measures.judged.iter_calc([Judged(cutoff=k) for k in ks], qrels, run):
        want[key_of[metric.query_id], "judged", metric.measure["cutoff"]] = metric.value
    policy = rk.Policy(ties="item_asc", short_lists="observed", empty_truth="zero")
    assert policy.negative_grades == "nonrelevant"
    if want:
        _close(_ours(case, ks, policy, ["judged"]), want, repr(case))


def test_negative_grades_in_the_expression_api_follow_the_policy() -> None:
    frame = pl.DataFrame(
        {"item": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0], "rel": [-1, 0, 1, None]}
    )
    for negative, expected in (("nonrelevant", 0.75), ("unjudged", 0.5)):
        policy = rk.Policy(negative_grades=negative)
        value = frame.select(
            rk.judged_at_k("rel", by="score", k=4, item="item", policy=policy)
        ).item()
        assert value == expected


# --- gain maps, F-beta ---------------------------------------------------------------------------


@pytest.mark.parametrize("native", ["1", "0"])
def test_a_negative_gain_lowers_dcg_where_it_is_ranked(
    native: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judged non-relevant item that ``gains`` maps to -1 at rank 2: DCG@2 and DCG@3 are
    -1 / log2(3) and nDCG divides by the ideal of the grade-3 item (5): the running sum fell,
    and is read where it stands at K, not at its peak (0 at rank 1), on both paths and in
    the expression API."""
    monkeypatch.setenv("POLARS_RANKK_NATIVE", native)
    candidates = pl.DataFrame({"user": 1, "item": [1, 2, 3], "score": [3.0, 2.0, 1.0]})
    truth = pl.DataFrame({"user": 1, "item": [2, 9], "relevance": [0, 3]})
    policy = rk.Policy(gains={0: -1.0, 3: 5.0}, nonrelevant_gain="grade")
    dcg = -1.0 / math.log2(3)
    result = rk.evaluate(candidates, truth, k=[1, 2, 3], metrics=["dcg", "ndcg"],
                         group_by="user", policy=policy)  # fmt: skip
    values = {(m, k): v for _, m, k, v in result.per_group.rows()}
    assert values[("dcg", 1)] == 0.0
    assert values[("dcg", 2)] == pytest.approx(dcg, abs=1e-15)
    assert values[("dcg", 3)] == pytest.approx(dcg, abs=1e-15)
    assert values[("ndcg", 3)] == pytest.approx(dcg / 5.0, abs=1e-15)
    labelled = rk.label(candidates, truth, group_by="user")
    options = {"by": "score", "k": 3, "item": "item", "unretrieved": "unretrieved",
               "policy": policy}  # fmt: skip
    expressed = labelled.group_by("user").agg(rk.dcg_at_k("relevance", **options))
    assert expressed["dcg@3"].item() == pytest.approx(dcg, abs=1e-15)


@SETTINGS
@given(
    case=cases(grades=NEGATIVE),
    ks=ks_strategy,
    gains=st.sampled_from([{0: 1, 1: 4}, {1: 3, 2: 7, 3: 15}, {0: 2, 2: 1}, {-1: 5}]),
)
def test_gain_map_matches_ir_measures(case: dict[str, Any], ks: list[int], gains: dict) -> None:
    import ir_measures
    from ir_measures import nDCG

    qrels, run, key_of = trec_dicts(case)
    mapped = {q: {d: gains.get(g, g) for d, g in docs.items()} for q, docs in qrels.items()}
    kept, run, dropped = _without_negative_only(mapped, run)
    qrels = {query: docs for query, docs in qrels.items() if query in kept}
    want: ref.Result = {(key_of[q], "ndcg", k): 0.0 for q in dropped for k in ks}
    measures = [nDCG(cutoff=k, gains=gains) for k in ks]
    for metric in ir_measures.pytrec_eval.iter_calc(measures, qrels, run) if qrels else ():
        want[key_of[metric.query_id], "ndcg", metric.measure["cutoff"]] = metric.value
    # ir_measures remaps the qrels, so a negative grade mapped to a gain is judged.
    policy = rk.Policy.trec_eval(gains=gains, negative_grades="nonrelevant")
    _close(_ours(case, ks, policy, ["ndcg"]), want, repr(case))
    named = f"nDCG(gains={{{','.join(f'{g}:{v}' for g, v in gains.items())}}})@{ks[0]}"
    got = _ours(case, ks, rk.Policy.trec_eval(negative_grades="nonrelevant"), [named])
    _close(got, {key: v for key, v in want.items() if key[2] == ks[0]}, named)


@SETTINGS
@given(case=cases(), ks=ks_strategy, weight=st.sampled_from([0.25, 0.5, 2.0, 4.0]))
def test_f_beta_is_trec_eval_set_f_formula(
    case: dict[str, Any], ks: list[int], weight: float
) -> None:
    cuts = ",".join(map(str, ks))
    values, key_of = _pytrec(case, {f"P.{cuts}", f"recall.{cuts}"})
    want: ref.Result = {}
    for query, row in values.items():
        for k in ks:
            p, r = row[f"P_{k}"], row[f"recall_{k}"]
            f = (1 + weight) * p * r / (weight * p + r) if p + r > 0 else 0.0
            want[key_of[query], "f1", k] = f
    policy = rk.Policy.trec_eval(f_beta=math.sqrt(weight))
    got = _ours(case, ks, policy, ["f1"])
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=TOL), (key, case)


# --- ranx: graded RBP and ndcg@k-lN --------------------------------------------------------------


def _ranx_arrays(
    cand: pl.DataFrame, truth: pl.DataFrame, group: Any, k: int | None
) -> tuple[Any, Any]:
    import numpy as np

    rows = cand.filter(pl.col("g") == group)
    # A repeated item keeps its highest-scored copy, as Policy.duplicates="first" (and
    # trec_dicts) do.
    docs: dict[str, float] = {}
    for item, score in rows.select("item", "score").rows():
        docs[str(item)] = max(docs.get(str(item), -math.inf), float(score))
    order = _trec_order(docs)[:k] if k else _trec_order(docs)
    judged = truth.filter(pl.col("g") == group)
    ids = {item: index for index, item in enumerate({*order, *map(str, judged["item"])})}
    graded = judged.sort("relevance", descending=True).select("item", "relevance").rows()
    # ranx's ideal DCG reads its qrels in the order given: best grade first.
    qrels = np.array([[ids[str(i)], g] for i, g in graded])
    # Decreasing fake scores keep trec_eval's order (ranx sorts by score).
    ranked = np.array([[ids[d], float(len(order) - n)] for n, d in enumerate(order)])
    return qrels.reshape(-1, 2).astype(float), ranked.reshape(-1, 2).astype(float)


@SETTINGS
@given(
    case=cases(allow_multi_key=False),
    k=st.integers(1, 8),
    p=st.sampled_from((0.5, 0.8, 0.95)),
    level=st.sampled_from((1, 2)),
)
def test_graded_rbp_matches_ranx(case: dict[str, Any], k: int, p: float, level: int) -> None:
    from ranx.metrics.rank_biased_precision import _rank_biased_precision

    cand, truth = frames(case)
    policy = rk.Policy.trec_eval(rbp_persistence=p, rbp_grades="graded", relevance_threshold=level)
    got = _ours(case, [k], policy, ["rbp"])
    for (group,), value in [(key, v) for (key, _, _), v in got.items()]:
        qrels, ranked = _ranx_arrays(cand, truth, group, k)
        want = _rank_biased_precision(qrels, ranked, p, level) if len(qrels) else 0.0
        assert math.isclose(value, want, abs_tol=TOL), (group, case)


@SETTINGS
@given(case=cases(allow_multi_key=False), k=st.integers(1, 8), level=st.sampled_from((1, 2, 3)))
def test_ranx_ndcg_at_level_matches_ranx(case: dict[str, Any], k: int, level: int) -> None:
    from ranx.metrics.ndcg import _ndcg

    cand, truth = frames(case)
    got = _ours(case, [k], rk.Policy.trec_eval(), [f"ndcg@{k}-l{level}"])
    for (group,), value in [(key, v) for (key, _, _), v in got.items()]:
        qrels, ranked = _ranx_arrays(cand, truth, group, None)
        want = _ndcg(qrels, ranked, k, level, True) if len(qrels) else 0.0
        if math.isnan(want):
            want = 0.0
        assert math.isclose(value, want, abs_tol=TOL), (group, level, case)


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "metric", "ks", "policy"),
    [
        ("P.5", "precision", [5], {}),
        ("P.5,10", "precision", [5, 10], {}),
        ("P_5,10", "precision", [5, 10], {}),
        ("ndcg_cut.10", "ndcg", [10], {}),
        ("RBP(p=0.9)@10", "rbp", [10], {"rbp_persistence": 0.9, "rbp_grades": "graded"}),
        ("RBP(rel=2)@10", "rbp", [10], {"relevance_threshold": 2, "rbp_grades": "binary"}),
        ("rbp@10", "rbp", [10], {}),
        ("nDCG(gains={0:1,1:4})@10", "ndcg", [10], {"gains": ((0.0, 1.0), (1.0, 4.0))}),
        ("ndcg@10-l2", "ndcg", [10], {"relevance_threshold": 2, "nonrelevant_gain": "zero"}),
        ("novelty@5", "novelty", [5], {}),
    ],
)
def test_peer_syntax_parses(text: str, metric: str, ks: list[int], policy: dict) -> None:
    from polars_rankk.core.names.parse import parse_metric_names

    requests = parse_metric_names(text)
    assert [(r.metric, r.k) for r in requests] == [(metric, k) for k in ks]
    assert requests[0].policy == policy


def test_bad_parameter_names_the_metric() -> None:
    from polars_rankk.core.names.parse import parse_metric_name

    with pytest.raises(ValueError, match=r"metric 'P\(rel=-1\)@5': Policy.relevance_threshold"):
        parse_metric_name("P(rel=-1)@5")


@pytest.mark.parametrize(
    ("metric", "k", "policy", "tool", "name"),
    [
        ("ndcg", 10, rk.Policy(gain="exponential"), "ir_measures", "nDCG(dcg='exp-log2')@10"),
        ("ndcg", 10, rk.Policy(gain="exponential"), "trec_eval", None),
        ("err", 10, rk.Policy(err_max_grade=3), "ir_measures", None),
        ("precision", 5, rk.Policy(relevance_threshold=2.5), "ir_measures", None),
        ("ndcg", 5, rk.Policy(relevance_threshold=2.5), "ir_measures", "nDCG@5"),
        ("mrr", 1, rk.Policy(), "trec_eval", None),
        ("mrr", 2, rk.Policy(), "ir_measures", None),
        ("mrr", 2, rk.Policy(ties="item_asc"), "ir_measures", "RR@2"),
        ("judged", 10, rk.Policy(), "ir_measures", None),
        (
            "judged",
            10,
            rk.Policy(ties="item_asc", short_lists="observed"),
            "ir_measures",
            "Judged@10",
        ),
        ("bpref", None, rk.Policy.trec_eval(), "ir_measures", "Bpref"),
        ("bpref", None, rk.Policy(), "trec_eval", None),
        ("rbp", None, rk.Policy(ties="input_order"), "ir_measures", "RBP(p=0.8,rel=1)"),
        ("rbp", None, rk.Policy(), "ir_measures", None),  # cwl keeps the run's order
        ("rbp", 10, rk.Policy(ties="input_order"), "ir_measures", None),  # no cut-off
        ("rbp", None, rk.Policy(ties="input_order", rbp_grades="graded"), "ir_measures", None),
        ("ndcg", 10, rk.Policy(gains={0: 1, 1: 4}), "ir_measures", "nDCG(gains={0:1,1:4})@10"),
        ("precision", 5, rk.Policy(relevance_threshold=2), "trec_eval", None),
    ],
)
def test_names_are_written_only_where_the_tool_agrees(
    metric: str, k: int | None, policy: rk.Policy, tool: str, name: str | None
) -> None:
    from polars_rankk.core.names.write import written_name

    written, reason = written_name(metric, k, policy, tool)  # type: ignore[arg-type]
    if name is None:
        assert reason is not None
        assert written == rk.core.metrics.registry.REGISTRY[metric].column(k)
    else:
        assert (written, reason) == (name, None)


# --- names written back equal the named tool -----------------------------------------------------

#: Policies whose names the round trip checks; together they write every tool name we emit.
ROUND_TRIP_POLICIES = {
    "default": rk.Policy(),
    "trec_eval": rk.Policy.trec_eval(),
    "trec_eval -J": rk.Policy.trec_eval(unjudged="condense"),
    "threshold 2": rk.Policy.trec_eval(relevance_threshold=2),
    "msmarco and judged providers": rk.Policy(ties="item_asc", short_lists="observed"),
    "gain map": rk.Policy.trec_eval(gains={0: 1, 1: 4, 3: 10}, negative_grades="nonrelevant"),
    "F-beta": rk.Policy.trec_eval(f_beta=0.5),
}
#: Names no installed provider computes: ir_measures' gdeval provider (ERR@k, exp-log2 nDCG)
#: fails here with a format error, and none computes RBP@k (trectools is not installed).
UNCHECKED = ("ERR@", "nDCG(dcg='exp-log2')", "RBP(")
#: trec_eval 10 measures pytrec_eval's trec_eval 9.x lacks (unj) or defines otherwise (it rounds
#: the recall levels of iprec_at_recall and 11pt_avg by + 0.9 and truncation, 10 by lround):
#: held against trec_eval 10's own files (test_trec_eval_conformance.py) and a transcription of
#: its loop (test_trec_eval_measures.py).
UNCHECKED += ("unj_", "iprec_at_recall_", "11pt_avg")
#: Exact names pytrec_eval lacks: trec_eval 10's rbp (trec_rbp), held against trec_eval 10's
#: files (test_trec_eval_conformance.py) and a transcription of m_rbp.c (test_trec_gain.py).
UNCHECKED_NAMES = frozenset({"rbp"})
#: Measures whose number is trec_eval's only on a truth without negative grades: none since
#: infAP counts a negative grade as pooled but unjudged, as trec_eval does.
SAME_WITHOUT_NEGATIVE_GRADES: tuple[str, ...] = ()


#: Names without a cut-off that mean the whole ranked list (ir_measures' spellings).
WHOLE_LIST_NAMES = ("AP", "RR", "nDCG", "Judged", "ERR")


def _tool_values(
    tool: str, name: str, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> dict[str, float]:
    import ir_measures
    import pytrec_eval

    if tool == "ir_measures":
        measure = ir_measures.parse_measure(name)
        return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    # trec_eval's -m syntax: P_5 -> P.5, ndcg_cut_10 -> ndcg_cut.10; set_F.0.25 as written.
    head, _, tail = name.rpartition("_")
    spec = f"{head}.{tail}" if tail.isdigit() else name
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {spec})
    return {query: next(iter(row.values())) for query, row in evaluator.evaluate(run).items()}


@pytest.mark.parametrize("label", ROUND_TRIP_POLICIES)
@settings(deadline=None, max_examples=examples(15), derandomize=True, database=None)
@given(case=cases(grades=NEGATIVE, id_kinds=("str",)), ks=ks_strategy)
def test_written_names_compute_the_same_numbers_in_the_named_tool(
    label: str, case: dict[str, Any], ks: list[int]
) -> None:
    from polars_rankk.core.metrics.declaration import GEOMETRIC_FLOOR
    from polars_rankk.core.metrics.registry import REGISTRY
    from polars_rankk.core.names.write import written_name

    policy = ROUND_TRIP_POLICIES[label]
    metrics = [
        name
        for name, entry in REGISTRY.items()
        if entry.accuracy and (policy.ties != "expected" or entry.supports_expected_ties)
    ]
    # and the names that mean the whole list: rows without K, written as map, AP, ...
    got = _ours(case, ks, policy, [*metrics, *WHOLE_LIST_NAMES])
    qrels, run, key_of = trec_dicts(case)
    qrels, run, _ = _without_negative_only(qrels, run)
    query_of = {key: query for query, key in key_of.items()}
    written: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for key in got:
        for tool in ("ir_measures", "trec_eval"):
            name, reason = written_name(key[1], key[2], policy, tool)  # type: ignore[arg-type]
            if reason is None and not name.startswith(UNCHECKED) and name not in UNCHECKED_NAMES:
                written.setdefault((tool, name), []).append(key)
    assert written or not got
    for (tool, name), keys in written.items():
        if tool == "ir_measures" and name.startswith("Judged"):
            # The judged provider raises on an empty run.
            run_used = {q: docs for q, docs in run.items() if docs}
        else:
            run_used = run
        values = _tool_values(tool, name, qrels, run_used) if qrels else {}
        for key in keys:
            query = query_of[key[0]]
            if query not in values:
                continue  # the tool does not report it (all grades negative, or an empty run)
            negative = any(grade < 0 for grade in qrels.get(query, {}).values())
            base = name.split("(")[0].split("@")[0]  # infAP(rel=2): infAP
            if negative and base in SAME_WITHOUT_NEGATIVE_GRADES:
                continue
            ours = got[key]
            if REGISTRY[key[1]].aggregate == "geometric":
                # the tool's per-query value of gm_map / gm_bpref is the floored log its
                # summary line averages (and exponentiates)
                ours = math.log(max(ours, GEOMETRIC_FLOOR))
            assert math.isclose(ours, values[query], rel_tol=1e-12, abs_tol=TOL), (
                label,
                tool,
                name,
                key,
                got[key],
                values[query],
            )


def test_tool_names_of_counts_hold_the_sum_over_queries_as_the_tools_summary_line() -> None:
    import ir_measures

    cand = pl.DataFrame(
        {
            "q": ["1", "1", "1", "2", "2"],
            "item": ["a", "b", "c", "d", "e"],
            "score": [3.0, 2, 1, 2, 1],
        }
    )
    truth = pl.DataFrame({"q": ["1", "1", "2"], "item": ["b", "z", "e"], "relevance": [1, 1, 2]})
    metrics = ["num_ret", "num_rel", "num_rel_ret", "P@2"]
    res = rk.evaluate(cand, truth, k=2, metrics=metrics, group_by="q", policy=rk.Policy.trec_eval())
    trec = dict(res.summary(names="trec_eval").select("metric", "value").iter_rows())
    assert (trec["num_ret"], trec["num_rel"], trec["num_rel_ret"]) == (5.0, 3.0, 2.0)
    assert trec["P_2"] == pytest.approx(0.5)  # a mean, as trec_eval's P_2 line
    ir = dict(res.summary(names="ir_measures").select("metric", "value").iter_rows())
    qrels = [ir_measures.Qrel(q, i, g) for q, i, g in truth.iter_rows()]
    run = [ir_measures.ScoredDoc(q, i, s) for q, i, s in cand.iter_rows()]
    measures = [ir_measures.parse_measure(name) for name in ("NumRet", "NumRel", "NumRet(rel=1)")]
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    for measure in measures:
        assert ir[str(measure)] == expected[measure]
    with pytest.warns(UserWarning, match="sums it over queries"):
        weighted = res.summary("weighted", weight="n_candidates", names="trec_eval")
    assert "num_ret" not in set(weighted["metric"])
    assert "P_2" not in set(weighted["metric"])  # a weighted mean is no tool's summary line


#: Condensed lists with negative grades non-relevant: trec_eval's conventions the names keep.
CONDENSED = rk.Policy.trec_eval(unjudged="condense", negative_grades="nonrelevant")


@pytest.mark.parametrize("label", [*ROUND_TRIP_POLICIES, "condensed"])
def test_every_ir_measures_name_written_back_is_one_ir_measures_accepts(label: str) -> None:
    import ir_measures

    from polars_rankk.core.metrics.registry import REGISTRY
    from polars_rankk.core.names.write import written_name

    policy = ROUND_TRIP_POLICIES.get(label, CONDENSED)
    for metric, entry in REGISTRY.items():
        for k in (10, None) if entry.has_k else (None,):
            name, reason = written_name(metric, k, policy, "ir_measures")
            if reason is None:
                # ir_measures reads any parameter and rejects the ones a measure lacks here.
                ir_measures.parse_measure(name).validate_params()
                repr(ir_measures.parse_measure(name))


def test_rbp_of_condensed_lists_keeps_its_canonical_name_for_ir_measures() -> None:
    from polars_rankk.core.names.write import written_name

    policy = rk.Policy.trec_eval(unjudged="condense")
    assert written_name("ndcg", 10, policy, "ir_measures") == ("nDCG(judged_only=True)@10", None)
    # ir_measures' RBP (cwl) reads the whole list in the run's order: under that order too,
    # a condensed list keeps the canonical name.
    name, reason = written_name("rbp", None, policy.replace(ties="input_order"), "ir_measures")
    assert name == "rbp"
    assert reason is not None
    assert "judged_only" in reason


def test_conformance_page_judged_policy_reproduces_ir_measures_mean_over_all_queries() -> None:
    import ir_measures

    from tests.core.test_names import ROOT

    documented = 'Policy(ties="item_asc", short_lists="observed", empty_truth="zero")'
    judged_line = next(
        line
        for line in (ROOT / "docs" / "conformance.md").read_text().splitlines()
        if line.startswith("| **ir_measures**, judged provider")
    )
    assert documented in judged_line
    policy = rk.Policy(ties="item_asc", short_lists="observed", empty_truth="zero")
    cand = pl.DataFrame(
        {"q": ["1", "1", "2", "2"], "item": ["a", "b", "c", "d"], "score": [2.0, 1, 2, 1]}
    )
    # Query 2 has judgements but nothing relevant: ir_measures still reports its Judged@2.
    truth = pl.DataFrame({"q": ["1", "2", "2"], "item": ["a", "c", "d"], "relevance": [1, 0, 0]})
    res = rk.evaluate(cand, truth, k=2, metrics=["Judged@2"], group_by="q", policy=policy)
    qrels = [ir_measures.Qrel(q, i, g) for q, i, g in truth.iter_rows()]
    run = [ir_measures.ScoredDoc(q, i, s) for q, i, s in cand.iter_rows()]
    measure = ir_measures.parse_measure("Judged@2")
    expected = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    assert res.summary()["value"].item() == pytest.approx(expected)  # 0.75, over 2 queries
