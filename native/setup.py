"""The kernel's wheel is tagged ``py3-none-<platform>``: the library has no Python bindings
(Polars loads it by path through the plugin ABI), so one wheel serves every CPython.

Built from the source distribution where no cargo is (``CARGO``, else ``cargo``, not on
``PATH``), the wheel holds no library (``py3-none-any``): it installs, so that
``polars-rankk[native]`` never fails to install, and polars-rankk runs in pure Polars
(``rk.show_versions()`` says the kernel was built without cargo).
"""

from __future__ import annotations

import os
import shutil

from setuptools import setup
from setuptools.dist import Distribution
from setuptools_rust import Binding, RustExtension

# Whichever bdist_wheel this setuptools provides (its own, or the wheel package's before 70.1).
_bdist_wheel = Distribution().get_command_class("bdist_wheel")


class PlainLibraryWheel(_bdist_wheel):  # type: ignore[misc, valid-type]
    """No Python version or ABI in the tag: only the platform the library is compiled for."""

    def get_tag(self) -> tuple[str, str, str]:
        _python, _abi, platform = super().get_tag()
        return "py3", "none", platform


def _cargo() -> bool:
    return shutil.which(os.environ.get("CARGO", "cargo")) is not None


# No Python bindings: the library is loaded by path by Polars' plugin loader.
KERNEL = RustExtension("polars_rankk_native._kernel", "Cargo.toml", binding=Binding.NoBinding)

setup(cmdclass={"bdist_wheel": PlainLibraryWheel}, rust_extensions=[KERNEL] if _cargo() else [])
