"""BEIR's qrels files (polars_rankk/io/beir.py), read as BEIR's own loader reads them."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.io.beir import BeirQrelsWarning

HEADER = "query-id\tcorpus-id\tscore\n"


def beir_loader(path: Path) -> dict[str, dict[str, int]]:
    """BEIR's ``GenericDataLoader._load_qrels``, transcribed."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as file:
        reader = csv.reader(file, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        next(reader)
        for row in reader:
            query_id, corpus_id, score = row[0], row[1], int(row[2])
            qrels.setdefault(query_id, {})[corpus_id] = score
    return qrels


def as_dict(frame: pl.LazyFrame) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for query, item, relevance in frame.collect().iter_rows():
        qrels.setdefault(query, {})[item] = relevance
    return qrels


def test_ids_are_text_and_equal_beirs_loader(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text(HEADER + '1\t007\t1\n1\t7\t0\n02\t"doc\ttab"\t2\n3\tx\t1\textra\n')
    table = rk.read_beir_qrels(path)
    assert table.collect_schema() == pl.Schema(
        {"query": pl.String, "item": pl.String, "relevance": pl.Int64}
    )
    assert as_dict(table) == beir_loader(path)
    assert table.collect()["item"].to_list() == ["007", "7", "doc\ttab", "x"]


def test_a_pair_judged_twice_keeps_its_last_grade_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text(HEADER + "q\td\t1\nq\te\t0\nq\td\t2\n")
    with pytest.warns(BeirQrelsWarning, match=r"1 \(query, document\) pair\(s\) judged more "
                      r"than once, e.g. query 'q', document 'd' \(line 2\)"):  # fmt: skip
        table = rk.read_beir_qrels(path)
    assert as_dict(table) == beir_loader(path) == {"q": {"d": 2, "e": 0}}
    assert table.collect().rows() == [("q", "e", 0), ("q", "d", 2)]


def test_fractional_grades_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text(HEADER + "q\td\t0.5\n\nq\te\t1\n")
    assert rk.read_beir_qrels(path).collect()["relevance"].to_list() == [0.5, 1.0]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("q\td\t1\n", r"line 1: expected BEIR's header 'query-id corpus-id score'"),
        (HEADER + "q\td\n", r"line 2: expected 3 tab-separated fields .*, got 'q\\td\\t'"),
        (HEADER + "q\t\t1\n", r"line 2: an empty query-id or corpus-id"),
        (HEADER + "q\td\t1\nq\te\thigh\n", r"line 3: the score \(3rd field\) is not a number"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "test.tsv"
    path.write_text(text)
    with pytest.raises(ValueError, match=said):
        rk.read_beir_qrels(path)


def test_an_empty_file_with_only_its_header(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text(HEADER)
    assert rk.read_beir_qrels(path).collect().height == 0
