"""Progress bars for long jobs (buckets, systems, resamples), drawn by tqdm.

Every long-running entry point takes ``progress: bool | None = None``: None (the default) shows
a bar in a notebook or when stderr is a terminal and stays silent when it is piped or logged;
True and False force it. Bars go to stderr and disappear when the job ends, and appear only
once a job has run for `DELAY` seconds: a quick job draws nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from polars_rankk.core.optional import optional_module

__all__ = ["Bar", "progress_bar", "show_progress", "track"]

T = TypeVar("T")

#: Seconds a job runs before its bar appears (tqdm's ``delay``).
DELAY = 1.0


class Bar(Protocol):
    """What a job calls on its bar."""

    def update(self, n: float | None = 1) -> bool | None: ...


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ipython = getattr(shell, "get_ipython", lambda: None)()
    return ipython is not None and type(ipython).__name__ == "ZMQInteractiveShell"


def show_progress(progress: bool | None) -> bool:
    """Whether to draw a bar: `progress` when given, else in a notebook or on a terminal.

    Examples
    --------
    >>> from polars_rankk.core.progress import show_progress
    >>> show_progress(False), show_progress(True)
    (False, True)
    """
    if progress is not None:
        if not isinstance(progress, bool):
            raise TypeError(f"progress must be True, False or None; got {progress!r}")
        return progress
    if _in_notebook():
        return True
    stream = sys.stderr
    return stream is not None and hasattr(stream, "isatty") and stream.isatty()


class _Silent:
    """The bar of a job that shows none: tqdm is not even imported."""

    def update(self, n: float | None = 1) -> bool | None:
        return None

    def close(self) -> None:
        return None


def _tqdm_class(progress: bool | None) -> Any:
    """tqdm's bar class, or None when tqdm is missing and no bar was asked for."""
    if importlib.util.find_spec("tqdm") is None:
        if progress:
            optional_module("tqdm", "progress=True")  # raises, naming the extra
        return None
    # Notebook widgets need ipywidgets; without it the text bar reads fine in a notebook too.
    if _in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
        return optional_module("tqdm.notebook", "a notebook progress bar").tqdm
    return optional_module("tqdm.std", "a progress bar").tqdm


@contextmanager
def progress_bar(total: int | None, description: str, progress: bool | None) -> Iterator[Bar]:
    """A bar of `total` steps labelled `description`, or a silent one; closed on exit.

    Examples
    --------
    >>> from polars_rankk.core.progress import progress_bar
    >>> with progress_bar(3, "buckets", progress=False) as bar:
    ...     for _ in range(3):
    ...         _ = bar.update(1)
    """
    shown = show_progress(progress)
    bar_class = _tqdm_class(progress) if shown else None
    if bar_class is None:
        bar: Any = _Silent()
    else:
        bar = bar_class(
            total=total,
            desc=description,
            file=sys.stderr,
            leave=False,
            dynamic_ncols=True,
            delay=DELAY,
        )
    try:
        yield bar
    finally:
        bar.close()


def track(
    items: Iterable[T], description: str, progress: bool | None, total: int | None = None
) -> Iterator[T]:
    """Yield `items`, advancing a bar by one per item (`total` defaults to ``len(items)``).

    Examples
    --------
    >>> from polars_rankk.core.progress import track
    >>> list(track(["a", "b"], "systems", progress=False))
    ['a', 'b']
    """
    if total is None and isinstance(items, Sized):
        total = len(items)
    with progress_bar(total, description, progress) as bar:
        for item in items:
            yield item
            bar.update(1)
