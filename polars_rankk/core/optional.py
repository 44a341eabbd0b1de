"""Optional libraries, imported where a feature needs them, with an error that says how to get
them: ``import polars_rankk`` and `evaluate` need only the required dependencies."""

from __future__ import annotations

import importlib
from types import ModuleType

#: The extra of polars-rankk that installs each optional library.
EXTRAS = {
    "scipy": "stats",
    "tqdm": "progress",
    "altair": "charts",
    "vl_convert": "charts",
    "typer": "cli",
    "pyspark": "spark",
    "dask": "dask",
}


def optional_module(name: str, purpose: str) -> ModuleType:
    """Import `name` (``"scipy.stats"``), or raise an ImportError naming what needs it and the
    extra that installs it.

    Examples
    --------
    >>> from polars_rankk.core.optional import optional_module
    >>> optional_module("math", "an example").sqrt(4.0)
    2.0
    >>> optional_module("not_a_library.sub", "an example")
    Traceback (most recent call last):
    ...
    ImportError: an example needs not_a_library (pip install not_a_library)
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        top = name.split(".", maxsplit=1)[0]
        if error.name is None or error.name.split(".")[0] != top:
            raise
        extra = EXTRAS.get(top)
        how = f"pip install 'polars-rankk[{extra}]'" if extra else f"pip install {top}"
        raise ImportError(f"{purpose} needs {top} ({how})") from None
