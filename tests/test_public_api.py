"""Every public name is typed and documented with a runnable example."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import polars_rankk as rk

PUBLIC = [name for name in rk.__all__ if not name.isupper()]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names_have_docstrings_with_examples(name: str) -> None:
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


def test_core_imports_no_optional_module() -> None:
    """The core never imports charts, CLI or distributed engines (one-way dependencies)."""
    import subprocess
    import sys

    code = (
        "import sys, polars_rankk\n"
        "heavy = [m for m in ('altair', 'vl_convert', 'typer', 'rich', 'pyspark', 'dask', 'scipy')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


CORE_MODULES = sorted(path.stem for path in (Path(rk.__file__).parent / "core").glob("*.py"))
OUTER_PARTS = ("stats", "time", "engines", "charts", "reports", "cli", "spark", "dask")


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_modules_depend_one_way(module: str) -> None:
    import ast

    source = Path(rk.__file__).parent / "core" / f"{module}.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    outward = sorted(
        name
        for name in imported
        if name.startswith("polars_rankk.") and name.split(".")[1] in OUTER_PARTS
    )
    assert not outward, f"core module {module} imports {outward}"
