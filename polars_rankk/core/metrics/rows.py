"""One group's rows in rank order, as a per-rank term reads them (`RankedRows`).

Both paths build it: `evaluate` over windows of a lazy table, the expression API over one
sorted group (`polars_rankk.core.metrics.order.Window`). A linear term
(`polars_rankk.core.metrics.algebra`)
reads its labels here, deterministically or as their exact expectation under ``ties="expected"``.
"""

from __future__ import annotations

from functools import cached_property

import polars as pl

from polars_rankk.core.columns import INTERNAL_PREFIX
from polars_rankk.core.metrics.algebra import Linear
from polars_rankk.core.metrics.order import Window, gain_of, may_add, rbp_gain
from polars_rankk.core.policy import Policy


class RankedRows:
    """One group's rows in rank order, as a per-rank term reads them.

    The quantities a term may read are `rank`, `grade`, `gain`, `relevant`, `judged` and
    `first_relevant` (and the group's `n_relevant`). Under ``Policy(ties="expected")`` the same
    names hold each row's expectation over the orderings of its tie block (the block's mean
    grade, gain, share of relevant and judged rows, and the chance that the first relevant item
    of the group sits at the row), so a term that is linear in them given the rank — a weight
    of the rank times a label, summed — is exactly its expectation. Intermediate results are
    computed once, however many terms read them.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.policy import Policy
    >>> from polars_rankk.core.metrics.order import Sorted
    >>> from polars_rankk.core.metrics.terms import RankedRows
    >>> rows = RankedRows(Sorted(pl.col("score")), pl.col("rel"), Policy())
    >>> df = pl.DataFrame({"score": [3.0, 2.0, 1.0], "rel": [0.0, 1.0, 1.0]})
    >>> df.select(first=rows.first_relevant * rows.rank)["first"].to_list()
    [0.0, 2.0, 0.0]
    """

    def __init__(
        self,
        window: Window,
        grade: pl.Expr,
        policy: Policy,
        *,
        judged: pl.Expr | None = None,
        n_relevant: pl.Expr | None = None,
        n_nonrelevant: pl.Expr | None = None,
        pooled_unjudged: pl.Expr | None = None,
    ) -> None:
        self.window = window
        self.policy = policy
        self._grade = grade
        self._judged = pl.lit(True) if judged is None else judged
        self._pooled_unjudged = pl.lit(False) if pooled_unjudged is None else pooled_unjudged
        self._n_relevant = n_relevant
        self._n_nonrelevant = n_nonrelevant
        self.expected = policy.ties == "expected"
        #: What terms read of the rows: "judged", "n_relevant" (to learn a new term's needs).
        self.reads: set[str] = set()

    # -- What a term reads ---------------------------------------------------------------------

    @property
    def rank(self) -> pl.Expr:
        """Rank 1, 2, … of each row (Int64)."""
        return self.window.rank

    @property
    def grade(self) -> pl.Expr:
        """The row's grade, 0 for an unjudged row (under ``ties="expected"``: its block's mean
        grade)."""
        if self.expected:
            return self._block_extra["_rk_block_grade"] / self._m
        return self._grade_read

    @cached_property
    def _grade_read(self) -> pl.Expr:
        # Unjudged rows may be ranked with an internal grade of -inf (`ranking.unjudged_grade`):
        # as a quantity a term reads, they have grade 0.
        return pl.when(self._grade == float("-inf")).then(0.0).otherwise(self._grade)

    @property
    def one(self) -> pl.Expr:
        """1.0 on every row."""
        return pl.lit(1.0, dtype=pl.Float64)

    @property
    def rbp_gain(self) -> pl.Expr:
        """What RBP counts for the row (`Policy.rbp_grades`; under ``ties="expected"``: its
        block's mean)."""
        self.reads.add("rbp_gain")
        if not self.expected:
            return rbp_gain(self._grade, self.policy)
        if self.policy.rbp_grades == "binary":
            return self.relevant
        label = self.stage("rbp_row", rbp_gain(self._grade, self.policy))
        running = self.stage("rbp_so_far", self.cumulative(label))
        return self._block_total(running, label) / self._m

    @property
    def cwl_gain(self) -> pl.Expr:
        """The C/W/L measures' gain of the row, min(max(grade, 0), M) / M with M =
        `Policy.cwl_max_grade` (under ``ties="expected"``: its block's mean)."""
        self.reads.add("cwl_gain")
        top = float(self.policy.cwl_max_grade)
        row = self._grade_read.clip(lower_bound=0.0, upper_bound=top) / top
        if not self.expected:
            return row
        label = self.stage("cwl_gain_row", row)
        running = self.stage("cwl_gain_so_far", self.cumulative(label))
        return self._block_total(running, label) / self._m

    def label(self, name: str) -> pl.Expr:
        """The label `name` of `polars_rankk.core.metrics.algebra.LABELS`."""
        value: pl.Expr = getattr(self, name)
        return value

    def linear(self, term: Linear) -> pl.Expr:
        """A linear term's value on each row, from its declaration."""
        return term.render(self.label, self.rank)

    @property
    def gain(self) -> pl.Expr:
        """The row's gain under `Policy.gain` (under ``ties="expected"``: its block's mean)."""
        self.reads.add("gain")
        if self.expected:
            return self._block["_rk_block_gain"] / self._m
        return gain_of(self._grade, self.policy)

    @property
    def relevant(self) -> pl.Expr:
        """1.0 where the row is relevant, else 0.0 (under ``ties="expected"``: the chance)."""
        if self.expected:
            return self._r / self._m
        return self.relevant_row.cast(pl.Float64)

    @property
    def judged(self) -> pl.Expr:
        """1.0 where the row has a judgement, else 0.0 (under ``ties="expected"``: the chance)."""
        self.reads.add("judged")
        if self.expected:
            return self._block_extra["_rk_block_judged"].cast(pl.Float64) / self._m
        return self.judged_row.cast(pl.Float64)

    @property
    def first_relevant(self) -> pl.Expr:
        """1.0 at the group's first relevant row, else 0.0 (under ``ties="expected"``: the
        chance that it is the first relevant row)."""
        if self.expected:
            return self._p_first
        return ((self.relevant_row == 1) & (self.hits_so_far == 1)).cast(pl.Float64)

    @property
    def n_relevant(self) -> pl.Expr:
        """R_g, the group's number of relevant items."""
        self.reads.add("n_relevant")
        if self._n_relevant is None:
            raise ValueError("this term needs the group's number of relevant items")
        return self._n_relevant

    def cumulative(self, term: pl.Expr) -> pl.Expr:
        """Running sum of a per-row quantity in rank order (this row included)."""
        return self.window.cumulative(term)

    def stage(self, name: str, value: pl.Expr) -> pl.Expr:
        """Compute `value` once (as an internal column on the table path) and read it."""
        return self.window.stage({INTERNAL_PREFIX + name: value})[INTERNAL_PREFIX + name]

    # -- Shared intermediate results, staged once -----------------------------------------------

    @cached_property
    def relevant_row(self) -> pl.Expr:
        """1 where the row's own grade is relevant (Int64), whatever the tie policy."""
        relevant = (self._grade >= self.policy.relevance_threshold).cast(pl.Int64)
        return self.window.stage({"_rk_relevant": relevant})["_rk_relevant"]

    @cached_property
    def judged_row(self) -> pl.Expr:
        """1 where the row has a judgement (Int64)."""
        return self.window.stage({"_rk_judged_row": self._judged.cast(pl.Int64)})["_rk_judged_row"]

    @cached_property
    def pooled_unjudged_row(self) -> pl.Expr:
        """1 where the row's item is in the pool without a judgement (a negative grade under
        ``negative_grades="unjudged"``: trec_eval's pooled but unjudged), else 0 (Int64)."""
        flag = (self._pooled_unjudged & ~self._judged).cast(pl.Int64)
        return self.window.stage({"_rk_pooled_unjudged_row": flag})["_rk_pooled_unjudged_row"]

    @cached_property
    def hits_so_far(self) -> pl.Expr:
        """Relevant rows up to this one (this row included)."""
        return self.window.stage({"_rk_hits_so_far": self.window.cumulative(self.relevant_row)})[
            "_rk_hits_so_far"
        ]

    @cached_property
    def _block(self) -> dict[str, pl.Expr]:
        """Each row's tie block: its start, size `m`, hits before it, relevant rows `r` and its
        total gain (from running sums read at its ends)."""
        window, rank = self.window, self.window.rank
        relevant = self.relevant_row
        row_gain = window.stage({"_rk_row_gain": gain_of(self._grade, self.policy)})["_rk_row_gain"]
        so_far = window.stage(
            {
                "_rk_hits_so_far": window.cumulative(relevant),
                "_rk_gain_so_far": window.cumulative(row_gain),
            }
        )
        hits, gains = so_far["_rk_hits_so_far"], so_far["_rk_gain_so_far"]
        return window.stage(
            {
                "_rk_start": window.block_first(rank),
                "_rk_m": window.block_last(rank) - window.block_first(rank) + 1,
                "_rk_hb": window.block_first(hits - relevant),
                "_rk_r": self._block_total(hits, relevant),
                "_rk_block_gain": self._block_total(gains, row_gain),
            }
        )

    def _block_total(self, running: pl.Expr, row: pl.Expr) -> pl.Expr:
        return self.window.block_last(running) - self.window.block_first(running - row)

    @cached_property
    def _block_extra(self) -> dict[str, pl.Expr]:
        """The block's totals of grade and of judged rows, for the terms that read them."""
        judged = self.judged_row
        so_far = self.window.stage(
            {
                "_rk_grade_so_far": self.window.cumulative(self._grade_read),
                "_rk_judged_so_far": self.window.cumulative(judged),
            }
        )
        return self.window.stage(
            {
                "_rk_block_grade": self._block_total(so_far["_rk_grade_so_far"], self._grade_read),
                "_rk_block_judged": self._block_total(so_far["_rk_judged_so_far"], judged),
            }
        )

    @cached_property
    def _p_first(self) -> pl.Expr:
        """The chance that the group's first relevant item sits at the row (McSherry & Najork
        2008): a block of `m` rows, `r` relevant, position `t` in it, no hit before it, holds
        the first one at t with chance q_{t-1} r / (m - t + 1), q_t = P(no relevant among the
        block's first t) the product of the miss chances (m - r - u + 1) / (m - u + 1), summed
        as a running sum of logarithms so that both paths compute it alike."""
        m, r, hb, t = self._m, self._r, self._hb, self._position
        # The t-th position of the block misses with chance (m - r - t + 1) / (m - t + 1) given
        # that none before it hit; from t = m - r + 1 on, some earlier position surely hit.
        miss = (m - r - t + 1.0) / (m - t + 1.0)
        log_miss = pl.when(miss > 0).then(miss.log()).otherwise(0.0)
        log_so_far = self.window.stage({"_rk_log_miss_so_far": self.window.cumulative(log_miss)})[
            "_rk_log_miss_so_far"
        ]
        log_before_block = self.window.block_first(log_so_far - log_miss)
        none_before = (
            pl.when(t - 1.0 >= m - r + 1.0)
            .then(0.0)
            .otherwise((log_so_far - log_miss - log_before_block).exp())
        )
        return pl.when(hb == 0).then(none_before * r / (m - t + 1.0)).otherwise(0.0)

    @property
    def _m(self) -> pl.Expr:
        return self._block["_rk_m"].cast(pl.Float64)

    @property
    def _r(self) -> pl.Expr:
        return self._block["_rk_r"].cast(pl.Float64)

    @property
    def _hb(self) -> pl.Expr:
        return self._block["_rk_hb"].cast(pl.Float64)

    @property
    def _position(self) -> pl.Expr:
        return (self.window.rank - self._block["_rk_start"] + 1).cast(pl.Float64)

    @cached_property
    def _block_may_add(self) -> pl.Expr:
        """The block's rows whose own grade may add to a term (`order.may_add`, the rows the
        deterministic tie policies keep): a positive grade gains under C/W/L (`cwl_gain`) even
        below the relevance threshold, and its block's mean reaches every row of the block."""
        row = self.window.stage(
            {"_rk_may_add_row": may_add(self._grade, self.policy).cast(pl.Int64)}
        )["_rk_may_add_row"]
        running = self.window.stage({"_rk_may_add_so_far": self.window.cumulative(row)})
        total = self._block_total(running["_rk_may_add_so_far"], row)
        return self.window.stage({"_rk_block_may_add": total})["_rk_block_may_add"]

    def contributes(self, judged_terms: bool) -> pl.Expr:
        """Under ``ties="expected"``: rows whose block can add to a term (a relevant, gaining or
        positively graded row in it, or a judged one when a term reads judgements); the others
        add exact zeros."""
        keep = (
            (self._block["_rk_r"] > 0)
            | (self._block["_rk_block_gain"] != 0)
            | (self._block_may_add > 0)
        )
        if judged_terms:
            keep = keep | (self._block_extra["_rk_block_judged"] > 0)
        return keep
