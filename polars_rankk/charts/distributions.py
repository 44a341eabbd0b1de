"""Charts of per-group value distributions: box plots from quantiles, histograms, ECDFs, violins.

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

import polars as pl

from polars_rankk.charts.base import (
    DISTRIBUTION_COLUMNS_KNOWN,
    HISTOGRAM_COLUMNS_KNOWN,
    STRATUM,
    altair_module,
    asked_metrics,
    colour,
    default_k,
    finish,
    header,
    metric_panels,
    metrics_in_order,
    prepare,
    quantile_title,
    records,
    system_order,
    with_definitions,
    with_k_in_title,
    wrapped,
)

if TYPE_CHECKING:
    import altair
    import altair as alt


def plot_distribution(
    distribution: pl.DataFrame | pl.LazyFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Sequence[str] | None = None,
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
        The output of `polars_rankk.distribution` (``metric, k, n_groups, mean,
        median, quantile_<p>…``); add a ``system`` column to compare systems (see
        `polars_rankk.stats.systems.for_systems`). Stratum columns give one row of panels each.
    metrics, k, systems
        Draw only these: the panels follow the order of `metrics` (without it, the
        library's order); `systems` also fixes the colour order (to match other charts).
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
    alt = altair_module()
    hint = "rk.distribution(...) output"
    asked = asked_metrics(metrics)
    table, strata, stratum_values = prepare(
        distribution,
        "plot_distribution",
        ["metric", "k", "median", "mean"],
        hint,
        DISTRIBUTION_COLUMNS_KNOWN,
        metrics=asked,
        k=k,
        systems=systems,
    )
    names = system_order(table, systems)
    table, note = default_k(table, k)
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
    outer_low = (
        quantiles[0][1]
        if quantiles[0][0] < 0.25
        else ("min" if "min" in table.columns else low_q[0])
    )
    outer_high = (
        quantiles[-1][1]
        if quantiles[-1][0] > 0.75
        else ("max" if "max" in table.columns else high_q[0])
    )
    whisker = quantile_title(outer_low) + " to " + quantile_title(outer_high)
    table = table.with_columns(
        pl.col(low_q[0]).alias("q_low"),
        pl.col(high_q[0]).alias("q_high"),
        pl.col(outer_low).alias("w_low"),
        pl.col(outer_high).alias("w_high"),
    )
    table = with_definitions(table)
    metric_order = metrics_in_order(table, asked)
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
        alt.Tooltip("w_low:Q", title=quantile_title(outer_low), format=".4f"),
        alt.Tooltip("w_high:Q", title=quantile_title(outer_high), format=".4f"),
        alt.Tooltip("definition:N", title="definition"),
    ]
    base = alt.Chart(alt.Data(values=records(table))).encode(x=x, **offset)
    color = colour(alt, names)
    y_title = "per-group value"
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
    chart = metric_panels(layered, alt, strata, stratum_values, metric_order, columns)
    chart = chart.resolve_scale(y="independent")
    subtitle = f"Box: 25th–75th percentile; line: median; whiskers: {whisker}; diamond: mean"
    subtitle += f"; {note}" if note else ""
    return cast("altair.FacetChart", finish(chart, with_k_in_title(title, table), subtitle))


def plot_histogram(
    histogram: pl.DataFrame | pl.LazyFrame,
    *,
    kind: Literal["histogram", "ecdf", "violin"] = "histogram",
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Sequence[str] | None = None,
    width: int = 200,
    height: int = 150,
    title: str | None = None,
) -> alt.FacetChart:
    """Binned per-group values: overlaid histograms, empirical CDFs or violins.

    Parameters
    ----------
    histogram
        The output of `polars_rankk.histogram` (``metric, k, bin, bin_start,
        bin_end, count, share``); add a ``system`` column to compare systems.
    kind
        ``"histogram"`` (share of groups per bin, the systems' bars side by side inside
        each bin, opaque: colours never blend), ``"ecdf"`` (share of
        groups at or below each bin's upper edge) or ``"violin"`` (mirrored density, one
        violin per system).
    metrics, k, systems
        Draw only these: the panels follow the order of `metrics` (without it, the
        library's order); `systems` also fixes the colour order (to match other charts).
    width, height
        Size of one panel in pixels.
    title
        Chart title (a default per kind), followed by the K drawn.

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
    alt = altair_module()
    if kind not in ("histogram", "ecdf", "violin"):
        raise ValueError(f"kind must be 'histogram', 'ecdf' or 'violin'; got {kind!r}")
    hint = "rk.histogram(...) output"
    required = ["metric", "k", "bin_start", "bin_end", "share"]
    asked = asked_metrics(metrics)
    table, strata, stratum_values = prepare(
        histogram,
        "plot_histogram",
        required,
        hint,
        HISTOGRAM_COLUMNS_KNOWN,
        metrics=asked,
        k=k,
        systems=systems,
        extra_ids=["bin_start"],
    )
    names = system_order(table, systems)
    table, note = default_k(table, k)
    ids = ["system", *([STRATUM] if strata else []), "metric", "k", "bin_start"]
    table = with_definitions(with_discrete(table.sort(ids, nulls_last=True), ids[:-1]))
    table = with_bars(table, names)
    order = {m: i for i, m in enumerate(metrics_in_order(table, asked))}
    labels = (
        table.sort([pl.col("metric").replace_strict(order, return_dtype=pl.Int64), "k"])
        .get_column("label")
        .unique(maintain_order=True)
        .to_list()
    )
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
    base = alt.Chart(alt.Data(values=records(table)))
    if kind == "violin":
        chart = violin_layers(alt, base, names, tips).properties(
            width=max(60, width // max(1, len(names))) if not strata else width, height=height
        )
    else:
        chart = histogram_marks(alt, base, kind, names, tips).properties(width=width, height=height)
    chart = histogram_facets(alt, chart, kind, labels, names, strata, stratum_values)
    chart = chart.resolve_scale(y="independent")
    default = {
        "histogram": "Histogram of per-group values",
        "ecdf": "Cumulative distribution of per-group values",
        "violin": "Shape of the per-group distribution",
    }[kind]
    subtitle = "Share of groups (binned)" + (
        "; 0/1-valued metrics: the share at each value" if kind == "violin" else ""
    )
    subtitle += f"; {note}" if note else ""
    return cast(
        "altair.FacetChart", finish(chart, with_k_in_title(title or default, table), subtitle)
    )


def with_discrete(table: pl.DataFrame, panel: list[str]) -> pl.DataFrame:
    """Add ``cumulative``, ``bin_mid``, the violin's half-widths and, for metrics whose values
    all sit on bin edges, ``discrete`` and the ``at`` value each occupied bin holds.

    Discrete: hit_rate (0 or 1), precision@K when K divides the number of equal-width bins
    (values j/K fall on edges) and mrr@1. Their violin would smear mass between the values.
    """
    share = pl.col("share").fill_null(0.0)
    n_bins = pl.len().over(panel)
    equal_width = (
        ((pl.col("bin_start") - pl.col("bin").cast(pl.Float64) / n_bins).abs() < 1e-9)
        .all()
        .over(panel)
        if "bin" in table.columns
        else pl.lit(False)
    )
    k = pl.col("k").fill_null(0)
    on_edges = (
        (pl.col("metric") == "hit_rate")
        | ((pl.col("metric") == "precision") & (k > 0) & (n_bins % k.clip(1) == 0))
        | ((pl.col("metric") == "mrr") & (k == 1))
    )
    last = pl.col("bin_end") == pl.col("bin_end").max().over(panel)
    return table.with_columns(
        share.alias("share"),
        share.cum_sum().over(panel).alias("cumulative"),
        ((pl.col("bin_start") + pl.col("bin_end")) / 2).alias("bin_mid"),
        (-share / 2).alias("left"),
        (share / 2).alias("right"),
        (on_edges & equal_width).alias("discrete"),
        pl.when(last).then(pl.col("bin_end")).otherwise(pl.col("bin_start")).alias("at"),
    )


def with_bars(table: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Add ``bar_start`` and ``bar_end``: each system's slice of its bin, side by side.

    Overlaid translucent bars blend into colours no system has; slices of the bin keep every
    bar opaque and in its own colour, in the colour order.
    """
    slot = pl.col("system").replace_strict(
        {name: i for i, name in enumerate(names)}, default=0, return_dtype=pl.Float64
    )
    width = (pl.col("bin_end") - pl.col("bin_start")) / max(1, len(names))
    return table.with_columns(
        (pl.col("bin_start") + slot * width).alias("bar_start"),
        (pl.col("bin_start") + (slot + 1) * width).alias("bar_end"),
    )


def histogram_marks(alt: Any, base: Any, kind: str, names: list[str], tips: list[Any]) -> Any:
    """Bars side by side in each bin (histogram) or step lines (ECDF), one colour per system."""
    value_title = "per-group value"
    if kind == "histogram":
        return base.mark_bar(opacity=1, binSpacing=0).encode(
            x=alt.X("bar_start:Q", title=value_title),
            x2="bar_end:Q",
            y=alt.Y("share:Q", title="share of groups", stack=None, axis=alt.Axis(format="%")),
            y2=alt.datum(0),
            color=colour(alt, names),
            tooltip=tips,
        )
    return base.mark_line(interpolate="step-before").encode(
        x=alt.X("bin_end:Q", title=f"{value_title} (upper bin edge)"),
        y=alt.Y("cumulative:Q", title="share of groups ≤ value", axis=alt.Axis(format="%")),
        color=colour(alt, names),
        tooltip=tips,
    )


def violin_layers(alt: Any, base: Any, names: list[str], tips: list[Any]) -> Any:
    """Mirrored binned density; for discrete metrics, a bar per value as wide as its share."""
    value = alt.Y("bin_mid:Q", title="per-group value")
    x = alt.X("left:Q", axis=None, title=None)
    area = (
        base.transform_filter("!datum.discrete")
        .mark_area(orient="horizontal", opacity=0.7, interpolate="monotone")
        .encode(y=value, x=x, x2="right:Q", color=colour(alt, names), tooltip=tips)
    )
    shares = base.transform_filter("datum.discrete && datum.share > 0")
    bars = shares.mark_rule(strokeWidth=7, opacity=0.85).encode(
        y=alt.Y("at:Q", title="per-group value"),
        x=x,
        x2="right:Q",
        color=colour(alt, names),
        tooltip=tips,
    )
    text = shares.mark_text(align="left", dx=4, fontSize=10, color="#333333").encode(
        y="at:Q", x="right:Q", text=alt.Text("share:Q", format=".0%")
    )
    return alt.layer(area, bars, text)


def histogram_facets(
    alt: Any,
    chart: Any,
    kind: str,
    labels: list[str],
    names: list[str],
    strata: list[str],
    stratum_values: list[str],
) -> Any:
    """Panels: metric@K (by stratum, or by system for violins); a wrapped grid otherwise."""
    row = alt.Row("label:N", sort=labels, header=header(alt), title=None)
    if strata:
        return chart.facet(
            row=row,
            column=alt.Column(
                f"{STRATUM}:N", sort=stratum_values, header=header(alt), title=" · ".join(strata)
            ),
        )
    if kind == "violin":
        return chart.facet(
            row=row, column=alt.Column("system:N", sort=names, header=header(alt), title=None)
        )
    return wrapped(chart, alt, "label:N", labels, 3)
