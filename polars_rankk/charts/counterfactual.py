"""The chart of counterfactual estimates (`polars_rankk.evaluate_counterfactual`): each
system's estimated reward@K by estimator, with its interval.

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

import polars as pl

from polars_rankk.charts.base import altair_module, records

if TYPE_CHECKING:
    import altair
    import altair as alt

#: The columns of `CounterfactualResult.overall` the chart reads.
OVERALL_COLUMNS = ("estimator", "reward_at_k", "lower", "upper")


def plot_counterfactual(
    overall: pl.DataFrame | Mapping[str, pl.DataFrame],
    *,
    width: int = 360,
    title: str = "Estimated reward@K of each ranking, from logged interactions",
) -> alt.Chart:
    """Each system's estimated reward@K under each estimator, with its interval.

    Parameters
    ----------
    overall
        A `CounterfactualResult.overall` table, or a mapping ``{system: overall}``.
    width
        The chart's width in pixels.
    title
        Chart title.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> overall = pl.DataFrame({"estimator": ["naive", "snips"], "reward_at_k": [0.5, 1.2],
    ...                         "lower": [0.45, 1.1], "upper": [0.55, 1.3]})
    >>> chart = rk.plot_counterfactual({"new ranker": overall})
    >>> [layer["mark"]["type"] for layer in chart.to_dict()["layer"]]
    ['rule', 'point']
    """
    alt = altair_module()
    tables = {"system": overall} if isinstance(overall, pl.DataFrame) else dict(overall)
    for name, table in tables.items():
        missing = [column for column in OVERALL_COLUMNS if column not in table.columns]
        if missing:
            raise ValueError(
                f"plot_counterfactual draws evaluate_counterfactual's overall table; system "
                f"{name!r} lacks the columns {missing} (it has {table.columns})"
            )
    long = pl.concat(
        [
            table.select(pl.lit(name, dtype=pl.String).alias("system"), *OVERALL_COLUMNS)
            for name, table in tables.items()
        ],
        how="vertical_relaxed",
    )
    y = alt.Y("system:N", title=None)
    offset = alt.YOffset("estimator:N")
    colour = alt.Color("estimator:N", title="estimator")
    tooltip: list[Any] = [
        "system:N",
        "estimator:N",
        *(alt.Tooltip(f"{name}:Q", format=".4f") for name in ("reward_at_k", "lower", "upper")),
    ]
    rules = (
        alt.Chart()
        .mark_rule()
        .encode(
            x=alt.X("lower:Q", title="estimated reward@K"),
            x2="upper:Q",
            y=y,
            yOffset=offset,
            color=colour,
        )
    )
    points = (
        alt.Chart()
        .mark_point(filled=True)
        .encode(x="reward_at_k:Q", y=y, yOffset=offset, color=colour, tooltip=tooltip)
    )
    chart = alt.layer(rules, points, data=alt.Data(values=records(long))).properties(
        width=width, title=title
    )
    return cast("altair.Chart", chart)


class _Sweep(Protocol):
    """What `plot_counterfactual_sensitivity` reads of a sensitivity result."""

    @property
    def table(self) -> pl.DataFrame: ...

    @property
    def flips(self) -> pl.DataFrame: ...


#: The columns of a sensitivity sweep's table the chart reads.
SWEEP_COLUMNS = ("eta", "policy", "reward_at_k", "lower", "upper")


def plot_counterfactual_sensitivity(
    sweep: _Sweep,
    *,
    width: int = 420,
    title: str = "Estimated reward@K as the click model's numbers are raised to eta",
) -> alt.LayerChart:
    """Each policy's estimate (and interval) across the sweep of `counterfactual_sensitivity`,
    with eta = 1 (as specified) and each flip of the winner marked.

    Parameters
    ----------
    sweep
        A `SensitivityResult` (its ``table`` and ``flips``).
    width
        The chart's width in pixels.
    title
        Chart title.

    Returns
    -------
    altair.LayerChart

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> from types import SimpleNamespace
    >>> table = pl.DataFrame({"eta": [0.5, 0.5, 1.0, 1.0], "policy": ["a", "b", "a", "b"],
    ...     "reward_at_k": [0.5, 0.6, 0.5, 0.4], "lower": [0.4, 0.5, 0.4, 0.3],
    ...     "upper": [0.6, 0.7, 0.6, 0.5]})
    >>> flips = pl.DataFrame({"side": ["below"], "eta": [0.8], "winner": ["a"],
    ...     "overtaken_by": ["b"]})
    >>> chart = rk.plot_counterfactual_sensitivity(SimpleNamespace(table=table, flips=flips))
    >>> [layer["mark"]["type"] for layer in chart.to_dict()["layer"]]
    ['area', 'line', 'rule', 'rule', 'text']
    """
    alt = altair_module()
    table = sweep.table
    missing = [column for column in SWEEP_COLUMNS if column not in table.columns]
    if missing:
        raise ValueError(
            f"plot_counterfactual_sensitivity draws counterfactual_sensitivity's result; its "
            f"table lacks the columns {missing} (it has {table.columns})"
        )
    x = alt.X("eta:Q", title="eta (examination or propensity raised to eta; 1: as given)")
    colour = alt.Color("policy:N", title="policy")
    data = alt.Data(values=records(table.select(SWEEP_COLUMNS)))
    band = (
        alt.Chart(data).mark_area(opacity=0.15).encode(x=x, y="lower:Q", y2="upper:Q", color=colour)
    )
    line = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("reward_at_k:Q", title="estimated reward@K"),
            color=colour,
            tooltip=[
                "policy:N",
                alt.Tooltip("eta:Q", format=".2f"),
                alt.Tooltip("reward_at_k:Q", format=".4f"),
            ],
        )
    )
    given = (
        alt.Chart(alt.Data(values=[{"eta": 1.0}])).mark_rule(strokeDash=[4, 4]).encode(x="eta:Q")
    )
    flips = sweep.flips.with_columns(
        pl.format("winner flips at eta = {}", pl.col("eta").round(2)).alias("label")
    )
    flip_data = alt.Data(values=records(flips.select("eta", "label")))
    rules = alt.Chart(flip_data).mark_rule(color="firebrick").encode(x="eta:Q")
    labels = (
        alt.Chart(flip_data)
        .mark_text(align="left", dx=4, dy=-4, color="firebrick")
        .encode(x="eta:Q", y=alt.value(12), text="label:N")
    )
    chart = alt.layer(band, line, given, rules, labels).properties(width=width, title=title)
    return cast("altair.LayerChart", chart)
