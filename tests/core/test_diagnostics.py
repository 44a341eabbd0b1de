"""Diagnostics (polars_rankk/core/evaluation/diagnostics.py): the recall ceiling follows the
policy."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.support.examples import examples
from tests.support.ranking_cases import cases, frames


def _ceiling(res: rk.Evaluation) -> dict[int, float | None]:
    return dict(res.diagnostics.per_k.select("k", "recall_ceiling").iter_rows())


def _recall(res: rk.Evaluation) -> dict[int, float | None]:
    summary = res.summary().filter(pl.col("metric") == "recall")
    return {
        row["k"]: row["value"] if row["n_groups"] else None for row in summary.iter_rows(named=True)
    }


def test_recall_ceiling_counts_r_in_the_restricted_pool() -> None:
    """With pool="restrict", candidates [1, 2] and truth [1, 9], recall@1 is
    1.0 but the ceiling was 0.5, computed with the unrestricted R."""
    candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.9, 0.1]})
    truth = pl.DataFrame({"q": [1, 1], "item": [1, 9]})
    restricted = rk.evaluate(
        candidates, truth, k=[1, 2], group_by="q", policy=rk.Policy(pool="restrict")
    )
    assert _recall(restricted) == {1: 1.0, 2: 1.0}
    assert _ceiling(restricted) == {1: 1.0, 2: 1.0}
    everything = rk.evaluate(candidates, truth, k=[1, 2], group_by="q")
    assert _recall(everything) == {1: 0.5, 2: 0.5}
    assert _ceiling(everything) == {1: 0.5, 2: 0.5}


def test_recall_ceiling_leaves_out_the_groups_skipped_at_k() -> None:
    """Under short_lists="skip" the ceiling averaged over groups skipped at K."""
    candidates = pl.DataFrame(
        {"q": [1, 2, 2, 2], "item": ["a", "b", "c", "d"], "score": [0.9, 0.9, 0.5, 0.1]}
    )
    truth = pl.DataFrame({"q": [1, 2, 2], "item": ["a", "x", "c"]})
    res = rk.evaluate(
        candidates, truth, k=[1, 2], group_by="q", policy=rk.Policy(short_lists="skip")
    )
    # k=1: both groups (1/1 and 1/2); k=2: only group 2, whose best is 1 of its 2.
    assert _ceiling(res) == {1: pytest.approx(0.75), 2: 0.5}
    assert res.summary().filter(pl.col("metric") == "recall")["n_groups"].to_list() == [2, 1]


@pytest.mark.parametrize(
    ("empty_truth", "expected"),
    [("zero", (1.0 + 0.0) / 2), ("nan", 1.0), ("exclude", 1.0)],
)
def test_recall_ceiling_scores_empty_truth_as_recall_does(
    empty_truth: str, expected: float
) -> None:
    candidates = pl.DataFrame({"q": [1, 2], "item": [1, 2], "score": [0.5, 0.5]})
    truth = pl.DataFrame({"q": [1, 2], "item": [1, 2], "relevance": [1, 0]})
    res = rk.evaluate(
        candidates,
        truth,
        k=1,
        group_by="q",
        policy=rk.Policy(empty_truth=empty_truth),  # type: ignore[arg-type]
    )
    assert _ceiling(res) == {1: expected}
    assert _recall(res) == {1: expected}


def test_recall_ceiling_with_n_relevant_counts_the_relevant_the_list_missed() -> None:
    candidates = pl.DataFrame(
        {"q": [1, 1], "item": [1, 2], "score": [0.9, 0.1], "relevance": [0, 1], "n_rel": [4, 4]}
    )
    res = rk.evaluate(candidates, k=[1, 2], group_by="q", n_relevant="n_rel")
    assert _ceiling(res) == {1: 0.25, 2: 0.25}


policies = st.builds(
    rk.Policy,
    short_lists=st.sampled_from(["fixed", "observed", "skip"]),
    duplicates=st.sampled_from(["first", "keep"]),
    ties=st.sampled_from(["trec_eval", "item_asc", "pessimistic", "optimistic", "expected"]),
    empty_truth=st.sampled_from(["exclude", "zero", "nan"]),
    missing_groups=st.sampled_from(["zero", "exclude"]),
    pool=st.sampled_from(["all", "restrict"]),
    relevance_threshold=st.sampled_from([1, 2]),
)


@settings(max_examples=examples(60), deadline=None)
@given(case=cases(), policy=policies)
def test_recall_ceiling_is_the_recall_of_the_best_ordering(
    case: dict[str, Any], policy: rk.Policy
) -> None:
    """The ceiling bounds recall@K, and equals it when the relevant candidates rank first."""
    candidates, truth = frames(case)
    ks = [1, 2, 5]
    keys = case["group_by"]
    options: dict[str, Any] = {"k": ks, "metrics": "recall", "group_by": keys, "policy": policy}
    res = rk.evaluate(candidates, truth, **options)
    ceiling, recall = _ceiling(res), _recall(res)
    relevant = truth.filter(pl.col("relevance") >= policy.relevance_threshold).select(
        *keys, "item", pl.lit(1.0).alias("_oracle")
    )
    oracle = candidates.join(relevant, on=[*keys, "item"], how="left").select(
        *keys, "item", pl.col("_oracle").fill_null(0.0).alias("score")
    )
    best = _recall(rk.evaluate(oracle, truth, **options))
    for k in ks:
        value, bound = recall.get(k), ceiling[k]
        if value is None:  # no group is averaged at this k
            assert bound is None
            continue
        assert bound is not None
        assert value <= bound + 1e-12
        assert best[k] == pytest.approx(bound, rel=1e-12, abs=1e-15)
