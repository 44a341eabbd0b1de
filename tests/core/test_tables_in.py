"""Any table in: pandas, Arrow, DuckDB and ranked list columns give the long-form numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core import is_table, to_lazy

duckdb = pytest.importorskip("duckdb")

KS = [1, 3, 5, 10]


def _tables(seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates (scores with ties, lists of every length) and graded truth (some missed)."""
    rng = np.random.default_rng(seed)
    rows = []
    for user in range(40):
        length = int(rng.integers(0, 12))
        items = rng.choice(30, size=length, replace=False)
        scores = rng.integers(0, 6, size=length) / 5
        rows += [
            (user, f"i{item}", float(score)) for item, score in zip(items, scores, strict=True)
        ]
    candidates = pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
    truth_rows = [
        (user, f"i{item}", int(rng.integers(1, 4)))
        for user in range(45)
        for item in rng.choice(30, size=int(rng.integers(0, 5)), replace=False)
    ]
    truth = pl.DataFrame(truth_rows, schema=["user", "item", "relevance"], orient="row")
    return candidates, truth


def _per_group(candidates: object, truth: object, policy: rk.Policy | None = None) -> pl.DataFrame:
    result = rk.evaluate(candidates, truth, k=KS, group_by="user", policy=policy)  # type: ignore[arg-type]
    per_group = result.per_group
    assert isinstance(per_group, pl.DataFrame)
    return per_group


@pytest.fixture(scope="module")
def tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    return _tables()


@pytest.fixture(scope="module")
def expected(tables: tuple[pl.DataFrame, pl.DataFrame]) -> pl.DataFrame:
    return _per_group(*tables)


def test_pandas_inputs(tables: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame) -> None:
    candidates, truth = tables
    assert_frame_equal(_per_group(candidates.to_pandas(), truth.to_pandas()), expected)


def test_arrow_table_and_record_batch_reader(
    tables: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame
) -> None:
    candidates, truth = tables
    assert_frame_equal(_per_group(candidates.to_arrow(), truth.to_arrow()), expected)
    reader = candidates.to_arrow().to_reader(max_chunksize=17)
    assert_frame_equal(_per_group(reader, truth.to_arrow().to_batches()[0]), expected)


def test_duckdb_relation(tables: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame) -> None:
    candidates, truth = tables
    connection = duckdb.connect()
    connection.register("candidates_view", candidates.to_arrow())
    connection.register("truth_view", truth.to_arrow())
    relation = connection.sql("select user, item, score from candidates_view")
    assert hasattr(relation, "__arrow_c_stream__")
    result = _per_group(relation, connection.sql("select * from truth_view"))
    # DuckDB reads `user` as its own integer type; ids are aligned, values must match.
    assert_frame_equal(result, expected, check_dtypes=False)


def test_candidate_lists_with_scores(
    tables: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame
) -> None:
    candidates, truth = tables
    lists = (
        candidates.sort("user", "score", descending=[False, True])
        .group_by("user", maintain_order=True)
        .agg("item", "score")
    )
    truth_lists = truth.group_by("user").agg("item", "relevance")
    assert_frame_equal(_per_group(lists, truth_lists), expected)
    # Arrow and pandas carry list columns too.
    assert_frame_equal(_per_group(lists.to_arrow(), truth_lists.to_pandas()), expected)


@pytest.mark.parametrize("policy", [rk.Policy(), rk.Policy.trec_eval(gain="exponential")])
def test_list_order_is_the_ranking(
    tables: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = tables
    # Without scores the list order ranks: ties broken as the long form would break them.
    ranked = candidates.with_columns(
        pl.col("score").rank("ordinal", descending=True).over("user").alias("position")
    ).sort("user", "position")
    long_form = _per_group(
        ranked.select("user", "item", score=-pl.col("position").cast(pl.Int64)), truth, policy
    )
    lists = ranked.group_by("user", maintain_order=True).agg("item")
    assert_frame_equal(_per_group(lists, truth, policy), long_form)


def test_truth_lists_without_grades_and_empty_lists() -> None:
    candidates = pl.DataFrame({"user": [1, 2, 3], "item": [["a", "b"], ["c"], []]})
    truth = pl.DataFrame({"user": [1, 2, 3], "item": [["b"], [], ["x"]]})
    result = rk.evaluate(candidates, truth, k=2, metrics="recall", group_by="user")
    assert result.per_group.sort("user")["value"].to_list() == [1.0, 0.0]


def test_rank_lists() -> None:
    candidates = pl.DataFrame({"user": [1], "item": [["a", "b"]], "position": [[2, 1]]})
    truth = pl.DataFrame({"user": [1], "item": ["b"]})
    result = rk.evaluate(candidates, truth, k=1, metrics="precision", group_by="user",
                         rank="position")  # fmt: skip
    assert result.per_group["value"].to_list() == [1.0]


def test_parallel_lists_must_match_in_length() -> None:
    candidates = pl.DataFrame({"user": [1], "item": [["a", "b"]], "score": [[0.5]]})
    truth = pl.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(
        ValueError, match=r"'score' must be a list parallel to 'item'.*\['a', 'b'\]"
    ):
        rk.evaluate(candidates, truth, group_by="user")


def test_plain_score_beside_item_lists_is_refused() -> None:
    candidates = pl.DataFrame({"user": [1], "item": [["a", "b"]], "score": [0.5]})
    truth = pl.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(TypeError, match="must be a parallel list"):
        rk.evaluate(candidates, truth, group_by="user")


def test_list_order_needs_one_list_per_group() -> None:
    candidates = pl.DataFrame({"user": [1, 1], "item": [["a"], ["b"]]})
    truth = pl.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(ValueError, match="each group needs exactly one list"):
        rk.evaluate(candidates, truth, group_by="user")


def test_other_objects_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="truth must be a table"):
        rk.evaluate(pl.DataFrame({"user": [1], "item": ["a"], "score": [1.0]}),
                    {"user": [1]}, group_by="user")  # fmt: skip
    assert not is_table([1])
    assert is_table(pd.DataFrame())
    assert is_table(pa.table({"a": [1]}))


def test_to_lazy_keeps_polars_frames() -> None:
    frame = pl.LazyFrame({"a": [1]})
    assert to_lazy(frame, "x") is frame


def test_bucketed_evaluation_takes_lists(
    tables: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame, tmp_path: object
) -> None:
    candidates, truth = tables
    lists = candidates.group_by("user").agg("item", "score")
    result = rk.evaluate_in_partitions(lists.to_arrow(), truth.to_pandas(), output=str(tmp_path),
                                       partitions=3, k=KS, group_by="user",
                                       progress=False)  # fmt: skip
    per_group = result.per_group.collect().sort("user", "metric", "k")
    assert_frame_equal(per_group, expected.sort("user", "metric", "k"), check_row_order=False)
