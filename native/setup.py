"""The kernel's wheel is tagged ``py3-none-<platform>``: the library has no Python bindings
(Polars loads it by path through the plugin ABI), so one wheel serves every CPython."""

from __future__ import annotations

from setuptools import setup
from setuptools.dist import Distribution

# Whichever bdist_wheel this setuptools provides (its own, or the wheel package's before 70.1).
_bdist_wheel = Distribution().get_command_class("bdist_wheel")


class PlainLibraryWheel(_bdist_wheel):  # type: ignore[misc, valid-type]
    """No Python version or ABI in the tag: only the platform the library is compiled for."""

    def get_tag(self) -> tuple[str, str, str]:
        _python, _abi, platform = super().get_tag()
        return "py3", "none", platform


setup(cmdclass={"bdist_wheel": PlainLibraryWheel})
