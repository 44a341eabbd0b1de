"""The front page: the README's ten-line example runs as written, writes only into out/, and
every link into the documentation site points at a page that exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ten_lines(page: Path) -> str:
    """The first Python block after the page's "Ten lines" heading."""
    section = page.read_text().split("## Ten lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    return code.group(1)


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_ten_line_example_runs(page: str, tmp_path: Path) -> None:
    code = ten_lines(ROOT / page)
    assert len(code.strip().splitlines()) <= 11
    script = code.replace('"data/', f'"{ROOT}/data/')
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "precision" in result.stdout
    assert "duplicate_rows_removed" in result.stdout
    # It writes into out/ (ignored by git), never beside the README.
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert (tmp_path / "out" / "per_user.parquet").exists()


def test_the_readme_and_the_getting_started_page_agree() -> None:
    assert ten_lines(ROOT / "README.md") == ten_lines(ROOT / "docs" / "getting-started.md")


def test_readme_is_a_front_page_whose_links_resolve() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme) < 6000, "the README is a front page: move details into docs/"
    for command in ("make demo", "make test"):
        assert command in readme
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10
    missing = [link for link in local if not (ROOT / link).exists()]
    assert missing == []
    assert "(docs/" in readme


def test_readme_links_every_guide() -> None:
    """Every page of docs/ (the site's front page aside) is reachable from the README."""
    readme = (ROOT / "README.md").read_text()
    guides = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "index.md")
    assert [name for name in guides if f"(docs/{name}" not in readme] == []
