"""Paths that once gave a plausible but wrong number: each now gives the right one, or says
what it did, or refuses with the words a user needs."""

from __future__ import annotations

import math
from datetime import datetime

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk


def test_condensing_an_all_unjudged_list_scores_it_zero_as_trec_eval_j() -> None:
    candidates = pl.DataFrame(
        {"q": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [0.9, 0.8, 0.7, 0.6]}
    )
    truth = pl.DataFrame({"q": [1, 2], "item": [1, 9]})
    for missing in ("exclude", "error", "zero"):
        policy = rk.Policy(unjudged="condense", missing_groups=missing)
        res = rk.evaluate(candidates, truth, k=2, metrics="precision", group_by="q", policy=policy)
        # Query 2 retrieved only unjudged items: an empty condensed list scores 0 (trec_eval
        # -J), it is not a query without candidates.
        assert res.per_group.sort("q")["value"].to_list() == [0.5, 0.0]
        assert res.dropped["dropped_missing"].to_list() == [0, 0]
    counts = res.diagnostics.counts
    assert counts["duplicate_rows_removed"] == 0
    assert counts["unjudged_rows_condensed"] == 3
    assert counts["groups_in_candidates"] == 2
    assert counts["groups_without_candidates"] == 0


def test_optimistic_ties_rank_unjudged_rows_as_grade_zero() -> None:
    rows = pl.DataFrame({"item": [1, 2, 3], "score": [1.0, 1.0, 1.0], "rel": [None, 1, 0]})
    policy = rk.Policy(ties="optimistic")
    value = rows.select(rk.precision_at_k("rel", by="score", k=1, item="item", policy=policy))
    truth = pl.DataFrame({"q": [1, 1], "item": [2, 3], "relevance": [1, 0]})
    expected = rk.evaluate(rows.with_columns(q=1).drop("rel"), truth, k=1, metrics="precision",
                           group_by="q", policy=policy).per_group["value"].item()  # fmt: skip
    assert value.item() == expected == 1.0
    pessimistic = rk.Policy(ties="pessimistic")
    judged = rows.select(rk.judged_at_k("rel", by="score", k=1, item="item", policy=pessimistic))
    assert judged.item() == 0.0  # the unjudged row is a grade-0 row: last among the relevant


def test_a_plain_rank_column_beside_item_lists_is_refused() -> None:
    lists = pl.DataFrame({"q": [1], "item": [[1, 2, 3]], "position": [1]})
    with pytest.raises(TypeError, match=r"'item' holds ranked lists, so 'position' must be a "
                       r"parallel list of one value per item; it has dtype Int64"):  # fmt: skip
        rk.evaluate(lists, pl.DataFrame({"q": [1], "item": [3]}), k=1, group_by="q",
                    rank="position")  # fmt: skip


@pytest.mark.parametrize("largest", [3, 4, 100, 2**63 - 1])
def test_intra_list_diversity_does_not_move_with_k(largest: int) -> None:
    candidates = pl.DataFrame({"q": [1, 1, 1], "item": [1, 2, 3], "score": [3.0, 2.0, 1.0]})
    features = pl.DataFrame({"item": [1, 2, 3], "vector": [[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]})
    res = rk.evaluate(candidates, None, k=[2, largest], metrics="intra_list_diversity",
                      group_by="q", item_features=features)  # fmt: skip
    # Pairs (1,2): 1 - 0.6, (1,3): 1, (2,3): 1 - 0.8 -> 1.6 over the K (K - 1) / 2 pairs of
    # the padded list: the rounding step no longer depends on K, so nothing else moves.
    value = res.per_group.filter(pl.col("k") == largest)["value"].item()
    pairs = float(largest) * (float(largest) - 1.0) / 2.0
    assert value == pytest.approx(1.6 / pairs, rel=1e-14)
    assert res.per_group.filter(k=2)["value"].item() == pytest.approx(0.4, abs=1e-15)


@pytest.fixture
def evaluated() -> rk.Evaluation:
    candidates = pl.DataFrame({"q": [1, 1, 2, 2, 3], "item": [1, 2, 3, 4, 5],
                               "score": [0.9, 0.8, 0.7, 0.6, 0.5]})  # fmt: skip
    truth = pl.DataFrame({"q": [1, 2, 3], "item": [1, 4, 5]})
    return rk.evaluate(candidates, truth, k=[1, 2], metrics=["precision", "r_precision"],
                       group_by="q")  # fmt: skip


@pytest.mark.parametrize("convert", [pl.DataFrame.to_pandas, pl.DataFrame.to_arrow])
def test_statistics_take_pandas_and_arrow_tables(evaluated: rk.Evaluation, convert) -> None:
    per_group = evaluated.per_group
    assert isinstance(per_group, pl.DataFrame)
    other = convert(per_group)
    assert_frame_equal(rk.distribution(other), rk.distribution(per_group))
    assert_frame_equal(rk.histogram(other), rk.histogram(per_group))
    assert_frame_equal(rk.bootstrap(other, n_resamples=20), rk.bootstrap(per_group, n_resamples=20))
    attributes = pl.DataFrame({"q": [1, 2, 3], "segment": ["a", "b", "a"]})
    assert_frame_equal(
        rk.distribution(evaluated, by="segment", attributes=convert(attributes)),
        rk.distribution(evaluated, by="segment", attributes=attributes),
    )
    weights = attributes.select("q", w=pl.Series([1.0, 2.0, 3.0]))
    assert_frame_equal(
        evaluated.summary("weighted", weights=convert(weights)),
        evaluated.summary("weighted", weights=weights),
    )
    compared = rk.compare({"A": other, "B": other}, n_resamples=10)
    assert compared.height == 3  # precision@1, @2 and r_precision (k null, not a float)


def test_a_float_k_that_is_not_whole_is_refused(evaluated: rk.Evaluation) -> None:
    table = evaluated.per_group.to_pandas()
    table["k"] = table["k"] + 0.5
    with pytest.raises(TypeError, match=r"column 'k' must hold whole numbers"):
        rk.distribution(table)


def test_a_stream_read_twice_is_refused() -> None:
    candidates = pa.table({"q": [1], "item": [1], "score": [1.0]}).to_reader()
    truth = pl.DataFrame({"q": [1], "item": [1]})
    assert rk.evaluate(candidates, truth, k=1, group_by="q").summary()["value"][0] == 1.0
    with pytest.raises(ValueError, match=r"candidates \(RecordBatchReader\) gave no rows. A "
                       r"stream is read once"):  # fmt: skip
        rk.evaluate(candidates, truth, k=1, group_by="q")


def test_plot_k_curve_refuses_per_group_rows() -> None:
    per_group = pl.DataFrame({"user": [f"u{i}" for i in range(100)], "metric": "ndcg", "k": 10,
                              "value": 0.5})  # fmt: skip
    with pytest.raises(ValueError, match=r"columns \['user'\] beside the values.*"
                       r"per-group data"):  # fmt: skip
        rk.plot_k_curve(per_group)


def test_an_empty_result_says_why() -> None:
    candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [3.0, 2.0]})
    said = r"no group was evaluated.*all 1 group\(s\) were dropped: 1 without a relevant item"
    with pytest.warns(rk.EmptyResultWarning, match=said):
        rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [5], "relevance": [0]}), k=1,
                    group_by="q")  # fmt: skip
    no_match = pl.DataFrame({"q": [7], "item": [1]})
    with pytest.warns(rk.EmptyResultWarning, match=r"1 without candidates \(missing_groups="):
        rk.evaluate(candidates, no_match, k=1, group_by="q",
                    policy=rk.Policy(missing_groups="exclude"))  # fmt: skip
    log = pl.DataFrame({"user": [1, 1], "item": [1, 2],
                        "timestamp": [datetime(2024, 1, 1), datetime(2024, 1, 2)]})  # fmt: skip
    with pytest.warns(rk.EmptyResultWarning, match=r"leaves the future empty \(the log runs "
                      r"from 2024-01-01 00:00:00 to 2024-01-02 00:00:00"):  # fmt: skip
        split = rk.split_by_time(log, cutoff=datetime(2025, 1, 1))
    assert split.truth.collect().height == 0


def test_pandas_runs_are_accepted_by_compare(evaluated: rk.Evaluation) -> None:
    frame = pd.DataFrame({"q": [1, 2], "metric": "precision", "k": [1.0, 1.0], "value": [1.0, 0.0]})
    assert rk.compare({"A": frame, "B": frame}, n_resamples=5)["diff"].item() == 0.0


@pytest.mark.parametrize("lazy", [False, True])
def test_empty_lists_are_an_empty_ranking_and_an_empty_truth(lazy: bool) -> None:
    candidates = pl.DataFrame({"q": [1, 2], "item": [[1, 2], []]})
    truth = pl.DataFrame({"q": [1, 2, 3], "item": [[2], [5], []]})
    if lazy:
        candidates, truth = candidates.lazy(), truth.lazy()  # type: ignore[assignment]

    def recall(policy: rk.Policy) -> list[tuple[int, float]]:
        res = rk.evaluate(candidates, truth, k=2, metrics="recall", group_by="q", policy=policy)
        return res.collect().per_group.select("q", "value").rows()  # type: ignore[union-attr]

    # Query 2 ranked nothing: it is not missing, so "exclude" keeps it, at 0.
    assert recall(rk.Policy(missing_groups="exclude")) == [(1, 1.0), (2, 0.0)]
    # Query 3's truth is an empty list: a group with nothing relevant, not an absent one.
    assert recall(rk.Policy(empty_truth="zero")) == [(1, 1.0), (2, 0.0), (3, 0.0)]
    nan = recall(rk.Policy(empty_truth="nan"))
    assert nan[:2] == [(1, 1.0), (2, 0.0)]
    assert nan[2][0] == 3
    assert math.isnan(nan[2][1])


@pytest.mark.parametrize("known", ["n_relevant", "unretrieved"])
def test_label_then_expression_gives_null_for_a_group_the_truth_lacks(known: str) -> None:
    # `rk.label` writes a null R_g for a group the truth does not know; padding the ideal
    # ranking by that null count must void the group, not fail the query.
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": ["a", "b", "a", "c"], "score": [0.9, 0.5, 0.8, 0.7]}
    )
    truth = pl.DataFrame({"user": [1], "item": ["b"], "relevance": [2]})
    labelled = rk.label(candidates, truth, group_by="user")
    result = (
        labelled.group_by("user")
        .agg(rk.ndcg_at_k("relevance", by="score", k=2, item="item", **{known: known}))
        .sort("user")
    )
    reference = rk.evaluate(candidates, truth, k=2, group_by="user", metrics=["ndcg"])
    assert result["ndcg@2"].to_list() == [reference.per_group["value"].item(), None]
