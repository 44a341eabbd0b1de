"""The command's side of part five: each name at its own cut-off, every metric asked in the
output, the tool's number or a warning saying which value was used."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from tests.cli.running import QRELS, RUN, Rankk

ir_measures = pytest.importorskip("ir_measures")


def test_evaluate_reads_a_name_with_its_own_cut_off_at_it_only(rankk: Rankk) -> None:
    """``--metrics P@5,R@1000,map`` prints the three measures asked, equal to ir_measures on
    trec_eval's test files."""
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--metrics", "P@5,R@1000,map",
        "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    got = pl.read_csv(io.StringIO(out))
    cells = [("precision", 5), ("recall", 1000), ("average_precision", None)]
    assert got.select("metric", "k").rows() == cells
    measures = [ir_measures.parse_measure(name) for name in ("P@5", "R@1000", "AP")]
    want = ir_measures.calc_aggregate(
        measures, ir_measures.read_trec_qrels(str(QRELS)), ir_measures.read_trec_run(str(RUN))
    )
    values = got["value"].to_list()
    assert values == pytest.approx([want[m] for m in measures], abs=1e-12)


def test_evaluate_prints_a_catalogue_metric_asked_alone(rankk: Rankk) -> None:
    code, out, err = rankk("evaluate", RUN, QRELS, "--metrics", "coverage", "-f", "csv")
    assert code == 0, err
    got = pl.read_csv(io.StringIO(out))
    assert set(got["metric"]) == {"coverage"}
    assert got["value"].is_between(0, 1, closed="right").all()


def test_a_tool_name_leaving_out_a_parameter_the_options_set_warns(rankk: Rankk) -> None:
    code, _, err = rankk(
        "evaluate", RUN, QRELS, "--metrics", "RBP(rel=1)@10", "--rbp-persistence", "0.5",
        "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert "rankk: warning: metric 'RBP(rel=1)@10' is ir_measures' name: its p defaults" in err


@pytest.mark.parametrize(
    ("options", "flags"),
    [
        (["--relevance-threshold", "2"], "flag -l 2"),
        (["--unjudged", "condense"], "flag -J"),
        (["--relevance-threshold", "2", "--unjudged", "condense"], "flags -l 2 -J"),
    ],
    ids=["l", "J", "l-J"],
)
def test_trec_eval_names_under_a_threshold_flag_are_said_once(
    rankk: Rankk, options: list[str], flags: str
) -> None:
    """``--trec-eval --relevance-threshold 2`` (or ``--unjudged condense``) with trec_eval's
    names gives ``trec_eval -l 2`` (``-J``)'s numbers (pytrec_eval, relevance_level=2,
    judged_docs_only_flag): the summary writes trec_eval's names and one line says so, where
    four said "trec_eval computes another number" and a second kept the canonical names."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    names = ["P_5", "map", "recip_rank", "bpref"]
    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--trec-eval", *options,
        "--metrics", ",".join(names), "--names", "trec_eval", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    lines = [line for line in err.splitlines() if "metric" in line]
    assert lines == [
        "rankk: warning: metrics 'P_5', 'map', 'recip_rank', 'bpref': the values here are "
        f"trec_eval's run with the {flags}"
    ]
    got = pl.read_csv(io.StringIO(out))
    assert got["metric"].to_list() == names
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().split("\n"):
        if line.strip():
            q, _, doc, grade = line.split()
            qrels.setdefault(q, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in RUN.read_text().split("\n"):
        if line.strip():
            q, _, doc, _, score, _ = line.split()[:6]
            run.setdefault(q, {})[doc] = float(score)
    level = 2 if "-l 2" in flags else 1
    found = pytrec_eval.RelevanceEvaluator(
        qrels, set(names), relevance_level=level, judged_docs_only_flag="-J" in flags
    ).evaluate(run)
    want = [sum(q[m] for q in found.values()) / len(found) for m in names]
    assert got["value"].to_list() == pytest.approx(want, abs=1e-12)


def test_compare_says_the_catalogue_every_run_shares(rankk: Rankk, tmp_path: Path) -> None:
    """``rankk compare`` measures coverage against one catalogue of every run's items: one
    line says so with its size (brute force: the distinct documents of both runs)."""
    other = tmp_path / "other.test"
    lines = RUN.read_text().splitlines()
    other.write_text("\n".join(f"{line.split()[0]} Q0 x{i} 1 1.0 o" for i, line in
                               enumerate(lines[:50])) + "\n")  # fmt: skip
    items = len({line.split()[2] for line in lines if line.strip()}) + 50
    code, _, err = rankk(
        "compare", f"a={RUN}", f"b={other}", "-t", QRELS, "--metrics", "coverage,P", "-k", "10",
        "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    said = [line for line in err.splitlines() if "one catalogue" in line]
    assert said == [
        f"rankk: warning: catalogue metrics (coverage, gini, entropy) measured against one "
        f"catalogue of {items:,} items, shared by the 2 systems compared"
    ]


def test_the_command_says_a_tool_name_warning_only_where_its_files_differ(
    rankk: Rankk, tmp_path: Path
) -> None:
    """``rankk evaluate`` (and ``compare``) hold the files in memory: ``Judged@10`` on lists
    of 12 without a tie gives ir_measures' number and nothing is said; on a list of 3 the
    number differs and the warning says it does (not "may", not "not read")."""
    run = tmp_path / "long.run"
    run.write_text("".join(f"1 Q0 d{i} {i + 1} {12 - i}.0 s\n" for i in range(12)))
    short = tmp_path / "short.run"
    short.write_text("".join(f"1 Q0 d{i} {i + 1} {12 - i}.0 s\n" for i in range(3)))
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d1 2\n1 0 d3 0\n1 0 d11 1\n")
    code, out, err = rankk("evaluate", run, qrels, "--metrics", "Judged@10", "-f", "csv")
    assert code == 0, err
    assert "Judged@10" not in err
    want = ir_measures.calc_aggregate(
        [ir_measures.parse_measure("Judged@10")],
        ir_measures.read_trec_qrels(str(qrels)),
        ir_measures.read_trec_run(str(run)),
    )
    (value,) = want.values()
    assert pl.read_csv(io.StringIO(out))["value"].item() == pytest.approx(value)
    code, _, err = rankk("evaluate", short, qrels, "--metrics", "Judged@10", "-f", "csv")
    assert code == 0, err
    assert "'Judged@10' is ir_measures' name" in err
    assert "not read to check" not in err
    other = tmp_path / "other.run"
    other.write_text("".join(f"1 Q0 d{i} {i + 1} {i}.0 s\n" for i in range(12)))
    code, _, err = rankk("compare", run, other, "--truth", qrels, "--metrics", "Judged@10")
    assert code == 0, err
    assert "not read to check" not in err
    assert "'Judged@10' is ir_measures' name" not in err
