"""Altair (Vega-Lite) charts of aggregated results: K-curves, distributions, strata, comparisons.

Every chart takes an *aggregated* table — the output of `polars_rankk.k_curve`,
`polars_rankk.distribution` / ``histogram`` or `polars_rankk.compare` — never one
row per group, so a chart stays a few kilobytes at any scale. A table with more than
`MAX_ROWS` rows, or with repeated rows for the same (system, stratum…, metric, k), is refused
with a message saying what to pass instead.

Charts share one theme (`theme`): titles, axis labels, the Okabe–Ito colour-blind-safe
palette, and tooltips that carry each metric's definition. Every chart colours systems
through one mapping (`system_colours`) in the order the user gave them, so a system keeps its
colour across charts. `save_chart` writes PNG, SVG,
PDF, JSON or a self-contained HTML file (no CDN) through ``vl-convert-python``.
"""

from __future__ import annotations

from polars_rankk.charts.base import (
    MAX_ROWS,
    PALETTE,
    system_colours,
    theme,
)
from polars_rankk.charts.comparison import plot_comparison
from polars_rankk.charts.counterfactual import plot_counterfactual, plot_counterfactual_sensitivity
from polars_rankk.charts.curves import plot_k_curve, plot_precision_recall, plot_strata
from polars_rankk.charts.distributions import plot_distribution, plot_histogram
from polars_rankk.charts.export import chart_spec, save_chart
from polars_rankk.charts.judges import plot_judge_correction
from polars_rankk.charts.notebook import enable_offline_charts
from polars_rankk.charts.over_time import plot_over_time
from polars_rankk.charts.risk import plot_risk

__all__ = [
    "MAX_ROWS",
    "PALETTE",
    "chart_spec",
    "enable_offline_charts",
    "plot_comparison",
    "plot_counterfactual",
    "plot_counterfactual_sensitivity",
    "plot_distribution",
    "plot_histogram",
    "plot_judge_correction",
    "plot_k_curve",
    "plot_over_time",
    "plot_precision_recall",
    "plot_risk",
    "plot_strata",
    "save_chart",
    "system_colours",
    "theme",
]
