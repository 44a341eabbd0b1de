"""Numbers that looked right and were not: each test here fails on the mechanism that made a
plausible wrong number, and passes on the fix."""

from __future__ import annotations

import os
import re
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.engines import staging


def _rewrite_in_place(path: Path, frame: pl.DataFrame) -> None:
    """Overwrite `path`'s bytes in place (same inode, same size) and set its modification time
    back, as a careless copy tool does."""
    before = os.stat(path)
    scratch = path.with_name("scratch.parquet")
    frame.write_parquet(scratch)
    data = scratch.read_bytes()
    assert len(data) == before.st_size
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def test_out_of_core_does_not_reuse_inputs_of_a_file_rewritten_in_place(tmp_path: Path) -> None:
    """A candidates file rewritten in place (same size, inode, modification time) is a new
    input: the run kept in `workdir` is not reused and the new file's number comes out."""
    truth = pl.DataFrame({"user": [1, 2], "item": [1, 2]})
    first = pl.DataFrame({"user": [1, 2], "item": [1, 2], "score": [1.0, 1.0]})
    second = pl.DataFrame({"user": [1, 2], "item": [2, 1], "score": [1.0, 1.0]})
    path = tmp_path / "candidates.parquet"
    first.write_parquet(path)
    arguments = {
        "output": tmp_path / "out",
        "workdir": tmp_path / "work",
        "partitions": 2,
        "k": 1,
        "metrics": "hit_rate",
        "group_by": "user",
    }
    before = rk.evaluate_in_partitions(pl.scan_parquet(path), truth, **arguments)
    assert before.summary()["value"].to_list() == [1.0]
    key = staging.fingerprint({"candidates": pl.scan_parquet(path)}, {})
    _rewrite_in_place(path, second)
    assert staging.fingerprint({"candidates": pl.scan_parquet(path)}, {}) != key
    after = rk.evaluate_in_partitions(pl.scan_parquet(path), truth, **arguments)
    assert after.summary()["value"].to_list() == [0.0]


def test_an_id_spelling_the_escape_of_a_byte_that_is_not_utf8_is_said(
    tmp_path: Path,
) -> None:
    """The byte 0xff in the qrels reads as the four characters ``\\xff``, which the run's id
    spells as text: trec_eval (comparing bytes) keeps the two apart, so the run's file is read
    with a warning naming it, the line and the text; ids with a backslash still match
    themselves across files."""
    from polars_rankk.io import TrecBytesWarning, read_trec_qrels, read_trec_run

    run = tmp_path / "run.trec"
    run.write_bytes(b"q1 Q0 a\\b 1 2.0 sys\nq1 Q0 d\\xff 2 1.0 sys\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"q1 0 d\xff 1\nq1 0 a\\b 1\n")
    with pytest.warns(TrecBytesWarning):
        judged = read_trec_qrels(qrels).collect()
    said = re.escape(f"{run} line 2: the text '\\\\xff' spells how a byte that is not UTF-8")
    with pytest.warns(TrecBytesWarning, match=said):
        candidates = read_trec_run(run).collect()
    assert candidates["item"].to_list() == ["a\\b", "d\\xff"]
    assert judged["item"].to_list() == ["d\\xff", "a\\b"]


@pytest.mark.parametrize("table", ["truth", "candidates"])
@pytest.mark.parametrize("grade", [float("inf"), float("-inf")])
def test_an_infinite_grade_is_refused_in_words(table: str, grade: float) -> None:
    """An infinite grade (which made nDCG NaN and G, RBP and Q 0.0 for a relevant item) is
    refused, naming the table and the column."""
    truth = pl.DataFrame({"user": [1, 1], "item": [1, 2], "relevance": [1.0, 2.0]})
    candidates = pl.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    if table == "truth":
        truth = truth.with_columns(relevance=pl.Series([grade, 2.0]))
        arguments: dict[str, object] = {"truth": truth}
    else:
        candidates = candidates.with_columns(relevance=pl.Series([grade, 2.0]))
        arguments = {}
    with pytest.raises(ValueError, match=rf"{table}: column 'relevance' .* NaN or infinite"):
        rk.evaluate(candidates, k=2, metrics="ndcg", group_by="user", **arguments)


def test_bpref_expression_leaves_a_missed_negative_grade_unjudged_as_trec_eval() -> None:
    """Under ``Policy.trec_eval()`` a negative grade among the items the rows missed is no
    judgement: ``rk.bpref`` (from ``rk.label``'s ``unretrieved``) equals pytrec_eval's bpref
    and `evaluate`'s, where it counted the negatives as judged non-relevant (0.25 for 0.0)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth = pl.DataFrame(
        {"q": ["q1"] * 5, "item": ["d1", "d2", "d3", "d4", "d5"], "relevance": [1, 0, -1, -1, 1]}
    )
    candidates = pl.DataFrame(
        {"q": ["q1"] * 3, "item": ["d2", "d1", "d6"], "score": [3.0, 2.0, 1.0]}
    )
    policy = rk.Policy.trec_eval()
    labelled = rk.label(candidates, truth, group_by="q", policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    values = labelled.group_by("q").agg(
        rk.bpref("relevance", by="score", item="item", unretrieved="unretrieved", policy=policy)
    )
    qrels = {"q1": dict(zip(truth["item"], truth["relevance"], strict=True))}
    run = {"q1": dict(zip(candidates["item"], candidates["score"], strict=True))}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)["q1"]["bpref"]
    evaluated = rk.evaluate(candidates, truth, k=3, metrics="bpref", group_by="q", policy=policy)
    assert values["bpref"].item() == pytest.approx(expected)
    assert evaluated.per_group["value"].item() == pytest.approx(expected)


def test_k_curve_of_a_catalogue_metric_is_refused_in_words() -> None:
    """``k_curve`` of coverage (one figure per system, not a mean over groups) is refused in
    words, where it failed with "need at least one array to stack" (and, beside a per-group
    metric, was dropped silently)."""
    candidates = pl.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"user": [1], "item": [1]})
    for metrics in (["coverage"], ["coverage", "ndcg"]):
        with pytest.raises(ValueError, match="coverage is one figure for all of a system"):
            rk.k_curve({"a": candidates, "b": candidates}, truth, k_max=2, metrics=metrics,
                       group_by="user")  # fmt: skip


def test_compare_of_catalogue_metrics_alone_is_no_internal_error() -> None:
    """`compare` of evaluations holding catalogue-level metrics only pairs no per-group value,
    where it raised an IndexError: one row per challenger with both figures (no test)."""
    truth = pl.DataFrame({"user": [1], "item": [1]})
    systems = {
        name: rk.evaluate(
            pl.DataFrame({"user": [1, 1], "item": items, "score": [2.0, 1.0]}),
            truth,
            k=1,
            metrics="coverage",
            group_by="user",
        )
        for name, items in (("a", [1, 2]), ("b", [3, 4]))
    }
    compared = rk.compare(systems)
    assert compared.select("metric", "k", "baseline", "system").rows() == [
        ("coverage", 1, "a", "b")
    ]
    assert compared["p_value_t"].to_list() == [None]


class _Conf:
    def __init__(self, python: str | None) -> None:
        self.python = python

    def get(self, key: str) -> str | None:
        return self.python if key == "spark.pyspark.python" else None


class _Context:
    def __init__(self, master: str, python: str | None = None) -> None:
        self.master = master
        self.conf = _Conf(python)
        self.pythonExec = "python3"

    def getConf(self) -> _Conf:  # noqa: N802 (Spark's name)
        return self.conf


class _Frame:
    def __init__(self, context: _Context) -> None:
        self.sparkSession = type("Session", (), {"sparkContext": context})()


def test_spark_local_workers_run_this_interpreter_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In local mode, Spark's Python workers are pointed at this interpreter (the one with
    Polars), where ``python3`` from PATH failed with "No module named polars"; a cluster's
    workers and an interpreter chosen by PYSPARK_PYTHON or spark.pyspark.python are left."""
    import sys

    from polars_rankk.engines.spark_plan import local_workers_python

    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    local, cluster, chosen = _Context("local[2]"), _Context("yarn"), _Context("local", "py")
    for context in (local, cluster, chosen):
        local_workers_python(_Frame(context))  # type: ignore[arg-type]
    assert local.pythonExec == sys.executable
    assert cluster.pythonExec == chosen.pythonExec == "python3"
    monkeypatch.setenv("PYSPARK_PYTHON", "python3")
    told = _Context("local[*]")
    local_workers_python(_Frame(told))  # type: ignore[arg-type]
    assert told.pythonExec == "python3"


@pytest.mark.parametrize("truth_dtype", [pl.Int64, pl.UInt32, pl.UInt64])
def test_uint64_ids_beyond_int64_are_kept(truth_dtype: pl.DataType) -> None:
    """Ids beyond Int64 in a UInt64 column are kept beside another integer type (UInt64
    beside an unsigned one, Int128 beside a signed one): the relevant item is found, where
    a raw Polars cast error naming no table was raised."""
    big = 2**63 + 5
    candidates = pl.DataFrame(
        {
            "u": pl.Series([big, big, 1], dtype=pl.UInt64),
            "item": pl.Series([big, 3, 3], dtype=pl.UInt64),
            "score": [2.0, 1.0, 1.0],
        }
    )
    # The truth's item ids of `truth_dtype` beside the candidates' UInt64 ones.
    truth = pl.DataFrame(
        {"u": pl.Series([big, 1], dtype=pl.UInt64), "item": pl.Series([3, 3], dtype=truth_dtype)}
    )
    result = rk.evaluate(candidates, truth, k=2, metrics="hit_rate", group_by="u")
    per_group = dict(result.per_group.select("u", "value").iter_rows())
    assert per_group == {big: 1.0, 1: 1.0}


def test_audit_flags_recommending_items_the_user_already_has() -> None:
    """`rk.audit` counts the candidates whose (user, item) is in the history (an item the
    user already has), with those rows as examples, where nothing flagged them."""
    from polars_rankk.time import audit

    history = pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "timestamp": [1, 2, 3]})
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": [2, 5, 1, 3], "score": [0.9, 0.8, 0.7, 0.6]}
    )
    report = audit(candidates, history=history)
    row = report.summary.filter(check="candidates_in_history").row(0, named=True)
    assert (row["count"], row["total"], row["status"]) == (2, 4, "informational")
    flagged = report.flagged["candidates_in_history"].collect()
    assert sorted(flagged.select("user", "item").rows()) == [(1, 2), (2, 3)]


def test_paths_without_subtopic_refuse_subtopic_metrics_honestly() -> None:
    """``k_curve`` and ``unjudged_bounds`` take no ``subtopic=``: they refuse a subtopic
    metric saying so and what does compute it (the curve of a subtopic evaluation is drawn),
    where they advised passing ``subtopic=``, which neither takes."""
    candidates = pl.DataFrame({"u": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"u": [1, 1], "item": [1, 2], "subtopic": ["a", "b"]})
    with pytest.raises(ValueError, match="k_curve does not compute the subtopic metrics"):
        rk.k_curve(candidates, truth, k_max=2, metrics="alpha_ndcg", group_by="u")
    with pytest.raises(ValueError, match="unjudged_bounds does not compute the subtopic"):
        rk.unjudged_bounds(candidates, truth, k=2, metrics="alpha_ndcg", group_by="u")
    evaluation = rk.evaluate(
        candidates, truth, k=[1, 2], metrics="alpha_ndcg", group_by="u", subtopic="subtopic"
    )
    curve = rk.curve_of_evaluations({"a": evaluation}, ci=False)
    assert curve["value"].to_list() == [1.0, 1.0]
