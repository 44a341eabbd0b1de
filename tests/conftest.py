"""Shared fixtures and helpers."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

ENGINES = ("in-memory", "streaming")

# CI draws the same examples on every run (a fixed seed, no example database), so that what a
# fresh clone runs is what was run before submitting; a developer's runs keep drawing new ones.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def bars_without_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress bars from the first step: every job of the tests is far quicker than the
    second a bar waits for (tests/test_progress.py checks that wait)."""
    from polars_rankk.core import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)


def assert_same_values(left: dict, right: dict, tolerance: float = 0.0) -> None:
    """Same keys; values equal (NaN equals NaN), within `tolerance` if given."""
    assert left.keys() == right.keys(), (
        f"only left: {sorted(left.keys() - right.keys(), key=repr)[:5]}; "
        f"only right: {sorted(right.keys() - left.keys(), key=repr)[:5]}"
    )
    for key, value in left.items():
        other = right[key]
        if isinstance(value, float) and math.isnan(value):
            assert isinstance(other, float), (key, value, other)
            assert math.isnan(other), (key, value, other)
        elif tolerance == 0.0:
            assert value == other, (key, value, other)
        else:
            assert abs(value - other) <= tolerance, (key, value, other)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def toy_metrics() -> Iterator[tuple[str, str]]:
    """Two metrics registered through `rk.register_metric` alone, removed afterwards
    (tests/support/toy_metrics.py)."""
    from tests.support import toy_metrics as toys

    names = toys.register()
    yield names
    toys.unregister()
