"""Candidates already split by their key across Parquet files are evaluated file range by file
range, without re-partitioning, and give exactly the single-pass numbers: groups only in the
truth (before the first range, between two, after the last) are evaluated once, a killed run
resumes, and files whose key ranges overlap are hash-partitioned as before."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.engines import key_ranges, staging
from polars_rankk.engines.out_of_core import evaluate_in_partitions
from polars_rankk.engines.staging import ResumedRunWarning
from tests.conftest import assert_same_values
from tests.support.reference import per_group_dict

K = [1, 3, 10]


def _write(folder: Path, overlapping: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Four candidate files of users 10-19, 30-39, 50-59, 70-79 (rows in random order inside
    each), and truth files of users 0-89: some users only in the truth, some in the gaps."""
    rng = np.random.default_rng(5)
    (folder / "candidates").mkdir()
    (folder / "truth").mkdir()
    frames = []
    for part, first in enumerate([10, 30, 50, 70]):
        users = rng.integers(first, first + 10, 400)
        if overlapping and part == 2:
            users[0] = 15  # a user of the first file's range
        frame = pl.DataFrame(
            {
                "user": users,
                "item": rng.integers(0, 40, 400),
                "score": rng.choice([0.1, 0.5, 0.5, 0.9, 0.3], 400),
            }
        )
        frame.write_parquet(folder / "candidates" / f"part-{part}.parquet")
        frames.append(frame)
    truth = pl.DataFrame(
        {
            "user": rng.integers(0, 90, 900),
            "item": rng.integers(0, 40, 900),
            "relevance": rng.integers(0, 4, 900),
        }
    ).unique(["user", "item"])
    for part in range(3):
        truth.filter(pl.col("user") % 3 == part).write_parquet(folder / "truth" / f"{part}.parquet")
    return pl.concat(frames), truth


def _run(folder: Path, **options: object) -> rk.PartitionedEvaluation:
    return evaluate_in_partitions(
        pl.scan_parquet(folder / "candidates" / "*.parquet"),
        pl.scan_parquet(folder / "truth" / "*.parquet"),
        output=folder / "out",
        k=K,
        group_by="user",
        progress=False,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("memory_limit", [400 * key_ranges.BYTES_PER_ROW, "1GiB"])
def test_key_ranges_give_the_one_pass_numbers(tmp_path: Path, memory_limit: int | str) -> None:
    candidates, truth = _write(tmp_path)
    result = _run(tmp_path, partitions=7, memory_limit=memory_limit)
    expected = rk.evaluate(candidates, truth, k=K, group_by="user")
    # One file per partition under a budget of 400 rows, one partition under 1 GiB.
    assert result.partitions == (4 if isinstance(memory_limit, int) else 1)
    assert_same_values(
        per_group_dict(result.per_group.collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )
    got = result.summary().sort("metric", "k")
    want = expected.summary().sort("metric", "k")
    assert got.select(want.columns).equals(want)


def test_overlapping_files_are_hash_partitioned(tmp_path: Path) -> None:
    candidates, truth = _write(tmp_path, overlapping=True)
    result = _run(tmp_path, partitions=5)
    assert result.partitions == 5
    expected = rk.evaluate(candidates, truth, k=K, group_by="user")
    assert_same_values(
        per_group_dict(result.per_group.collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )


def test_an_interrupted_run_in_key_ranges_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    candidates, truth = _write(tmp_path)
    save = staging.StagedRun.save
    saved: list[int] = []

    def save_then_fail(run: staging.StagedRun, partition: int, result: object) -> None:
        if len(saved) == 2:
            raise KeyboardInterrupt  # the run stops after two partitions
        save(run, partition, result)  # type: ignore[arg-type]
        saved.append(partition)

    monkeypatch.setattr(staging.StagedRun, "save", save_then_fail)
    limit = 400 * key_ranges.BYTES_PER_ROW
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, memory_limit=limit)
    assert not list((tmp_path / "out").glob("part-*.parquet"))
    monkeypatch.setattr(staging.StagedRun, "save", save)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _run(tmp_path, memory_limit=limit)
    assert any(issubclass(w.category, ResumedRunWarning) for w in caught)
    assert result.resumed_partitions == 2
    expected = rk.evaluate(candidates, truth, k=K, group_by="user")
    assert_same_values(
        per_group_dict(result.per_group.collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )


def test_memory_limits_are_read_or_refused() -> None:
    assert key_ranges.memory_bytes(None) == key_ranges.DEFAULT_MEMORY
    assert key_ranges.memory_bytes("1.5 KiB") == 1536
    for wrong in ("4 parsecs", -1, 0, True):
        with pytest.raises(ValueError, match="memory_limit"):
            key_ranges.memory_bytes(wrong)  # type: ignore[arg-type]


def test_the_files_statistics_give_the_ranges_a_pass_over_the_keys_gives(tmp_path: Path) -> None:
    _write(tmp_path)
    files = key_ranges.parquet_files(pl.scan_parquet(tmp_path / "candidates" / "*.parquet"))
    assert files is not None
    from_footers = key_ranges._from_statistics(files, "user")
    assert from_footers is not None  # pyarrow reads the footers here (a test dependency)
    assert sorted(from_footers, key=lambda r: r.path) == sorted(
        key_ranges._from_rows(files, "user"), key=lambda r: r.path
    )
