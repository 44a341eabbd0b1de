"""The subtopic (diversity) metrics on Spark: the per-group rows and summary of
``rk.evaluate(..., subtopic=...)``, bit for bit, over repartitioned inputs, 3 shuffle
partitions and chunked partitions, and its errors in its words (the data:
tests/support/diversity_engines.py). Heavy (a JVM): the module's session is test_spark's.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest
from hypothesis import Phase, given, settings

import polars_rankk as rk
from tests.core.test_diversity import POLICY, _two_systems
from tests.engines.test_spark import spark  # noqa: F401  (the module's Spark session)
from tests.support.diversity_engines import (
    MERGED,
    NAMES,
    POLICIES,
    assert_same_rows,
    expected,
    merged,
    null_subtopic,
    refusals,
)


@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
# No shrinking: each example is a Spark job.
@settings(
    deadline=None,
    max_examples=2,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
)
@given(cases=MERGED)
@pytest.mark.parametrize(
    ("two_systems", "policy", "chunk"),
    [
        (False, POLICY, None),
        (True, POLICIES[2], 7),
    ],
    ids=["one-key", "two-keys-chunked"],
)
def test_spark_per_group_equals_evaluate(
    spark: Any,  # noqa: F811
    cases: list[dict[str, Any]],
    two_systems: bool,
    policy: rk.Policy,
    chunk: int | None,
) -> None:
    from polars_rankk.engines.spark import SparkEvaluation, evaluate_spark
    from tests.engines.test_spark import collect, to_spark

    run, truth = merged(cases, two_systems)
    keys = ["system", "query"] if two_systems else ["query"]
    want = expected(run, truth, keys, policy)
    got = evaluate_spark(
        to_spark(spark, run),
        to_spark(spark, truth, 2),
        k=[2, 5],
        metrics=NAMES,
        group_by=keys,
        subtopic="subtopic",
        policy=policy,
        num_partitions=3,
        max_rows_per_chunk=chunk,
        with_dropped=True,
    )
    assert isinstance(got, SparkEvaluation)
    got.persist()
    assert_same_rows(collect(got.per_group), want.per_group, keys)
    assert got.metrics == want.metrics
    assert got.summary().equals(want.summary())
    got.unpersist()


@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_subtopic_errors_in_evaluates_words(spark: Any) -> None:  # noqa: F811
    from polars_rankk.engines.spark import evaluate_spark
    from tests.engines.test_spark import to_spark

    runs, truth = _two_systems()

    def on_spark(run: pl.DataFrame, frame: pl.DataFrame, **options: Any) -> Any:
        return evaluate_spark(to_spark(spark, run), to_spark(spark, frame), **options)

    refusals(on_spark, runs["a"], truth)
    bad, words = null_subtopic(truth)
    per_group = on_spark(runs["a"], bad, group_by="query", metrics=["NRBP"], subtopic="subtopic")
    with pytest.raises(Exception, match=re.escape(words)) as raised:
        per_group.toArrow()
    assert "polars_rankk.spark" in str(raised.value)
