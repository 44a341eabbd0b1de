"""A counterfactual estimate's per-slot sums, read off the log by the compiled kernel.

The kernel's ``logged_sums`` reads the new ranking's placements (one row per slot: keys,
item, rank) and then the log's rows in one call, and returns one row per placement: the sums
over the logged rows that show the placement's item in its group (each row weighted by the
click model) and whether a logged list shows the item twice. No join of the log with the
placements runs in Polars; the reference path (`polars_rankk.counterfactual.plan`) joins
and sums them there, and the tests hold the two to each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from polars_rankk.core.kernel import loader as native

_SUMS = "_rk_logged"
_AT, _REWARD, _DISPLAY = "__at", "__reward", "__display"
#: The largest logged position the examination is sent for, as a list from position 1.
_DEEPEST = 1_000_000

LoggedModel = Literal["pbm", "item_position"]
#: Reward dtypes the kernel reads as they are (as floats, each to the value a cast to Float64
#: gives): a click column needs no Float64 copy of the log's rows for each pass.
_INTEGER_REWARDS = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)


@dataclass(frozen=True)
class LogColumns:
    """The columns the pass reads: of both tables the keys and the item; of the placements
    the rank; of the log the position (Int64), reward (Float64, or integers read as they are) and,
    if given, logging propensity (Float64; None: 1) and the logged list's id within its group."""

    keys: list[str]
    item: str
    rank: str
    position: str
    reward: str
    display: str | None
    list: str | None


def loaded() -> bool:
    """Whether the kernel is loaded (and not switched off): `logged_sums` may read."""
    return native.status().loaded


def logged_sums(
    placements: pl.DataFrame,
    log: pl.LazyFrame,
    columns: LogColumns,
    model: LoggedModel,
    examination: pl.DataFrame | None,
    clip: float | None,
) -> pl.LazyFrame | None:
    """Per row of `placements`, in its order: ``weighted_reward``, ``control``, ``reward``,
    ``__largest_weight`` (0 where no row shows the item), ``__weight_sum``,
    ``__weight_squares``, ``__weighted_rows`` (UInt32) and ``__repeated`` (Boolean).

    Each placement is a ranking's (probability 1); `examination` (``position``,
    ``examination``) is read under ``"pbm"``. None where the kernel cannot read them (not
    loaded, a column's dtype it does not read, the log's dtypes unlike the placements').

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.kernel.logged import LogColumns, logged_sums
    >>> placed = pl.DataFrame({"q": [1, 1], "item": [7, 8], "rank": [1, 2]})
    >>> log = pl.LazyFrame({"q": [1, 1], "item": [8, 9], "position": [1, 2],
    ...     "click": [1.0, 0.0], "display": [0.5, 1.0]})
    >>> read = LogColumns(["q"], "item", "rank", "position", "click", "display", None)
    >>> sums = logged_sums(placed, log, read, "item_position", None, None)
    >>> sums is None or sums.collect()["control"].to_list() == [0.0, 0.0]
    True
    """
    schema, log_schema = placements.schema, log.collect_schema()
    ids = [*columns.keys, columns.item]
    listed = [columns.list] if columns.list else []
    kinds = {name: native.kernel_kind(schema[name]) for name in ids}
    kinds.update({name: native.kernel_kind(log_schema[name]) for name in listed})
    theta = _theta(examination) if model == "pbm" else []
    if (
        not native.status().loaded
        or theta is None
        or any(kind is None for kind in kinds.values())
        or any(native.kernel_kind(log_schema[name]) != kinds[name] for name in ids)
    ):
        return None
    sent = [native.kernel_input(name, schema[name]).alias(name) for name in ids]
    got = [native.kernel_input(name, log_schema[name]).alias(name) for name in [*ids, *listed]]
    # The placements' rank and the log's position share a column; the placements' reward,
    # propensity and list are never read.
    displayed = [columns.display] if columns.display else []
    no_list = [pl.lit(None, pl.String if kinds[name] == "text" else pl.Int64).alias(name)
               for name in listed]  # fmt: skip
    reward, no_reward = _reward(log_schema, columns.reward)
    placed = placements.lazy().select(
        *sent,
        pl.col(columns.rank).cast(pl.Int64).alias(_AT),
        no_reward,
        *(pl.lit(1.0, pl.Float64).alias(_DISPLAY) for _ in displayed),
        *no_list,
    )
    logged = log.select(
        *got[: len(ids)],
        pl.col(columns.position).cast(pl.Int64).alias(_AT),
        reward,
        *(pl.col(name).cast(pl.Float64).alias(_DISPLAY) for name in displayed),
        *got[len(ids) :],
    )
    frame = pl.concat([placed, logged], how="vertical")
    kwargs = {
        "keys": [kinds[name] for name in columns.keys],
        "item": kinds[columns.item],
        "list": kinds[columns.list] if columns.list else None,
        "model": model,
        "theta": theta,
        "clip": clip,
        "placed": placements.height,
        "display": columns.display is not None,
    }
    sums = pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name="logged_sums",
        args=[pl.col(name) for name in frame.collect_schema().names()],
        kwargs=kwargs,
        is_elementwise=False,
        changes_length=True,
    ).alias(_SUMS)
    return (
        frame.select(sums)
        .unnest(_SUMS)
        .with_columns(
            pl.col("__weighted_rows").cast(pl.UInt32), pl.col("__repeated").cast(pl.Boolean)
        )
    )


def _reward(log_schema: pl.Schema, reward: str) -> tuple[pl.Expr, pl.Expr]:
    """The log's reward as the kernel reads it, and the placements' (never read) of its dtype."""
    dtype = log_schema[reward]
    if isinstance(dtype, _INTEGER_REWARDS):
        return pl.col(reward).alias(_REWARD), pl.lit(0, dtype).alias(_REWARD)
    return pl.col(reward).cast(pl.Float64).alias(_REWARD), pl.lit(0.0, pl.Float64).alias(_REWARD)


def _theta(examination: pl.DataFrame | None) -> list[float] | None:
    """The examination as a list from position 1 (NaN where the table has no position);
    None where the deepest position is past `_DEEPEST` or below 1."""
    if examination is None or not examination.height:
        return None
    positions = examination["position"].cast(pl.Int64)
    deepest, shallowest = positions.max(), positions.min()
    if not isinstance(deepest, int) or not isinstance(shallowest, int):
        return None
    if deepest > _DEEPEST or shallowest < 1:
        return None
    every = pl.DataFrame({"position": range(1, deepest + 1)}, schema={"position": pl.Int64})
    table = examination.select(pl.col("position").cast(pl.Int64), pl.col("examination"))
    theta = every.join(table, on="position", how="left")["examination"]
    values: list[float] = theta.cast(pl.Float64).fill_null(float("nan")).to_list()
    return values


def item_model(
    placements: pl.DataFrame,
    log: pl.LazyFrame,
    columns: LogColumns,
    examination: pl.DataFrame,
) -> pl.LazyFrame | None:
    """The doubly robust estimate's reward model under the position-based model, per row of
    `placements` in its order (one column, ``predicted_reward``): theta_r times the item's
    sum(reward) / sum(theta_k) over every log row of the item (at position k, pooled over
    groups), null where the log never shows the item; the model `_fitted_reward_model` fits
    in Polars (`polars_rankk/counterfactual/evaluation.py`), without its group-by of the log
    by item and its joins back to the placements. None where the kernel cannot read it (as
    `logged_sums`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.kernel.logged import LogColumns, item_model
    >>> placed = pl.DataFrame({"q": [1, 1], "item": [7, 8], "rank": [1, 2]})
    >>> log = pl.LazyFrame({"q": [2, 1], "item": [7, 9], "position": [2, 1], "click": [1.0, 0.0]})
    >>> theta = pl.DataFrame({"position": [1, 2], "examination": [1.0, 0.5]})
    >>> read = LogColumns(["q"], "item", "rank", "position", "click", None, None)
    >>> model = item_model(placed, log, read, theta)
    >>> model is None or model.collect()["predicted_reward"].to_list() == [2.0, None]
    True
    """
    schema, log_schema = placements.schema, log.collect_schema()
    kind = native.kernel_kind(schema[columns.item])
    theta = _theta(examination)
    if (
        not native.status().loaded
        or theta is None
        or kind is None
        or native.kernel_kind(log_schema[columns.item]) != kind
    ):
        return None
    reward, no_reward = _reward(log_schema, columns.reward)
    placed = placements.lazy().select(
        native.kernel_input(columns.item, schema[columns.item]).alias(columns.item),
        pl.col(columns.rank).cast(pl.Int64).alias(_AT),
        no_reward,
    )
    logged = log.select(
        native.kernel_input(columns.item, log_schema[columns.item]).alias(columns.item),
        pl.col(columns.position).cast(pl.Int64).alias(_AT),
        reward,
    )
    frame = pl.concat([placed, logged], how="vertical")
    model = pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name="item_model",
        args=[pl.col(columns.item), pl.col(_AT), pl.col(_REWARD)],
        kwargs={"item": kind, "theta": theta, "placed": placements.height},
        is_elementwise=False,
        changes_length=True,
    ).alias(_SUMS)
    return frame.select(model).unnest(_SUMS)
