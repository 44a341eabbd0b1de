"""Validate tests/reference.py itself — against trec_eval's files, pytrec_eval and hand
calculations — so that the core can then be validated against the reference."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.external_refs import pytrec_eval_results
from tests.support.ranking_cases import cases
from tests.support.trec_eval_files import (
    DATA,
    SUCCESS_CUTOFFS,
    TREC_CUTOFFS,
    TREC_EVAL_RUNS,
    UNCUT,
    TrecEvalRun,
    expected_values,
    parse_trec_eval_output,
    top_m,
)

SETTINGS = settings(deadline=None, max_examples=examples(80), derandomize=True, database=None)


# --- trec_eval's own regression files -------------------------------------------------------


@pytest.mark.parametrize("case", TREC_EVAL_RUNS, ids=lambda c: c.id)
def test_reference_reproduces_trec_eval_files(case: TrecEvalRun) -> None:
    run = read_trec_run(DATA / case.run)
    if case.max_results is not None:
        run = top_m(run, case.max_results)
    qrels = read_trec_qrels(DATA / case.qrels)
    result = ref.evaluate(
        run.collect().rows(named=True),
        qrels.collect().rows(named=True),
        [*TREC_CUTOFFS, *SUCCESS_CUTOFFS, UNCUT],
        group_by="query",
        policy={**ref.TREC_EVAL_POLICY, "relevance_threshold": case.relevance_level},
    )
    expected = expected_values(parse_trec_eval_output(DATA / case.out))
    checked = 0
    for (query, metric, k), want in expected.items():
        if query == "all":
            values = [v for (key, m, kk), v in result.items() if m == metric and kk == k]
            got = math.fsum(values) / len(values)
        else:
            got = result[(query,), metric, k]
        assert abs(round(got, 4) - want) <= 5e-5 + 1e-9, (case.out, query, metric, k, got, want)
        checked += 1
    # 3 queries + "all", 9 cut-offs x 4 measures + 3 success + recip_rank + Rprec
    assert checked == 4 * (9 * 4 + 3 + 2)


# --- pytrec_eval on generated data ----------------------------------------------------------


@SETTINGS
@given(
    case=cases(),
    ks=st.lists(st.integers(1, 10), min_size=1, max_size=4, unique=True),
    threshold=st.sampled_from([1, 2, 3]),
)
def test_reference_matches_pytrec_eval(case: dict, ks: list[int], threshold: int) -> None:
    # pytrec_eval cannot hold duplicates (a run is a dict): it gets the highest score of each
    # item, which is what duplicates="first" keeps. Groups missing from the run get an empty
    # dict, which is how trec_eval -c scores them. See external_refs.py for the rest.
    policy = {**ref.TREC_EVAL_POLICY, "relevance_threshold": threshold}
    got = ref.evaluate(
        case["candidates"], case["truth"], ks, group_by=case["group_by"], policy=policy
    )
    want = pytrec_eval_results(case, ks, threshold)
    ref.assert_results_equal(got, want, context=repr(case))


# --- hand-computed examples for the policies trec_eval has no opinion on ---------------------

# One group "g": candidates a..e; truth b (grade 1) and d (grade 3), and x (grade 2) that the
# model never scored. Scores: a 0.9, b 0.5, c 0.5, d 0.5, e 0.1 — a three-way tie b, c, d.
CANDS = [
    ("g", "a", 0.9),
    ("g", "c", 0.5),
    ("g", "b", 0.5),
    ("g", "d", 0.5),
    ("g", "e", 0.1),
]
TRUTH = [("g", "b", 1), ("g", "d", 3), ("g", "x", 2)]


def _ranking_metric(ties: str, metric: str, k: int | None, **policy: object) -> float:
    result = ref.evaluate(CANDS, TRUTH, [k or 1], policy={"ties": ties, **policy})
    return result[("g",), metric, k]


@pytest.mark.parametrize(
    ("ties", "order"),
    [
        ("trec_eval", "adcbe"),  # d > c > b in byte order, descending
        ("item_asc", "abcde"),
        ("input_order", "acbde"),
        ("pessimistic", "acbde"),  # non-relevant c first, then b (grade 1), then d (grade 3)
        ("optimistic", "adbce"),  # d (3) then b (1) then c
    ],
)
def test_tie_orders(ties: str, order: str) -> None:
    first_relevant = min(i for i, it in enumerate(order, start=1) if it in "bd")
    assert _ranking_metric(ties, "mrr", 5) == 1 / first_relevant
    hits2 = sum(it in "bd" for it in order[:2])
    assert _ranking_metric(ties, "precision", 2) == hits2 / 2


def test_expected_ties_by_hand() -> None:
    # ranks 2-4 hold {b, c, d} in random order; rank 1 is a (not relevant).
    # hits@2: rank 2 is relevant with prob 2/3 -> E[P@2] = (2/3) / 2
    assert math.isclose(_ranking_metric("expected", "precision", 2), 1 / 3, rel_tol=1e-15)
    # first relevant rank: 2 w.p. 2/3, 3 w.p. 1/3 (c first, then b or d) -> E[RR]
    assert math.isclose(_ranking_metric("expected", "mrr", 5), 2 / 3 / 2 + 1 / 3 / 3)
    # R = 3 (b, d, x): hits within 3 ranks = relevant among ranks 2-3: E = 2 * (2/3) = 4/3
    assert math.isclose(_ranking_metric("expected", "r_precision", None), 4 / 9)


def test_ndcg_gain_and_ideal_by_hand() -> None:
    # trec order a d c b e: gains 0, 3, 0, 1, 0 (x = 2 is never ranked)
    dcg = 3 / math.log2(3) + 1 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert math.isclose(_ranking_metric("trec_eval", "ndcg", 5), dcg / idcg)
    dcg_exp = 7 / math.log2(3) + 1 / math.log2(5)
    idcg_exp = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    got = _ranking_metric("trec_eval", "ndcg", 5, gain="exponential")
    assert math.isclose(got, dcg_exp / idcg_exp)
    # pool="restrict" drops x from the ideal and from R
    idcg_restricted = 3 + 1 / math.log2(3)
    got = _ranking_metric("trec_eval", "ndcg", 5, pool="restrict")
    assert math.isclose(got, dcg / idcg_restricted)
    assert _ranking_metric("trec_eval", "recall", 5, pool="restrict") == 1.0
    assert _ranking_metric("trec_eval", "recall", 5) == 2 / 3


def test_threshold_keeps_low_grades_in_ndcg() -> None:
    # threshold 2: only d (3) and x (2) are relevant; b (grade 1) still gains in ndcg
    assert _ranking_metric("trec_eval", "recall", 5, relevance_threshold=2) == 1 / 2
    dcg = 3 / math.log2(3) + 1 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert math.isclose(_ranking_metric("trec_eval", "ndcg", 5, relevance_threshold=2), dcg / idcg)


def test_average_precision_denominators() -> None:
    # trec order a d c b e: relevant at ranks 2 and 4 -> precisions 1/2, 2/4; R = 3
    assert math.isclose(_ranking_metric("trec_eval", "average_precision", 5), (1 / 2 + 2 / 4) / 3)
    got = _ranking_metric("trec_eval", "average_precision", 2, ap_denominator="min_k_relevant")
    assert math.isclose(got, (1 / 2) / 2)


def test_short_lists_and_duplicates() -> None:
    cands = [("g", "b", 1.0), ("g", "b", 0.5), ("g", "c", 0.2)]
    truth = [("g", "b", 1)]
    fixed = ref.evaluate(cands, truth, [5], policy={"duplicates": "first"})
    assert fixed[("g",), "precision", 5] == 1 / 5
    observed = ref.evaluate(cands, truth, [5], policy={"short_lists": "observed"})
    assert observed[("g",), "precision", 5] == 1 / 2  # two ranked rows after de-duplication
    kept = ref.evaluate(cands, truth, [2, 5], policy={"duplicates": "keep"})
    assert kept[("g",), "precision", 2] == 1.0  # b counts at ranks 1 and 2
    assert kept[("g",), "average_precision", 2] == 2.0  # (1/1 + 2/2) / R, R = 1
    skipped = ref.evaluate(cands, truth, [2, 5], policy={"short_lists": "skip"})
    assert (("g",), "precision", 2) in skipped
    assert (("g",), "precision", 5) not in skipped
    assert skipped[("g",), "r_precision", None] == 1.0
    with pytest.raises(ValueError, match="duplicated"):
        ref.evaluate(cands, truth, [2], policy={"duplicates": "error"})


def test_empty_truth_and_missing_groups() -> None:
    cands = [("a", "x", 1.0)]
    truth = [("a", "y", 0), ("b", "y", 1)]  # a: no relevant item; b: no candidates
    zero = ref.evaluate(cands, truth, [1], policy=ref.TREC_EVAL_POLICY)
    assert {key for key, _, _ in zero} == {("a",), ("b",)}
    assert all(v == 0 for v in zero.values())
    nan = ref.evaluate(cands, truth, [1], policy={"empty_truth": "nan"})
    assert all(math.isnan(v) for (key, _, _), v in nan.items() if key == ("a",))
    assert all(v == 0 for (key, _, _), v in nan.items() if key == ("b",))
    assert {key for key, _, _ in ref.evaluate(cands, truth, [1])} == {("b",)}
    excluded = ref.evaluate(cands, truth, [1], policy={"missing_groups": "exclude"})
    assert excluded == {}
    skip = ref.evaluate(cands, truth, [1], policy={"short_lists": "skip"})
    assert skip == {(("b",), "r_precision", None): 0.0}
    with pytest.raises(ValueError, match="no candidates"):
        ref.evaluate(cands, truth, [1], policy={"missing_groups": "error"})


def test_invalid_scores() -> None:
    cands = [("g", "a", math.nan), ("g", "b", 0.1), ("g", "c", None)]
    truth = [("g", "a", 1)]
    with pytest.raises(ValueError, match="invalid score"):
        ref.evaluate(cands, truth, [1])
    lowest = ref.evaluate(cands, truth, [1, 3], policy={"invalid_scores": "lowest"})
    assert lowest[("g",), "mrr", 3] == 1 / 3  # b, then the tie {a, c}: c > a (trec_eval)
    dropped = ref.evaluate(cands, truth, [3], policy={"invalid_scores": "drop"})
    assert dropped[("g",), "mrr", 3] == 0.0


def test_truth_from_candidates() -> None:
    cands = [("g", "a", 0.9, 0), ("g", "b", 0.5, 2)]
    got = ref.evaluate(cands, None, [1, 2])
    assert got[("g",), "precision", 1] == 0.0
    assert got[("g",), "mrr", 2] == 0.5
    assert got[("g",), "r_precision", None] == 0.0


def test_frames_roundtrip_matches_rows() -> None:
    # the reference reads mapping rows and tuples the same way
    rows = [{"g": g, "item": it, "score": s} for g, it, s in CANDS]
    truth = [{"g": g, "item": it, "relevance": r} for g, it, r in TRUTH]
    assert ref.evaluate(rows, truth, [1, 3], group_by="g") == ref.evaluate(CANDS, TRUTH, [1, 3])
    assert ref.per_group_dict(
        pl.DataFrame({"g": ["g"], "metric": ["mrr"], "k": [1], "value": [1.0]}), "g"
    ) == {(("g",), "mrr", 1): 1.0}
