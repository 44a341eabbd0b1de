"""trec_eval's further measures (`polars_rankk.core.metrics.families.trec_eval`) against
pytrec_eval, on generated runs full of ties, duplicates, short lists and empty truth.

pytrec_eval compiles trec_eval 9.x in; its conventions (duplicates merged, ``-c`` emulated,
ties by docno descending) are in tests/support/external_refs.py. Each measure is asked for by
trec_eval's name and its row written back in trec_eval's spelling, so the names are checked
both ways too. Where trec_eval 9.x and 10 define a measure differently (9.x rounds the recall
levels of iprec_at_recall and 11pt_avg by adding 0.9 and truncating, 10 by lround) the
comparison is against trec_eval 10's own files (tests/core/test_trec_eval_conformance.py).
Also: the kernel and pure Polars agree on every new measure, and the K-curve of the ones
with a K equals ``evaluate(k=K)`` at every K.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.metrics.families import trec_eval as family
from polars_rankk.core.metrics.families import trec_gain as gain_family
from polars_rankk.core.metrics.terms import IPREC_LEVELS
from polars_rankk.core.names.parse import render_name
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.external_refs import _trec_order, trec_dicts
from tests.support.kernel_path import needs_kernel, path
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(60), derandomize=True, database=None)
TOL = 1e-12
#: pytrec_eval's names of the measures it shares with trec_eval 10 unchanged.
PYTREC_MEASURES = ("Rprec_mult", "infAP", "num_nonrel_judged_ret", "set_map")
PYTREC_MEASURES += ("set_relative_P", "utility", "binG", "G", "ndcg_rel", "Rndcg")
NEW_METRICS = [metric.name for metric in (*family.METRICS, *gain_family.METRICS)]


def _trec_names(ks: list[int]) -> list[str]:
    cuts = ",".join(str(k) for k in ks)
    return [*PYTREC_MEASURES, f"relative_P.{cuts}"]


def _pytrec_eval(case: dict[str, Any], ks: list[int], threshold: int) -> dict[Any, float]:
    import pytrec_eval

    qrels, run, key_of = trec_dicts(case)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(_trec_names(ks)), relevance_level=threshold
    )
    out: dict[Any, float] = {}
    for q, values in evaluator.evaluate(run).items():
        for name, value in values.items():
            # -c emulated by an empty run: trec_eval's interpolated precision divides 0 by 0
            # there, where trec_eval -c itself prints 0 (out.test.aqc, query 302).
            empty = not run[q] and math.isnan(value)
            out[key_of[q], name] = 0.0 if empty else value
    return out


@SETTINGS
@given(case=cases(), ks=st.lists(st.integers(1, 10), min_size=1, max_size=3, unique=True))
def test_trec_eval_measures_match_pytrec_eval(case: dict[str, Any], ks: list[int]) -> None:
    threshold = 1
    candidates, truth = frames(case)
    res = rk.evaluate(
        candidates,
        truth,
        k=ks,
        metrics=_trec_names(ks),
        group_by=case["group_by"],
        policy=rk.Policy.trec_eval(relevance_threshold=threshold),
    )
    got = {}
    per_group = res.per_group
    assert isinstance(per_group, pl.DataFrame)
    for row in per_group.iter_rows(named=True):
        key = tuple(row[c] for c in case["group_by"])
        name = render_name(row["metric"], row["k"], rk.Policy.trec_eval(), style="trec_eval")
        got[key, name] = row["value"]
    want = _pytrec_eval(case, ks, threshold)
    assert set(got) == set(want), (sorted(map(repr, set(got) ^ set(want)))[:10], case)
    bad = [
        (key, got[key], value)
        for key, value in want.items()
        if not math.isclose(got[key], value, rel_tol=TOL, abs_tol=TOL)
    ]
    assert not bad, (bad[:10], case)


@needs_kernel
@SETTINGS
@given(
    case=cases(),
    ks=st.lists(st.integers(1, 10), min_size=1, max_size=3, unique=True),
    policy=st.sampled_from(
        [rk.Policy.trec_eval(), rk.Policy(), rk.Policy(short_lists="observed", empty_truth="nan")]
    ),
)
def test_the_kernel_and_pure_polars_agree_on_every_new_measure(
    case: dict[str, Any], ks: list[int], policy: rk.Policy
) -> None:
    candidates, truth = frames(case)
    results = []
    for enabled in (True, False):
        with path(enabled):
            res = rk.evaluate(
                candidates,
                truth,
                k=ks,
                metrics=NEW_METRICS,
                group_by=case["group_by"],
                policy=policy,
            )
            results.append(ref.per_group_dict(res.per_group, case["group_by"]))
    ref.assert_results_equal(results[0], results[1], tol=TOL, context=repr(case))


@SETTINGS
@given(case=cases(), policy=st.sampled_from([rk.Policy.trec_eval(), rk.Policy()]))
def test_the_k_curve_equals_evaluate_at_every_k(case: dict[str, Any], policy: rk.Policy) -> None:
    candidates, truth = frames(case)
    # K-curves read only the default metrics from sums over ranks (polars_rankk.stats.rank_sums);
    # the others at each K from one evaluation: the curve must agree all the same.
    rank_summed = [m.name for m in family.METRICS if m.has_k and m.aggregate == "mean"]
    assert {"relative_precision", "unjudged"} <= set(rank_summed)
    with pytest.raises(ValueError, match="geometric mean"):
        rk.k_curve(candidates, truth, k_max=2, metrics=["gm_map"], group_by=case["group_by"])
    options: dict[str, Any] = {"group_by": case["group_by"], "policy": policy}
    curve = rk.k_curve(candidates, truth, k_max=6, ci=False, metrics=rank_summed, **options)
    for k in range(1, 7):
        summary = rk.evaluate(candidates, truth, k=k, metrics=rank_summed, **options).summary()
        joined = curve.filter(pl.col("k") == k).join(
            summary, on=["metric", "k"], how="full", suffix="_s"
        )
        for row in joined.iter_rows(named=True):
            a, b = row["value"], row["value_s"]
            if b is None or math.isnan(b):
                assert a is None or math.isnan(a), row
            else:
                assert math.isclose(a, b, abs_tol=TOL), (row, case)


def _iprec_v10(ranked: list[int], n_relevant: int) -> list[float]:
    """trec_eval 10's m_iprec_at_recall.c, line by line: `ranked` the relevance (0/1) of the
    retrieved docs in trec_eval order."""
    cutoffs = [math.floor(level * n_relevant + 0.5) for level in IPREC_LEVELS]  # lround
    values = [0.0] * len(cutoffs)
    rel_ret, num_ret = sum(ranked), len(ranked)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rel_ret:
        current -= 1
    int_precis = rel_ret / num_ret if num_ret else 0.0
    rel_so_far = rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if ranked[i - 1]:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


@SETTINGS
@given(case=cases(), threshold=st.sampled_from([1, 2]))
def test_interpolated_precision_matches_trec_eval_10(case: dict[str, Any], threshold: int) -> None:
    # pytrec_eval's trec_eval 9.x rounds the recall levels by + 0.9 and truncation; 10 by
    # lround: the reference is trec_eval 10's loop, transcribed above.
    qrels, run, key_of = trec_dicts(case)
    candidates, truth = frames(case)
    names = [f"iprec_at_recall_{level:.2f}" for level in IPREC_LEVELS]
    res = rk.evaluate(
        candidates, truth, metrics=[*names, "11pt_avg"], group_by=case["group_by"],
        policy=rk.Policy.trec_eval(relevance_threshold=threshold),
    )  # fmt: skip
    got = ref.per_group_dict(res.per_group, case["group_by"])
    want: ref.Result = {}
    for q, docs in run.items():
        if q not in qrels:
            continue  # a run query absent from the truth is not evaluated
        judged = qrels[q]
        ranked = [int(judged.get(d, 0) >= threshold) for d in _trec_order(docs)]
        values = _iprec_v10(ranked, sum(1 for g in judged.values() if g >= threshold))
        for level, value in zip(IPREC_LEVELS, values, strict=True):
            want[key_of[q], f"iprec_at_recall_{level:.2f}".replace(".", "_"), None] = value
        want[key_of[q], "eleven_point_precision", None] = sum(values) / len(values)
    ref.assert_results_equal(got, want, tol=TOL, context=repr(case))
