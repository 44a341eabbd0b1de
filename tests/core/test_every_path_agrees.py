"""Paths beside `evaluate` (expressions, `rk.label`, tables, compare, curves, the report)
give `evaluate`'s number, or say what they did, or refuse in words."""

from __future__ import annotations

import math
import re
import warnings

import pandas as pd
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.inputs.spec import IgnoredColumnWarning

ROWS = pl.DataFrame(
    {"user": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [0.9, 0.8, 0.7, 0.6], "rel": [0, 1, 0, 0]}
)


def test_an_expression_scores_a_group_without_relevant_rows_zero_as_evaluate() -> None:
    got = ROWS.group_by("user").agg(
        rk.mrr_at_k("rel", by="score", k=2, item="item"),
        rk.precision_at_k("rel", by="score", k=2, item="item"),
        rk.recall_at_k("rel", by="score", k=2, item="item"),
    )
    # The truth knows user 2 has something to find; the list found nothing: 0, not null.
    truth = pl.DataFrame({"user": [1, 2], "item": [2, 9]})
    want = rk.evaluate(ROWS.drop("rel"), truth, k=2, group_by="user",
                       metrics=["mrr", "precision", "recall"]).wide()  # fmt: skip
    assert isinstance(want, pl.DataFrame)
    assert got.sort("user").select(want.columns).equals(want.sort("user"))
    assert got.filter(pl.col("user") == 2).row(0)[1:] == (0.0, 0.0, 0.0)
    # So pl.mean counts the group, as evaluate's mean does.
    assert got["mrr@2"].mean() == want["mrr@2"].mean() == 0.25


def test_an_expression_told_r_g_is_zero_follows_empty_truth() -> None:
    rows = ROWS.with_columns(n_rel=pl.when(pl.col("user") == 1).then(1).otherwise(0))
    got = rows.group_by("user").agg(
        rk.mrr_at_k("rel", by="score", k=2, item="item", n_relevant="n_rel")
    )
    assert dict(got.sort("user").iter_rows()) == {1: 0.5, 2: None}


@pytest.mark.parametrize("bad", [math.nan, None, math.inf])
def test_an_expression_refuses_an_invalid_score_naming_the_column_and_item(
    bad: float | None,
) -> None:
    rows = ROWS.with_columns(
        points=pl.when(pl.col("item") == 3).then(bad).otherwise(pl.col("score"))
    )
    expression = rk.ndcg_at_k("rel", by="points", k=2, item="item")
    with pytest.raises(
        (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError),
        match=r"column 'points' must hold finite numbers .*invalid_scores='drop' or 'lowest'.*"
        r"it holds (NaN|null|inf) at row 0 of its group \(item 3\)",
    ):
        ROWS.with_columns(rows["points"]).group_by("user").agg(expression)
    with pytest.raises(
        (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError),
        match="must hold finite numbers",
    ):
        rows.with_columns(expression.over("user"))
    # Policy(invalid_scores="drop") is evaluate's answer too.
    policy = rk.Policy(invalid_scores="drop")
    dropped = rows.group_by("user").agg(
        rk.ndcg_at_k("rel", by="points", k=2, item="item", policy=policy)
    )
    want = rk.evaluate(rows, None, k=2, group_by="user", score="points", relevance="rel",
                       metrics="ndcg", policy=rk.Policy(invalid_scores="drop",
                                                        empty_truth="zero")).wide()  # fmt: skip
    assert isinstance(want, pl.DataFrame)
    assert dropped.sort("user")["ndcg@2"].to_list() == want.sort("user")["ndcg@2"].to_list()


def test_an_expression_refuses_a_repeated_item_under_duplicates_error() -> None:
    rows = pl.DataFrame({"user": [1, 1], "item": [7, 7], "score": [0.9, 0.8], "rel": [0, 1]})
    policy = rk.Policy(duplicates="error")
    said = r"column 'item' repeats an item .*duplicates='error'.*item 7"
    with pytest.raises(
        (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError), match=said
    ):
        rows.group_by("user").agg(rk.mrr_at_k("rel", by="score", k=2, item="item", policy=policy))


def test_label_under_a_restricted_pool_drops_invalid_scores_of_the_named_column() -> None:
    # `s` is the score; a column literally named `score` is something else and must not count.
    candidates = pl.DataFrame(
        {"user": [1, 1, 1], "item": [1, 2, 3], "s": [0.9, math.nan, 0.5], "score": [1.0] * 3}
    )
    truth = pl.DataFrame({"user": [1, 1], "item": [2, 3]})
    policy = rk.Policy(pool="restrict", invalid_scores="drop")
    want = rk.evaluate(candidates.drop("score"), truth, k=3, group_by="user", score="s",
                       metrics=["recall", "ndcg"], policy=policy).wide()  # fmt: skip
    assert isinstance(want, pl.DataFrame)
    labelled = rk.label(candidates, truth, group_by="user", score="s", policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    assert labelled["n_relevant"].to_list() == [1, 1, 1]
    options = {"by": "s", "k": 3, "item": "item", "policy": policy, "unretrieved": "unretrieved"}
    got = labelled.group_by("user").agg(
        rk.recall_at_k("relevance", **options), rk.ndcg_at_k("relevance", **options)
    )
    assert want["recall@3"].item() == 1.0
    assert got.select(want.columns).equals(want)


def test_label_refuses_a_restricted_pool_without_the_score_column() -> None:
    candidates = pl.DataFrame({"user": [1], "item": [1], "s": [0.5]})
    truth = pl.DataFrame({"user": [1], "item": [1]})
    policy = rk.Policy(pool="restrict", invalid_scores="drop")
    with pytest.raises(ValueError, match=r"no column 'score'; name the score column \(score="):
        rk.label(candidates, truth, group_by="user", policy=policy)


def test_a_relevance_column_in_the_candidates_does_not_beat_the_truth_beside_it() -> None:
    candidates = pl.DataFrame({"q": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.8, 0.7]})
    truth = pl.DataFrame({"q": [1], "item": [3], "relevance": [1]})
    want = rk.evaluate(candidates, truth, k=2, group_by="q", metrics="ndcg").summary()
    stale = candidates.with_columns(relevance=pl.Series([3, 3, 0]))
    said = r"candidates carry a 'relevance' column and a truth table was passed: the truth's"
    with pytest.warns(IgnoredColumnWarning, match=said):
        got = rk.evaluate(stale, truth, k=2, group_by="q", metrics="ndcg").summary()
    assert got["value"].item() == want["value"].item() == 0.0


def test_a_missing_score_beside_a_rank_column_suggests_rank() -> None:
    candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "rank": [1, 2]})
    truth = pl.DataFrame({"q": [1], "item": [2]})
    with pytest.raises(ValueError, match=r"no column 'score'.*pass rank='rank'"):
        rk.evaluate(candidates, truth, k=1, group_by="q")
    assert rk.evaluate(candidates, truth, k=2, group_by="q", rank="rank",
                       metrics="mrr").summary()["value"].item() == 0.5  # fmt: skip


@pytest.mark.parametrize("table", ["candidates", "truth"])
def test_a_pandas_group_key_in_the_index_gets_a_reset_index_hint(table: str) -> None:
    candidates = pd.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.9, 0.8]})
    truth = pd.DataFrame({"q": [1], "item": [2]})
    tables = {"candidates": candidates, "truth": truth}
    tables[table] = tables[table].set_index("q")
    said = rf"{table} has no column 'q'.*'q' is the pandas index of {table}, not a column: " \
        rf"pass {table}\.reset_index\(\)"  # fmt: skip
    with pytest.raises(ValueError, match=said):
        rk.evaluate(tables["candidates"], tables["truth"], k=1, group_by="q")


CANDIDATES = pl.DataFrame(
    {
        "q": [1, 1, 1, 2, 2, 2] * 2,
        "item": [1, 2, 3, 4, 5, 6] * 2,
        "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.1, 0.8, 0.7, 0.6, 0.5, 0.9],
        "system": ["A"] * 6 + ["B"] * 6,
    }
)
TRUTH = pl.DataFrame({"q": [1, 1, 2], "item": [2, 3, 6], "relevance": [1, 2, 1]})


def test_diagnostics_of_several_systems_print_each_systems_grades() -> None:
    res = rk.evaluate(CANDIDATES, TRUTH, k=[1, 2], group_by="q", system="system")
    shown = repr(res.diagnostics)
    assert "relevance_grades: {'A': {1.0: 2, 2.0: 1}, 'B': {1.0: 2, 2.0: 1}}" in shown
    assert str(res.diagnostics) == shown


@pytest.mark.parametrize("column", ["system", "run"])
def test_tables_of_several_systems_show_every_system(column: str) -> None:
    candidates = CANDIDATES.rename({"system": column})
    res = rk.evaluate(candidates, TRUTH, k=[1, 2], group_by="q", system=column,
                      metrics=["precision", "ndcg", "r_precision"])  # fmt: skip
    each = res.by_system()
    markdown = res.to_markdown()
    lines = markdown.splitlines()
    assert lines[0] == f"| {column} | precision@1 | precision@2 | ndcg@1 | ndcg@2 | r_precision |"
    assert [line.split(" | ")[0] for line in lines[2:4]] == ["| A", "| B"]
    assert markdown == rk.to_markdown(each).replace("| system |", f"| {column} |", 1)
    assert rk.to_markdown(res) == markdown
    # The summary of several systems is one row per system too (once the last system's).
    assert rk.to_markdown(res.summary()) == markdown
    latex = res.to_latex()
    assert rk.to_latex(res) == latex
    assert rk.to_latex(res.summary()) == latex
    for name, one in each.items():
        row = next(line for line in latex.splitlines() if line.startswith(f"{name} & "))
        assert re.findall(r"\d\.\d{4}", row) == [f"{v:.4f}" for v in one.summary()["value"]]


@pytest.fixture(scope="module")
def two_groups() -> rk.Evaluation:
    return rk.evaluate(CANDIDATES.filter(pl.col("system") == "A").drop("system"), TRUTH,
                       k=[1, 2], group_by="q", metrics=["precision", "ndcg"])  # fmt: skip


def test_bootstrap_refuses_stratify_true_in_words(two_groups: rk.Evaluation) -> None:
    with pytest.raises(TypeError, match=r"stratify names the column\(s\) to use .*got True"):
        rk.bootstrap(two_groups, stratify=True, n_resamples=10)  # type: ignore[arg-type]


def test_all_zero_weights_are_refused(two_groups: rk.Evaluation) -> None:
    weights = pl.DataFrame({"q": [1, 2], "traffic": [0.0, 0.0]})
    said = r"weight column 'traffic' is 0 for every group .*the weighted mean is undefined"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # weight= may give way to weights=
        with pytest.raises(ValueError, match=said):
            two_groups.summary(average="weighted", weights=weights, weight="traffic")


def test_compare_refuses_evaluations_made_under_different_policies() -> None:
    one = CANDIDATES.filter(pl.col("system") == "A").drop("system")
    other = CANDIDATES.filter(pl.col("system") == "B").drop("system")
    options = {"k": 2, "group_by": "q", "metrics": "ndcg"}
    base = rk.evaluate(one, TRUTH, **options)
    changed = rk.evaluate(other, TRUTH, policy=rk.Policy(gain="exponential"), **options)
    said = (
        r"different policies \(gain='linear' for 'base' but 'exponential' for 'new'\).*"
        r"under one Policy"
    )
    with pytest.raises(ValueError, match=said):
        rk.compare({"base": base, "new": changed}, n_resamples=10)
    same = rk.evaluate(other, TRUTH, **options)
    assert rk.compare({"base": base, "new": same}, n_resamples=10).height == 1
    # Per-group tables carry no policy: comparing them is the user's explicit choice.
    tables = {"base": base.per_group, "new": changed.per_group}
    assert rk.compare(tables, n_resamples=10).height == 1  # type: ignore[arg-type]


#: Item 17: K-curves of groups shorter than K with nothing relevant retrieved (the rank sums,
#: polars_rankk/stats/rank_sums.py, once built F1's events from a table filled whole).


@pytest.mark.parametrize("short_lists", ["observed", "skip"])
def test_k_curve_with_nothing_relevant_retrieved_equals_evaluate(short_lists: str) -> None:
    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.8, 0.7]})
    truth = pl.DataFrame({"q": [1, 2], "item": [9, 8]})
    policy = rk.Policy(short_lists=short_lists)  # type: ignore[arg-type]
    curve = rk.k_curve(candidates, truth, group_by="q", k_max=3, policy=policy,
                       metrics=["precision", "recall", "f1"])  # fmt: skip
    want = rk.evaluate(candidates, truth, k=[1, 2, 3], group_by="q", policy=policy,
                       metrics=["precision", "recall", "f1"]).summary()  # fmt: skip
    got = curve.join(want, on=["metric", "k"], how="inner")
    assert got.height == want.height
    assert (got["value"] == got["value_right"]).all()


@pytest.mark.parametrize("short_lists", ["observed", "skip"])
def test_report_with_nothing_relevant_retrieved_is_written(short_lists: str, tmp_path) -> None:
    candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.9, 0.8]})
    truth = pl.DataFrame({"q": [1], "item": [9]})
    policy = rk.Policy(short_lists=short_lists)  # type: ignore[arg-type]
    res = rk.evaluate(candidates, truth, k=[1, 5], group_by="q", policy=policy)
    path = rk.report(res, path=tmp_path / "report.html", k=[1, 5], n_resamples=20)
    assert path.exists()


@pytest.mark.parametrize("ties", ["trec_eval", "expected"])
def test_a_registered_metric_reads_an_unjudged_grade_as_zero_under_a_gain_map(ties: str) -> None:
    rk.register_metric("graded_hits", lambda rows: rows.grade * rows.relevant,
                       expected_ties=True, replace=True)  # fmt: skip
    try:
        candidates = pl.DataFrame(
            {"q": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5], "score": [0.9, 0.9, 0.7, 0.6, 0.6]}
        )
        truth = pl.DataFrame({"q": [1, 1, 2], "item": [2, 3, 5], "relevance": [1, 2, 1]})
        values = {}
        for gains in (None, {0: 1, 1: 2, 2: 3}):
            policy = rk.Policy(ties=ties, gains=gains)  # type: ignore[arg-type]
            res = rk.evaluate(candidates, truth, k=2, group_by="q", metrics="graded_hits",
                              policy=policy)  # fmt: skip
            per_group = res.per_group
            assert isinstance(per_group, pl.DataFrame)
            values[gains is None] = per_group.sort("q")["value"].to_list()
            labelled = rk.label(candidates, truth, group_by="q")
            expression = rk.metrics_expression("graded_hits", "relevance", by="score", k=2,
                                              item="item", policy=policy,
                                              unretrieved="unretrieved")  # fmt: skip
            got = labelled.group_by("q").agg(expression).sort("q")["graded_hits@2"].to_list()
            assert got == values[gains is None]
        # The grade a metric reads does not depend on the gains the map gives.
        assert values[True] == values[False]
        assert not any(math.isnan(v) or math.isinf(v) for v in values[False])
    finally:
        rk.unregister_metric("graded_hits")


def test_the_metrics_page_mrr_example_gives_evaluates_mean() -> None:
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "data"
    candidates = (
        pl.read_parquet(data / "demo_candidates.parquet")
        .filter(pl.col("system") == "two_tower")
        .drop("system")
    )
    truth = pl.read_parquet(data / "demo_truth.parquet")
    res = rk.evaluate(candidates, truth, k=10, metrics="mrr", group_by="user")
    df = rk.label(candidates, truth, group_by="user")
    assert isinstance(df, pl.DataFrame)
    # The line of docs/metrics.md, per user.
    per_user = (
        df.with_columns(
            pl.col("relevance")
            .rankk.mrr_at_k(by="score", k=10, item="item", unretrieved="unretrieved")
            .over("user")
            .alias("mrr")
        )
        .group_by("user")
        .agg(pl.col("mrr").first())
    )
    per_group = res.per_group
    assert isinstance(per_group, pl.DataFrame)
    both = per_group.join(per_user, on="user", how="left")
    assert both.filter(pl.col("mrr") != pl.col("value")).height == 0
    # The users the expression has no rows for are those without candidates, 0 in evaluate.
    assert both.filter(pl.col("mrr").is_null())["value"].to_list() == [0.0] * 12
    assert both["mrr"].fill_null(0.0).mean() == pytest.approx(res.summary()["value"].item())
