"""The chart of metrics over time: one line per metric@K (and dash pattern per system)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import time
from typing import TYPE_CHECKING, cast

import polars as pl

from polars_rankk.charts.base import (
    PALETTE,
    STRATUM,
    altair_module,
    finish,
    prepare,
    records,
    with_definitions,
)
from polars_rankk.core import order_metrics
from polars_rankk.time import OVER_TIME_COLUMNS

if TYPE_CHECKING:
    import altair as alt

_KNOWN = frozenset(["system", *OVER_TIME_COLUMNS])


def plot_over_time(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    width: int = 560,
    height: int = 260,
    title: str = "Metrics over time",
    subtitle: str | None = None,
) -> alt.Chart:
    """A line chart of `evaluate_over_time` output: one line per metric@K over the periods.

    Colour tells the metric@K apart; with a ``system`` column, the dash pattern tells the
    systems apart. Periods are evenly spaced and labelled as written (no time-zone shift).

    Parameters
    ----------
    table
        ``period, metric, k, value`` (+ ``n_groups``, ``system``, stratum columns): an
        aggregated table, never one row per group.
    metrics, k
        Draw only these metrics / cut-offs.
    width, height
        Size in pixels.
    title, subtitle
        Chart title and subtitle.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> import polars as pl
    >>> from datetime import date
    >>> from polars_rankk.charts import plot_over_time
    >>> table = pl.DataFrame({"period": [date(2024, 1, 1), date(2024, 1, 8)] * 2,
    ...                       "metric": ["precision"] * 4, "k": [5, 5, 10, 10],
    ...                       "value": [0.2, 0.15, 0.15, 0.12], "n_groups": 100})
    >>> chart = plot_over_time(table)
    >>> sorted({row["series"] for row in chart.to_dict()["data"]["values"]})
    ['precision@10', 'precision@5']
    """
    alt_ = altair_module()
    hint = "evaluate_over_time(...) output"
    frame, _, _ = prepare(
        table,
        "plot_over_time",
        ["period", "metric", "k", "value"],
        hint,
        _KNOWN,
        metrics=metrics,
        k=k,
        extra_ids=["period"],
    )
    frame = with_definitions(frame)
    series = [pl.col("label")] if STRATUM not in frame.columns else [pl.col(STRATUM), "label"]
    frame = frame.with_columns(pl.concat_str(series, separator=" · ").alias("series"))
    order = order_metrics(frame).get_column("series").unique(maintain_order=True).to_list()
    systems = frame.get_column("system").unique(maintain_order=True).to_list()
    dtype = frame.schema["period"]
    if dtype.is_numeric():
        x = alt_.X("period:Q", title="period", axis=alt_.Axis(tickMinStep=1))
    else:
        # Labels as written (no time-zone shift), one evenly spaced position per period.
        if isinstance(dtype, pl.Datetime):
            midnight = (frame.get_column("period").dt.time() == time(0)).all()
            pattern = "%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M"
            frame = frame.with_columns(pl.col("period").dt.to_string(pattern))
        else:
            frame = frame.with_columns(pl.col("period").cast(pl.String))
        x = alt_.X(
            "period:O",
            title="period",
            sort="ascending",
            axis=alt_.Axis(labelAngle=-40, labelOverlap="greedy"),
        )
    frame = frame.sort("period", "series")
    tips = [
        alt_.Tooltip("series:N", title="metric"),
        alt_.Tooltip("system:N", title="system"),
        alt_.Tooltip("period:N" if not dtype.is_numeric() else "period:Q", title="period"),
        alt_.Tooltip("value:Q", title="mean", format=".4f"),
    ]
    if "n_groups" in frame.columns:
        tips.append(alt_.Tooltip("n_groups:Q", title="groups", format=","))
    tips.append(alt_.Tooltip("definition:N", title="definition"))
    encoding = {
        "x": x,
        "y": alt_.Y("value:Q", title="mean over groups"),
        "color": alt_.Color(
            "series:N",
            title="metric",
            sort=order,
            scale=alt_.Scale(domain=order, range=list(PALETTE)),
            legend=alt_.Legend(orient="right"),
        ),
        "tooltip": tips,
    }
    if len(systems) > 1:
        # One colour per metric@K, one dash pattern per system.
        encoding["strokeDash"] = alt_.StrokeDash(
            "system:N",
            title="system",
            sort=systems,
            legend=alt_.Legend(orient="right", symbolType="stroke", symbolStrokeWidth=2),
        )
        encoding["detail"] = alt_.Detail("system:N")
    chart = (
        alt_.Chart(alt_.Data(values=records(frame)))
        .mark_line(point=True)
        .encode(**encoding)
        .properties(width=width, height=height)
    )
    return cast("alt.Chart", finish(chart, title, subtitle))
