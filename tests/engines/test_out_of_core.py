"""Partitioned (larger-than-memory) evaluation gives exactly the single-pass numbers."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.engines.out_of_core import evaluate_in_partitions
from tests.conftest import assert_same_values
from tests.core.test_invariance import _tables
from tests.support.distributed_cases import (
    DIALECT_CASES,
    KS,
    Case,
    single_machine,
    sort_per_group,
    tables,
)
from tests.support.reference import per_group_dict

K = [1, 5, 10]


@pytest.mark.parametrize("partitions", [1, 3, 97])
@pytest.mark.parametrize(
    "policy",
    [rk.Policy(), rk.Policy(ties="expected", empty_truth="nan", short_lists="skip")],
)
def test_partitions_match_one_pass(tmp_path: Path, partitions: int, policy: rk.Policy) -> None:
    candidates, truth = _tables(seed=11, n_groups=70)
    expected = rk.evaluate(candidates, truth, k=K, group_by="user", policy=policy)
    parquet_c = tmp_path / "candidates.parquet"
    parquet_t = tmp_path / "truth.parquet"
    candidates.write_parquet(parquet_c)
    truth.write_parquet(parquet_t)
    result = evaluate_in_partitions(
        pl.scan_parquet(parquet_c),
        pl.scan_parquet(parquet_t),
        output=tmp_path / "out",
        partitions=partitions,
        k=K,
        group_by="user",
        policy=policy,
    )
    assert_same_values(
        per_group_dict(result.per_group.collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )
    got = result.summary().sort("metric", "k")
    want = expected.summary().sort("metric", "k")
    assert got.select(want.columns).equals(want)
    assert len(list((tmp_path / "out").glob("part-*.parquet"))) <= partitions


@pytest.mark.parametrize("case", DIALECT_CASES, ids=lambda case: case.name)
def test_partitions_match_one_pass_under_the_dialect_fields(tmp_path: Path, case: Case) -> None:
    candidates, truth = tables(case)
    expected = single_machine(case, candidates, truth)
    result = evaluate_in_partitions(
        candidates.lazy(),
        None if truth is None else truth.lazy(),
        output=tmp_path / "out",
        partitions=4,
        k=list(KS),
        metrics=None if case.metrics is None else list(case.metrics),
        group_by=case.keys,
        policy=case.policy,
    )
    per_group = expected.per_group
    assert isinstance(per_group, pl.DataFrame)
    got = sort_per_group(result.per_group.collect(), case.keys)
    assert got.equals(sort_per_group(per_group, case.keys))
    want = expected.summary().sort("metric", "k")
    assert result.summary().sort("metric", "k").select(want.columns).equals(want)


def test_bad_partition_count(tmp_path: Path) -> None:
    candidates, truth = _tables()
    with pytest.raises(ValueError, match="partitions must be an int >= 1"):
        evaluate_in_partitions(candidates, truth, output=tmp_path, partitions=0, group_by="user")


@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy(),
        rk.Policy(empty_truth="zero"),
        rk.Policy(empty_truth="zero", missing_groups="exclude"),
        rk.Policy.trec_eval(),
    ],
)
def test_partitions_keep_groups_with_an_empty_ranked_list(
    tmp_path: Path, policy: rk.Policy
) -> None:
    # Ranked-list inputs: user 2's truth list and user 3's candidate list are empty; long
    # form has no row for either, and evaluate still counts both groups.
    candidates = pl.DataFrame(
        {
            "user": [1, 2, 3, 4],
            "item": [[1, 2], [3], [], [7, 8]],
            "score": [[0.9, 0.8], [0.5], [], [0.1, 0.2]],
        }
    )
    truth = pl.DataFrame({"user": [1, 2, 3, 4], "item": [[2], [], [5], [8, 9]]})
    expected = rk.evaluate(candidates, truth, k=[1, 2], group_by="user", policy=policy)
    for partitions in (1, 3):
        result = evaluate_in_partitions(
            candidates,
            truth,
            output=tmp_path / f"out{partitions}",
            partitions=partitions,
            k=[1, 2],
            group_by="user",
            policy=policy,
        )
        assert_same_values(
            per_group_dict(result.per_group.collect(), ["user"]),
            per_group_dict(expected.per_group, ["user"]),
        )
        want = expected.summary().sort("metric", "k")
        assert result.summary().sort("metric", "k").select(want.columns).equals(want)


def test_partitions_keep_an_empty_candidate_list_without_truth(tmp_path: Path) -> None:
    candidates = pl.DataFrame({"user": [1, 2], "item": [[1, 2], []], "relevance": [[1, 0], []]})
    policy = rk.Policy(empty_truth="zero")
    expected = rk.evaluate(candidates, k=2, metrics="recall", group_by="user", policy=policy)
    result = evaluate_in_partitions(
        candidates,
        output=tmp_path / "out",
        partitions=2,
        k=2,
        metrics="recall",
        group_by="user",
        policy=policy,
    )
    assert result.summary()["n_groups"].to_list() == expected.summary()["n_groups"].to_list() == [2]
    assert_same_values(
        per_group_dict(result.per_group.collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )
