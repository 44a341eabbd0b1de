"""The installed version, read from the package metadata (so nothing imports the package root
for it)."""

from __future__ import annotations


def package_version() -> str:
    """The installed polars-rankk version, from the package metadata.

    Examples
    --------
    >>> from polars_rankk.core.version import package_version
    >>> package_version().count(".") >= 1
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("polars-rankk")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"
