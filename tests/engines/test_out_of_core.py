"""Bucketed (larger-than-memory) evaluation gives exactly the single-pass numbers."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.engines.buckets import evaluate_in_buckets
from tests.conftest import assert_same_values
from tests.core.test_invariance import _tables
from tests.support.reference import per_group_dict

K = [1, 5, 10]


@pytest.mark.parametrize("buckets", [1, 3, 97])
@pytest.mark.parametrize(
    "policy",
    [rk.Policy(), rk.Policy(ties="expected", empty_truth="nan", short_lists="skip")],
)
def test_buckets_match_one_pass(tmp_path: Path, buckets: int, policy: rk.Policy) -> None:
    candidates, truth = _tables(seed=11, n_groups=70)
    expected = rk.evaluate(candidates, truth, k=K, group_by="user", policy=policy)
    parquet_c = tmp_path / "candidates.parquet"
    parquet_t = tmp_path / "truth.parquet"
    candidates.write_parquet(parquet_c)
    truth.write_parquet(parquet_t)
    result = evaluate_in_buckets(
        pl.scan_parquet(parquet_c),
        pl.scan_parquet(parquet_t),
        output=tmp_path / "out",
        buckets=buckets,
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
    assert len(list((tmp_path / "out").glob("part-*.parquet"))) <= buckets


def test_bad_bucket_count(tmp_path: Path) -> None:
    candidates, truth = _tables()
    with pytest.raises(ValueError, match="buckets must be an int >= 1"):
        evaluate_in_buckets(candidates, truth, output=tmp_path, buckets=0, group_by="user")
