"""The lazy plan of a counterfactual estimate: each logged row's importance weights under the
click model, the impressions that inform each rank, and the sums per (group, new rank).

Every estimator reads the same sums. For a logged row (item d shown at position k with reward
c, logging propensity p) and a placement of d by the new policy at rank r <= K with
probability pi (1 for a ranking; see `new_policy`):

- ``weight`` w multiplies the reward: summed over an informing impression, w * c estimates
  the expected reward at rank r without bias;
- ``control`` u has expectation 1 summed over an informing impression's rows at rank r (for
  marginals: the placement probabilities' sum, 1), which is what self-normalisation divides
  by and what the doubly robust correction subtracts the reward model with.

Position-based model (examination theta): w = pi theta_r / (theta_k p), u = pi / p, and every
impression informs every rank (theta carries a position's clicks to any rank).
Item-position model (Li et al., KDD 2018, independent-item IPS): w = u = pi [k = r] / p, and
the impressions that show position r inform rank r. Cascade (McInerney et al., KDD 2020,
reward-interaction IPS; p: probability of the logged prefix through k): w = u = pi [the
logged prefix through k is the new ranking's] / p, and the impressions that show positions
1..r inform rank r.
"""

from __future__ import annotations

import polars as pl

from polars_rankk.core.kernel import logged as kernel_logged
from polars_rankk.counterfactual.new_policy import (
    PREDICTED,
    PROBABILITY,
    RANK,
    SAMPLE,
    ClickModel,
    Columns,
)

WEIGHT = "__weight"
CONTROL = "__control"
DISPLAY = "__display"
INFORMING = "impressions"
#: A placement's slot: one number per (group, rank), so that the per-slot tables join on one
#: integer column (a join on the keys and the rank costs several times more).
SLOT = "__slot"
#: A placement's group, numbered from 0 (`numbered_slots`).
GROUP = "__group"
#: A group's number of logged lists (its impressions, or 1 without an impression column).
LISTS = "__log_impressions"
#: The sums every estimator reads, per (group, rank) or per (group, impression, rank).
SUMS = ("weighted_reward", "control", "predicted_control", "direct", "reward")
#: The weights' statistics per slot, for the diagnostics.
WEIGHTS = ("__largest_weight", "__weight_sum", "__weight_squares", "__weighted_rows")


def numbered_slots(placements: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The placements with their group's number (`GROUP`, from 0) and slot (`SLOT`)."""
    numbers = placements.select(keys).unique().with_row_index(GROUP)
    return placements.join(numbers, on=keys, how="left").with_columns(_slot())


def _slot() -> pl.Expr:
    """`SLOT` of a row with `GROUP` and `RANK`: the group's number in the high 32 bits, the
    rank in the low (a rank is below 2^31: the cut-off is an int32 in the kernel)."""
    return (pl.col(GROUP).cast(pl.Int64) * 2**32 + pl.col(RANK)).alias(SLOT)


def in_slot_order(placements: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The placements sorted by (keys, rank), unless they already are (the kernel's ranking
    comes in that order, its rows in any order)."""
    if slot_ordered(placements, keys):
        return placements
    return placements.sort([*keys, RANK])


def slot_ordered(frame: pl.DataFrame, keys: list[str]) -> bool:
    """Whether `frame`'s rows are in strictly increasing (keys, rank) order: each row's
    (keys, rank) compared with the row before's, key by key. Keys whose comparison may
    disagree with `sort`'s order (floats: NaN, -0.0) or nulls read as not sorted."""
    by = [*keys, RANK]
    if frame.height < 2:
        return True
    if any(not (dtype.is_integer() or dtype == pl.String) for dtype in frame.select(by).dtypes):
        return False
    later: pl.Expr = pl.lit(False)
    for name in reversed(by):
        column, before = pl.col(name), pl.col(name).shift(1)
        later = (column > before) | ((column == before) & later)
    return bool(frame.select(later.slice(1).fill_null(False).all()).item())


def logged_rows(
    log: pl.LazyFrame, columns: Columns, *, reward_as_read: bool = False
) -> pl.LazyFrame:
    """The log's columns the estimate reads, typed: position Int64, reward and the logging
    propensity (`DISPLAY`, 1 when not given) Float64; with `reward_as_read` the reward as the
    log has it (the kernel reads integer rewards without a Float64 copy)."""
    reward = pl.col(columns.reward)
    return log.select(
        *columns.lists,
        pl.col(columns.item),
        pl.col(columns.position).cast(pl.Int64),
        reward if reward_as_read else reward.cast(pl.Float64),
        (pl.col(columns.propensity) if columns.propensity else pl.lit(1.0))
        .cast(pl.Float64)
        .alias(DISPLAY),
    )


def weighted_rows(
    logged: pl.LazyFrame,
    placements: pl.LazyFrame,
    columns: Columns,
    model: ClickModel,
    examination: pl.DataFrame | None,
    clip: float | None,
) -> pl.LazyFrame:
    """The logged rows of items the new policy places at ranks 1..K, one per placement, with
    its rank, probability, weight and control.

    Other rows weigh 0 under every model (a cascade prefix through a row the new ranking does
    not place cannot match, and the matched rows still count their positions), so they are
    left out.
    """
    on = [*columns.policy_keys, columns.item]
    on = [name for name in on if name != SAMPLE]
    rows = logged.join(placements, on=on, how="inner")
    rank, position = pl.col(RANK), pl.col(columns.position)
    probability, display = pl.col(PROBABILITY), pl.col(DISPLAY)
    if model == "pbm":
        assert examination is not None  # the caller resolves it for this model
        theta = examination.lazy()
        rows = rows.join(
            theta.rename({"position": columns.position, "examination": "__theta_logged"}),
            on=columns.position,
            how="left",
        ).join(theta.rename({"position": RANK, "examination": "__theta_new"}), on=RANK, how="left")
        control = probability / display
        weight = control * pl.col("__theta_new") / pl.col("__theta_logged")
    elif model == "item_position":
        weight = control = probability * (rank == position).cast(pl.Float64) / display
    else:
        drawn = [*columns.lists, *([SAMPLE] if columns.sample else [])]
        matches = (rank == position).fill_null(False)
        # The prefix matches through k when every logged position 1..k holds the new ranking's
        # item: the running count of matches in position order equals the position.
        matched = matches.cast(pl.Int64).cum_sum().over(drawn, order_by=position)
        weight = control = probability * (matched == position).cast(pl.Float64) / display
    if clip is not None:
        # The whole weight is capped, as Open Bandit Pipeline caps pi_e / pi_b.
        weight, control = weight.clip(upper_bound=clip), control.clip(upper_bound=clip)
    return rows.with_columns(weight.alias(WEIGHT), control.alias(CONTROL))


def informing(
    logged: pl.LazyFrame,
    columns: Columns,
    model: ClickModel,
    k: int,
    *,
    by_impression: bool,
    counts: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """The impressions that inform each rank 1..`k`: per (group, rank) their count
    (`INFORMING`), or with `by_impression` one row per (group, impression, rank) informed.

    Position-based: every impression informs every rank (per group, its `LISTS` of `counts`
    where given, one row per group without the rank: the log is not read again).
    Item-position: the impressions that show position r. Cascade: those that show positions
    1..r. Without an impression column a group is one logged list.
    """
    lists = columns.lists
    ranks = pl.LazyFrame({RANK: range(1, k + 1)}, schema={RANK: pl.Int64})
    position = pl.col(columns.position)
    if model == "pbm" and counts is not None and not by_impression:
        # Every rank of a group alike: one row per group.
        return counts.select(*columns.keys, pl.col(LISTS).alias(INFORMING))
    if model == "pbm":
        shown = logged.select(lists).unique().join(ranks, how="cross")
    elif model == "item_position":
        shown = logged.filter(position <= k).select(*lists, position.alias(RANK)).unique()
    else:
        ordered = position.unique().sort()
        depth = (ordered == pl.int_range(1, ordered.len() + 1)).cast(pl.Int64).cum_prod().sum()
        shown = (
            logged.group_by(lists)
            .agg(depth.alias("__depth"))
            .join(ranks, how="cross")
            .filter(pl.col(RANK) <= pl.col("__depth"))
            .drop("__depth")
        )
    if by_impression:
        return shown
    return shown.group_by([*columns.keys, RANK]).agg(pl.len().cast(pl.Float64).alias(INFORMING))


def rank_sums(
    rows: pl.LazyFrame,
    placements: pl.LazyFrame,
    informed: pl.LazyFrame,
    groups: pl.LazyFrame,
    columns: Columns,
    *,
    by_impression: bool,
    read: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """One row per slot of the new policy (group, or with `by_impression` (group,
    impression), and rank): the sums every estimator reads, and the informing impressions
    (null: the log lacks the group; 0: no impression of the group shows the rank).

    `groups` are the log's groups. `informed` is `informing`'s table, by impression when
    `by_impression` or when the marginals are given per impression. ``direct`` is the reward
    model's value of the slot summed over its informing impressions (per impression: the
    placements' probability times prediction, summed). `read`: the per-slot sums as the
    kernel reads them off the log (`kernel_slot_sums`), in place of summing `rows` here: row
    for row beside `placements` (a ranking's, one per slot), so that no slot is grouped or
    joined by its number.
    """
    per_slot = [*columns.keys, RANK]
    by = [*columns.lists, RANK] if by_impression else per_slot
    numbered = not (by_impression or columns.per_impression)
    # The slots' own tables join on their number; per impression, on the names.
    on = [SLOT] if numbered else by
    reward, probability = pl.col(columns.reward), pl.col(PROBABILITY)
    predicted = (
        pl.col(PREDICTED).fill_null(0.0)
        if PREDICTED in placements.collect_schema()
        else pl.lit(0.0)
    )
    positive = pl.col(WEIGHT).filter(pl.col(WEIGHT) > 0)
    # A row twice for one (list, draw, item) at a slot: an item repeated in a logged list.
    distinct = [name for name in (*columns.lists, SAMPLE, columns.item) if name not in by]
    distinct = [name for name in distinct if name in rows.collect_schema()]
    shown = pl.struct(distinct) if len(distinct) > 1 else pl.col(distinct[0])
    # The informing impressions per slot, or per group where every rank is informed alike.
    informs = [name for name in per_slot if name in informed.collect_schema()]
    if read is not None and numbered:
        # A ranking read by the kernel: one placement per slot, its sums on its row.
        value = (probability * predicted).alias("__value")
        slots = pl.concat([placements.select(*per_slot, value), read], how="horizontal")
        if informs == columns.keys:
            # Every rank of a group informed alike (the position-based model): the groups and
            # their informing impressions are joined first (one row per group), so that the
            # slots are joined once, not once for each.
            listed = groups.join(informed.select(*informs, INFORMING), on=informs, how="left")
            return _filled(_joined(slots, listed, columns).with_columns(_direct()), numbered)
        slots = slots.join(
            informed.select(*informs, INFORMING), on=informs, how="left", maintain_order="left"
        )
        return _slot_rows(slots.with_columns(_direct()), groups, columns, numbered)
    sums = rows.group_by(on).agg(
        (pl.len() > shown.n_unique()).alias("__repeated"),
        (reward * pl.col(WEIGHT)).sum().alias("weighted_reward"),
        pl.col(CONTROL).sum().alias("control"),
        (pl.col(CONTROL) * predicted).sum().alias("predicted_control"),
        (reward * probability).sum().alias("reward"),
        # What the diagnostics read of the weights, reduced over slots afterwards.
        pl.col(WEIGHT).max().alias("__largest_weight"),
        positive.sum().alias("__weight_sum"),
        (positive**2).sum().alias("__weight_squares"),
        positive.len().alias("__weighted_rows"),
    )
    if numbered:
        # One row per slot: the reward model's value of the slot, and the informing
        # impressions and the direct term (the slot's value times their number).
        values = placements.group_by(SLOT).agg(
            *(pl.col(name).first() for name in (*per_slot, GROUP)),
            (probability * predicted).sum().alias("__value"),
        )
        slots = values.join(informed.select(*informs, INFORMING), on=informs, how="left")
        slots = slots.select(SLOT, *per_slot, _direct(), INFORMING)
    else:
        # The reward model's value of each slot: per impression where the marginals are.
        value_keys = [name for name in (*columns.policy_keys, RANK) if name != SAMPLE]
        values = placements.group_by(value_keys).agg(
            (probability * predicted).sum().alias("__value")
        )
        direct = (
            informed.join(values, on=value_keys, how="inner")
            .group_by(by)
            .agg(pl.col("__value").sum().alias("direct"))
        )
        counts = informed.group_by(by).agg(pl.len().cast(pl.Float64).alias(INFORMING))
        slots = placements.select(per_slot).unique()
        if by_impression:
            # Every impression with a placed item, informing or not (its clicks count as
            # labels).
            listed = pl.concat([informed.select(by), sums.select(by)]).unique()
            slots = slots.join(listed, on=per_slot, how="inner")
        slots = slots.join(direct, on=by, how="left").join(counts, on=by, how="left")
    return _slot_rows(slots.join(sums, on=on, how="left"), groups, columns, numbered)


def _direct() -> pl.Expr:
    """A slot's direct term: the reward model's value of the slot (``__value``) times its
    informing impressions."""
    return (pl.col("__value") * pl.col(INFORMING)).alias("direct")


def _slot_rows(
    slots: pl.LazyFrame, groups: pl.LazyFrame, columns: Columns, numbered: bool
) -> pl.LazyFrame:
    """`rank_sums`' rows from the slots with their sums: a slot no logged row informs sums to
    0, and its informing impressions are null where the log lacks its group."""
    return _filled(_joined(slots, groups, columns), numbered)


def _joined(slots: pl.LazyFrame, groups: pl.LazyFrame, columns: Columns) -> pl.LazyFrame:
    """The slots with their group's row of `groups` (the log's) and ``__logged``."""
    logged = groups.with_columns(pl.lit(True).alias("__logged"))
    # In the slots' order: a ranking's placements come sorted by (keys, rank), and so then
    # do the sums (`evaluation._sorted_sums` sorts only what is not).
    return slots.join(logged, on=columns.keys, how="left", maintain_order="left")


def _filled(slots: pl.LazyFrame, numbered: bool) -> pl.LazyFrame:
    """`_slot_rows`' fills from the slots joined to the log's groups (`_joined`)."""
    return (
        slots.with_columns(pl.col(name).fill_null(0.0) for name in (*SUMS, *WEIGHTS, INFORMING))
        .with_columns(pl.col("__repeated").fill_null(False))
        .with_columns(pl.when(pl.col("__logged")).then(pl.col(INFORMING)).alias(INFORMING))
        .drop("__logged", *([SLOT] if numbered else []), "__value", strict=False)
    )


def kernel_reads(columns: Columns, model: ClickModel) -> bool:
    """Whether the kernel is to read the per-slot sums (`kernel_slot_sums`; it may still
    refuse a dtype)."""
    return columns.form == "ranking" and model != "cascade" and kernel_logged.loaded()


def kernel_slot_sums(
    log: pl.LazyFrame,
    placements: pl.DataFrame,
    columns: Columns,
    model: ClickModel,
    examination: pl.DataFrame | None,
    clip: float | None,
) -> pl.LazyFrame | None:
    """`rank_sums`' per-slot sums of a ranking (the sums `rows.group_by` gives, row for
    row beside `placements`), read off `log` (its `logged_rows`, the reward as the log has it)
    by the kernel in one pass: no join of the log with the placements. None where the kernel
    does not read them: marginals and draws (a slot's placements are several, each with its
    probability), the cascade model (its weight reads each logged list's whole prefix in
    position order), or what `logged.logged_sums` refuses; those take `weighted_rows` and
    `rank_sums`' sums in Polars.
    """
    if columns.form != "ranking" or model == "cascade":
        return None
    # Without a propensity column the kernel reads 1 itself (no column of ones is built).
    display = DISPLAY if columns.propensity else None
    read = kernel_logged.LogColumns(
        columns.keys, columns.item, RANK, columns.position, columns.reward, display,
        columns.impression,
    )  # fmt: skip
    logged = logged_rows(log, columns, reward_as_read=True)
    sums = kernel_logged.logged_sums(placements, logged, read, model, examination, clip)
    if sums is None:
        return None
    if PREDICTED in placements.columns:
        predicted = placements.lazy().select(pl.col(PREDICTED).fill_null(0.0).alias("__predicted"))
        sums = pl.concat([predicted, sums], how="horizontal")
    else:
        sums = sums.with_columns(pl.lit(0.0).alias("__predicted"))
    return sums.select(
        "__repeated",
        "weighted_reward",
        "control",
        (pl.col("control") * pl.col("__predicted")).alias("predicted_control"),
        "reward",
        *WEIGHTS,
    )


def kernel_reward_model(
    log: pl.LazyFrame, placements: pl.DataFrame, columns: Columns, examination: pl.DataFrame
) -> pl.LazyFrame | None:
    """The placements with DR's reward model fitted under the position-based model
    (`PREDICTED`), read by the kernel in one pass over `log` and set row for row beside
    them; None where the kernel does not read it (`logged.item_model`)."""
    read = kernel_logged.LogColumns(
        columns.keys, columns.item, RANK, columns.position, columns.reward, None, None
    )
    model = kernel_logged.item_model(placements, log, read, examination)
    if model is None:
        return None
    return pl.concat([placements.lazy(), model.rename({"predicted_reward": PREDICTED})],
                     how="horizontal")  # fmt: skip


def weight_summary(sums: pl.DataFrame) -> dict[str, float]:
    """The largest weight, the effective sample size of the non-zero weights
    ((sum w)^2 / sum w^2) and how many rows carry one, from `rank_sums`' slots."""
    totals = sums.select(
        pl.col("__largest_weight").max().fill_null(0.0),
        pl.col("__weight_sum", "__weight_squares", "__weighted_rows").sum().cast(pl.Float64),
    ).row(0)
    largest, total, squares, rows = (float(value) for value in totals)
    return {
        "largest_weight": largest,
        "effective_sample_size": total**2 / squares if squares else 0.0,
        "weighted_rows": rows,
    }


def repeated_items(rows: pl.LazyFrame, columns: Columns) -> pl.LazyFrame:
    """A logged list that shows an item the new policy places twice (at most one row): it
    would be weighted twice."""
    drawn = [SAMPLE] if columns.sample else []
    by = [*columns.lists, *drawn, columns.item, RANK]
    return (
        rows.group_by(by)
        .agg(pl.len().alias("__times"))
        .filter(pl.col("__times") > 1)
        .select(*columns.lists, columns.item)
        .head(1)
    )
