"""The fingerprint that keys a resumable `evaluate_in_partitions` run.

Files are known by their plan and metadata (no row read); anything else by a hash of every row
whose plan must stream in bounded memory, as at a billion rows it otherwise gathers the whole
input (and a billion-row run was killed for want of memory).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from polars_rankk.engines import staging
from polars_rankk.engines.out_of_core import evaluate_in_partitions
from tests.core.test_streaming_plan import _fallback_nodes

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, scores: list[float]) -> None:
    """Write a small candidates file, its modification time a second after its last one (the
    file system's clock is coarser than two writes of a test)."""
    before = path.stat().st_mtime_ns if path.exists() else None
    pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": scores}).write_parquet(path)
    if before is not None:
        os.utime(path, ns=(before + 10**9, before + 10**9))


def _key(frame: pl.LazyFrame | pl.DataFrame, *, contents: bool = False) -> str:
    return staging.fingerprint({"candidates": frame}, {"k": 10}, contents=contents)


@pytest.mark.parametrize("lazy", [False, True])
def test_the_hash_of_every_row_streams(tmp_path: Path, lazy: bool) -> None:
    _write(tmp_path / "c.parquet", [0.9, 0.1, 0.5])
    frame = pl.scan_parquet(tmp_path / "c.parquet")
    source = frame if lazy else frame.collect().lazy()
    assert _fallback_nodes(staging._contents_plan(source)) == []


def test_a_file_input_is_known_by_its_metadata_without_reading_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "c.parquet", [0.9, 0.1, 0.5])

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a row was read")

    monkeypatch.setattr(pl.LazyFrame, "collect", refuse)
    plan = pl.scan_parquet(tmp_path / "*.parquet").filter(pl.col("score") > 0.2).cache()
    assert _key(plan) == _key(
        pl.scan_parquet(tmp_path / "*.parquet").filter(pl.col("score") > 0.2).cache()
    )
    with pytest.raises(AssertionError, match="a row was read"):
        _key(plan, contents=True)


def test_a_changed_file_changes_the_key(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    _write(path, [0.9, 0.1, 0.5])
    before, before_contents = (
        _key(pl.scan_parquet(path)),
        _key(pl.scan_parquet(path), contents=True),
    )
    _write(path, [0.9, 0.1, 0.6])  # other contents, written later
    assert _key(pl.scan_parquet(path)) != before
    assert _key(pl.scan_parquet(path), contents=True) != before_contents
    # Touched only: the metadata key changes, the contents key does not.
    _write(path, [0.9, 0.1, 0.5])
    touched = _key(pl.scan_parquet(path))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert _key(pl.scan_parquet(path)) != touched
    assert _key(pl.scan_parquet(path), contents=True) == before_contents


def test_a_file_added_to_a_glob_or_a_folder_changes_the_key(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    _write(folder / "part-0.parquet", [0.9, 0.1, 0.5])
    glob_key, folder_key = (
        _key(pl.scan_parquet(folder / "*.parquet")),
        _key(pl.scan_parquet(folder)),
    )
    _write(folder / "part-1.parquet", [0.9, 0.1, 0.5])
    assert _key(pl.scan_parquet(folder / "*.parquet")) != glob_key
    assert _key(pl.scan_parquet(folder)) != folder_key
    if sys.version_info < (3, 11):
        return  # Python's glob matches hidden files from 3.11 on (Polars' does)
    glob_key = _key(pl.scan_parquet(folder / "*.parquet"))
    folder_key = _key(pl.scan_parquet(folder))
    _write(folder / ".hidden.parquet", [0.9, 0.1, 0.5])  # Polars reads it too
    assert _key(pl.scan_parquet(folder / "*.parquet")) != glob_key
    assert _key(pl.scan_parquet(folder)) != folder_key


def test_an_input_holding_data_or_code_is_hashed_row_by_row(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    _write(path, [0.9, 0.1, 0.5])
    users = pl.DataFrame({"user": [1, 2]})
    joined = pl.scan_parquet(path).join(users.lazy(), on="user")
    assert staging._files_digest(joined) is None
    assert _key(joined) != _key(pl.scan_parquet(path).join(users.head(1).lazy(), on="user"))
    with_code = pl.scan_parquet(path).with_columns(pl.col("score").map_batches(lambda s: s * 2))
    assert staging._files_digest(with_code) is None
    # In-memory frames: their rows, in order, whatever their columns are called.
    frame = pl.DataFrame({"_rk_row": [1, 2], "item": [3, 4]})
    assert _key(frame) == _key(frame.clone())
    assert _key(frame) != _key(frame.reverse())


def test_the_key_of_files_is_the_same_in_another_process(tmp_path: Path) -> None:
    _write(tmp_path / "c.parquet", [0.9, 0.1, 0.5])
    plan = f"pl.scan_parquet({str(tmp_path / '*.parquet')!r}).cache().filter(pl.col('user') > 1)"
    code = (
        "import polars as pl\nfrom polars_rankk.engines import staging\n"
        f"print(staging.fingerprint({{'candidates': {plan}}}, {{'k': 10}}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    other = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    frame = eval(plan)  # the same plan, built here
    frame.collect_schema()  # a plan whose schema was asked for is the same plan
    assert _key(frame) == other


def test_resume_takes_true_false_or_contents(tmp_path: Path) -> None:
    frame = pl.DataFrame({"user": [1], "item": [1], "score": [0.5]})
    with pytest.raises(ValueError, match="resume must be True, False or 'contents'"):
        evaluate_in_partitions(
            frame, frame.drop("score"), output=tmp_path / "out", partitions=2, k=1,
            group_by="user", resume="yes",  # type: ignore[arg-type]
        )  # fmt: skip
    result = evaluate_in_partitions(
        frame, frame.drop("score"), output=tmp_path / "out", partitions=2, k=1,
        group_by="user", resume="contents", metrics="hit_rate",
    )  # fmt: skip
    assert result.per_group.collect()["value"].to_list() == [1.0]
