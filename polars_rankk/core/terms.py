"""The per-rank terms: what each ranked row contributes, in one table.

A metric is computed from running sums, in rank order inside a group, of a few per-row terms
(hits, DCG, the precision sum, …), read at each cut-off K. Each `Term` says how one row's
contribution is computed — deterministically, and as its exact expectation over the orderings
of its tie block under ``ties="expected"`` (or that it has none) — and what it reads besides the
row's grade. Metrics name the terms they read (`polars_rankk.core.registry.Metric.terms`);
preparation and the expression API compute exactly those, through the same `RankedRows`.

Examples
--------
>>> from polars_rankk.core.terms import TERMS
>>> TERMS["_rk_hits"].name, TERMS["_rk_err"].expected is None
('hits', True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from polars_rankk.core.columns import (
    BPREF,
    DCG,
    ERR,
    FIRST_HIT,
    HITS,
    INTERNAL_PREFIX,
    JUDGED,
    PRECISION_SUM,
    RBP,
    RBP_JUDGED,
    RECIPROCAL_RANK,
    RELEVANT_RETRIEVED,
)
from polars_rankk.core.policy import Policy
from polars_rankk.core.ranking import Window, discount, gain_of, rbp_gain


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
    >>> from polars_rankk.core.ranking import Sorted
    >>> from polars_rankk.core.terms import RankedRows
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
    ) -> None:
        self.window = window
        self.policy = policy
        self._grade = grade
        self._judged = pl.lit(True) if judged is None else judged
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
        """The row's grade (under ``ties="expected"``: its block's mean grade)."""
        if self.expected:
            return self._block_extra["_rk_block_grade"] / self._m
        return self._grade

    @property
    def gain(self) -> pl.Expr:
        """The row's gain under `Policy.gain` (under ``ties="expected"``: its block's mean)."""
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
                "_rk_grade_so_far": self.window.cumulative(self._grade),
                "_rk_judged_so_far": self.window.cumulative(judged),
            }
        )
        return self.window.stage(
            {
                "_rk_block_grade": self._block_total(so_far["_rk_grade_so_far"], self._grade),
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

    def contributes(self, judged_terms: bool) -> pl.Expr:
        """Under ``ties="expected"``: rows whose block can add to a term (a relevant or gaining
        row in it, or a judged one when a term reads judgements); the others add exact zeros."""
        keep = (self._block["_rk_r"] > 0) | (self._block["_rk_block_gain"] != 0)
        if judged_terms:
            keep = keep | (self._block_extra["_rk_block_judged"] > 0)
        return keep


#: ``term(rows)``: one row's contribution.
RowTerm = Callable[[RankedRows], pl.Expr]


@dataclass(frozen=True)
class Term:
    """One per-rank term: a row's contribution to a running sum a metric reads.

    Attributes
    ----------
    name
        Its short name (``"hits"``); formulas read it through its `column`.
    column
        The cumulated column of the prepared table (``"_rk_hits"``, read at K as
        ``"_rk_hits@K"``): the contract with the compiled kernel.
    row_column
        The column holding each row's contribution before it is cumulated.
    deterministic
        The row's contribution in a fixed order of the rows.
    expected
        Its exact expectation over the orderings of the row's tie block, or None when there is
        no closed form here (``ties="expected"`` then refuses the metrics that read it).
    judged
        Whether it reads which rows have a judgement (unjudged rows are then kept apart).
    whole_list
        Whether metrics read it over the whole ranked list rather than at a cut-off.
    counts
        The per-group counts it reads on every row (``"n_relevant"``, ``"n_nonrelevant"``).
    sparse
        Whether it is zero on every row without a positive grade (nor a judgement, when
        `judged`) and reads nothing of such rows but their rank; then preparation leaves such
        rows out before cumulating.
    """

    name: str
    column: str
    row_column: str
    deterministic: RowTerm
    expected: RowTerm | None
    judged: bool = False
    whole_list: bool = False
    counts: tuple[str, ...] = ()
    sparse: bool = True

    def row(self, rows: RankedRows) -> pl.Expr:
        """The row's contribution under the rows' tie policy."""
        if rows.expected:
            if self.expected is None:
                raise ValueError(f"the {self.name} term has no expectation over tie orderings")
            return self.expected(rows)
        return self.deterministic(rows)


def _hits(rows: RankedRows) -> pl.Expr:
    return rows.relevant_row


def _dcg(rows: RankedRows) -> pl.Expr:
    return gain_of(rows._grade, rows.policy) / discount(rows.rank)


def _dcg_expected(rows: RankedRows) -> pl.Expr:
    return rows._block["_rk_block_gain"] / rows._m / discount(rows.rank)


def _precision(rows: RankedRows) -> pl.Expr:
    return rows.relevant_row * rows.hits_so_far / rows.rank.cast(pl.Float64)


def _precision_expected(rows: RankedRows) -> pl.Expr:
    # E[rel_i * hits@i] = (r/m)(hb + 1 + (t-1)(r-1)/(m-1)) for position t of a block.
    m, r, t = rows._m, rows._r, rows._position
    others = pl.when(m > 1).then((t - 1.0) * (r - 1.0) / (m - 1.0)).otherwise(0.0)
    return r / m * (rows._hb + 1.0 + others) / rows.rank.cast(pl.Float64)


def _reciprocal(rows: RankedRows) -> pl.Expr:
    return rows.first_relevant / rows.rank.cast(pl.Float64)


def _first(rows: RankedRows) -> pl.Expr:
    return ((rows.relevant_row == 1) & (rows.hits_so_far == 1)).cast(pl.Int64)


def _first_expected(rows: RankedRows) -> pl.Expr:
    return rows.first_relevant


def _judged(rows: RankedRows) -> pl.Expr:
    return rows.judged


def rbp_weight(rank: pl.Expr, policy: Policy) -> pl.Expr:
    """RBP's weight of a rank: (1 - p) p^(rank - 1)."""
    p = float(policy.rbp_persistence)
    return (1.0 - p) * pl.lit(p, dtype=pl.Float64).pow((rank - 1).cast(pl.Float64))


def _rbp(rows: RankedRows) -> pl.Expr:
    return rbp_gain(rows._grade, rows.policy) * rbp_weight(rows.rank, rows.policy)


def _rbp_expected(rows: RankedRows) -> pl.Expr:
    # Linear in the row's label: its block's mean label times the rank's weight.
    if rows.policy.rbp_grades == "binary":
        return rows.relevant * rbp_weight(rows.rank, rows.policy)
    label = rows.stage("rbp_row", rbp_gain(rows._grade, rows.policy))
    running = rows.stage("rbp_so_far", rows.cumulative(label))
    mean = rows._block_total(running, label) / rows._m
    return mean * rbp_weight(rows.rank, rows.policy)


def _rbp_judged(rows: RankedRows) -> pl.Expr:
    return rows.judged * rbp_weight(rows.rank, rows.policy)


def err_stop(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """ERR's chance that a user stops at a row: (2^g - 1) / 2^g_max, g clipped to [0, g_max]."""
    top = float(policy.err_max_grade)
    clipped = grade.clip(lower_bound=0.0, upper_bound=top)
    scale = pl.lit(2.0**top, dtype=pl.Float64)
    return (pl.lit(2.0, dtype=pl.Float64).pow(clipped) - 1.0) / scale


def _err(rows: RankedRows) -> pl.Expr:
    stop = err_stop(rows.grade, rows.policy)
    # The chance of reaching a row is the product of the earlier rows' (1 - stop): a running
    # sum of logarithms (stop < 1, so each is finite).
    log_go_on = rows.stage("log_go_on", (1.0 - stop).log())
    reached = rows.cumulative(log_go_on) - log_go_on
    return stop * reached.exp() / rows.rank.cast(pl.Float64)


def _bpref(rows: RankedRows) -> pl.Expr:
    if rows._n_nonrelevant is None:
        raise ValueError("bpref needs the group's relevant and judged non-relevant counts")
    n_relevant, n_nonrelevant = rows.n_relevant, rows._n_nonrelevant
    relevant, judged = rows.relevant_row, rows.judged_row
    nonrelevant_row = judged * (1 - relevant)
    before = rows.stage("nonrelevant_so_far", rows.cumulative(nonrelevant_row))
    # trec_eval m_bpref.c: 1 - min(n, R) / min(N, R) for the n judged non-relevant rows above a
    # relevant row; 1 when there are none.
    penalty = pl.min_horizontal(before, n_relevant).cast(pl.Float64) / pl.min_horizontal(
        n_nonrelevant, n_relevant
    ).cast(pl.Float64)
    preserved = pl.when(before > 0).then(1.0 - penalty).otherwise(1.0)
    return (relevant * judged).cast(pl.Float64) * preserved


_BUILT_IN = (
    Term("hits", HITS, "_rk_term_hits", _hits, lambda rows: rows.relevant),
    Term("dcg", DCG, "_rk_term_dcg", _dcg, _dcg_expected),
    Term("precision_sum", PRECISION_SUM, "_rk_term_precision", _precision, _precision_expected),
    Term("reciprocal_rank", RECIPROCAL_RANK, "_rk_term_reciprocal", _reciprocal, _reciprocal),
    Term("first_hit", FIRST_HIT, "_rk_term_first", _first, _first_expected),
    Term("judged", JUDGED, "_rk_term_judged", _judged, _judged, judged=True),
    Term("err", ERR, "_rk_term_err", _err, None),
    Term("rbp", RBP, "_rk_term_rbp", _rbp, _rbp_expected),
    Term("rbp_judged", RBP_JUDGED, "_rk_term_rbp_judged", _rbp_judged, _rbp_judged, judged=True),
    Term(
        "bpref",
        BPREF,
        "_rk_term_bpref",
        _bpref,
        None,
        judged=True,
        whole_list=True,
        counts=("n_relevant", "n_nonrelevant"),
    ),
    Term(
        "relevant_retrieved",
        RELEVANT_RETRIEVED,
        "_rk_term_relevant_retrieved",
        _hits,
        lambda rows: rows.relevant,
        whole_list=True,
    ),
)


#: Every per-rank term by its cumulated column, in the order they are computed.
TERMS: dict[str, Term] = {term.column: term for term in _BUILT_IN}


def term_named(name: str) -> Term:
    """The term called `name` (``"hits"``) or held in column `name` (``"_rk_hits"``)."""
    if name in TERMS:
        return TERMS[name]
    for term in TERMS.values():
        if term.name == name:
            return term
    known = ", ".join(term.name for term in TERMS.values())
    raise ValueError(f"no per-rank term {name!r}; known: {known}")


def add_term(term: Term, *, replace: bool = False) -> None:
    """Add a term to the table (a metric declared at run time brings its own)."""
    known = TERMS.get(term.column)
    if known is not None and known != term and not replace:
        raise ValueError(f"a different per-rank term already uses column {term.column!r}")
    if any(t.name == term.name and t.column != term.column for t in TERMS.values()):
        raise ValueError(f"a per-rank term is already called {term.name!r}")
    TERMS[term.column] = term


def ordered(columns: Iterable[str]) -> tuple[str, ...]:
    """`columns` (term columns) in the table's order, once each."""
    wanted = set(columns)
    unknown = wanted - set(TERMS)
    if unknown:
        raise ValueError(f"unknown per-rank terms: {sorted(unknown)}")
    return tuple(column for column in TERMS if column in wanted)


def unsupported_under_expected(columns: Iterable[str]) -> list[str]:
    """The terms among `columns` without an exact expectation over tie orderings."""
    return [TERMS[c].name for c in ordered(columns) if TERMS[c].expected is None]


def row_terms(rows: RankedRows, columns: Iterable[str]) -> dict[str, pl.Expr]:
    """Each requested term's per-row contribution, keyed by its cumulated column."""
    return {column: TERMS[column].row(rows) for column in ordered(columns)}


@dataclass(frozen=True)
class TermNeeds:
    """What computing a set of terms takes: which are read at each K and which over the whole
    list, whether rows' judgements and per-group counts are read, and whether rows that add
    nothing may be left out before cumulating."""

    #: Every term to compute, in the table's order.
    columns: tuple[str, ...]
    #: Whether hits within the first R_g ranks are read (the whole list is kept).
    hits_at_r: bool = False

    @property
    def by_k(self) -> tuple[str, ...]:
        """Terms read at each cut-off K."""
        return tuple(c for c in self.columns if not TERMS[c].whole_list)

    @property
    def whole_list(self) -> tuple[str, ...]:
        """Terms read over the whole ranked list."""
        return tuple(c for c in self.columns if TERMS[c].whole_list)

    @property
    def judged(self) -> bool:
        """Whether a term reads which rows have a judgement."""
        return any(TERMS[c].judged for c in self.columns)

    @property
    def counts(self) -> frozenset[str]:
        """The per-group counts terms read on every row (``"n_relevant"``, ``"n_nonrelevant"``)."""
        found = {count for c in self.columns for count in TERMS[c].counts}
        if self.hits_at_r:
            found.add("n_relevant")
        return frozenset(found)

    @property
    def sparse(self) -> bool:
        """Whether rows without a positive grade (nor a judgement) add nothing to any term."""
        return all(TERMS[c].sparse for c in self.columns)
