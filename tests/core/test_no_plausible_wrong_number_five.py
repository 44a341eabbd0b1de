"""Silent or raw answers found by a hostile pass and new users on real data, part five: each
test fails on the release before its fix and checks against an independent reference (ir_measures,
pytrec_eval, a brute force) or asserts a refusal or warning in words."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.names.conventions import ToolNameWarning

ir_measures = pytest.importorskip("ir_measures")

CANDIDATES = pl.DataFrame(
    {
        "q": ["1"] * 6 + ["2"] * 4,
        "item": ["a", "b", "c", "d", "e", "f", "a", "b", "c", "d"],
        "score": [6.0, 5, 4, 3, 2, 1, 4, 3, 2, 1],
    }
)
TRUTH = pl.DataFrame(
    {
        "q": ["1", "1", "1", "2", "2"],
        "item": ["b", "e", "z", "a", "d"],
        "relevance": [1, 2, 1, 1, 1],
    }
)


def _ir_measures(names: list[str]) -> dict[str, float]:
    """ir_measures' means of `names` on the tables above (no tie in a list)."""
    qrels = [ir_measures.Qrel(q, i, r) for q, i, r in TRUTH.iter_rows()]
    run = [ir_measures.ScoredDoc(q, i, s) for q, i, s in CANDIDATES.iter_rows()]
    measures = [ir_measures.parse_measure(name) for name in names]
    return {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}


def test_a_name_with_its_own_cut_off_is_read_at_it_only() -> None:
    """``P@5, R@1000, map`` gives the three measures asked, as ir_measures does (not P@1000
    and R@5 as well)."""
    res = rk.evaluate(CANDIDATES, TRUTH, metrics=["P@5", "R@1000", "map"], group_by="q")
    summary = res.summary(names="ir_measures")
    assert summary["metric"].to_list() == ["P@5", "R@1000", "AP"]
    want = _ir_measures(["P@5", "R@1000", "AP"])
    assert dict(summary.select("metric", "value").iter_rows()) == pytest.approx(want)
    # k= reaches only the names typed without one.
    res = rk.evaluate(CANDIDATES, TRUTH, k=[1, 3], metrics=["P@5", "R"], group_by="q")
    assert res.summary().select("metric", "k").rows() == [
        ("precision", 5),
        ("recall", 1),
        ("recall", 3),
    ]


@pytest.mark.parametrize(
    ("name", "policy", "key"),
    [
        ("RBP(rel=1)@5", rk.Policy(rbp_persistence=0.5), "p"),
        ("Compat", rk.Policy(compat_persistence=0.7), "p"),
        ("alpha_nDCG@5", rk.Policy(diversity_alpha=0.3), "alpha"),
    ],
)
def test_a_tool_name_leaving_a_parameter_out_says_which_value_was_used(
    name: str, policy: rk.Policy, key: str
) -> None:
    """A tool's name means that tool's default for a parameter it leaves out; where the
    policy sets another, a ToolNameWarning says which value was used and what to type."""
    from polars_rankk.core.names.conventions import warn_tool_conventions

    said = rf"its {key} defaults to .* is used here \(type {key}="
    with pytest.warns(ToolNameWarning, match=said):
        warn_tool_conventions([name], policy)
    with warnings.catch_warnings(record=True) as caught:  # the tool's own value: not said
        warnings.simplefilter("always")
        warn_tool_conventions([name], rk.Policy())
    assert not [w for w in caught if "defaults to" in str(w.message)]


def test_the_tool_default_typed_reproduces_ir_measures() -> None:
    """``RBP(rel=1,p=0.8)@5`` under a policy of p = 0.5 is ir_measures' RBP(rel=1)@5."""
    policy = rk.Policy(rbp_persistence=0.5, ties="input_order")
    res = rk.evaluate(CANDIDATES, TRUTH, metrics=["RBP(rel=1,p=0.8)"], group_by="q", k=1000,
                      policy=policy)  # fmt: skip
    want = _ir_measures(["RBP(rel=1)"])
    assert res.summary()["value"].to_list() == [pytest.approx(want["RBP(rel=1)"])]


def test_a_subtopic_metric_refused_by_a_path_points_to_what_computes_it() -> None:
    truth = TRUTH.with_columns(subtopic=pl.lit(1))
    with pytest.raises(ValueError, match=r"rk\.evaluate\(\.\.\., subtopic=\.\.\.\)"):
        rk.unjudged_bounds(CANDIDATES, truth, k=3, metrics=["alpha_ndcg"], group_by="q")
    with pytest.raises(ValueError, match=r"subtopic=\.\.\.\) and draw"):
        rk.k_curve({"a": CANDIDATES}, truth, k_max=3, metrics=["alpha_ndcg"], group_by="q")


def test_a_catalogue_metric_asked_alone_appears_in_the_summary_and_compare() -> None:
    """Coverage asked alone: its figure in ``summary()`` (every average) and a row per
    challenger in ``compare`` with both figures and their difference (brute force: distinct
    items shown in the top K over the catalogue)."""
    catalogue = pl.DataFrame({"item": list("abcdefghij")})
    other = CANDIDATES.with_columns(pl.col("item").replace({"a": "g", "b": "h"}))
    found = {
        name: rk.evaluate(run, TRUTH, k=2, metrics=["coverage"], group_by="q", catalogue=catalogue)
        for name, run in (("a", CANDIDATES), ("b", other))
    }

    def brute(run: pl.DataFrame) -> float:
        top = run.sort("score", descending=True).group_by("q").head(2)
        return top["item"].n_unique() / catalogue.height

    for average in ("macro", "micro", "weighted"):
        summary = found["a"].summary(
            average, weights="n_candidates" if average == "weighted" else None
        )  # type: ignore[arg-type]
        assert summary.select("metric", "k").rows() == [("coverage", 2)]
        assert summary["value"].to_list() == [pytest.approx(brute(CANDIDATES))]
    compared = rk.compare(found, baseline="a")
    row = compared.filter(pl.col("metric") == "coverage").row(0, named=True)
    assert (row["baseline_mean"], row["mean"]) == pytest.approx((brute(CANDIDATES), brute(other)))
    assert row["diff"] == pytest.approx(brute(other) - brute(CANDIDATES))
    assert row["p_value_t"] is None  # one figure per system: no paired test


def test_ids_beyond_int64_beside_int64_ones_keep_every_id_in_the_bounds() -> None:
    """UInt64 candidate ids past Int64 beside Int64 truth ids: `evaluate` and
    `unjudged_bounds` compare them as numbers (Int128), never wrapped nor a raw cast error
    (brute force: the big id is unjudged, so P@2 is 1/2 at worst and 2/2 at best)."""
    big = 2**63 + 5
    candidates = pl.DataFrame(
        {"q": [1, 1], "item": pl.Series([big, 7], dtype=pl.UInt64), "score": [1.0, 0.5]}
    )
    # The Int64 id that the big one wraps to must not match it.
    truth = pl.DataFrame({"q": [1, 1], "item": pl.Series([big - 2**64, 7], dtype=pl.Int64)})
    result = rk.evaluate(candidates, truth, k=2, metrics=["precision"], group_by="q")
    assert result.summary()["value"].to_list() == [0.5]
    bounds = rk.unjudged_bounds(candidates, truth, k=2, metrics=["precision"], group_by="q")
    assert bounds.summary.select("lower", "value", "upper").row(0) == (0.5, 0.5, 1.0)


def test_trec_evals_policy_reads_a_fractional_grade_as_trec_eval_does() -> None:
    """``Policy.trec_eval()`` truncates fractional grades toward zero (trec_eval reads a
    grade with ``atol``: 0.5 is 0, 1.7 is 1, -1.5 is -1), equal to pytrec_eval on the
    truncated qrels, counted in the diagnostics; ``Policy()`` keeps them as given."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth = TRUTH.with_columns(relevance=pl.Series([0.5, 1.7, -1.5, 2.0, 1.0]))
    measures = {"P_5", "ndcg_cut_5", "map"}
    qrels: dict[str, dict[str, int]] = {}
    for q, item, grade in truth.iter_rows():
        qrels.setdefault(q, {})[item] = int(grade)  # C's atol: toward zero
    run: dict[str, dict[str, float]] = {}
    for q, item, score in CANDIDATES.iter_rows():
        run.setdefault(q, {})[item] = score
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    want = {m: sum(q[m] for q in per_query.values()) / len(per_query) for m in measures}
    res = rk.evaluate(CANDIDATES, truth, metrics=sorted(measures), group_by="q",
                      policy=rk.Policy.trec_eval())  # fmt: skip
    got = dict(res.summary(names="trec_eval").select("metric", "value").iter_rows())
    assert got == pytest.approx(want, abs=1e-12)
    assert res.diagnostics.counts["fractional_grades_truncated"] == 3
    kept = rk.evaluate(CANDIDATES, truth, metrics=["ndcg_cut_5"], group_by="q")
    assert "fractional_grades_truncated" not in kept.diagnostics.counts
    assert kept.summary()["value"].item() != pytest.approx(want["ndcg_cut_5"])


def test_a_backslash_in_a_trec_id_matches_the_same_id_in_a_parquet_truth(tmp_path: Path) -> None:
    """``d\\1`` in a TREC run is the id ``d\\1`` of a Parquet (or CSV) truth: P@1 is 1, as
    trec_eval gives on the same ids in a qrels file (pytrec_eval), where it read 0 silently."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d\\1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n")
    truth_path = tmp_path / "truth.parquet"
    pl.DataFrame({"query": ["q1"], "item": ["d\\1"], "relevance": [1]}).write_parquet(truth_path)
    res = rk.evaluate(rk.read_trec_run(run), pl.scan_parquet(truth_path), k=1,
                      metrics="precision", group_by="query")  # fmt: skip
    evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d\\1": 1}}, {"P_1"})
    want = evaluator.evaluate({"q1": {"d\\1": 2.0, "d2": 1.0}})["q1"]["P_1"]
    assert want == 1.0
    assert res.collect().summary()["value"].to_list() == [want]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d\\1 1\n")
    assert rk.read_trec_qrels(qrels).collect()["item"].to_list() == ["d\\1"]


#: Text grade dtypes: String, and Categorical and Enum (which Polars refuses to cast).
TEXT_DTYPES = {"String": pl.String(), "Categorical": pl.Categorical(),
               "Enum": pl.Enum(["1", "2", "high"])}  # fmt: skip


@pytest.mark.parametrize("native", ["1", "0"])
@pytest.mark.parametrize("grades", [["1", "2", "1"], ["1", "high", None]])
@pytest.mark.parametrize("many", [False, True])
@pytest.mark.parametrize("dtype", list(TEXT_DTYPES))
def test_a_text_grade_column_is_refused_by_the_expressions_as_evaluate_refuses_it(
    monkeypatch: pytest.MonkeyPatch, native: str, grades: list[str | None], many: bool, dtype: str
) -> None:
    """A String, Categorical or Enum relevance column: `evaluate` refuses it naming the column
    and the expectation; the expressions refuse it in the same words with a grade and its item,
    where '1', '2' were read as numbers silently and 'high' (or any Categorical) raised
    Polars' cast error."""
    monkeypatch.setenv("POLARS_RANKK_NATIVE", native)
    text = pl.Series(grades, dtype=pl.String).cast(TEXT_DTYPES[dtype])
    rows = CANDIDATES.head(3).with_columns(relevance=text)
    said = f"column 'relevance' must be numeric (a grade); it has dtype {dtype}"
    with pytest.raises(TypeError, match=re.escape(f"candidates {said}")):
        rk.evaluate(rows, k=3, metrics="ndcg", group_by="q")
    expr = (
        rk.metrics_expression(["ndcg", "P"], "relevance", by="score", k=3, item="item")
        if many
        else rk.ndcg_at_k("relevance", by="score", k=3, item="item")
    )
    top = max(g for g in grades if g is not None)
    item = rows.filter(pl.col("relevance") == top)["item"][0]
    with pytest.raises(pl.exceptions.InvalidOperationError) as raised:
        rows.group_by("q").agg(expr)
    assert f"{said}, e.g. the grade '{top}' (item {item})" in str(raised.value)
    # A numeric column of the same grades: the values, unchanged.
    numbers = rows.with_columns(relevance=pl.Series([1, 2, 1]))
    assert numbers.group_by("q").agg(expr).height == 1


@pytest.mark.parametrize("by", ["u", ["u", "s"]])
def test_compare_by_a_group_key_column_compares_within_each_of_its_values(
    by: str | list[str],
) -> None:
    """``compare(..., by=<a group key>)`` strata by the key (where Polars raised a
    DuplicateError): each stratum's means, difference and wins equal a brute force over the
    per-group values of that key."""
    candidates = pl.DataFrame(
        {"u": [1] * 6 + [2] * 4, "s": [1, 1, 2, 2, 3, 3, 1, 1, 2, 2], "item": list(range(10)),
         "score": [2.0, 1.0] * 5}
    )  # fmt: skip
    truth = pl.DataFrame({"u": [1, 1, 1, 2, 2], "s": [1, 2, 3, 1, 2], "item": [0, 3, 4, 7, 8]})
    other = candidates.with_columns(score=-pl.col("score"))
    found = {
        name: rk.evaluate(run, truth, k=1, metrics="precision", group_by=["u", "s"])
        for name, run in (("a", candidates), ("b", other))
    }
    got = rk.compare(found, baseline="a", by=by)
    keys = [by] if isinstance(by, str) else by
    values = (
        found["a"].per_group.select("u", "s", a="value")
        .join(found["b"].per_group.select("u", "s", b="value"), on=["u", "s"])
        .group_by(keys)
        .agg(pl.len().alias("n_groups"), pl.col("a").mean(), pl.col("b").mean(),
             (pl.col("b") > pl.col("a")).sum().cast(pl.Int64).alias("wins"))
        .sort(keys)
    )  # fmt: skip
    assert got.select(*keys, "n_groups", "baseline_mean", "mean", "wins").rows() == values.rows()
    assert got["diff"].to_list() == pytest.approx((values["b"] - values["a"]).to_list())


def test_ranx_names_beside_names_with_a_cut_off_are_said() -> None:
    """ranx's ``mrr``, ``ndcg`` (no cut-off: its whole list) typed beside ``P@3`` and
    ``k=3`` are read at 3: a ToolNameWarning names the spelling of ranx's number, which
    equals ranx's; among names without a cut-off they mean the evaluation's K, unsaid."""
    ranx = pytest.importorskip("ranx")
    with pytest.warns(ToolNameWarning, match=r"'mrr' is read at k=3; ranx's mrr is the whole"):
        at_3 = rk.evaluate(CANDIDATES, TRUTH, k=3, metrics=["mrr", "ndcg", "P@3"], group_by="q")
    assert at_3.summary()["k"].to_list() == [3, 3, 3]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolNameWarning)  # no cut-off spelled, or their own
        rk.evaluate(CANDIDATES, TRUTH, k=3, metrics=["mrr", "ndcg"], group_by="q")
        rk.evaluate(CANDIDATES, TRUTH, metrics=["mrr@3", "ndcg@3"], group_by="q")
        whole = rk.evaluate(CANDIDATES, TRUTH, k=3, metrics=["RR", "nDCG"], group_by="q")
    qrels = ranx.Qrels({q: dict(zip(g["item"], g["relevance"], strict=True))
                        for (q,), g in TRUTH.partition_by("q", as_dict=True).items()})  # fmt: skip
    run = ranx.Run({q: dict(zip(g["item"], g["score"], strict=True))
                    for (q,), g in CANDIDATES.partition_by("q", as_dict=True).items()})  # fmt: skip
    want = ranx.evaluate(qrels, run, ["mrr", "ndcg"])
    got = dict(whole.summary().select("metric", "value").iter_rows())
    assert got == pytest.approx({"mrr": want["mrr"], "ndcg": want["ndcg"]})
    assert dict(at_3.summary().select("metric", "value").iter_rows())["ndcg"] != pytest.approx(
        want["ndcg"]
    )


SHORT = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [2.0, 1.0, 2.0, 1.0]})
SHORT_TRUTH = pl.DataFrame({"q": [1, 2], "item": [1, 4]})
SKIP = {"k": [1, 5], "metrics": ["precision", "ndcg@1", "ndcg@5"], "group_by": "q",
        "policy": rk.Policy(short_lists="skip")}  # fmt: skip


def _skipped_rows_said(summary: pl.DataFrame) -> None:
    """The rows at K = 5, where both lists (2 items) are short: kept, value null, no group,
    both groups counted as skipped (brute force: at K = 1 precision and nDCG are 1 and 0)."""
    at = summary.select("metric", "k", "value", "n_groups", "dropped_short").rows()
    assert at == [
        ("precision", 1, 0.5, 2, 0),
        ("precision", 5, None, 0, 2),
        ("ndcg", 1, 0.5, 2, 0),
        ("ndcg", 5, None, 0, 2),
    ]


def test_a_k_where_every_list_is_skipped_keeps_its_summary_rows(tmp_path: Path) -> None:
    """``short_lists="skip"`` leaving out every group at a K: its rows stay in `summary()`
    (every average but micro's ratio) and out of core, where they were dropped silently."""
    evaluated = rk.evaluate(SHORT, SHORT_TRUTH, **SKIP)  # type: ignore[arg-type]
    _skipped_rows_said(evaluated.summary())
    weighted = evaluated.summary("weighted", weights="n_candidates")
    assert weighted.filter(pl.col("k") == 5)["value"].to_list() == [None, None]
    partitioned = rk.evaluate_in_partitions(SHORT, SHORT_TRUTH, output=tmp_path / "out",
                                            partitions=2, **SKIP)  # type: ignore[arg-type]  # fmt: skip
    assert partitioned.summary().equals(evaluated.summary())


def test_a_k_where_every_list_is_skipped_keeps_its_rows_on_dask() -> None:
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask

    def to_dask(frame: pl.DataFrame) -> object:
        return dd.from_pandas(frame.to_pandas(), npartitions=2, sort=False)

    result = evaluate_dask(to_dask(SHORT), to_dask(SHORT_TRUTH), with_dropped=True, **SKIP)  # type: ignore[arg-type,call-overload]
    found = result.summary()
    _skipped_rows_said(found)
    assert found.equals(rk.evaluate(SHORT, SHORT_TRUTH, **SKIP).summary())  # type: ignore[arg-type]


def test_systems_evaluated_together_share_one_catalogue() -> None:
    """Coverage of several systems is measured against one catalogue, the items of every
    system (as ``rankk compare`` measures it), whether they come as a mapping or as one frame
    split by a system column (brute force: distinct top-1 items over every system's items),
    where each system was measured against its own items (0.5 and 0.5)."""
    a = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 2, 1, 2], "score": [2.0, 1, 2, 1]})
    b = pl.DataFrame({"q": [1, 1, 2, 2], "item": [3, 4, 5, 6], "score": [2.0, 1, 2, 1]})
    truth = pl.DataFrame({"q": [1, 2], "item": [1, 4]})
    items = pl.concat([a, b])["item"].n_unique()

    def brute(run: pl.DataFrame) -> float:
        return run.sort("score", descending=True).group_by("q").head(1)["item"].n_unique() / items

    want = {"a": brute(a), "b": brute(b)}
    assert want == {"a": 1 / 6, "b": 2 / 6}
    options: dict[str, Any] = {"k": 1, "metrics": ["coverage"], "group_by": "q"}
    mapped = rk.evaluate_systems({"a": a, "b": b}, truth, **options)
    split = rk.evaluate_systems(pl.concat([a.with_columns(run=pl.lit("a")),
                                           b.with_columns(run=pl.lit("b"))]),
                                truth, system="run", **options)  # fmt: skip
    for found in (mapped, split):
        got = {name: res.catalogue["value"].item() for name, res in found.items()}  # type: ignore[index]
        assert got == pytest.approx(want)


@pytest.mark.parametrize(
    "module", ["prepare.py", "group_table.py", "pipeline.py"], ids=lambda name: name[:-3]
)
def test_preparing_and_evaluating_are_functions_of_one_job(module: str) -> None:
    """`prepare_groups` (100 code lines) and the pipeline's evaluation of a part split into
    steps that each do one job: no function of the preparation or the pipeline is longer
    than a screen (40 code lines)."""
    import ast

    from tests.test_architecture import ROOT, _code_lines

    path = ROOT / "polars_rankk" / "core" / "evaluation" / module
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    long = {
        node.name: _code_lines(node, lines)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef) and _code_lines(node, lines) > 40
    }
    assert not long, long


def test_ids_beyond_int64_in_the_expressions_are_refused_in_words_or_computed() -> None:
    """`rk.label` aligns UInt64 ids beyond Int64 beside Int64 truth ids as Int128, which the
    compiled kernel does not read: the expressions refuse them naming the column, the dtype,
    an id and what to do (where the kernel said only an Arrow format), and the cast they
    advise gives evaluate's number (brute force: the big id is unjudged, P@2 = 1/2)."""
    from polars_rankk.core.kernel import loader

    big = 2**63 + 5
    candidates = pl.DataFrame(
        {"q": [1, 1], "item": pl.Series([big, 7], dtype=pl.UInt64), "score": [1.0, 0.5]}
    )
    truth = pl.DataFrame({"q": [1, 1], "item": pl.Series([big - 2**64, 7], dtype=pl.Int64)})
    labelled = rk.label(candidates, truth, group_by="q")
    assert isinstance(labelled, pl.DataFrame)
    expr = rk.precision_at_k("relevance", by="score", k=2, item="item", unretrieved="unretrieved")
    if loader.status().loaded:
        said = f'column "item" holds ids of dtype Int128, e.g. the id {big}, which the compiled'
        with pytest.raises(pl.exceptions.ComputeError, match=re.escape(said)):
            labelled.group_by("q").agg(expr)
    cast = labelled.with_columns(pl.col("item").cast(pl.String))
    want = rk.evaluate(candidates, truth, k=2, metrics="precision", group_by="q")
    assert cast.group_by("q").agg(expr)["precision@2"].to_list() == [0.5]
    assert want.summary()["value"].to_list() == [0.5]


def test_tool_name_warnings_only_where_the_data_make_the_numbers_differ() -> None:
    """``Judged@10`` and ``Bpref(rel=2)`` on lists of 12 without a tie and qrels without a
    negative grade give ir_measures' numbers: nothing is said (the fields the warning names
    change nothing there); a short list (Judged) or a negative grade ranked above a relevant
    item (Bpref) makes them differ, and the warning is said."""
    names = ["Judged@10", "Bpref(rel=2)"]
    long = pl.DataFrame({"q": ["1"] * 12, "item": [f"d{i}" for i in range(12)],
                         "score": [float(12 - i) for i in range(12)]})  # fmt: skip
    judged = pl.DataFrame({"q": ["1"] * 3, "item": ["d1", "d3", "d11"], "relevance": [2, 0, 1]})

    def tool(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, float]:
        measures = [ir_measures.parse_measure(name) for name in names]
        found = ir_measures.calc_aggregate(
            measures,
            [ir_measures.Qrel(q, i, r) for q, i, r in qrels.iter_rows()],
            [ir_measures.ScoredDoc(q, i, s) for q, i, s in run.iter_rows()],
        )
        return {str(m): v for m, v in found.items()}

    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolNameWarning)
        quiet = rk.evaluate(long, judged, metrics=names, group_by="q")
    want = tool(long, judged)
    assert quiet.summary()["value"].to_list() == pytest.approx([want[name] for name in names])
    with pytest.warns(ToolNameWarning, match=r"'Judged@10' is ir_measures' name"):
        rk.evaluate(long.head(3), judged, metrics=["Judged@10"], group_by="q")
    negative = judged.with_columns(
        item=pl.Series(["d1", "d3", "d0"]), relevance=pl.Series([2, 0, -1])
    )
    with pytest.warns(ToolNameWarning, match=r"'Bpref\(rel=2\)' is ir_measures' name"):
        said = rk.evaluate(long, negative, metrics=["Bpref(rel=2)"], group_by="q")
    assert said.summary()["value"].item() != pytest.approx(tool(long, negative)["Bpref(rel=2)"])


def test_tool_name_warnings_said_without_the_data_say_so(tmp_path: Path) -> None:
    """Where the data are not read before the warning (a lazy frame, out of core, Dask), a
    tool-name warning says the tool may compute another number and that the data were not
    read to check, where it said "computes another number" though on these data (lists of 12
    without a tie) the value is ir_measures' Judged@10; eager tables stay quiet."""
    long = pl.DataFrame({"q": ["1"] * 12, "item": [f"d{i}" for i in range(12)],
                         "score": [float(12 - i) for i in range(12)]})  # fmt: skip
    judged = pl.DataFrame({"q": ["1"] * 3, "item": ["d1", "d3", "d11"], "relevance": [2, 0, 1]})
    options: dict[str, Any] = {"metrics": ["Judged@10"], "group_by": "q"}
    said = (
        "metric 'Judged@10' is ir_measures' name, but under this policy ir_measures may "
        "compute another number: the data were not read to check; ir_measures' judged"
    )
    run = [ir_measures.ScoredDoc(q, i, s) for q, i, s in long.iter_rows()]
    qrels = [ir_measures.Qrel(q, i, r) for q, i, r in judged.iter_rows()]
    want = ir_measures.calc_aggregate([ir_measures.parse_measure("Judged@10")], qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolNameWarning)
        eager = rk.evaluate(long, judged, **options)
    assert eager.summary()["value"].to_list() == pytest.approx(list(want.values()))
    with pytest.warns(ToolNameWarning, match=re.escape(said)):
        lazy = rk.evaluate(long.lazy(), judged.lazy(), **options).collect()
    assert lazy.summary().equals(eager.summary())
    with pytest.warns(ToolNameWarning, match=re.escape(said)):
        rk.evaluate_in_partitions(long, judged, output=tmp_path / "out", partitions=2, **options)
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask

    def to_dask(frame: pl.DataFrame) -> object:
        return dd.from_pandas(frame.to_pandas(), npartitions=2, sort=False)

    with pytest.warns(ToolNameWarning, match=re.escape(said)):
        evaluate_dask(to_dask(long), to_dask(judged), **options)  # type: ignore[call-overload]


@pytest.mark.parametrize("lazy", [False, True])
def test_the_diagnostics_say_the_catalogue_systems_share(lazy: bool) -> None:
    """Systems evaluated together are measured against one catalogue: each one's diagnostics
    count its items (brute force: the distinct items of every system) and the systems sharing
    it, and its display says so, where nothing said the rule."""
    a = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 2, 1, 2], "score": [2.0, 1, 2, 1]})
    b = pl.DataFrame({"q": [1, 1, 2, 2], "item": [3, 4, 5, 6], "score": [2.0, 1, 2, 1]})
    truth = pl.DataFrame({"q": [1, 2], "item": [1, 4]})
    items = len(set(a["item"]) | set(b["item"]))
    runs = {"a": a.lazy(), "b": b.lazy()} if lazy else {"a": a, "b": b}
    found = rk.evaluate_systems(runs, truth, k=1, metrics=["coverage", "P"], group_by="q")
    for evaluation in found.values():
        shown = evaluation.collect() if lazy else evaluation
        counts = shown.diagnostics.counts
        assert (counts["shared_catalogue_items"], counts["systems_sharing_the_catalogue"]) == (
            items, 2)  # fmt: skip
        said = f"measured against one catalogue of {items} items, shared by the 2 systems"
        assert said in repr(shown)
    alone = rk.evaluate(a, truth, k=1, metrics=["coverage"], group_by="q")
    assert "shared_catalogue_items" not in alone.diagnostics.counts


def test_a_warning_naming_the_policys_own_setting_is_said_on_eager_tables() -> None:
    """``ndcg_cut_3`` under ``gain="exponential"``: trec_eval's ndcg_cut has linear gain only,
    and the warning names the policy's own setting, not trec_eval's; re-evaluating under it
    cannot show the numbers equal, so eager tables say it as lazy ones do (it was silent while
    the value differs from pytrec_eval's)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    candidates = pl.DataFrame({"q": ["1"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2, 1]})
    truth = pl.DataFrame({"q": ["1", "1"], "item": ["a", "c"], "relevance": [1, 2]})
    policy = rk.Policy(gain="exponential")
    with pytest.warns(ToolNameWarning, match=r"'ndcg_cut_3' is trec_eval's name.*linear gain"):
        result = rk.evaluate(candidates, truth, metrics=["ndcg_cut_3"], group_by="q",
                             policy=policy)  # fmt: skip
    tool = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "c": 2}}, {"ndcg_cut_3"})
    want = tool.evaluate({"1": {"a": 3.0, "b": 2.0, "c": 1.0}})["1"]["ndcg_cut_3"]
    assert result.summary()["value"].item() != pytest.approx(want)


def test_a_tool_name_warning_carries_the_tools_fields_as_data() -> None:
    """The check on the data reads the Policy fields that reproduce the tool's number from the
    warning itself (not from its words): a reason naming the tool's setting carries it, one
    naming a setting the tool lacks carries none and is said unchecked."""
    said: dict[str, ToolNameWarning] = {}
    for name, policy in [("nDCG@2", rk.Policy(ties="item_asc")),
                         ("ndcg_cut_2", rk.Policy(gain="exponential"))]:  # fmt: skip
        with pytest.warns(ToolNameWarning) as caught:
            rk.evaluate(CANDIDATES.lazy(), TRUTH.lazy(), metrics=[name], group_by="q",
                        policy=policy)  # fmt: skip
        said |= {
            w.message.name: w.message for w in caught if isinstance(w.message, ToolNameWarning)
        }
    assert said["nDCG@2"].tool_fields == {"ties": "trec_eval"}
    assert "(Policy.ties='trec_eval')" in str(said["nDCG@2"])
    assert "may compute another number" in str(said["nDCG@2"])
    assert said["ndcg_cut_2"].tool_fields == {}
    assert "computes another number" in str(said["ndcg_cut_2"])
    assert "may compute" not in str(said["ndcg_cut_2"])
