"""trec_eval's gain measures G, ndcg_rel and Rndcg (`polars_rankk.core.metrics.families.
trec_gain`) and infAP against pytrec_eval per query, trec_eval 10's rbp (``trec_rbp``) against
a transcription of m_rbp.c, on generated runs with ties, duplicates, short lists,
empty truth and grades -1..3, at relevance thresholds 1 and 2; names both ways, the refusals in
words, and the path each term took.

pytrec_eval compiles trec_eval in (its conventions: tests/support/external_refs.py); a qrels
query whose every grade is negative crashes it, so such queries are left out of both inputs.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.names.parse import parse_metric_name, render_name
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.external_refs import _trec_order, trec_dicts
from tests.support.kernel_path import needs_kernel, path
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(60), derandomize=True, database=None)
TOL = 1e-12
#: trec_eval's name -> this library's.
NAMES = {"G": "normalized_g", "ndcg_rel": "ndcg_over_relevant", "Rndcg": "ndcg_at_gain_levels"}
#: And infAP, which counts a negative grade as pooled but unjudged, as trec_eval does.
PYTREC_NAMES = {**NAMES, "infAP": "infap"}


def _without_all_negative_queries(case: dict[str, Any]) -> dict[str, Any]:
    keys = case["group_by"]
    best: dict[tuple[Any, ...], float] = {}
    for row in case["truth"]:
        key = tuple(row[c] for c in keys)
        best[key] = max(best.get(key, -math.inf), row["relevance"])
    kept = [row for row in case["truth"] if best[tuple(row[c] for c in keys)] >= 0]
    return {**case, "truth": kept}


def _pytrec_eval(case: dict[str, Any], threshold: int, names: list[str]) -> ref.Result:
    import pytrec_eval

    qrels, run, key_of = trec_dicts(case)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names), relevance_level=threshold)
    return {
        (key_of[q], PYTREC_NAMES.get(name, name), None): value
        for q, values in evaluator.evaluate(run).items()
        for name, value in values.items()
    }


@SETTINGS
@given(case=cases(grades=(-1, 0, 1, 2, 3)), threshold=st.sampled_from([1, 2]))
def test_g_ndcg_rel_rndcg_and_infap_match_pytrec_eval(case: dict[str, Any], threshold: int) -> None:
    case = _without_all_negative_queries(case)
    if not case["truth"]:
        return
    candidates, truth = frames(case)
    res = rk.evaluate(
        candidates,
        truth,
        metrics=list(PYTREC_NAMES),
        group_by=case["group_by"],
        policy=rk.Policy.trec_eval(relevance_threshold=threshold),
    )
    got = ref.per_group_dict(res.per_group, case["group_by"])
    want = _pytrec_eval(case, threshold, list(PYTREC_NAMES))
    ref.assert_results_equal(got, want, tol=TOL, context=repr(case))


@pytest.mark.parametrize(("trec_name", "metric"), list(NAMES.items()))
def test_names_are_read_and_written_back(trec_name: str, metric: str) -> None:
    request = parse_metric_name(trec_name)
    assert (request.metric, request.k) == (metric, None)
    assert render_name(metric, None, rk.Policy.trec_eval(), style="trec_eval") == trec_name
    assert parse_metric_name(metric).metric == metric


@pytest.mark.parametrize("name", list(NAMES))
def test_the_expression_api_refuses_them_naming_evaluate(name: str) -> None:
    with pytest.raises(ValueError, match="reads the ideal ranking rank by rank"):
        rk.metrics_expression(name, "rel", by="score")


_CANDIDATES = pl.DataFrame(
    {
        "g": [1, 1, 1, 1, 2, 2, 2],
        "item": [10, 11, 12, 13, 20, 21, 22],
        "score": [0.9, 0.5, 0.5, 0.1, 1.0, 1.0, 0.3],
    }
)
_TRUTH = pl.DataFrame(
    {"g": [1, 1, 1, 2, 2], "item": [10, 12, 14, 21, 22], "relevance": [3, 1, 2, 2, 0]}
)


def test_ties_expected_is_refused_naming_them() -> None:
    for name in NAMES:
        with pytest.raises(ValueError, match="expect"):
            rk.evaluate(
                _CANDIDATES, _TRUTH, metrics=[name], group_by="g", policy=rk.Policy(ties="expected")
            )


@needs_kernel
def test_the_kernel_leaves_their_terms_to_pure_polars_and_says_so() -> None:
    results = {}
    for enabled in (True, False):
        with path(enabled):
            res = rk.evaluate(_CANDIDATES, _TRUTH, metrics=list(NAMES), group_by="g")
            results[enabled] = (ref.per_group_dict(res.per_group, "g"), res.diagnostics.path)
    ref.assert_results_equal(results[True][0], results[False][0], tol=TOL)
    kernel_path = results[True][1]
    assert kernel_path.startswith("native kernel: loaded"), kernel_path
    assert "in pure Polars" in kernel_path
    assert all(term in kernel_path for term in ("trec_g", "trec_ndcg_rel_at", "trec_rndcg")), (
        kernel_path
    )


def test_lazy_input_gives_the_same_numbers() -> None:
    eager = rk.evaluate(_CANDIDATES, _TRUTH, metrics=list(NAMES), group_by="g")
    lazy = rk.evaluate(_CANDIDATES.lazy(), _TRUTH.lazy(), metrics=list(NAMES), group_by="g")
    ref.assert_results_equal(
        ref.per_group_dict(lazy.per_group, "g"), ref.per_group_dict(eager.per_group, "g"), tol=0
    )


def _rbp_v10(docs: dict[str, float], judged: dict[str, int], p: float) -> float:
    """trec_eval 10's m_rbp.c line by line: gains = levels 0..max_rel (max over the query's
    qrels), rescaled by (g - min) / (max - min) when one lies outside [0, 1]; an unjudged or
    negative-grade doc gains 0."""
    max_rel = max(judged.values())
    gains = {level: float(level) for level in range(max_rel + 1)}
    if gains:
        low, high = min(gains.values()), max(gains.values())
        if low < 0 or high > 1:
            gains = {level: (g - low) / (high - low) for level, g in gains.items()}
    total, weight = 0.0, 1.0
    for doc in _trec_order(docs):
        total += gains.get(judged.get(doc, -1), 0.0) * weight
        weight *= p
    return (1.0 - p) * total


@SETTINGS
@given(case=cases(grades=(-1, 0, 1, 2, 3)), threshold=st.sampled_from([1, 2]))
def test_trec_rbp_is_trec_eval_10s_rbp(case: dict[str, Any], threshold: int) -> None:
    # pytrec_eval's trec_eval 9.x has no rbp: the reference is trec_eval 10's loop.
    candidates, truth = frames(case)
    policy = rk.Policy.trec_eval(relevance_threshold=threshold)
    res = rk.evaluate(
        candidates, truth, metrics=["trec_rbp"], group_by=case["group_by"], policy=policy
    )
    got = ref.per_group_dict(res.per_group, case["group_by"])
    qrels, run, key_of = trec_dicts(case)
    want = {
        (key_of[q], "trec_rbp", None): _rbp_v10(run[q], judged, 0.9) for q, judged in qrels.items()
    }
    ref.assert_results_equal(got, want, tol=TOL, context=repr(case))
    # trec_eval prints it as rbp, which reads here as the canonical rbp: kept canonical.
    assert render_name("trec_rbp", None, policy, style="trec_eval") == "trec_rbp"


def _relstring_v10(docs: dict[str, float], judged: dict[str, int], n: int) -> str:
    """trec_eval 10's m_relstring.c: a digit per grade 0..9, '>' above, '-' not in the qrels,
    '.' in them with a negative grade (pooled but unjudged)."""
    chars = []
    for doc in _trec_order(docs)[:n]:
        grade = judged.get(doc)
        chars.append(
            "-" if grade is None else "." if grade < 0 else ">" if grade > 9 else str(grade)
        )
    return "".join(chars)


@SETTINGS
@given(case=cases(grades=(-1, 0, 1, 2, 3, 12)), n=st.integers(0, 6))
def test_relstring_is_trec_eval_10s(case: dict[str, Any], n: int) -> None:
    candidates, truth = frames(case)
    policy = rk.Policy.trec_eval()
    labelled = rk.label(candidates, truth, group_by=case["group_by"], policy=policy)
    got = (
        labelled.group_by(case["group_by"])
        .agg(rk.relstring("relevance", by="score", item="item", n=n, policy=policy))
        .iter_rows(named=True)
    )
    mine = {tuple(row[c] for c in case["group_by"]): row["relstring"] for row in got}
    qrels, run, key_of = trec_dicts(case)
    for q, docs in run.items():
        key = key_of[q]
        if docs:
            assert mine[key] == _relstring_v10(docs, qrels.get(q, {}), n), (key, case)


def test_infap_counts_a_negative_grade_as_pooled_but_unjudged_on_every_path() -> None:
    # trec_eval (and pytrec_eval) on this query: 0.375; a negative grade read as absent from
    # the truth gives 0.2917.
    run = pl.DataFrame(
        {"q": ["1"] * 6, "item": list("abcdef"), "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]}
    )
    truth = pl.DataFrame({"q": ["1"] * 5, "item": list("abdef"), "relevance": [-1, 0, 1, -1, 2]})
    policy = rk.Policy.trec_eval()
    want = 0.375002499950001
    values = []
    for enabled in (True, False):
        with path(enabled):
            res = rk.evaluate(run, truth, metrics=["infAP"], group_by="q", policy=policy)
            values.append(res.per_group["value"].item())
    labelled = rk.label(run, truth, group_by="q", policy=policy)
    expression = rk.metrics_expression("infAP", "relevance", by="score", item="item", policy=policy)
    values.append(labelled.select(expression).item())
    # Pre-labelled candidates (no null label: c, outside the pool, left out of both runs): the
    # negative label is the pooled, unjudged row.
    judged_run = run.filter(pl.col("item") != "c")
    labels = rk.label(judged_run, truth, group_by="q", policy=policy)
    prelabelled = rk.evaluate(
        labels.drop("n_relevant", "unretrieved"), None, metrics=["infAP"], group_by="q",
        relevance="relevance", policy=policy,
    )  # fmt: skip
    with_truth = rk.evaluate(judged_run, truth, metrics=["infAP"], group_by="q", policy=policy)
    e = 1e-5  # m_infap.c by hand: d at j = 2 (a pooled above), f at j = 4 (a, e pooled)
    by_hand = (
        1 / 3 + (2 / 3) * (2 / 2) * (e / (1 + 2 * e)) + 1 / 5 + (4 / 5) * (1 + e) / (2 + 2 * e)
    ) / 2
    for res in (prelabelled, with_truth):
        assert math.isclose(res.per_group["value"].item(), by_hand, rel_tol=1e-12)
    assert all(math.isclose(value, want, rel_tol=1e-12) for value in values), values


@pytest.mark.parametrize("name", [*NAMES, "trec_rbp"])
def test_a_pre_labelled_list_with_n_relevant_is_refused_in_words(name: str) -> None:
    # n_relevant= counts the relevant items a list missed but gives no grade to them.
    candidates = pl.DataFrame(
        {"g": [1, 1], "item": [1, 2], "score": [2.0, 1.0], "rel": [1, 0], "nr": [3, 3]}
    )
    with pytest.raises(ValueError, match="pass the truth table"):
        rk.evaluate(
            candidates, None, metrics=[name], group_by="g", relevance="rel", n_relevant="nr"
        )
