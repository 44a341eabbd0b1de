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

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_rankk.metrics import METRIC_DEFINITIONS
from polars_rankk.validate import METRICS

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "MAX_ROWS",
    "PALETTE",
    "plot_comparison",
    "plot_distribution",
    "plot_histogram",
    "plot_k_curve",
    "plot_precision_recall",
    "plot_strata",
    "save_chart",
    "theme",
]

#: The most rows a chart accepts (Altair's own inline-data limit is 5000).
MAX_ROWS = 5000
#: Okabe & Ito (2008): distinguishable under every common colour-vision deficiency.
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)
_DISTRIBUTION_KNOWN = frozenset(
    {"system", "metric", "k", "n_groups", "n_nan", "mean", "std", "std_error", "min", "max",
     "median", "share_zeros", "share_ones", "value", "ci_low", "ci_high"}
)  # fmt: skip
_HISTOGRAM_KNOWN = frozenset(
    {"system", "metric", "k", "bin", "bin_start", "bin_end", "count", "share", "n_groups"}
)
_CURVE_KNOWN = frozenset(
    {"system", "metric", "k", "value", "ci_low", "ci_high", "n_groups", "n_nan", "std_error"}
)
_COMPARE_KNOWN = frozenset(
    {"system", "metric", "k", "baseline", "diff", "ci_low", "ci_high", "mean", "baseline_mean",
     "n_groups", "n_pairs", "std_error", "relative_diff", "effect_size", "wins", "losses",
     "ties", "p_value_t", "p_value_randomization", "p_value_wilcoxon", "p_adjusted",
     "significant"}
)  # fmt: skip
STRATUM = "stratum"


def theme() -> dict[str, Any]:
    """The Vega-Lite ``config`` every chart of this module carries.

    Examples
    --------
    >>> from polars_rankk.charts import theme
    >>> theme()["range"]["category"][:2]
    ['#0072B2', '#E69F00']
    """
    return {
        "font": "Liberation Sans, Helvetica, Arial, sans-serif",
        "background": "white",
        "padding": 8,
        "title": {"fontSize": 15, "anchor": "start", "subtitleFontSize": 11,
                  "subtitleColor": "#555555", "offset": 10},
        "axis": {"labelFontSize": 11, "titleFontSize": 12, "titleFontWeight": "normal",
                 "gridColor": "#ececec", "domainColor": "#888888", "tickColor": "#888888",
                 "labelColor": "#333333", "titleColor": "#333333"},
        "header": {"labelFontSize": 12, "labelFontWeight": "bold", "titleFontSize": 12,
                   "titleFontWeight": "normal", "labelColor": "#222222"},
        "legend": {"labelFontSize": 11, "titleFontSize": 12, "titleFontWeight": "normal",
                   "orient": "bottom", "labelLimit": 260},
        "view": {"stroke": "#dddddd"},
        "range": {"category": list(PALETTE)},
        "line": {"strokeWidth": 2},
        "point": {"size": 30},
    }  # fmt: skip


def _altair() -> Any:
    try:
        import altair
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "charts need Altair: pip install 'polars-rankk[charts]'"
        ) from error
    return altair


# --- input checks ------------------------------------------------------------------------


def _prepare(
    table: object,
    kind: str,
    required: Sequence[str],
    hint: str,
    known: frozenset[str],
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Iterable[str] | None = None,
    extra_ids: Sequence[str] = (),
) -> tuple[pl.DataFrame, list[str]]:
    """Check an aggregated table, keep the rows to draw, and find its stratum columns.

    Refuses evaluations, tables without the `required` columns, more than `MAX_ROWS` rows
    to draw, and repeated rows for one (system, stratum…, metric, k) — the mark of per-group
    data.
    """
    if hasattr(table, "per_group") and hasattr(table, "group_keys"):
        raise TypeError(
            f"{kind} takes an aggregated table, not an evaluation (one row per group would "
            f"make the chart grow with the data); pass {hint}"
        )
    if not isinstance(table, (pl.DataFrame, pl.LazyFrame)):
        raise TypeError(f"{kind} takes a pl.DataFrame ({hint}); got {type(table).__name__}")
    lazy = table.lazy()
    schema = lazy.collect_schema()
    missing = [c for c in required if c not in schema]
    if missing:
        raise ValueError(f"{kind} needs columns {missing} (got {schema.names()}); pass {hint}")
    system = pl.col("system").cast(pl.String) if "system" in schema else pl.lit("system")
    lazy = lazy.with_columns(system.alias("system"))
    chosen = None
    if metrics is not None:
        chosen = [metrics] if isinstance(metrics, str) else list(metrics)
        lazy = lazy.filter(pl.col("metric").is_in(chosen))
    if k is not None:
        ks = [k] if isinstance(k, int) else list(k)
        lazy = lazy.filter(pl.col("k").is_in(ks))
    if systems is not None:
        lazy = lazy.filter(pl.col("system").is_in(list(systems)))
    frame = lazy.head(MAX_ROWS + 1).collect()
    if frame.height > MAX_ROWS:
        raise ValueError(
            f"{kind} takes aggregated tables of at most {MAX_ROWS} rows to draw; got more. "
            f"Charts never take one row per group: pass {hint}, and choose the metrics, K "
            "and systems to draw"
        )
    if chosen is not None:
        absent = [m for m in chosen if m not in frame.get_column("metric").to_list()]
        if absent:
            raise ValueError(f"{kind}: metrics {absent} are not in the table")
    if frame.height == 0:
        raise ValueError(f"{kind}: nothing to draw, no row matches the metrics / k / systems")
    strata = [c for c in frame.columns if c not in known and not c.startswith("quantile_")]
    ids = ["system", *strata, "metric", "k", *extra_ids]
    repeated = frame.filter(frame.select(ids).is_duplicated())
    if repeated.height:
        raise ValueError(
            f"{kind} expects one row per {ids}; rows repeat, e.g. "
            f"{repeated.select(ids).row(0, named=True)}. Is this per-group data, or several "
            f"systems without a 'system' column? Pass {hint}"
        )
    return frame, strata


def _with_stratum(table: pl.DataFrame, strata: list[str]) -> tuple[pl.DataFrame, list[str]]:
    """Add one String ``stratum`` label (values joined with " · "), and its ordered values."""
    if not strata:
        return table, []
    ordered = table.sort(strata, nulls_last=True, maintain_order=True)
    label = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null("(none)") for c in strata], separator=" · "
    )
    ordered = ordered.with_columns(label.alias(STRATUM))
    values = ordered.get_column(STRATUM).unique(maintain_order=True).to_list()
    return ordered, values


def _metric_order(table: pl.DataFrame) -> list[str]:
    present = table.get_column("metric").unique().to_list()
    return [m for m in METRICS if m in present] + sorted(m for m in present if m not in METRICS)


def _records(table: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts: NaN and infinities become null, categories become strings."""
    exprs = []
    for name, dtype in table.schema.items():
        if dtype.is_float():
            exprs.append(
                pl.when(pl.col(name).is_finite()).then(pl.col(name)).otherwise(None).alias(name)
            )
        elif isinstance(dtype, (pl.Enum, pl.Categorical)):
            exprs.append(pl.col(name).cast(pl.String))
        elif not (dtype.is_numeric() or dtype in (pl.String, pl.Null, pl.Boolean)):
            exprs.append(pl.col(name).cast(pl.String))
    return table.with_columns(exprs).to_dicts() if exprs else table.to_dicts()


def _with_definitions(table: pl.DataFrame) -> pl.DataFrame:
    return table.with_columns(
        pl.col("metric")
        .replace_strict(dict(METRIC_DEFINITIONS), default="", return_dtype=pl.String)
        .alias("definition"),
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("label"),
    )


def _systems(table: pl.DataFrame) -> list[str]:
    return [str(s) for s in table.get_column("system").unique(maintain_order=True).to_list()]


def _color(alt: Any, systems: list[str], legend: bool = True) -> Any:
    return alt.Color(
        "system:N",
        title="system",
        sort=systems,
        scale=alt.Scale(domain=systems, range=list(PALETTE)),
        legend=alt.Legend() if legend else None,
    )


def _finish(chart: Any, title: str, subtitle: str | None) -> Any:
    alt = _altair()
    heading = alt.Title(title, subtitle=subtitle) if subtitle else alt.Title(title)
    return chart.properties(title=heading).configure(**theme())


def _header(alt: Any) -> Any:
    return alt.Header(title=None, labelAnchor="start", labelPadding=4)


# --- charts ------------------------------------------------------------------------------


def plot_k_curve(
    curve: pl.DataFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    systems: Iterable[str] | None = None,
    log_k: bool = False,
    ui_k: int | None = None,
    ci: bool = True,
    columns: int = 3,
    width: int = 220,
    height: int = 160,
    title: str = "Metrics across the cut-off K",
) -> alt.FacetChart:
    """Each metric against K, one line per system, with its confidence band.

    Parameters
    ----------
    curve
        The output of `polars_rankk.curves.k_curve` (``system, <strata…>, metric, k, value,
        ci_low, ci_high, n_groups``). With stratum columns the panels form a grid: one row per
        stratum, one column per metric.
    metrics, systems
        Draw only these.
    log_k
        A logarithmic K axis (useful when K spans 1…1000).
    ui_k
        The K the product shows: marked with a dashed rule on every panel.
    ci
        Draw the bootstrap band (when the table has intervals).
    columns
        Panels per row (without strata).
    width, height
        Size of one panel in pixels.
    title
        Chart title.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import plot_k_curve
    >>> curve = pl.DataFrame({"system": "A", "metric": "recall", "k": [1, 2, 3],
    ...                       "value": [0.1, 0.2, 0.25], "ci_low": [0.05, 0.15, 0.2],
    ...                       "ci_high": [0.15, 0.25, 0.3], "n_groups": 100})
    >>> chart = plot_k_curve(curve, ui_k=2)
    >>> len(chart.to_dict()["datasets"])
    1
    """
    alt = _altair()
    hint = "rk.k_curve(...) output"
    table, strata = _prepare(
        curve, "plot_k_curve", ["metric", "k", "value"], hint, _CURVE_KNOWN,
        metrics=metrics, systems=systems,
    )  # fmt: skip
    table = table.filter(pl.col("k").is_not_null())
    has_ci = ci and "ci_low" in table.columns and table.get_column("ci_low").is_not_null().any()
    table, stratum_values = _with_stratum(table, strata)
    table = _with_definitions(table)
    names = _systems(table)
    metric_order = _metric_order(table)
    n_k = table.get_column("k").n_unique()
    x = alt.X(
        "k:Q",
        title="K (cut-off)",
        scale=alt.Scale(type="log") if log_k else alt.Scale(zero=False, nice=False),
        axis=alt.Axis(values=_log_ticks(table)) if log_k else alt.Axis(tickMinStep=1),
    )
    tooltip = _tooltip(alt, strata, table)
    base = alt.Chart(alt.Data(values=_records(table)))
    layers = []
    if has_ci:
        layers.append(
            base.mark_area(opacity=0.18).encode(
                x=x, y="ci_low:Q", y2="ci_high:Q", color=_color(alt, names, legend=False)
            )
        )
    layers.append(
        base.mark_line().encode(
            x=x, y=alt.Y("value:Q", title="mean over groups"), color=_color(alt, names)
        )
    )
    layers.append(
        base.mark_circle(size=28, opacity=0.9 if n_k <= 25 else 0.0).encode(
            x=x, y="value:Q", color=_color(alt, names, legend=False), tooltip=tooltip
        )
    )
    if ui_k is not None:
        if isinstance(ui_k, bool) or not isinstance(ui_k, int) or ui_k < 1:
            raise ValueError(f"ui_k must be a positive integer; got {ui_k!r}")
        facet_fields = ["metric", *([STRATUM] if strata else [])]
        marker = base.transform_filter(alt.datum.k == ui_k).transform_aggregate(
            groupby=["k", *facet_fields]
        )
        layers.append(
            marker.mark_rule(strokeDash=[4, 3], color="#555555").encode(x=x)
        )
        layers.append(
            marker.mark_text(align="left", dx=3, dy=-2, baseline="top", color="#555555",
                             fontSize=10)
            .encode(x=x, y=alt.value(2), text=alt.value(f"K={ui_k} (UI)"))
        )  # fmt: skip
    layered = alt.layer(*layers).properties(width=width, height=height)
    if strata:
        chart = layered.facet(
            row=alt.Row(f"{STRATUM}:N", sort=stratum_values, header=_header(alt),
                        title=" · ".join(strata)),
            column=alt.Column("metric:N", sort=metric_order, header=_header(alt)),
        )  # fmt: skip
    else:
        chart = layered.facet(
            facet=alt.Facet("metric:N", sort=metric_order, header=_header(alt)),
            columns=max(1, min(columns, len(metric_order))),
        )
    chart = chart.resolve_scale(y="independent")
    subtitle = "Mean over groups" + ("; band: bootstrap confidence interval" if has_ci else "")
    return _finish(chart, title, subtitle)


def _log_ticks(table: pl.DataFrame) -> list[int]:
    top = int(table.get_column("k").max() or 1)
    return [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if t <= top]


def _tooltip(alt: Any, strata: list[str], table: pl.DataFrame) -> list[Any]:
    tips = [alt.Tooltip("system:N", title="system")]
    if strata:
        tips.append(alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata)))
    tips += [
        alt.Tooltip("label:N", title="metric"),
        alt.Tooltip("value:Q", title="mean", format=".4f"),
    ]
    if "ci_low" in table.columns:
        tips += [
            alt.Tooltip("ci_low:Q", title="CI low", format=".4f"),
            alt.Tooltip("ci_high:Q", title="CI high", format=".4f"),
        ]
    if "n_groups" in table.columns:
        tips.append(alt.Tooltip("n_groups:Q", title="groups", format=","))
    tips.append(alt.Tooltip("definition:N", title="definition"))
    return tips


def plot_precision_recall(
    curve: pl.DataFrame,
    *,
    systems: Iterable[str] | None = None,
    label_k: Sequence[int] = (1, 5, 10, 20, 50, 100),
    width: int = 360,
    height: int = 280,
    title: str = "Precision–recall trade-off across K",
) -> alt.Chart | alt.LayerChart | alt.FacetChart:
    """Precision against recall as K grows, one path per system (one panel per stratum).

    Parameters
    ----------
    curve
        `polars_rankk.curves.k_curve` output holding both ``precision`` and ``recall``.
    systems
        Draw only these.
    label_k
        The K values written next to their point.
    width, height
        Size of one panel in pixels.
    title
        Chart title.

    Returns
    -------
    altair.LayerChart or altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import plot_precision_recall
    >>> curve = pl.DataFrame({"system": "A", "metric": ["precision"] * 2 + ["recall"] * 2,
    ...                       "k": [1, 2, 1, 2], "value": [0.5, 0.4, 0.2, 0.3],
    ...                       "n_groups": 10})
    >>> chart = plot_precision_recall(curve)
    >>> chart.to_dict()["layer"][0]["mark"]["type"]
    'line'
    """
    alt = _altair()
    hint = "rk.k_curve(..., metrics=['precision', 'recall']) output"
    table, strata = _prepare(
        curve, "plot_precision_recall", ["metric", "k", "value"], hint, _CURVE_KNOWN,
        metrics=["precision", "recall"], systems=systems,
    )  # fmt: skip
    ids = ["system", *strata, "k"]
    wide = (
        table.select(*ids, "metric", "value")
        .pivot(on="metric", index=ids, values="value")
        .drop_nulls(["precision", "recall"])
        .sort(ids)
    )
    wide, stratum_values = _with_stratum(wide, strata)
    names = _systems(table)
    base = alt.Chart(alt.Data(values=_records(wide)))
    x = alt.X("recall:Q", title="recall@K (share of relevant items found)")
    y = alt.Y("precision:Q", title="precision@K (share of the top K that is relevant)")
    tips = [alt.Tooltip("system:N"), alt.Tooltip("k:Q", title="K")]
    if strata:
        tips.append(alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata)))
    tips += [alt.Tooltip("precision:Q", format=".4f"), alt.Tooltip("recall:Q", format=".4f")]
    line = base.mark_line().encode(x=x, y=y, color=_color(alt, names), order="k:Q")
    points = base.mark_circle(size=26).encode(
        x=x, y=y, color=_color(alt, names, legend=False), tooltip=tips
    )
    labels = (
        base.transform_filter(alt.FieldOneOfPredicate(field="k", oneOf=list(label_k)))
        .mark_text(align="left", dx=5, dy=-5, fontSize=10, color="#444444")
        .encode(x=x, y=y, text=alt.Text("k:Q", format="d"))
    )
    layered = alt.layer(line, points, labels).properties(width=width, height=height)
    chart: Any = layered
    if strata:
        chart = layered.facet(
            facet=alt.Facet(f"{STRATUM}:N", sort=stratum_values, header=_header(alt),
                            title=" · ".join(strata)),
            columns=3,
        )  # fmt: skip
    return _finish(chart, title, "Each point is one K (labelled: " + ", ".join(
        str(k) for k in label_k) + ")")  # fmt: skip


def plot_distribution(
    distribution: pl.DataFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Iterable[str] | None = None,
    columns: int = 3,
    width: int = 200,
    height: int = 180,
    title: str = "Distribution of per-group values",
) -> alt.FacetChart:
    """Box plots from quantiles: how the per-group values spread, per metric × K and system.

    The box spans the quartiles, the line inside is the median, the whiskers reach the
    outermost quantiles of the table (10th and 90th percentiles by default, min and max
    when no other quantile is there) and the diamond is the mean.

    Parameters
    ----------
    distribution
        The output of `polars_rankk.distribution.distribution` (``metric, k, n_groups, mean,
        median, quantile_<p>…``); add a ``system`` column to compare systems (see
        `polars_rankk.curves.for_systems`). Stratum columns give one row of panels each.
    metrics, k, systems
        Draw only these.
    columns
        Panels per row (without strata).
    width, height
        Size of one panel in pixels.
    title
        Chart title.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import plot_distribution
    >>> dist = pl.DataFrame({"metric": "ndcg", "k": 10, "n_groups": 50, "mean": 0.3,
    ...                      "median": 0.25, "min": 0.0, "max": 1.0, "quantile_0.1": 0.0,
    ...                      "quantile_0.25": 0.1, "quantile_0.75": 0.5, "quantile_0.9": 0.8})
    >>> plot_distribution(dist).to_dict()["spec"]["layer"][0]["mark"]["type"]
    'rule'
    """
    alt = _altair()
    hint = "rk.distribution(...) output"
    table, strata = _prepare(
        distribution, "plot_distribution", ["metric", "k", "median", "mean"], hint,
        _DISTRIBUTION_KNOWN, metrics=metrics, k=k, systems=systems,
    )  # fmt: skip
    quantiles = sorted(
        (float(c.removeprefix("quantile_")), c) for c in table.columns if c.startswith("quantile_")
    )
    low_q = [c for p, c in quantiles if p == 0.25]
    high_q = [c for p, c in quantiles if p == 0.75]
    if not low_q or not high_q:
        raise ValueError(
            "plot_distribution draws boxes from the quartiles: compute the distribution with "
            "quantiles including 0.25 and 0.75"
        )
    outer_low = quantiles[0][1] if quantiles[0][0] < 0.25 else ("min" if "min" in table.columns
                                                                else low_q[0])
    outer_high = quantiles[-1][1] if quantiles[-1][0] > 0.75 else ("max" if "max" in table.columns
                                                                   else high_q[0])  # fmt: skip
    whisker = _quantile_title(outer_low) + " to " + _quantile_title(outer_high)
    table = table.with_columns(
        pl.col(low_q[0]).alias("q_low"),
        pl.col(high_q[0]).alias("q_high"),
        pl.col(outer_low).alias("w_low"),
        pl.col(outer_high).alias("w_high"),
    )
    table, stratum_values = _with_stratum(table, strata)
    table = _with_definitions(table)
    names = _systems(table)
    metric_order = _metric_order(table)
    several_k = table.get_column("k").n_unique() > 1
    x = (
        alt.X("k:O", title="K (cut-off)")
        if several_k
        else alt.X("system:N", title=None, sort=names, axis=alt.Axis(labelAngle=0))
    )
    offset = {"xOffset": alt.XOffset("system:N", sort=names)} if several_k else {}
    tips = [
        alt.Tooltip("system:N"),
        alt.Tooltip("label:N", title="metric"),
        *([alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata))] if strata else []),
        alt.Tooltip("n_groups:Q", title="groups", format=","),
        alt.Tooltip("mean:Q", format=".4f"),
        alt.Tooltip("median:Q", format=".4f"),
        alt.Tooltip("q_low:Q", title="25th percentile", format=".4f"),
        alt.Tooltip("q_high:Q", title="75th percentile", format=".4f"),
        alt.Tooltip("w_low:Q", title=_quantile_title(outer_low), format=".4f"),
        alt.Tooltip("w_high:Q", title=_quantile_title(outer_high), format=".4f"),
        alt.Tooltip("definition:N", title="definition"),
    ]
    base = alt.Chart(alt.Data(values=_records(table))).encode(x=x, **offset)
    color = _color(alt, names)
    y_title = f"per-group value (whiskers: {whisker})"
    layers = [
        base.mark_rule().encode(
            y=alt.Y("w_low:Q", title=y_title), y2="w_high:Q", color=color, tooltip=tips
        ),
        base.mark_bar(size=14 if several_k else 28, opacity=0.35).encode(
            y="q_low:Q", y2="q_high:Q", color=color, tooltip=tips
        ),
        base.mark_tick(size=14 if several_k else 28, thickness=2).encode(
            y="median:Q", color=color, tooltip=tips
        ),
        base.mark_point(shape="diamond", filled=True, size=40, color="#222222").encode(
            y="mean:Q", tooltip=tips
        ),
    ]
    layered = alt.layer(*layers).properties(width=width, height=height)
    if strata:
        chart = layered.facet(
            row=alt.Row(f"{STRATUM}:N", sort=stratum_values, header=_header(alt),
                        title=" · ".join(strata)),
            column=alt.Column("metric:N", sort=metric_order, header=_header(alt)),
        )  # fmt: skip
    else:
        chart = layered.facet(
            facet=alt.Facet("metric:N", sort=metric_order, header=_header(alt)),
            columns=max(1, min(columns, len(metric_order))),
        )
    chart = chart.resolve_scale(y="independent")
    subtitle = f"Box: 25th–75th percentile; line: median; whiskers: {whisker}; diamond: mean"
    return _finish(chart, title, subtitle)


def _quantile_title(column: str) -> str:
    if column in ("min", "max"):
        return column
    share = float(column.removeprefix("quantile_")) * 100
    return f"{share:g}th percentile"


def plot_histogram(
    histogram: pl.DataFrame,
    *,
    kind: Literal["histogram", "ecdf", "violin"] = "histogram",
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Iterable[str] | None = None,
    width: int = 200,
    height: int = 150,
    title: str | None = None,
) -> alt.FacetChart:
    """Binned per-group values: overlaid histograms, empirical CDFs or violins.

    Parameters
    ----------
    histogram
        The output of `polars_rankk.distribution.histogram` (``metric, k, bin, bin_start,
        bin_end, count, share``); add a ``system`` column to compare systems.
    kind
        ``"histogram"`` (share of groups per bin, systems overlaid), ``"ecdf"`` (share of
        groups at or below each bin's upper edge) or ``"violin"`` (mirrored density, one
        violin per system).
    metrics, k, systems
        Draw only these.
    width, height
        Size of one panel in pixels.
    title
        Chart title (a default per kind).

    Returns
    -------
    altair.FacetChart
        One panel per metric@K (rows: metric × K; columns: strata, if any).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import plot_histogram
    >>> hist = pl.DataFrame({"metric": "ndcg", "k": 5, "bin": [0, 1], "bin_start": [0.0, 0.5],
    ...                      "bin_end": [0.5, 1.0], "count": [3, 1], "share": [0.75, 0.25]})
    >>> plot_histogram(hist, kind="ecdf").to_dict()["spec"]["mark"]["type"]
    'line'
    """
    alt = _altair()
    if kind not in ("histogram", "ecdf", "violin"):
        raise ValueError(f"kind must be 'histogram', 'ecdf' or 'violin'; got {kind!r}")
    hint = "rk.histogram(...) output"
    required = ["metric", "k", "bin_start", "bin_end", "share"]
    table, strata = _prepare(
        histogram, "plot_histogram", required, hint, _HISTOGRAM_KNOWN,
        metrics=metrics, k=k, systems=systems, extra_ids=["bin_start"],
    )  # fmt: skip
    ids = ["system", *strata, "metric", "k", "bin_start"]
    table = table.sort(ids, nulls_last=True).with_columns(
        pl.col("share").fill_null(0.0),
        pl.col("share").fill_null(0.0).cum_sum().over(ids[:-1]).alias("cumulative"),
        ((pl.col("bin_start") + pl.col("bin_end")) / 2).alias("bin_mid"),
    )
    table, stratum_values = _with_stratum(table, strata)
    table = _with_definitions(table)
    names = _systems(table)
    labels = table.sort(
        [pl.col("metric").replace_strict({m: i for i, m in enumerate(METRICS)}, default=99), "k"]
    ).get_column("label").unique(maintain_order=True).to_list()
    tips = [
        alt.Tooltip("system:N"),
        alt.Tooltip("label:N", title="metric"),
        *([alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata))] if strata else []),
        alt.Tooltip("bin_start:Q", title="from", format=".3f"),
        alt.Tooltip("bin_end:Q", title="to", format=".3f"),
        alt.Tooltip("share:Q", title="share of groups", format=".1%"),
        alt.Tooltip("cumulative:Q", title="share up to here", format=".1%"),
        alt.Tooltip("definition:N", title="definition"),
    ]
    base = alt.Chart(alt.Data(values=_records(table)))
    value_title = "per-group value"
    if kind == "histogram":
        chart = base.mark_bar(opacity=0.55, binSpacing=0).encode(
            x=alt.X("bin_start:Q", title=value_title, bin="binned"),
            x2="bin_end:Q",
            y=alt.Y("share:Q", title="share of groups", stack=None, axis=alt.Axis(format="%")),
            color=_color(alt, names),
            tooltip=tips,
        )
    elif kind == "ecdf":
        chart = base.mark_line(interpolate="step-before").encode(
            x=alt.X("bin_end:Q", title=f"{value_title} (upper bin edge)"),
            y=alt.Y("cumulative:Q", title="share of groups ≤ value", axis=alt.Axis(format="%")),
            color=_color(alt, names),
            tooltip=tips,
        )
    else:
        chart = base.mark_area(orient="horizontal", opacity=0.7, interpolate="monotone").encode(
            y=alt.Y("bin_mid:Q", title=value_title),
            x=alt.X("share:Q", stack="center", axis=None, title=None),
            color=_color(alt, names),
            tooltip=tips,
        )
    chart = chart.properties(width=width, height=height)
    if kind == "violin":
        row_field = alt.Row("label:N", sort=labels, header=_header(alt), title=None)
        column_field = alt.Column("system:N", sort=names, header=_header(alt), title=None)
        if strata:
            chart = chart.facet(row=row_field, column=alt.Column(
                f"{STRATUM}:N", sort=stratum_values, header=_header(alt),
                title=" · ".join(strata)))  # fmt: skip
        else:
            chart = chart.properties(width=max(60, width // max(1, len(names)))).facet(
                row=row_field, column=column_field
            )
    elif strata:
        chart = chart.facet(
            row=alt.Row("label:N", sort=labels, header=_header(alt), title=None),
            column=alt.Column(f"{STRATUM}:N", sort=stratum_values, header=_header(alt),
                              title=" · ".join(strata)),
        )  # fmt: skip
    else:
        chart = chart.facet(
            facet=alt.Facet("label:N", sort=labels, header=_header(alt), title=None), columns=3
        )
    chart = chart.resolve_scale(y="independent")
    default = {
        "histogram": "Histogram of per-group values",
        "ecdf": "Cumulative distribution of per-group values",
        "violin": "Shape of the per-group distribution",
    }[kind]
    return _finish(chart, title or default, "Share of groups (binned)")


def plot_strata(
    table: pl.DataFrame,
    *,
    k: int | None = None,
    metrics: str | Iterable[str] | None = None,
    systems: Iterable[str] | None = None,
    columns: int = 3,
    width: int = 220,
    height: int = 170,
    title: str = "By stratum",
) -> alt.FacetChart:
    """Stratified small multiples: the mean and its interval per stratum, for each metric.

    Parameters
    ----------
    table
        A stratified `polars_rankk.curves.k_curve` (``k_curve(..., by=...)``) or
        `polars_rankk.bootstrap.bootstrap` table (``by=...``), optionally with a ``system``
        column.
    k
        The K to show. None: every K in the table, as K-curves (one row of panels per stratum).
    metrics, systems
        Draw only these.
    columns
        Panels per row.
    width, height
        Size of one panel in pixels.
    title
        Chart title.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import plot_strata
    >>> table = pl.DataFrame({"activity": ["light", "heavy"], "metric": "ndcg", "k": 10,
    ...                       "value": [0.1, 0.3], "ci_low": [0.05, 0.2], "ci_high": [0.15, 0.4],
    ...                       "n_groups": [80, 20]})
    >>> plot_strata(table, k=10).to_dict()["spec"]["layer"][1]["mark"]["type"]
    'point'
    """
    alt = _altair()
    hint = "rk.k_curve(..., by=[...]) or rk.bootstrap(..., by=[...]) output"
    source, strata = _prepare(
        table, "plot_strata", ["metric", "k", "value"], hint, _CURVE_KNOWN,
        metrics=metrics, k=k, systems=systems,
    )  # fmt: skip
    if not strata:
        raise ValueError(f"plot_strata needs stratum columns; pass {hint}")
    if k is None:
        return plot_k_curve(source, width=width, height=height, title=title)
    source, stratum_values = _with_stratum(source, strata)
    source = _with_definitions(source)
    names = _systems(source)
    metric_order = _metric_order(source)
    x = alt.X(f"{STRATUM}:N", sort=stratum_values, title=" · ".join(strata),
              axis=alt.Axis(labelAngle=0, labelLimit=120))  # fmt: skip
    base = alt.Chart(alt.Data(values=_records(source))).encode(
        x=x, xOffset=alt.XOffset("system:N", sort=names)
    )
    tips = _tooltip(alt, strata, source)
    layers = []
    if "ci_low" in source.columns:
        layers.append(
            base.mark_rule(strokeWidth=2).encode(
                y="ci_low:Q", y2="ci_high:Q", color=_color(alt, names, legend=False)
            )
        )
    layers.append(
        base.mark_point(filled=True, size=55).encode(
            y=alt.Y("value:Q", title=f"mean at K={k}"), color=_color(alt, names), tooltip=tips
        )
    )
    chart = (
        alt.layer(*layers)
        .properties(width=width, height=height)
        .facet(
            facet=alt.Facet("metric:N", sort=metric_order, header=_header(alt)),
            columns=max(1, min(columns, len(metric_order))),
        )
        .resolve_scale(y="independent")
    )
    return _finish(chart, title, f"Mean at K={k} per stratum, with its confidence interval")


def plot_comparison(
    comparison: pl.DataFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Iterable[str] | None = None,
    alpha: float = 0.05,
    p_value: str = "p_adjusted",
    width: int = 420,
    title: str = "Paired differences against the baseline",
) -> alt.LayerChart | alt.FacetChart:
    """A forest plot: each system's mean paired difference to the baseline, with its CI.

    Parameters
    ----------
    comparison
        The output of `polars_rankk.compare` (``metric, k, system, diff, ci_low, ci_high``
        and p-values), one row per (system, metric, k); the baseline's own rows (no
        difference) are left out.
    metrics, k, systems
        Draw only these.
    alpha
        Significance level: points whose `p_value` is below it are filled.
    p_value
        The p-value column that decides significance (the multiple-comparison adjusted one
        by default).
    width
        Chart width in pixels.
    title
        Chart title.

    Returns
    -------
    altair.LayerChart
        (an altair.FacetChart when the table has stratum columns)

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts import plot_comparison
    >>> cmp = pl.DataFrame({"metric": "ndcg", "k": [5, 10], "system": "B", "baseline": "A",
    ...                     "diff": [0.02, 0.03], "ci_low": [-0.01, 0.01],
    ...                     "ci_high": [0.05, 0.05], "p_adjusted": [0.2, 0.01]})
    >>> [layer["mark"]["type"] for layer in plot_comparison(cmp).to_dict()["layer"]]
    ['rule', 'rule', 'point']
    """
    alt = _altair()
    hint = "rk.compare(...) output"
    table, strata = _prepare(
        comparison, "plot_comparison", ["metric", "k", "diff"], hint, _COMPARE_KNOWN,
        metrics=metrics, k=k, systems=systems,
    )  # fmt: skip
    if "baseline" in table.columns:
        table = table.filter(pl.col("system") != pl.col("baseline").cast(pl.String))
    table = table.filter(pl.col("diff").is_not_null())
    if table.height == 0:
        raise ValueError("plot_comparison: no difference to draw (only the baseline's rows?)")
    has_p = p_value in table.columns
    significant = (pl.col(p_value) < alpha).fill_null(False) if has_p else pl.lit(False)
    table = table.with_columns(significant.alias("significant"))
    table, stratum_values = _with_stratum(table, strata)
    table = _with_definitions(table)
    names = _systems(table)
    order = (
        table.with_columns(
            pl.col("metric").replace_strict({m: i for i, m in enumerate(METRICS)}, default=99)
            .alias("_o")
        )
        .sort(["_o", "k"], nulls_last=True)
        .get_column("label").unique(maintain_order=True).to_list()
    )  # fmt: skip
    baseline = (
        ", ".join(str(b) for b in table.get_column("baseline").unique(maintain_order=True))
        if "baseline" in table.columns
        else "the baseline"
    )
    y = alt.Y("label:N", sort=order, title=None)
    tips = [
        alt.Tooltip("system:N"),
        alt.Tooltip("label:N", title="metric"),
        *([alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata))] if strata else []),
        alt.Tooltip("diff:Q", title="mean difference", format="+.4f"),
    ]
    if "ci_low" in table.columns:
        tips += [alt.Tooltip("ci_low:Q", title="CI low", format="+.4f"),
                 alt.Tooltip("ci_high:Q", title="CI high", format="+.4f")]  # fmt: skip
    tips += [
        alt.Tooltip(f"{c}:Q", title=c, format=".4g")
        for c in table.columns
        if c.startswith(("p_value", "p_adjusted"))
    ]
    tips.append(alt.Tooltip("definition:N", title="definition"))
    base = alt.Chart(alt.Data(values=_records(table))).encode(
        y=y, yOffset=alt.YOffset("system:N", sort=names)
    )
    zero = alt.Chart(alt.Data(values=[{"zero": 0}])).mark_rule(color="#888888").encode(
        x="zero:Q"
    )
    layers = [zero]
    if "ci_low" in table.columns:
        layers.append(
            base.mark_rule(strokeWidth=2).encode(
                x=alt.X("ci_low:Q", title=f"mean paired difference vs {baseline}"),
                x2="ci_high:Q",
                color=_color(alt, names, legend=False),
            )
        )
    layers.append(
        base.mark_point(size=60, strokeWidth=2).encode(
            x=alt.X("diff:Q", title=f"mean paired difference vs {baseline}"),
            color=_color(alt, names),
            fill=alt.condition(
                alt.datum.significant,
                alt.Fill("system:N", sort=names, legend=None,
                         scale=alt.Scale(domain=names, range=list(PALETTE))),
                alt.value("white"),
            ),  # fmt: skip
            tooltip=tips,
        )
    )
    n_rows = len(order) * max(1, len(names))
    chart: Any = alt.layer(*layers).properties(width=width, height=max(120, 16 * n_rows))
    if strata:
        chart = chart.facet(
            column=alt.Column(f"{STRATUM}:N", sort=stratum_values, header=_header(alt),
                              title=" · ".join(strata))
        )  # fmt: skip
    subtitle = (
        "Point: mean of per-group differences; bar: bootstrap CI; filled: "
        f"{p_value} < {alpha:g}" if has_p else "Point: mean of per-group differences; bar: CI"
    )
    return _finish(chart, title, subtitle)


# --- export ------------------------------------------------------------------------------


def _vl_version(alt: Any) -> str | None:
    import vl_convert

    wanted = ".".join(str(alt.SCHEMA_VERSION).lstrip("v").split(".")[:2])
    available = vl_convert.get_vegalite_versions()
    return wanted if wanted in available else None


def chart_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The Vega-Lite JSON of a chart, as a dict (no data transformer, no size limit)."""
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

    alt = _altair()
    target = Path(path)
    spec = chart_spec(chart)
    version = _vl_version(alt)
    suffix = target.suffix.lower()
    if suffix == ".png":
        target.write_bytes(
            vl_convert.vegalite_to_png(spec, vl_version=version, scale=scale,
                                       allowed_base_urls=[])
        )  # fmt: skip
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
