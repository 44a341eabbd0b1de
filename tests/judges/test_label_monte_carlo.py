"""evaluate(..., label_probability=...) where a metric has no exact method past 4,096
outcomes: its cells are drawn, `label_methods` names them ``monte_carlo`` with the draws and
the groups drawn, each per-group row carries the Monte Carlo standard error, and the error
bars cover the exact expectation at their nominal rate."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk

# The trec_eval spellings' notes on how trec_eval would count: not what is tested here.
pytestmark = pytest.mark.filterwarnings(
    "ignore::polars_rankk.core.names.conventions.ToolNameWarning"
)


def test_drawn_cells_are_named_and_their_error_bars_cover_the_truth() -> None:
    """200 groups of 13 uncertain items (8,192 outcomes each), 100 draws. trec_eval's RBP of
    binary grades (its gains divided by the largest, 1) is RBP over the whole list per group,
    exact over tie blocks: with the truth at hand, the drawn means lie within 1.96 standard
    errors of it in about 95% of the groups. GM-AP's per-group value is AP's, computed as
    AP's cells (the same numbers)."""
    n, groups, draws = 13, 200, 100
    rng = np.random.default_rng(5)
    candidates = pl.DataFrame({
        "q": np.repeat(np.arange(groups), n + 2), "item": np.tile(np.arange(n + 2), groups),
        "score": rng.integers(0, 30, groups * (n + 2)).astype(float),
    })  # fmt: skip
    truth = pl.DataFrame({
        "q": np.repeat(np.arange(groups), n), "item": np.tile(np.arange(2, n + 2), groups),
        "relevance": 1.0, "p": rng.uniform(0.05, 0.6, groups * n),
    })  # fmt: skip
    drawn = ["trec_rbp"]
    result = rk.evaluate(
        candidates, truth, group_by="q", label_probability="p", label_draws=draws, k=[n + 2],
        metrics=["average_precision", "gm_average_precision", "rbp", *drawn],
        # Over tie blocks ordered by the labels, trec RBP is drawn (along a fixed order its
        # grade laws read it); RBP at the list's length is exact there.
        policy=rk.Policy(ties="optimistic"),
    )  # fmt: skip
    methods = result.label_methods.filter(pl.col("metric").is_in(drawn))
    assert methods["method"].to_list() == ["monte_carlo"]
    assert methods["n_sampled"].to_list() == [groups]
    assert methods["draws"].to_list() == [draws]
    wide = result.per_group.pivot(
        on="metric", index="q", values=["value", "standard_error"], aggregate_function="first"
    )
    assert wide["value_gm_average_precision"].equals(wide["value_average_precision"])
    truths = {"trec_rbp": wide["value_rbp"]}
    for metric, exact in truths.items():
        error = wide[f"standard_error_{metric}"]
        assert (error > 0).all(), metric
        assert (wide["standard_error_average_precision"] == 0).all()
        covered = ((wide[f"value_{metric}"] - exact).abs() <= 1.96 * error).mean()
        assert 0.88 <= covered <= 0.99, (metric, covered)
