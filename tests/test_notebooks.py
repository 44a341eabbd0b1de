"""The notebooks in notebooks/ run top to bottom (nbclient, a kernel on this interpreter)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
KERNEL = "rankk-tests"
#: Notebooks that draw charts, and how many at least.
CHARTS = {"k_curves": 6, "time_aware": 1}
#: Hosts serving chart libraries and fonts.
CDN = re.compile(r"cdn\.jsdelivr|unpkg\.com|fonts\.googleapis|cdnjs|requirejs", re.I)


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kernelspec that runs this very interpreter (the venv), found first on JUPYTER_PATH.

    A user-level or system ``python3`` kernelspec could point at another Python without
    polars-rankk; a private kernelspec avoids depending on what is installed where.
    """
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "polars-rankk tests",
                "language": "python",
            }
        )
    )
    patch = pytest.MonkeyPatch()
    patch.setenv("JUPYTER_PATH", str(root))
    patch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    yield KERNEL
    patch.undo()


@pytest.mark.parametrize("name", sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb")))
def test_notebook_runs(name: str, kernel_name: str) -> None:
    _runs(name, kernel_name)


def test_the_counterfactual_notebook_runs_without_the_open_bandit_dataset(
    kernel_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where obp's sample is not found (here OBD_PATH names an empty folder), the notebook
    writes a synthetic log of the dataset's layout and runs the experiment on it."""
    monkeypatch.setenv("OBD_PATH", str(tmp_path))
    _runs("counterfactual", kernel_name)


def _runs(name: str, kernel_name: str) -> None:
    path = NOTEBOOKS / f"{name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    client = nbclient.NotebookClient(
        notebook,
        kernel_name=kernel_name,
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert errors == []
    last = [cell for cell in notebook.cells if cell.cell_type == "code"][-1]
    assert last.outputs, "the last cell printed nothing"
    outputs = [
        output.get("data", {})
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    ]
    charts = [data["text/html"] for data in outputs if "rankk-chart" in data.get("text/html", "")]
    assert len(charts) >= CHARTS.get(name, 0)
    for html in charts:
        # The chart carries Vega, Vega-Lite and Vega-Embed: it draws offline.
        assert "window.vegaEmbed=" in html
        assert "vegaEmbed(node, spec, options)" in html
    for data in outputs:
        assert not any(key.startswith("application/vnd.vegalite") for key in data)
        assert not CDN.search(data.get("text/html", ""))


def test_notebooks_are_committed_without_outputs() -> None:
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], path.name
                assert cell.execution_count is None, path.name
