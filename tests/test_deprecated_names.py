"""The previous release's names still work, each with a DeprecationWarning naming the new one."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk import engines

CANDIDATES = pl.DataFrame(
    {"user": [1, 1, 2, 3], "item": [1, 2, 3, 4], "score": [0.9, 0.1, 0.5, 0.3]}
)
TRUTH = pl.DataFrame({"user": [1, 2, 3], "item": [2, 3, 9], "relevance": [1, 2, 1]})


def test_evaluate_in_buckets_is_evaluate_in_partitions(tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning, match=r"use evaluate_in_partitions\(partitions=\.\.\.\)"):
        old = rk.evaluate_in_buckets(
            CANDIDATES, TRUTH, output=tmp_path / "old", buckets=2, k=2, group_by="user"
        )
    new = rk.evaluate_in_partitions(
        CANDIDATES, TRUTH, output=tmp_path / "new", partitions=2, k=2, group_by="user"
    )
    assert old.partitions == new.partitions == 2
    assert old.summary().equals(new.summary())
    with pytest.warns(DeprecationWarning, match=r"use \.partitions"):
        assert old.buckets == 2
    with pytest.warns(DeprecationWarning, match=r"use \.resumed_partitions"):
        assert old.resumed_buckets == 0


def test_bucketed_evaluation_is_partitioned_evaluation() -> None:
    with pytest.warns(DeprecationWarning, match="use PartitionedEvaluation"):
        assert engines.BucketedEvaluation is rk.PartitionedEvaluation


def test_metric_expression_is_metrics_expression_of_one_name() -> None:
    frame = CANDIDATES.join(TRUTH, on=["user", "item"], how="left").with_columns(
        pl.col("relevance").fill_null(0)
    )
    with pytest.warns(DeprecationWarning, match="use metrics_expression"):
        old = rk.metric_expression("ndcg@2", "relevance", by="score", item="item")
    new = rk.metrics_expression("ndcg@2", "relevance", by="score", item="item")
    both = frame.group_by("user").agg(old.alias("old"), new.alias("new")).sort("user")
    assert both["old"].to_list() == both["new"].to_list()
    assert new.meta.output_name() == "ndcg@2"


def test_a_function_per_point_is_its_family_at_that_point() -> None:
    """The previous release's ``rk.iprec_at_recall_0_50`` and ``.rankk.r_precision_times_0_40``
    warn, naming the family call that replaces them, and compute the same number."""
    frame = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    with pytest.warns(DeprecationWarning, match=r"use iprec_at_recall\(recall=0\.5\)"):
        old = rk.iprec_at_recall_0_50("rel", by="score", item="item")
    new = rk.iprec_at_recall("rel", recall=0.5, by="score", item="item")
    assert frame.select(old).item() == frame.select(new).item()
    with pytest.warns(DeprecationWarning, match=r"use \.rankk\.r_precision_times\(multiple=0\.4\)"):
        old = pl.col("rel").rankk.r_precision_times_0_40(by="score", item="item")
    new = rk.r_precision_times("rel", multiple=0.4, by="score", item="item")
    assert frame.select(old).item() == frame.select(new).item()
