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

from polars_rankk.core.columns import GRADE, IS_POOLED_UNJUDGED
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

    def group_max(self, value: pl.Expr) -> pl.Expr:
        """The largest `value` of the row's group, on every row."""
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

    def group_max(self, value: pl.Expr) -> pl.Expr:
        return value.max().over(self._keys)


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

    def group_max(self, value: pl.Expr) -> pl.Expr:
        return value.max()


def gain_of(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """nDCG gain of a grade: the grade itself, 2^grade - 1, or 1 at or above the relevance
    threshold (else 0); negative grades gain 0. Grades listed in ``Policy.gains`` take their
    mapped gain; under ``nonrelevant_gain="zero"`` grades below the threshold gain nothing."""
    if policy.gain == "binary":
        gain = (grade >= policy.relevance_threshold).cast(pl.Float64)
    else:
        clipped = grade.clip(lower_bound=0.0)
        if policy.gain == "exponential":
            gain = pl.lit(2.0, dtype=pl.Float64).pow(clipped) - 1.0
        else:
            gain = clipped
    # Listed grades take their mapped gain (the last listed first, so each is checked once).
    for listed, value in policy.gain_map().items():
        gain = pl.when(grade == listed).then(pl.lit(value)).otherwise(gain)
    if policy.nonrelevant_gain == "zero":
        gain = pl.when(grade >= policy.relevance_threshold).then(gain).otherwise(0.0)
    return gain.cast(pl.Float64)


def mapped_below_one(policy: Policy) -> list[float]:
    """Grades at or below 0 that ``Policy.gains`` gives a gain: only judged rows hold them."""
    return [grade for grade, gain in policy.gain_map().items() if grade <= 0 and gain != 0]


def unjudged_grade(policy: Policy) -> float:
    """The grade an unjudged row is ranked with: 0, or -inf when ``Policy.gains`` gives a
    gain to a grade <= 0 (trec_eval maps only judged grades)."""
    return float("-inf") if mapped_below_one(policy) else 0.0


def judged_rows(truth: pl.LazyFrame, grade: pl.Expr, policy: Policy) -> pl.LazyFrame:
    """The truth rows that are judgements: under ``negative_grades="unjudged"`` a negative
    grade is none (trec_eval)."""
    if policy.negative_grades == "unjudged":
        return truth.filter(grade >= 0)
    return truth


def with_pooled_unjudged(
    chain: pl.LazyFrame,
    negative: pl.LazyFrame | None,
    keys: list[str],
    item: str,
    policy: Policy,
) -> pl.LazyFrame:
    """`chain` (ranked rows) flagged where the row's item is in the pool without a judgement
    (`IS_POOLED_UNJUDGED`): a negative grade under ``negative_grades="unjudged"`` (trec_eval's
    pooled but unjudged, which infAP counts apart). `negative`: the truth rows of negative
    grade (keys, item), or None for pre-labelled rows, whose own negative label says it."""
    if policy.negative_grades != "unjudged":
        return chain
    if negative is None:
        flag = (pl.col(GRADE) < 0).fill_null(False)
        return chain.with_columns(flag.alias(IS_POOLED_UNJUDGED))
    flags = negative.select(*keys, item, pl.lit(True).alias(IS_POOLED_UNJUDGED))
    joined = chain.join(flags, on=[*keys, item], how="left")
    return joined.with_columns(pl.col(IS_POOLED_UNJUDGED).fill_null(False))


def condenses(policy: Policy, *, has_truth: bool) -> bool:
    """Whether unjudged candidates leave before ranking (Sakai's condensed list): with a truth
    table, or pre-labelled under ``negative_grades="unjudged"`` (a negative grade is then the
    only unjudged kind)."""
    return policy.unjudged == "condense" and (has_truth or policy.negative_grades == "unjudged")


def may_add(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """Rows whose grade can add to a term: a positive grade, or one `Policy.gains` maps."""
    listed = mapped_below_one(policy)
    return (grade > 0) | grade.is_in(listed) if listed else grade > 0


def rbp_gain(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """What rbp@K counts for a row: 1 when relevant (``rbp_grades="binary"``) or its grade
    (``"graded"``, ranx), 0 below the relevance threshold."""
    relevant = grade >= policy.relevance_threshold
    if policy.rbp_grades == "graded":
        return pl.when(relevant).then(grade).otherwise(0.0).cast(pl.Float64)
    return relevant.cast(pl.Float64)


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
        # trec_eval: sim descending, then strcmp(docno) descending; copies of one item kept
        # under duplicates="keep" in input order (the row negated: one flag for all keys).
        item_text = _required(item, "item").cast(pl.String)
        return [score, item_text, *(-r.cast(pl.Int64) for r in last)], True
    if ties == "input_order":
        return [-score, _required(row, "row")], False
    if ties in ("pessimistic", "optimistic"):
        # An unjudged row (null grade) has gain 0: it sorts as grade 0, never first or last
        # because of its null.
        gain = _required(grade, "grade").fill_null(0.0)
        return [-score, gain if ties == "pessimistic" else -gain, *_optional(item), *last], False
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


def read_at(
    cumulated: pl.Expr, rank: pl.Expr, k: int | pl.Expr, *, may_fall: bool = False
) -> pl.Expr:
    """A running sum read at cut-off `k`: 0 for an empty ranking. A non-decreasing sum is its
    largest value within `k`; one that `may_fall` (a gain below 0: `falls`) is read at its
    last rank within `k`, not at its peak."""
    within = pl.when(rank <= k).then(cumulated)
    if may_fall:
        return within.sort_by(rank).drop_nulls().last().fill_null(0)
    return within.max().fill_null(0)


def read_whole(cumulated: pl.Expr, rank: pl.Expr, *, may_fall: bool = False) -> pl.Expr:
    """A running sum read at the list's end (`read_at` at its last rank): 0.0 for an empty
    ranking."""
    whole = read_at(cumulated, rank, rank.max(), may_fall=True) if may_fall else cumulated.max()
    return whole.fill_null(0.0)


def falls(policy: Policy) -> bool:
    """Whether a running sum of gains may fall down the ranking: ``Policy.gains`` gives some
    grade a negative gain."""
    return any(gain < 0 for gain in policy.gain_map().values())


def ideal_cumulative(gains: pl.Expr) -> pl.Expr:
    """Running ideal DCG over one group's gains sorted best first (equal gains interchange)."""
    ordered = gains.sort(descending=True)
    return (ordered / discount(pl.int_range(1, ordered.len() + 1, dtype=pl.Int64))).cum_sum()
