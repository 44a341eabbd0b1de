"""The lazy plan of a counterfactual estimate: the new ranking's top K, each logged row's
importance weights under the click model, and the sums per (group, new rank).

Every estimator reads the same per-(group, rank) sums. For a logged row (item d shown at
position k with reward c) whose item the new ranking places at rank r <= K:

- ``weight`` w multiplies the reward: sum over an impression of w * c estimates the expected
  reward at rank r without bias;
- ``control`` u has expectation 1 summed over an impression's rows at rank r, which is what
  self-normalisation divides by and what the doubly robust correction subtracts the reward
  model with.

Position-based model (examination theta, display probability p of the item, default 1):
w = theta_r / (theta_k * p), u = 1 / p. Item-position model (p: logging probability of d at k;
Li et al., KDD 2018, independent-item IPS): w = u = [k = r] / p. Cascade (p: probability of the
logged prefix through k; McInerney et al., KDD 2020, reward-interaction IPS): w = u = [the
logged prefix through k is the new ranking's] / p.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.policy import Policy

ClickModel = Literal["pbm", "cascade", "item_position"]

RANK = "new_rank"
PREDICTED = "predicted_reward"
IMPRESSION = "__impression"
WEIGHT = "__weight"
CONTROL = "__control"
DISPLAY = "__display"


@dataclass(frozen=True)
class Columns:
    """The column names of the two tables."""

    keys: list[str]
    item: str
    position: str
    reward: str
    score: str
    propensity: str | None
    impression: str | None


def new_top(
    candidates: pl.LazyFrame, columns: Columns, k: int, policy: Policy, predicted: str | None
) -> pl.LazyFrame:
    """The new ranking's top `k` per group: keys, item, rank and (if given) predicted reward.

    Ranked by the policy's tie order (the keys `evaluate` ranks by); invalid scores rank last
    and a repeated item keeps its best rank. Only the rows that can reach the top `k` are
    ordered: those scoring at least the (k + repeated rows)-th best score of their group.
    """
    keys = [pl.col(key) for key in columns.keys]
    score = ranking.lowest_if_invalid(ranking.score_value(pl.col(columns.score)))
    frame = candidates.with_row_index("__row").with_columns(score.alias("__score"))
    try:
        order, descending = ranking.tie_order(
            policy, pl.col("__score"), pl.col(columns.item), None, pl.col("__row")
        )
    except ValueError:
        raise ValueError(
            f"ties={policy.ties!r} orders ties by relevance, which a counterfactual evaluation "
            "does not have; use ties='item_asc', 'trec_eval' or 'input_order'"
        ) from None
    best = pl.col("__score")
    repeated = (pl.len() - pl.col(columns.item).n_unique()).cast(pl.UInt32)
    reachable = best >= best.top_k(pl.lit(k, dtype=pl.UInt32) + repeated).min()
    listed = [columns.item, *([predicted] if predicted else [])]
    # One sort per group: the item (and its prediction) in rank order, each item's first copy.
    ordered = pl.struct(listed).sort_by(order, descending=descending)
    first = ordered.struct.field(columns.item).is_first_distinct()
    return (
        frame.filter(reachable.over(keys))
        .group_by(keys)
        .agg(ordered.filter(first).head(k).alias("__top"))
        .with_columns(pl.int_ranges(1, pl.col("__top").list.len() + 1).alias(RANK))
        .explode(["__top", RANK])
        .unnest("__top")
        .select(*columns.keys, columns.item, RANK, *([predicted] if predicted else []))
        .rename({predicted: PREDICTED} if predicted else {})
    )


def weighted_rows(
    log: pl.LazyFrame,
    top: pl.LazyFrame,
    columns: Columns,
    model: ClickModel,
    examination: pl.DataFrame | None,
    clip: float | None,
) -> pl.LazyFrame:
    """The logged rows of items in the new top K, with their new rank, weight and control.

    Other rows weigh 0 under every model (a cascade prefix through a row not in the top K
    cannot match, and the matched rows still count their positions), so they are left out.
    """
    keys = columns.keys
    impression = [pl.col(columns.impression)] if columns.impression else []
    rows = log.select(
        *keys,
        *impression,
        pl.col(columns.item),
        pl.col(columns.position).cast(pl.Int64).alias(columns.position),
        pl.col(columns.reward).cast(pl.Float64).alias(columns.reward),
        (pl.col(columns.propensity) if columns.propensity else pl.lit(1.0))
        .cast(pl.Float64)
        .alias(DISPLAY),
    ).join(top.select(*keys, columns.item, RANK), on=[*keys, columns.item], how="inner")
    rank = pl.col(RANK)
    position = pl.col(columns.position)
    display = pl.col(DISPLAY)
    if model == "pbm":
        assert examination is not None  # the caller resolves it for this model
        theta = examination.lazy()
        rows = rows.join(
            theta.rename({"position": columns.position, "examination": "__theta_logged"}),
            on=columns.position,
            how="left",
        ).join(theta.rename({"position": RANK, "examination": "__theta_new"}), on=RANK, how="left")
        weight = pl.col("__theta_new") / (pl.col("__theta_logged") * display)
        control = 1.0 / display
    elif model == "item_position":
        weight = control = (rank == position).cast(pl.Float64) / display
    else:
        group = [*keys, *([columns.impression] if columns.impression else [])]
        matches = (rank == position).fill_null(False)
        # The prefix matches through k when every logged position 1..k holds the new ranking's
        # item: the running count of matches in position order equals the position.
        matched = matches.cast(pl.Int64).cum_sum().over(group, order_by=position)
        weight = control = (matched == position).cast(pl.Float64) / display
    if clip is not None:
        weight, control = weight.clip(upper_bound=clip), control.clip(upper_bound=clip)
    return rows.with_columns(weight.alias(WEIGHT), control.alias(CONTROL))


def per_rank_sums(
    rows: pl.LazyFrame, log: pl.LazyFrame, top: pl.LazyFrame, columns: Columns
) -> pl.LazyFrame:
    """One row per group and new rank 1..K of the new ranking: the sums every estimator reads,
    and the group's number of logged impressions (null: the log lacks the group)."""
    keys = columns.keys
    reward = pl.col(columns.reward)
    sums = rows.group_by([*keys, RANK]).agg(
        (reward * pl.col(WEIGHT)).sum().alias("weighted_reward"),
        pl.col(CONTROL).sum().alias("control"),
        reward.sum().alias("reward"),
    )
    impressions = log.group_by(keys).agg(
        (pl.col(columns.impression).n_unique() if columns.impression else pl.lit(1))
        .cast(pl.Float64)
        .alias("impressions")
    )
    zeros = [pl.col(name).fill_null(0.0) for name in ("weighted_reward", "control", "reward")]
    return (
        top.join(sums, on=[*keys, RANK], how="left")
        .with_columns(zeros)
        .join(impressions, on=keys, how="left")
    )


def weight_summary(rows: pl.LazyFrame) -> pl.LazyFrame:
    """The largest weight, the effective sample size of the non-zero weights
    ((sum w)^2 / sum w^2) and how many rows carry one."""
    weight = pl.col(WEIGHT).filter(pl.col(WEIGHT) > 0)
    return rows.select(
        pl.col(WEIGHT).max().fill_null(0.0).alias("largest_weight"),
        (weight.sum() ** 2 / (weight**2).sum()).fill_nan(0.0).alias("effective_sample_size"),
        weight.len().alias("weighted_rows"),
    )
