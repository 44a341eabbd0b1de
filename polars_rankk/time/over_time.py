"""Metrics per period (day, week …), as a tidy table and a line chart, so drift is visible.

`evaluate_over_time` evaluates once with the period as an extra group key — each (group,
period) is one evaluation unit — and macro-averages per period. `plot_over_time` draws the
result: one line per metric@K (per system when the table has several).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta

import polars as pl

from polars_rankk.core import EngineType, evaluate
from polars_rankk.core.evaluation.aggregate import summarize_histogram, value_histogram
from polars_rankk.core.inputs.spec import align_ids, normalize_keys, require_columns, to_lazy
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike
from polars_rankk.time._common import duration_text, is_time

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
    return column.dt.truncate(duration_text(every, "every", dtype))


def evaluate_over_time(
    candidates: FrameLike,
    truth: FrameLike,
    *,
    time: str,
    every: str | timedelta | int | None = None,
    k: int | Iterable[int] | None = None,
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
    `polars_rankk.rolling_splits` cutoff); candidates without it are one fixed
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
    >>> from polars_rankk.time.over_time import evaluate_over_time
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
    schema = require_columns(truth_lf, "truth", {time: "the time each truth row belongs to"})
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
