"""Altair (Vega-Lite) charts of aggregated results: K-curves, distributions, strata, comparisons.

Every chart takes an *aggregated* table — the output of `polars_rankk.curves.k_curve`,
`polars_rankk.distribution.distribution` / ``histogram`` or `polars_rankk.compare` — never one
row per group, so a chart stays a few kilobytes at any scale. A table with more than
`MAX_ROWS` rows, or with repeated rows for the same (system, stratum…, metric, k), is refused
with a message saying what to pass instead.

Charts share one theme (`theme`): titles, axis labels, the Okabe–Ito colour-blind-safe
palette, and tooltips that carry each metric's definition. `save_chart` writes PNG, SVG,
PDF, JSON or a self-contained HTML file (no CDN) through ``vl-convert-python``.
"""

from __future__ import annotations

from polars_rankk._charting import MAX_ROWS, PALETTE, chart_spec, save_chart, theme
from polars_rankk._comparison_chart import plot_comparison
from polars_rankk._curve_charts import plot_k_curve, plot_precision_recall, plot_strata
from polars_rankk._distribution_charts import plot_distribution, plot_histogram

__all__ = [
    "MAX_ROWS",
    "PALETTE",
    "chart_spec",
    "plot_comparison",
    "plot_distribution",
    "plot_histogram",
    "plot_k_curve",
    "plot_precision_recall",
    "plot_strata",
    "save_chart",
    "theme",
]
