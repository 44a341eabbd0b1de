"""One supported range of Polars versions: both packages require it and the docs state it
(`make test` runs its two ends: the newest Polars, and the oldest read from pyproject.toml)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _polars_requirement(pyproject: Path) -> str:
    found = re.findall(r'"polars(>=[0-9.]+,<[0-9.]+)"', pyproject.read_text())
    assert len(found) == 1, f"{pyproject}: expected one polars requirement, found {found}"
    return found[0]


def test_both_packages_require_the_same_polars_range() -> None:
    core = _polars_requirement(ROOT / "pyproject.toml")
    kernel = _polars_requirement(ROOT / "native" / "pyproject.toml")
    assert core == kernel


def test_the_docs_state_the_range_the_packages_require() -> None:
    lower, upper = re.fullmatch(
        r">=([0-9.]+),<([0-9.]+)", _polars_requirement(ROOT / "pyproject.toml")
    ).groups()  # type: ignore[union-attr]
    stated = f"Polars {lower} to < {upper}"
    for page in ("README.md", "docs/getting-started.md"):
        assert stated in (ROOT / page).read_text(), f"{page} does not say {stated!r}"
    assert f"`polars>={lower},<{upper}`" in (ROOT / "docs" / "getting-started.md").read_text()
