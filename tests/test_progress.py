"""progress=: bars of buckets done on stderr when asked, silent when piped."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core import progress as progress_module
from polars_rankk.core.progress import progress_bar, show_progress, track

CANDIDATES = pl.DataFrame(
    {"user": [1, 1, 2, 2, 3], "item": [1, 2, 1, 3, 4], "score": [0.9, 0.1, 0.5, 0.7, 0.3]}
)
TRUTH = pl.DataFrame({"user": [1, 2, 3], "item": [2, 3, 9]})


def _partitions(tmp_path: Path, progress: bool | None) -> None:
    rk.evaluate_in_partitions(CANDIDATES, TRUTH, output=tmp_path, partitions=4, k=1,
                              group_by="user", progress=progress)  # fmt: skip


def test_partitions_progress_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _partitions(tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "partitions" in err
    assert "/4 " in err  # a bar of the 4 buckets


def test_partitions_progress_off_and_default_when_piped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _partitions(tmp_path, progress=False)
    _partitions(tmp_path, progress=None)  # pytest's captured stderr is not a terminal
    assert capsys.readouterr().err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_default_follows_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert show_progress(None)
    assert list(track(range(3), "systems", progress=None)) == [0, 1, 2]
    assert "systems" in sys.stderr.getvalue()
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not show_progress(None)


def test_progress_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        show_progress("yes")  # type: ignore[arg-type]


def test_quick_jobs_draw_no_bar(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bar appears only once a job has run for about a second (tests run without the wait:
    conftest.py)."""
    monkeypatch.setattr(progress_module, "DELAY", 1.0)
    with progress_bar(3, "quick", progress=True) as bar:
        for _ in range(3):
            bar.update(1)
    assert capsys.readouterr().err == ""
    with progress_bar(3, "slow", progress=True) as bar:
        for _ in range(3):
            time.sleep(0.45)
            bar.update(1)
    assert "slow" in capsys.readouterr().err


def test_dask_and_spark_summaries_draw_a_bar_when_asked(capfd: pytest.CaptureFixture[str]) -> None:
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask, summarize_dask

    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.5, 0.3]})
    truth = pl.DataFrame({"q": [1, 2], "item": [2, 3]})
    result = evaluate_dask(
        dd.from_pandas(candidates.to_pandas(), npartitions=2),
        dd.from_pandas(truth.to_pandas(), npartitions=1),
        k=1,
        group_by="q",
    )
    summarize_dask(result, progress=True)
    assert "100%" in capfd.readouterr().out
    summarize_dask(result, progress=False)
    assert capfd.readouterr().out == ""


def test_spark_task_count_follows_the_stages() -> None:
    from polars_rankk.engines.progress import _TaskCount

    class Bar:
        total: int | None = None
        n = 0

        def refresh(self) -> None:
            pass

    bar = Bar()
    count = _TaskCount(bar)
    count.update([(0, 4, 1), (1, 2, 0)])
    assert (bar.total, bar.n) == (6, 1)
    count.update([(1, 2, 2)])
    assert (bar.total, bar.n) == (6, 3)
    count.finish()
    assert (bar.total, bar.n) == (6, 6)
