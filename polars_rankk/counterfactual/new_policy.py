"""The new policy as rows: for each group (and, for marginals given per impression, each
impression; for drawn rankings, each draw) the items it places at ranks 1..K, the probability
of each placement and, for the doubly robust estimator, the predicted reward there.

Three forms of a new policy reach the same table:

- a **ranking** (``score``): ranked by the policy's tie order, as `evaluate` ranks; each of
  its top K items has probability 1 at its rank;
- **marginals** (``probability=``): the candidates list (group [, impression], item,
  position, probability), Open Bandit Pipeline's ``action_dist`` as rows; positions above K
  are not read;
- **draws** (``sample=``): several rankings per group, one per sample id; each draw's top K
  has probability 1 / (the group's number of draws), so that every linear estimate is the
  mean over draws; the draw's id is kept for the cascade model, whose weight reads a draw's
  whole prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from polars_rankk.core.kernel import ranking as kernel_ranking
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.policy import Policy

RANK = "new_rank"
PROBABILITY = "__probability"
PREDICTED = "predicted_reward"
SAMPLE = "__sample"

ClickModel = Literal["pbm", "cascade", "item_position"]
FormKind = Literal["ranking", "probability", "sample"]


@dataclass(frozen=True)
class Columns:
    """The column names of the two tables and the form of the new policy."""

    keys: list[str]
    item: str
    position: str
    reward: str
    score: str
    propensity: str | None
    impression: str | None
    probability: str | None = None
    sample: str | None = None
    #: Marginals given per impression (the candidates hold the log's impression column).
    per_impression: bool = False

    @property
    def form(self) -> FormKind:
        if self.probability is not None:
            return "probability"
        return "sample" if self.sample is not None else "ranking"

    @property
    def lists(self) -> list[str]:
        """The columns of one logged list: the keys and, if given, the impression."""
        return [*self.keys, *([self.impression] if self.impression else [])]

    @property
    def policy_keys(self) -> list[str]:
        """The columns one row of the new policy's table is keyed by, besides item and rank."""
        impression = [self.impression] if self.per_impression and self.impression else []
        return [*self.keys, *impression, *([SAMPLE] if self.sample else [])]


def policy_rows(
    candidates: pl.LazyFrame, columns: Columns, k: int, policy: Policy, predicted: str | None
) -> pl.LazyFrame:
    """The new policy's placements at ranks 1..`k`: `Columns.policy_keys`, item, `RANK`,
    `PROBABILITY` and (if given) `PREDICTED`."""
    if columns.form == "probability":
        assert columns.probability is not None
        keep = [*columns.policy_keys, columns.item]
        return candidates.filter(
            pl.col(columns.position) <= k, pl.col(columns.probability) > 0
        ).select(
            *keep,
            pl.col(columns.position).cast(pl.Int64).alias(RANK),
            pl.col(columns.probability).cast(pl.Float64).alias(PROBABILITY),
            *([pl.col(predicted).cast(pl.Float64).alias(PREDICTED)] if predicted else []),
        )
    if columns.form == "sample":
        assert columns.sample is not None
        drawn = candidates.rename({columns.sample: SAMPLE})
        draws = drawn.group_by(columns.keys).agg(
            (1.0 / pl.col(SAMPLE).n_unique()).alias(PROBABILITY)
        )
        top = ranked_top(drawn, [*columns.keys, SAMPLE], columns, k, policy, predicted)
        return top.join(draws, on=columns.keys, how="left")
    top = ranked_top(candidates, columns.keys, columns, k, policy, predicted)
    return top.with_columns(pl.lit(1.0).alias(PROBABILITY))


def ranked_top(
    candidates: pl.LazyFrame,
    keys: list[str],
    columns: Columns,
    k: int,
    policy: Policy,
    predicted: str | None,
) -> pl.LazyFrame:
    """The top `k` of each ranking (one per `keys`): keys, item, rank and (if given) predicted
    reward.

    Ranked by the policy's tie order (the keys `evaluate` ranks by); invalid scores rank last
    and a repeated item keeps its best rank. Only the rows that can reach the top `k` are
    ordered: those scoring at least the (k + repeated rows)-th best score of their group.
    """
    value = ranking.score_value(pl.col(columns.score))
    if predicted is None:
        # The kernel ranks as `evaluate` ranks; below, the same ranking in Polars (the
        # reference, and the path of a reward model's column, which rides with its row).
        top = kernel_ranking.ranked_top(candidates, keys, columns.item, value, policy, k)
        if top is not None:
            return top.rename({"rank": RANK})
    score = ranking.lowest_if_invalid(value)
    by = [pl.col(key) for key in keys]
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
        frame.filter(reachable.over(by))
        .group_by(keys)
        .agg(ordered.filter(first).head(k).alias("__top"))
        .with_columns(pl.int_ranges(1, pl.col("__top").list.len() + 1).alias(RANK))
        .explode(["__top", RANK])
        .unnest("__top")
        .select(
            *keys,
            columns.item,
            RANK,
            *([pl.col(predicted).cast(pl.Float64).alias(PREDICTED)] if predicted else []),
        )
    )
