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


needs_kernel = pytest.mark.skipif(not kernel_loaded(), reason="the native kernel is not loaded")
