"""Progress of a Spark or Dask action, drawn with the core's bar (`polars_rankk.core.progress`).

The engines' work happens in the cluster, so the bar counts what the cluster reports: Spark
tasks done over the stages of the action (Spark Connect's progress handler, or the classic
session's status tracker polled from a thread), and Dask's own `ProgressBar` over the tasks of
the graph. On by default in notebooks and terminals, off when piped (`progress=None`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from polars_rankk.core.progress import progress_bar, show_progress
from polars_rankk.core.types import untyped

#: Seconds between two polls of a classic Spark session's status tracker.
POLL_SECONDS = 0.25


@contextmanager
def dask_progress(progress: bool | None) -> Iterator[None]:
    """Dask's `ProgressBar` around the computations inside the block, when shown.

    Examples
    --------
    >>> from polars_rankk.engines.progress import dask_progress
    >>> with dask_progress(False):
    ...     pass
    """
    if not show_progress(progress):
        yield
        return
    from dask.diagnostics.progress import ProgressBar

    from polars_rankk.core import progress as bars

    with untyped(ProgressBar)(minimum=bars.DELAY):
        yield


@contextmanager
def spark_progress(session: Any, progress: bool | None) -> Iterator[None]:
    """A bar of Spark tasks done for the actions run inside the block, when shown.

    Examples
    --------
    >>> from polars_rankk.engines.progress import spark_progress
    >>> with spark_progress(None, False):
    ...     pass
    """
    if not show_progress(progress):
        yield
        return
    with progress_bar(None, "Spark tasks", True) as bar:
        if hasattr(session, "registerProgressHandler") and not hasattr(session, "sparkContext"):
            with _connect_handler(session, bar):
                yield
        else:
            with _status_poller(session, bar):
                yield


class _TaskCount:
    """Tasks done and to do over every stage seen so far."""

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._stages: dict[int, tuple[int, int]] = {}

    def update(self, stages: Iterable[tuple[int, int, int]]) -> None:
        for stage, total, done in stages:
            self._stages[stage] = (total, done)
        self._bar.total = sum(total for total, _ in self._stages.values())
        self._bar.n = sum(done for _, done in self._stages.values())
        self._bar.refresh()

    def finish(self) -> None:
        """The action returned: every stage seen ran all its tasks."""
        self.update((stage, total, total) for stage, (total, _) in list(self._stages.items()))


@contextmanager
def _connect_handler(session: Any, bar: Any) -> Iterator[None]:
    count = _TaskCount(bar)

    def handler(stages: Any, inflight_tasks: int, operation_id: Any, done: bool) -> None:
        count.update(
            (stage.stage_id, stage.num_tasks, stage.num_completed_tasks) for stage in stages or ()
        )

    session.registerProgressHandler(handler)
    try:
        yield
        count.finish()
    finally:
        session.removeProgressHandler(handler)


@contextmanager
def _status_poller(session: Any, bar: Any) -> Iterator[None]:
    tracker = session.sparkContext.statusTracker()
    count = _TaskCount(bar)
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(POLL_SECONDS):
            infos = (tracker.getStageInfo(stage) for stage in tracker.getActiveStageIds())
            count.update(
                (info.stageId, info.numTasks, info.numCompletedTasks)
                for info in infos
                if info is not None
            )

    thread = threading.Thread(target=poll, name="polars-rankk-spark-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
    count.finish()
