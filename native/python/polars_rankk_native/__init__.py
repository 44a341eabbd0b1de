"""The compiled kernel of polars-rankk: where its library is and which plugin ABI it speaks.

polars-rankk loads it through ``polars.plugins.register_plugin_function``; nothing here is
meant to be called directly.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

#: The Polars plugin ABI the library exports (major, minor).
ABI_VERSION = (0, 1)


def _library() -> Path:
    here = Path(__file__).parent
    found = sorted(here.glob("_kernel*.so")) + sorted(here.glob("_kernel*.pyd"))
    found += sorted(here.glob("_kernel*.dylib"))
    if not found:
        raise ImportError(
            f"polars-rankk-native was installed without its compiled library (no _kernel "
            f"library in {here}: built from source where no cargo was)"
        )
    return found[0]


#: The shared library Polars loads.
LIBRARY: Path = _library()

try:
    __version__ = version("polars-rankk-native")
except PackageNotFoundError:  # pragma: no cover - a source tree
    __version__ = "0.0.0"

__all__ = ["ABI_VERSION", "LIBRARY", "__version__"]
