"""The README's ten-line example runs as written, from the repository root."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ten_line_example_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Ten lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    script = code.group(1).replace('"data/', f'"{ROOT}/data/')
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "precision" in result.stdout
    assert "duplicate_rows_removed" in result.stdout
    assert (tmp_path / "per_user.parquet").exists()
