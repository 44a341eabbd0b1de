"""Tables out: Evaluation displays, systems_table, to_markdown / to_latex."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk


@pytest.fixture(scope="module")
def runs() -> dict[str, rk.Evaluation]:
    candidates = pl.DataFrame(
        {"user": [1, 1, 1, 2, 2, 2], "item": [1, 2, 3, 1, 2, 3], "score": [3.0, 2, 1, 1, 1, 0]}
    )
    truth = pl.DataFrame({"user": [1, 2, 2], "item": [2, 3, 9]})
    scores = {"popular": pl.col("score"), "reverse": -pl.col("score")}
    return {
        name: rk.evaluate(
            candidates.with_columns(score=s),
            truth,
            k=[1, 2],
            metrics=["precision", "ndcg"],
            group_by="user",
        )
        for name, s in scores.items()
    }


def test_repr_shows_the_summary_and_warnings(runs: dict[str, rk.Evaluation]) -> None:
    text = repr(runs["popular"])
    assert "Evaluation of 2 groups by ['user']" in text
    assert "precision" in text
    assert "@2" in text
    assert "Warnings:" in text
    assert "1 relevant item never among the candidates" in text  # item 9 of user 2
    assert "K cuts a tie" in text  # user 2 scores 1, 1 at ranks 1 and 2
    page = runs["popular"]._repr_html_()
    assert page.startswith("<div")
    assert "<table>" in page
    assert "<li>" in page


def test_systems_table_keeps_the_order_given(runs: dict[str, rk.Evaluation]) -> None:
    table = rk.systems_table({"reverse": runs["reverse"], "popular": runs["popular"]})
    assert table.get_column("system").to_list() == ["reverse", "popular"]
    assert table.columns == ["system", "precision@1", "precision@2", "ndcg@1", "ndcg@2"]
    summary = runs["popular"].summary()
    assert table.row(1, named=True)["ndcg@2"] == pytest.approx(
        summary.filter((pl.col("metric") == "ndcg") & (pl.col("k") == 2))["value"].item()
    )
    only = rk.systems_table(runs, metrics="ndcg", k=2)
    assert only.columns == ["system", "ndcg@2"]


def test_markdown_and_latex_bold_the_best() -> None:
    table = pl.DataFrame({"system": ["A", "B|C"], "ndcg@10": [0.31, 0.35], "mrr@10": [0.5, 0.4]})
    text = rk.to_markdown(table, digits=2)
    assert "| A | 0.31 | **0.50** |" in text
    assert r"| B\|C | **0.35** | 0.40 |" in text
    latex = rk.to_latex(table, digits=2, caption="Results", label="tab:r")
    assert r"\textbf{0.35}" in latex
    assert r"\caption{Results}" in latex
    assert r"\label{tab:r}" in latex
    assert r"\toprule" in latex


def test_comparison_marks_significance_like_ranx() -> None:
    a = pl.DataFrame(
        {"user": range(10), "metric": "ndcg", "k": 10, "value": [0.1 * i for i in range(10)]}
    )
    better = a.with_columns(pl.col("value") + 0.2)
    same = a.with_columns(pl.col("value") + pl.Series([0.01, -0.01] * 5))
    cmp = rk.compare({"base": a, "new": better, "noise": same}, baseline="base", seed=0)
    text = rk.to_markdown(cmp, digits=2)
    assert "| a) base |" in text
    assert "**0.65**<sup>a</sup>" in text  # new beats base, significantly
    assert "c) noise | 0.45 |" in text  # no mark: not significant
    assert "<sup>" not in text.split("c) noise")[1].splitlines()[0]
    latex = rk.to_latex(cmp, digits=2)
    assert r"\textbf{0.65}$^{\mathrm{a}}$" in latex
    with pytest.raises(ValueError, match="p_value='p_t'"):
        rk.to_markdown(cmp, p_value="p_t")


def test_evaluation_markdown_is_metrics_by_k(runs: dict[str, rk.Evaluation]) -> None:
    text = runs["popular"].to_markdown(digits=3)
    assert text.splitlines()[0] == "| metric | @1 | @2 |"
    assert text == rk.to_markdown(runs["popular"], digits=3)
    assert runs["popular"].to_latex().startswith(r"\begin{table}")
    with pytest.raises(TypeError, match="to_markdown / to_latex take"):
        rk.to_markdown([1, 2])


def test_intervals_of_an_evaluation_are_its_bootstrap(runs: dict[str, rk.Evaluation]) -> None:
    res = runs["popular"]
    ci = rk.bootstrap(res, n_resamples=200, seed=3)
    row = ci.filter((pl.col("metric") == "ndcg") & (pl.col("k") == 2)).row(0, named=True)
    text = rk.to_markdown(res, ci=True, n_resamples=200, seed=3)
    expected = f"{row['value']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
    assert expected in text
    assert "Brackets: 95% bootstrap confidence interval (resampling groups)." in text
    latex = rk.to_latex(res, ci=True, n_resamples=200, seed=3, confidence=0.9)
    assert r"{\scriptsize [" in latex
    assert "90\\% bootstrap confidence interval" in latex
    assert "[" not in rk.to_markdown(res)  # no intervals unless asked


def test_intervals_of_several_systems_and_of_a_comparison(
    runs: dict[str, rk.Evaluation],
) -> None:
    table = rk.to_markdown(runs, ci=True, n_resamples=100, digits=2)
    lines = table.splitlines()
    assert lines[0] == "| system | precision@1 | precision@2 | ndcg@1 | ndcg@2 |"
    assert all(line.count("[") == 4 for line in lines[2:4])
    cmp = rk.compare(runs, baseline="popular", n_resamples=100, seed=0)
    text = rk.to_markdown(cmp, ci=True, digits=2)
    challenger = next(line for line in text.splitlines() if "reverse" in line)
    diff = cmp.filter((pl.col("metric") == "ndcg") & (pl.col("k") == 1)).row(0, named=True)
    assert f"[{diff['ci_low']:+.2f}, {diff['ci_high']:+.2f}]" in challenger
    assert "interval of the paired difference to the baseline" in text
    baseline = next(line for line in text.splitlines() if "popular" in line)
    assert "[" not in baseline


def test_intervals_need_a_table_that_has_them(runs: dict[str, rk.Evaluation]) -> None:
    with pytest.raises(ValueError, match="no ci_low/ci_high columns; pass the evaluation"):
        rk.to_markdown(runs["popular"].summary(), ci=True)
    with pytest.raises(ValueError, match="no ci_low/ci_high columns"):
        rk.to_latex(rk.systems_table(runs), ci=True)
    bootstrapped = rk.bootstrap(runs["popular"], n_resamples=50, seed=0)
    assert "[" in rk.to_markdown(bootstrapped, ci=True)
