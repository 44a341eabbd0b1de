"""The forest plot of paired differences (the output of `polars_rankk.compare`).

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rankk.charts.base import (
    COMPARE_COLUMNS_KNOWN,
    STRATUM,
    altair_module,
    colour,
    finish,
    header,
    interval_name,
    prepare,
    records,
    system_order,
    with_definitions,
    with_k_in_title,
)
from polars_rankk.core import METRICS

if TYPE_CHECKING:
    import altair
    import altair as alt


def plot_comparison(
    comparison: pl.DataFrame | pl.LazyFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Sequence[str] | None = None,
    alpha: float = 0.05,
    p_value: str = "p_adjusted",
    width: int = 420,
    confidence: float = 0.95,
    title: str = "Paired differences against the baseline",
) -> alt.LayerChart | alt.FacetChart:
    """A forest plot: each system's mean paired difference to the baseline, with its CI.

    Interactive where Vega runs: hovering a point shows the difference, its interval and
    p-values, clicking a system in the legend shows it alone, and the K selector under the
    chart keeps the rows of one K (every panel, when there are strata).

    Parameters
    ----------
    comparison
        The output of `polars_rankk.compare` (``metric, k, system, diff, ci_low, ci_high``
        and p-values), one row per (system, metric, k); the baseline's own rows (no
        difference) are left out.
    metrics, k, systems
        Draw only these; `systems` also fixes the colour order. Without it the colours are
        the baseline's then the challengers' in the table's order — the colours of the other
        charts when the baseline came first among the systems; pass the systems in the order
        given elsewhere to be sure. The baseline keeps its colour (and is not drawn).
    alpha
        Significance level: points whose `p_value` is below it are filled.
    p_value
        The p-value column that decides significance (the multiple-comparison adjusted one
        by default).
    width
        Chart width in pixels.
    confidence
        The level the intervals were computed with (`polars_rankk.compare`'s
        ``confidence``), for the subtitle and tooltips.
    title
        Chart title (followed by the K drawn, up to three).

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
    ['rule', 'rule', 'point', 'point']
    """
    alt = altair_module()
    table, strata, stratum_values = comparison_rows(comparison, metrics, k, systems, p_value, alpha)
    several = "baseline" in table.columns and table.get_column("baseline").n_unique() > 1
    pairs = [str(p) for p in table.get_column("pair").unique(maintain_order=True).to_list()]
    if several:
        color = colour(alt, pairs, field="pair").title("system − baseline")
    else:
        baseline = [str(table.get_column("baseline")[0])] if "baseline" in table.columns else []
        named = system_order(table, systems)
        names = named if systems is not None else [*baseline, *named]
        color = colour(alt, names, field="pair").legend(alt.Legend(values=pairs))
    against = (
        "baseline"
        if several or "baseline" not in table.columns
        else str(table.get_column("baseline")[0])
    )
    order = metric_labels(table)
    data = alt.Data(values=records(table))
    x_title = f"mean paired difference (system − {against})"
    shown = alt.selection_point(fields=["pair"], bind="legend", name="shown_systems")
    chosen_k = k_choice(alt, table)
    layers = forest_layers(
        alt, data, table, order, pairs, strata, color, x_title, confidence, shown, chosen_k
    )
    n_rows = len(order) * max(1, len(pairs))
    chart: Any = alt.layer(*layers).properties(width=width, height=max(120, 14 * n_rows))
    if strata:
        chart = chart.facet(
            column=alt.Column(
                f"{STRATUM}:N", sort=stratum_values, header=header(alt), title=" · ".join(strata)
            )
        )
    chart = chart.add_params(chosen_k)
    subtitle = "Point: mean of per-group differences"
    if "ci_low" in table.columns:
        subtitle += f"; bar: {interval_name(table, confidence)}"
    if p_value in table.columns:
        subtitle += f"; filled: {p_value} < {alpha:g}"
    return cast(
        "altair.LayerChart | altair.FacetChart",
        finish(chart, with_k_in_title(title, table), subtitle),
    )


def k_choice(alt: Any, table: pl.DataFrame) -> Any:
    """The K selector: every K (the start) or one of the table's K."""
    ks = sorted(int(v) for v in table.get_column("k").drop_nulls().unique().to_list())
    binding = alt.binding_select(options=[None, *ks], labels=["every K", *map(str, ks)], name="K ")
    return alt.param(name="selected_k", value=None, bind=binding)


def comparison_rows(
    comparison: pl.DataFrame | pl.LazyFrame,
    metrics: str | Iterable[str] | None,
    k: int | Iterable[int] | None,
    systems: Sequence[str] | None,
    p_value: str,
    alpha: float,
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """The rows to draw: differences only, with ``significant``, ``pair`` and labels."""
    table, strata, stratum_values = prepare(
        comparison,
        "plot_comparison",
        ["metric", "k", "diff"],
        "rk.compare(...) output",
        COMPARE_COLUMNS_KNOWN,
        metrics=metrics,
        k=k,
        systems=systems,
        extra_ids=["baseline"],
    )
    if "baseline" in table.columns:
        table = table.filter(pl.col("system") != pl.col("baseline").cast(pl.String))
    table = table.filter(pl.col("diff").is_not_null())
    if table.height == 0:
        raise ValueError("plot_comparison: no difference to draw (only the baseline's rows?)")
    significant = (
        (pl.col(p_value) < alpha).fill_null(False) if p_value in table.columns else pl.lit(False)
    )
    several = "baseline" in table.columns and table.get_column("baseline").n_unique() > 1
    pair = (
        pl.format("{} − {}", pl.col("system"), pl.col("baseline").cast(pl.String))
        if several
        else pl.col("system")
    )
    table = table.with_columns(significant.alias("significant"), pair.alias("pair"))
    return with_definitions(table), strata, stratum_values


def metric_labels(table: pl.DataFrame) -> list[str]:
    """``metric@k`` labels in the library's metric order, then by K."""
    rank = pl.col("metric").replace_strict({m: i for i, m in enumerate(METRICS)}, default=99)
    return [
        str(label)
        for label in table.sort([rank, "k"], nulls_last=True)
        .get_column("label")
        .unique(maintain_order=True)
        .to_list()
    ]


def forest_tooltips(
    alt: Any, table: pl.DataFrame, strata: list[str], confidence: float = 0.95
) -> list[Any]:
    """Tooltips of one difference: who, what, how much, how sure."""
    tips = [
        alt.Tooltip("system:N"),
        *([alt.Tooltip("baseline:N")] if "baseline" in table.columns else []),
        alt.Tooltip("label:N", title="metric"),
        *([alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata))] if strata else []),
        alt.Tooltip("diff:Q", title="mean difference", format="+.4f"),
    ]
    if "ci_low" in table.columns:
        level = interval_name(table, confidence).split("%")[0]
        tips += [
            alt.Tooltip("ci_low:Q", title=f"{level}% interval from", format="+.4f"),
            alt.Tooltip("ci_high:Q", title=f"{level}% interval to", format="+.4f"),
        ]
    numbers = ("n_groups", "p_value_t", "p_value_randomization", "p_value_wilcoxon", "p_adjusted")
    tips += [alt.Tooltip(f"{c}:Q", title=c, format=".4g") for c in numbers if c in table.columns]
    tips.append(alt.Tooltip("definition:N", title="definition"))
    return tips


def forest_layers(
    alt: Any,
    data: Any,
    table: pl.DataFrame,
    order: list[str],
    pairs: list[str],
    strata: list[str],
    color: Any,
    x_title: str,
    confidence: float = 0.95,
    shown: Any = None,
    chosen_k: Any = None,
) -> list[Any]:
    """The zero line, the intervals, hollow points, and filled points where significant.

    `shown` (a legend selection) fades the other systems; `chosen_k` (a parameter) keeps the
    rows of one K, or every row while it is null.
    """
    tips = forest_tooltips(alt, table, strata, confidence)
    base = alt.Chart(data)
    if chosen_k is not None:
        base = base.transform_filter(f"{chosen_k.name} == null || datum.k == {chosen_k.name}")
    base = base.encode(
        y=alt.Y("label:N", sort=order, title=None), yOffset=alt.YOffset("pair:N", sort=pairs)
    )
    if shown is not None:
        base = base.encode(opacity=alt.condition(shown, alt.value(1.0), alt.value(0.15)))
    x_axis = alt.Axis(format="+.2~f", tickCount=6)
    zero = (
        alt.Chart(data)
        .transform_aggregate(rows="count()", groupby=[STRATUM] if strata else [])
        .mark_rule(color="#888888")
        .encode(x=alt.datum(0))
    )
    layers = [zero]
    if "ci_low" in table.columns:
        layers.append(
            base.mark_rule(strokeWidth=2).encode(
                x=alt.X("ci_low:Q", title=x_title, axis=x_axis), x2="ci_high:Q", color=color
            )
        )
    point_x = alt.X("diff:Q", title=x_title, axis=x_axis)
    hollow = base.mark_point(size=60, strokeWidth=2, fill="white", filled=False).encode(
        x=point_x, color=color, tooltip=tips
    )
    layers.append(hollow.add_params(shown) if shown is not None else hollow)
    layers.append(
        base.transform_filter(alt.datum.significant)
        .mark_point(size=60, filled=True)
        .encode(x=point_x, color=color, tooltip=tips)
    )
    return layers
