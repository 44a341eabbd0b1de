"""The core path stays native to Polars' streaming engine: no in-memory fallback nodes.

The pure-Polars path is checked (``POLARS_RANKK_NATIVE=0``); on the native kernel's path the
kernel's calls are the nodes that gather their input columns (it ranks whole groups at once,
and counts the judged truth's groups), and `evaluate_in_partitions` bounds that memory for
out-of-core tables.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk
from tests.core.test_invariance import _tables

FALLBACK_MARKERS = ("in-memory-map", 'fillcolor="0.0 0.3 1.0"')


def _fallback_nodes(frame: pl.LazyFrame) -> list[str]:
    graph = frame.show_graph(engine="streaming", plan_stage="physical", raw_output=True)
    assert isinstance(graph, str)
    return [
        line
        for line in graph.splitlines()
        if any(marker in line for marker in FALLBACK_MARKERS) and "in-memory-source" not in line
    ]


@pytest.mark.parametrize(
    "ties", ["trec_eval", "item_asc", "input_order", "pessimistic", "expected"]
)
@pytest.mark.parametrize("labelled", [False, True])
@pytest.mark.parametrize(
    "policy_overrides",
    [
        {},
        {"pool": "restrict", "invalid_scores": "drop", "short_lists": "skip"},
        {"duplicates": "keep"},
    ],
)
def test_core_path_has_no_in_memory_fallback(ties, labelled, policy_overrides, monkeypatch):
    monkeypatch.setenv("POLARS_RANKK_NATIVE", "0")
    candidates, truth = _tables()
    cand = candidates.lazy()
    truth_lf: pl.LazyFrame | None = truth.lazy()
    if labelled:
        cand = cand.join(truth.lazy(), on=["user", "item"], how="left").with_columns(
            pl.col("relevance").fill_null(0)
        )
        truth_lf = None
    res = rk.evaluate(
        cand,
        truth_lf,
        k=[1, 5, 10],
        group_by="user",
        policy=rk.Policy(ties=ties, **policy_overrides),
    )
    assert isinstance(res.per_group, pl.LazyFrame)
    assert _fallback_nodes(res.per_group) == []
    assert _fallback_nodes(res.groups) == []


def test_on_the_kernel_path_the_kernel_s_calls_are_the_only_in_memory_nodes():
    from polars_rankk.core.kernel import loader as native

    if not native.status().loaded:
        pytest.skip("the native kernel is not loaded")
    candidates, truth = _tables()
    res = rk.evaluate(candidates.lazy(), truth.lazy(), k=[1, 5], group_by="user")
    assert isinstance(res.per_group, pl.LazyFrame)
    nodes = _fallback_nodes(res.per_group)
    # The kernel's two calls: the candidates with the truth's rows (group_sums), and the judged
    # truth alone for its per-group table (truth_sums: R and the ideal DCG).
    assert len(nodes) == 2
    assert any("group_sums" in node for node in nodes)
    assert any("truth_sums" in node for node in nodes)
