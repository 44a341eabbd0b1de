"""bpref, err@K, rbp@K (and its residual), judged@K, dcg@K and condensed lists, against
independent implementations.

Hypothesis draws runs with graded relevance, judged non-relevant items (grade 0), unjudged
candidates, ties, repeated items and short lists (`tests.support.ranking_cases`). Every value
agrees to 1e-12 per query under the matching policy:

- trec_eval (through ir_measures' pytrec_eval provider): ``Bpref`` and
  ``nDCG(judged_only=True)@K`` under ``Policy.trec_eval`` (+ ``unjudged="condense"``).
- ir_measures' own ``Judged@K``: it sorts by (-score, docno) and divides by min(K, n), i.e.
  ``ties="item_asc"`` on string ids and ``short_lists="observed"``.
- The bundled trec_eval ``out.test`` bpref (a mean printed to 4 decimals).
- ranx's ``bpref`` kernel on tie-free runs, and its ``rbp`` on 0/1 grades (ranx weighs a rank
  by the document's grade, which equals our binary RBP only there).
- A brute force of our own, written from the papers, for ERR (Chapelle et al. 2009) and RBP
  with its residual (Moffat & Zobel 2008).
- cwl-eval's RBP and its residual (the C/W/L framework's bounds) on lists cut at K.

Known residual differences, by cause: trec_eval treats a negative qrels grade as unjudged for
bpref, where we count it as judged non-relevant (the generators draw no negative grade);
ir_measures' Judged@K raises on an empty run, so those queries are left out of that check;
cwl-eval normalises RBP's weights over a finite depth (max_n = 1000 ranks), dividing every
weight by 1 - p^1000, and its residual stops at rank 1000: both differ from the infinite sums
here by at most p^1000 (< 1e-22 for p <= 0.95), far inside the 1e-12 tolerance.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.external_refs import trec_dicts
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(60), derandomize=True, database=None)
TOL = 1e-12
DATA = Path(__file__).parent.parent / "support" / "data" / "trec_eval"

ks_strategy = st.lists(st.integers(1, 10), min_size=1, max_size=3, unique=True)


def _ours(case: dict[str, Any], ks: list[int], policy: rk.Policy, metrics: list[str]) -> ref.Result:
    cand, truth = frames(case)
    res = rk.evaluate(cand, truth, k=ks, group_by=case["group_by"], policy=policy, metrics=metrics)
    assert isinstance(res.per_group, pl.DataFrame)
    return ref.per_group_dict(res.per_group, case["group_by"], labels_as_metrics=True)


def _close(got: ref.Result, want: ref.Result, context: str) -> None:
    for key, value in want.items():
        assert key in got, (key, context)
        assert math.isclose(got[key], value, rel_tol=0, abs_tol=TOL), (
            key,
            got[key],
            value,
            context,
        )


# --- trec_eval through ir_measures ---------------------------------------------------------------


@SETTINGS
@given(case=cases(), threshold=st.sampled_from([1, 2]))
def test_bpref_matches_trec_eval(case: dict[str, Any], threshold: int) -> None:
    import ir_measures
    from ir_measures import Bpref

    qrels, run, key_of = trec_dicts(case)
    want: ref.Result = {}
    for metric in ir_measures.pytrec_eval.iter_calc([Bpref(rel=threshold)], qrels, run):
        want[key_of[metric.query_id], "bpref", None] = metric.value
    policy = rk.Policy.trec_eval(relevance_threshold=threshold)
    _close(_ours(case, [1], policy, ["bpref"]), want, repr(case))


@SETTINGS
@given(case=cases(), ks=ks_strategy)
def test_judged_only_ndcg_matches_trec_eval(case: dict[str, Any], ks: list[int]) -> None:
    import ir_measures
    from ir_measures import nDCG

    qrels, run, key_of = trec_dicts(case)
    measures = [nDCG(cutoff=k, judged_only=True) for k in ks]
    want: ref.Result = {}
    for metric in ir_measures.pytrec_eval.iter_calc(measures, qrels, run):
        want[key_of[metric.query_id], "ndcg", metric.measure["cutoff"]] = metric.value
    got = _ours(case, ks, rk.Policy.trec_eval(unjudged="condense"), ["ndcg"])
    _close(got, want, repr(case))
    # The same through the name users type (at its own cut-off).
    named = _ours(case, ks, rk.Policy.trec_eval(), [f"nDCG(judged_only=True)@{ks[0]}"])
    _close(named, {key: value for key, value in want.items() if key[2] == ks[0]}, repr(case))


@SETTINGS
@given(case=cases(id_kinds=("str",)), ks=ks_strategy)
def test_judged_matches_ir_measures(case: dict[str, Any], ks: list[int]) -> None:
    import ir_measures
    from ir_measures import Judged

    qrels, run, key_of = trec_dicts(case)
    run = {query: docs for query, docs in run.items() if docs}  # it divides by len(run)
    want: ref.Result = {}
    for metric in ir_measures.judged.iter_calc([Judged(cutoff=k) for k in ks], qrels, run):
        want[key_of[metric.query_id], "judged", metric.measure["cutoff"]] = metric.value
    policy = rk.Policy(ties="item_asc", short_lists="observed", empty_truth="zero")
    if want:
        _close(_ours(case, ks, policy, ["judged"]), want, repr(case))


def test_bpref_matches_bundled_trec_eval_output() -> None:
    lines = (DATA / "out.test").read_text().splitlines()
    (expected,) = [float(line.split()[-1]) for line in lines if line.split()[0] == "bpref"]
    run = read_trec_run(DATA / "results.test")
    qrels = read_trec_qrels(DATA / "qrels.test")
    res = rk.evaluate(
        run, qrels, k=1000, metrics=["bpref"], group_by="query", policy=rk.Policy.trec_eval()
    )
    (value,) = res.summary()["value"].to_list()
    assert round(value, 4) == expected


# --- ranx ----------------------------------------------------------------------------------------


@SETTINGS
@given(case=cases(allow_duplicates=False, allow_multi_key=False, scores=tuple(range(50))))
def test_bpref_matches_ranx(case: dict[str, Any]) -> None:
    import numpy as np
    from ranx.metrics.bpref import _bpref

    cand, truth = frames(case)
    got = _ours(case, [1], rk.Policy.trec_eval(ties="item_asc"), ["bpref"])
    for (group,), value in [(key, v) for (key, _, _), v in got.items()]:
        rows = cand.filter(pl.col("g") == group).sort("score", "item", descending=[True, False])
        if rows["score"].n_unique() != rows.height:
            continue  # ranx orders ties its own way
        judged = truth.filter(pl.col("g") == group)
        if (
            judged.filter(pl.col("relevance") >= 1).is_empty()
            or judged.filter(pl.col("relevance") < 1).is_empty()
        ):
            continue  # ranx divides by R and by min(R, N): NaN where trec_eval gives 0 or 1
        ids = {item: index for index, item in enumerate({*rows["item"], *judged["item"]})}
        qrels = np.array([[ids[i], g] for i, g in judged.select("item", "relevance").rows()], float)
        ranked = np.array([[ids[i], s] for i, s in rows.select("item", "score").rows()], float)
        if ranked.size == 0:
            ranked = np.zeros((0, 2))
        assert math.isclose(value, _bpref(qrels, ranked, 1), abs_tol=TOL), (group, case)


@SETTINGS
@given(
    case=cases(
        allow_duplicates=False, allow_multi_key=False, scores=tuple(range(50)), grades=(0, 1)
    ),
    k=st.integers(1, 10),
    p=st.sampled_from((0.5, 0.8, 0.95)),
)
def test_rbp_matches_ranx_on_binary_judgements(case: dict[str, Any], k: int, p: float) -> None:
    """ranx weighs each rank by the document's grade, so the definitions match on 0/1 grades;
    ranx reads the whole run, so it is given our top K."""
    import numpy as np
    from ranx.metrics.rank_biased_precision import _rank_biased_precision

    cand, truth = frames(case)
    got = _ours(case, [k], rk.Policy.trec_eval(rbp_persistence=p), ["rbp"])
    for (group,), value in [(key, v) for (key, _, _), v in got.items()]:
        rows = (
            cand.filter(pl.col("g") == group)
            # trec_eval's tie order, which the policy uses: item id as a string, descending.
            .sort(pl.col("score"), pl.col("item").cast(pl.String), descending=True)
            .head(k)
        )
        judged = truth.filter(pl.col("g") == group)
        if judged.filter(pl.col("relevance") >= 1).is_empty():
            assert value == 0.0
            continue
        ids = {item: index for index, item in enumerate({*rows["item"], *judged["item"]})}
        qrels = np.array([[ids[i], g] for i, g in judged.select("item", "relevance").rows()], float)
        ranked = np.array([[ids[i], s] for i, s in rows.select("item", "score").rows()], float)
        if ranked.size == 0:
            ranked = np.zeros((0, 2))
        want = _rank_biased_precision(qrels, ranked, p, 1)
        assert math.isclose(value, want, abs_tol=TOL), (group, case)


# --- ERR and RBP from the papers -----------------------------------------------------------------


def _ranked_lists(case: dict[str, Any]) -> dict[tuple[Any, ...], list[tuple[Any, float | None]]]:
    """Per group: (item, grade or None when unjudged) in item_asc rank order, one per item."""
    keys = case["group_by"]
    grades = {(tuple(r[k] for k in keys), r["item"]): r["relevance"] for r in case["truth"]}
    best: dict[tuple[Any, ...], dict[Any, float]] = {}
    for row in case["candidates"]:
        group = best.setdefault(tuple(row[k] for k in keys), {})
        group[row["item"]] = max(group.get(row["item"], -math.inf), row["score"])
    judged_groups = {tuple(row[k] for k in keys) for row in case["truth"]}
    return {
        key: [
            (item, grades.get((key, item)))
            for item, _ in sorted(best.get(key, {}).items(), key=lambda p: (-p[1], p[0]))
        ]
        for key in judged_groups  # evaluate's universe: the groups of the truth
    }


def _err(grades: list[float | None], k: int, top: float) -> float:
    """Chapelle et al. 2009, Algorithm 2: p = 1; ERR += p R_r / r; p *= 1 - R_r."""
    total, reach = 0.0, 1.0
    for rank, grade in enumerate(grades[:k], start=1):
        g = min(max(grade or 0.0, 0.0), top)
        stop = (2.0**g - 1.0) / 2.0**top
        total += reach * stop / rank
        reach *= 1.0 - stop
    return total


def _rbp(grades: list[float | None], k: int, p: float) -> tuple[float, float]:
    """Moffat & Zobel 2008: RBP = (1 - p) Σ r_i p^(i-1); the residual is the weight of the
    unjudged ranks in the list (cut at K) plus p^min(K, n), every rank past it."""
    value = residual = 0.0
    shown = grades[:k]
    for rank, grade in enumerate(shown, start=1):
        weight = (1.0 - p) * p ** (rank - 1)
        if grade is None:
            residual += weight
        elif grade >= 1:
            value += weight
    return value, residual + p ** len(shown)


@SETTINGS
@given(
    case=cases(id_kinds=("str",), grades=(0, 1, 2, 3, 4, 5)),
    ks=ks_strategy,
    top=st.sampled_from([4, 3, 2.5]),
)
def test_err_matches_the_paper(case: dict[str, Any], ks: list[int], top: float) -> None:
    policy = rk.Policy(ties="item_asc", empty_truth="zero", err_max_grade=top)
    got = _ours(case, ks, policy, ["err"])
    want: ref.Result = {}
    for key, ranked in _ranked_lists(case).items():
        for k in ks:
            want[key, "err", k] = _err([g for _, g in ranked], k, top)
    _close(got, want, repr(case))


@SETTINGS
@given(case=cases(id_kinds=("str",)), ks=ks_strategy, p=st.sampled_from([0.8, 0.5, 0.95]))
def test_rbp_and_residual_match_the_paper(case: dict[str, Any], ks: list[int], p: float) -> None:
    policy = rk.Policy(ties="item_asc", empty_truth="zero", rbp_persistence=p)
    got = _ours(case, ks, policy, ["rbp", "rbp_residual"])
    want: ref.Result = {}
    for key, ranked in _ranked_lists(case).items():
        for k in ks:
            value, residual = _rbp([g for _, g in ranked], k, p)
            want[key, "rbp", k] = value
            want[key, "rbp_residual", k] = residual
    _close(got, want, repr(case))


@SETTINGS
@given(case=cases(id_kinds=("str",)), ks=ks_strategy, p=st.sampled_from([0.8, 0.5, 0.95]))
def test_rbp_and_residual_match_cwl_eval(case: dict[str, Any], ks: list[int], p: float) -> None:
    """cwl-eval's RBP (Moffat et al.'s C/W/L framework) scores a list cut at K: its lower bound
    gives unjudged ranks gain 0, its upper bound gives unjudged ranks and every rank past the
    list gain 1, and the residual is their difference. Gains are 0/1 (grade >= threshold)."""
    import numpy as np
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
    from cwl.ruler.ranking import Ranking

    policy = rk.Policy(ties="item_asc", empty_truth="zero", rbp_persistence=p)
    got = _ours(case, ks, policy, ["rbp", "rbp_residual"])
    want: ref.Result = {}
    for key, ranked in _ranked_lists(case).items():
        for k in ks:
            gains = [np.nan if g is None else float(g >= 1) for _, g in ranked[:k]]
            ranking = Ranking(str(key), np.array(gains, float), np.ones(len(gains)))
            metric = RBPCWLMetric(theta=p)
            metric.residuals = True
            metric.measure(ranking)
            want[key, "rbp", k] = float(metric.expected_utility)
            want[key, "rbp_residual", k] = float(metric.residual_expected_utility)
    _close(got, want, repr(case))


# --- policies and errors ----------------------------------------------------------------


def test_expected_ties_raise_for_err_and_bpref() -> None:
    cand = pl.DataFrame({"g": [1, 1], "item": [1, 2], "score": [1.0, 1.0]})
    truth = pl.DataFrame({"g": [1], "item": [1], "relevance": [1]})
    for metric in ("err", "bpref"):
        with pytest.raises(ValueError, match=f"{metric}.*ties='expected'"):
            rk.evaluate(
                cand, truth, k=2, group_by="g", metrics=[metric], policy=rk.Policy(ties="expected")
            )


def test_expected_ties_average_judged_and_rbp() -> None:
    # One tie block of two: an unjudged and a relevant item; each ordering is equally likely.
    cand = pl.DataFrame({"g": [1, 1], "item": [1, 2], "score": [1.0, 1.0]})
    truth = pl.DataFrame({"g": [1], "item": [1], "relevance": [1]})
    res = rk.evaluate(
        cand,
        truth,
        k=[1, 2],
        group_by="g",
        metrics=["judged", "rbp", "rbp_residual", "dcg"],
        policy=rk.Policy(ties="expected"),
    )
    got = ref.per_group_dict(res.per_group, ["g"])
    assert got[(1,), "judged", 1] == 0.5
    assert math.isclose(got[(1,), "rbp", 1], 0.5 * 0.2, abs_tol=TOL)
    assert math.isclose(got[(1,), "rbp", 2], 0.5 * (0.2 + 0.16), abs_tol=TOL)
    assert math.isclose(got[(1,), "rbp_residual", 2], 1 - 0.5 * (0.2 + 0.16), abs_tol=TOL)
    assert math.isclose(got[(1,), "dcg", 1], 0.5, abs_tol=TOL)


def test_condense_removes_unjudged_before_ranking() -> None:
    cand = pl.DataFrame({"g": [1, 1, 1], "item": [1, 2, 3], "score": [3.0, 2.0, 1.0]})
    truth = pl.DataFrame({"g": [1, 1], "item": [2, 3], "relevance": [0, 1]})
    keep = rk.evaluate(cand, truth, k=2, group_by="g", metrics=["precision", "judged"])
    condensed = rk.evaluate(
        cand,
        truth,
        k=2,
        group_by="g",
        metrics=["precision", "judged"],
        policy=rk.Policy(unjudged="condense"),
    )
    assert keep.per_group["value"].to_list() == [0.0, 0.5]
    assert condensed.per_group["value"].to_list() == [0.5, 1.0]
    assert condensed.groups["n_candidates"].to_list() == [2]


# --- every path gives evaluate's numbers ---------------------------------------------------------

IR_METRICS = ["dcg", "err", "rbp", "rbp_residual", "judged", "bpref"]
K_IR_METRICS = [name for name in IR_METRICS if name != "bpref"]
FLOW_POLICIES = [
    rk.Policy(),
    rk.Policy(unjudged="condense", rbp_persistence=0.9, err_max_grade=3, empty_truth="zero"),
]


def _flow_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Graded truth covering part of the candidates (unjudged rows), ties, repeats, groups
    without candidates."""
    from tests.core.test_invariance import _tables

    return _tables(seed=5, n_groups=40)


def _values(frame: pl.DataFrame, column: str = "value") -> dict[tuple[str, int | None], float]:
    return {(m, k): v for m, k, v in frame.select("metric", "k", column).iter_rows()}


def _same(got: dict[Any, float], want: dict[Any, float]) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=0, abs_tol=TOL), (key, got[key], value)


@pytest.mark.parametrize("policy", FLOW_POLICIES)
def test_k_curve_of_the_ir_measures_equals_evaluate(policy: rk.Policy) -> None:
    cand, truth = _flow_tables()
    # With a metric the sums over ranks do not give, the curve falls back to per-group values;
    # precision alone takes the fast path: both agree with evaluate.
    for metrics in ([*K_IR_METRICS, "precision"], ["precision"]):
        curve = rk.k_curve(
            {"A": cand}, truth, k_max=6, metrics=metrics, group_by="user", policy=policy, ci=False
        )
        res = rk.evaluate(
            cand, truth, k=range(1, 7), metrics=metrics, group_by="user", policy=policy
        )
        _same(_values(curve), _values(res.summary()))
    with pytest.raises(ValueError, match="bpref has no K"):
        rk.k_curve({"A": cand}, truth, k_max=3, metrics=["Bpref"], group_by="user")
    named = rk.k_curve({"A": cand}, truth, k_max=3, metrics=["ERR@2"], group_by="user", ci=False)
    assert set(named["metric"]) == {"err"}


@pytest.mark.parametrize("policy", FLOW_POLICIES)
def test_compare_and_distribution_of_the_ir_measures_equal_evaluate(policy: rk.Policy) -> None:
    cand, truth = _flow_tables()
    runs = {"A": cand, "B": cand.with_columns(score=-pl.col("score"))}
    results = {
        name: rk.evaluate(run, truth, k=[1, 5], metrics=IR_METRICS, group_by="user", policy=policy)
        for name, run in runs.items()
    }
    summaries = {name: _values(res.summary()) for name, res in results.items()}
    compared = rk.compare(results, n_resamples=50)
    assert set(compared["metric"]) == set(IR_METRICS)
    _same(_values(compared, "baseline_mean"), summaries["A"])
    _same(_values(compared, "mean"), summaries["B"])
    for name, res in results.items():
        _same(_values(rk.distribution(res), "mean"), summaries[name])


@pytest.mark.parametrize("policy", FLOW_POLICIES)
def test_buckets_give_evaluate_s_ir_measures(tmp_path: Path, policy: rk.Policy) -> None:
    from polars_rankk.engines.out_of_core import evaluate_in_partitions
    from tests.conftest import assert_same_values

    cand, truth = _flow_tables()
    expected = rk.evaluate(
        cand, truth, k=[1, 5], metrics=IR_METRICS, group_by="user", policy=policy
    )
    result = evaluate_in_partitions(
        cand.lazy(),
        truth.lazy(),
        output=tmp_path / "out",
        partitions=3,
        k=[1, 5],
        metrics=IR_METRICS,
        group_by="user",
        policy=policy,
    )
    assert_same_values(
        ref.per_group_dict(result.per_group.collect(), ["user"]),
        ref.per_group_dict(expected.per_group, ["user"]),
    )
    want = expected.summary().sort("metric", "k")
    assert result.summary().sort("metric", "k").select(want.columns).equals(want)


@pytest.mark.parametrize("policy", FLOW_POLICIES)
def test_dask_gives_evaluate_s_ir_measures(policy: rk.Policy) -> None:
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.core.evaluation.aggregate import order_metrics
    from polars_rankk.dask import evaluate_dask

    cand, truth = _flow_tables()
    expected = rk.evaluate(
        cand, truth, k=[1, 5], metrics=IR_METRICS, group_by="user", policy=policy
    )
    with dask.config.set(scheduler="threads", num_workers=2):
        result = evaluate_dask(
            dd.from_pandas(cand.to_pandas(), npartitions=3, sort=False),
            dd.from_pandas(truth.to_pandas(), npartitions=2, sort=False),
            npartitions=3,
            k=[1, 5],
            metrics=IR_METRICS,
            group_by="user",
            policy=policy,
            with_dropped=True,
        )
        per_group = pl.from_pandas(result.per_group.compute())
        summary = result.summary()
    order = ["user", "metric", "k"]
    assert per_group.sort(order, nulls_last=True).equals(
        expected.per_group.sort(order, nulls_last=True)
    )
    assert summary.equals(order_metrics(expected.summary()))
