"""Input files: ids are never cast to strings, empty or unreadable files are named, forgotten
options are pointed out."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.cli.running import QRELS, RUN, Rankk


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Two users, string ids in one file and integer ids in another."""
    candidates = pl.DataFrame(
        {
            "user": ["u1", "u1", "u2", "u2"],
            "item": ["a", "b", "a", "c"],
            "score": [0.9, 0.5, 0.3, 0.8],
        }
    )
    paths = {
        "cand.csv": tmp_path / "cand.csv",
        "digits.csv": tmp_path / "digits.csv",
        "zeros.csv": tmp_path / "zeros.csv",
        "truth.csv": tmp_path / "truth.csv",
        "truth_int.parquet": tmp_path / "truth_int.parquet",
        "rated.csv": tmp_path / "rated.csv",
        "other_items.csv": tmp_path / "other_items.csv",
    }
    candidates.write_csv(paths["cand.csv"])
    numbered = candidates.with_columns(pl.col("user").str.strip_prefix("u"))
    numbered.write_csv(paths["digits.csv"])
    numbered.with_columns(pl.col("user").str.zfill(2)).write_csv(paths["zeros.csv"])
    truth = pl.DataFrame({"user": ["1", "2"], "item": ["a", "c"]})
    truth.write_csv(paths["truth.csv"])
    truth.with_columns(pl.col("user").cast(pl.UInt32)).write_parquet(paths["truth_int.parquet"])
    pl.DataFrame(
        {
            "user": ["u1", "u1", "u2", "u2"],
            "item": ["a", "b", "c", "a"],
            "rating": [4.0, 0.5, 0.5, 5.0],
        }
    ).write_csv(paths["rated.csv"])
    candidates.with_columns(pl.col("item") + "x").write_csv(paths["other_items.csv"])
    return paths


# Ids are never cast to strings to make them match ----------------------------


def test_string_ids_against_integer_ids_raise_naming_both_files(
    rankk: Rankk, files: dict[str, Path]
) -> None:
    code, out, err = rankk(
        "evaluate", files["cand.csv"], files["truth_int.parquet"], "--group-by", "user"
    )
    assert (code, out) == (1, "")
    assert err == (
        f"rankk: error: column 'user' holds integers in {files['truth_int.parquet']} (TRUTH) "
        f"(e.g. {{'user': 1}}) but text that is not a plain integer in {files['cand.csv']} "
        f"(CANDIDATES) (e.g. {{'user': 'u1'}}); ids must match exactly, so write them the same "
        f"way in both files\n"
    )
    # "02" is not how the integer 2 is written: no silent match either
    code, _, err = rankk(
        "evaluate", files["zeros.csv"], files["truth_int.parquet"], "--group-by", "user"
    )
    assert code == 1
    assert "(e.g. {'user': '01'})" in err


def test_integer_text_ids_match_typed_integer_ids(rankk: Rankk, files: dict[str, Path]) -> None:
    code, out, err = rankk(
        "evaluate", files["digits.csv"], files["truth_int.parquet"], "--group-by", "user",
        "--k", "1,2", "-f", "csv",
    )  # fmt: skip
    assert (code, err) == (0, "")
    expected = rk.evaluate(
        pl.read_csv(files["digits.csv"]),
        pl.read_parquet(files["truth_int.parquet"]),
        k=[1, 2],
        group_by="user",
    ).summary()
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)
    assert expected.filter(metric="precision", k=1)["value"][0] == 1.0


def test_no_matching_group_warns_on_stderr(rankk: Rankk, files: dict[str, Path]) -> None:
    code, out, err = rankk(
        "evaluate", files["cand.csv"], files["truth.csv"], "--group-by", "user", "--k", "2",
        "--metrics", "ndcg", "-f", "csv",
    )  # fmt: skip
    assert code == 0
    assert pl.read_csv(io.StringIO(out))["value"].to_list() == [0.0]
    assert err == (
        f"rankk: warning: no group of {files['cand.csv']} (CANDIDATES) is in "
        f"{files['truth.csv']} (TRUTH) (e.g. {{'user': 'u1'}} vs {{'user': '1'}}): every metric "
        f"will be 0. Check that both files hold the same ids in user\n"
        f"rankk: warning: {files['cand.csv']}: 2 groups in candidates but not in truth, "
        f"not evaluated\n"
        f"rankk: warning: {files['cand.csv']}: 2 relevant items never among the candidates\n"
    )


def test_no_matching_item_warns_on_stderr(rankk: Rankk, files: dict[str, Path]) -> None:
    code, _, err = rankk(
        "evaluate", files["other_items.csv"], files["rated.csv"], "--group-by", "user",
        "--relevance", "rating", "-f", "csv",
    )  # fmt: skip
    assert code == 0
    assert err.startswith(f"rankk: warning: no item of {files['other_items.csv']} (CANDIDATES)")
    assert "the same ids in item" in err


# Every error about a file names the file -------------------------------------------


@pytest.mark.parametrize(
    ("content", "name", "what"),
    [
        ("", "empty.run", "no lines"),
        ("user,item,score\n", "header.csv", "a header but no rows"),
        ("", "zero.csv", "no header, no rows"),
    ],
)
def test_empty_candidates_are_an_error_naming_the_file(
    rankk: Rankk, tmp_path: Path, tables: dict[str, Path], content: str, name: str, what: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    truth = QRELS if name.endswith(".run") else tables["qrels.tsv"]
    extra = [] if name.endswith(".run") else ["--group-by", "user"]
    code, out, err = rankk("evaluate", path, truth, *extra)
    assert (code, out) == (1, "")
    assert err == (
        f"rankk: error: {path}: the file is empty ({what}); there is nothing to evaluate\n"
    )


def test_empty_truth_is_an_error_naming_the_file(rankk: Rankk, tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("")
    code, _, err = rankk("evaluate", RUN, path)
    assert code == 1
    assert (
        err == f"rankk: error: {path}: the file is empty (no lines); there is nothing to evaluate\n"
    )


def test_unreadable_files_are_named(rankk: Rankk, tmp_path: Path, tables: dict[str, Path]) -> None:
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    code, _, err = rankk("evaluate", broken, tables["qrels.tsv"], "--group-by", "user")
    assert code == 1
    assert err.startswith(f"rankk: error: {broken}: not a readable Parquet file (")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text('user,item,score\nu1,"a,0.5\n')
    code, _, err = rankk("evaluate", ragged, tables["qrels.tsv"], "--group-by", "user")
    assert code == 1
    assert err.startswith(f"rankk: error: {ragged}: ")


def test_errors_from_the_evaluation_name_the_files(
    rankk: Rankk, tmp_path: Path, tables: dict[str, Path]
) -> None:
    path = tmp_path / "nulls.csv"
    path.write_text("user,item,score\n301,a,\n301,b,0.5\n")
    code, _, err = rankk("evaluate", path, tables["qrels.tsv"], "--group-by", "user")
    assert code == 1
    assert "must hold finite numbers" in err
    assert err.endswith(f"[candidates: {path}; truth: {tables['qrels.tsv']}]\n")
    text = tmp_path / "text_scores.csv"
    text.write_text("user,item,score\n301,a,high\n")
    code, _, err = rankk("evaluate", text, tables["qrels.tsv"], "--group-by", "user")
    assert code == 1
    assert err == (
        f"rankk: error: {text} (CANDIDATES) column 'score' must be numeric (a score, higher "
        f"first); it holds String, e.g. row {{'user': '301', 'score': 'high'}}\n"
    )


# The "Also" bullets: swapped arguments ---------------------------------------------------------


def test_swapped_tables_get_a_hint(rankk: Rankk, tables: dict[str, Path]) -> None:
    code, _, err = rankk("evaluate", tables["qrels.tsv"], tables["run.csv"], "--group-by", "user")
    assert code == 1
    columns = pl.read_csv(tables["qrels.tsv"], separator="\t", n_rows=0).columns
    assert err == (
        f"rankk: error: {tables['qrels.tsv']} (CANDIDATES) has no column 'score'; its columns "
        f"are {columns}. {tables['run.csv']} (TRUTH) has a 'score' column: are CANDIDATES and "
        f"TRUTH swapped? The order is CANDIDATES TRUTH.\n"
    )


def test_swapped_trec_files_get_a_hint(rankk: Rankk) -> None:
    code, _, err = rankk("evaluate", QRELS, RUN)
    assert code == 1
    assert err.startswith(f"rankk: error: {QRELS} line 1: ")
    assert err.endswith(
        f"{QRELS} (CANDIDATES) looks like TREC qrels, not a run: are CANDIDATES and TRUTH "
        f"swapped?\n"
    )


def test_missing_score_column_names_the_options(rankk: Rankk, files: dict[str, Path]) -> None:
    code, _, err = rankk(
        "evaluate", files["cand.csv"], files["truth.csv"], "--group-by", "user", "--score", "p"
    )
    assert code == 1
    assert err == (
        f"rankk: error: {files['cand.csv']} (CANDIDATES) has no column 'p'; its columns are "
        f"['user', 'item', 'score']. Name the score column with --score, or a rank column "
        f"with --rank.\n"
    )


# A forgotten --relevance ------------------------------------------------------


def test_an_unnamed_numeric_truth_column_warns_once(rankk: Rankk, files: dict[str, Path]) -> None:
    args = ["--group-by", "user", "--k", "1", "--metrics", "precision", "-f", "csv"]
    code, out, err = rankk("evaluate", files["cand.csv"], files["rated.csv"], *args)
    assert code == 0
    assert err == (
        f"rankk: warning: {files['rated.csv']} (TRUTH) has no 'relevance' column, so every "
        f"truth row counts as relevant (grade 1) and its numeric column 'rating' is not used; "
        f"to grade by it, pass --relevance rating\n"
    )
    assert pl.read_csv(io.StringIO(out))["value"].to_list() == [1.0]
    code, out, err = rankk(
        "evaluate", files["cand.csv"], files["rated.csv"], *args, "--relevance", "rating"
    )
    assert (code, err) == (0, "")
    assert pl.read_csv(io.StringIO(out))["value"].to_list() == [0.5]
    # compare reads the truth once and warns once, whatever the number of runs
    code, _, err = rankk(
        "compare", f"a={files['cand.csv']}", f"b={files['cand.csv']}", "--truth",
        files["rated.csv"], "--n-resamples", "10", *args,
    )  # fmt: skip
    assert code == 0, err
    assert err.count("rankk: warning:") == 1
    assert "pass --relevance rating" in err


def test_a_group_matched_only_past_the_first_rows_probed_is_no_warning(
    rankk: Rankk, tmp_path: Path
) -> None:
    """The candidates' first 10,000 rows are probed for an id the truth holds; a match only
    past them is found in a probe of every row, so nothing is said."""
    n = 10_005
    candidates = pl.DataFrame({"user": list(range(n)), "item": [1] * n, "score": [1.0] * n})
    candidates.write_parquet(tmp_path / "cand.parquet")
    pl.DataFrame({"user": [n - 1], "item": [1]}).write_parquet(tmp_path / "truth.parquet")
    code, out, err = rankk(
        "evaluate", tmp_path / "cand.parquet", tmp_path / "truth.parquet", "--group-by", "user",
        "--k", "1", "--metrics", "precision", "-f", "csv",
    )  # fmt: skip
    assert code == 0
    assert "no group of" not in err
    assert pl.read_csv(io.StringIO(out))["value"].to_list() == [1.0]
