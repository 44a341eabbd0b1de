"""The subtopic (diversity) metrics on Dask: the per-group rows and summary of
``rk.evaluate(..., subtopic=...)``, bit for bit, over 3 partitions, and its errors in its words
(the data: tests/support/diversity_engines.py).
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.core.test_diversity import _two_systems
from tests.support.diversity_engines import (
    MERGED,
    NAMES,
    POLICIES,
    assert_same_rows,
    assert_same_rows_only,
    expected,
    merged,
    null_subtopic,
    refusals,
)

dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 'dask[dataframe]')")
dd = pytest.importorskip("dask.dataframe")


def to_dask(frame: pl.DataFrame, partitions: int = 2) -> Any:
    return dd.from_pandas(frame.to_pandas(), npartitions=partitions, sort=False)


@settings(deadline=None, max_examples=12, derandomize=True, database=None)
@given(cases=MERGED, two_systems=st.booleans(), policy=st.sampled_from(POLICIES))
def test_dask_per_group_equals_evaluate(
    cases: list[dict[str, Any]], two_systems: bool, policy: rk.Policy
) -> None:
    from polars_rankk.engines.dask import DaskEvaluation, evaluate_dask

    run, truth = merged(cases, two_systems)
    keys = ["system", "query"] if two_systems else ["query"]
    want = expected(run, truth, keys, policy)
    with dask.config.set(scheduler="sync"):
        got = evaluate_dask(
            to_dask(run, 3),
            to_dask(truth),
            k=[2, 5],
            metrics=NAMES,
            group_by=keys,
            subtopic="subtopic",
            policy=policy,
            npartitions=3,
            with_dropped=True,
        )
        assert isinstance(got, DaskEvaluation)
        assert_same_rows(pl.from_pandas(got.per_group.compute()), want.per_group, keys)
        assert got.metrics == want.metrics
        assert got.summary().equals(want.summary())


def test_dask_subtopic_metrics_alone_and_errors_in_evaluates_words() -> None:
    from polars_rankk.engines.dask import evaluate_dask

    runs, truth = _two_systems()
    names = ["alpha_nDCG@5", "NRBP"]
    want = rk.evaluate(runs["a"], truth, metrics=names, group_by="query", subtopic="subtopic")
    with dask.config.set(scheduler="sync"):
        got = evaluate_dask(
            to_dask(runs["a"]), to_dask(truth), metrics=names, group_by="query", subtopic="subtopic"
        )
        assert_same_rows_only(pl.from_pandas(got.compute()), want.per_group)
        # subtopic= without a subtopic metric: an item's grade is its largest over subtopics.
        options: dict[str, Any] = {"metrics": ["ndcg@5"], "group_by": "query"}
        want = rk.evaluate(runs["b"], truth, subtopic="subtopic", **options)
        got = evaluate_dask(to_dask(runs["b"]), to_dask(truth), subtopic="subtopic", **options)
        assert_same_rows_only(pl.from_pandas(got.compute()), want.per_group)
        # Some items judged again, for another subtopic, with a higher grade.
        again = truth.gather_every(2).with_columns(
            subtopic=pl.lit("9"), relevance=pl.lit(3, pl.Int64)
        )
        graded = pl.concat([truth, again])
        want = rk.evaluate(runs["b"], graded, subtopic="subtopic", **options)
        got = evaluate_dask(to_dask(runs["b"]), to_dask(graded), subtopic="subtopic", **options)
        assert_same_rows_only(pl.from_pandas(got.compute()), want.per_group)
        assert not want.per_group.equals(rk.evaluate(runs["b"], truth, **options).per_group)

        def on_dask(run: pl.DataFrame, frame: pl.DataFrame, **options: Any) -> Any:
            return evaluate_dask(to_dask(run), to_dask(frame), **options)

        refusals(on_dask, runs["a"], truth)
        bad, words = null_subtopic(truth)
        per_group = on_dask(runs["a"], bad, group_by="query", metrics=["NRBP"], subtopic="subtopic")
        with pytest.raises(ValueError, match=re.escape(words)):
            per_group.compute()
