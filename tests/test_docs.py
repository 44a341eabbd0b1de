"""The documentation site builds strictly, documents every public name, and works offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import polars as pl
import pytest

import polars_rankk

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")
pytest.importorskip("mkdocs_jupyter")

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: A tag loading a script, a style sheet, a font or a frame from another host.
EXTERNAL = re.compile(
    r"<(?:script|link|iframe|img|source|embed)\b[^>]*\b(?:src|href)\s*=\s*[\"']?"
    r"(?:https?:)?//",
    re.IGNORECASE,
)
#: CSS pulling a font or a sheet from another host.
EXTERNAL_CSS = re.compile(r"(?:@import\s+|url\()\s*[\"']?(?:https?:)?//", re.IGNORECASE)
#: Hosts that serve chart libraries, fonts or scripts.
CDN = re.compile(r"cdn\.jsdelivr|unpkg\.com|fonts\.googleapis|fonts\.gstatic|cdnjs", re.I)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert warnings == []
    return target


def test_every_public_name_has_an_api_entry(site: Path) -> None:
    pages = "".join(path.read_text() for path in (site / "api").glob("*.html"))
    missing = [n for n in polars_rankk.__all__ if f'id="polars_rankk.{n}"' not in pages]
    assert missing == []


def test_evaluation_methods_are_documented(site: Path) -> None:
    core = (site / "api" / "core.html").read_text()
    for method in ("summary", "to_latex", "to_markdown", "wide"):
        assert f'id="polars_rankk.Evaluation.{method}"' in core


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    pages = list(site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        text = page.read_text()
        assert not EXTERNAL.search(text), page.relative_to(site)
        assert not EXTERNAL_CSS.search(text), page.relative_to(site)
        assert not CDN.search(text), page.relative_to(site)
    for sheet in site.rglob("*.css"):
        assert not EXTERNAL_CSS.search(sheet.read_text()), sheet.relative_to(site)


def test_the_site_serves_vega_itself(site: Path) -> None:
    bundle = (site / "javascripts" / "vega-bundle.js").read_text()
    assert "window.vegaEmbed=" in bundle
    page = (site / "notebooks" / "k_curves.html").read_text()
    assert 'src="../javascripts/vega-bundle.js"' in page


def test_rendered_notebooks_match_the_notebooks() -> None:
    """docs/notebooks holds the notebooks executed (scripts/render_notebooks.py): same code."""
    for source in sorted((ROOT / "notebooks").glob("*.ipynb")):
        rendered = DOCS / "notebooks" / source.name
        assert rendered.exists(), f"{rendered} is missing: run scripts/render_notebooks.py"
        code = [
            [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
            for path in (source, rendered)
        ]
        assert code[0] == code[1], f"{rendered} is stale: run scripts/render_notebooks.py"


def test_rendered_notebooks_draw_their_charts_from_the_site() -> None:
    charts = 0
    for path in sorted((DOCS / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []):
                html = output.get("data", {}).get("text/html", "")
                if "rankk-chart" in html:
                    charts += 1
                    assert "window.vegaEmbed" in html
                    assert not CDN.search(html), path.name
                    assert not EXTERNAL.search(html), path.name
    assert charts >= 7


def test_guide_pages_keep_what_the_readme_used_to_say() -> None:
    """Each topic of the user guide has its page, each page is in the navigation."""
    config = (ROOT / "mkdocs.yml").read_text()
    for page in (
        "getting-started.md",
        "inputs.md",
        "policies.md",
        "metrics.md",
        "definitions.md",
        "statistics.md",
        "charts.md",
        "time.md",
        "large-data.md",
        "cli.md",
        "gallery.md",
        "tables.md",
    ):
        assert (DOCS / page).exists(), page
        assert page in config, page


@pytest.fixture(scope="module")
def chromium() -> str:
    from tests.support.chromium import find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("Chromium is not installed and could not be installed with apt-get")
    return executable


CHARTS = "Array.from(document.querySelectorAll('.rankk-chart'))"


def test_notebook_charts_draw_offline_in_a_browser(site: Path, chromium: str) -> None:
    """The rendered K-curves notebook, opened from disk: every chart draws, and the page
    requests nothing but its own files."""
    from tests.support.chromium import load_page

    result = load_page(
        chromium,
        site / "notebooks" / "k_curves.html",
        ready=f"{CHARTS}.length > 0 && {CHARTS}.every(n => n.querySelector('svg, canvas'))",
        expressions={
            "charts": f"{CHARTS}.length",
            "drawn": f"{CHARTS}.filter(n => n.querySelector('svg, canvas')).length",
            "selectors": "document.querySelectorAll('.vega-bindings select').length",
        },
        timeout=120,
    )
    assert result.values["charts"] >= 6
    assert result.values["drawn"] == result.values["charts"]
    assert result.values["selectors"] >= 1  # the K selector of the K-curves
    assert [r for r in result.requests if not r.startswith(("file://", "data:"))] == []


def test_notebook_outputs_draw_offline_in_a_browser(chromium: str, tmp_path: Path) -> None:
    """Two chart outputs as Jupyter shows them (each with Vega inlined) on one page: both
    draw, the libraries load once without clashing, nothing is requested."""
    from polars_rankk.charts import chart_spec, plot_k_curve
    from polars_rankk.charts.notebook import chart_html
    from tests.support.chromium import load_page

    curve = pl.DataFrame(
        {"system": ["A", "A", "B", "B"], "metric": "recall", "k": [1, 2, 1, 2],
         "value": [0.1, 0.2, 0.15, 0.3], "ci_low": 0.0, "ci_high": 0.4, "n_groups": 10}
    )  # fmt: skip
    outputs = "".join(chart_html(chart_spec(plot_k_curve(curve, ui_k=2))) for _ in range(2))
    page = tmp_path / "outputs.html"
    page.write_text(f"<!doctype html><html><body>{outputs}</body></html>", encoding="utf-8")
    result = load_page(
        chromium,
        page,
        ready=f"{CHARTS}.length === 2 && {CHARTS}.every(n => n.querySelector('svg, canvas'))",
        expressions={"drawn": f"{CHARTS}.filter(n => n.querySelector('svg, canvas')).length"},
        timeout=90,
    )
    assert result.values["drawn"] == 2
    assert result.errors == []
    assert [r for r in result.requests if not r.startswith(("file://", "data:"))] == []


def test_policy_table_is_in_the_markdown_and_up_to_date() -> None:
    """docs/policies.md holds the policy table itself (read in the repository as on the site),
    as scripts/policy_table.py writes it from `rk.Policy` now."""
    import dataclasses
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "policy_table.py"
    spec = importlib.util.spec_from_file_location("policy_table", path)
    assert spec is not None
    assert spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    page = generator.TARGET.read_text()
    assert page == generator.render(page), "run: .venv/bin/python scripts/policy_table.py"
    for field in dataclasses.fields(polars_rankk.Policy):
        assert f"| `{field.name}` |" in page, field.name


def test_policy_table_lists_every_field(site: Path) -> None:
    import dataclasses

    page = (site / "policies.html").read_text()
    for field in dataclasses.fields(polars_rankk.Policy):
        assert f"<code>{field.name}</code>" in page, field.name
        assert f"<code>--{field.name.replace('_', '-')}</code>" in page, field.name
