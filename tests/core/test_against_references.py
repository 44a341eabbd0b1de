"""``rk.evaluate`` against independent references, on generated data full of edge cases.

- pytrec_eval (trec_eval compiled) under ``Policy.trec_eval()``;
- ir-measures' MS MARCO RR provider (ties by doc id ascending) and its pytrec_eval nDCG with
  a gain map (exponential gain);
- ranx (numba), on tie-free data;
- tests/support/reference.py (brute force from docs/definitions.md, itself checked in
  test_reference_selfcheck.py) under random combinations of every Policy field.

Every comparison is per group, ``{(group_keys, metric, k): value}``: same key set (row
presence is part of the contract), values within 1e-12, NaN equal to NaN.
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
from tests.support.external_refs import pytrec_eval_results, trec_dicts
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(80), derandomize=True, database=None)
TOL = 1e-12

ks_strategy = st.lists(st.integers(1, 10), min_size=1, max_size=4, unique=True)


def _core(case: dict[str, Any], ks: list[int], policy: rk.Policy, **kwargs: Any) -> ref.Result:
    cand, truth = frames(case)
    res = rk.evaluate(cand, truth, k=ks, group_by=case["group_by"], policy=policy, **kwargs)
    assert isinstance(res.per_group, pl.DataFrame)
    return ref.per_group_dict(res.per_group, case["group_by"])


# --- pytrec_eval ------------------------------------------------------------------------------


@SETTINGS
@given(case=cases(), ks=ks_strategy, threshold=st.sampled_from([1, 2, 3]))
def test_trec_eval_policy_matches_pytrec_eval(
    case: dict[str, Any], ks: list[int], threshold: int
) -> None:
    # Conventions of the pytrec_eval side (duplicates -> highest score, -c emulated with an
    # empty run, mrr@K on the run cut at K, f1 from P and recall): see external_refs.py.
    got = _core(case, ks, rk.Policy.trec_eval(relevance_threshold=threshold))
    want = pytrec_eval_results(case, ks, threshold)
    ref.assert_results_equal(got, want, tol=TOL, context=repr(case))


# --- ir-measures --------------------------------------------------------------------------------


@SETTINGS
@given(case=cases(), ks=ks_strategy)
def test_exponential_gain_matches_ir_measures_gain_map(case: dict[str, Any], ks: list[int]) -> None:
    # ir-measures' nDCG(gains=...) maps each qrels grade through the dict, then runs
    # trec_eval's ndcg_cut (linear in the mapped grade): {g: 2**g - 1} is exponential gain.
    import ir_measures
    from ir_measures import nDCG

    qrels, run, key_of = trec_dicts(case)
    gains = {g: 2**g - 1 for g in range(4)}
    measures = [nDCG(cutoff=k, gains=gains) for k in ks]
    want: ref.Result = {}
    for metric in ir_measures.pytrec_eval.iter_calc(measures, qrels, run):
        want[key_of[metric.query_id], "ndcg", metric.measure["cutoff"]] = metric.value
    got = _core(case, ks, rk.Policy.trec_eval(gain="exponential"), metrics=["ndcg"])
    ref.assert_results_equal(got, want, tol=TOL, context=repr(case))


@SETTINGS
@given(case=cases(id_kinds=("str",)), ks=ks_strategy)
def test_item_asc_mrr_matches_msmarco(case: dict[str, Any], ks: list[int]) -> None:
    # MS MARCO's RR (via ir-measures) sorts by (-score, doc_id): ties by id ascending, which is
    # ties="item_asc" for string ids. It reports only queries that have results and at least
    # one relevant judgment, so the comparison is restricted to those groups.
    import ir_measures
    from ir_measures import RR

    qrels, run, key_of = trec_dicts(case)
    run = {q: docs for q, docs in run.items() if docs}
    want: ref.Result = {}
    for metric in ir_measures.msmarco.iter_calc([RR(cutoff=k) for k in ks], qrels, run):
        want[key_of[metric.query_id], "mrr", metric.measure["cutoff"]] = metric.value
    got = _core(case, ks, rk.Policy.trec_eval(ties="item_asc"), metrics=["mrr"])
    reported = {key for key, _, _ in want}
    got = {k: v for k, v in got.items() if k[0] in reported}
    ref.assert_results_equal(got, want, tol=TOL, context=repr(case))


# --- ranx ----------------------------------------------------------------------------------------


def test_matches_ranx_kernels_on_tie_free_data() -> None:
    """ranx's metric kernels on one batch of random tie-free groups.

    ranx's ``evaluate`` compiles its whole data-structure layer with numba (about a minute
    on a cold cache), so we call its per-query kernels directly (a few seconds): the qrels of a
    query as an ``[[doc, grade]]`` array sorted by grade descending (ranx sorts them so), the
    run as ``[[doc, score]]`` sorted by score descending. Conventions: ranx's own sort is an
    unstable argsort (so no ties here); ``_ndcg(..., jarvelin=True)`` is linear gain and
    ``jarvelin=False`` Burges' exponential gain, and both drop grades below ``rel_lvl`` from
    DCG and IDCG (the same as ours at threshold 1 only, so ndcg is compared at 1);
    ``mrr@k`` looks at the first k ranks; f1@k uses P = hits/k; groups with no relevant
    item score 0; a truth group without results is an empty array (trec_eval -c).
    """
    import random

    import numpy as np
    from ranx.metrics.f1 import _f1
    from ranx.metrics.ndcg import _ndcg
    from ranx.metrics.reciprocal_rank import _reciprocal_rank

    rng = random.Random(20240607)
    candidates, truth = [], []
    for g in range(300):
        n = rng.randint(0, 12)
        items = rng.sample(range(40), n)
        scores = rng.sample(range(1000), n)  # distinct: no ties
        if g % 17 != 3:  # some truth groups get no list
            candidates += [
                {"g": g, "item": i, "score": s / 7} for i, s in zip(items, scores, strict=True)
            ]
        judged = rng.sample(range(40), rng.randint(1, 8))
        truth += [{"g": g, "item": i, "relevance": rng.choice([0, 0, 1, 2, 3])} for i in judged]
    case = {"candidates": candidates, "truth": truth, "group_by": ["g"], "id_kind": "int"}
    ks = [1, 3, 5, 10]

    def arrays(g: int) -> tuple[np.ndarray, np.ndarray]:
        qrels = sorted(
            ((r["item"], r["relevance"]) for r in truth if r["g"] == g), key=lambda x: -x[1]
        )
        run = sorted(
            ((r["item"], r["score"]) for r in candidates if r["g"] == g), key=lambda x: -x[1]
        )
        return (
            np.array(qrels, dtype=np.float64).reshape(-1, 2),
            np.array(run, dtype=np.float64).reshape(-1, 2),
        )

    groups = sorted({r["g"] for r in truth})
    for threshold in (1, 2):
        want: ref.Result = {}
        want_exp: ref.Result = {}
        for g in groups:
            qrels, run = arrays(g)
            for k in ks:
                want[(g,), "f1", k] = _f1(qrels, run, k, threshold)
                want[(g,), "mrr", k] = _reciprocal_rank(qrels, run, k, threshold)
                if threshold == 1:
                    want[(g,), "ndcg", k] = _ndcg(qrels, run, k, 1, True)
                    want_exp[(g,), "ndcg", k] = _ndcg(qrels, run, k, 1, False)
        policy = rk.Policy.trec_eval(relevance_threshold=threshold)
        metrics = ["f1", "ndcg", "mrr"] if threshold == 1 else ["f1", "mrr"]
        ref.assert_results_equal(_core(case, ks, policy, metrics=metrics), want, tol=TOL)
        if threshold == 1:
            got_exp = _core(case, ks, policy.replace(gain="exponential"), metrics=["ndcg"])
            ref.assert_results_equal(got_exp, want_exp, tol=TOL)


# --- the brute-force reference under every policy ------------------------------------------

# "error" choices are drawn less often: a raising case only checks that both sides raise
policies = st.builds(
    rk.Policy,
    short_lists=st.sampled_from(["fixed", "observed", "skip"]),
    ap_denominator=st.sampled_from(["relevant", "min_k_relevant"]),
    duplicates=st.sampled_from(["first", "first", "keep", "keep", "error"]),
    ties=st.sampled_from(
        ["trec_eval", "item_asc", "input_order", "pessimistic", "optimistic", "expected"]
    ),
    empty_truth=st.sampled_from(["exclude", "zero", "nan"]),
    missing_groups=st.sampled_from(["zero", "zero", "exclude", "exclude", "error"]),
    pool=st.sampled_from(["all", "restrict"]),
    relevance_threshold=st.sampled_from([1, 2, 3, 0.5, 1.5]),
    gain=st.sampled_from(["linear", "exponential"]),
    invalid_scores=st.sampled_from(["error", "drop", "drop", "lowest", "lowest"]),
)
metric_subsets = st.one_of(
    st.none(), st.lists(st.sampled_from(ref.METRICS), min_size=1, max_size=4, unique=True)
)


def _compare_with_reference(
    case: dict[str, Any], ks: list[int], policy: rk.Policy, metrics: list[str] | None
) -> None:
    try:
        want = ref.evaluate(
            case["candidates"],
            case["truth"],
            ks,
            group_by=case["group_by"],
            policy=policy,
            metrics=metrics,
        )
    except ValueError as error:  # duplicates / missing_groups / invalid_scores = "error"
        # any ValueError: the messages differ from the reference's
        with pytest.raises(ValueError):  # noqa: PT011, PT012
            _core(case, ks, policy, metrics=metrics)
            pytest.fail(f"the reference raised {error!r}; the core did not")
        return
    got = _core(case, ks, policy, metrics=metrics)
    ref.assert_results_equal(got, want, tol=TOL, context=f"{policy}\n{case!r}")


@settings(deadline=None, max_examples=examples(100), derandomize=True, database=None)
@given(data=st.data(), ks=ks_strategy, policy=policies, metrics=metric_subsets)
def test_matches_reference_under_random_policies(
    data: st.DataObject, ks: list[int], policy: rk.Policy, metrics: list[str] | None
) -> None:
    # ties="expected" is checked by enumerating every ordering: keep tie blocks small there.
    small = policy.ties == "expected"
    case = data.draw(
        cases(
            max_candidates=6 if small else 8,
            grades=data.draw(st.sampled_from([(0, 1, 2, 3), (0, 0.5, 1, 1.5, 2.5)])),
            allow_invalid_scores=data.draw(st.booleans()),
            allow_truth_duplicates=True,
        ),
        label="case",
    )
    _compare_with_reference(case, ks, policy, metrics)


@SETTINGS
@given(data=st.data(), ks=ks_strategy)
def test_expected_ties_match_enumeration(data: st.DataObject, ks: list[int]) -> None:
    # Dedicated to ties="expected": few distinct scores, so big tie blocks (up to 6! orders).
    policy = data.draw(policies.map(lambda p: p.replace(ties="expected")), label="policy")
    case = data.draw(
        cases(max_candidates=6, scores=(0.0, 1.0), max_groups=3, allow_invalid_scores=True),
        label="case",
    )
    _compare_with_reference(case, ks, policy, None)


@SETTINGS
@given(data=st.data(), ks=ks_strategy, policy=policies)
def test_prelabelled_candidates_match_reference(
    data: st.DataObject, ks: list[int], policy: rk.Policy
) -> None:
    # truth=None: the candidates carry the relevance column and are their own truth. Each item
    # has one grade per group (a duplicated row repeats it), so "which copy's grade" never
    # matters.
    # (ties="expected" is covered above, on cases small enough to enumerate)
    policy = policy.replace(ties="trec_eval") if policy.ties == "expected" else policy
    # (invalid scores: see test_prelabelled_invalid_scores_keep_their_labels)
    case = data.draw(cases(), label="case")
    grade_of: dict[Any, int] = {}
    rows = []
    for row in case["candidates"]:
        key = (tuple(row[c] for c in case["group_by"]), row["item"])
        grade = grade_of.setdefault(key, data.draw(st.sampled_from([0, 1, 2, 3])))
        rows.append({**row, "relevance": grade})
    try:
        want = ref.evaluate(rows, None, ks, group_by=case["group_by"], policy=policy)
    except ValueError:
        with pytest.raises(ValueError):  # noqa: PT011
            _core_labelled(rows, case, ks, policy)
        return
    got = _core_labelled(rows, case, ks, policy)
    ref.assert_results_equal(got, want, tol=TOL, context=f"{policy}\n{rows!r}")


def _core_labelled(
    rows: list[dict[str, Any]], case: dict[str, Any], ks: list[int], policy: rk.Policy
) -> ref.Result:
    cand, _ = frames(case)
    cand = cand.with_columns(pl.Series("relevance", [r["relevance"] for r in rows], dtype=pl.Int64))
    res = rk.evaluate(cand, None, k=ks, group_by=case["group_by"], policy=policy)
    return ref.per_group_dict(res.per_group, case["group_by"])


@pytest.mark.parametrize("lazy", [False, True])
def test_negative_grades_gain_nothing(lazy: bool) -> None:
    # docs/definitions.md §1: "Negative grades … gain 0" (trec_eval qrels use -1 for
    # "judged, not relevant"; qrels.rel_level holds 304 of them).
    cand = pl.DataFrame({"g": [1, 1, 1], "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    truth = pl.DataFrame({"g": [1, 1, 1], "item": ["a", "b", "z"], "relevance": [-1, 2, -1]})
    policy = rk.Policy.trec_eval()
    want = ref.evaluate(
        cand.rows(named=True), truth.rows(named=True), [1, 2, 3], group_by="g", policy=policy
    )
    inputs = (cand.lazy(), truth.lazy()) if lazy else (cand, truth)
    res = rk.evaluate(*inputs, k=[1, 2, 3], group_by="g", policy=policy)
    per_group = res.per_group.collect() if lazy else res.per_group
    ref.assert_results_equal(ref.per_group_dict(per_group, "g"), want, tol=TOL)
    assert math.isclose(want[(1,), "ndcg", 3], 1 / math.log2(3))  # (2 / log2 3) / 2


def test_prelabelled_invalid_scores_keep_their_labels() -> None:
    # With truth=None the labelled candidates are the truth. A row dropped for its invalid
    # score leaves the ranking, but its label still says the item is relevant: R_g counts it
    # (as it would if the same label came in a truth table). Otherwise a model that emits NaN
    # for a relevant item would see its recall go up.
    cand = pl.DataFrame(
        {
            "g": [1, 1, 1],
            "item": ["a", "b", "c"],
            "score": [float("nan"), 0.5, 0.2],
            "relevance": [1, 1, 0],
        }
    )
    policy = rk.Policy(invalid_scores="drop")
    want = ref.evaluate(cand.rows(named=True), None, [2], group_by="g", policy=policy)
    assert want[(1,), "recall", 2] == 0.5
    truth = cand.select("g", "item", "relevance")
    with_truth = rk.evaluate(cand.drop("relevance"), truth, k=2, group_by="g", policy=policy)
    ref.assert_results_equal(ref.per_group_dict(with_truth.per_group, "g"), want, tol=TOL)
    labelled = rk.evaluate(cand, None, k=2, group_by="g", policy=policy)
    ref.assert_results_equal(ref.per_group_dict(labelled.per_group, "g"), want, tol=TOL)
