"""The chart of a judge's means against the means corrected by people's labels
(`polars_rankk.judge_correction`).

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rankk.charts.base import altair_module, records

if TYPE_CHECKING:
    import altair
    import altair as alt

#: Okabe–Ito orange (the judge alone) and blue (corrected with people's labels).
LABEL_COLOURS = {"judge only": "#E69F00", "corrected with human labels": "#0072B2"}


def plot_judge_correction(
    correction: pl.DataFrame,
    *,
    width: int = 360,
    title: str = "The judge's means and the means corrected by human labels",
) -> alt.FacetChart:
    """Each system's mean under the judge's labels and its prediction-powered correction,
    both with their intervals: one row of panels per (metric, k).

    Parameters
    ----------
    correction
        The output of `polars_rankk.judge_correction` (its per-system rows are drawn; the
        pairs' rows, with a ``baseline``, are not).
    width
        A panel's width in pixels.
    title
        Chart title.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> judged = pl.DataFrame({"q": [1, 2, 3, 4], "metric": "ndcg", "k": 10,
    ...                        "value": [0.8, 0.6, 0.4, 0.6]})
    >>> human = pl.DataFrame({"q": [1, 2], "metric": "ndcg", "k": 10, "value": [0.6, 0.5]})
    >>> chart = rk.plot_judge_correction(rk.judge_correction(judged, human))
    >>> [layer["mark"]["type"] for layer in chart.to_dict()["spec"]["layer"]]
    ['rule', 'point']
    """
    alt = altair_module()
    needed = ["metric", "k", "estimate", "lower", "upper", "judge_only", "judge_lower",
              "judge_upper"]  # fmt: skip
    missing = [column for column in needed if column not in correction.columns]
    if missing:
        raise ValueError(
            f"plot_judge_correction draws rk.judge_correction's table; missing columns "
            f"{missing} among {correction.columns}"
        )
    table = correction
    if "baseline" in table.columns:
        table = table.filter(pl.col("baseline").is_null())
    if "system" not in table.columns:
        table = table.with_columns(system=pl.lit("system"))
    panel = pl.col("metric") + pl.when(pl.col("k").is_null()).then(pl.lit("")).otherwise(
        "@" + pl.col("k").cast(pl.String)
    )
    long = pl.concat(
        [
            table.select(
                "system",
                panel.alias("measure"),
                labels=pl.lit(label),
                mean=mean,
                lower=lower,
                upper=upper,
            )
            for label, mean, lower, upper in (
                ("judge only", "judge_only", "judge_lower", "judge_upper"),
                ("corrected with human labels", "estimate", "lower", "upper"),
            )
        ]
    )
    colour = alt.Color(
        "labels:N",
        title="labels",
        scale=alt.Scale(domain=list(LABEL_COLOURS), range=list(LABEL_COLOURS.values())),
    )
    y = alt.Y("system:N", title=None)
    offset = alt.YOffset("labels:N")
    tooltip: list[Any] = [
        "system:N",
        "measure:N",
        "labels:N",
        *(alt.Tooltip(f"{name}:Q", format=".4f") for name in ("mean", "lower", "upper")),
    ]
    rules = (
        alt.Chart()
        .mark_rule()
        .encode(x=alt.X("lower:Q", title="mean"), x2="upper:Q", y=y, yOffset=offset, color=colour)
    )
    points = (
        alt.Chart()
        .mark_point(filled=True)
        .encode(x="mean:Q", y=y, yOffset=offset, color=colour, tooltip=tooltip)
    )
    chart = (
        alt.layer(rules, points, data=alt.Data(values=records(long)))
        .properties(width=width)
        .facet(row=alt.Row("measure:N", title=None))
        .properties(title=title)
        .resolve_scale(x="independent")
    )
    return cast("altair.FacetChart", chart)
