"""Charts of K-curves: metrics against K, the precision–recall trade-off, strata.

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rankk.charts.base import (
    CURVE_COLUMNS_KNOWN,
    STRATUM,
    altair_module,
    asked_metrics,
    colour,
    finish,
    interval_name,
    log_ticks,
    metric_panels,
    metrics_in_order,
    prepare,
    records,
    system_order,
    tooltips,
    with_definitions,
    with_k_in_title,
    wrapped,
)

if TYPE_CHECKING:
    import altair
    import altair as alt


def plot_k_curve(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    systems: Sequence[str] | None = None,
    log_k: bool = False,
    ui_k: int | None = None,
    ci: bool = True,
    confidence: float = 0.95,
    columns: int = 3,
    width: int = 220,
    height: int = 160,
    title: str = "Metrics across the cut-off K",
) -> alt.FacetChart:
    """Each metric against K, one line per system, with its confidence band.

    Interactive where Vega runs (a notebook, the report, an HTML export): hovering a point
    shows its value and interval, clicking a system in the legend shows it alone
    (shift-click adds systems), and the K selector under the chart marks one K on every
    panel, with each system's value there.

    Parameters
    ----------
    curve
        The output of `polars_rankk.k_curve` (``system, <strata…>, metric, k, value,
        ci_low, ci_high, n_groups``). With stratum columns the panels form a grid: one row per
        stratum, one column per metric.
    metrics, systems
        Draw only these: the panels follow the order of `metrics` (without it, the
        library's order); `systems` also fixes the colour order (to match other charts).
    log_k
        A logarithmic K axis (useful when K spans 1…1000).
    ui_k
        The K the product shows: marked with a dashed rule on every panel, and where the K
        selector starts (without it the selector starts unset and nothing is marked).
    ci
        Draw the bootstrap band (when the table has intervals).
    confidence
        The level the intervals were computed with, for the subtitle and tooltips (a
        ``confidence`` column in the table takes precedence).
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
    >>> len(chart.to_dict()["data"]["values"])  # three aggregated rows, nothing more
    3
    """
    alt = altair_module()
    hint = "rk.k_curve(...) output"
    asked = asked_metrics(metrics)
    table, strata, stratum_values = prepare(
        curve,
        "plot_k_curve",
        ["metric", "k", "value"],
        hint,
        CURVE_COLUMNS_KNOWN,
        metrics=asked,
        systems=systems,
    )
    table = table.filter(pl.col("k").is_not_null())
    has_ci = ci and "ci_low" in table.columns and table.get_column("ci_low").is_not_null().any()
    table = with_definitions(table)
    names = system_order(table, systems)
    metric_order = metrics_in_order(table, asked)
    n_k = table.get_column("k").n_unique()
    x = alt.X(
        "k:Q",
        title="K (cut-off)",
        scale=alt.Scale(type="log") if log_k else alt.Scale(zero=False, nice=False),
        axis=alt.Axis(values=log_ticks(table)) if log_k else alt.Axis(tickMinStep=1),
    )
    tips = tooltips(alt, strata, table, confidence)
    base = alt.Chart(alt.Data(values=records(table)))
    if ui_k is not None and (isinstance(ui_k, bool) or not isinstance(ui_k, int) or ui_k < 1):
        raise ValueError(f"ui_k must be a positive integer; got {ui_k!r}")
    shown = alt.selection_point(fields=["system"], bind="legend", name="shown_systems")
    chosen_k = k_selector(alt, table, ui_k)
    faded = alt.condition(shown, alt.value(1.0), alt.value(0.12))
    layers = []
    if has_ci:
        layers.append(
            base.mark_area().encode(
                x=x,
                y="ci_low:Q",
                y2="ci_high:Q",
                color=colour(alt, names),
                opacity=alt.condition(shown, alt.value(0.18), alt.value(0.03)),
            )
        )
    layers.append(
        base.mark_line()
        .encode(
            x=x,
            y=alt.Y("value:Q", title="mean over groups"),
            color=colour(alt, names),
            opacity=faded,
        )
        .add_params(shown)
    )
    layers.append(
        base.mark_circle(size=28, opacity=0.9 if n_k <= 25 else 0.0).encode(
            x=x, y="value:Q", color=colour(alt, names), tooltip=tips
        )
    )
    facet_fields = ["metric", *([STRATUM] if strata else [])]
    layers.extend(k_marker(alt, base, x, chosen_k, facet_fields, colour(alt, names), tips))
    layered = alt.layer(*layers).properties(width=width, height=height)
    chart = metric_panels(layered, alt, strata, stratum_values, metric_order, columns)
    chart = chart.resolve_scale(y="independent").add_params(chosen_k)
    subtitle = "Mean over groups" + (
        f"; band: {interval_name(table, confidence)}" if has_ci else ""
    )
    subtitle += f"; dashed: K={ui_k}" if ui_k is not None else ""
    return cast("altair.FacetChart", finish(chart, title, subtitle))


def k_marker(
    alt: Any, base: Any, x: Any, chosen_k: Any, facet_fields: list[str], color: Any, tips: Any
) -> list[Any]:
    """The layers marking the chosen K in every panel: a dashed rule, its label, the points."""
    at_k = base.transform_filter(alt.datum.k == chosen_k)
    marker = at_k.transform_aggregate(groupby=["k", *facet_fields])
    return [
        marker.mark_rule(strokeDash=[4, 3], color="#555555").encode(x=x),
        marker.transform_calculate(text="'K=' + datum.k")
        .mark_text(align="left", dx=3, dy=-2, baseline="top", color="#555555", fontSize=10)
        .encode(x=x, y=alt.value(2), text="text:N"),
        at_k.mark_point(size=70, filled=True, opacity=1).encode(
            x=x, y="value:Q", color=color, tooltip=tips
        ),
    ]


def k_selector(alt: Any, table: pl.DataFrame, start: int | None) -> Any:
    """The K selector under a chart: a slider over the table's K, starting at `start`."""
    ks = sorted(int(v) for v in table.get_column("k").drop_nulls().unique().to_list())
    if len(ks) <= 12:
        binding = alt.binding_select(options=[None, *ks], labels=["—", *map(str, ks)], name="K ")
    else:
        binding = alt.binding_range(min=ks[0], max=ks[-1], step=1, name="K ")
    return alt.param(name="selected_k", value=start, bind=binding)


def plot_precision_recall(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    systems: Sequence[str] | None = None,
    label_k: Sequence[int] = (1, 5, 10, 20, 50, 100),
    width: int = 360,
    height: int = 280,
    title: str = "Precision–recall trade-off across K",
) -> alt.Chart | alt.LayerChart | alt.FacetChart:
    """Precision against recall as K grows, one path per system (one panel per stratum).

    Parameters
    ----------
    curve
        `polars_rankk.k_curve` output holding both ``precision`` and ``recall``.
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
    alt = altair_module()
    hint = "rk.k_curve(..., metrics=['precision', 'recall']) output"
    table, strata, stratum_values = prepare(
        curve,
        "plot_precision_recall",
        ["metric", "k", "value"],
        hint,
        CURVE_COLUMNS_KNOWN,
        metrics=["precision", "recall"],
        systems=systems,
    )
    ids = ["system", *([STRATUM] if strata else []), "k"]
    wide = (
        table.select(*ids, "metric", "value")
        .pivot(on="metric", index=ids, values="value")
        .drop_nulls(["precision", "recall"])
        .sort(ids)
    )
    names = system_order(table, systems)
    wide = with_labels(wide, list(label_k), [STRATUM] if strata else [], width, height)
    base = alt.Chart(alt.Data(values=records(wide)))
    x = alt.X("recall:Q", title="recall@K (share of relevant items found)")
    y = alt.Y("precision:Q", title="precision@K (share of the top K that is relevant)")
    tips = [alt.Tooltip("system:N"), alt.Tooltip("k:Q", title="K")]
    if strata:
        tips.append(alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata)))
    tips += [alt.Tooltip("precision:Q", format=".4f"), alt.Tooltip("recall:Q", format=".4f")]
    line = base.mark_line().encode(x=x, y=y, color=colour(alt, names), order="k:Q")
    points = base.mark_circle(size=26).encode(x=x, y=y, color=colour(alt, names), tooltip=tips)
    labels = (
        base.transform_filter("isValid(datum.text)")
        .mark_text(align="left", dx=5, dy=-6, fontSize=10, fontWeight="bold")
        # The same colour channel as the line and points: a layer that hides the shared
        # legend conflicts with them (Vega warns "Conflicting legend property disable").
        .encode(x=x, y=y, text="text:N", color=colour(alt, names))
    )
    layered = alt.layer(line, points, labels).properties(width=width, height=height)
    chart: Any = layered
    if strata:
        chart = wrapped(layered, alt, f"{STRATUM}:N", stratum_values, 3, " · ".join(strata))
    return cast(
        "altair.Chart | altair.LayerChart | altair.FacetChart",
        finish(
            chart,
            title,
            "Each point is one K; labels: K="
            + ", ".join(str(k) for k in label_k)
            + " where they do not overlap (hover for every point)",
        ),
    )


def plot_strata(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    k: int | None = None,
    metrics: str | Iterable[str] | None = None,
    systems: Sequence[str] | None = None,
    columns: int = 3,
    width: int = 220,
    height: int = 170,
    confidence: float = 0.95,
    title: str = "By stratum",
) -> alt.FacetChart:
    """Stratified small multiples: the mean and its interval per stratum, for each metric.

    Parameters
    ----------
    table
        A stratified `polars_rankk.k_curve` (``k_curve(..., by=...)``) or
        `polars_rankk.bootstrap` table (``by=...``), optionally with a ``system``
        column.
    k
        The K to show. None: every K in the table, as K-curves (one row of panels per stratum).
    metrics, systems
        Draw only these: the panels follow the order of `metrics` (without it, the
        library's order); `systems` also fixes the colour order (to match other charts).
    columns
        Panels per row.
    width, height
        Size of one panel in pixels.
    confidence
        The level the intervals were computed with, for the subtitle and tooltips.
    title
        Chart title (followed by the K drawn).

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
    alt = altair_module()
    hint = "rk.k_curve(..., by=[...]) or rk.bootstrap(..., by=[...]) output"
    asked = asked_metrics(metrics)
    source, strata, stratum_values = prepare(
        table,
        "plot_strata",
        ["metric", "k", "value"],
        hint,
        CURVE_COLUMNS_KNOWN,
        metrics=asked,
        k=k,
        systems=systems,
    )
    if not strata:
        raise ValueError(f"plot_strata needs stratum columns; pass {hint}")
    if k is None:
        return plot_k_curve(
            table,
            metrics=asked,
            systems=systems,
            width=width,
            height=height,
            title=title,
            confidence=confidence,
        )
    source = with_definitions(source)
    names = system_order(source, systems)
    metric_order = metrics_in_order(source, asked)
    x = alt.X(
        f"{STRATUM}:N",
        sort=stratum_values,
        title=" · ".join(strata),
        axis=alt.Axis(labelAngle=0, labelLimit=120),
    )
    base = alt.Chart(alt.Data(values=records(source))).encode(
        x=x, xOffset=alt.XOffset("system:N", sort=names)
    )
    tips = tooltips(alt, strata, source, confidence)
    layers = []
    if "ci_low" in source.columns:
        layers.append(
            base.mark_rule(strokeWidth=2).encode(
                y="ci_low:Q", y2="ci_high:Q", color=colour(alt, names)
            )
        )
    layers.append(
        base.mark_point(filled=True, size=55).encode(
            y=alt.Y("value:Q", title=f"mean at K={k}"), color=colour(alt, names), tooltip=tips
        )
    )
    chart = wrapped(
        alt.layer(*layers).properties(width=width, height=height),
        alt,
        "metric:N",
        metric_order,
        columns,
    ).resolve_scale(y="independent")
    return cast(
        "altair.FacetChart",
        finish(
            chart,
            with_k_in_title(title, source),
            f"Mean at K={k} per stratum"
            + (f"; bar: {interval_name(source, confidence)}" if "ci_low" in source.columns else ""),
        ),
    )


def with_labels(
    wide: pl.DataFrame, label_k: list[int], panels: list[str], width: int, height: int
) -> pl.DataFrame:
    """Add ``text`` (``K=…``) to the precision–recall points to label, none overlapping.

    Small K crowd the origin for every system; a label is kept only when its box (its text's
    width at the chart's 10 px bold font, 14 px high) clears every label kept before it in its
    panel (the smaller K and earlier systems first): a wider label (``K=100``) needs more room
    than the 26 px a short one does. The loop runs over at most ``len(label_k) × systems``
    points, never over groups.
    """
    spans = wide.select(
        (pl.col("recall").max() - pl.col("recall").min()).alias("x"),
        (pl.col("precision").max() - pl.col("precision").min()).alias("y"),
    ).row(0)
    x_scale = width / (spans[0] or 1.0)
    y_scale = height / (spans[1] or 1.0)
    indexed = wide.with_row_index("_order")
    candidates = indexed.filter(pl.col("k").is_in(label_k)).sort([*panels, "k", "_order"])
    kept_rows: list[int] = []
    kept: dict[object, list[tuple[float, float, float]]] = {}
    for row in candidates.iter_rows(named=True):
        panel = tuple(row[p] for p in panels)
        # About 6.5 px a character at 10 px bold, and the gap to the point.
        wide_as = max(26.0, 6.5 * len(f"K={row['k']}") + 6)
        x, y = row["recall"] * x_scale, row["precision"] * y_scale
        others = kept.setdefault(panel, [])
        if all(abs(x - a) > max(wide_as, w) or abs(y - b) > 14 for a, b, w in others):
            others.append((x, y, wide_as))
            kept_rows.append(row["_order"])
    text = pl.when(pl.col("_order").is_in(kept_rows)).then(pl.format("K={}", pl.col("k")))
    return indexed.with_columns(text.alias("text")).drop("_order")
