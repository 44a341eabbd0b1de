"""``rankk evaluate`` and ``rankk compare`` give the library's numbers, in every format."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.cli.running import QRELS, RUN, Rankk


def test_evaluate_trec_files_matches_the_library(rankk: Rankk) -> None:
    code, out, err = rankk("evaluate", RUN, QRELS, "--k", "5,10", "--trec-eval", "-f", "csv")
    assert code == 0, err
    expected = rk.evaluate(
        read_trec_run(RUN),
        read_trec_qrels(QRELS),
        k=[5, 10],
        group_by="query",
        policy=rk.Policy.trec_eval(),
    ).summary()
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_input_formats_and_column_options(
    rankk: Rankk, tables: dict[str, Path], tmp_path: Path
) -> None:
    results = []
    for run in ("run.parquet", "run.csv"):
        target = tmp_path / f"{run}.parquet"
        code, _, err = rankk(
            "evaluate", tables[run], tables["qrels.tsv"], "--group-by", "user", "--k", "1-3",
            "-o", target,
        )  # fmt: skip
        assert code == 0, err
        assert f"summary written to {target}" in err
        results.append(pl.read_parquet(target))
    assert_frame_equal(results[0], results[1], check_dtypes=False)
    # a TREC run with a table truth: TREC columns take the names given
    code, out, err = rankk(
        "evaluate", RUN, tables["qrels.tsv"], "--group-by", "user", "--k", "1-3", "-f", "csv"
    )
    assert code == 0, err
    assert_frame_equal(pl.read_csv(io.StringIO(out)), results[0], check_dtypes=False)
    # --input-format reads a file whatever its extension
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--k", "3", "--input-format", "trec", "-f", "csv"
    )
    assert code == 0, err


def test_json_per_group_ci_and_policies(rankk: Rankk, tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code, _, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--ties", "pessimistic", "--short-lists",
        "observed", "--ci", "--n-resamples", "50", "-o", target,
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(target.read_text())
    assert document["policy"]["ties"] == "pessimistic"
    assert document["policy"]["short_lists"] == "observed"
    assert document["group_by"] == ["query"]
    assert {"metric", "k", "value", "ci_low", "ci_high"} <= set(document["rows"][0])
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--per-group", "--metrics", "recall", "-f", "csv"
    )
    assert code == 0, err
    per_group = pl.read_csv(io.StringIO(out))
    assert per_group.columns == ["query", "metric", "k", "value"]
    assert per_group.height == 3


def test_micro_average(rankk: Rankk) -> None:
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--metrics", "precision", "--average", "micro",
        "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    expected = rk.evaluate(
        read_trec_run(RUN), read_trec_qrels(QRELS), k=5, metrics="precision", group_by="query"
    ).summary(average="micro")
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_compare_and_report(rankk: Rankk, tables: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "compare.html"
    out_csv = tmp_path / "comparison.csv"
    code, _, err = rankk(
        "compare", f"base={tables['run.parquet']}", f"flipped={tables['shifted.parquet']}",
        "--truth", tables["qrels.tsv"], "--group-by", "user", "--k", "5,10",
        "--metrics", "ndcg,recall", "--n-resamples", "50", "--report", page,
        "--by", "segment", "--attributes", tables["users.csv"], "-o", out_csv,
    )  # fmt: skip
    assert code == 0, err
    comparison = pl.read_csv(out_csv)
    assert set(comparison.get_column("system")) == {"flipped"}
    assert set(comparison.get_column("baseline")) == {"base"}
    assert comparison.height == 4
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert 'id="comparison"' in html
    assert 'id="strata"' in html
    assert f"report written to {page}" in err
    code, _, err = rankk("compare", RUN, RUN, "--truth", QRELS, "--k", "5")
    assert code == 1
    assert err.startswith("rankk: error: two systems are named 'results'")


def test_compare_means_match_each_evaluation(rankk: Rankk, tables: dict[str, Path]) -> None:
    code, out, err = rankk(
        "compare", tables["run.parquet"], tables["shifted.parquet"], "--truth",
        tables["qrels.parquet"], "--group-by", "user", "--k", "5", "--metrics", "ndcg",
        "--n-resamples", "20", "-f", "json",
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    truth = pl.read_parquet(tables["qrels.parquet"])
    for name in ("run", "shifted"):
        mean = rk.evaluate(
            pl.read_parquet(tables[f"{name}.parquet"]), truth, k=5, metrics="ndcg", group_by="user"
        ).summary()["value"][0]
        assert document["means"][0][name] == pytest.approx(mean, abs=0)
    assert document["runs"] == {
        "run": str(tables["run.parquet"]),
        "shifted": str(tables["shifted.parquet"]),
    }
    assert [row["system"] for row in document["rows"]] == ["shifted"]


def test_compare_splits_a_system_column(
    rankk: Rankk, tables: dict[str, Path], tmp_path: Path
) -> None:
    both = pl.concat(
        [
            pl.read_parquet(tables["run.parquet"]).with_columns(model=pl.lit("a")),
            pl.read_parquet(tables["shifted.parquet"]).with_columns(model=pl.lit("b")),
        ]
    )
    path = tmp_path / "both.parquet"
    both.write_parquet(path)
    code, out, err = rankk(
        "compare", path, "--system", "model", "--truth", tables["qrels.tsv"],
        "--group-by", "user", "--k", "5", "--metrics", "precision", "--baseline", "b",
        "--n-resamples", "30", "-f", "table",
    )  # fmt: skip
    assert code == 0, err
    assert "Paired differences vs b" in out
    assert "precision@5" in out
    assert "deprecated" not in err
    code, _, err = rankk(
        "compare", path, "--system", "team", "--truth", tables["qrels.tsv"],
        "--group-by", "user",
    )  # fmt: skip
    assert code == 1
    assert f"{path} (run 'both') has no column 'team' (--system)" in err


def test_compare_system_column_is_the_old_spelling_of_system(
    rankk: Rankk, tables: dict[str, Path], tmp_path: Path
) -> None:
    both = pl.concat(
        [
            pl.read_parquet(tables["run.parquet"]).with_columns(model=pl.lit("a")),
            pl.read_parquet(tables["shifted.parquet"]).with_columns(model=pl.lit("b")),
        ]
    )
    path = tmp_path / "both.parquet"
    both.write_parquet(path)
    options = ["--truth", tables["qrels.tsv"], "--group-by", "user", "--k", "5",
               "--metrics", "precision", "--n-resamples", "30", "-f", "csv"]  # fmt: skip
    code, new, err = rankk("compare", path, "--system", "model", *options)
    assert code == 0, err
    code, old, err = rankk("compare", path, "--system-column", "model", *options)
    assert code == 0, err
    assert old == new
    assert "rankk: warning: --system-column is deprecated" in err
    assert "use --system COLUMN" in err


def test_compare_gives_catalogue_metrics_their_own_rows(
    rankk: Rankk, tables: dict[str, Path]
) -> None:
    code, out, err = rankk(
        "compare", f"a={tables['run.parquet']}", f"b={tables['shifted.parquet']}",
        "--truth", tables["qrels.tsv"], "--group-by", "user", "--k", "5",
        "--metrics", "ndcg,coverage", "--n-resamples", "30", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    rows = pl.read_csv(io.StringIO(out))
    assert set(rows["metric"]) == {"ndcg", "coverage"}
    coverage = rows.filter(pl.col("metric") == "coverage").row(0, named=True)
    assert coverage["diff"] == pytest.approx(coverage["mean"] - coverage["baseline_mean"])
    assert coverage["p_value_randomization"] is None  # one figure per system: no test


def test_evaluate_report_and_its_errors_name_the_files(
    rankk: Rankk, tables: dict[str, Path], tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    args = ["--group-by", "user", "--k", "5", "--n-resamples", "10", "--report", page]
    code, _, err = rankk(
        "evaluate", tables["run.csv"], tables["qrels.tsv"], *args, "--by", "segment",
        "--attributes", tables["users.csv"], "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert err.endswith(f"report written to {page}\n")
    assert "430 relevant items never among the candidates" in err
    assert 'id="strata"' in page.read_text()
    code, _, err = rankk(
        "evaluate", tables["run.csv"], tables["qrels.tsv"], *args, "--by", "tier",
        "--attributes", tables["users.csv"],
    )  # fmt: skip
    assert code == 1
    assert "'tier'" in err
    assert err.endswith(f"[report: {page}; attributes: {tables['users.csv']}]\n")


def test_compare_family_of_the_correction(rankk: Rankk, tables: dict[str, Path]) -> None:
    args = [
        "compare", f"a={tables['run.parquet']}", f"b={tables['shifted.parquet']}",
        f"c={tables['run.csv']}", "--truth", tables["qrels.tsv"], "--group-by", "user",
        "--k", "5,10", "--metrics", "ndcg,recall", "--n-resamples", "10",
    ]  # fmt: skip
    code, out, err = rankk(*args, "-f", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["family"] == "challengers"
    assert {row["family_size"] for row in document["rows"]} == {2}  # b and c, per metric@k
    assert {row["p_value_method"] for row in document["rows"]} == {"exact"}
    code, out, err = rankk(*args, "--family", "all", "-f", "table")
    assert code == 0, err
    assert out.endswith("p: paired randomization test; p adj.: Holm-corrected over all rows\n")
    assert "│ exact  │" in out


def test_compare_adjusts_within_each_metric_at_k_by_default_as_the_statistics_page_says(
    rankk: Rankk, tables: dict[str, Path]
) -> None:
    page = " ".join((Path(__file__).parents[2] / "docs" / "statistics.md").read_text().split())
    assert "with one challenger each family holds one p-value, so `p_adjusted`" in page.lower()
    options = [
        f"a={tables['run.parquet']}", f"b={tables['shifted.parquet']}", "--truth",
        tables["qrels.tsv"], "--group-by", "user", "--k", "5,10", "--metrics", "ndcg,recall",
        "--n-resamples", "30", "-f", "csv",
    ]  # fmt: skip
    code, out, err = rankk("compare", *options)
    assert code == 0, err
    rows = pl.read_csv(io.StringIO(out))
    assert rows["family_size"].to_list() == [1] * 4
    assert rows["p_adjusted"].to_list() == rows["p_value_randomization"].to_list()
    code, out, err = rankk("compare", *options, "--family", "all")
    assert code == 0, err
    assert pl.read_csv(io.StringIO(out))["family_size"].to_list() == [4] * 4


def test_evaluate_names_the_summary_as_the_tool_named_by_names(rankk: Rankk) -> None:
    """``--metrics P_10,map`` prints the canonical ``precision,10`` (and no default K: each
    name carries its cut-off or reads the whole list); ``--names`` asks for a tool's spelling,
    as ``summary(names=)`` does."""
    code, out, err = rankk("evaluate", RUN, QRELS, "--metrics", "P_10,map", "-f", "csv")
    assert code == 0, err
    table = pl.read_csv(io.StringIO(out))
    assert table.select("metric", "k").rows() == [("precision", 10), ("average_precision", None)]
    res = rk.evaluate(read_trec_run(RUN), read_trec_qrels(QRELS), k=[5, 10, 20],
                      metrics=["P_10", "map"], group_by="query")  # fmt: skip
    # A name typed with its own cut-off is read at that cut-off only: --k reaches none here.
    for names, spelled in {"trec_eval": ["P_10", "map"],
                           "ir_measures": ["P@10", "AP"]}.items():  # fmt: skip
        code, out, err = rankk(
            "evaluate", RUN, QRELS, "--metrics", "P_10,map", "--k", "5,10,20", "--names", names,
            "-f", "csv",
        )  # fmt: skip
        assert code == 0, err
        table = pl.read_csv(io.StringIO(out))
        assert table["metric"].to_list() == spelled
        want = res.collect().summary(names=names)  # type: ignore[arg-type]
        assert table["value"].to_list() == want["value"].to_list()
