"""The names users type: ir_measures and trec_eval spellings parse to the registry."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.listing import ADDS_K, AcceptedName, accepted_names
from polars_rankk.core.names.parse import parse_metric_name
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.names.request import resolve_metric_names

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("metric_names", ROOT / "scripts/metric_names.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPELLINGS = {
    "P@5": ("precision", 5),
    "R@100": ("recall", 100),
    "nDCG@10": ("ndcg", 10),
    "AP@10": ("average_precision", 10),
    "AP": ("average_precision", None),
    "RR": ("mrr", None),
    "RR@10": ("mrr", 10),
    "Success@5": ("hit_rate", 5),
    "Rprec": ("r_precision", None),
    "Bpref": ("bpref", None),
    "ERR@20": ("err", 20),
    "RBP(p=0.9)@10": ("rbp", 10),
    "Judged@10": ("judged", 10),
    "nDCG(judged_only=True)@10": ("ndcg", 10),
    "P_5": ("precision", 5),
    "recall_100": ("recall", 100),
    "ndcg_cut_10": ("ndcg", 10),
    "map_cut_10": ("average_precision", 10),
    "map": ("average_precision", None),
    "recip_rank": ("mrr", None),
    "success_5": ("hit_rate", 5),
    "bpref": ("bpref", None),
}


@pytest.mark.parametrize("text", SPELLINGS)
def test_each_spelling_parses(text: str) -> None:
    request = parse_metric_name(text)
    assert (request.metric, request.k) == SPELLINGS[text]


@pytest.mark.parametrize("row", accepted_names(), ids=lambda row: f"{row.tool}:{row.spelling}")
def test_every_documented_spelling_parses_to_what_it_says(row: AcceptedName) -> None:
    spelling, _, metric, k = row
    request = parse_metric_name(spelling.replace("@K", "@7").replace("_K", "_7"))
    assert request.metric == metric
    assert request.k == (7 if k == ADDS_K else None)


def test_metric_names_doc_is_generated_and_up_to_date() -> None:
    generator = _generator()
    text = (ROOT / "docs" / "metric_names.md").read_text()
    assert text == generator.render(), "run: .venv/bin/python scripts/metric_names.py"
    assert generator.main(["--check"]) == 0
    for row in accepted_names():
        assert f"| `{row.spelling}` |" in text
    # Every parameter's example in the doc parses and sets the field it documents.
    for name, metric in REGISTRY.items():
        for parameter in metric.takes:
            example = generator.parameter_example(parameter, name)
            assert parameter.field in parse_metric_name(example).policy, example


def test_parameters_set_the_policy_of_their_measure() -> None:
    """A name's parameters set the policy its measure is evaluated under, over the policy
    given; a path that evaluates one policy says so when names ask for several."""
    _, ks, policy = resolve_metric_names(["RBP(p=0.9)@10", "RBP(p=0.9)@5"])
    assert ks == (5, 10)
    assert policy.rbp_persistence == 0.9
    with pytest.raises(ValueError, match="evaluated under different policies"):
        resolve_metric_names(["RBP(p=0.9)@10", "RBP(p=0.5)@10"])
    _, _, policy = resolve_metric_names(["RBP(p=0.9)@10"], rk.Policy(rbp_persistence=0.7))
    assert policy.rbp_persistence == 0.9
    with pytest.raises(ValueError, match="no cut-off"):
        parse_metric_name("Bpref@10")
    with pytest.raises(ValueError, match="unknown metric name 'accuracy'"):
        parse_metric_name("accuracy")


def test_evaluate_adds_named_cutoffs_and_renders_names_back() -> None:
    cand = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"q": [1], "item": [2], "relevance": [1]})
    res = rk.evaluate(cand, truth, k=1, group_by="q", metrics=["P@5", "ndcg_cut_2", "bpref"])
    assert res.ks == [1, 2, 5]
    with pytest.warns(UserWarning, match="bpref: ir_measures"):
        summary = res.summary(names="ir_measures")
    # trec_eval (under ir_measures' Bpref) skips negative grades; the default counts them.
    assert {"P@5", "nDCG@2", "bpref"} <= set(summary["metric"])
    trec = rk.evaluate(
        cand, truth, k=1, group_by="q", metrics=["P@5", "bpref"], policy=rk.Policy.trec_eval()
    )
    assert {"P@5", "Bpref"} <= set(trec.summary(names="ir_measures")["metric"])
    assert "ndcg_cut_2" in set(res.summary(names="trec_eval")["metric"])


# --- the rankk command and the report read the same names ----------------------------------------


def test_cli_accepts_the_names_users_type(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from polars.testing import assert_frame_equal

    from polars_rankk.io import read_trec_qrels, read_trec_run
    from tests.cli.running import QRELS, RUN, run_rankk

    names = "P@5,ndcg_cut_10,Bpref,RBP(p=0.9)@4"
    code, out, err = run_rankk(
        capsys, "evaluate", RUN, QRELS, "--k", "3", "--metrics", names, "--trec-eval", "-f", "csv"
    )
    assert code == 0, err
    expected = rk.evaluate(
        read_trec_run(RUN),
        read_trec_qrels(QRELS),
        k=3,
        metrics=names.split(","),
        group_by="query",
        policy=rk.Policy.trec_eval(),
    ).summary()
    got = pl.read_csv(io.StringIO(out))
    assert_frame_equal(got, expected, check_dtypes=False)
    # Each name is reported at its own cut-off; --k reads the names typed without one (none).
    assert sorted(set(got["k"].drop_nulls())) == [4, 5, 10]
    code, out, err = run_rankk(
        capsys, "compare", f"a={RUN}", f"b={RUN}", "--truth", QRELS, "--k", "3",
        "--metrics", "P@5,Bpref", "--n-resamples", "10", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    compared = pl.read_csv(io.StringIO(out))
    assert {("precision", 5), ("bpref", None)} <= set(compared.select("metric", "k").rows())
    code, _, err = run_rankk(capsys, "evaluate", RUN, QRELS, "--metrics", "Bpref@10")
    assert code == 1
    assert "--metrics: metric 'Bpref@10': bpref has no cut-off K" in err
    code, _, err = run_rankk(capsys, "evaluate", RUN, QRELS, "--metrics", "P@5,accuracy")
    assert code == 1
    assert "unknown metric 'accuracy'; choose among precision" in err


def test_report_accepts_the_names_users_type(tmp_path: Path) -> None:
    cand = pl.DataFrame(
        {"q": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5], "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
    )
    truth = pl.DataFrame({"q": [1, 1, 2], "item": [2, 3, 5], "relevance": [1, 0, 2]})
    systems = {"A": cand, "B": cand.with_columns(score=-pl.col("score"))}
    common: dict[str, Any] = {"k": [1, 2], "group_by": "q", "n_resamples": 20}
    page = rk.report(
        systems,
        truth,
        path=tmp_path / "report.html",
        metrics=["P@2", "nDCG@2", "Bpref", "ERR@2", "Judged@2"],
        **common,
    ).read_text()
    for name in ("precision", "ndcg", "bpref", "err", "judged"):
        assert name in page
    # The report compares systems measure by measure under one policy: a name asking for
    # another (condensed lists) is refused in words, never left out of the page.
    with pytest.raises(ValueError, match=r"'nDCG\(judged_only=True\)@2' and 'P@2' are evaluated"):
        rk.report(
            systems,
            truth,
            path=tmp_path / "other.html",
            metrics=["P@2", "nDCG(judged_only=True)@2"],
            **common,
        )


def _long_lists() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Lists of 12 items with relevant ones past K = 3, distinct scores (no tie order)."""
    rows = [(q, q * 100 + i, 12.0 - i + q / 10) for q in range(1, 6) for i in range(12)]
    cand = pl.DataFrame(rows, schema=["q", "item", "score"], orient="row")
    truth = pl.DataFrame(
        {
            "q": [1, 1, 2, 3, 3, 3, 4, 5],
            "item": [101, 111, 205, 300, 307, 399, 499, 511],
            "relevance": [1, 2, 1, 2, 1, 1, 1, 3],
        }
    )
    return cand, truth


@pytest.mark.parametrize(
    ("names", "measures"),
    [
        (["map", "recip_rank"], {"average_precision": "map", "mrr": "recip_rank"}),
        (["AP", "RR", "nDCG"], {"average_precision": "map", "mrr": "recip_rank", "ndcg": "ndcg"}),
    ],
)
@pytest.mark.parametrize("native", ["1", "0"])
def test_names_without_a_cutoff_mean_the_whole_list_as_in_pytrec_eval(
    names: list[str], measures: dict[str, str], native: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    monkeypatch.setenv("POLARS_RANKK_NATIVE", native)
    cand, truth = _long_lists()
    result = rk.evaluate(
        cand, truth, k=3, metrics=names, group_by="q", policy=rk.Policy(ties="trec_eval")
    )
    rows = result.per_group
    assert isinstance(rows, pl.DataFrame)
    from polars_rankk.core.kernel import loader as kernel

    if native == "0" or not kernel.status().loaded:
        assert result._prepared.path.startswith("native kernel: not used")
    else:
        assert result._prepared.path.startswith("native kernel: loaded")
    # Only the whole list: no row at the evaluation's K = 3.
    assert rows["k"].null_count() == rows.height
    assert set(rows["metric"]) == set(measures)
    qrels = {f"q{q}": {str(i): g for qq, i, g in truth.iter_rows() if qq == q} for q in range(1, 6)}
    run = {f"q{q}": {str(i): s for qq, i, s in cand.iter_rows() if qq == q} for q in range(1, 6)}
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(measures.values())).evaluate(run)
    for q, metric, _, value in rows.select("q", "metric", "k", "value").iter_rows():
        assert value == pytest.approx(expected[f"q{q}"][measures[metric]], abs=1e-12)
    # The same names with a cut-off stay cut.
    cut = rk.evaluate(cand, truth, k=3, metrics=["map_cut_3", "RR@3"], group_by="q")
    assert set(cut.per_group["k"]) == {3}


def test_names_without_a_cutoff_are_written_back_as_the_whole_list() -> None:
    cand, truth = _long_lists()
    result = rk.evaluate(
        cand, truth, k=3, metrics=["map", "recip_rank", "P@3"], group_by="q",
        policy=rk.Policy.trec_eval(),
    )  # fmt: skip
    trec = result.summary(names="trec_eval")
    assert {"map", "recip_rank", "P_3"} <= set(trec["metric"])
    ir = result.summary(names="ir_measures")
    assert {"AP", "RR", "P@3"} <= set(ir["metric"])


def test_canonical_names_without_a_cutoff_stay_at_the_evaluations_k() -> None:
    cand, truth = _long_lists()
    result = rk.evaluate(cand, truth, k=3, metrics=["average_precision", "mrr"], group_by="q")
    assert set(result.per_group["k"]) == {3}


def test_cli_map_without_a_cutoff_is_trec_evals_whole_list_map(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    from polars_rankk.io import read_trec_qrels, read_trec_run
    from tests.cli.running import QRELS, RUN, run_rankk

    pytrec_eval = pytest.importorskip("pytrec_eval")
    code, out, err = run_rankk(
        capsys, "evaluate", RUN, QRELS, "--k", "5", "--metrics", "map,recip_rank",
        "--trec-eval", "--negative-grades", "nonrelevant", "--per-group", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    rows = pl.read_csv(io.StringIO(out))
    assert rows["k"].null_count() == rows.height  # not map_cut_5
    qrels_frame = read_trec_qrels(QRELS).collect()
    run_frame = read_trec_run(RUN).collect()
    qrels: dict[str, dict[str, int]] = {}
    for query, item, grade in qrels_frame.select("query", "item", "relevance").iter_rows():
        qrels.setdefault(str(query), {})[str(item)] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for query, item, score in run_frame.select("query", "item", "score").iter_rows():
        run.setdefault(str(query), {})[str(item)] = float(score)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank"}).evaluate(run)
    measure = {"average_precision": "map", "mrr": "recip_rank"}
    checked = 0
    for query, metric, value in rows.select("query", "metric", "value").iter_rows():
        if str(query) in expected:
            assert value == pytest.approx(expected[str(query)][measure[metric]], abs=1e-12)
            checked += 1
    assert checked == rows.height > 0


def test_distributed_engines_refuse_whole_list_names_in_words() -> None:
    from polars_rankk.engines import partition

    schema = {"q": pl.Int64, "item": pl.Int64, "score": pl.Float64}
    truth = {"q": pl.Int64, "item": pl.Int64, "relevance": pl.Int64}
    options = {"group_by": "q", "item": "item", "score": "score"}
    whole = Plan.of(["map", "P@3"], 3, None)
    spec = partition.check_on_driver(
        schema, truth, k=whole.ks, metrics=whole.request, relevance="relevance",
        n_relevant=None, policy=None, order_by=None, **options,
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"names without a cut-off .*\(average_precision: "):
        partition.partition_job(spec, whole, None, with_dropped=False, check_values=False)
    plan = Plan.of(["map_cut_3"], 3, None)
    cut = partition.check_on_driver(
        schema, truth, k=plan.ks, metrics=plan.request, relevance="relevance", n_relevant=None,
        policy=None, order_by=None, **options,
    )  # fmt: skip
    job = partition.partition_job(cut, plan, None, with_dropped=False, check_values=False)
    assert job.ks == (3,)
