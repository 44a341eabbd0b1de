"""The two tables of a counterfactual evaluation, checked and aligned: every column named by
its argument, the id columns cast to one dtype as `evaluate` casts them, and each value check
an error naming the table, the column and one offending row."""

from __future__ import annotations

import polars as pl

from polars_rankk.core.inputs.normalize import align_ids
from polars_rankk.counterfactual import checks
from polars_rankk.counterfactual.new_policy import ClickModel, Columns

#: How far a position's marginals may sum from 1 (rounding of a computed distribution).
MARGINAL_TOLERANCE = 1e-6
ZERO_BASED = "positions 1, 2, ... (Open Bandit Pipeline's count from 0: add 1)"


def aligned(
    log: pl.LazyFrame, candidates: pl.LazyFrame, columns: Columns
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The tables with their join columns (keys, item, and the impression where the
    marginals are given per impression) cast to one dtype each, as `evaluate` casts them."""
    joined = [*columns.keys, columns.item]
    if columns.per_impression and columns.impression:
        joined.append(columns.impression)
    return align_ids(log, candidates, joined, names=("log", "candidates"))


def check(
    log: pl.LazyFrame,
    candidates: pl.LazyFrame,
    columns: Columns,
    model: ClickModel,
    reward_model: str | None,
    *,
    k: int,
    clicks_only: bool,
) -> None:
    """Every check of the two tables, the value checks in one query (an item repeated in a
    logged list is found on the weighted rows: `plan.repeated_items`)."""
    _require(log, candidates, columns, reward_model)
    checks.require_integer(log, "log", columns.position)
    checks.require_numeric(log, "log", columns.reward, "a click 0/1 or a graded reward")
    position, reward = pl.col(columns.position), pl.col(columns.reward)
    value_checks = [
        (log, "log", columns.position, position.fill_null(0) < 1, f"{ZERO_BASED}; no nulls"),
        (log, "log", columns.reward, reward.is_null(), "a reward on every row (no nulls)"),
    ]
    # An id that is null would join nothing (or everything null) without a word.
    ids = {
        "log": (log, [*columns.lists, columns.item]),
        "candidates": (
            candidates,
            [
                *columns.keys,
                *([columns.impression] if columns.per_impression and columns.impression else []),
                *([columns.sample] if columns.sample else []),
                columns.item,
            ],
        ),
    }
    for name, (frame, id_columns) in ids.items():
        value_checks += [
            (frame, name, column, pl.col(column).is_null(), "an id on every row (no nulls)")
            for column in id_columns
        ]
    if clicks_only:
        value_checks.append(
            (
                log,
                "log",
                columns.reward,
                ~reward.cast(pl.Float64).is_in([0.0, 1.0]),
                "a click 0/1 (or a Boolean) for the examination EM, which reads clicks; "
                "pass examination= for graded rewards",
            )
        )
    if columns.propensity:
        checks.require_numeric(log, "log", columns.propensity, "a probability in (0, 1]")
        p = pl.col(columns.propensity).cast(pl.Float64)
        bad = ~((p > 0) & (p <= 1)).fill_null(False)
        value_checks.append((log, "log", columns.propensity, bad, "a probability in (0, 1]"))
    if model == "cascade":
        # A prefix is read position by position: one row per position of each logged list.
        repeated = pl.len().over([*columns.lists, columns.position]) > 1
        value_checks.append(
            (log, "log", columns.position, repeated, "one row per position of each logged list")
        )
    if reward_model:
        checks.require_numeric(candidates, "candidates", reward_model, "a predicted reward")
    if columns.probability:
        value_checks += _marginal_checks(candidates, columns, k)
    checks.check_values(value_checks)


def _require(
    log: pl.LazyFrame, candidates: pl.LazyFrame, columns: Columns, reward_model: str | None
) -> None:
    keys = dict.fromkeys(columns.keys, "group_by=")
    logged = {
        **keys,
        columns.item: "item=",
        columns.position: "position=",
        columns.reward: "reward=",
        **({columns.propensity: "propensity= (pscore=)"} if columns.propensity else {}),
        **({columns.impression: "impression="} if columns.impression else {}),
    }
    checks.require_columns(log, "log", logged)
    listed = {**keys, columns.item: "item="}
    if columns.probability:
        listed |= {columns.position: "position=", columns.probability: "probability="}
    else:
        listed[columns.score] = "score="
    if columns.sample:
        listed[columns.sample] = "sample="
    if reward_model:
        listed[reward_model] = "reward_model="
    checks.require_columns(candidates, "candidates", listed)


def _marginal_checks(
    candidates: pl.LazyFrame, columns: Columns, k: int
) -> list[tuple[pl.LazyFrame, str, str, pl.Expr, str]]:
    """The marginals: probabilities in [0, 1], positions from 1, one row per (slot, item)
    and each position's probabilities summing to 1. An item's probabilities over positions
    are not checked (each position is estimated on its own, as Open Bandit Pipeline reads
    ``action_dist``)."""
    assert columns.probability is not None
    checks.require_integer(candidates, "candidates", columns.position)
    checks.require_numeric(candidates, "candidates", columns.probability, "a probability")
    slot = [*columns.policy_keys, columns.position]
    probability = pl.col(columns.probability).cast(pl.Float64)
    within = candidates.filter(pl.col(columns.position) <= k)
    per_position = within.group_by(slot).agg(probability.sum().alias("probability_sum"))
    repeated = pl.len().over([*slot, columns.item]) > 1
    total = pl.col("probability_sum")
    return [
        (
            candidates,
            "candidates",
            columns.probability,
            ~((probability >= 0) & (probability <= 1)).fill_null(False),
            "a probability in [0, 1]",
        ),
        (
            candidates,
            "candidates",
            columns.position,
            pl.col(columns.position).fill_null(0) < 1,
            f"{ZERO_BASED}; no nulls",
        ),
        (
            candidates,
            "candidates",
            columns.item,
            repeated,
            "listed once per (group, position) of the marginals",
        ),
        (
            per_position,
            "candidates",
            columns.probability,
            (total - 1).abs() > MARGINAL_TOLERANCE,
            "a distribution over items at each position (summing to 1 per group and "
            "position, as Open Bandit Pipeline's action_dist; an empty slot is an item of "
            "its own)",
        ),
    ]


def refuse_repeated(found: pl.DataFrame, columns: Columns) -> None:
    """Raise naming the logged list of `plan.repeated_items`' row, if any."""
    if found.height:
        row = found.row(0, named=True)
        item = row.pop(columns.item)
        raise ValueError(
            f"the log's column {columns.item!r} must be shown once per logged list (group "
            "keys" + (f" and {columns.impression!r}" if columns.impression else "") + "); "
            f"the list {row} shows item {item!r} twice, which would weigh it twice. "
            "De-duplicate the log, or give each showing its own impression="
        )
