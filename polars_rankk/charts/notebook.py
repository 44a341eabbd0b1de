"""Charts in Jupyter that draw offline: every output carries Vega, Vega-Lite and Vega-Embed.

Altair's default renderer loads Vega from a CDN, so an executed notebook is blank without a
network. The renderer registered here writes each chart as HTML that defines the libraries
(once per page: a later output finds ``window.vegaEmbed`` and skips them) and then draws the
chart. Not public: use `polars_rankk.enable_offline_charts`.
"""

from __future__ import annotations

import json
import uuid
from functools import cache
from typing import Any

from polars_rankk.charts.base import altair_module
from polars_rankk.charts.export import vl_version

#: The name of the renderer in ``altair.renderers``.
RENDERER = "polars_rankk"
#: Markers around the inlined libraries, so a page that serves them itself can drop them.
BUNDLE_START = "/* polars-rankk: vega bundle */"
BUNDLE_END = "/* polars-rankk: end of vega bundle */"


@cache
def vega_script() -> str:
    """Vega, Vega-Lite and Vega-Embed as one classic script that defines ``window.vegaEmbed``.

    The bundle comes from vl-convert-python (the charts extra), for the Vega-Lite version
    Altair writes. Wrapped in a function, its top-level declarations stay local, so the
    script may appear on a page many times; only its first run defines the libraries.

    Examples
    --------
    >>> from polars_rankk.charts.notebook import vega_script
    >>> script = vega_script()
    >>> script.startswith("if (!window.vegaEmbed)"), "window.vegaEmbed=" in script
    (True, True)
    """
    import vl_convert

    # The stub requires `snippet`; without it the bundle assigns the libraries to `window`.
    bundler: Any = vl_convert.javascript_bundle
    bundle = str(bundler(vl_version=vl_version(altair_module())))
    return "if (!window.vegaEmbed) { (function () {\n" + bundle + "\n})(); }\n"


def chart_html(spec: dict[str, Any], *, inline: bool = True) -> str:
    """HTML that draws the Vega-Lite `spec` with no network access.

    With `inline` the libraries are part of the HTML (between `BUNDLE_START` and
    `BUNDLE_END`); without it the page must load ``javascripts/vega-bundle.js`` (or
    `vega_script`) itself: the chart waits for the page's ``load`` event.

    Examples
    --------
    >>> from polars_rankk.charts.notebook import chart_html
    >>> html = chart_html({"mark": "point"}, inline=False)
    >>> html.startswith('<div class="rankk-chart"'), "https://" in html
    (True, False)
    """
    target = f"rankk-chart-{uuid.uuid4().hex}"
    # "</" inside a script would end it early: JSON allows writing the slash escaped.
    data = json.dumps(spec).replace("</", "<\\/")
    options = json.dumps(
        {
            "mode": "vega-lite",
            "actions": {"export": True, "source": False, "compiled": False, "editor": False},
        }
    )
    libraries = f"{BUNDLE_START}\n{vega_script()}{BUNDLE_END}\n" if inline else ""
    return (
        f'<div class="rankk-chart" id="{target}"></div>\n'
        '<script type="text/javascript">\n'
        f"{libraries}"
        "(function (spec, options) {\n"
        f'  var node = document.getElementById("{target}");\n'
        "  function draw() {\n"
        "    window.vegaEmbed(node, spec, options).catch(function (error) {\n"
        "      node.textContent = String(error);\n"
        "    });\n"
        "  }\n"
        "  if (window.vegaEmbed) { draw(); } else { window.addEventListener('load', draw); }\n"
        f"}})({data}, {options});\n"
        "</script>\n"
    )


def render(spec: dict[str, Any], **metadata: Any) -> dict[str, str]:
    """The Altair renderer: a MIME bundle with only ``text/html`` (Vega inlined)."""
    return {"text/html": chart_html(spec, inline=True)}


def enable_offline_charts() -> None:
    """Draw Altair charts in Jupyter with Vega inlined, so they render without a network.

    Each chart output carries Vega, Vega-Lite and Vega-Embed (from vl-convert-python, about
    0.9 MB) instead of loading them from a CDN; the first chart of a page defines them and the
    others reuse them. Works in JupyterLab, Notebook 7, VS Code and in exported HTML. Call it
    once per session, e.g. in the first cell.

    Examples
    --------
    >>> import altair as alt
    >>> import polars_rankk as rk
    >>> rk.enable_offline_charts()
    >>> alt.renderers.active
    'polars_rankk'
    >>> _ = alt.renderers.enable("default")
    """
    alt = altair_module()
    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, render)
    alt.renderers.enable(RENDERER)
