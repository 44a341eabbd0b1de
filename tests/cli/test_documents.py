"""``rankk evaluate --documents``: a passage run against document (or passage) judgements,
collapsed as Python collapses it, each collapse said on stderr and recorded."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.cli.running import Rankk

RUN = """\
q1 Q0 d1#0 1 0.9 r
q1 Q0 d2#0 2 0.8 r
q1 Q0 d1#1 3 0.7 r
q1 Q0 d9 4 0.7 r
q2 Q0 d3#4 1 0.5 r
q2 Q0 d4#0 2 0.4 r
q2 Q0 d4#2 3 0.3 r
"""
PASSAGE_QRELS = "q1 0 d1#0 1\nq1 0 d2#1 2\nq2 0 d4#0 3\nq2 0 d3#1 1\n"
DOCUMENT_QRELS = "q1 0 d1 1\nq1 0 d2 2\nq2 0 d4 3\nq2 0 d7 1\n"
METRICS = "ndcg,recall,P,map"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, text in (("run.trec", RUN), ("passages.qrels", PASSAGE_QRELS),
                       ("documents.qrels", DOCUMENT_QRELS)):  # fmt: skip
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def summary(out: str) -> dict[tuple[str, int | None], float]:
    document = json.loads(out)
    return {(row["metric"], row["k"]): row["value"] for row in document["rows"]}


def python(run: Path, qrels: Path, *, collapse_truth: bool, **options: object) -> dict:
    policy = rk.Policy.trec_eval()
    documents = rk.to_documents(read_trec_run(run), group_by="query", document="#",
                                policy=policy, **options).collect()  # type: ignore[arg-type, union-attr]  # fmt: skip
    truth = read_trec_qrels(qrels)
    if collapse_truth:
        truth = rk.truth_to_documents(truth, group_by="query", document="#", grades={1: 0})  # type: ignore[assignment]
    result = rk.evaluate(documents, truth.collect(), k=[2, 3], group_by="query",
                         metrics=METRICS.split(","), policy=policy)  # fmt: skip
    return {(m, k): v for m, k, v in result.summary().select("metric", "k", "value").iter_rows()}


@pytest.mark.parametrize("depth", [None, 1])
def test_a_passage_run_on_document_qrels_equals_python(
    rankk: Rankk, files: dict[str, Path], depth: int | None
) -> None:
    args = ["--depth", str(depth)] if depth else []
    code, out, err = rankk("evaluate", files["run.trec"], files["documents.qrels"], "--documents",
                           "#", "--trec-eval", "-k", "2,3", "--metrics", METRICS, "-f", "json",
                           *args)  # fmt: skip
    assert code == 0, err
    assert summary(out) == python(files["run.trec"], files["documents.qrels"],
                                  collapse_truth=False, depth=depth)  # fmt: skip
    said = "rankk: warning: " + str(files["run.trec"]) + ": 7 passage rows collapsed to "
    assert said in err
    assert "document = the passage id up to the first '#'; score = max" in err
    assert json.loads(out)["documents"] == {"document": "#", "aggregate": "max", "top": None,
                                            "passage_index": None, "depth": depth}  # fmt: skip


def test_passage_qrels_are_collapsed_when_every_id_is_a_passages(
    rankk: Rankk, files: dict[str, Path]
) -> None:
    code, out, err = rankk("evaluate", files["run.trec"], files["passages.qrels"], "--documents",
                           "#", "--truth-grades", "1:0", "--trec-eval", "-k", "2,3",
                           "--metrics", METRICS, "-f", "json")  # fmt: skip
    assert code == 0, err
    assert summary(out) == python(files["run.trec"], files["passages.qrels"], collapse_truth=True)
    assert "every id is a passage's: 4 passage judgements made 4 document judgements" in err
    assert "grades remapped 1:0" in err


def test_qrels_mixing_passages_and_documents_are_left_and_said(
    rankk: Rankk, files: dict[str, Path], tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed.qrels"
    mixed.write_text("q1 0 d1#0 1\nq1 0 d2 2\n")
    code, _, err = rankk("evaluate", files["run.trec"], mixed, "--documents", "#", "-k", "2",
                         "--truth-grades", "1:0")  # fmt: skip
    assert code == 0, err
    assert "1 of 2 ids are passage ids: the judgements are left as they are" in err
    assert "--truth-grades 1:0: " + str(mixed) + " judges documents, not applied" in err


def test_a_mapping_file_and_first_passage(rankk: Rankk, files: dict[str, Path],
                                          tmp_path: Path) -> None:  # fmt: skip
    run = (
        read_trec_run(files["run.trec"])
        .collect()
        .with_columns(position=pl.col("item").str.extract(r"#(\d+)").cast(pl.Int64).fill_null(0))
    )
    run.write_parquet(tmp_path / "run.parquet")
    mapping = run.select("item", document=pl.col("item").str.head(2)).unique()
    mapping.write_csv(tmp_path / "mapping.csv")
    qrels = pl.DataFrame({"query": ["q1", "q2"], "item": ["d1", "d4"], "relevance": [1, 1]})
    qrels.write_parquet(tmp_path / "qrels.parquet")
    code, out, err = rankk("evaluate", tmp_path / "run.parquet", tmp_path / "qrels.parquet",
                           "--group-by", "query", "--documents", tmp_path / "mapping.csv",
                           "--aggregate", "first", "--passage-index", "position", "-k", "1",
                           "--metrics", "P", "-f", "json")  # fmt: skip
    assert code == 0, err
    documents = rk.to_documents(run, group_by="query", document=mapping, aggregate="first",
                                passage_index="position")  # fmt: skip
    want = rk.evaluate(documents, qrels, k=1, group_by="query", metrics="P").summary()
    assert summary(out)[("precision", 1)] == want["value"].item() == 0.5


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--aggregate", "mean"], "give --documents (a delimiter or a mapping file)"),
        (["--documents", "#", "--aggregate", "first"], "aggregate='first' needs passage_index"),
        (["--documents", "#", "--aggregate", "kmax_avg"], "needs top=..."),
        (["--documents", "#", "--rank", "rank"], "--documents collapses passages by their"),
    ],
)
def test_options_are_refused_in_words(
    rankk: Rankk, files: dict[str, Path], args: list[str], said: str
) -> None:
    code, _, err = rankk("evaluate", files["run.trec"], files["documents.qrels"], *args)
    assert code != 0
    assert said in " ".join(err.split())


def test_the_report_records_the_rule(rankk: Rankk, files: dict[str, Path], tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    code, _, err = rankk("evaluate", files["run.trec"], files["documents.qrels"], "--documents",
                         "#", "--depth", "2", "-k", "1,2", "--report", report,
                         "--n-resamples", "20")  # fmt: skip
    assert code == 0, err
    page = report.read_text()
    assert "the best 2 documents of each group" in page
    assert "how the candidates&#x27;" in page or "how the candidates'" in page


def test_compare_and_report_collapse_every_run(
    rankk: Rankk, files: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "other.trec"
    other.write_text(RUN.replace("0.9", "0.1"))
    code, out, err = rankk("compare", files["run.trec"], other, "--truth",
                           files["documents.qrels"], "--documents", "#", "--k", "2",
                           "--metrics", "ndcg", "--n-resamples", "20", "-f", "json")  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    assert document["documents"]["document"] == "#"
    truth = read_trec_qrels(files["documents.qrels"]).collect()
    for name, path in (("run", files["run.trec"]), ("other", other)):
        documents = rk.to_documents(read_trec_run(path), group_by="query", document="#")
        mean = rk.evaluate(documents.collect(), truth, k=2, metrics="ndcg",  # type: ignore[union-attr]
                           group_by="query").summary()["value"].item()  # fmt: skip
        assert document["means"][0][name] == pytest.approx(mean, abs=0)
    assert err.count("passage rows collapsed to") == 2
    page = tmp_path / "report.html"
    code, _, err = rankk("report", files["run.trec"], other, "--truth", files["documents.qrels"],
                         "--documents", "#", "--aggregate", "sum", "-o", page, "--k", "1,2",
                         "--n-resamples", "20")  # fmt: skip
    assert code == 0, err
    assert "score = sum: the sum of its passages" in page.read_text()
