"""The per-rank terms: what each ranked row contributes, in one table.

A metric is computed from running sums, in rank order inside a group, of a few per-row terms
(hits, DCG, the precision sum, …), read at each cut-off K. Each `Term` says how one row's
contribution is computed — deterministically, and as its exact expectation over the orderings
of its tie block under ``ties="expected"`` (or that it has none) — and what it reads besides the
row's grade. Metrics name the terms they read (`polars_rankk.core.metrics.registry.Metric.terms`);
preparation and the expression API compute exactly those, through the same `RankedRows`.

Examples
--------
>>> from polars_rankk.core.metrics.terms import TERMS
>>> TERMS["_rk_hits"].name, TERMS["_rk_err"].expected is None
('hits', True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.columns import (
    BINARY_G,
    BPREF,
    DCG,
    ERR,
    FIRST_HIT,
    HITS,
    INFAP,
    INTERNAL_PREFIX,
    JUDGED,
    JUDGED_RETRIEVED,
    PRECISION_SUM,
    RBP,
    RBP_JUDGED,
    RECIPROCAL_RANK,
    RELEVANT_RETRIEVED,
)
from polars_rankk.core.metrics.algebra import RANK, Linear, Piece, discount, geometric
from polars_rankk.core.metrics.rows import RankedRows
from polars_rankk.core.policy import Policy

__all__ = [
    "IPREC_LEVELS",
    "RPREC_MULTIPLES",
    "RankedRows",
    "Term",
    "TermNeeds",
    "iprec_column",
    "level_text",
    "rprec_mult_column",
    "rprec_mult_cutoff",
]

#: trec_eval's recall levels of iprec_at_recall and 11pt_avg (m_iprec_at_recall.c).
IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: trec_eval's multiples of R of Rprec_mult (m_Rprec_mult.c).
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
#: INFAP_EPSILON of trec_eval.h, which keeps infAP's estimate finite.
INFAP_EPSILON = 0.00001

#: ``term(rows)``: one row's contribution.
RowTerm = Callable[[RankedRows], pl.Expr]
#: ``linear(policy)``: a linear term's declaration under a policy (RBP's weight reads p).
LinearOf = Callable[[Policy], Linear]


@dataclass(frozen=True)
class Term:
    """One per-rank term: a row's contribution to a running sum a metric reads.

    Attributes
    ----------
    name
        Its short name (``"hits"``); formulas read it through its `column`.
    column
        The cumulated column of the prepared table (``"_rk_hits"``, read at K as
        ``"_rk_hits@K"``).
    row_column
        The column holding each row's contribution before it is cumulated.
    deterministic
        The row's contribution in a fixed order of the rows (derived from `linear` when given).
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
    linear
        Its declaration as labels times weights of the rank (`polars_rankk.core.metrics.algebra`),
        under a policy: the kernel evaluates it, and both forms above derive from it. None: a
        term that is not linear.
    kernel
        The compiled kernel's name for a term that is not linear but that it computes by name
        (``"precision_sum"``, ``"err"``, ``"bpref"``); None for a linear term or one it lacks.
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
    linear: LinearOf | None = None
    kernel: str | None = None

    @classmethod
    def of_linear(
        cls,
        name: str,
        linear: LinearOf,
        *,
        column: str | None = None,
        row_column: str | None = None,
        whole_list: bool = False,
        expected: bool = True,
        sparse: bool | None = None,
    ) -> Term:
        """A term declared as data; its forms, judgement needs and sparsity follow."""

        def deterministic(rows: RankedRows) -> pl.Expr:
            return rows.linear(linear(rows.policy))

        declared = linear(Policy())
        return cls(
            name=name,
            column=column or f"{INTERNAL_PREFIX}{name}",
            row_column=row_column or f"{INTERNAL_PREFIX}term_{name}",
            deterministic=deterministic,
            expected=deterministic if expected else None,
            judged="judged" in declared.labels,
            whole_list=whole_list,
            sparse=declared.sparse if sparse is None else sparse,
            linear=linear,
        )

    def row(self, rows: RankedRows) -> pl.Expr:
        """The row's contribution under the rows' tie policy."""
        if rows.expected:
            if self.expected is None:
                raise ValueError(f"the {self.name} term has no expectation over tie orderings")
            return self.expected(rows)
        return self.deterministic(rows)


def _fixed(*pieces: Piece) -> LinearOf:
    declared = Linear(pieces)
    return lambda policy: declared


def _rbp_of(label: str) -> LinearOf:
    return lambda policy: Linear((Piece(label, geometric(float(policy.rbp_persistence))),))


def _precision(rows: RankedRows) -> pl.Expr:
    return rows.relevant_row * rows.hits_so_far / rows.rank.cast(pl.Float64)


def _precision_expected(rows: RankedRows) -> pl.Expr:
    # E[rel_i * hits@i] = (r/m)(hb + 1 + (t-1)(r-1)/(m-1)) for position t of a block.
    m, r, t = rows._m, rows._r, rows._position
    others = pl.when(m > 1).then((t - 1.0) * (r - 1.0) / (m - 1.0)).otherwise(0.0)
    return r / m * (rows._hb + 1.0 + others) / rows.rank.cast(pl.Float64)


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


def level_text(level: float) -> str:
    """A level as trec_eval prints it in a measure name (``0.50``)."""
    return f"{level:.2f}"


def iprec_column(level: float) -> str:
    """The whole-list column of interpolated precision at recall `level`."""
    return f"{INTERNAL_PREFIX}iprec_{level_text(level)}"


def rprec_mult_column(multiple: float) -> str:
    """The whole-list column of the hits within `rprec_mult_cutoff` ranks."""
    return f"{INTERNAL_PREFIX}hits_at_r_times_{level_text(multiple)}"


def rprec_mult_cutoff(multiple: float, n_relevant: pl.Expr) -> pl.Expr:
    """trec_eval's cut-off of Rprec_mult: (long) (multiple * R + 0.9)."""
    return (n_relevant.cast(pl.Float64) * multiple + 0.9).floor()


def _iprec(level: float) -> RowTerm:
    """Interpolated precision at recall `level` (trec_eval m_iprec_at_recall.c): the best
    precision hits_i / i over relevant rows i holding at least lround(level * R) hits, 0 when
    none; carried by the group's first row, so that its sum over the list is that value."""

    def row(rows: RankedRows) -> pl.Expr:
        # lround: half away from zero (level * R >= 0).
        needed = (rows.n_relevant.cast(pl.Float64) * level + 0.5).floor()
        eligible = (rows.relevant_row == 1) & (rows.hits_so_far >= needed)
        precision = rows.hits_so_far.cast(pl.Float64) / rows.rank.cast(pl.Float64)
        name = f"iprec_precision_{level_text(level)}"
        value = rows.stage(name, pl.when(eligible).then(precision).otherwise(0.0))
        first = rows.stage("first_row", rows.cumulative(rows.rank * 0 + 1) == 1)
        return pl.when(first).then(rows.window.group_max(value)).otherwise(0.0)

    return row


def _rprec_mult(multiple: float) -> RowTerm:
    """A relevant row within trec_eval's Rprec_mult cut-off of R."""

    def row(rows: RankedRows) -> pl.Expr:
        cut = rprec_mult_cutoff(multiple, rows.n_relevant)
        return (rows.relevant_row.cast(pl.Float64)) * (rows.rank <= cut).cast(pl.Float64)

    return row


def _infap(rows: RankedRows) -> pl.Expr:
    # trec_eval m_infap.c at a relevant row of rank i: of the i - 1 rows above it, r relevant
    # and n judged non-relevant, u pooled but unjudged (a negative grade under
    # negative_grades="unjudged", trec_eval's -2): (1 + (r + n + u) (r + e) / (r + n + 2e)) / i,
    # which is hits_i / i when every row above is judged.
    relevant, judged = rows.relevant_row, rows.judged_row
    nonrelevant_row = judged * (1 - relevant)
    before = rows.stage("nonrelevant_so_far", rows.cumulative(nonrelevant_row))
    pooled = rows.stage("pooled_unjudged_so_far", rows.cumulative(rows.pooled_unjudged_row))
    relevant_before = (rows.hits_so_far - relevant).cast(pl.Float64)
    judged_above = relevant_before + before.cast(pl.Float64)
    above = judged_above + pooled.cast(pl.Float64)
    estimate = above * (relevant_before + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON)
    value = (1.0 + estimate) / rows.rank.cast(pl.Float64)
    return (relevant * judged).cast(pl.Float64) * value


def _binary_g(rows: RankedRows) -> pl.Expr:
    # trec_eval m_binG.c: 1 / log2(2 + the rows above that are not relevant), unjudged
    # rows included, at each relevant row.
    above = (rows.rank - rows.hits_so_far).cast(pl.Float64)
    return rows.relevant_row.cast(pl.Float64) / (above + 2.0).log(2)


def _level_terms() -> tuple[Term, ...]:
    iprec = tuple(
        Term(
            f"iprec_{level_text(level)}",
            iprec_column(level),
            f"{INTERNAL_PREFIX}term_iprec_{level_text(level)}",
            _iprec(level),
            None,
            whole_list=True,
            counts=("n_relevant",),
        )
        for level in IPREC_LEVELS
    )
    multiples = tuple(
        Term(
            f"hits_at_r_times_{level_text(multiple)}",
            rprec_mult_column(multiple),
            f"{INTERNAL_PREFIX}term_hits_at_r_times_{level_text(multiple)}",
            _rprec_mult(multiple),
            None,
            whole_list=True,
            counts=("n_relevant",),
        )
        for multiple in RPREC_MULTIPLES
    )
    return iprec + multiples


#: The built-in terms. The linear ones are data (a label times a weight of the rank); the
#: three that are not (the precision sum, ERR, bpref) are named code, here and in the kernel.
_BUILT_IN = (
    Term.of_linear("hits", _fixed(Piece("relevant")), column=HITS),
    Term.of_linear("dcg", _fixed(Piece("gain", discount(RANK), "/")), column=DCG),
    Term(
        "precision_sum",
        PRECISION_SUM,
        "_rk_term_precision",
        _precision,
        _precision_expected,
        kernel="precision_sum",
    ),
    Term.of_linear(
        "reciprocal_rank", _fixed(Piece("first_relevant", RANK, "/")), column=RECIPROCAL_RANK
    ),
    Term.of_linear("first_hit", _fixed(Piece("first_relevant")), column=FIRST_HIT),
    Term.of_linear("first_rank", _fixed(Piece("first_relevant", RANK))),
    Term.of_linear("judged", _fixed(Piece("judged")), column=JUDGED),
    Term("err", ERR, "_rk_term_err", _err, None, kernel="err"),
    Term.of_linear("rbp", _rbp_of("rbp_gain"), column=RBP),
    Term.of_linear("rbp_judged", _rbp_of("judged"), column=RBP_JUDGED),
    Term(
        "bpref",
        BPREF,
        "_rk_term_bpref",
        _bpref,
        None,
        judged=True,
        whole_list=True,
        counts=("n_relevant", "n_nonrelevant"),
        kernel="bpref",
    ),
    Term.of_linear(
        "relevant_retrieved",
        _fixed(Piece("relevant")),
        column=RELEVANT_RETRIEVED,
        whole_list=True,
    ),
    Term.of_linear(
        "judged_retrieved", _fixed(Piece("judged")), column=JUDGED_RETRIEVED, whole_list=True
    ),
    Term(
        "infap",
        INFAP,
        "_rk_term_infap",
        _infap,
        None,
        judged=True,
        whole_list=True,
        counts=("pooled_unjudged",),
    ),
    Term("binary_g", BINARY_G, "_rk_term_binary_g", _binary_g, None, whole_list=True),
    *_level_terms(),
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
