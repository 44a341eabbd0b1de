"""Several systems in one file, and what the command says it did (stderr)."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.cli.running import ROOT, Rankk

CANDIDATES = ROOT / "data" / "demo_candidates.parquet"
TRUTH = ROOT / "data" / "demo_truth.parquet"


def test_the_bundled_multi_system_file_is_not_pooled_silently(rankk: Rankk) -> None:
    code, out, err = rankk("evaluate", CANDIDATES, TRUTH, "--k", "5,10", "--group-by", "user")
    assert (code, out) == (1, "")
    assert "rows repeat a (user, item) pair with a different 'system'" in err
    assert "Pass --system system to evaluate each system on its own" in err
    assert str(CANDIDATES) in err


def test_the_bundled_file_per_system(rankk: Rankk) -> None:
    code, out, err = rankk(
        "evaluate", CANDIDATES, TRUTH, "--k", "5,10", "--group-by", "user", "--system", "system",
        "--metrics", "ndcg,precision", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    printed = pl.read_csv(io.StringIO(out))
    expected = rk.evaluate(
        pl.read_parquet(CANDIDATES), pl.read_parquet(TRUTH), k=[5, 10], group_by="user",
        metrics=["ndcg", "precision"], system="system",
    ).summary()  # fmt: skip
    assert printed.columns[0] == "system"
    assert_frame_equal(printed, expected, check_dtypes=False)
    assert printed.filter(system="two_tower_v2", metric="ndcg", k=10)["value"].item() > 0.15
    lines = err.splitlines()
    said = f"rankk: warning: {CANDIDATES}: system 'two_tower': 257 duplicate candidate rows"
    assert f"{said} removed" in lines
    assert any("system 'popularity': 121 groups dropped: no relevant item in truth" in line
               for line in lines)  # fmt: skip
    assert any("relevant items never among the candidates" in line for line in lines)


def test_an_unknown_system_column_is_an_error(rankk: Rankk) -> None:
    code, _, err = rankk("evaluate", CANDIDATES, TRUTH, "--group-by", "user", "--system", "model")
    assert code == 1
    assert "has no column 'model' (--system)" in err


def test_a_named_relevance_column_that_does_not_exist_is_an_error(
    rankk: Rankk, tmp_path: Path
) -> None:
    candidates = tmp_path / "run.parquet"
    pl.read_parquet(CANDIDATES).filter(system="two_tower").drop("system").write_parquet(candidates)
    code, out, err = rankk(
        "evaluate", candidates, TRUTH, "--group-by", "user", "--relevance", "grade"
    )
    assert (code, out) == (1, "")
    assert f"{TRUTH} (TRUTH) has no column 'grade' (--relevance)" in err
    assert "pass --relevance relevance" in err


def test_duplicates_and_dropped_groups_are_said(rankk: Rankk, tmp_path: Path) -> None:
    candidates, truth = tmp_path / "run.csv", tmp_path / "truth.csv"
    candidates.write_text("user,item,score\n1,a,0.9\n1,a,0.8\n1,b,0.5\n3,c,0.1\n")
    truth.write_text("user,item\n1,a\n2,b\n")
    code, _, err = rankk(
        "evaluate", candidates, truth, "--group-by", "user", "--k", "1",
        "--missing-groups", "exclude", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert err.splitlines() == [
        f"rankk: warning: {candidates}: 1 group dropped: no candidates (--missing-groups exclude)",
        f"rankk: warning: {candidates}: 1 group in candidates but not in truth, not evaluated",
        f"rankk: warning: {candidates}: 1 duplicate candidate row removed",
        f"rankk: warning: {candidates}: 1 relevant item never among the candidates",
    ]
