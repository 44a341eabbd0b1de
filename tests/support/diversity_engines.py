"""What the subtopic (diversity) tests of the Spark and Dask engines share
(tests/engines/test_dask_diversity.py, test_spark_diversity.py): the data, `rk.evaluate`'s
rows and words, and the comparisons.

The data are tests/core/test_diversity.py's generated diversity cases (tied scores, unjudged
and repeated items, queries without a relevant subtopic), several cases merged into one input
(their queries renamed apart), some (group, subtopic, item) judgements repeated, optionally two
systems as a second group key; the subtopic metrics are asked with ordinary ones (ndcg@5,
precision@3). The nearest equality, ndeval's, is tested in tests/core/test_diversity.py.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.names.parse import parse_metric_name
from tests.core.test_diversity import POLICY, _frames, _two_systems, diversity_cases

# One parameter set for every subtopic measure: Spark and Dask evaluate one policy a call
# (P_IA, AP_IA and StRecall read no alpha: they go with any).
NAMES = [
    "alpha_nDCG(alpha=0.3)@5",
    "alpha_DCG(alpha=0.3)@3",
    "ERR_IA(alpha=0.3)@4",
    "nERR_IA(alpha=0.3)@5",
    "P_IA@3",
    "AP_IA",
    "StRecall@5",
    "NRBP(alpha=0.3,beta=0.7)",
    "nNRBP(alpha=0.3,beta=0.7)",
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
    asked = {"alpha_ndcg", "err_ia", "ap_ia", "nrbp", "nnrbp", "ndcg", "precision"}
    # The names' alpha and beta, which the policy does not set, label their rows as typed.
    assert asked <= {parse_metric_name(metric).metric for metric in got["metric"]}


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


def assert_same_rows_only(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.schema == want.schema
    assert got.sort("query", "metric", "k").equals(want.sort("query", "metric", "k"))
