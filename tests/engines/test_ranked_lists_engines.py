"""Ranked-list inputs (candidates and truth as list columns, as `evaluate` takes them) on the
Dask engine give `evaluate`'s numbers, empty lists included, and refuse what it refuses (two
lists of one group when the list order is the ranking). Spark's are in tests/engines/
test_spark.py (one Spark session for the module).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from tests.support.distributed_cases import LIST_KS as KS
from tests.support.distributed_cases import ranked_lists, sort_per_group

dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 'dask[dataframe]')")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.xdist_group("dask")

from polars_rankk.dask import evaluate_dask, summarize_dask  # noqa: E402


def _dask(frame: pl.DataFrame, partitions: int) -> Any:
    # Arrow-backed lists: Dask turns numpy-object lists into strings (convert-string).
    return dd.from_pandas(
        frame.to_pandas(use_pyarrow_extension_array=True), npartitions=partitions, sort=False
    )


@pytest.mark.parametrize("positional", [False, True], ids=["score-lists", "list-order"])
@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy(),
        rk.Policy(empty_truth="zero", missing_groups="exclude"),
        rk.Policy.trec_eval(),
    ],
    ids=["default", "zero-exclude", "trec_eval"],
)
def test_dask_takes_ranked_lists_as_evaluate_does(positional: bool, policy: rk.Policy) -> None:
    candidates, truth = ranked_lists(positional)
    expected = rk.evaluate(candidates, truth, k=KS, group_by="user", policy=policy)
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            _dask(candidates, 3),
            _dask(truth, 2),
            k=KS,
            group_by="user",
            policy=policy,
            npartitions=2,
            with_dropped=True,
        )
        per_group = pl.from_pandas(result.per_group.compute())
        summary = summarize_dask(result)
    want = expected.per_group
    assert isinstance(want, pl.DataFrame)
    assert sort_per_group(per_group, ["user"]).equals(sort_per_group(want, ["user"]))
    assert summary.equals(expected.summary())


def test_dask_takes_labelled_candidate_lists_without_truth() -> None:
    candidates = pl.DataFrame(
        {"user": [1, 2, 3], "item": [[1, 2], [], [3]], "relevance": [[0, 1], [], [0]]}
    )
    policy = rk.Policy(empty_truth="zero")
    expected = rk.evaluate(candidates, k=2, group_by="user", policy=policy)
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            _dask(candidates, 2), k=2, group_by="user", policy=policy, with_dropped=True
        )
        summary = summarize_dask(result)
    assert summary.equals(expected.summary())
    assert summary["n_groups"].unique().to_list() == [3]


def test_dask_refuses_two_lists_of_one_group_when_the_order_is_the_ranking() -> None:
    # Each input partition holds one of user 1's lists: only the shuffled partition sees both.
    candidates = pl.DataFrame({"user": [1, 2, 1], "item": [[1, 2], [3], [4]]})
    truth = pl.DataFrame({"user": [1, 2], "item": [[2], [3]]})
    with pytest.raises(ValueError, match=r"user=1 has 2 rows.*list order is the ranking"):
        rk.evaluate(candidates, truth, k=2, group_by="user")
    with dask.config.set(scheduler="synchronous"):
        per_group = evaluate_dask(
            _dask(candidates, 3), _dask(truth, 1), k=2, group_by="user", npartitions=1
        )
        with pytest.raises(ValueError, match=r"user=1 has 2 rows.*list order is the ranking"):
            per_group.compute()


@pytest.mark.parametrize("positional", [False, True], ids=["score-lists", "list-order"])
def test_dask_takes_numpy_object_lists_of_pandas_frames_with_convert_string_on(
    positional: bool,
) -> None:
    """Dask's convert-string turns numpy-object lists into strings; a frame made by
    ``dd.from_pandas`` is made again without that conversion, so a list without scores (the
    list order is the ranking) is evaluated as `evaluate` does, as on Spark."""
    candidates, truth = ranked_lists(positional=positional)
    expected = rk.evaluate(candidates, truth, k=KS, group_by="user")
    stringified = dd.from_pandas(candidates.to_pandas(), npartitions=2)
    assert str(stringified.dtypes["item"]) == "string"  # what Dask made of the lists
    with dask.config.set(scheduler="synchronous"):
        result = evaluate_dask(
            stringified,
            dd.from_pandas(truth.to_pandas(), npartitions=2),
            k=KS,
            group_by="user",
            with_dropped=True,
        )
        summary = summarize_dask(result)
    assert summary.equals(expected.summary())


def test_dask_reads_numpy_object_lists_when_convert_string_is_off() -> None:
    candidates, truth = ranked_lists(positional=False)
    expected = rk.evaluate(candidates, truth, k=KS, group_by="user")
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        result = evaluate_dask(
            dd.from_pandas(candidates.to_pandas(), npartitions=2),
            dd.from_pandas(truth.to_pandas(), npartitions=2),
            k=KS,
            group_by="user",
            with_dropped=True,
        )
        summary = summarize_dask(result)
    assert summary.equals(expected.summary())
