"""A metric declared at run time with `rk.register_metric` alone works on every path, and equals
a brute-force evaluation of its definition (ties broken as trec_eval does, and averaged over
every ordering of each tie block under ``ties="expected"``). The metrics and their definitions:
tests/support/toy_metrics.py; the Spark and Dask paths: tests/engines."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from tests.cli.running import run_rankk
from tests.support.toy_metrics import K, as_dict, assert_close, brute_force, tables


@pytest.mark.parametrize("ties", ["trec_eval", "expected"])
@pytest.mark.parametrize("lazy", [False, True])
def test_evaluate_equals_the_brute_force_definition(
    toy_metrics: tuple[str, str], ties: str, lazy: bool
) -> None:
    candidates, truth = tables()
    res = rk.evaluate(
        candidates.lazy() if lazy else candidates,
        truth.lazy() if lazy else truth,
        k=K,
        metrics=list(toy_metrics),
        group_by="q",
        policy=rk.Policy(ties=ties),  # type: ignore[arg-type]
    )
    per_group = res.per_group
    per_group = per_group.collect() if isinstance(per_group, pl.LazyFrame) else per_group
    assert_close(as_dict(per_group), as_dict(brute_force(ties)))


@pytest.mark.parametrize("ties", ["trec_eval", "expected"])
def test_both_expression_forms_equal_evaluate(toy_metrics: tuple[str, str], ties: str) -> None:
    candidates, truth = tables()
    labelled = rk.label(candidates, truth, group_by="q")
    policy = rk.Policy(ties=ties)  # type: ignore[arg-type]
    expected = as_dict(brute_force(ties))
    for name in toy_metrics:
        for k in K:
            function = labelled.group_by("q").agg(
                rk.metrics_expression(
                    name,
                    "relevance",
                    by="score",
                    k=k,
                    item="item",
                    n_relevant="n_relevant",
                    policy=policy,
                ).alias("value")
            )
            method = labelled.group_by("q").agg(
                pl.col("relevance")
                .rankk.metric(
                    name, by="score", k=k, item="item", n_relevant="n_relevant", policy=policy
                )
                .alias("value")
            )
            for frame in (function, method):
                got = {(q, name, k): v for q, v in frame.iter_rows()}
                assert_close(got, {key: v for key, v in expected.items() if key[1:] == (name, k)})


def test_names_summaries_and_micro(toy_metrics: tuple[str, str]) -> None:
    candidates, truth = tables()
    res = rk.evaluate(
        candidates, truth, k=K, metrics=["LinDCG@2", "first_relevant_rank"], group_by="q"
    )
    assert list(res.metrics) == ["first_relevant_rank", "linear_discount"]
    assert 2 in res.ks
    # LinDCG@2 carries its cut-off: reported at 2 alone.
    expected = brute_force("trec_eval").filter(
        (pl.col("metric") != "linear_discount") | (pl.col("k") == 2)
    )
    macro = expected.group_by("metric", "k").agg(pl.col("value").mean())
    summary = res.summary()
    assert_close(
        {(0, m, k): v for m, k, v in summary.select("metric", "k", "value").iter_rows()},
        {(0, m, k): v for m, k, v in macro.iter_rows()},
    )
    weights = pl.DataFrame({"q": [1, 2, 3], "w": [1.0, 0.0, 3.0]})
    weighted = res.summary(average="weighted", weights=weights)
    by_q = as_dict(expected)
    for metric, k, value in weighted.select("metric", "k", "value").iter_rows():
        want = (by_q[(1, metric, k)] + 3 * by_q[(3, metric, k)]) / 4
        assert math.isclose(value, want, rel_tol=1e-12)
    micro = res.summary(average="micro")
    assert micro["metric"].unique().to_list() == ["first_relevant_rank"]  # declared micro only
    for k, value in micro.select("k", "value").iter_rows():
        found = [by_q[(q, "first_relevant_rank", k)] for q in (1, 2, 3)]
        found = [rank for rank in found if rank <= k]
        assert math.isclose(value, sum(found) / len(found)) if found else math.isnan(value)
    with pytest.raises(ValueError, match="linear_discount is not a ratio of counts"):
        res.summary(average="micro", metrics="linear_discount")


def test_curves_compare_tables_charts_and_report(
    toy_metrics: tuple[str, str], tmp_path: Path
) -> None:
    candidates, truth = tables()
    worse = candidates.with_columns(pl.col("score") * -1)
    systems = {"good": candidates, "bad": worse}
    evaluations = {
        name: rk.evaluate(frame, truth, k=K, metrics=list(toy_metrics), group_by="q")
        for name, frame in systems.items()
    }
    curve = rk.k_curve(evaluations, k_max=5, n_resamples=20)
    at = {(s, m, k): v for s, m, k, v in curve.select("system", "metric", "k", "value").iter_rows()}
    for name, evaluation in evaluations.items():
        for metric, k, value in evaluation.summary().select("metric", "k", "value").iter_rows():
            assert math.isclose(at[(name, metric, k)], value, rel_tol=1e-12)
    comparison = rk.compare(evaluations, baseline="good", n_resamples=50, n_permutations=50)
    assert set(comparison["metric"]) == set(toy_metrics)
    chart = rk.plot_k_curve(curve)
    assert "first_relevant_rank" in str(chart.to_dict())
    assert "first_relevant_rank" in str(rk.plot_comparison(comparison).to_dict())
    html = rk.render_report(systems, truth, k=[1, 3], metrics=list(toy_metrics), group_by="q")
    assert "first_relevant_rank" in html
    assert "linear_discount" in html


def test_buckets_equal_evaluate(toy_metrics: tuple[str, str], tmp_path: Path) -> None:
    candidates, truth = tables()
    bucketed = rk.evaluate_in_partitions(
        candidates,
        truth,
        output=tmp_path / "out",
        partitions=2,
        k=K,
        metrics=list(toy_metrics),
        group_by="q",
    )
    per_group = bucketed.per_group
    per_group = per_group.collect() if isinstance(per_group, pl.LazyFrame) else per_group
    assert_close(as_dict(per_group), as_dict(brute_force("trec_eval")))


def test_cli_metric_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    candidates, truth = tables()
    candidates.write_parquet(tmp_path / "candidates.parquet")
    truth.write_parquet(tmp_path / "truth.parquet")
    module = tmp_path / "my_rank_metrics.py"
    module.write_text(
        "import polars_rankk as rk\n"
        "rk.register_metric('cli_first_rank', lambda rows: rows.first_relevant * rows.rank,\n"
        "    lambda sums: sums.total + (sums.k + 1) * (1 - sums.sum('first_hit')),\n"
        "    direction='lower', replace=True)\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        code, out, err = run_rankk(
            capsys,
            "--metric-module",
            "my_rank_metrics",
            "evaluate",
            tmp_path / "candidates.parquet",
            tmp_path / "truth.parquet",
            "--group-by",
            "q",
            "--k",
            "2",
            "--metrics",
            "cli_first_rank",
            "--format",
            "csv",
        )
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("my_rank_metrics", None)
        if "cli_first_rank" in rk.METRICS:
            rk.unregister_metric("cli_first_rank")
    assert code == 0, err
    expected = (
        brute_force("trec_eval")
        .filter((pl.col("metric") == "first_relevant_rank") & (pl.col("k") == 2))["value"]
        .mean()
    )
    assert "cli_first_rank" in out
    assert f"{expected}" in out or f"{expected:g}" in out


def test_declaration_errors() -> None:
    with pytest.raises(ValueError, match="already registered"):
        rk.register_metric("ndcg", lambda rows: rows.gain)
    with pytest.raises(ValueError, match="lower case"):
        rk.register_metric("My Metric", lambda rows: rows.gain)
    with pytest.raises(TypeError, match=r"pl\.Expr"):
        rk.register_metric("not_an_expression", lambda rows: 1.0)  # type: ignore[arg-type,return-value]
    rk.register_metric("no_expectation", lambda rows: rows.relevant)
    try:
        candidates, truth = tables()
        with pytest.raises(ValueError, match="no_expectation have no exact expectation"):
            rk.evaluate(
                candidates,
                truth,
                k=2,
                metrics="no_expectation",
                group_by="q",
                policy=rk.Policy(ties="expected"),
            )
    finally:
        rk.unregister_metric("no_expectation")
    with pytest.raises(ValueError, match="built in"):
        rk.unregister_metric("ndcg")
