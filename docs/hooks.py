"""MkDocs hooks: pages and assets derived from the code, never written by hand.

- ``api/*.md``: one API page per part of the library, one entry per name of
  ``polars_rankk.__all__`` (mkdocstrings renders each from its docstring), so a new public
  name gets its page without editing a list.
- ``javascripts/vega-bundle.js``: Vega, Vega-Lite and Vega-Embed from vl-convert-python (the
  charts extra), served by the site itself: the notebooks' charts draw offline.
- ``policies.md``'s table: one row per `rk.Policy` field, from the dataclass and its help
  lines (`POLICY_HELP`, which ``rankk --help`` shows too).
- Notebook pages lose nbconvert's Mermaid loader, which imports Mermaid from a CDN when a
  page has a diagram (none has): the site loads nothing from another host.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from mkdocs.structure.files import File, Files

#: Title and introduction of each part's page, keyed by the part of the package a name lives in.
PARTS: dict[str, tuple[str, str]] = {
    "core": (
        "Evaluation",
        "`rk.evaluate`, the `Policy`, the `Evaluation` it returns, its diagnostics, the "
        "labelling helper and the per-metric Polars expressions.",
    ),
    "stats": (
        "Statistics and curves",
        "Distributions, strata, bootstrap intervals, paired comparisons and K-curves.",
    ),
    "judges": (
        "Judges",
        "Metrics when a model wrote the labels: agreement with people, corrected means.",
    ),
    "passages": (
        "Passages and documents",
        "Passage (chunk) runs collapsed to documents, passage judgements made document "
        "judgements, and the chunk diagnostics.",
    ),
    "charts": ("Charts", "Altair charts of aggregated tables, and their export."),
    "time": ("Time-aware evaluation", "Splits, seen items, sessions, the audit, over time."),
    "counterfactual": (
        "Counterfactual evaluation",
        "A new ranking's expected reward estimated from click logs: IPS, SNIPS, DR.",
    ),
    "engines": ("Large data", "Out-of-core evaluation in hash buckets."),
    "io": ("TREC and BEIR files", "Reading TREC runs and qrels, and BEIR's qrels."),
    "reports": ("HTML report", "The self-contained offline report."),
    "tables": ("Tables for papers", "LaTeX and Markdown tables of summaries and systems."),
}
ORDER = list(PARTS)


def part_of(name: str) -> str:
    """The part of the library a public name lives in (``core`` when it has no module)."""
    import polars_rankk

    module = getattr(getattr(polars_rankk, name), "__module__", None)
    if not isinstance(module, str) or not module.startswith("polars_rankk."):
        return "core"
    return module.split(".")[1]


def api_pages() -> dict[str, str]:
    """``{path: markdown}`` of the API reference: an index and one page per part."""
    import polars_rankk

    parts: dict[str, list[str]] = defaultdict(list)
    for name in polars_rankk.__all__:
        parts[part_of(name)].append(name)
    ordered = [p for p in ORDER if p in parts] + sorted(p for p in parts if p not in PARTS)
    index = [
        "# API reference",
        "",
        "Every public name of `polars_rankk` (`import polars_rankk as rk`), generated from "
        "its docstring. Each example runs as a doctest.",
        "",
    ]
    pages = {}
    for part in ordered:
        title, intro = PARTS.get(part, (part.capitalize(), ""))
        index += [f"## [{title}]({part}.md)", "", intro, ""]
        index += [f"- [`rk.{n}`]({part}.md#polars_rankk.{n})" for n in parts[part]] + [""]
        body = [f"# {title}", "", intro, ""]
        for name in parts[part]:
            body += [f"::: polars_rankk.{name}", *INHERITED.get(name, []), ""]
        pages[f"api/{part}.md"] = "\n".join(body)
    pages["api/index.md"] = "\n".join(index)
    return pages


#: Classes whose documented methods are partly inherited (`Evaluation` reads its tables in
#: `polars_rankk.core.evaluation.readouts.EvaluationTables`).
INHERITED = {"Evaluation": ["    options:", "      inherited_members: true"]}


def vega_bundle() -> str:
    """Vega-Embed with Vega and Vega-Lite, as one classic script defining ``window.vegaEmbed``."""
    from polars_rankk.charts.notebook import vega_script

    return vega_script()


#: nbconvert's Mermaid loader: a module script that imports Mermaid from cdnjs.
MERMAID_LOADER = re.compile(
    r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{'
    r"\s*const diagrams = document\.querySelectorAll\(\"\.jp-Mermaid.*?</script>",
    re.S,
)


def on_post_page(output: str, page: Any, config: Any) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    return MERMAID_LOADER.sub("", output)


def on_files(files: Files, config: Any) -> Files:
    for path, text in api_pages().items():
        files.append(File.generated(config, path, content=text))
    files.append(File.generated(config, "javascripts/vega-bundle.js", content=vega_bundle()))
    return files
