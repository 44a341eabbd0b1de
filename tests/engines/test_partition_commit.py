"""A killed `evaluate_in_partitions` leaves no result that reads as whole, and a rerun resumes.

The run is a real subprocess killed with SIGKILL part-way through many partitions; the test then
checks the three promises: `output` holds no part file and no ``_SUCCESS`` marker, a rerun with
the same inputs and arguments evaluates only the partitions not yet done (and says so), and no
staging is left behind once it commits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.engines.out_of_core import evaluate_in_partitions
from polars_rankk.engines.staging import SUCCESS, ResumedRunWarning
from tests.conftest import assert_same_values
from tests.support.reference import per_group_dict

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = 48
K = [1, 10]

#: The run in the subprocess: the same call as `_run`, on the same files.
RUN = f"""
import sys
import polars as pl
import polars_rankk as rk
folder = sys.argv[1]
rk.evaluate_in_partitions(
    pl.scan_parquet(f"{{folder}}/candidates.parquet"),
    pl.scan_parquet(f"{{folder}}/truth.parquet"),
    output=f"{{folder}}/out", partitions={PARTITIONS}, k={K!r}, group_by="user", progress=False,
)
"""


def _write_inputs(folder: Path) -> None:
    rng = np.random.default_rng(3)
    n = 120_000
    users = rng.integers(0, 6_000, n)
    pl.DataFrame(
        {"user": users, "item": rng.integers(0, 500, n), "score": rng.random(n)}
    ).write_parquet(folder / "candidates.parquet")
    m = 20_000
    pl.DataFrame(
        {"user": rng.integers(0, 6_000, m), "item": rng.integers(0, 500, m)}
    ).unique().write_parquet(folder / "truth.parquet")


def _run(folder: Path, **kwargs: object) -> rk.PartitionedEvaluation:
    return evaluate_in_partitions(
        pl.scan_parquet(folder / "candidates.parquet"),
        pl.scan_parquet(folder / "truth.parquet"),
        output=folder / "out",
        partitions=PARTITIONS,
        k=kwargs.pop("k", K),  # type: ignore[arg-type]
        group_by="user",
        progress=False,
        **kwargs,  # type: ignore[arg-type]
    )


def _staging(folder: Path) -> Path:
    return folder / ".out.staging"


def _kill_part_way(folder: Path) -> int:
    """Start the run in a subprocess, SIGKILL it once a few partitions are done; how many were."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", RUN, str(folder)], env=env)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            done = list(_staging(folder).glob("*/partitions/done-*"))
            if len(done) >= PARTITIONS // 4 or process.poll() is not None:
                break
            time.sleep(0.005)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL, "the run ended before it was killed"
    done = list(_staging(folder).glob("*/partitions/done-*"))
    assert 0 < len(done) < PARTITIONS
    return len(done)


def _assert_not_readable_as_whole(output: Path) -> None:
    assert not (output / SUCCESS).exists()
    assert not list(output.rglob("*.parquet"))
    with pytest.raises(pl.exceptions.ComputeError, match="expanded paths were empty"):
        pl.scan_parquet(output).collect()


def test_killed_run_leaves_nothing_readable_and_a_rerun_resumes(tmp_path: Path) -> None:
    _write_inputs(tmp_path)
    done = _kill_part_way(tmp_path)
    _assert_not_readable_as_whole(tmp_path / "out")

    with pytest.warns(ResumedRunWarning, match=rf"{done} of {PARTITIONS} partitions were done"):
        result = _run(tmp_path)
    assert result.resumed_partitions == done
    # Committed: parts and the marker in output, no staging left anywhere beside it.
    assert (tmp_path / "out" / SUCCESS).exists()
    assert not _staging(tmp_path).exists()
    expected = rk.evaluate(
        pl.read_parquet(tmp_path / "candidates.parquet"),
        pl.read_parquet(tmp_path / "truth.parquet"),
        k=K,
        group_by="user",
    )
    assert_same_values(
        per_group_dict(pl.scan_parquet(tmp_path / "out").collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )
    want = expected.summary().sort("metric", "k")
    assert result.summary().sort("metric", "k").select(want.columns).equals(want)
    # And what a fresh partitioned run of the same files writes, row for row.
    fresh = evaluate_in_partitions(
        pl.scan_parquet(tmp_path / "candidates.parquet"),
        pl.scan_parquet(tmp_path / "truth.parquet"),
        output=tmp_path / "fresh",
        partitions=PARTITIONS,
        k=K,
        group_by="user",
        progress=False,
        resume=False,
    )
    order = ["user", "metric", "k"]
    assert result.per_group.collect().sort(order).equals(fresh.per_group.collect().sort(order))
    assert result.summary().equals(fresh.summary())


def test_a_run_with_other_arguments_removes_the_killed_runs_staging(tmp_path: Path) -> None:
    _write_inputs(tmp_path)
    _kill_part_way(tmp_path)
    (killed,) = list(_staging(tmp_path).iterdir())
    assert any(killed.rglob("*.parquet"))  # the killed run's partitioned inputs and parts
    result = _run(tmp_path, k=[5])  # other arguments: a run of its own, from the start
    assert result.resumed_partitions == 0
    assert not _staging(tmp_path).exists()
    assert set(result.per_group.collect()["k"].unique()) == {5, None}  # None: r_precision


def test_a_finished_run_commits_and_a_new_run_replaces_it(tmp_path: Path) -> None:
    candidates = pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.1, 0.5]})
    truth = pl.DataFrame({"user": [1, 2], "item": [2, 3]})
    output = tmp_path / "out"
    output.mkdir()
    (output / "part-00007.parquet").write_bytes(b"an old part")
    first = evaluate_in_partitions(
        candidates, truth, output=output, partitions=4, k=1, metrics="hit_rate", group_by="user"
    )
    assert first.resumed_partitions == 0
    assert (output / SUCCESS).exists()
    assert not (output / "part-00007.parquet").exists()
    assert pl.scan_parquet(output).collect().sort("user")["value"].to_list() == [0.0, 1.0]
    assert not _staging(tmp_path).exists()
    # Inputs changed: the run starts over (nothing of the finished run is resumed).
    second = evaluate_in_partitions(
        candidates.tail(2),
        truth,
        output=output,
        partitions=4,
        k=1,
        metrics="hit_rate",
        group_by="user",
    )
    assert second.resumed_partitions == 0
    assert pl.scan_parquet(output).collect().sort("user")["value"].to_list() == [1.0, 1.0]


def test_a_run_without_resume_commits_and_removes_an_interrupted_runs_staging(
    tmp_path: Path,
) -> None:
    _write_inputs(tmp_path)
    _kill_part_way(tmp_path)
    result = _run(tmp_path, resume=False)
    assert result.resumed_partitions == 0
    assert (tmp_path / "out" / SUCCESS).exists()
    assert not _staging(tmp_path).exists()


def test_a_commit_cut_short_is_finished_by_the_rerun(tmp_path: Path) -> None:
    from polars_rankk.engines import staging

    candidates = pl.DataFrame({"user": list(range(40)), "item": [1] * 40, "score": [0.5] * 40})
    truth = pl.DataFrame({"user": list(range(40)), "item": [1] * 40})
    output = tmp_path / "out"
    expected = evaluate_in_partitions(
        candidates, truth, output=tmp_path / "whole", partitions=4, k=1, group_by="user"
    ).per_group.collect()
    # A run killed between moving its first part into output and writing _SUCCESS.
    key = staging.fingerprint({"candidates": candidates}, {})
    run = staging.StagedRun.start(output, key, 4, None)
    for partition in range(4):
        rows = expected.filter(pl.col("user") % 4 == partition)
        histogram = pl.DataFrame({"metric": ["x"], "k": [1], "value": [0.0], "count": [1]})
        run.save(partition, staging.PartitionResult(rows, histogram, pl.DataFrame({"k": [1]})))
    (first,) = sorted((run.folder / "partitions").glob("part-00000.parquet"))
    first.rename(output / first.name)
    # Its rerun takes the moved part back instead of losing it.
    with pytest.warns(ResumedRunWarning, match="4 of 4 partitions were done"):
        again = staging.StagedRun.start(output, key, 4, None)
    assert again.done() == {0, 1, 2, 3}
    parts = again.commit()
    assert len(parts) == 4
    assert pl.scan_parquet(output).collect().height == expected.height


def test_a_changed_input_file_invalidates_the_resume(tmp_path: Path) -> None:
    _write_inputs(tmp_path)
    _kill_part_way(tmp_path)
    changed = pl.read_parquet(tmp_path / "candidates.parquet").with_columns(
        pl.col("score").reverse()
    )
    changed.write_parquet(tmp_path / "candidates.parquet")
    result = _run(tmp_path)  # the killed run's staging belongs to other inputs: not resumed
    assert result.resumed_partitions == 0
    assert not _staging(tmp_path).exists()
    expected = rk.evaluate(
        changed, pl.read_parquet(tmp_path / "truth.parquet"), k=K, group_by="user"
    )
    assert_same_values(
        per_group_dict(pl.scan_parquet(tmp_path / "out").collect(), ["user"]),
        per_group_dict(expected.per_group, ["user"]),
    )
