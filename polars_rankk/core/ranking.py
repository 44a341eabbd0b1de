"""How a group is ranked, and what each ranked row contributes: one implementation, two paths.

`evaluate` ranks every group of a lazy table in one window per group (``partition`` is the group
keys; intermediate results are staged as columns); the expression API ranks the rows of one group
inside ``group_by().agg()`` or ``.over()`` (``partition`` is a constant; intermediate results stay
inline). Both call the functions below with the same policy, so invalid scores, de-duplication,
tie order, per-row terms and the ideal DCG are the same code, and the same rows give the same
numbers, bit for bit: every floating-point sum is a cumulative sum in rank order inside the group.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import polars as pl

from polars_rankk.core.columns import (
    BPREF,
    CUMULATED,
    DCG,
    ERR,
    FIRST_HIT,
    HITS,
    JUDGED,
    PRECISION_SUM,
    RBP,
    RBP_JUDGED,
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
    mapped = policy.gain_map()
    if mapped:
        chain = pl.when(grade == next(iter(mapped))).then(pl.lit(mapped[next(iter(mapped))]))
        for listed, value in list(mapped.items())[1:]:
            chain = chain.when(grade == listed).then(pl.lit(value))
        gain = chain.otherwise(gain)
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


def row_terms(
    window: Window,
    grade: pl.Expr,
    policy: Policy,
    *,
    needs: Iterable[str] = CUMULATED,
    judged: pl.Expr | None = None,
    n_relevant: pl.Expr | None = None,
    n_nonrelevant: pl.Expr | None = None,
) -> dict[str, pl.Expr]:
    """What each ranked row adds to hits, DCG, the precision sum, the reciprocal rank and the
    first hit: exactly, or as expectations over each tie block under ``ties="expected"``.

    `needs` adds the judgement-aware terms (`polars_rankk.core.columns.OPTIONAL`) a metric
    reads; `judged` flags rows with a judgement (default: every row), and bpref reads the
    group's R_g and its count of judged non-relevant truth items.
    """
    wanted = set(needs)
    if policy.ties == "expected":
        terms = _expected_terms(window, grade, policy)
    else:
        terms = _deterministic_terms(window, grade, policy)
    optional = wanted - set(terms)
    if optional:
        judged = pl.lit(True) if judged is None else judged
        terms |= _judgement_terms(
            window, grade, policy, optional, judged, n_relevant, n_nonrelevant
        )
    return terms


def err_stop(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """ERR's chance that a user stops at a row: (2^g - 1) / 2^g_max, g clipped to [0, g_max]."""
    top = float(policy.err_max_grade)
    clipped = grade.clip(lower_bound=0.0, upper_bound=top)
    scale = pl.lit(2.0**top, dtype=pl.Float64)
    return (pl.lit(2.0, dtype=pl.Float64).pow(clipped) - 1.0) / scale


def rbp_weight(rank: pl.Expr, policy: Policy) -> pl.Expr:
    """RBP's weight of a rank: (1 - p) p^(rank - 1)."""
    p = float(policy.rbp_persistence)
    return (1.0 - p) * pl.lit(p, dtype=pl.Float64).pow((rank - 1).cast(pl.Float64))


def _judgement_terms(
    window: Window,
    grade: pl.Expr,
    policy: Policy,
    wanted: set[str],
    judged: pl.Expr,
    n_relevant: pl.Expr | None,
    n_nonrelevant: pl.Expr | None,
) -> dict[str, pl.Expr]:
    """Terms of judged@K, err@K, rbp@K (with its residual) and bpref.

    Under ``ties="expected"`` judged@K and rbp@K are linear in each row's label, so their
    expectation is a block's mean label times the row's weight; err@K and bpref depend on the
    order inside a block in a way that has no such closed form here, so they raise.
    """
    if policy.ties == "expected":
        unsupported = sorted(
            name for stat, name in ((ERR, "err"), (BPREF, "bpref")) if stat in wanted
        )
        if unsupported:
            raise ValueError(
                f"{' and '.join(unsupported)} have no exact expectation over tie orderings "
                f"here: Policy(ties='expected') cannot evaluate them; choose another tie "
                f"policy (e.g. 'trec_eval' or 'pessimistic') for them"
            )
    staged = window.stage(
        {
            "_rk_judged_row": judged.cast(pl.Int64),
            "_rk_relevant_row": (grade >= policy.relevance_threshold).cast(pl.Int64),
            "_rk_rbp_row": rbp_gain(grade, policy),
        }
    )
    judged_row, relevant_row = staged["_rk_judged_row"], staged["_rk_relevant_row"]
    rbp_row = staged["_rk_rbp_row"]
    if policy.ties == "expected":
        so_far = window.stage(
            {
                "_rk_judged_so_far": window.cumulative(judged_row),
                "_rk_rbp_so_far": window.cumulative(rbp_row),
            }
        )
        blocks = window.stage(
            {
                "_rk_block_size": window.block_last(window.rank)
                - window.block_first(window.rank)
                + 1,
                "_rk_block_judged": window.block_last(so_far["_rk_judged_so_far"])
                - window.block_first(so_far["_rk_judged_so_far"] - judged_row),
                "_rk_block_rbp": window.block_last(so_far["_rk_rbp_so_far"])
                - window.block_first(so_far["_rk_rbp_so_far"] - rbp_row),
            }
        )
        size = blocks["_rk_block_size"].cast(pl.Float64)
        judged_share = blocks["_rk_block_judged"].cast(pl.Float64) / size
        rbp_share = blocks["_rk_block_rbp"] / size
    else:
        judged_share = judged_row.cast(pl.Float64)
        rbp_share = rbp_row
    terms: dict[str, pl.Expr] = {}
    if JUDGED in wanted:
        terms[JUDGED] = judged_share
    if RBP in wanted:
        terms[RBP] = rbp_share * rbp_weight(window.rank, policy)
    if RBP_JUDGED in wanted:
        terms[RBP_JUDGED] = judged_share * rbp_weight(window.rank, policy)
    if ERR in wanted:
        stop = err_stop(grade, policy)
        # The chance of reaching a row is the product of the earlier rows' (1 - stop): a
        # running sum of logarithms (stop < 1, so each is finite).
        log_go_on = window.stage({"_rk_log_go_on": (1.0 - stop).log()})["_rk_log_go_on"]
        reached = window.cumulative(log_go_on) - log_go_on
        terms[ERR] = stop * reached.exp() / window.rank.cast(pl.Float64)
    if BPREF in wanted:
        if n_relevant is None or n_nonrelevant is None:
            raise ValueError("bpref needs the group's relevant and judged non-relevant counts")
        nonrelevant_row = judged_row * (1 - relevant_row)
        before = window.stage({"_rk_nonrelevant_so_far": window.cumulative(nonrelevant_row)})[
            "_rk_nonrelevant_so_far"
        ]
        # trec_eval m_bpref.c: 1 - min(n, R) / min(N, R) for the n judged non-relevant rows
        # above a relevant row; 1 when there are none.
        penalty = pl.min_horizontal(before, n_relevant).cast(pl.Float64) / pl.min_horizontal(
            n_nonrelevant, n_relevant
        ).cast(pl.Float64)
        preserved = pl.when(before > 0).then(1.0 - penalty).otherwise(1.0)
        terms[BPREF] = (relevant_row * judged_row).cast(pl.Float64) * preserved
    return terms


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
