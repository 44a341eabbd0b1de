"""polars-rankk against trec_eval v10's own regression outputs (tests/data/trec_eval).

Each ``out.*`` file was printed by trec_eval on the files beside it (see the README there).
For every query and for the ``all`` line we compare, rounded to trec_eval's 4 decimals:

========================  ============================================
trec_eval                 polars-rankk (``Policy.trec_eval()``)
========================  ============================================
``P_k``                   ``precision@k``
``recall_k``              ``recall@k``
``ndcg_cut_k``            ``ndcg@k``
``map_cut_k``             ``average_precision@k``
``success_k``             ``hit_rate@k``
``recip_rank``            ``mrr@k`` with k longer than any list
``Rprec``                 ``r_precision``
``num_ret``, ``num_rel``  ``groups.n_candidates``, ``groups.n_relevant``
========================  ============================================

How the command-line flags are expressed:

- ``-c`` (a qrels query without results scores 0 and is averaged in) is
  ``missing_groups="zero"``, part of ``Policy.trec_eval()``; without ``-c`` trec_eval only
  reports queries that have results, which is ``missing_groups="exclude"``.
- ``-M100`` (only the first 100 results of each query, after sorting, are used) is a
  Polars window over the run before ``evaluate`` (:func:`trec_eval_files.top_m`); it also cuts
  the list ``recip_rank`` and ``Rprec`` see (query 301 has R = 474 but only 100 ranks).
- ``-l2`` is ``relevance_threshold=2``; ndcg_cut keeps using the raw grades.
- the ``all`` line is the macro mean over the reported queries (``summary()``).

qrels.rel_level holds grades of -1, which docs/definitions.md §1 says count as gain 0 (and not
relevant); the qrels are passed unchanged.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk
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

# trec_eval prints 4 decimals: our value rounded to 4 decimals must print the same digits
TOLERANCE = 5e-5 + 1e-9


def _evaluate(case: TrecEvalRun) -> rk.Evaluation:
    run = rk.read_trec_run(DATA / case.run)
    if case.max_results is not None:
        run = top_m(run, case.max_results)
    with_c = " -c" in case.command
    policy = rk.Policy.trec_eval(
        relevance_threshold=case.relevance_level,
        missing_groups="zero" if with_c else "exclude",
    )
    return rk.evaluate(
        run,
        rk.read_trec_qrels(DATA / case.qrels),
        k=[*TREC_CUTOFFS, *SUCCESS_CUTOFFS, UNCUT],
        group_by="query",
        item="item",
        score="score",
        relevance="relevance",
        policy=policy,
    )


@pytest.mark.parametrize("case", TREC_EVAL_RUNS, ids=lambda c: c.id)
def test_matches_trec_eval(case: TrecEvalRun) -> None:
    out = parse_trec_eval_output(DATA / case.out)
    expected = expected_values(out)
    result = _evaluate(case)
    per_group = result.per_group
    assert isinstance(per_group, pl.LazyFrame)  # lazy inputs give a lazy result
    got = {
        (row["query"], row["metric"], row["k"]): row["value"]
        for row in per_group.collect().iter_rows(named=True)
    }
    summary = result.summary()
    for row in summary.iter_rows(named=True):
        got["all", row["metric"], row["k"]] = row["value"]

    mismatches = []
    for key, want in sorted(expected.items(), key=repr):
        value = got.get(key)
        if value is None or abs(round(value, 4) - want) > TOLERANCE:
            mismatches.append(f"{key}: polars-rankk {value!r}, trec_eval {want}")
    assert not mismatches, f"{case.out} ({case.command}):\n" + "\n".join(mismatches)
    # 3 queries + all; 9 cut-offs x 4 measures + 3 success cut-offs + recip_rank + Rprec
    assert len(expected) == 4 * (9 * 4 + 3 + 2)

    queries = sorted({q for (_, q) in out if q != "all"})
    assert summary.filter(pl.col("metric") == "precision")["n_groups"].to_list() == [
        len(queries)
    ] * len({*TREC_CUTOFFS, *SUCCESS_CUTOFFS, UNCUT})


@pytest.mark.parametrize("case", TREC_EVAL_RUNS, ids=lambda c: c.id)
def test_counts_match_trec_eval(case: TrecEvalRun) -> None:
    out = parse_trec_eval_output(DATA / case.out)
    groups = _evaluate(case).groups
    groups = groups.collect() if isinstance(groups, pl.LazyFrame) else groups
    got = {row["query"]: row for row in groups.iter_rows(named=True)}
    queries = sorted({q for (_, q) in out if q != "all"})
    assert sorted(got) == queries
    for q in queries:
        assert got[q]["n_candidates"] == int(out["num_ret", q]), q
        assert got[q]["n_relevant"] == int(out["num_rel", q]), q


def test_without_c_only_queries_with_results_are_reported() -> None:
    # results.trunc has no line for query 302: with -c it scores 0 (out.test.aqc) ...
    aqc = parse_trec_eval_output(DATA / "out.test.aqc")
    assert aqc["num_ret", "302"] == "0"
    assert aqc["P_10", "302"] == "0.0000"
    # ... and missing_groups="exclude" (trec_eval without -c) leaves it out
    res = rk.evaluate(
        rk.read_trec_run(DATA / "results.trunc"),
        rk.read_trec_qrels(DATA / "qrels.test"),
        k=10,
        metrics="precision",
        group_by="query",
        policy=rk.Policy.trec_eval(missing_groups="exclude"),
    )
    assert sorted(res.per_group.collect()["query"].to_list()) == ["301", "303"]
