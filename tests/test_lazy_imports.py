"""`import polars_rankk` loads the core only; the other parts' names are imported on first use,
so that the ``rankk`` command starts without NumPy, the statistics, charts or reports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import polars_rankk as rk

INIT = Path(rk.__file__)


def _type_checking_imports() -> dict[str, tuple[str, ...]]:
    """The names the ``if TYPE_CHECKING:`` block of the package's ``__init__`` imports."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "_typing.TYPE_CHECKING"
    )
    return {
        f"{node.module}": tuple(alias.name for alias in node.names)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
    }


def test_the_lazy_names_are_the_names_type_checkers_read() -> None:
    assert _type_checking_imports() == rk._LAZY


def test_every_lazy_name_is_its_modules_object() -> None:
    import importlib
    import warnings

    for module, names in rk._LAZY.items():
        for name in names:
            with warnings.catch_warnings():  # a deprecated name warns when read (and is tested so)
                warnings.simplefilter("ignore", DeprecationWarning)
                assert getattr(rk, name) is getattr(importlib.import_module(module), name)
            assert name in rk.__all__


def test_the_command_starts_with_the_core_only() -> None:
    code = (
        "import sys, polars_rankk.cli\n"
        "parts = sorted({m.split('.')[1] for m in sys.modules if m.startswith('polars_rankk.')})\n"
        "heavy = [m for m in ('numpy', 'scipy', 'altair', 'rich') if m in sys.modules]\n"
        "assert parts == ['cli', 'core'] and not heavy, (parts, heavy)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=INIT.parent.parent)


def test_the_command_evaluates_without_numpy(tmp_path: Path) -> None:
    """``rankk evaluate`` reads, evaluates and writes in Polars only: NumPy's import (a tenth
    of a second) is no part of its start-up."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 0.5 t\n", encoding="utf-8")
    qrels.write_text("q1 0 d2 1\nq2 0 d3 2\n", encoding="utf-8")
    code = (
        "import contextlib, io, sys\n"
        "from polars_rankk.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main(['evaluate', {str(run)!r}, {str(qrels)!r}, '--trec-eval', '--format', 'json'])\n"
        "assert 'numpy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=INIT.parent.parent)
