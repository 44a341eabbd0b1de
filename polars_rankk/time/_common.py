"""Shared checks and helpers of the time-aware modules: log validation, cutoffs, durations.

Not public: use the functions `polars_rankk.time` exports (splits, audit, sessions …).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Literal, TypeAlias

import polars as pl

from polars_rankk.core.inputs.spec import (
    align_ids,
    check_numeric,
    example_row,
    require_columns,
    to_lazy,
    value_checks,
)
from polars_rankk.core.types import FrameLike

#: A point in time: a datetime or date (Datetime / Date columns) or an int (integer clocks).
TimePoint: TypeAlias = datetime | date | int
#: A length of time: a Polars duration string (``"30m"``, ``"1d"``, ``"1w"``, ``"1mo"``), a
#: timedelta, or an int for integer clocks.
Duration: TypeAlias = str | timedelta | int

#: Column of the per-user cutoff in `TemporalSplit.cutoffs`, in the truth and in audits.
CUTOFF = "cutoff"


def is_time(dtype: pl.DataType) -> bool:
    """Datetime, Date or integer: the dtypes a timestamp may have."""
    return isinstance(dtype, pl.Datetime) or dtype == pl.Date or dtype.is_integer()


def check_log(
    log: FrameLike,
    *,
    table: str = "log",
    user: str,
    item: str | None,
    timestamp: str,
    value: str | None = None,
    check_values: bool = True,
) -> tuple[pl.LazyFrame, pl.DataType]:
    """Validate an interaction log; return it lazy with the dtype of its timestamp column.

    Missing columns, a timestamp that is not Datetime/Date/integer and a non-numeric value
    raise at once; nulls (and NaN values) cost one scan, skipped when `check_values` is off.
    """
    frame = to_lazy(log, table)
    names = {"user": user, "item": item, "timestamp": timestamp, "value": value}
    for role, name in names.items():
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{role} must be a column name (str); got {name!r}")
    used = [name for name in names.values() if name is not None]
    if len(set(used)) != len(used):
        raise ValueError(f"user, item, timestamp and value must be distinct columns; got {names}")
    required = {user: "the user id"}
    if item is not None:
        required[item] = "the item id"
    required[timestamp] = "when the interaction happened (Date, Datetime or integer)"
    if value is not None:
        required[value] = "the interaction's value, a relevance grade"
    schema = require_columns(frame, table, required)
    show = used
    dtype = schema[timestamp]
    if not is_time(dtype):
        example = example_row(frame, pl.lit(True), show)
        raise TypeError(
            f"{table} column {timestamp!r} must be a Datetime, Date or integer timestamp; it "
            f"has dtype {dtype}, e.g. row {example}. Parse it first, e.g. "
            f"pl.col({timestamp!r}).str.to_datetime()"
        )
    if value is not None:
        check_numeric(frame, table, value, schema[value], "a relevance grade", show)
    if check_values:
        checks = [
            (column, pl.col(column).is_null(), f"column {column!r} ({meaning}) must not be null")
            for column, meaning in ((user, "the user id"), (item, "the item id"))
            if column is not None
        ]
        checks.append(
            (timestamp, pl.col(timestamp).is_null(), f"column {timestamp!r} must not be null")
        )
        if value is not None:
            grade = pl.col(value).cast(pl.Float64)
            checks.append(
                (value, grade.is_null() | grade.is_nan(), f"column {value!r} must be a number")
            )
        value_checks(frame, table, checks, show)
    return frame, dtype


def cutoff_literal(cutoff: object, dtype: pl.DataType, *, name: str = "cutoff") -> pl.Expr:
    """`cutoff` as a literal of the timestamp column's dtype; a TypeError when they differ.

    Polars would compare an integer with a datetime silently; this refuses it.
    """
    if isinstance(dtype, pl.Datetime):
        zone = dtype.time_zone
        if isinstance(cutoff, datetime):
            if (cutoff.tzinfo is not None) != (zone is not None):
                raise TypeError(
                    f"{name} {cutoff!r} and the timestamp column (dtype {dtype}) must both "
                    f"carry a time zone or both be naive"
                )
            literal = pl.lit(cutoff)
            if zone is not None:
                literal = literal.dt.convert_time_zone(zone)
            return literal.dt.cast_time_unit(dtype.time_unit)
        if isinstance(cutoff, date):
            literal = pl.lit(cutoff).cast(pl.Datetime(dtype.time_unit))
            return literal if zone is None else literal.dt.replace_time_zone(zone)
    elif dtype == pl.Date:
        if isinstance(cutoff, date) and not isinstance(cutoff, datetime):
            return pl.lit(cutoff, dtype=pl.Date)
    elif dtype.is_integer() and isinstance(cutoff, int) and not isinstance(cutoff, bool):
        return pl.lit(cutoff, dtype=pl.Int64)
    raise TypeError(
        f"{name} {cutoff!r} ({type(cutoff).__name__}) cannot be compared with a timestamp of "
        f"dtype {dtype}: give a datetime (or date) for Datetime columns, a date for Date "
        f"columns, an int for integer columns"
    )


def cutoff_table(
    cutoffs: FrameLike, *, user: str, dtype: pl.DataType, check_values: bool = True
) -> pl.LazyFrame:
    """Validate a per-user cutoff table (`user`, ``cutoff``): one cutoff per user, cast to
    the timestamp dtype."""
    frame = to_lazy(cutoffs, "cutoffs")
    schema = require_columns(
        frame, "cutoffs", {user: "the user id", CUTOFF: "the user's cutoff time"}
    )
    given = schema[CUTOFF]
    compatible = (
        (isinstance(dtype, pl.Datetime) and isinstance(given, pl.Datetime | pl.Date))
        or (dtype == pl.Date and given == pl.Date)
        or (dtype.is_integer() and given.is_integer())
    )
    if isinstance(dtype, pl.Datetime) and isinstance(given, pl.Datetime):
        compatible = (dtype.time_zone is None) == (given.time_zone is None)
    if not compatible:
        raise TypeError(
            f"cutoffs column {CUTOFF!r} has dtype {given}, which cannot be compared with the "
            f"timestamp dtype {dtype} (time zones must agree too)"
        )
    cutoff = pl.col(CUTOFF)
    if isinstance(dtype, pl.Datetime):
        if given == pl.Date:
            cutoff = cutoff.cast(pl.Datetime(dtype.time_unit))
            if dtype.time_zone is not None:
                cutoff = cutoff.dt.replace_time_zone(dtype.time_zone)
        else:
            if dtype.time_zone is not None:
                cutoff = cutoff.dt.convert_time_zone(dtype.time_zone)
            cutoff = cutoff.dt.cast_time_unit(dtype.time_unit)
    elif dtype.is_integer():
        cutoff = cutoff.cast(pl.Int64)
    frame = frame.select(user, cutoff.alias(CUTOFF))
    if check_values:
        checks = [
            (user, pl.col(user).is_null(), f"column {user!r} must not be null"),
            (CUTOFF, pl.col(CUTOFF).is_null(), f"column {CUTOFF!r} must not be null"),
            (user, pl.len().over(user) > 1, "each user must have one cutoff"),
        ]
        value_checks(frame, "cutoffs", checks, [user, CUTOFF])
    return frame


def duration_text(duration: Duration, what: str, dtype: pl.DataType | None = None) -> str:
    """A duration as Polars' duration string, for a timestamp of `dtype`.

    A Date column moves in whole days, and Polars' date ranges take only day-based strings, so
    a timedelta becomes ``"<n>d"`` there; elsewhere it is an exact length in microseconds.
    """
    if isinstance(duration, timedelta):
        if dtype == pl.Date:
            if duration % timedelta(days=1):
                raise ValueError(
                    f"{what} {duration!r} is not a whole number of days, but the timestamp "
                    f"column is a Date: use whole days (e.g. timedelta(days=7) or '1w'), or a "
                    f"Datetime column"
                )
            return f"{duration.days}d"
        return f"{duration // timedelta(microseconds=1)}us"
    if isinstance(duration, str):
        return duration
    raise TypeError(f"{what} must be a duration string like '1d' or a timedelta; got {duration!r}")


def offset(
    moment: pl.Expr, duration: Duration, dtype: pl.DataType, *, what: str, backwards: bool = False
) -> pl.Expr:
    """`moment` moved by `duration` (forwards, or backwards), for a timestamp of `dtype`.

    Checks that the duration is positive and understood, raising ValueError/TypeError.
    """
    if dtype.is_integer():
        if isinstance(duration, bool) or not isinstance(duration, int):
            raise TypeError(f"{what} must be an int for integer timestamps; got {duration!r}")
        if duration <= 0:
            raise ValueError(f"{what} must be positive; got {duration!r}")
        return moment - duration if backwards else moment + duration
    text = duration_text(duration, what, dtype)
    base = pl.lit(datetime(2000, 1, 1)).cast(dtype)
    try:
        moved = pl.select(base.dt.offset_by(text) > base).item()
    except pl.exceptions.PolarsError:
        raise ValueError(
            f"{what} {duration!r} is not a duration Polars understands: use e.g. '30m', '1d', "
            f"'1w', '1mo' or a timedelta"
        ) from None
    if not moved:
        raise ValueError(f"{what} must be a positive duration for dtype {dtype}; got {duration!r}")
    return moment.dt.offset_by(f"-{text}" if backwards else text)


class Cutoff:
    """A global or per-user cutoff, applied to any table with a user and a time column."""

    def __init__(self, cutoff: TimePoint | FrameLike, user: str, check_values: bool) -> None:
        self.value = cutoff
        self.user = user
        self.check_values = check_values

    def attach(
        self, frame: pl.LazyFrame, column: str, table: str, *, keep_all: bool = False
    ) -> pl.LazyFrame:
        """`frame` with the cutoff that applies to each row; rows of users without one drop
        (or keep a null cutoff with `keep_all`)."""
        dtype = frame.collect_schema()[column]
        if not is_time(dtype):
            raise TypeError(
                f"{table} column {column!r} must be a Datetime, Date or integer time; it has "
                f"dtype {dtype}"
            )
        frame = frame.drop(CUTOFF, strict=False)
        if isinstance(self.value, pl.DataFrame | pl.LazyFrame):
            per_user = cutoff_table(
                self.value, user=self.user, dtype=dtype, check_values=self.check_values
            )
            frame, per_user = align_ids(frame, per_user, [self.user], (table, "cutoffs"))
            how: Literal["left", "inner"] = "left" if keep_all else "inner"
            return frame.join(per_user, on=self.user, how=how, maintain_order="left")
        literal = cutoff_literal(self.value, dtype, name="cutoff")
        return frame.with_columns(literal.alias(CUTOFF))
