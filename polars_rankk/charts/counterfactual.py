"""The chart of counterfactual estimates (`polars_rankk.evaluate_counterfactual`): each
system's estimated reward@K by estimator, with its interval.

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

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
