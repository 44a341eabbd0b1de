"""``rankk`` numbers that looked right and were not: each test fails on the mechanism that
made the plausible wrong number, and passes on the fix."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from polars_rankk.cli.inputs import warn
from tests.cli.running import Rankk


def _runs(folder: Path) -> tuple[Path, Path, Path]:
    """A run exposing one item to both users and a run exposing four: the second covers
    more of any catalogue."""
    narrow = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": [1, 2, 1, 2], "score": [2.0, 1.0, 2.0, 1.0]}
    )
    wide = pl.DataFrame({"user": [1, 1, 2, 2], "item": [3, 4, 5, 6], "score": [2.0, 1.0, 2.0, 1.0]})
    truth = pl.DataFrame({"user": [1, 2], "item": [1, 5]})
    paths = folder / "narrow.parquet", folder / "wide.parquet", folder / "truth.parquet"
    for frame, path in zip((narrow, wide, truth), paths, strict=True):
        frame.write_parquet(path)
    return paths


def test_compare_measures_coverage_against_one_catalogue(rankk: Rankk, tmp_path: Path) -> None:
    """``rankk compare`` measures every system's coverage against one catalogue (the items of
    all runs): at K = 1 the run exposing two items covers 2/6, the one exposing one item 1/6
    (each against its own items both were 0.5, and the difference 0)."""
    narrow, wide, truth = _runs(tmp_path)
    code, out, err = rankk(
        "compare", f"narrow={narrow}", f"wide={wide}", "--truth", truth, "--group-by", "user",
        "--k", "1", "--metrics", "coverage,ndcg", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    table = pl.read_csv(io.StringIO(out)).filter(metric="coverage")
    assert table.select("baseline_mean", "mean").row(0) == (1 / 6, 2 / 6)


def test_catalogue_metrics_alone_are_evaluated_and_compared(rankk: Rankk, tmp_path: Path) -> None:
    """``--metrics coverage`` (or gini) alone: ``evaluate`` prints the figure and ``compare``
    the systems' figures and difference, where both failed with an internal error (a Null
    column's logarithm, an empty table's first row)."""
    narrow, wide, truth = _runs(tmp_path)
    for metric, expected in (("coverage", 0.5), ("gini", 0.5)):
        code, out, err = rankk(
            "evaluate", narrow, truth, "--group-by", "user", "--k", "1", "--metrics", metric,
            "-f", "csv",
        )  # fmt: skip
        assert code == 0, err
        assert pl.read_csv(io.StringIO(out)).select("metric", "value").row(0) == (
            metric,
            expected,
        )
        code, out, err = rankk(
            "compare", f"narrow={narrow}", f"wide={wide}", "--truth", truth, "--group-by",
            "user", "--k", "1", "--metrics", metric, "-f", "csv",
        )  # fmt: skip
        assert code == 0, err
        assert pl.read_csv(io.StringIO(out))["metric"].to_list() == [metric]


def test_report_of_catalogue_metrics_alone_is_refused_in_words(
    rankk: Rankk, tmp_path: Path
) -> None:
    """A report of coverage alone (whose sections are all over groups) is refused in words,
    where it failed with "need at least one array to stack"."""
    narrow, wide, truth = _runs(tmp_path)
    code, _, err = rankk(
        "report", f"narrow={narrow}", f"wide={wide}", "--truth", truth, "--group-by", "user",
        "--k", "1,2", "--metrics", "coverage", "-o", tmp_path / "report.html",
    )  # fmt: skip
    assert code == 1
    assert "catalogue-level ones (coverage" in err
    assert "stack" not in err


def test_library_warnings_are_one_line_in_option_terms(rankk: Rankk, tmp_path: Path) -> None:
    """A warning the library raises while the command runs (here a TREC run's byte order
    mark) is one ``rankk: warning:`` line, with no file path of the package nor source line,
    and policies written as options, where it reached stderr as a raw Python warning."""
    run = tmp_path / "bom.run"
    run.write_bytes(b"\xef\xbb\xbfq1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0 s\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    code, _, err = rankk("evaluate", run, qrels, "--k", "2", "--metrics", "ndcg")
    assert code == 0, err
    lines = err.splitlines()
    assert any(
        line.startswith(f"rankk: warning: {run} starts with a UTF-8 byte order mark")
        for line in lines
    )
    assert all(line.startswith("rankk: ") for line in lines), err
    assert "Warning:" not in err


def test_the_formatter_writes_policies_as_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``Policy.unjudged`` and ``Policy(unjudged='condense')`` read as ``--unjudged``
    options in a warning line."""
    warn("Policy.unjudged reads it; Policy(unjudged='condense') drops them")
    err = capsys.readouterr().err
    assert err == "rankk: warning: --unjudged reads it; --unjudged condense drops them\n"


def test_a_trec_run_can_be_ranked_by_its_rank_field(rankk: Rankk, tmp_path: Path) -> None:
    """``--rank rank`` on a TREC run ranks by the run's 4th field (kept for it), where the
    field was dropped and the option refused; without it the run is ranked by score, as
    trec_eval ranks it."""
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 2 2.0 s\nq1 Q0 d2 1 1.0 s\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d2 1\n")
    options = ("--k", "1", "--metrics", "precision", "-f", "csv")
    for extra, expected in (((), 0.0), (("--rank", "rank"), 1.0)):
        code, out, err = rankk("evaluate", run, qrels, *options, *extra)
        assert code == 0, err
        assert pl.read_csv(io.StringIO(out))["value"].item() == expected
    run.write_text("q1 Q0 d1 first 2.0 s\n")
    code, _, err = rankk("evaluate", run, qrels, *options, "--rank", "rank")
    assert code == 1
    assert "line 1: the rank (4th field) is no integer" in err


def test_trec_eval_preset_reads_fractional_grades_as_trec_eval(
    rankk: Rankk, tmp_path: Path
) -> None:
    """Under ``--trec-eval`` a TREC qrels file's fractional grades are truncated to integers,
    as trec_eval reads them, and a warning says so: ndcg@3 equals pytrec_eval's ndcg_cut_3
    (0.6199), where the grades were kept (0.7743) and nothing said so."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = tmp_path / "f.run"
    run.write_text("q1 Q0 d1 1 3.0 s\nq1 Q0 d2 2 2.0 s\nq1 Q0 d3 3 1.0 s\n")
    qrels = tmp_path / "f.qrels"
    qrels.write_text("q1 0 d1 0.5\nq1 0 d2 1.7\nq1 0 d3 2\n")
    code, out, err = rankk(
        "evaluate", run, qrels, "--k", "3", "--metrics", "ndcg", "-f", "csv", "--trec-eval"
    )
    assert code == 0, err
    expected = pytrec_eval.RelevanceEvaluator(
        {"q1": {"d1": 0, "d2": 1, "d3": 2}}, {"ndcg_cut_3"}
    ).evaluate({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})["q1"]["ndcg_cut_3"]
    assert pl.read_csv(io.StringIO(out))["value"].item() == pytest.approx(expected)
    assert f"rankk: warning: {qrels}: 2 fractional grade(s) truncated to integers" in err
    code, out, err = rankk("evaluate", run, qrels, "--k", "3", "--metrics", "ndcg", "-f", "csv")
    assert code == 0, err
    assert pl.read_csv(io.StringIO(out))["value"].item() != pytest.approx(expected)
    # --fractional-grades keep beside --trec-eval keeps them, and nothing says "truncated".
    code, out, err = rankk(
        "evaluate", run, qrels, "--k", "3", "--metrics", "ndcg", "-f", "csv", "--trec-eval",
        "--fractional-grades", "keep",
    )  # fmt: skip
    assert code == 0, err
    assert pl.read_csv(io.StringIO(out))["value"].item() != pytest.approx(expected)
    assert "truncated to integers" not in err
    assert "truncated" not in err
