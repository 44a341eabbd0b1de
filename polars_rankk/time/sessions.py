"""Sessions: groups as (user, session), and per-user summaries of per-session values.

`sessionize` numbers each user's sessions from an inactivity gap (or use session ids you
already have); evaluating per session is `evaluate(..., group_by=["user", "session"])`;
`summarize_by` then averages the sessions of each user before averaging over users, so a
user with many sessions counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rankk.core.evaluation import aggregate
from polars_rankk.core.inputs.spec import normalize_keys, require_columns
from polars_rankk.time._common import Duration, check_log, offset

if TYPE_CHECKING:
    from polars_rankk.core import Evaluation

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)

#: Columns of a `summarize_by` table.
SUMMARY_COLUMNS = (
    "metric",
    "k",
    "value",
    "n_groups",
    "n_nan",
    "n_subgroups",
    "n_nan_subgroups",
)


def sessionize(
    log: Frame,
    gap: Duration = timedelta(minutes=30),
    *,
    user: str = "user",
    timestamp: str = "timestamp",
    session: str = "session",
    check_values: bool = True,
) -> Frame:
    """Number each user's sessions: a new session starts after `gap` without activity.

    An interaction at least `gap` after the user's previous one opens a new session;
    interactions with the same timestamp share a session. Session ids count from 1 within each
    user, in time order, so a session is identified by (user, session).

    Parameters
    ----------
    log
        Interactions: `user`, `timestamp` (Datetime, Date or integer), any other columns.
    gap
        The inactivity that ends a session: a duration string (``"30m"``), a timedelta, or an
        int for integer clocks.
    user, timestamp
        Column names.
    session
        Name of the new session column (Int64); it must not exist yet.
    check_values
        Scan the log once for nulls first (default).

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        The log with the `session` column, eager or lazy like the input.

    Examples
    --------
    >>> import polars as pl
    >>> from datetime import datetime
    >>> from polars_rankk.time.sessions import sessionize
    >>> log = pl.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1],
    ...                     "timestamp": [datetime(2024, 1, 1, 9, 0), datetime(2024, 1, 1, 9, 20),
    ...                                   datetime(2024, 1, 1, 11, 0), datetime(2024, 1, 1, 9, 0)]})
    >>> sessionize(log, "30m")["session"].to_list()
    [1, 1, 2, 1]
    """
    frame, dtype = check_log(
        log, user=user, item=None, timestamp=timestamp, check_values=check_values
    )
    if not isinstance(session, str) or session in frame.collect_schema():
        raise ValueError(
            f"session={session!r} must name a new column; the log already has it (pass "
            f"session='<another name>', or use the session ids you have as a group key)"
        )
    moment = pl.col(timestamp)
    previous = moment.shift(1).over(user, order_by=timestamp)
    opens = previous.is_null() | (moment >= offset(previous, gap, dtype, what="gap"))
    numbered = frame.with_columns(
        opens.cast(pl.Int64).cum_sum().over(user, order_by=timestamp).alias(session)
    )
    return numbered if isinstance(log, pl.LazyFrame) else numbered.collect()


def summarize_by(
    result: Evaluation | pl.DataFrame | pl.LazyFrame,
    level: str | Sequence[str] = "user",
) -> pl.DataFrame:
    """Macro average in two steps: over the subgroups of each `level` group, then over those.

    With groups (user, session), ``summarize_by(res, "user")`` averages each user's sessions,
    then the users — each user counts once however many sessions it had (``res.summary()``
    instead counts each session once). NaN values (``empty_truth="nan"``) are skipped at
    both steps; a user whose every session is NaN is skipped and counted in ``n_nan``.

    Parameters
    ----------
    result
        An `Evaluation`, or its ``per_group`` table (keys, ``metric``, ``k``, ``value``).
    level
        The outer key column(s), a strict subset of the group keys.

    Returns
    -------
    pl.DataFrame
        ``metric, k, value`` (the mean over `level` groups of their subgroup means),
        ``n_groups`` (level groups averaged), ``n_nan`` (level groups with only NaN values),
        ``n_subgroups`` and ``n_nan_subgroups`` (subgroup values used and skipped).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.time.sessions import summarize_by
    >>> candidates = pl.DataFrame({"user": [1, 1, 1, 2], "session": [1, 2, 3, 1],
    ...                            "item": ["a", "a", "a", "a"], "score": [1.0] * 4})
    >>> truth = pl.DataFrame({"user": [1, 1, 1, 2], "session": [1, 2, 3, 1],
    ...                       "item": ["a", "a", "a", "b"]})
    >>> res = rk.evaluate(candidates, truth, k=1, metrics="hit_rate",
    ...                   group_by=["user", "session"])
    >>> res.summary()["value"][0]  # four sessions, three hits
    0.75
    >>> summarize_by(res, "user").select("metric", "k", "value", "n_groups", "n_subgroups")
    shape: (1, 5)
    ┌──────────┬─────┬───────┬──────────┬─────────────┐
    │ metric   ┆ k   ┆ value ┆ n_groups ┆ n_subgroups │
    │ ---      ┆ --- ┆ ---   ┆ ---      ┆ ---         │
    │ str      ┆ i64 ┆ f64   ┆ i64      ┆ i64         │
    ╞══════════╪═════╪═══════╪══════════╪═════════════╡
    │ hit_rate ┆ 1   ┆ 0.5   ┆ 2        ┆ 4           │
    └──────────┴─────┴───────┴──────────┴─────────────┘
    """
    levels = list(normalize_keys(level))
    if isinstance(result, pl.DataFrame | pl.LazyFrame):
        per_group = result.lazy()
    elif hasattr(result, "per_group") and hasattr(result, "group_keys"):
        keys = list(result.group_keys)
        outside = [name for name in levels if name not in keys]
        if outside or len(levels) >= len(keys):
            raise ValueError(
                f"level {levels} must be a strict subset of the group keys {keys}, e.g. "
                f"level={keys[0]!r} for groups {keys}"
            )
        per_group = result.per_group.lazy()
    else:
        raise TypeError(
            f"summarize_by takes an Evaluation or its per_group table; got {type(result).__name__}"
        )
    require_columns(
        per_group,
        "per_group",
        {
            **dict.fromkeys(levels, "an outer group key"),
            "metric": "the metric name",
            "k": "the cut-off",
            "value": "the per-group value",
        },
    )
    valid = ~pl.col("value").is_nan()
    outer = per_group.group_by([*levels, "metric", "k"]).agg(
        # Sorting first makes each mean independent of row order.
        pl.col("value").filter(valid).sort().mean().fill_null(float("nan")).alias("value"),
        valid.sum().cast(pl.Int64).alias("n_subgroups"),
        (~valid).sum().cast(pl.Int64).alias("n_nan_subgroups"),
    )
    counts = outer.group_by("metric", "k").agg(
        pl.col("n_subgroups").sum(), pl.col("n_nan_subgroups").sum()
    )
    summary = aggregate.macro(outer.select("metric", "k", "value"))
    return summary.join(counts.collect(), on=["metric", "k"], how="left", nulls_equal=True).select(
        SUMMARY_COLUMNS
    )
