"""TREC run and qrels I/O (polars_rankk/io/trec.py)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankk.io import read_trec_qrels, read_trec_run, write_trec_run
from tests.support.trec_eval_files import DATA


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_schema_and_values(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "run.trec",
        "q1 Q0 d1 1 2.5 tag\n"
        "q1\tQ0\td2\t2\t-1e-3\ttag\n"
        "   q2   Q0  d1  1   3   tag  trailing junk as in results.trunc\r\n"
        "\n"
        "q2 Q0 d3 7 1 tag",  # no final newline
    )
    lf = read_trec_run(path)
    assert isinstance(lf, pl.LazyFrame)
    expected = pl.DataFrame(
        {
            "query": ["q1", "q1", "q2", "q2"],
            "item": ["d1", "d2", "d1", "d3"],
            "score": [2.5, -0.001, 3.0, 1.0],
        }
    )
    assert_frame_equal(lf.collect(), expected)


def test_qrels_int_and_float_grades(tmp_path: Path) -> None:
    ints = read_trec_qrels(_write(tmp_path, "a", "1 0 d1 2\n1 0 d2 0\n1 0 d3 -1\n")).collect()
    assert ints.schema == pl.Schema({"query": pl.String, "item": pl.String, "relevance": pl.Int64})
    assert ints["relevance"].to_list() == [2, 0, -1]
    floats = read_trec_qrels(_write(tmp_path, "b", "1 0 d1 2\n1 0 d2 0.5\n")).collect()
    assert floats.schema["relevance"] == pl.Float64
    assert floats["relevance"].to_list() == [2.0, 0.5]


def test_ids_stay_strings(tmp_path: Path) -> None:
    # "007" and "7" are different documents: ids are never parsed as numbers
    run = read_trec_run(_write(tmp_path, "r", "01 Q0 007 1 1.0 t\n01 Q0 7 2 0.5 t\n")).collect()
    assert run["query"].to_list() == ["01", "01"]
    assert run["item"].to_list() == ["007", "7"]


@pytest.mark.parametrize(
    ("text", "line_no", "fragment"),
    [
        ("q1 Q0 d1 1 2.5 t\nfoo bar\n", 2, "expected at least 6 whitespace-separated fields"),
        ("q1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 1 high t\n", 3, "score (5th field) is not a number"),
        ("q1 Q0 d1 1 2.5\n", 1, "expected at least 6"),
    ],
)
def test_run_errors_name_file_line_and_text(
    tmp_path: Path, text: str, line_no: int, fragment: str
) -> None:
    path = _write(tmp_path, "results.trec", text)
    bad_line = text.split("\n")[line_no - 1]
    with pytest.raises(ValueError, match=re.escape("results.trec")) as info:
        read_trec_run(path)
    message = str(info.value)
    assert f"line {line_no}:" in message
    assert fragment in message
    assert repr(bad_line) in message


@pytest.mark.parametrize(
    ("text", "line_no", "fragment"),
    [
        ("1 0 d1 1\n1 0 d2\n", 2, "expected 4 whitespace-separated fields"),
        ("1 0 d1 1 extra\n", 1, "expected 4"),
        ("1 0 d1 1\n1 0 d2 yes\n", 2, "relevance (4th field) is not a finite number"),
        ("1 0 d1 nan\n", 1, "not a finite number"),
        ("1 0 d1 99999999999999999999\n", 1, "not a finite number"),
    ],
)
def test_qrels_errors_name_file_line_and_text(
    tmp_path: Path, text: str, line_no: int, fragment: str
) -> None:
    path = _write(tmp_path, "qrels.txt", text)
    with pytest.raises(ValueError, match=re.escape("qrels.txt")) as info:
        read_trec_qrels(path)
    message = str(info.value)
    assert f"line {line_no}:" in message
    assert fragment in message
    assert repr(text.split("\n")[line_no - 1]) in message


def test_empty_files(tmp_path: Path) -> None:
    run = read_trec_run(_write(tmp_path, "r", "")).collect()
    assert run.schema == pl.Schema({"query": pl.String, "item": pl.String, "score": pl.Float64})
    assert run.height == 0
    qrels = read_trec_qrels(_write(tmp_path, "q", "\n\n")).collect()
    assert qrels.height == 0
    assert qrels.schema["relevance"] == pl.Int64


def test_trec_eval_test_files() -> None:
    run = read_trec_run(DATA / "results.test").collect()
    assert run.shape == (1500, 3)
    assert run.group_by("query").len().sort("query")["len"].to_list() == [500, 500, 500]
    assert run.row(0) == ("301", "FR940202-2-00150", 2.129133)
    trunc = read_trec_run(DATA / "results.trunc").collect()  # extra text after the tag
    assert trunc.shape == (584, 3)
    qrels = read_trec_qrels(DATA / "qrels.rel_level").collect()
    assert qrels.shape == (3681, 3)
    assert qrels.schema["relevance"] == pl.Int64
    assert sorted(qrels["relevance"].unique().to_list()) == [-1, 0, 1, 2, 3, 4]


def test_write_then_read_roundtrip(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "user": [2, 1, 1, 1],
            "product": [5, 10, 9, 11],
            "s": [0.1, 0.5, 0.5, 2.0],
        }
    )
    path = tmp_path / "out.run"
    write_trec_run(frame, path, group_by="user", item="product", score="s", tag="sys1")
    lines = path.read_text().splitlines()
    # trec_eval order: score descending, ties by item id descending as strings ("9" > "10")
    assert lines == [
        "1 Q0 11 1 2.0 sys1",
        "1 Q0 9 2 0.5 sys1",
        "1 Q0 10 3 0.5 sys1",
        "2 Q0 5 1 0.1 sys1",
    ]
    back = read_trec_run(path).collect()
    assert back["score"].to_list() == [2.0, 0.5, 0.5, 0.1]


def test_write_rejects_whitespace(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query": ["q 1"], "item": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="whitespace"):
        write_trec_run(frame, tmp_path / "x")
    ok = pl.DataFrame({"query": ["q"], "item": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="tag"):
        write_trec_run(ok, tmp_path / "x", tag="my run")


def test_scores_keep_full_precision(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query": ["q"], "item": ["d"], "score": [0.1 + 0.2]})
    write_trec_run(frame, tmp_path / "p")
    assert read_trec_run(tmp_path / "p").collect()["score"].item() == 0.1 + 0.2


def test_qrels_comment_is_not_a_query(tmp_path: Path) -> None:
    # trec_eval's get_qrels.c skips '#' lines; read as data, '#' became a query scoring 0
    import polars_rankk as rk

    qrels = read_trec_qrels(_write(tmp_path, "q", "# 0 d9 1\nq1 0 d1 1\n  # 0 d8 1\n"))
    assert qrels.collect().rows() == [("q1", "d1", 1)]
    run = read_trec_run(_write(tmp_path, "r", "q1 Q0 d1 1 2.0 t\n"))
    result = rk.evaluate(run, qrels, k=1, metrics="precision", group_by="query",
                         policy=rk.Policy.trec_eval())  # fmt: skip
    summary = result.summary()
    assert summary.select("value", "n_groups").row(0) == (1.0, 1)


@pytest.mark.parametrize(
    "comment",
    ["# a b c d e f", "#short", "   #\tindented a b c d e", "#q1 Q0 d9 1 9.9 t"],
)
def test_run_comments_are_skipped(tmp_path: Path, comment: str) -> None:
    path = _write(tmp_path, "run.trec", f"{comment}\nq1 Q0 d1 1 2.5 t\n{comment}\n")
    assert read_trec_run(path).collect().rows() == [("q1", "d1", 2.5)]


def test_ids_split_on_ascii_whitespace_only(tmp_path: Path) -> None:
    # trec_eval splits with C isspace (C locale): a no-break space is part of the id
    run = read_trec_run(
        _write(tmp_path, "r", "q1 Q0 d\u00a01 1 2.5 tag\nq1\x0bQ0\x0cd\u20032\r2 1.5\ttag\r\n")
    ).collect()
    assert run.rows() == [("q1", "d\u00a01", 2.5), ("q1", "d\u20032", 1.5)]
    qrels = read_trec_qrels(_write(tmp_path, "q", "q1 0 d\u00a01 1\n")).collect()
    assert qrels.rows() == [("q1", "d\u00a01", 1)]


def test_field_count_errors_give_the_file_line_number(tmp_path: Path) -> None:
    # comments and blank lines count, so the number is the line an editor shows
    path = _write(tmp_path, "qrels.txt", "# header\n\nq1 0 d1 1\nq1 0 d\u00a0 2 1\n")
    with pytest.raises(ValueError, match=r"qrels\.txt line 4: expected 4 whitespace"):
        read_trec_qrels(path)
    run = _write(tmp_path, "run.trec", "# header\nq1 Q0 d1 1 2.5 t\nq1 Q0 d\u00a01 1 2.5\n")
    with pytest.raises(ValueError, match=r"run\.trec line 3: expected at least 6"):
        read_trec_run(run)


def test_write_keeps_unicode_ids_and_refuses_comment_groups(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query": ["q"], "item": ["d\u00a01"], "score": [1.0]})
    write_trec_run(frame, tmp_path / "u", tag="t\u00a0x")
    assert read_trec_run(tmp_path / "u").collect()["item"].to_list() == ["d\u00a01"]
    hashed = pl.DataFrame({"query": ["#1"], "item": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="'#'"):
        write_trec_run(hashed, tmp_path / "h")
