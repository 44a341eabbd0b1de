"""The chart of per-group wins and losses against a baseline (`polars_rankk.risk_distribution`).

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rankk.charts.base import (
    altair_module,
    finish,
    prepare,
    records,
    with_definitions,
    wrapped,
)

if TYPE_CHECKING:
    import altair
    import altair as alt

#: The columns `plot_risk` reads; others are strata (not supported: one panel per pair).
RISK_CHART_COLUMNS = frozenset(
    {"metric", "k", "baseline", "system", "outcome", "bin_low", "bin_high", "n_groups",
     "urisk", "trisk", "alpha"}
)  # fmt: skip
#: Outcome colours: Okabe–Ito bluish green (win), vermillion (loss), grey (tie).
OUTCOME_COLOURS = {"win": "#009E73", "tie": "#999999", "loss": "#D55E00"}


def plot_risk(
    distribution: pl.DataFrame | pl.LazyFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Sequence[str] | None = None,
    width: int = 260,
    height: int = 140,
    columns: int = 3,
    title: str = "Per-group wins and losses against the baseline",
) -> alt.FacetChart:
    """Bars of how many groups each system wins or loses against its baseline, by how much:
    one panel per (system vs baseline, metric@k), its URisk and TRisk in the panel title.

    Parameters
    ----------
    distribution
        The output of `polars_rankk.risk_distribution` (binned per-group differences, never
        one row per group).
    metrics, k, systems
        Draw only these.
    width, height
        One panel's size in pixels.
    columns
        Panels per row.
    title
        Chart title.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> base = pl.DataFrame({"q": range(4), "metric": "ndcg", "k": 10,
    ...                      "value": [0.5, 0.5, 0.5, 0.5]})
    >>> new = base.with_columns(pl.Series("value", [0.75, 0.75, 0.5, 0.25]))
    >>> chart = rk.plot_risk(rk.risk_distribution({"base": base, "new": new}))
    >>> [layer["mark"]["type"] for layer in chart.to_dict()["spec"]["layer"]]
    ['bar', 'rule', 'rule']
    """
    alt = altair_module()
    hint = "rk.risk_distribution(systems, baseline)"
    required = ["metric", "k", "baseline", "system", "outcome", "bin_low", "bin_high",
                "n_groups"]  # fmt: skip
    table, strata, _ = prepare(
        distribution, "plot_risk", required, hint, RISK_CHART_COLUMNS, metrics=metrics, k=k,
        systems=systems, extra_ids=["baseline", "outcome", "bin_low"],
    )  # fmt: skip
    if strata:
        raise ValueError(f"plot_risk draws one panel per pair and metric; drop columns {strata}")
    absent = [c for c in ("urisk", "trisk") if c not in table.columns]
    table = table.with_columns(pl.lit(None, pl.Float64).alias(c) for c in absent)
    table = with_definitions(table).with_columns(_panel().alias("panel"))
    order = table.get_column("panel").unique(maintain_order=True).to_list()
    tips = [
        alt.Tooltip("panel:N", title="comparison"),
        alt.Tooltip("outcome:N"),
        alt.Tooltip("bin_low:Q", title="δ from", format="+.3f"),
        alt.Tooltip("bin_high:Q", title="δ to", format="+.3f"),
        alt.Tooltip("n_groups:Q", title="groups"),
        alt.Tooltip("definition:N", title="definition"),
    ]
    outcomes = list(OUTCOME_COLOURS)
    colour = alt.Color(
        "outcome:N",
        sort=outcomes,
        scale=alt.Scale(domain=outcomes, range=list(OUTCOME_COLOURS.values())),
        title="group",
    )
    bars = (
        alt.Chart()
        .mark_bar(binSpacing=1)
        .encode(
            x=alt.X("bin_low:Q", title="δ = system − baseline (oriented: > 0 is a win)"),
            x2="bin_high:Q",
            y=alt.Y("n_groups:Q", title="groups"),
            y2=alt.datum(0),
            color=colour,
            tooltip=tips,
        )
    )
    zero = alt.Chart().mark_rule(color="#444444").encode(x=alt.datum(0))
    ties = (  # ties have no width (δ = 0): a thick rule at 0
        alt.Chart()
        .transform_filter(alt.datum.outcome == "tie")
        .mark_rule(strokeWidth=6)
        .encode(x=alt.datum(0), y="n_groups:Q", y2=alt.datum(0), color=colour, tooltip=tips)
    )
    bars = bars.transform_filter(alt.datum.outcome != "tie")
    layered: Any = alt.layer(bars, zero, ties, data=alt.Data(values=records(table))).properties(
        width=width, height=height
    )
    chart = wrapped(layered, alt, "panel:N", order, columns)
    subtitle = "Losses weigh 1 + α in URisk; TRisk = URisk / its standard error (|TRisk| > 2)"
    return cast("altair.FacetChart", finish(chart, title, subtitle))


def _panel() -> pl.Expr:
    """``system vs baseline · metric@k · URisk … TRisk …`` (without the risks when absent)."""
    head = pl.format("{} vs {} · {}", pl.col("system"), pl.col("baseline"), pl.col("label"))
    risks = pl.format(
        " · URisk {} · TRisk {}",
        pl.col("urisk").round(4).cast(pl.String),
        pl.col("trisk").round(2).cast(pl.String).fill_null("—"),
    )
    return pl.when(pl.col("urisk").is_not_null()).then(head + risks).otherwise(head)
