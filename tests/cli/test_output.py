"""Output: complete whenever stdout is not a terminal; table, CSV, JSON, Markdown, Parquet."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.cli.running import QRELS, RUN, Rankk, piped_rankk

LONG_NAME = "item_knn_with_a_rather_long_system_name"


@pytest.fixture(scope="module")
def long_names(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two systems with long names and long item ids, the shape that got truncated."""
    folder = tmp_path_factory.mktemp("wide")
    run = read_trec_run(RUN).collect()
    qrels = read_trec_qrels(QRELS).collect()
    prefix = pl.lit("catalogue_item_")
    run = run.with_columns(pl.concat_str([prefix, pl.col("item")]).alias("item"))
    qrels = qrels.with_columns(pl.concat_str([prefix, pl.col("item")]).alias("item"))
    paths = {
        "popularity": folder / "popularity.parquet",
        LONG_NAME: folder / f"{LONG_NAME}.parquet",
        "truth": folder / "truth.parquet",
    }
    run.write_parquet(paths["popularity"])
    run.with_columns(pl.col("score").reverse().over("query")).write_parquet(paths[LONG_NAME])
    qrels.write_parquet(paths["truth"])
    return paths


def test_piped_output_is_complete_csv_without_escape_codes() -> None:
    done = piped_rankk("evaluate", RUN, QRELS, "--k", "5")
    assert done.returncode == 0, done.stderr
    # No spinner; only what the evaluation did.
    said = f"rankk: warning: {RUN}: 430 relevant items never among the candidates\n"
    assert done.stderr == said
    printed = pl.read_csv(io.StringIO(done.stdout))
    expected = rk.evaluate(
        read_trec_run(RUN), read_trec_qrels(QRELS), k=5, group_by="query"
    ).summary()
    assert_frame_equal(printed, expected, check_dtypes=False)


def test_piped_table_is_never_truncated(rankk: Rankk, long_names: dict[str, Path]) -> None:
    args: list[str | Path] = [
        "compare", long_names["popularity"], long_names[LONG_NAME], "--truth",
        long_names["truth"], "--group-by", "query", "--k", "5,10", "--metrics",
        "ndcg,recall,r_precision", "--n-resamples", "50",
    ]  # fmt: skip
    done = piped_rankk(*args, "--format", "table")
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) > 80
    code, out, err = rankk(*args, "-f", "csv")
    assert code == 0, err
    rows = pl.read_csv(io.StringIO(out))
    assert rows.height == 5  # two metrics at K = 5 and 10, r_precision once
    lines = [line for line in done.stdout.splitlines() if LONG_NAME in line and "│" in line]
    assert len(lines) == rows.height
    for line, row in zip(lines, rows.iter_rows(named=True), strict=True):
        assert f"{row['diff']:+.4f}" in line
        assert f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]" in line


def test_per_group_table_is_printed_whole(rankk: Rankk) -> None:
    code, out, err = rankk("evaluate", RUN, QRELS, "--k", "1-20", "--per-group", "-f", "table")
    assert code == 0, err
    expected = rk.evaluate(
        read_trec_run(RUN).collect(),
        read_trec_qrels(QRELS).collect(),
        k=range(1, 21),
        group_by="query",
    ).per_group
    assert isinstance(expected, pl.DataFrame)
    lines = out.splitlines()
    assert lines[0] == f"results.test · per group ({expected.height:,} rows)"
    assert [cell.strip() for cell in lines[2].split("┃")[1:-1]] == expected.columns
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == expected.height > 400
    assert "…" not in out
    for line, row in zip(body, expected.iter_rows(named=True), strict=True):
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        k = "" if row["k"] is None else str(row["k"])
        assert cells == [row["query"], row["metric"], k, f"{row['value']:.4f}"]


def test_per_group_to_a_file_says_where(rankk: Rankk, tmp_path: Path) -> None:
    target = tmp_path / "groups.parquet"
    code, out, err = rankk("evaluate", RUN, QRELS, "--k", "5", "--per-group", "-o", target)
    assert (code, out) == (0, "")
    written = pl.read_parquet(target)
    assert err.splitlines()[0] == f"per-group table written to {target} ({written.height:,} rows)"
    assert_frame_equal(
        written,
        rk.evaluate(
            read_trec_run(RUN).collect(), read_trec_qrels(QRELS).collect(), k=5, group_by="query"
        ).per_group,
    )


def test_markdown_output(rankk: Rankk, tmp_path: Path) -> None:
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--metrics", "ndcg,r_precision", "-f", "markdown"
    )
    assert code == 0, err
    summary = rk.evaluate(
        read_trec_run(RUN),
        read_trec_qrels(QRELS),
        k=5,
        metrics=["ndcg", "r_precision"],
        group_by="query",
    ).summary()
    ndcg, r_precision = summary["value"].to_list()
    assert out == (
        "**results.test · macro mean**\n\n"
        "| metric | k | value | groups |\n"
        "| --- | ---: | ---: | ---: |\n"
        f"| ndcg | 5 | {ndcg:.4f} | 3 |\n"
        f"| r_precision |  | {r_precision:.4f} | 3 |\n"
    )
    target = tmp_path / "summary.md"
    code, _, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--metrics", "ndcg,r_precision", "-o", target
    )
    assert code == 0, err
    assert target.read_text() == out


def test_compare_markdown_has_both_tables(rankk: Rankk, long_names: dict[str, Path]) -> None:
    code, out, err = rankk(
        "compare", long_names["popularity"], long_names[LONG_NAME], "--truth",
        long_names["truth"], "--group-by", "query", "--k", "5", "--metrics", "ndcg",
        "--n-resamples", "20", "-f", "markdown",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith(
        f"**Mean over groups vs truth.parquet**\n\n| metric | popularity | {LONG_NAME} |\n"
    )
    assert "**Paired differences vs popularity (system − baseline)**" in out
    assert "| metric | system | diff | CI | p | p adj. | p from | groups |" in out
    assert "_p: paired randomization test; p adj.: Holm-corrected within each metric@k_" in out


def test_json_output_is_valid_with_nan_as_null(rankk: Rankk, tmp_path: Path) -> None:
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--metrics", "ndcg", "--empty-truth", "nan",
        "--per-group", "-f", "json",
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    assert document["candidates"] == str(RUN)
    assert document["policy"]["empty_truth"] == "nan"
    assert document["average"] is None
    assert len(document["rows"]) == 3
    assert {"query", "metric", "k", "value"} == set(document["rows"][0])


def test_table_to_a_text_file(rankk: Rankk, tmp_path: Path) -> None:
    target = tmp_path / "summary.txt"
    code, _, err = rankk("evaluate", RUN, QRELS, "--k", "5", "--metrics", "mrr", "-o", target)
    assert code == 0, err
    lines = target.read_text().splitlines()
    assert lines[0] == "results.test · macro mean"
    assert lines[2] == "┃ metric ┃ k ┃  value ┃ groups ┃"


def test_a_terminal_gets_the_table_by_default(
    rankk: Rankk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = rankk("evaluate", RUN, QRELS, "--k", "5", "--metrics", "mrr")
    assert code == 0
    assert err == f"rankk: warning: {RUN}: 430 relevant items never among the candidates\n"
    assert out.splitlines()[:3] == [
        "results.test · macro mean",
        "┏━━━━━━━━┳━━━┳━━━━━━━━┳━━━━━━━━┓",
        "┃ metric ┃ k ┃  value ┃ groups ┃",
    ]
