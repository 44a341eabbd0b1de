"""The subtopic (diversity) metrics against ndeval, per query: pyndeval directly and through
ir_measures' pyndeval provider.

Hypothesis draws diversity qrels (several subtopics per query, grades 0-2, judged non-relevant
items, queries without a relevant subtopic) and runs full of tied scores, unjudged items and
repeated items. pyndeval ranks by (-score, docno) — ``ties="item_asc"`` on string ids — and
scores a query without a relevant subtopic 0 (``empty_truth="zero"``); it reads a run as one
row per document, so it is given each item's highest score (``duplicates="first"``, which keeps
the highest-scored copy). pyndeval evaluates the queries in both the qrels and the run, and
only cut-offs up to 20. Spark and Dask against `rk.evaluate` on these cases:
tests/engines/test_dask_diversity.py and test_spark_diversity.py.
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
from polars_rankk.core.names.parse import parse_metric_name, render_name
from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.support.examples import examples

pyndeval = pytest.importorskip("pyndeval")

SETTINGS = settings(deadline=None, max_examples=examples(60), derandomize=True, database=None)
TOL = 1e-12
DATA = Path(__file__).parent.parent / "support" / "data" / "diversity"
POLICY = rk.Policy(ties="item_asc", empty_truth="zero")

#: Our spelling -> pyndeval's, {k} the cut-off.
NAMES = {
    "alpha_nDCG@{k}": "alpha-nDCG@{k}",
    "alpha_DCG@{k}": "alpha-DCG@{k}",
    "ERR_IA@{k}": "ERR-IA@{k}",
    "nERR_IA@{k}": "nERR-IA@{k}",
    "P_IA@{k}": "P-IA@{k}",
    "StRecall@{k}": "strec@{k}",
}
WHOLE = {"AP_IA": "MAP-IA", "NRBP": "NRBP", "nNRBP": "nNRBP"}


@st.composite
def diversity_cases(draw: st.DrawFn) -> dict[str, Any]:
    queries = draw(st.integers(1, 4))
    qrels: list[tuple[str, str, str, int]] = []
    run: list[tuple[str, str, float]] = []
    for q in range(queries):
        subtopics = draw(st.integers(1, 4))
        for s in range(subtopics):
            items = draw(st.lists(st.integers(0, 7), max_size=6, unique=True))
            for i in items:
                qrels.append((f"q{q}", str(s + 1), f"d{i}", draw(st.integers(0, 2))))
        if not any(row[0] == f"q{q}" for row in qrels):
            qrels.append((f"q{q}", "1", "d0", 0))
        # Items d8 and d9 are never judged; scores from a small set tie often; repeats.
        ranked = draw(st.lists(st.integers(0, 9), min_size=1, max_size=12))
        for i in ranked:
            run.append((f"q{q}", f"d{i}", float(draw(st.integers(0, 3)))))
    return {"qrels": qrels, "run": run}


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    truth = pl.DataFrame(
        case["qrels"], schema=["query", "subtopic", "item", "relevance"], orient="row"
    )
    run = pl.DataFrame(case["run"], schema=["query", "item", "score"], orient="row")
    return run, truth


def _ndeval(
    case: dict[str, Any], names: list[str], alpha: float, beta: float, judged_only: bool = False
) -> dict[str, Any]:
    run, truth = _frames(case)
    best = run.group_by("query", "item").agg(pl.col("score").max()).sort("query", "item")
    if judged_only:
        # ir_measures' judged_only=True: the run keeps the (query, doc) pairs the qrels judge.
        best = best.join(truth.select("query", "item").unique(), on=["query", "item"], how="semi")
    evaluator = pyndeval.RelevanceEvaluator(case["qrels"], names, alpha=alpha, beta=beta)
    return evaluator.evaluate(list(best.iter_rows()))  # type: ignore[no-any-return]


def _ours(
    run: Any, truth: Any, names: list[str], policy: rk.Policy
) -> dict[tuple[str, str], float]:
    res = rk.evaluate(
        run, truth, group_by="query", metrics=names, subtopic="subtopic", policy=policy, k=1
    )
    per_group = res.per_group
    if isinstance(per_group, pl.LazyFrame):
        per_group = per_group.collect()
    return {
        (row["query"], row["metric"] + ("" if row["k"] is None else f"@{row['k']}")): row["value"]
        for row in per_group.iter_rows(named=True)
    }


_CANONICAL = {
    "alpha-nDCG": "alpha_ndcg",
    "alpha-DCG": "alpha_dcg",
    "ERR-IA": "err_ia",
    "nERR-IA": "nerr_ia",
    "P-IA": "p_ia",
    "strec": "st_recall",
    "MAP-IA": "ap_ia",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
}


def _compare(ours: dict[tuple[str, str], float], want: dict[str, Any]) -> None:
    # pyndeval evaluates the queries in both the qrels and the run (judged_only may empty a run).
    for query, values in want.items():
        for name, value in values.items():
            base, _, k = name.partition("@")
            key = (query, _CANONICAL[base] + (f"@{k}" if k else ""))
            assert key in ours, key
            if math.isnan(value):
                # ndeval's nNRBP of a query without a relevant subtopic: 0 / 0 (its ideal's
                # NRBP is 0); here the empty-truth policy's 0 as every subtopic metric.
                assert base == "nNRBP", key
                assert ours[key] == 0.0, (key, ours[key])
                assert ours.get((query, "nrbp"), 0.0) == 0.0, key
                continue
            assert abs(ours[key] - value) <= TOL, (key, ours[key], value)


@SETTINGS
@given(
    case=diversity_cases(),
    ks=st.lists(st.integers(1, 20), min_size=1, max_size=3, unique=True),
    alpha=st.sampled_from([0.5, 0.3, 0.9, 1.0]),
    beta=st.sampled_from([0.5, 0.8]),
    judged_only=st.booleans(),
)
def test_every_subtopic_metric_equals_ndeval_per_query(
    case: dict[str, Any], ks: list[int], alpha: float, beta: float, judged_only: bool
) -> None:
    theirs = [name.format(k=k) for name in NAMES.values() for k in ks] + list(WHOLE.values())
    want = _ndeval(case, theirs, alpha, beta, judged_only)
    ours_names = [name.format(k=k) for name in NAMES for k in ks] + list(WHOLE)
    policy = POLICY.replace(diversity_alpha=alpha, nrbp_beta=beta)
    if judged_only:
        policy = policy.replace(unjudged="condense")
    run, truth = _frames(case)
    _compare(_ours(run, truth, ours_names, policy), want)
    # Lazily, the same numbers.
    _compare(_ours(run.lazy(), truth.lazy(), ours_names, policy), want)


def test_ir_measures_spellings_equal_ir_measures_through_pyndeval() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    run, truth = _frames(
        {
            "qrels": [
                ("q1", "1", "a", 1),
                ("q1", "1", "b", 1),
                ("q1", "2", "a", 1),
                ("q1", "2", "c", 2),
                ("q1", "3", "d", 1),
                ("q1", "3", "e", 0),
                ("q2", "1", "x", 1),
                ("q2", "2", "y", 1),
                ("q3", "1", "m", 0),
            ],
            "run": [
                ("q1", "a", 5.0),
                ("q1", "b", 4.0),
                ("q1", "c", 4.0),
                ("q1", "g", 2.0),
                ("q1", "d", 1.0),
                ("q2", "y", 3.0),
                ("q2", "z", 2.0),
                ("q2", "x", 1.0),
                ("q3", "m", 1.0),
            ],
        }
    )
    names = [
        "alpha_nDCG(alpha=0.3,judged_only=False)@5",
        "ERR_IA@3",
        "nERR_IA@3",
        "P_IA@2",
        "AP_IA",
        "StRecall@2",
        "NRBP(alpha=0.3,beta=0.7)",
        "nNRBP(alpha=0.3,beta=0.7)",
        "nNRBP",
        "alpha_DCG(alpha=0.3)@4",
        "P_IA(rel=2)@3",
        "nERR_IA(rel=2)@3",
    ]
    qrels = truth.rename({"query": "query_id", "subtopic": "iteration", "item": "doc_id"})
    scored = run.rename({"query": "query_id", "item": "doc_id"})
    parsed = [ir_measures.parse_measure(name) for name in names]
    # One measure per call: the provider reads the run once per (alpha, beta, rel) invocation.
    want = {
        (m.query_id, str(m.measure)): m.value
        for measure in parsed
        for m in ir_measures.pyndeval.iter_calc([measure], qrels.to_pandas(), scored.to_pandas())
    }
    for name, measure in zip(names, parsed, strict=True):
        request = rk.evaluate(
            run, truth, group_by="query", metrics=[name], subtopic="subtopic", policy=POLICY, k=1
        )
        canonical = parse_metric_name(name)
        # A name whose parameters the policy does not set is labelled as typed.
        label = name.split("@")[0] if canonical.policy else canonical.metric
        rows = request.per_group.filter(
            pl.col("metric") == label, pl.col("k").eq_missing(canonical.k)
        )
        got = dict(rows.select("query", "value").iter_rows())
        for query in ("q1", "q2", "q3"):
            value = want[(query, str(measure))]
            if math.isnan(value):  # nNRBP of q3, no relevant subtopic: ndeval's 0 / 0
                assert (name, query, got[query]) == (name, "q3", 0.0)
                continue
            assert abs(got[query] - value) <= TOL, (name, query)


def test_the_fixed_diversity_files_equal_ndeval() -> None:
    truth = read_trec_qrels(DATA / "qrels.txt", subtopics=True)
    run = read_trec_run(DATA / "run.txt")
    names = [name.format(k=k) for name in NAMES for k in (1, 5, 10, 20)] + list(WHOLE)
    ours = _ours(run.collect(), truth.collect(), names, POLICY)
    qrels = [tuple(row) for row in truth.collect().iter_rows()]
    theirs = [name.format(k=k) for name in NAMES.values() for k in (1, 5, 10, 20)]
    evaluator = pyndeval.RelevanceEvaluator(qrels, [*theirs, *WHOLE.values()])
    scored = run.select("query", "item", "score").collect().sort("query", "item")
    want = evaluator.evaluate(list(scored.iter_rows()))
    assert len(want) == 5
    _compare(ours, want)


def test_a_subtopic_metric_without_subtopics_is_refused_in_words() -> None:
    run, truth = _frames({"qrels": [("q1", "1", "a", 1)], "run": [("q1", "a", 1.0)]})
    with pytest.raises(ValueError, match="subtopic= "):
        rk.evaluate(run, truth.drop("subtopic"), group_by="query", metrics=["alpha_nDCG@5"])
    with pytest.raises(ValueError, match="'intent'"):
        rk.evaluate(run, truth, group_by="query", metrics=["ERR_IA@5"], subtopic="intent")


def test_a_null_subtopic_is_refused_naming_the_column_and_a_row() -> None:
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    truth = pl.DataFrame(
        {"query": ["q1", "q1"], "subtopic": ["1", None], "item": ["a", "b"], "relevance": [1, 1]}
    )
    with pytest.raises(ValueError, match=r"'subtopic'.*null.*'item': 'b'"):
        rk.evaluate(run, truth, group_by="query", metrics=["P_IA@5"], subtopic="subtopic")


def test_other_metrics_read_an_items_largest_grade_over_subtopics() -> None:
    run = pl.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [2.0, 1.0]})
    truth = pl.DataFrame(
        {
            "query": ["q1"] * 3,
            "subtopic": ["1", "2", "2"],
            "item": ["a", "a", "b"],
            "relevance": [0, 2, 1],
        }
    )
    both = rk.evaluate(
        run, truth, group_by="query", k=2, metrics=["ndcg", "P_IA@2"], subtopic="subtopic"
    )
    collapsed = pl.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "relevance": [2, 1]})
    plain = rk.evaluate(run, collapsed, group_by="query", k=2, metrics=["ndcg"])
    got = both.per_group.filter(pl.col("metric") == "ndcg")["value"].to_list()
    assert got == plain.per_group["value"].to_list()
    # P-IA@2: (a covers subtopic 2, b covers subtopic 2) / (2 ranks x 1 subtopic).
    assert both.per_group.filter(pl.col("metric") == "p_ia")["value"].to_list() == [1.0]


def test_names_written_back_read_as_the_same_metric() -> None:
    cases = [
        ("alpha_ndcg", 20),
        ("err_ia", 5),
        ("nerr_ia", 5),
        ("p_ia", 10),
        ("st_recall", 3),
        ("ap_ia", None),
        ("nrbp", None),
        ("nnrbp", None),
    ]
    for name, k in cases:
        written = render_name(name, k, POLICY)
        parsed = parse_metric_name(written)
        assert (parsed.metric, parsed.k) == (name, k), written
    assert render_name("alpha_ndcg", 20) == "alpha_ndcg@20"  # ndeval breaks ties otherwise
    assert render_name("ap_ia", None, POLICY) == "AP_IA"
    policy = POLICY.replace(diversity_alpha=0.3, nrbp_beta=0.7)
    assert render_name("alpha_ndcg", 20, policy) == "alpha_nDCG(alpha=0.3)@20"
    assert render_name("nrbp", None, policy) == "NRBP(alpha=0.3,beta=0.7)"
    assert render_name("nnrbp", None, policy) == "nNRBP(alpha=0.3,beta=0.7)"
    assert parse_metric_name("nNRBP(beta=0.7)").policy == {"nrbp_beta": 0.7}
    assert parse_metric_name("NRBP(alpha=0.3,beta=0.7)").policy == {
        "diversity_alpha": 0.3,
        "nrbp_beta": 0.7,
    }


def _two_systems() -> tuple[dict[str, Any], pl.DataFrame]:
    case = {
        "qrels": [
            (f"q{q}", str(s), f"d{(q + s * 3 + i) % 8}", 1)
            for q in range(6)
            for s in range(1, 4)
            for i in range(2)
        ],
        "run": [],
    }
    _, truth = _frames(case)
    runs = {}
    for system, shift in (("a", 0), ("b", 3)):
        runs[system] = pl.DataFrame(
            {
                "query": [f"q{q}" for q in range(6) for _ in range(8)],
                "item": [f"d{i}" for _ in range(6) for i in range(8)],
                "score": [float((i * 5 + shift + q) % 8) for q in range(6) for i in range(8)],
            }
        )
    return runs, truth


def test_compare_tables_and_the_report_read_subtopic_metrics(tmp_path: Path) -> None:
    runs, truth = _two_systems()
    names = ["alpha_nDCG@5", "ERR_IA@5", "AP_IA", "nNRBP", "ndcg"]
    evaluations = {
        name: rk.evaluate(run, truth, k=5, group_by="query", metrics=names, subtopic="subtopic")
        for name, run in runs.items()
    }
    compared = rk.compare(evaluations, baseline="a", n_resamples=50, n_permutations=50)
    assert {"alpha_ndcg", "err_ia", "ap_ia", "nnrbp", "ndcg"} <= set(compared["metric"])
    table = rk.systems_table(evaluations)
    assert "alpha_ndcg@5" in table.columns
    assert "ap_ia" in table.columns
    assert "the subtopic metrics ['alpha_ndcg', 'err_ia', 'ap_ia', 'nnrbp'] in pure Polars" in (
        evaluations["a"].diagnostics.path
    )
    summary = evaluations["a"].summary()
    assert {"alpha_ndcg", "ap_ia"} <= set(summary["metric"])
    path = rk.report(evaluations, path=tmp_path / "report.html", k=5, n_resamples=20)
    assert "alpha_ndcg" in Path(path).read_text()
    assert "nnrbp" in Path(path).read_text()


def test_one_evaluation_of_several_systems_scores_each_on_its_own() -> None:
    runs, truth = _two_systems()
    both = pl.concat([run.with_columns(pl.lit(name).alias("run")) for name, run in runs.items()])
    names = ["alpha_nDCG@5", "P_IA@5", "NRBP", "nNRBP"]
    together = rk.evaluate(
        both, truth, k=5, group_by="query", metrics=names, subtopic="subtopic", system="run"
    )
    for name, run in runs.items():
        alone = rk.evaluate(run, truth, k=5, group_by="query", metrics=names, subtopic="subtopic")
        mine = together.per_group.filter(pl.col("run") == name).drop("run")
        assert mine.sort("query", "metric", "k").equals(
            alone.per_group.sort("query", "metric", "k")
        )


def test_out_of_core_buckets_equal_evaluate(tmp_path: Path) -> None:
    runs, truth = _two_systems()
    # One parameter set for the subtopic measures: out of core evaluates one policy (AP_IA
    # reads no alpha: it goes with any).
    names = [
        "alpha_nDCG(alpha=0.3)@5", "nERR_IA(alpha=0.3)@5", "AP_IA",
        "nNRBP(alpha=0.3)", "ndcg",
    ]  # fmt: skip
    options: dict[str, Any] = {"group_by": "query", "metrics": names, "subtopic": "subtopic"}
    whole = rk.evaluate(runs["a"], truth, k=[2, 5], **options).per_group
    out = rk.evaluate_in_partitions(
        runs["a"],
        truth.with_columns(pl.col("query").cast(pl.Categorical)),
        k=[2, 5],
        output=tmp_path / "out",
        partitions=3,
        **options,
    )
    bucketed = out.per_group.collect()
    assert bucketed.schema == whole.schema
    assert sorted(bucketed.rows(), key=str) == sorted(whole.rows(), key=str)
    assert set(bucketed["metric"]) == {  # labelled as typed, where alpha is not the policy's
        "alpha_nDCG(alpha=0.3)",
        "nERR_IA(alpha=0.3)",
        "ap_ia",
        "nNRBP(alpha=0.3)",
        "ndcg",
    }


def test_the_command_reads_diversity_qrels_with_subtopic(tmp_path: Path) -> None:
    from polars_rankk.cli.app import main

    out = tmp_path / "summary.csv"
    names = "alpha_nDCG@5,ERR_IA@5,AP_IA,ndcg"
    arguments = [str(DATA / "run.txt"), str(DATA / "qrels.txt"), "--subtopic", "subtopic"]
    main(["evaluate", *arguments, "--metrics", names, "--k", "5", "--output", str(out)])
    summary = pl.read_csv(out)
    truth = read_trec_qrels(DATA / "qrels.txt", subtopics=True)
    run = read_trec_run(DATA / "run.txt")
    want = rk.evaluate(
        run, truth, k=5, group_by="query", metrics=names.split(","), subtopic="subtopic"
    ).summary()
    got = dict(zip(summary["metric"], summary["value"], strict=True))
    for metric, value in zip(want["metric"], want["value"], strict=True):
        assert abs(got[metric] - value) <= 1e-9, metric


@pytest.mark.parametrize("engine", ["buckets", "cli"])
def test_paths_without_subtopics_refuse_them_in_words(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, truth = _two_systems()
    run = runs["a"]
    if engine == "buckets":
        with pytest.raises(ValueError, match="need the truth's subtopic column"):
            rk.evaluate_in_partitions(
                run, truth, metrics=["alpha_nDCG@5"], group_by="query", output=tmp_path / "out"
            )
    else:
        from polars_rankk.cli.app import main

        run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
        rk.io.write_trec_run(run, run_path)
        qrels_path.write_text("q0 0 d1 1\n")
        with pytest.raises(SystemExit):
            main(["evaluate", str(run_path), str(qrels_path), "--metrics", "alpha_nDCG@5"])
        assert "need the truth's subtopic column" in capsys.readouterr().err


def _brute_force(
    qrels: list[tuple[str, str, str, int]], run: list[tuple[str, str, float]], k: int, alpha: float
) -> dict[tuple[str, str], float]:
    """ndeval's definitions at any K (ndeval itself stops at 20), written from ndeval.c:
    binary judgements, the greedy ideal (ties to the larger docno), K = 1 undivided."""
    out: dict[tuple[str, str], float] = {}
    for query in sorted({row[0] for row in qrels}):
        rel: dict[str, set[str]] = {}
        for q, sub, doc, grade in qrels:
            if q == query and grade >= 1:
                rel.setdefault(doc, set()).add(sub)
        subtopics = set().union(*rel.values()) if rel else set()
        best: dict[str, float] = {}
        for q, doc, score in run:
            if q == query:
                best[doc] = max(score, best.get(doc, score))
        if not best:
            continue
        ranking = sorted(best, key=lambda d: (-best[d], d))

        def gains(order: list[str], rel: dict[str, set[str]] = rel) -> list[float]:
            seen: dict[str, int] = {}
            result = []
            for doc in order[:k]:
                result.append(sum((1 - alpha) ** seen.get(s, 0) for s in sorted(rel.get(doc, ()))))
                for s in rel.get(doc, ()):
                    seen[s] = seen.get(s, 0) + 1
            return result

        ideal: list[str] = []
        left = set(rel)
        while left and len(ideal) < k:
            covered = {s: sum(s in rel[d] for d in ideal) for s in subtopics}
            scores = {d: round(sum((1 - alpha) ** covered[s] for s in rel[d]), 12) for d in left}
            pick = max(left, key=lambda d: (scores[d], d))
            ideal.append(pick)
            left.remove(pick)
        run_gains, ideal_gains = gains(ranking), gains(ideal)
        dcg = sum(g / math.log2(r + 2) for r, g in enumerate(run_gains))
        idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal_gains))
        err = sum(g / (r + 1) for r, g in enumerate(run_gains))
        ierr = sum(g / (r + 1) for r, g in enumerate(ideal_gains))
        hits = sum(len(rel.get(doc, ())) for doc in ranking[:k])
        covered = set().union(*(rel.get(doc, set()) for doc in ranking[:k]))
        n = len(subtopics)
        out[(query, f"alpha_ndcg@{k}")] = dcg / idcg if dcg > 0 else 0.0
        out[(query, f"nerr_ia@{k}")] = err / ierr if err > 0 else 0.0
        out[(query, f"p_ia@{k}")] = hits / (k * n) if n else 0.0
        out[(query, f"st_recall@{k}")] = len(covered) / n if n else 0.0
    return out


@SETTINGS
@given(
    queries=st.lists(
        st.tuples(
            st.lists(
                st.tuples(st.integers(1, 4), st.integers(0, 29), st.integers(0, 2)), max_size=40
            ),
            st.lists(st.tuples(st.integers(0, 34), st.integers(0, 5)), min_size=1, max_size=45),
        ),
        min_size=1,
        max_size=3,
    ),
    k=st.integers(21, 40),
    alpha=st.sampled_from([0.5, 0.3]),
)
def test_cutoffs_past_ndevals_twenty_equal_its_definitions(
    queries: list[Any], k: int, alpha: float
) -> None:
    qrels = {
        (f"q{q}", str(s), f"d{d:02d}"): g
        for q, (judged, _) in enumerate(queries)
        for s, d, g in judged
    }
    rows = [(*key, grade) for key, grade in qrels.items()]
    if not rows:
        return
    run = [
        (f"q{q}", f"d{d:02d}", float(x)) for q, (_, ranked) in enumerate(queries) for d, x in ranked
    ]
    truth = pl.DataFrame(rows, schema=["query", "subtopic", "item", "relevance"], orient="row")
    candidates = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    names = [f"{name}@{k}" for name in ("alpha_nDCG", "nERR_IA", "P_IA", "StRecall")]
    policy = POLICY.replace(diversity_alpha=alpha)
    ours = _ours(candidates, truth, names, policy)
    for key, value in _brute_force(rows, run, k, alpha).items():
        assert abs(ours[key] - value) <= 1e-12, (key, ours[key], value)


def test_bad_subtopic_truths_are_refused_naming_the_column() -> None:
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    options: dict[str, Any] = {"group_by": "query", "metrics": ["P_IA@2"], "subtopic": "subtopic"}
    nan = pl.DataFrame(
        {"query": ["q1"], "subtopic": ["1"], "item": ["a"], "relevance": [float("nan")]}
    )
    with pytest.raises(ValueError, match=r"'relevance' \(the grade\).*NaN.*'item': 'a'"):
        rk.evaluate(run, nan, **options)
    lists = pl.DataFrame({"query": ["q1"], "subtopic": ["1"], "item": [["a", "b"]]})
    with pytest.raises(ValueError, match="one row per \\(group, subtopic, item\\)"):
        rk.evaluate(run, lists, **options)
    with pytest.raises(ValueError, match="'item'"):
        rk.evaluate(run, nan.drop("item"), **options)
    with pytest.raises(ValueError, match="no truth"):
        rk.evaluate(run, None, **options)


def test_a_groups_nrbp_does_not_depend_on_the_other_groups() -> None:
    """NRBP of group q evaluated with group r and alone, to the last bit: Polars' ``pow`` of a
    one-row exponent multiplies where a longer one calls ``pow`` (they differed in the last bit,
    so Spark's and Dask's partitions changed the number); the powers are one ``exp`` now."""
    run = pl.DataFrame(
        {
            "query": ["q"] * 7 + ["r"] * 3,
            "item": [f"d{i}" for i in range(7)] + ["d0", "d1", "d2"],
            "score": [7.0, 6, 5, 4, 3, 2, 1, 3, 2, 1],
        }
    )
    truth = pl.DataFrame(
        {"query": ["q", "r", "r"], "subtopic": ["1", "1", "2"], "item": ["d6", "d1", "d2"]}
    )
    options: dict[str, Any] = {
        "group_by": "query",
        "metrics": ["NRBP(beta=0.7)"],
        "subtopic": "subtopic",
    }
    alone = pl.col("query") == "q"
    together = rk.evaluate(run, truth, **options).per_group.filter(alone)
    assert together.equals(rk.evaluate(run.filter(alone), truth.filter(alone), **options).per_group)


@pytest.mark.parametrize(("alpha", "beta"), [(0.5, 0.5), (0.3, 0.9), (1.0, 0.8)])
def test_nnrbp_reads_the_whole_greedy_ideal_as_ndeval(alpha: float, beta: float) -> None:
    """nNRBP asked alone, at K = 1, over an ideal of 36 relevant items (past ndeval's depth of
    20 and any K): its ideal is every relevant item greedily ranked, as ndeval's."""
    qrels = [
        ("q1", str(s), f"d{d:02d}", 1 if (d + s) % 3 else 0)
        for s in range(1, 5)
        for d in range(s, 54, 4 - s % 3)
    ] + [("q2", "1", "d01", 0), ("q3", "1", "d07", 1), ("q3", "2", "d07", 1)]
    run = [("q1", f"d{d:02d}", float(d % 5)) for d in range(0, 60, 2)]
    run += [("q2", "d01", 1.0), ("q3", "d00", 2.0), ("q3", "d07", 1.0)]
    case = {"qrels": qrels, "run": run}
    want = _ndeval(case, ["NRBP", "nNRBP"], alpha, beta)
    frames = _frames(case)
    relevant = frames[1].filter(pl.col("relevance") > 0, pl.col("query") == "q1")
    assert relevant["item"].n_unique() > 20
    policy = POLICY.replace(diversity_alpha=alpha, nrbp_beta=beta)
    for names in (["nNRBP"], ["nNRBP", "NRBP", "alpha_nDCG@3"]):
        compared = [name for name in names if name in WHOLE]
        asked = {query: {name: want[query][name] for name in compared} for query in want}
        _compare(_ours(*frames, names, policy), asked)
    assert 0.0 < want["q1"]["nNRBP"] < 1.0
    # q3: its one relevant item (two subtopics) at rank 2, at rank 1 in the ideal.
    assert want["q3"]["nNRBP"] == pytest.approx(beta)
