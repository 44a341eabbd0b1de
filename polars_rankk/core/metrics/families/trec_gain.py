"""trec_eval's experimental gain measures, G, ndcg_rel and Rndcg, and its rbp, as trec_eval 10
defines them.

Each reads the ideal ranking gain level by gain level (m_G.c, m_ndcg_rel.c, m_Rndcg.c): the
judged items of positive gain (``Policy.gain``: trec_eval's default gain is the grade, and
its ``rel_level=gain`` parameters are ``Policy.gains``), highest gain first, P of them, joined
rank by rank from the truth (`compat_q.with_ideal`, count ``"ideal_levels"``); the relevance
threshold does not enter the gains. With g(r) the gain at rank r of the run (n ranks),
D(r) = Σ_{j <= r} g(j) / log2(j + 1), I(j) the ideal ranking's gain (0 past P) and
ID(r) = Σ_{j <= min(r, P)} I(j) / log2(j + 1):

- **G**: Σ_{r <= n, g(r) != 0} g(r) / log2(2 + C(r) - Σ_{j <= r} g(j)), C(r) =
  Σ_{j <= r} max(I(j), 1), over Σ_j I(j); 0 when no judged item has a positive gain. Only a
  list of repeated items (``duplicates="keep"``) can gain more than the ideal: the gap
  C(r) - Σ g(j) is floored at 0 there.
- **ndcg_rel**: over the P ideal items, D(r) / ID(r) at each retrieved rank r of positive
  gain, D(n) / ID(P) for each of the others, averaged over P (0 when the sum is not positive).
- **Rndcg**: D(min(b, n)) / ID(b) at the end b of each gain level of the ideal ranking (where
  its gain changes, the last at P), and D(n) / ID(P) once more when n >= P + 2 (trec_eval's
  "implied R-level change at num_retrieved": its loop reaches that point only when at least
  one retrieved rank follows rank P + 1), averaged over these points; 0 without a relevant
  item (R at ``Policy.relevance_threshold``).
- **rbp** (m_rbp.c, Moffat & Zobel): (1 - p) Σ_{r <= n} p^(r-1) max(grade(r), 0) / M over the
  whole list, M = max(1, the group's largest judged grade): trec_eval rescales its gains to
  [0, 1] when one exceeds 1 ((g - min) / (max - min) over the levels 0..max, min = 0);
  p = ``Policy.rbp_persistence`` (0.9 under ``Policy.trec_eval()``, as trec_eval). The
  relevance threshold does not enter it: a grade-1 row gains 1 / M at ``-l 2`` too.

None of the terms is linear in the row's labels (each reads the ideal ranking at its rank):
the compiled kernel does not compute them, and they run in pure Polars beside it
(``diagnostics.path`` says so per term); ``ties="expected"`` refuses them, and so does a
pre-labelled list with ``n_relevant=`` (the relevant items it missed have no grade).

Examples
--------
>>> from polars_rankk.core.metrics.families.trec_gain import METRICS
>>> [metric.trec_eval for metric in METRICS]
['G', 'ndcg_rel', 'Rndcg', 'rbp']
"""

from __future__ import annotations

import polars as pl

from polars_rankk.core.columns import INTERNAL_PREFIX, N_CANDIDATES
from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.declaration import Metric
from polars_rankk.core.metrics.families.compat_q import (
    IDEAL_DCG_AT,
    IDEAL_EXCESS,
    IDEAL_LEVEL_WEIGHT,
    IDEAL_LEVELS,
    IDEAL_POSITIVE,
    IDEAL_TOP_GRADE,
    IDEAL_TOTAL_DCG,
    IDEAL_TOTAL_GAIN,
)
from polars_rankk.core.metrics.families.shared import trec, without_k
from polars_rankk.core.metrics.formulas import GroupStats, ratio_or_zero
from polars_rankk.core.metrics.parameters import NDCG_GAIN, RBP_PERSISTENCE
from polars_rankk.core.metrics.rows import RankedRows
from polars_rankk.core.metrics.terms import Term
from polars_rankk.core.policy import Policy

__all__ = ["METRICS", "TERMS"]

_SOURCE = "trec_eval 10 ({})"
#: The cumulated columns of the terms.
G_SUM = f"{INTERNAL_PREFIX}trec_g"
NDCG_REL_AT = f"{INTERNAL_PREFIX}trec_ndcg_rel_at"
NDCG_REL_SHARE = f"{INTERNAL_PREFIX}trec_ndcg_rel_share"
NDCG_WHOLE = f"{INTERNAL_PREFIX}trec_ndcg_whole"
RNDCG = f"{INTERNAL_PREFIX}trec_rndcg"
RBP_SCALED = f"{INTERNAL_PREFIX}trec_rbp"
_COUNTS = ("ideal_levels",)


def _discounted(rows: RankedRows) -> pl.Expr:
    """g(r) / log2(r + 1)."""
    return rows.stage("trec_discounted_gain", rows.gain / (rows.rank + 1).cast(pl.Float64).log(2))


def _g_row(rows: RankedRows) -> pl.Expr:
    """g(r) / log2(2 + C(r) - Σ_{j <= r} g(j)) / Σ_j I(j) (m_G.c)."""
    gain = rows.gain
    so_far = rows.stage("trec_gain_so_far", rows.cumulative(gain))
    cost = rows.rank.cast(pl.Float64) + pl.col(IDEAL_EXCESS)
    # C(r) >= Σ g(j) but where repeated items are ranked (duplicates="keep", which trec_eval
    # refuses): there the ideal is passed, and the gap is floored at 0.
    value = gain / (2.0 + (cost - so_far).clip(lower_bound=0.0)).log(2)
    return pl.when(gain != 0).then(ratio_or_zero(value, pl.col(IDEAL_TOTAL_GAIN))).otherwise(0.0)


def _ndcg_rel_at_row(rows: RankedRows) -> pl.Expr:
    """D(r) / ID(r) / P at a rank of positive gain (m_ndcg_rel.c)."""
    dcg = rows.stage("trec_dcg_so_far", rows.cumulative(_discounted(rows)))
    value = ratio_or_zero(dcg, pl.col(IDEAL_DCG_AT))
    return pl.when(rows.gain > 0).then(ratio_or_zero(value, pl.col(IDEAL_POSITIVE))).otherwise(0.0)


def _ndcg_rel_share_row(rows: RankedRows) -> pl.Expr:
    """1 / P at a rank of positive gain: the share of the ideal items retrieved."""
    return (
        pl.when(rows.gain > 0)
        .then(ratio_or_zero(pl.lit(1.0), pl.col(IDEAL_POSITIVE)))
        .otherwise(0.0)
    )


def _ndcg_whole_row(rows: RankedRows) -> pl.Expr:
    """g(r) / log2(r + 1) / ID(P): summed, trec_eval's whole-list ndcg."""
    return ratio_or_zero(_discounted(rows), pl.col(IDEAL_TOTAL_DCG))


def _rndcg_row(rows: RankedRows) -> pl.Expr:
    """g(r) / log2(r + 1) (Σ_{b >= r} 1 / ID(b) + x / ID(P)) / (L + x), x = [n >= P + 2]
    (m_Rndcg.c): summed over r, the mean of D(min(b, n)) / ID(b) over the L level ends b and
    the extra point."""
    extra = (pl.col(N_CANDIDATES) >= pl.col(IDEAL_POSITIVE) + 2).cast(pl.Float64)
    weight = pl.col(IDEAL_LEVEL_WEIGHT) + ratio_or_zero(extra, pl.col(IDEAL_TOTAL_DCG))
    return ratio_or_zero(_discounted(rows) * weight, pl.col(IDEAL_LEVELS) + extra)


def _rbp_row(rows: RankedRows) -> pl.Expr:
    """(1 - p) p^(r-1) max(grade, 0) / M (m_rbp.c)."""
    p = float(rows.policy.rbp_persistence)
    weight = (1.0 - p) * pl.lit(p, dtype=pl.Float64).pow(rows.rank - 1)
    return weight * rows.grade.clip(lower_bound=0.0) / pl.col(IDEAL_TOP_GRADE)


def _term(name: str, column: str, row: term_table.RowTerm) -> Term:
    return Term(
        name,
        column,
        f"{INTERNAL_PREFIX}term_{name}",
        row,
        None,
        whole_list=True,
        counts=_COUNTS,
    )


TERMS: tuple[Term, ...] = (
    _term("trec_g", G_SUM, _g_row),
    _term("trec_ndcg_rel_at", NDCG_REL_AT, _ndcg_rel_at_row),
    _term("trec_ndcg_rel_share", NDCG_REL_SHARE, _ndcg_rel_share_row),
    _term("trec_ndcg_whole", NDCG_WHOLE, _ndcg_whole_row),
    _term("trec_rndcg", RNDCG, _rndcg_row),
    _term("trec_rbp", RBP_SCALED, _rbp_row),
)
for _declared in TERMS:
    term_table.add_term(_declared)


def _g(policy: Policy, stats: GroupStats) -> pl.Expr:
    return stats.whole(G_SUM).cast(pl.Float64)


def _rbp(policy: Policy, stats: GroupStats) -> pl.Expr:
    return stats.whole(RBP_SCALED).cast(pl.Float64)


def _ndcg_rel(policy: Policy, stats: GroupStats) -> pl.Expr:
    missed = 1.0 - stats.whole(NDCG_REL_SHARE)
    value = stats.whole(NDCG_REL_AT) + missed * stats.whole(NDCG_WHOLE)
    return pl.when(value > 0).then(value.cast(pl.Float64)).otherwise(0.0)


def _rndcg(policy: Policy, stats: GroupStats) -> pl.Expr:
    return pl.when(stats.n_relevant > 0).then(stats.whole(RNDCG).cast(pl.Float64)).otherwise(0.0)


_GAINS = "gain = Policy.gain (the grade under Policy.trec_eval()), ideal = the judged items of "
_GAINS += "positive gain by gain"

METRICS: tuple[Metric, ...] = (
    Metric(
        name="normalized_g",
        parameters=NDCG_GAIN,
        title="G",
        definition="Σ over retrieved ranks r of g(r) / log2(2 + Σ_{j <= r} max(I(j), 1) - "
        "Σ_{j <= r} g(j)), / Σ I(j); I the ideal ranking's gains, 0 past it; "
        + _GAINS
        + " (trec_eval G)",
        citation=_SOURCE.format("m_G.c"),
        has_k=False,
        terms=(G_SUM,),
        formula=without_k(_g),
        trec_eval="G",
        aliases=(trec("G", cut=False),),
    ),
    Metric(
        name="ndcg_over_relevant",
        parameters=NDCG_GAIN,
        title="nDCG over relevant",
        definition="nDCG averaged over the P ideal items: DCG(r) / IDCG(r) at each retrieved "
        "rank r of positive gain, DCG(n) / IDCG(P) for each one not retrieved, / P; whole "
        "list, " + _GAINS + " (trec_eval ndcg_rel)",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002; " + _SOURCE.format("m_ndcg_rel.c"),
        has_k=False,
        terms=(NDCG_REL_AT, NDCG_REL_SHARE, NDCG_WHOLE),
        formula=without_k(_ndcg_rel),
        trec_eval="ndcg_rel",
        aliases=(trec("ndcg_rel", cut=False),),
    ),
    Metric(
        name="ndcg_at_gain_levels",
        parameters=NDCG_GAIN,
        title="R-nDCG",
        definition="nDCG(min(b, n)) against IDCG(b), averaged over the ends b of the ideal "
        "ranking's gain levels, with nDCG(n) once more when n >= P + 2; 0 when R = 0; "
        + _GAINS
        + " (trec_eval Rndcg)",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002; " + _SOURCE.format("m_Rndcg.c"),
        has_k=False,
        terms=(RNDCG,),
        formula=without_k(_rndcg),
        trec_eval="Rndcg",
        aliases=(trec("Rndcg", cut=False),),
        divides_by_relevant=True,
    ),
    Metric(
        name="trec_rbp",
        parameters=(RBP_PERSISTENCE,),
        title="RBP (trec_eval)",
        definition="(1 - p) Σ over the whole list of p^(r-1) max(grade(r), 0) / M, M = max(1, "
        "the group's largest judged grade); p = Policy.rbp_persistence, 0.9 under "
        "Policy.trec_eval() (trec_eval rbp, its gains rescaled to [0, 1])",
        citation="Moffat & Zobel, TOIS 27(1) 2008; " + _SOURCE.format("m_rbp.c"),
        has_k=False,
        terms=(RBP_SCALED,),
        formula=without_k(_rbp),
        # trec_eval's name: the canonical rbp (a K, binary or graded) is another number.
        trec_eval="rbp",
    ),
)
