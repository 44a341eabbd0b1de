"""Chart export: the Vega-Lite JSON of a chart and the files written from it (PNG, SVG, ...)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from polars_rankk.charts.base import altair_module

if TYPE_CHECKING:
    import altair as alt


def vl_version(alt: Any) -> str | None:
    """The Vega-Lite version vl-convert should use: Altair's, when vl-convert has it."""
    import vl_convert

    wanted = ".".join(str(alt.SCHEMA_VERSION).lstrip("v").split(".")[:2])
    available = vl_convert.get_vegalite_versions()
    return wanted if wanted in available else None


def chart_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The Vega-Lite JSON of a chart, as a dict (validated against the schema).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import chart_spec, plot_k_curve
    >>> curve = pl.DataFrame({"metric": "ndcg", "k": [1, 2], "value": [0.2, 0.3],
    ...                       "n_groups": 9})
    >>> chart_spec(plot_k_curve(curve))["$schema"]
    'https://vega.github.io/schema/vega-lite/v6.4.1.json'
    """
    spec: dict[str, Any] = chart.to_dict(validate=True)
    return spec


def save_chart(
    chart: alt.TopLevelMixin,
    path: str | Path,
    *,
    scale: float = 2.0,
) -> Path:
    """Write a chart as PNG, SVG, PDF, Vega-Lite JSON or a self-contained HTML page.

    The format follows the extension (``.png``, ``.svg``, ``.pdf``, ``.json``, ``.html``).
    HTML inlines Vega, Vega-Lite and Vega-Embed, so the file opens offline. Rendering never
    fetches anything: the data is inline.

    Parameters
    ----------
    chart
        Any Altair chart (e.g. from `plot_k_curve`).
    path
        Destination file.
    scale
        Pixel density of PNG output (2 = sharp on high-DPI screens).

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> from polars_rankk.charts import plot_k_curve, save_chart
    >>> curve = pl.DataFrame({"system": "A", "metric": "recall", "k": [1, 2],
    ...                       "value": [0.1, 0.2], "n_groups": 10})
    >>> out = save_chart(plot_k_curve(curve), pathlib.Path(tempfile.mkdtemp()) / "c.svg")
    >>> out.read_text()[:4]
    '<svg'
    """
    import vl_convert

    alt = altair_module()
    target = Path(path)
    spec = chart_spec(chart)
    version = vl_version(alt)
    suffix = target.suffix.lower()
    if suffix == ".png":
        target.write_bytes(
            vl_convert.vegalite_to_png(spec, vl_version=version, scale=scale, allowed_base_urls=[])
        )
    elif suffix == ".svg":
        target.write_text(
            vl_convert.vegalite_to_svg(spec, vl_version=version, allowed_base_urls=[]),
            encoding="utf-8",
        )
    elif suffix == ".pdf":
        target.write_bytes(
            vl_convert.vegalite_to_pdf(spec, vl_version=version, allowed_base_urls=[])
        )
    elif suffix == ".html":
        target.write_text(
            vl_convert.vegalite_to_html(spec, vl_version=version, bundle=True), encoding="utf-8"
        )
    elif suffix == ".json":
        import json

        target.write_text(json.dumps(spec, indent=2), encoding="utf-8")
    else:
        raise ValueError(
            f"cannot tell the format of {target.name!r}: use .png, .svg, .pdf, .json or .html"
        )
    return target
