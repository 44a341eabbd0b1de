"""How a group is ranked, and what each ranked row contributes: one implementation, two paths.

`evaluate` ranks every group of a lazy table in one window per group (``partition`` is the group
keys; intermediate results are staged as columns); the expression API ranks the rows of one group
inside ``group_by().agg()`` or ``.over()`` (``partition`` is a constant; intermediate results stay
inline). Both call the functions below with the same policy, so invalid scores, de-duplication,
tie order, per-row terms and the ideal DCG are the same code, and the same rows give the same
numbers, bit for bit: every floating-point sum is a cumulative sum in rank order inside the group.
"""

from __future__ import annotations

from typing import Protocol

import polars as pl

from polars_rankk.core.columns import (
    DCG,
    FIRST_HIT,
    HITS,
    PRECISION_SUM,
    RECIPROCAL_RANK,
)
from polars_rankk.core.policy import Policy

#: Tie policies that look at relevance to order a tie block.
RELEVANCE_AWARE_TIES = frozenset({"pessimistic", "optimistic", "expected"})


class Window(Protocol):
    """The order-dependent operations of one group ranked: running sums in rank order and
    values read at the first or last row of each tie block (a run of equal scores)."""

    #: Rank 1, 2, … of each row.
    rank: pl.Expr

    def stage(self, columns: dict[str, pl.Expr]) -> dict[str, pl.Expr]:
        """Make `columns` available; return an expression that reads each of them."""
        ...

    def cumulative(self, term: pl.Expr) -> pl.Expr:
        """Running sum of a per-row term in rank order."""
        ...

    def block_first(self, value: pl.Expr) -> pl.Expr:
        """`value` at the first row of the row's tie block."""
        ...

    def block_last(self, value: pl.Expr) -> pl.Expr:
        """`value` at the last row of the row's tie block."""
        ...


class Windows:
    """Every group of a lazy table at once (`evaluate`): windows over the group keys, ordered by
    a rank column; intermediate results staged as columns."""

    def __init__(self, frame: pl.LazyFrame, keys: list[str], score: str, rank: str) -> None:
        self.frame = frame
        self.rank = pl.col(rank)
        self._keys = keys
        self._block = [*keys, score]

    def stage(self, columns: dict[str, pl.Expr]) -> dict[str, pl.Expr]:
        self.frame = self.frame.with_columns(
            expression.alias(name) for name, expression in columns.items()
        )
        return {name: pl.col(name) for name in columns}

    def cumulative(self, term: pl.Expr) -> pl.Expr:
        return term.cum_sum().over(self._keys, order_by=self.rank)

    def block_first(self, value: pl.Expr) -> pl.Expr:
        return value.first().over(self._block, order_by=self.rank)

    def block_last(self, value: pl.Expr) -> pl.Expr:
        return value.last().over(self._block, order_by=self.rank)


class Sorted:
    """One group whose rows are already in rank order (the expression API): running sums and
    block reads are positional, so they work inside ``group_by().agg()``."""

    def __init__(self, score: pl.Expr) -> None:
        self.rank = pl.int_range(1, score.len() + 1, dtype=pl.Int64)
        blocks = score.rle_id()
        position = pl.int_range(score.len(), dtype=pl.Int64)
        self._first = position.filter(blocks.is_first_distinct()).gather(blocks)
        self._last = position.filter(blocks.is_last_distinct()).gather(blocks)

    def stage(self, columns: dict[str, pl.Expr]) -> dict[str, pl.Expr]:
        return columns

    def cumulative(self, term: pl.Expr) -> pl.Expr:
        return term.cum_sum()

    def block_first(self, value: pl.Expr) -> pl.Expr:
        return value.gather(self._first)

    def block_last(self, value: pl.Expr) -> pl.Expr:
        return value.gather(self._last)


def gain_of(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """nDCG gain of a grade: the grade itself, or 2^grade - 1; negative grades gain 0."""
    grade = grade.clip(lower_bound=0.0)
    if policy.gain == "exponential":
        return pl.lit(2.0, dtype=pl.Float64).pow(grade) - 1.0
    return grade


def discount(rank: pl.Expr) -> pl.Expr:
    """log2(rank + 1), the DCG discount of a rank."""
    return (rank + 1).cast(pl.Float64).log(2)


def score_value(score: pl.Expr, *, lower_is_better: bool = False) -> pl.Expr:
    """The score as Float64, higher first; a rank column (lower first) is negated.

    ``+ 0.0`` folds -0.0 into 0.0 so that the two tie.
    """
    value = score.cast(pl.Float64)
    if lower_is_better:
        value = -value
    return value + 0.0


def is_valid_score(score: pl.Expr) -> pl.Expr:
    """Null, NaN and ±inf are invalid scores (`Policy.invalid_scores`)."""
    return score.is_finite().fill_null(False)


def lowest_if_invalid(score: pl.Expr) -> pl.Expr:
    """``invalid_scores="lowest"``: invalid scores rank last, as one tie block."""
    return pl.when(is_valid_score(score)).then(score).otherwise(float("-inf"))


def tie_order(
    policy: Policy,
    score: pl.Expr,
    item: pl.Expr | None,
    grade: pl.Expr | None,
    row: pl.Expr | None,
) -> tuple[list[pl.Expr], bool]:
    """Sort keys (and one descending flag for all) that rank by score, then break ties.

    One flag for all keys is what a window's ``order_by`` takes, hence the negated scores.
    """
    ties = policy.ties
    # The input row, when given, settles what the policy leaves equal (repeated items kept
    # under duplicates="keep"), so that both paths order such rows alike.
    last = _optional(row)
    if ties == "trec_eval":
        # trec_eval: sim descending, then strcmp(docno) descending.
        return [score, _required(item, "item").cast(pl.String), *last], True
    if ties == "input_order":
        return [-score, _required(row, "row")], False
    if ties == "pessimistic":
        return [-score, _required(grade, "grade"), *_optional(item), *last], False
    if ties == "optimistic":
        return [-score, -_required(grade, "grade"), *_optional(item), *last], False
    # item_asc; under "expected" any fixed order will do.
    return [-score, *_optional(item), *last], False


def _required(expression: pl.Expr | None, what: str) -> pl.Expr:
    if expression is None:
        raise ValueError(f"this tie policy needs the {what}")
    return expression


def _optional(expression: pl.Expr | None) -> list[pl.Expr]:
    return [] if expression is None else [expression]


def rank_of(order: list[pl.Expr], descending: bool, partition: list[pl.Expr]) -> pl.Expr:
    """Rank 1, 2, … of each row inside its group, in the order of `tie_order`."""
    return pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(
        partition, order_by=order, descending=descending
    )


def cumulative(term: pl.Expr, partition: list[pl.Expr], rank: pl.Expr) -> pl.Expr:
    """Running sum of a per-row term in rank order inside each group (exact, order-free)."""
    return term.cum_sum().over(partition, order_by=rank)


def read_at(cumulated: pl.Expr, rank: pl.Expr, k: int | pl.Expr) -> pl.Expr:
    """A cumulated (non-decreasing) sum read at cut-off `k`: 0 for an empty ranking."""
    return pl.when(rank <= k).then(cumulated).max().fill_null(0)


def row_terms(window: Window, grade: pl.Expr, policy: Policy) -> dict[str, pl.Expr]:
    """What each ranked row adds to hits, DCG, the precision sum, the reciprocal rank and the
    first hit: exactly, or as expectations over each tie block under ``ties="expected"``."""
    if policy.ties == "expected":
        return _expected_terms(window, grade, policy)
    return _deterministic_terms(window, grade, policy)


def _deterministic_terms(window: Window, grade: pl.Expr, policy: Policy) -> dict[str, pl.Expr]:
    relevant = window.stage({"_rk_relevant": (grade >= policy.relevance_threshold).cast(pl.Int64)})[
        "_rk_relevant"
    ]
    hits_so_far = window.stage({"_rk_hits_so_far": window.cumulative(relevant)})["_rk_hits_so_far"]
    rank = window.rank.cast(pl.Float64)
    first = (relevant == 1) & (hits_so_far == 1)
    return {
        HITS: relevant,
        DCG: gain_of(grade, policy) / discount(window.rank),
        PRECISION_SUM: relevant * hits_so_far / rank,
        RECIPROCAL_RANK: first.cast(pl.Float64) / rank,
        FIRST_HIT: first.cast(pl.Int64),
    }


def _expected_terms(window: Window, grade: pl.Expr, policy: Policy) -> dict[str, pl.Expr]:
    """Per-row expectations over every ordering of each tie block (McSherry & Najork 2008).

    A block is a run of equal scores in one group: `m` rows, `r` relevant, `hb` hits before
    it, position `t` (1-based) inside it. By symmetry each position holds a relevant item with
    probability r/m and the mean gain of the block; the precision term E[rel_i * hits@i] is
    (r/m)(hb + 1 + (t-1)(r-1)/(m-1)); the first relevant item sits at t with probability
    q_{t-1} * r / (m - t + 1), where q_t = P(no relevant among the block's first t) is the
    product of the block's first t miss chances (m - r - u + 1) / (m - u + 1).

    Block totals come from running sums over the whole group read at the block's ends, and the
    product from a running sum of logarithms, so that both paths compute them alike.
    """
    rank = window.rank
    first = window.stage(
        {
            "_rk_relevant": (grade >= policy.relevance_threshold).cast(pl.Int64),
            "_rk_row_gain": gain_of(grade, policy),
        }
    )
    relevant, row_gain = first["_rk_relevant"], first["_rk_row_gain"]
    second = window.stage(
        {
            "_rk_hits_so_far": window.cumulative(relevant),
            "_rk_gain_so_far": window.cumulative(row_gain),
        }
    )
    hits_so_far, gain_so_far = second["_rk_hits_so_far"], second["_rk_gain_so_far"]
    third = window.stage(
        {
            "_rk_start": window.block_first(rank),
            "_rk_m": window.block_last(rank) - window.block_first(rank) + 1,
            "_rk_hb": window.block_first(hits_so_far - relevant),
            "_rk_r": window.block_last(hits_so_far) - window.block_first(hits_so_far - relevant),
            "_rk_block_gain": window.block_last(gain_so_far)
            - window.block_first(gain_so_far - row_gain),
        }
    )
    m = third["_rk_m"].cast(pl.Float64)
    r = third["_rk_r"].cast(pl.Float64)
    t = (rank - third["_rk_start"] + 1).cast(pl.Float64)
    hb = third["_rk_hb"].cast(pl.Float64)
    # The t-th position of the block misses with chance (m - r - t + 1) / (m - t + 1) given
    # that none before it hit; from t = m - r + 1 on, some earlier position surely hit.
    miss = (m - r - t + 1.0) / (m - t + 1.0)
    log_miss = pl.when(miss > 0).then(miss.log()).otherwise(0.0)
    log_so_far = window.stage({"_rk_log_miss_so_far": window.cumulative(log_miss)})[
        "_rk_log_miss_so_far"
    ]
    log_before_block = window.block_first(log_so_far - log_miss)
    none_before = (
        pl.when(t - 1.0 >= m - r + 1.0)
        .then(0.0)
        .otherwise((log_so_far - log_miss - log_before_block).exp())
    )
    rank_float = rank.cast(pl.Float64)
    others = pl.when(m > 1).then((t - 1.0) * (r - 1.0) / (m - 1.0)).otherwise(0.0)
    p_relevant = r / m
    p_first = pl.when(hb == 0).then(none_before * r / (m - t + 1.0)).otherwise(0.0)
    return {
        HITS: p_relevant,
        DCG: third["_rk_block_gain"] / m / discount(rank),
        PRECISION_SUM: p_relevant * (hb + 1.0 + others) / rank_float,
        RECIPROCAL_RANK: p_first / rank_float,
        FIRST_HIT: p_first,
    }


def ideal_cumulative(gains: pl.Expr) -> pl.Expr:
    """Running ideal DCG over one group's gains sorted best first (equal gains interchange)."""
    ordered = gains.sort(descending=True)
    return (ordered / discount(pl.int_range(1, ordered.len() + 1, dtype=pl.Int64))).cum_sum()
