"""The partitioned run's summary, computed one (metric, K) cell at a time from the histograms
every partition staged, is the one-pass summary bit for bit: on inputs full of tied scores,
repeated items, short and empty lists, groups without a relevant item (NaN under
``empty_truth="nan"``) and groups only in the truth, split into partitions by hash and by key
range."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core import value_histogram
from polars_rankk.engines import key_ranges
from polars_rankk.engines.reduction import summarize_files
from tests.support.ranking_cases import cases, frames

K = [1, 3, 10]
POLICIES = (
    rk.Policy(),
    rk.Policy(empty_truth="nan", ties="expected"),
    rk.Policy(empty_truth="zero", short_lists="skip"),
)


def _written(candidates: pl.DataFrame, truth: pl.DataFrame, folder: Path, files: int) -> int:
    """The candidates in `files` Parquet files by group key range (a single key) or in one
    file (several keys: hash partitions), the truth in one; the rows of the largest file."""
    (folder / "candidates").mkdir()
    truth.write_parquet(folder / "truth.parquet")
    if candidates.columns[0] != "g" or files == 1 or not candidates.height:
        candidates.write_parquet(folder / "candidates" / "0.parquet")
        return candidates.height
    # Key ranges: the sorted groups cut into `files` consecutive runs.
    groups = candidates["g"].n_unique()
    run = ((pl.col("g").rank("dense") - 1) * files // groups).alias("_file")
    parts = candidates.with_columns(run).partition_by("_file", include_key=False)
    for part in parts:
        part.write_parquet(folder / "candidates" / f"{part['g'].min()}.parquet")
    return max(part.height for part in parts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=cases(max_groups=5, max_candidates=12, allow_truth_duplicates=False),
    policy=st.sampled_from(POLICIES),
    partitions=st.integers(1, 4),
)
def test_summary_cell_by_cell_is_the_one_pass_summary(
    case: dict[str, Any], policy: rk.Policy, partitions: int
) -> None:
    candidates, truth = frames(case)
    options: dict[str, Any] = {"k": K, "group_by": case["group_by"], "policy": policy}
    expected = rk.evaluate(candidates, truth, **options)
    with tempfile.TemporaryDirectory() as folder:
        largest = _written(candidates, truth, Path(folder), partitions)
        result = rk.evaluate_in_partitions(
            pl.scan_parquet(Path(folder) / "candidates" / "*.parquet"),
            pl.scan_parquet(Path(folder) / "truth.parquet"),
            output=Path(folder) / "out",
            partitions=partitions,
            memory_limit=max(largest, 1) * key_ranges.BYTES_PER_ROW,  # a file a partition
            progress=False,
            resume=False,
            **options,
        )
        want = expected.summary()
        assert result.summary().select(want.columns).equals(want)


@settings(max_examples=40, deadline=None)
@given(
    case=cases(max_groups=5, max_candidates=12),
    policy=st.sampled_from(POLICIES),
    files=st.integers(1, 5),
    seed=st.integers(0, 2**16),
)
def test_summarize_files_merges_a_value_split_across_files(
    case: dict[str, Any], policy: rk.Policy, files: int, seed: int
) -> None:
    # Groups dealt to files at random: a value's count split over several files, summed once.
    candidates, truth = frames(case)
    expected = rk.evaluate(candidates, truth, k=K, group_by=case["group_by"], policy=policy)
    per_group = expected.per_group
    assert isinstance(per_group, pl.DataFrame)
    dealt = pl.struct(case["group_by"]).hash(seed=seed) % files
    with tempfile.TemporaryDirectory() as folder:
        for index in range(files):
            rows = per_group.filter(dealt == index)
            value_histogram(rows).collect().write_parquet(Path(folder) / f"{index}.parquet")
        got = summarize_files(sorted(Path(folder).glob("*.parquet")))
    want = expected.summary().filter((pl.col("n_groups") + pl.col("n_nan")) > 0)
    assert got.equals(want.select(got.columns))
