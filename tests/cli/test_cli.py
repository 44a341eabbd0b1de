"""The ``rankk`` command line (polars_rankk/cli.py)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.cli.app import main, parse_k
from polars_rankk.core.policy import POLICY_HELP
from polars_rankk.io import read_trec_qrels, read_trec_run

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "data" / "trec_eval" / "results.test"
QRELS = ROOT / "data" / "trec_eval" / "qrels.test"


def rankk(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run the command in-process: exit status, stdout, stderr."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("cli")
    run = read_trec_run(RUN).collect().rename({"query": "user"})
    qrels = read_trec_qrels(QRELS).collect().rename({"query": "user"})
    paths = {
        "run.parquet": folder / "run.parquet",
        "run.csv": folder / "run.csv",
        "qrels.tsv": folder / "qrels.tsv",
        "users.csv": folder / "users.csv",
        "shifted.parquet": folder / "shifted.parquet",
    }
    run.write_parquet(paths["run.parquet"])
    run.write_csv(paths["run.csv"])
    qrels.write_csv(paths["qrels.tsv"], separator="\t")
    users = run.select("user").unique().sort("user")
    users.with_columns(
        pl.when(pl.int_range(pl.len()) % 2 == 0)
        .then(pl.lit("even"))
        .otherwise(pl.lit("odd"))
        .alias("segment")
    ).write_csv(paths["users.csv"])
    run.with_columns(pl.col("score").reverse().over("user")).write_parquet(paths["shifted.parquet"])
    return paths


def test_parse_k() -> None:
    assert parse_k("5,10") == [5, 10]
    assert parse_k("1..3, 2-4") == [1, 2, 3, 4]
    for bad in ("", "a", "3-1", "0", "1.5"):
        with pytest.raises(ValueError, match="--k"):
            parse_k(bad)


def test_evaluate_trec_files_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = rankk(
        capsys, "evaluate", RUN, QRELS, "--k", "5,10", "--trec-eval", "--output-format", "csv"
    )
    assert code == 0, err
    printed = pl.read_csv(io.StringIO(out))
    expected = rk.evaluate(
        read_trec_run(RUN),
        read_trec_qrels(QRELS),
        k=[5, 10],
        group_by="query",
        policy=rk.Policy.trec_eval(),
    ).summary()
    assert_frame_equal(printed, expected, check_dtypes=False)
    code, out, _ = rankk(capsys, "evaluate", RUN, QRELS, "--k", "10", "--metrics", "ndcg")
    assert code == 0
    assert ("ndcg" in out and "0.3016" not in out) or "ndcg" in out  # a terminal table
    assert "┃" in out or "|" in out


def test_input_formats_and_column_options(
    capsys: pytest.CaptureFixture[str], tables: dict[str, Path], tmp_path: Path
) -> None:
    results = []
    for run in ("run.parquet", "run.csv"):
        target = tmp_path / f"{run}.parquet"
        code, _, err = rankk(
            capsys,
            "evaluate",
            tables[run],
            tables["qrels.tsv"],
            "--group-by",
            "user",
            "--k",
            "1-3",
            "-o",
            target,
        )
        assert code == 0, err
        results.append(pl.read_parquet(target))
    assert_frame_equal(results[0], results[1], check_dtypes=False)
    # mixing a TREC run with a table truth: TREC columns take the names given
    code, out, err = rankk(
        capsys,
        "evaluate",
        RUN,
        tables["qrels.tsv"],
        "--group-by",
        "user",
        "--k",
        "1-3",
        "--output-format",
        "csv",
    )
    assert code == 0, err
    assert_frame_equal(pl.read_csv(io.StringIO(out)), results[0], check_dtypes=False)


def test_json_per_group_ci_and_policies(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code, _, err = rankk(
        capsys,
        "evaluate",
        RUN,
        QRELS,
        "--k",
        "5",
        "--ties",
        "pessimistic",
        "--short-lists",
        "observed",
        "--ci",
        "--n-resamples",
        "50",
        "-o",
        target,
    )
    assert code == 0, err
    document = json.loads(target.read_text())
    assert document["policy"]["ties"] == "pessimistic"
    assert document["policy"]["short_lists"] == "observed"
    assert {"metric", "k", "value", "ci_low", "ci_high"} <= set(document["rows"][0])
    code, out, err = rankk(
        capsys,
        "evaluate",
        RUN,
        QRELS,
        "--k",
        "5",
        "--per-group",
        "--metrics",
        "recall",
        "--output-format",
        "csv",
    )
    assert code == 0, err
    per_group = pl.read_csv(io.StringIO(out))
    assert per_group.columns == ["query", "metric", "k", "value"]
    assert per_group.height == 3


def test_compare_and_report(
    capsys: pytest.CaptureFixture[str], tables: dict[str, Path], tmp_path: Path
) -> None:
    page = tmp_path / "compare.html"
    out_csv = tmp_path / "cmp.csv"
    code, _, err = rankk(
        capsys,
        "compare",
        f"base={tables['run.parquet']}",
        f"flipped={tables['shifted.parquet']}",
        "--truth",
        tables["qrels.tsv"],
        "--group-by",
        "user",
        "--k",
        "5,10",
        "--metrics",
        "ndcg,recall",
        "--n-resamples",
        "50",
        "--report",
        page,
        "--by",
        "segment",
        "--attributes",
        tables["users.csv"],
        "-o",
        out_csv,
    )
    assert code == 0, err
    cmp = pl.read_csv(out_csv)
    assert set(cmp.get_column("system")) == {"flipped"}
    assert set(cmp.get_column("baseline")) == {"base"}
    assert cmp.height == 4
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert 'id="comparison"' in html
    assert 'id="strata"' in html
    assert "report written to" in err
    code, _, err = rankk(capsys, "compare", RUN, RUN, "--truth", QRELS, "--k", "5")
    assert code == 1
    assert err.startswith("rankk: error: two systems are named 'results'")


def test_compare_splits_a_system_column(
    capsys: pytest.CaptureFixture[str], tables: dict[str, Path], tmp_path: Path
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
        capsys,
        "compare",
        path,
        "--system-column",
        "model",
        "--truth",
        tables["qrels.tsv"],
        "--group-by",
        "user",
        "--k",
        "5",
        "--metrics",
        "precision",
        "--baseline",
        "b",
        "--n-resamples",
        "30",
    )
    assert code == 0, err
    assert "Paired differences vs b" in out
    assert "precision@5" in out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["evaluate", "missing.parquet", QRELS], 1, "missing.parquet: no such file"),
        (["evaluate", RUN, QRELS, "--k", "0"], 1, "--k takes positive integers"),
        (["evaluate", RUN, QRELS, "--ties", "random"], 2, "'random' is not one of"),
        (["evaluate", RUN], 2, "Missing argument"),
        (["evaluate", RUN, QRELS, "--metrics", "accuracy"], 1, "accuracy"),
        (["evaluate", RUN, QRELS, "-o", "out.xlsx"], 1, "cannot tell the output format"),
        (["evaluate", RUN, QRELS, "--output-format", "parquet"], 1, "needs a file"),
        (["evaluate", QRELS, RUN], 1, "line 1"),
        (["compare", RUN, "--truth", QRELS], 1, "at least two systems"),
        (["frobnicate"], 2, "No such command"),
    ],
)
def test_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
    args: list[str | Path],
    code: int,
    message: str,
    tmp_path: Path,
) -> None:
    found, out, err = rankk(capsys, *args)
    assert found == code
    assert err.count("\n") == 1, err
    assert err.startswith("rankk: error: "), err
    assert message in err
    assert out == ""


def test_help_explains_every_policy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = rankk(capsys, "evaluate", "--help")
    assert code == 0
    flat = " ".join(out.split())
    for name, text in POLICY_HELP.items():
        assert f"--{name.replace('_', '-')}" in flat
        assert " ".join(text.split()) in flat, name
    code, out, _ = rankk(capsys, "compare", "--help")
    assert code == 0
    assert "--baseline" in out


def test_console_script_no_progress_when_piped(tmp_path: Path) -> None:
    executable = Path(sys.executable).parent / "rankk"
    if not executable.exists():
        pytest.skip("the rankk console script is not installed in this environment")
    done = subprocess.run(
        [str(executable), "evaluate", str(RUN), str(QRELS), "--k", "5", "--output-format", "csv"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no spinner, no escape codes
    assert re.match(r"metric,k,value,n_groups", done.stdout)
