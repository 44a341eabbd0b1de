"""Paths that gave a plausible but wrong number, or an error without the
words a user needs; each now gives the right number, says what it did, or refuses clearly."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.kernel import loader as native


def _two_systems() -> rk.Evaluation:
    candidates = pl.DataFrame(
        {"model": ["A", "A", "B", "B"], "user": [1, 1, 1, 1], "item": [1, 2, 1, 2],
         "score": [0.9, 0.1, 0.1, 0.9]}
    )  # fmt: skip
    truth = pl.DataFrame({"user": [1], "item": [2]})
    return rk.evaluate(
        candidates, truth, k=[1, 2], metrics="hit_rate", group_by="user", system="model"
    )


def test_markdown_of_a_several_systems_summary_has_one_row_per_system() -> None:
    res = _two_systems()
    text = rk.to_markdown(res.summary(), digits=2)
    assert text.splitlines()[0] == "| model | hit_rate@1 | hit_rate@2 |"
    assert "| A | 0.00 | **1.00** |" in text
    assert "| B | **1.00** | **1.00** |" in text
    assert text == rk.to_markdown(res, digits=2)
    assert rk.to_latex(res.summary()) == rk.to_latex(res)


def test_a_report_of_an_evaluation_defaults_to_its_own_k(tmp_path: Path) -> None:
    candidates = pl.DataFrame(
        {"q": [1, 1, 2, 2] * 3, "item": list(range(12)), "score": [0.9, 0.1, 0.5, 0.4] * 3}
    )
    res = rk.evaluate(candidates, pl.DataFrame({"q": [1, 2], "item": [1, 2]}), k=[5, 10, 20],
                      group_by="q")  # fmt: skip
    page = rk.render_report(res, n_resamples=20)
    assert "K: 5, 10, 20 (curves 1–20)" in page
    rk.report(res, path=tmp_path / "report.html", n_resamples=20)
    assert "K: 5, 10, 20 (curves 1–20)" in (tmp_path / "report.html").read_text(encoding="utf-8")
    # A K the evaluation does not have, asked for, is still refused.
    with pytest.raises(ValueError, match=r"k \[1\] were not evaluated"):
        rk.render_report(res, k=[1, 5], n_resamples=20)


def test_evaluating_trec_files_without_group_by_says_group_by_query(tmp_path: Path) -> None:
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    qrels.write_text("q1 0 d2 1\n")
    with pytest.raises(TypeError, match=r"name it 'query', so pass group_by='query'"):
        rk.evaluate(rk.read_trec_run(run), rk.read_trec_qrels(qrels))
    with pytest.raises(TypeError, match=r"columns are \['user', 'item', 'score'\]$"):
        rk.evaluate(pl.DataFrame({"user": [1], "item": [1], "score": [1.0]}))
    res = rk.evaluate(rk.read_trec_run(run), rk.read_trec_qrels(qrels), k=2,
                      metrics="precision", group_by="query")  # fmt: skip
    assert res.collect().summary()["value"].to_list() == [0.5]


def test_a_weights_table_missing_groups_names_the_group_not_an_internal_column() -> None:
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2, 3], "item": [1, 2, 1, 2, 1], "score": [0.9, 0.1, 0.8, 0.2, 0.5]}
    )
    truth = pl.DataFrame({"user": [1, 2, 3], "item": [1, 2, 1]})
    res = rk.evaluate(candidates, truth, k=[1, 2], metrics=["ndcg", "precision"], group_by="user")
    weights = pl.DataFrame({"user": [1], "traffic": [3.0]})
    with pytest.raises(ValueError, match=r"2 evaluated group\(s\)") as raised:
        res.summary(average="weighted", weights=weights)
    message = str(raised.value)
    assert "the group {'user': 2} (weight: absent from the weights)" in message
    assert "_weight" not in message
    negative = pl.DataFrame({"user": [1, 2, 3], "traffic": [3.0, -1.0, 1.0]})
    with pytest.raises(ValueError, match=r"1 evaluated group\(s\).*\{'user': 2\} \(weight: -1.0\)"):
        res.summary(average="weighted", weights=negative)


@pytest.mark.parametrize("native", ["0", "1"])
@pytest.mark.parametrize("empty_truth", ["zero", "nan", "exclude"])
def test_expressions_on_labelled_rows_follow_empty_truth_as_evaluate_does(
    empty_truth: str, native: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without n_relevant a group whose rows hold no relevant item has R_g = 0 for `evaluate`;
    the expressions score it the same way under "nan" and "zero" (they once read every value
    as "zero"). Under "exclude" they score it 0 rather than leave it out: the rows cannot say
    the group had nothing to find, and a null would let pl.mean skip a list that found none."""
    monkeypatch.setenv("POLARS_RANKK_NATIVE", native)
    rows = pl.DataFrame(
        {"q": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [0.9, 0.8, 0.7, 0.6],
         "relevance": [1, 0, 0, 0]}
    )  # fmt: skip
    policy = rk.Policy(empty_truth=empty_truth)  # type: ignore[arg-type]
    functions = {"precision": rk.precision_at_k, "recall": rk.recall_at_k, "f1": rk.f1_at_k,
                 "ndcg": rk.ndcg_at_k, "mrr": rk.mrr_at_k}  # fmt: skip
    wide = rows.group_by("q").agg(
        f(relevance="relevance", by="score", k=2, item="item", policy=policy).alias(name)
        for name, f in functions.items()
    )
    held_to = rk.Policy(empty_truth="zero") if empty_truth == "exclude" else policy
    res = rk.evaluate(rows, k=2, metrics=list(functions), group_by="q", policy=held_to)
    want = {(q, m): v for q, m, v in res.per_group.select("q", "metric", "value").iter_rows()}
    for q, *values in wide.sort("q").iter_rows():
        for name, value in zip(functions, values, strict=True):
            expected = want.get((q, name))  # absent: the group was excluded
            assert (value is None) == (expected is None), (q, name, value, expected)
            if value is not None and expected is not None:
                assert value == expected or (math.isnan(value) and math.isnan(expected))


def _registered(name: str, per_rank: Any) -> rk.Evaluation:
    rk.register_metric(name, per_rank, replace=True)
    try:
        candidates = pl.DataFrame({"q": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.8, 0.7]})
        truth = pl.DataFrame({"q": [1, 1, 1], "item": [1, 2, 3], "relevance": [2.5, 1.5, 0.0]})
        res = rk.evaluate(candidates, truth, k=3, metrics=[name], group_by="q").collect()
        res.diagnostics  # noqa: B018 (computed before the metric is unregistered)
        return res
    finally:
        rk.unregister_metric(name)


def test_the_tracer_refuses_what_it_cannot_represent_instead_of_tracing_another_function() -> None:
    from polars_rankk.core.metrics.algebra import trace

    untraceable = {
        "a Python condition on the rank": (
            lambda rows: rows.relevant * (1.0 if rows.rank == 1 else 0.0)
        ),
        "a comparison of a label": lambda rows: rows.grade * (rows.grade > 1),
        "an integer cast of a grade": lambda rows: rows.grade.cast(pl.Int64) / rows.rank,
        "a float32 cast of the rank": lambda rows: rows.relevant / rows.rank.cast(pl.Float32),
        "a truth value": lambda rows: rows.relevant if rows.judged else rows.grade,
    }  # fmt: skip
    for what, per_rank in untraceable.items():
        assert trace(per_rank) is None, what
    # What the tracer can represent still traces: a Float64 cast changes nothing.
    assert trace(lambda rows: rows.grade.cast(pl.Float64) / rows.rank.cast(pl.Float64)) is not None
    # A Python condition cannot be run on expressions either: refused, with the fix.
    with pytest.raises(TypeError, match=r"pl\.when\(rows\.rank == 1\)"):
        rk.register_metric("top_one", untraceable["a Python condition on the rank"])
    assert "top_one" not in rk.METRICS
    # The integer cast runs in Polars (the diagnostics say so) and truncates the grades.
    res = _registered("truncated", untraceable["an integer cast of a grade"])
    assert res.per_group["value"].to_list() == [2 / 1 + 1 / 2 + 0 / 3]
    # On the kernel the path names the term left to Polars; without it all of it is Polars.
    said = "the terms truncated in pure Polars" if native.status().loaded else "not used"
    assert said in res.diagnostics.path


def test_ir_measures_names_typed_say_which_policy_reproduces_ir_measures() -> None:
    """A 4-document all-tied query: ir_measures' msmarco and judged providers sort docids
    ascending and its cwl provider (RBP) keeps the run's order, where the default policy
    breaks ties as trec_eval does. Each name typed says so; under the policy it names, the
    number is ir_measures' own."""
    import ir_measures
    from ir_measures import RBP, RR, Judged

    from polars_rankk.core.names.conventions import ToolNameWarning

    docs = ["d1", "d2", "d3", "d4"]
    run = pl.DataFrame({"query": "q1", "item": docs, "score": 1.0})
    qrels = pl.DataFrame({"query": ["q1", "q1"], "item": ["d1", "d2"], "relevance": [1, 0]})
    irm_run = [ir_measures.ScoredDoc("q1", d, 1.0) for d in docs]
    irm_qrels = [ir_measures.Qrel("q1", d, g) for d, g in zip(["d1", "d2"], [1, 0], strict=True)]
    cases = [
        ("RR@1", RR @ 1, rk.Policy(ties="item_asc"), "Policy.ties='item_asc'"),
        ("Judged@2", Judged @ 2, rk.Policy(ties="item_asc", short_lists="observed"),
         "Policy(ties='item_asc', short_lists='observed')"),
        ("RBP(p=0.8,rel=1)", RBP(p=0.8, rel=1), rk.Policy(ties="input_order"),
         "Policy.ties='input_order'"),
    ]  # fmt: skip

    def value(res: rk.Evaluation, k: int | None) -> float:
        return float(res.per_group.filter(pl.col("k").eq_missing(k))["value"].item())

    for typed, measure, policy, named in cases:
        want = next(iter(ir_measures.iter_calc([measure], irm_qrels, irm_run))).value
        k = measure["cutoff"] if "cutoff" in measure.params else None
        with pytest.warns(ToolNameWarning, match=re.escape(named)):
            default = rk.evaluate(run, qrels, k=2, metrics=[typed], group_by="query")
        assert value(default, k) != pytest.approx(want), typed
        with warnings.catch_warnings():
            warnings.simplefilter("error", ToolNameWarning)
            res = rk.evaluate(run, qrels, k=2, metrics=[typed], group_by="query", policy=policy)
        assert value(res, k) == pytest.approx(want, abs=1e-12), typed


def test_trec_files_keep_a_byte_order_mark_and_read_bytes_that_are_not_utf8(
    tmp_path: Path,
) -> None:
    """trec_eval reads bytes: a byte order mark stays in the first query id (so ``\\ufeffq1``
    is not ``q1``), and a docid with a byte that is not UTF-8 is read and matched."""
    from polars_rankk.io import TrecBytesWarning

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_bytes(b"\xef\xbb\xbfq1 Q0 d1 1 2.0 r\nq2 Q0 d\xff1 1 2.0 r\nq2 Q0 d2 2 1.0 r\n")
    qrels.write_bytes(b"q1 0 d1 1\nq2 0 d\xff1 1\n")
    with pytest.warns(TrecBytesWarning) as caught:
        found = rk.read_trec_run(run).collect()
    messages = [str(w.message) for w in caught]
    assert any("byte order mark" in m for m in messages)
    assert any("line 2: bytes that are not UTF-8" in m and str(run) in m for m in messages)
    assert found["query"].to_list() == ["\ufeffq1", "q2", "q2"]
    assert found["item"].to_list() == ["d1", "d\\xff1", "d2"]
    with pytest.warns(TrecBytesWarning, match="line 2: bytes that are not UTF-8"):
        judged = rk.read_trec_qrels(qrels)
    res = rk.evaluate(
        found, judged, k=1, metrics="precision", group_by="query",
        policy=rk.Policy(missing_groups="zero"),
    ).collect().per_group.sort("query")  # fmt: skip
    # q1 of the qrels has no ranking (the run's is '\ufeffq1'); q2's docid matches byte for byte.
    assert dict(res.select("query", "value").iter_rows()) == {"q1": 0.0, "q2": 1.0}


def test_column_arguments_take_a_name_or_a_plain_column_and_refuse_computed_ones() -> None:
    candidates = pl.DataFrame(
        {"q": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.8, 0.7], "rank": [1, 2, 1]}
    )
    truth = pl.DataFrame({"q": [1, 2], "item": [2, 3]})
    want = rk.evaluate(candidates, truth, k=2, group_by="q").per_group
    for name, value in {"group_by": "q", "item": "item", "score": "score"}.items():
        options: dict[str, Any] = {"group_by": "q", name: pl.col(value)}
        got = rk.evaluate(candidates, truth, k=2, **options).per_group
        assert got.equals(want), name
    ranked = rk.evaluate(candidates, truth, k=2, group_by="q", rank=pl.col("rank"))
    assert ranked.per_group.equals(rk.evaluate(candidates, truth, k=2, group_by="q",
                                               rank="rank").per_group)  # fmt: skip
    labelled = rk.label(candidates, truth, group_by=[pl.col("q")], item=pl.col("item"))
    assert labelled.equals(rk.label(candidates, truth, group_by="q"))
    for name in ("group_by", "item", "score", "relevance"):
        options = {"group_by": "q", name: pl.col("score") * 2}
        with pytest.raises(TypeError, match=r"pl\.col\(name\); got the expression .*table first"):
            rk.evaluate(candidates, truth, k=2, **options)
    # The expression functions take a name or any expression alike.
    rows = pl.DataFrame({"item": [1, 2], "score": [0.9, 0.8], "rel": [0, 1]})
    by_name = rows.select(rk.ndcg_at_k("rel", by="score", k=2, item="item")).item()
    by_expr = rows.select(rk.ndcg_at_k(pl.col("rel"), by=pl.col("score") * 1, k=2,
                                       item=pl.col("item"))).item()  # fmt: skip
    assert by_name == by_expr
