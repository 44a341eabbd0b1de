"""``--rank COLUMN``: candidates ordered by a rank (lower first) instead of a score."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.cli.running import Rankk


@pytest.fixture
def ranked(tables: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    """The sample run with a UInt32 rank (1 = best) in place of its score."""
    run = pl.read_parquet(tables["run.parquet"])
    rank = pl.col("score").rank("ordinal", descending=True).over("user").cast(pl.UInt32)
    paths = {"ranks.parquet": tmp_path / "ranks.parquet", "ranks.csv": tmp_path / "ranks.csv"}
    with_rank = run.with_columns(rank.alias("position")).drop("score")
    with_rank.write_parquet(paths["ranks.parquet"])
    with_rank.write_csv(paths["ranks.csv"])
    return paths


def test_rank_column_gives_the_numbers_of_the_scores(
    rankk: Rankk, tables: dict[str, Path], ranked: dict[str, Path]
) -> None:
    args = ["--group-by", "user", "--k", "1,5,10", "-f", "csv"]
    code, by_score, err = rankk("evaluate", tables["run.parquet"], tables["qrels.tsv"], *args)
    assert code == 0, err
    for name in ("ranks.parquet", "ranks.csv"):
        code, by_rank, err = rankk(
            "evaluate", ranked[name], tables["qrels.tsv"], *args, "--rank", "position"
        )
        assert code == 0, name
        assert "never among the candidates" in err, name
        assert "error" not in err, name
        assert by_rank == by_score, name
    expected = rk.evaluate(
        pl.read_parquet(ranked["ranks.parquet"]),
        pl.read_csv(tables["qrels.tsv"], separator="\t", schema_overrides={"user": pl.String}),
        k=[1, 5, 10],
        group_by="user",
        rank="position",
    ).summary()
    assert_frame_equal(pl.read_csv(io.StringIO(by_score)), expected, check_dtypes=False)


def test_compare_by_rank(rankk: Rankk, tables: dict[str, Path], ranked: dict[str, Path]) -> None:
    code, out, err = rankk(
        "compare", f"a={ranked['ranks.parquet']}", f"b={ranked['ranks.csv']}", "--truth",
        tables["qrels.tsv"], "--group-by", "user", "--k", "5", "--metrics", "ndcg", "--rank",
        "position", "--n-resamples", "10", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert pl.read_csv(io.StringIO(out))["diff"].to_list() == [0.0]


def test_rank_errors_name_the_file(rankk: Rankk, tables: dict[str, Path], tmp_path: Path) -> None:
    code, _, err = rankk(
        "evaluate", tables["run.parquet"], tables["qrels.tsv"], "--group-by", "user", "--rank",
        "position",
    )  # fmt: skip
    assert code == 1
    assert err.startswith(
        f"rankk: error: {tables['run.parquet']} (CANDIDATES) has no column 'position'; "
    )
    text = tmp_path / "text_rank.csv"
    text.write_text("user,item,position\n301,a,first\n")
    code, _, err = rankk(
        "evaluate", text, tables["qrels.tsv"], "--group-by", "user", "--rank", "position"
    )
    assert code == 1
    assert err == (
        f"rankk: error: {text} (CANDIDATES) column 'position' must be numeric (a rank, lower "
        f"first); it holds String, e.g. row {{'user': '301', 'position': 'first'}}\n"
    )
