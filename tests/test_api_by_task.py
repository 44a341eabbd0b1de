"""docs/api-by-task.md lists every public name, each importable where the page says."""

from __future__ import annotations

import importlib
import re
import sys
import warnings
from pathlib import Path

import pytest

import polars_rankk as rk

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api-by-task.md"
#: A row's first cell: [`rk.name`](api/part.md#polars_rankk.name), or `polars_rankk.mod.name`.
ROW = re.compile(
    r"^\| (?:\[`rk\.(\w+)`\]\(api/(\w+)\.md#polars_rankk\.(\w+)\)|`(polars_rankk(?:\.\w+)+)`) \|"
)
TASKS = ["Evaluate", "Inspect", "Compare", "Curves", "Time", "Scale", "Names"]
#: The engines' modules need their extras.
EXTRAS = {"polars_rankk.spark": "pyspark", "polars_rankk.dask": "dask"}


def _rows() -> list[tuple[str, str | None]]:
    """(dotted name, API page part or None) of every row."""
    rows = []
    for line in PAGE.read_text().splitlines():
        found = ROW.match(line)
        if found is None:
            continue
        name, part, anchor, dotted = found.groups()
        if name is not None:
            assert anchor == name, f"rk.{name} links to the entry of {anchor}"
            rows.append((f"polars_rankk.{name}", part))
        else:
            rows.append((dotted, None))
    return rows


def test_the_page_groups_the_names_by_the_tasks() -> None:
    headings = re.findall(r"^## (.+)$", PAGE.read_text(), flags=re.MULTILINE)
    assert headings == TASKS


def test_every_public_name_is_on_the_page_once() -> None:
    listed = [dotted.removeprefix("polars_rankk.") for dotted, _ in _rows()]
    assert sorted(n for n in listed if n in rk.__all__) == sorted(rk.__all__)
    assert len(listed) == len(set(listed)), "a name is listed twice"


@pytest.mark.parametrize(("dotted", "part"), _rows(), ids=[d for d, _ in _rows()])
def test_every_name_on_the_page_imports_from_where_it_says(dotted: str, part: str | None) -> None:
    module, name = dotted.rsplit(".", 1)
    if module in EXTRAS:
        pytest.importorskip(EXTRAS[module])
    with warnings.catch_warnings():  # a deprecated name warns (tests/test_deprecated_names.py)
        warnings.simplefilter("ignore", DeprecationWarning)
        assert hasattr(importlib.import_module(module), name), dotted
    if part is not None:  # the link goes to the API reference page that documents it
        assert _part_of(name) == part, f"rk.{name} is on api/{_part_of(name)}.md, not {part}.md"


def _part_of(name: str) -> str:
    """The API reference page of a public name, as docs/hooks.py lays the pages out."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from hooks import part_of
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return str(part_of(name))
