"""Metrics per period (day, week …), as a tidy table and a line chart, so drift is visible.

`evaluate_over_time` evaluates once with the period as an extra group key — each (group,
period) is one evaluation unit — and macro-averages per period. `plot_over_time` draws the
result: one line per metric@K (per system when the table has several).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import time, timedelta
from typing import TYPE_CHECKING, cast

import polars as pl

from polars_rankk._time import duration_text, is_time, to_lazy
from polars_rankk._typing import FrameLike
from polars_rankk.aggregate import order_metrics, summarize_histogram, value_histogram
from polars_rankk.evaluate import EngineType, evaluate
from polars_rankk.policy import Policy
from polars_rankk.validate import _require_columns, align_ids, normalize_keys

if TYPE_CHECKING:
    import altair as alt

#: The column holding each row's period.
PERIOD = "period"
#: Columns of an `evaluate_over_time` table.
OVER_TIME_COLUMNS = ("period", "metric", "k", "value", "n_groups", "n_nan")
_KNOWN = frozenset(["system", *OVER_TIME_COLUMNS])


def _period(time: str, dtype: pl.DataType, every: str | timedelta | int | None) -> pl.Expr:
    column = pl.col(time)
    if every is None:
        return column
    if dtype.is_integer():
        if isinstance(every, bool) or not isinstance(every, int) or every <= 0:
            raise ValueError(f"every must be a positive int for integer times; got {every!r}")
        return (column // every) * every
    if isinstance(every, int):
        raise TypeError(f"every must be a duration string or timedelta for {dtype}; got {every}")
    return column.dt.truncate(duration_text(every, "every"))


def evaluate_over_time(
    candidates: FrameLike,
    truth: FrameLike,
    *,
    time: str,
    every: str | timedelta | int | None = None,
    k: int | Iterable[int] = 10,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str] = "user",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    policy: Policy | None = None,
    engine: EngineType = "auto",
    check_values: bool = True,
) -> pl.DataFrame:
    """Every metric at every K, per period: the macro mean over the groups of each period.

    The truth's `time` column says when each truth row belongs; truncated to `every` it is
    the row's period, and each (group, period) is evaluated as one group. Candidates with the
    `time` column are matched to the same period (a ranking per period, e.g. one per
    `polars_rankk.temporal.rolling_splits` cutoff); candidates without it are one fixed
    ranking per group, evaluated against each period's truth — how a model that is never
    retrained drifts.

    Parameters
    ----------
    candidates, truth
        As in `evaluate`; `truth` (and optionally `candidates`) carries `time`.
    time
        A Datetime, Date or integer column: the cutoff of a split (``"cutoff"``), or the
        truth's own timestamp.
    every
        Period length for truncation (``"1d"``, ``"1w"``, ``"1mo"``, a timedelta, an int for
        integer times); weeks start on Monday. None: each distinct `time` is a period.
    k, metrics, group_by, item, score, relevance, policy, engine, check_values
        As in `evaluate`.

    Returns
    -------
    pl.DataFrame
        ``period, metric, k, value, n_groups, n_nan``: one row per period, metric and K,
        sorted by period.

    Examples
    --------
    >>> import polars as pl
    >>> from datetime import date
    >>> from polars_rankk.over_time import evaluate_over_time
    >>> candidates = pl.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
    ...                            "score": [0.9, 0.1, 0.9, 0.1]})
    >>> truth = pl.DataFrame({"user": [1, 2, 1, 2], "item": ["a", "a", "b", "a"],
    ...                       "timestamp": [date(2024, 1, d) for d in (1, 2, 8, 9)]})
    >>> evaluate_over_time(candidates, truth, time="timestamp", every="1w", k=1,
    ...                    metrics="precision")
    shape: (2, 6)
    ┌────────────┬───────────┬─────┬───────┬──────────┬───────┐
    │ period     ┆ metric    ┆ k   ┆ value ┆ n_groups ┆ n_nan │
    │ ---        ┆ ---       ┆ --- ┆ ---   ┆ ---      ┆ ---   │
    │ date       ┆ str       ┆ i64 ┆ f64   ┆ i64      ┆ i64   │
    ╞════════════╪═══════════╪═════╪═══════╪══════════╪═══════╡
    │ 2024-01-01 ┆ precision ┆ 1   ┆ 1.0   ┆ 2        ┆ 0     │
    │ 2024-01-08 ┆ precision ┆ 1   ┆ 0.5   ┆ 2        ┆ 0     │
    └────────────┴───────────┴─────┴───────┴──────────┴───────┘

    See Also
    --------
    plot_over_time : the line chart of this table.
    """
    keys = list(normalize_keys(group_by))
    if PERIOD in keys or time in keys:
        raise ValueError(f"group_by {keys} may not contain {PERIOD!r} or the time column {time!r}")
    cand = to_lazy(candidates, "candidates")
    truth_lf = to_lazy(truth, "truth")
    schema = _require_columns(truth_lf, "truth", {time: "the time each truth row belongs to"})
    dtype = schema[time]
    if not is_time(dtype):
        raise TypeError(f"truth column {time!r} must be a Datetime, Date or integer; it is {dtype}")
    period = _period(time, dtype, every).alias(PERIOD)
    truth_lf = truth_lf.with_columns(period)
    if time in cand.collect_schema():
        given = cand.collect_schema()[time]
        if given != dtype:
            raise TypeError(
                f"column {time!r} has dtype {given} in candidates but {dtype} in truth; cast one"
            )
        cand = cand.with_columns(period)
    else:
        cand, truth_lf = align_ids(cand, truth_lf, keys, ("candidates", "truth"))
        periods = truth_lf.select(*keys, PERIOD).unique()
        cand = cand.join(periods, on=keys, how="inner")
    res = evaluate(
        cand,
        truth_lf,
        k=k,
        metrics=metrics,
        group_by=[*keys, PERIOD],
        item=item,
        score=score,
        relevance=relevance,
        policy=policy,
        engine=engine,
        check_values=check_values,
    )
    # Exact whatever the row order: the same value-histogram summariser as `summary()`.
    histogram = value_histogram(res.per_group, by=[PERIOD]).collect()
    return summarize_histogram(histogram, by=[PERIOD]).select(OVER_TIME_COLUMNS)


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
    >>> from polars_rankk.over_time import plot_over_time
    >>> table = pl.DataFrame({"period": [date(2024, 1, 1), date(2024, 1, 8)] * 2,
    ...                       "metric": ["precision"] * 4, "k": [5, 5, 10, 10],
    ...                       "value": [0.2, 0.15, 0.15, 0.12], "n_groups": 100})
    >>> chart = plot_over_time(table)
    >>> sorted({row["series"] for row in chart.to_dict()["data"]["values"]})
    ['precision@10', 'precision@5']
    """
    from polars_rankk._charting import (
        PALETTE,
        STRATUM,
        altair_module,
        finish,
        prepare,
        records,
        with_definitions,
    )

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
