"""A lower-is-better metric is never marked best for the worst system: tables, the report and
the charts read the direction the registry declares."""

from __future__ import annotations

import re

import polars as pl

import polars_rankk as rk
from polars_rankk.charts.base import with_definitions
from polars_rankk.core.metrics.registry import REGISTRY
from tests.support.toy_metrics import tables


def systems() -> dict[str, pl.DataFrame]:
    candidates, truth = tables()
    # "good" ranks relevant items first, "bad" last.
    labelled = rk.label(candidates, truth, group_by="q")
    # An unjudged item (null grade) ranks as grade 0.
    grade = pl.col("relevance").fill_null(0)
    good = labelled.select("q", "item", (grade - pl.col("item") / 100).alias("score"))
    return {"good": good, "bad": good.with_columns(pl.col("score") * -1)}


def evaluations() -> dict[str, rk.Evaluation]:
    _, truth = tables()
    return {
        name: rk.evaluate(frame, truth, k=3, metrics=["first_relevant_rank", "mrr"], group_by="q")
        for name, frame in systems().items()
    }


def test_the_registry_declares_directions() -> None:
    assert REGISTRY["rbp_residual"].direction == "lower"
    assert REGISTRY["gini"].direction == "lower"
    assert REGISTRY["ndcg"].direction == "higher"


def test_tables_bold_the_smaller_value(toy_metrics: tuple[str, str]) -> None:
    results = evaluations()
    table = rk.systems_table(results)
    ranks = dict(zip(table["system"], table["first_relevant_rank@3"], strict=True))
    assert ranks["good"] < ranks["bad"]
    markdown = rk.to_markdown(table).splitlines()
    good = next(line for line in markdown if line.startswith("| good"))
    bad = next(line for line in markdown if line.startswith("| bad"))
    header = [cell.strip() for cell in markdown[0].strip("|").split("|")]
    column = header.index("first_relevant_rank@3")
    assert "**" in good.strip("|").split("|")[column]
    assert "**" not in bad.strip("|").split("|")[column]
    latex = rk.to_latex(table)
    bad_row = next(line for line in latex.splitlines() if line.startswith("bad"))
    assert r"\textbf" not in bad_row.split("&")[column]


def test_comparison_letters_follow_the_direction(toy_metrics: tuple[str, str]) -> None:
    comparison = rk.compare(evaluations(), baseline="bad", n_resamples=50, n_permutations=50)
    row = comparison.filter(pl.col("metric") == "first_relevant_rank").row(0, named=True)
    assert row["diff"] < 0  # good ranks its first relevant item earlier: better
    lines = rk.to_markdown(comparison, alpha=1.0).splitlines()
    bad = next(line for line in lines if line.startswith("| a) bad"))
    good = next(line for line in lines if line.startswith("| b) good"))
    # good beats bad (the superscript a) on both metrics, and holds both column's best.
    assert good.count("<sup>a</sup>") == 2
    assert good.count("**") == 4
    assert "**" not in bad
    assert "<sup>" not in bad


def test_the_report_marks_the_smaller_value(toy_metrics: tuple[str, str]) -> None:
    _, truth = tables()
    html = rk.render_report(
        systems(), truth, k=[3], metrics=["first_relevant_rank"], group_by="q", n_resamples=20
    )
    row = re.search(r"<tr><td[^>]*>first_relevant_rank@3</td>(.*?)</tr>", html, re.S)
    assert row is not None
    cells = re.findall(r"<td([^>]*)>(.*?)</td>", row.group(1), re.S)
    good, bad = cells[0], cells[1]
    assert "best" in good[0]
    assert "best" not in bad[0]


def test_charts_say_which_way_is_better(toy_metrics: tuple[str, str]) -> None:
    table = with_definitions(
        pl.DataFrame({"metric": ["first_relevant_rank", "ndcg"], "k": [3, 3], "value": [1.0, 0.5]})
    )
    assert table["better"].to_list() == ["lower", "higher"]
    assert table["label"].to_list() == ["first_relevant_rank@3 (lower is better)", "ndcg@3"]
    comparison = rk.compare(evaluations(), baseline="bad", n_resamples=20, n_permutations=20)
    spec = str(rk.plot_comparison(comparison).to_dict())
    assert "first_relevant_rank@3 (lower is better)" in spec
