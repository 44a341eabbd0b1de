"""The subtopic (diversity) metrics on Spark and Dask: the per-group rows of
``rk.evaluate(..., subtopic=...)``, bit for bit, and its errors in its words.

The data are tests/core/test_diversity.py's generated diversity cases (tied scores, unjudged
and repeated items, queries without a relevant subtopic), several cases merged into one input
(their queries renamed apart), some (group, subtopic, item) judgements repeated, optionally two
systems as a second group key; the subtopic metrics are asked with ordinary ones (ndcg@5, P@3)
and evaluated over several partitions. The tests of the nearest equality, ndeval's, are in
tests/core/test_diversity.py.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.core.test_diversity import POLICY, _frames, _two_systems, diversity_cases
from tests.engines.test_spark import spark  # noqa: F401  (the module's Spark session)

NAMES = [
    "alpha_nDCG(alpha=0.3)@5",
    "alpha_DCG@3",
    "ERR_IA@4",
    "nERR_IA@5",
    "P_IA@3",
    "AP_IA",
    "StRecall@5",
    "NRBP(beta=0.7)",
    "ndcg@5",
    "precision@3",
]
POLICIES = [POLICY, rk.Policy(), rk.Policy(ties="pessimistic", empty_truth="nan")]
MERGED = st.lists(diversity_cases(), min_size=3, max_size=6)


def merged(cases: list[dict[str, Any]], two_systems: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates and subtopic truth of several cases at once (queries renamed apart), the
    first judgements repeated; with `two_systems`, a ``system`` key (system b ranks by the
    opposite scores) and the truth given to both."""
    runs, truths = [], []
    for index, case in enumerate(cases):
        run, truth = _frames(case)
        renamed = pl.lit(f"c{index}") + pl.col("query")
        runs.append(run.with_columns(renamed.alias("query")))
        truths.append(truth.with_columns(renamed.alias("query")))
    run, truth = pl.concat(runs), pl.concat(truths)
    truth = pl.concat([truth, truth.head(3)])  # a (group, subtopic, item) judgement twice
    if two_systems:
        other = run.with_columns(-pl.col("score"))
        run = pl.concat(
            [run.with_columns(system=pl.lit("a")), other.with_columns(system=pl.lit("b"))]
        )
        truth = truth.join(pl.DataFrame({"system": ["a", "b"]}), how="cross")
    return run, truth


def expected(
    run: pl.DataFrame, truth: pl.DataFrame, keys: list[str], policy: rk.Policy
) -> rk.Evaluation:
    return rk.evaluate(
        run, truth, k=[2, 5], metrics=NAMES, group_by=keys, subtopic="subtopic", policy=policy
    )


def assert_same_rows(got: pl.DataFrame, want: pl.DataFrame, keys: list[str]) -> None:
    assert got.schema == want.schema
    order = [*keys, "metric", "k"]
    assert got.sort(order, nulls_last=True).equals(want.sort(order, nulls_last=True))
    assert {"alpha_ndcg", "err_ia", "ap_ia", "nrbp", "ndcg", "precision"} <= set(got["metric"])


def evaluates_words(run: pl.DataFrame, truth: pl.DataFrame, **options: Any) -> str:
    """The message of the ValueError `rk.evaluate` raises on these arguments."""
    try:
        rk.evaluate(run, truth, group_by="query", **options)
    except ValueError as error:
        return str(error)
    raise AssertionError(f"rk.evaluate raised nothing with {options}")


def refusals(evaluate: Any, run: pl.DataFrame, truth: pl.DataFrame) -> None:
    """Each schema error of the subtopic truth: raised when called, with `rk.evaluate`'s
    words (`evaluate` takes Polars frames, converts them and calls the engine)."""
    bad: list[tuple[str, pl.DataFrame, dict[str, Any]]] = [
        ("need the truth's subtopic column", truth, {"metrics": ["alpha_nDCG@5"]}),
        ("no column 'intent'", truth, {"metrics": ["ERR_IA@5"], "subtopic": "intent"}),
        ("also a group key", truth, {"metrics": ["NRBP"], "subtopic": "query"}),
        ("no column 'item'", truth.drop("item"), {"metrics": ["P_IA@5"], "subtopic": "subtopic"}),
        (
            "no exact expectation",
            truth,
            {"metrics": ["AP_IA"], "subtopic": "subtopic", "policy": rk.Policy(ties="expected")},
        ),
    ]
    for said, frame, options in bad:
        words = evaluates_words(run, frame, **options)
        assert said in words, (said, words)
        with pytest.raises(ValueError, match=re.escape(words)):
            evaluate(run, frame, group_by="query", **options)


def null_subtopic(truth: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """A truth with a null subtopic, and `rk.evaluate`'s words for it."""
    first = pl.int_range(pl.len()) == 0
    subtopic = pl.when(first).then(None).otherwise(pl.col("subtopic")).alias("subtopic")
    bad = truth.with_columns(subtopic)
    run = _two_systems()[0]["a"]
    words = evaluates_words(run, bad, metrics=["NRBP"], subtopic="subtopic")
    assert "'subtopic' (the subtopic) has a null, e.g. row" in words
    return bad, words


# -- Dask ------------------------------------------------------------------------------------

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


def assert_same_rows_only(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.schema == want.schema
    assert got.sort("query", "metric", "k").equals(want.sort("query", "metric", "k"))


# -- Spark -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@settings(deadline=None, max_examples=2, derandomize=True, database=None)
@given(cases=MERGED)
@pytest.mark.parametrize(
    ("two_systems", "policy", "chunk"),
    [(False, POLICY, None), (True, POLICIES[2], 7)],
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
