"""HTML building blocks of the report: one offline page, escaped text, embedded charts.

Not public: see `polars_rankk.report`.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from polars_rankk.core.evaluation.display import Cell, escape, html_table, number

__all__ = ["Cell", "Page", "escape", "html_table", "javascript_bundle", "json_for_script", "number"]

_CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'"
)
_STYLE = """
body { font-family: "Liberation Sans", Helvetica, Arial, sans-serif; margin: 0; color: #222;
       background: #fafafa; }
header { background: #0b3d63; color: white; padding: 18px 28px; }
header h1 { margin: 0 0 4px 0; font-size: 22px; }
header p { margin: 2px 0; opacity: .9; font-size: 13px; }
nav { padding: 8px 28px; background: #eef2f6; font-size: 13px; position: sticky; top: 0;
      border-bottom: 1px solid #d6dde4; z-index: 2; }
nav a { margin-right: 14px; color: #0b3d63; text-decoration: none; }
main { padding: 6px 28px 40px 28px; max-width: 1500px; }
section { background: white; border: 1px solid #e2e6ea; border-radius: 6px; padding: 6px 18px 16px;
          margin: 16px 0; }
h2 { font-size: 18px; margin: 12px 0 6px; color: #0b3d63; }
h3 { font-size: 15px; margin: 14px 0 6px; }
p.note { color: #555; font-size: 13px; margin: 4px 0 10px; max-width: 1000px; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 10px; }
th, td { border-bottom: 1px solid #e6e6e6; padding: 3px 9px; text-align: right;
         white-space: nowrap; }
th { background: #f3f5f7; font-weight: 600; }
td.text, th.text { text-align: left; white-space: normal; max-width: 520px; }
td.best { font-weight: 700; }
span.ci { color: #777; font-size: 11px; }
.chart { margin: 8px 0 14px; overflow-x: auto; }
.chart[data-rendered="error"] { color: #a00; }
.scroll { overflow-x: auto; }
code { background: #f1f1f1; padding: 0 3px; border-radius: 3px; }
header code { background: rgba(255, 255, 255, .18); color: white; }
"""
_SCRIPT = """
(function () {
  var nodes = document.querySelectorAll("div[data-rankk-chart]");
  document.documentElement.setAttribute("data-charts", String(nodes.length));
  nodes.forEach(function (node) {
    var source = document.getElementById(node.getAttribute("data-rankk-chart"));
    var spec = JSON.parse(source.textContent);
    vegaEmbed(node, spec, {renderer: "svg", actions: false}).then(function () {
      node.setAttribute("data-rendered", "ok");
    }).catch(function (error) {
      node.setAttribute("data-rendered", "error");
      node.textContent = "This chart could not be drawn: " + error;
      console.error(error);
    });
  });
})();
"""


@functools.lru_cache(maxsize=1)
def javascript_bundle() -> str:
    """Vega, Vega-Lite and Vega-Embed as one classic script.

    Bundling takes seconds, so the script is cached in memory and on disk (under
    ``$XDG_CACHE_HOME/polars-rankk``, keyed by the vl-convert and Vega-Lite versions; a cache
    that cannot be written is skipped).
    """
    import vl_convert

    from polars_rankk.charts.base import altair_module
    from polars_rankk.charts.export import vl_version

    version = vl_version(altair_module())
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "polars-rankk"
    release = getattr(vl_convert, "__version__", "unknown")
    cached = folder / f"vega-bundle-{release}-{version}.js"
    try:
        return cached.read_text(encoding="utf-8")
    except OSError:
        pass
    make_bundle: Any = vl_convert.javascript_bundle  # its stub wants a snippet; None is valid
    bundle: str = make_bundle(None, vl_version=version).replace("</script", "<\\/script")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(bundle, encoding="utf-8")
        partial.replace(cached)  # atomic: a concurrent reader never sees half a file
    except OSError:
        pass
    return bundle


def json_for_script(spec: dict[str, Any]) -> str:
    """JSON that cannot leave a ``<script type="application/json">`` element."""
    text = json.dumps(spec, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


class Page:
    """Collects sections and charts, then renders one HTML document."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.sections: list[tuple[str, str, str]] = []
        self.specs: list[str] = []

    def chart(self, chart: Any) -> str:
        # Not validated against the Vega-Lite schema here (seconds per report): the chart
        # builders' specs are validated in their own tests.
        index = len(self.specs) + 1
        self.specs.append(
            f'<script type="application/json" id="rankk-spec-{index}">'
            f"{json_for_script(chart.to_dict(validate=False))}</script>"
        )
        return f'<div class="chart" data-rankk-chart="rankk-spec-{index}"></div>'

    def section(self, anchor: str, heading: str, body: str) -> None:
        self.sections.append((anchor, heading, body))

    def render(self, subtitle_lines: list[str]) -> str:
        nav = "".join(f'<a href="#{a}">{escape(h)}</a>' for a, h, _ in self.sections)
        sections = "".join(
            f'<section id="{a}"><h2>{escape(h)}</h2>{body}</section>'
            for a, h, body in self.sections
        )
        subtitle = "".join(f"<p>{line}</p>" for line in subtitle_lines)
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(self.title)}</title><style>{_STYLE}</style>"
            f"<script>{javascript_bundle()}</script></head><body>"
            f"<header><h1>{escape(self.title)}</h1>{subtitle}</header><nav>{nav}</nav>"
            f"<main>{sections}</main>{''.join(self.specs)}<script>{_SCRIPT}</script>"
            "</body></html>\n"
        )
