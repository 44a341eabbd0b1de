"""Choosing the path in a test: the compiled kernel (where it is loaded) or pure Polars."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from polars_rankk.core.kernel import loader as native


@contextmanager
def path(enabled: bool) -> Iterator[None]:
    """Run the block on the kernel (``enabled``) or on pure Polars (``POLARS_RANKK_NATIVE``)."""
    before = os.environ.get(native.SWITCH)
    os.environ[native.SWITCH] = "1" if enabled else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[native.SWITCH]
        else:
            os.environ[native.SWITCH] = before


def kernel_loaded() -> bool:
    """Whether the kernel loads in this process (whatever ``POLARS_RANKK_NATIVE`` says)."""
    with path(True):
        return native.status().loaded


#: A test that needs the kernel: skipped where it does not load, and in the run that switches it
#: off (``POLARS_RANKK_NATIVE=0``), which exists to put the other tests on pure Polars; these
#: choose their path themselves, so that run would repeat what the kernel's run already ran.
needs_kernel = pytest.mark.skipif(
    not kernel_loaded() or os.environ.get(native.SWITCH) == "0",
    reason="the native kernel is not loaded, or this run switches it off",
)
