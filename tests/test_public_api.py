"""Every public name is typed and documented with a runnable example.

The package's structure (parts, dependencies, module names) is checked in
tests/test_architecture.py.
"""

from __future__ import annotations

import inspect
import warnings

import pytest

import polars_rankk as rk

PUBLIC = [name for name in rk.__all__ if not name.isupper()]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names_have_docstrings_with_examples(name: str) -> None:
    with warnings.catch_warnings():  # a deprecated name warns (tests/test_deprecated_names.py)
        warnings.simplefilter("ignore", DeprecationWarning)
        obj = getattr(rk, name)
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"rk.{name} has no docstring"
    if inspect.isfunction(obj):
        assert "Examples" in doc or ">>>" in doc, f"rk.{name} has no example"
        signature = inspect.signature(obj)
        assert signature.return_annotation is not inspect.Signature.empty, name
        for parameter in signature.parameters.values():
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                assert parameter.annotation is not inspect.Parameter.empty, (name, parameter)
