"""Timing shared by the benchmark scripts."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(repeats: int, *runs: Callable[[], None]) -> list[float]:
    """The best time of each run over `repeats` rounds, the runs alternating within a round so
    that a machine whose load varies slows them alike."""
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[index] = min(best[index], time.perf_counter() - start)
    return best


def median_of(repeats: int, *runs: Callable[[], None]) -> list[float]:
    """The median time of each run over `repeats` rounds, the runs alternating within a round
    (as `best_of`)."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            times[index].append(time.perf_counter() - start)
    return [sorted(values)[len(values) // 2] for values in times]
