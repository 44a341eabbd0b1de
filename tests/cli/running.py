"""Running ``rankk`` from the tests: in-process (fast) or as a subprocess through a pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import polars_rankk
from polars_rankk.cli import main

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "data" / "trec_eval" / "results.test"
QRELS = ROOT / "data" / "trec_eval" / "qrels.test"

Rankk = Callable[..., tuple[int, str, str]]


def run_rankk(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run the command in-process: exit status, stdout, stderr."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def piped_rankk(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m polars_rankk.cli`` with stdout and stderr to pipes, as a shell pipe
    (``rankk … | cat``) or a notebook's ``!rankk`` does; the package imported here is used."""
    package_root = str(Path(polars_rankk.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": package_root, "COLUMNS": "80"}
    return subprocess.run(
        [sys.executable, "-m", "polars_rankk.cli", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=env,
        cwd=cwd,
    )
