"""Execute the notebooks and write them, with their outputs, to docs/notebooks/ for the site.

Run from the repository root after changing a notebook: ``.venv/bin/python
scripts/render_notebooks.py`` (``make docs-notebooks``). The notebooks in notebooks/ stay
committed without outputs; the copies here carry them, so the site shows every chart without
executing anything at build time. Each chart output loses its inlined Vega libraries: the site
serves them once (javascripts/vega-bundle.js), and tests/test_docs.py checks that no output
loads anything from another host.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

from polars_rankk.charts.notebook import BUNDLE_END, BUNDLE_START

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks"
TARGET = ROOT / "docs" / "notebooks"
BUNDLE = re.compile(re.escape(BUNDLE_START) + r".*?" + re.escape(BUNDLE_END) + r"\n?", re.S)
KERNEL = "rankk-docs"


def kernel_directory() -> Path:
    """A kernelspec running this very interpreter, so the notebooks import this checkout."""
    root = Path(tempfile.mkdtemp(prefix="rankk-kernel-"))
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "polars-rankk",
                "language": "python",
            }
        )
    )
    return root


def is_progress_bar(output: dict[str, object]) -> bool:
    """A progress bar's redraw on stderr: noise on a page that is read, not watched."""
    text = output.get("text", "")
    return output.get("name") == "stderr" and isinstance(text, str) and text.startswith("\r")


def render(path: Path, target: Path) -> int:
    """Execute `path`, drop the inlined Vega libraries, write `target`; returns the charts."""
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        notebook, kernel_name=KERNEL, timeout=300, resources={"metadata": {"path": str(SOURCE)}}
    ).execute()
    charts = 0
    for cell in notebook.cells:
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if not is_progress_bar(o)]
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data and BUNDLE_START in data["text/html"]:
                data["text/html"] = BUNDLE.sub("", data["text/html"])
                charts += 1
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, target)
    return charts


def main(argv: list[str] | None = None) -> int:
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: all)")
    args = parser.parse_args(argv)
    os.environ["JUPYTER_PATH"] = str(kernel_directory())
    TARGET.mkdir(parents=True, exist_ok=True)
    paths = sorted(SOURCE.glob("*.ipynb"))
    for path in paths:
        if args.names and path.stem not in args.names:
            continue
        charts = render(path, TARGET / path.name)
        print(f"docs/notebooks/{path.name}: {charts} chart(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
