"""trec_eval's further measures (``trec_eval -m all_trec``), as its source defines them.

Each is read from trec_eval 10's ``m_<measure>.c`` (https://github.com/usnistgov/trec_eval);
the levels of the measures trec_eval parameterises by a fraction (``iprec_at_recall_0.50``,
``Rprec_mult_0.20``) are one metric per default level, named as trec_eval prints them.
"""

from __future__ import annotations

import functools
import operator

import polars as pl

from polars_rankk.core.columns import (
    BINARY_G,
    BPREF,
    HITS,
    INFAP,
    JUDGED,
    JUDGED_RETRIEVED,
    PRECISION_SUM,
    RBP_JUDGED,
    RELEVANT_RETRIEVED,
)
from polars_rankk.core.metrics import formulas
from polars_rankk.core.metrics.declaration import Metric
from polars_rankk.core.metrics.families.shared import at_k, ir, trec, without_k
from polars_rankk.core.metrics.formulas import GroupStats, cutoff, ratio_or_zero
from polars_rankk.core.metrics.parameters import AP_DENOMINATOR, RBP_PERSISTENCE
from polars_rankk.core.metrics.terms import (
    IPREC_LEVELS,
    RPREC_MULTIPLES,
    iprec_column,
    level_text,
    rprec_mult_column,
    rprec_mult_cutoff,
)
from polars_rankk.core.policy import Policy

__all__ = ["METRICS", "UTILITY_COEFFICIENTS"]

_SOURCE = "trec_eval 10 ({})"
#: trec_eval's default utility coefficients: relevant retrieved, non-relevant retrieved,
#: relevant not retrieved, non-relevant not retrieved (m_utility.c).
UTILITY_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)


def _name(level: float) -> str:
    return level_text(level).replace(".", "_")


#: Each R-precision multiple's metric name and its multiple of R (trec_eval Rprec_mult).
RPREC_MULTIPLE_OF = {
    f"r_precision_times_{_name(multiple)}": multiple for multiple in RPREC_MULTIPLES
}


def _relative_precision(policy: Policy, k: int, stats: GroupStats) -> pl.Expr:
    return ratio_or_zero(stats.at(HITS, k), pl.min_horizontal(cutoff(k, stats), stats.n_relevant))


def _unjudged(policy: Policy, k: int, stats: GroupStats) -> pl.Expr:
    seen = pl.min_horizontal(cutoff(k, stats), stats.n_candidates)
    return ratio_or_zero(seen - stats.at(JUDGED, k), cutoff(k, stats))


def _retrieved_relevant(stats: GroupStats) -> pl.Expr:
    return stats.whole(RELEVANT_RETRIEVED).cast(pl.Float64)


def _set_relative_precision(policy: Policy, stats: GroupStats) -> pl.Expr:
    size = pl.min_horizontal(stats.n_candidates, stats.n_relevant)
    return ratio_or_zero(_retrieved_relevant(stats), size)


def _set_map(policy: Policy, stats: GroupStats) -> pl.Expr:
    hits = _retrieved_relevant(stats)
    return ratio_or_zero(hits * hits, stats.n_candidates.cast(pl.Float64) * stats.n_relevant)


def _utility(policy: Policy, stats: GroupStats) -> pl.Expr:
    relevant_retrieved, n = _retrieved_relevant(stats), stats.n_candidates.cast(pl.Float64)
    relevant = stats.n_relevant.cast(pl.Float64)
    a, b, c, d = UTILITY_COEFFICIENTS
    # trec_eval's collection size (-N) is 0 unless given: d weighs rel_ret - ret - rel.
    return (
        a * relevant_retrieved
        + b * (n - relevant_retrieved)
        + c * (relevant - relevant_retrieved)
        + d * (relevant_retrieved - n - relevant)
    )


def _nonrelevant_judged(policy: Policy, stats: GroupStats) -> pl.Expr:
    return stats.whole(JUDGED_RETRIEVED).cast(pl.Float64) - _retrieved_relevant(stats)


def _rbp_resid(policy: Policy, k: int, stats: GroupStats) -> pl.Expr:
    # m_rbp_resid.c: p^n + (1 - p) sum of p^(i-1) over unjudged ranks = 1 - the judged
    # ranks' weight, left 0 when the list holds no unjudged row.
    seen = pl.min_horizontal(cutoff(k, stats), stats.n_candidates)
    unjudged = seen - stats.at(JUDGED, k)
    return pl.when(unjudged > 0).then(formulas.rbp_residual(policy, k, stats)).otherwise(0.0)


def _infap(policy: Policy, stats: GroupStats) -> pl.Expr:
    return ratio_or_zero(stats.whole(INFAP), stats.n_relevant)


def _binary_g(policy: Policy, stats: GroupStats) -> pl.Expr:
    return ratio_or_zero(stats.whole(BINARY_G), stats.n_relevant)


def _iprec(level: float) -> Metric:
    column = iprec_column(level)
    return Metric(
        name=f"iprec_at_recall_{_name(level)}",
        title=f"iPrec@recall {level_text(level)}",
        definition=f"interpolated precision at recall {level_text(level)}: the best precision "
        f"at a rank holding at least lround({level_text(level)} R) relevant items, 0 if none "
        "(trec_eval iprec_at_recall)",
        citation=_SOURCE.format("m_iprec_at_recall.c") + "; Manning et al. (2008), §8.4",
        has_k=False,
        terms=(column,),
        formula=without_k(lambda policy, stats: stats.whole(column).cast(pl.Float64)),
        trec_eval=f"iprec_at_recall_{level_text(level)}",
        aliases=(trec(f"iprec_at_recall_{level_text(level)}", cut=False),),
        divides_by_relevant=True,
    )


def _eleven_point(policy: Policy, stats: GroupStats) -> pl.Expr:
    # Added left to right as written, then times 1/11: Polars divides a per-group scalar by
    # a literal as a product with its reciprocal but a column by an exact division, so a
    # quotient would move the last bit between `evaluate` and the expressions in `agg`.
    points = [stats.whole(iprec_column(level)).cast(pl.Float64) for level in IPREC_LEVELS]
    return functools.reduce(operator.add, points) * (1.0 / len(IPREC_LEVELS))


def _rprec_mult(multiple: float) -> Metric:
    column = rprec_mult_column(multiple)

    def formula(policy: Policy, stats: GroupStats) -> pl.Expr:
        return ratio_or_zero(stats.whole(column), rprec_mult_cutoff(multiple, stats.n_relevant))

    return Metric(
        name=next(name for name, of in RPREC_MULTIPLE_OF.items() if of == multiple),
        title=f"R-precision x {level_text(multiple)}",
        definition=f"precision at rank c = (long) ({level_text(multiple)} R + 0.9), hits "
        "within c / c; 0 when c is 0 (trec_eval Rprec_mult)",
        citation=_SOURCE.format("m_Rprec_mult.c"),
        has_k=False,
        terms=(column,),
        formula=without_k(formula),
        trec_eval=f"Rprec_mult_{level_text(multiple)}",
        aliases=(trec(f"Rprec_mult_{level_text(multiple)}", cut=False),),
        divides_by_relevant=True,
    )


METRICS: tuple[Metric, ...] = (
    *(_iprec(level) for level in IPREC_LEVELS),
    Metric(
        name="eleven_point_precision",
        title="11-point average precision",
        definition="the mean of the 11 interpolated precisions at recall 0.0, 0.1, ..., 1.0 "
        "(trec_eval 11pt_avg)",
        citation=_SOURCE.format("m_11pt_avg.c") + "; Manning et al. (2008), §8.4",
        has_k=False,
        terms=tuple(iprec_column(level) for level in IPREC_LEVELS),
        formula=without_k(_eleven_point),
        trec_eval="11pt_avg",
        aliases=(trec("11pt_avg", cut=False),),
        divides_by_relevant=True,
    ),
    *(_rprec_mult(multiple) for multiple in RPREC_MULTIPLES),
    Metric(
        name="relative_precision",
        title="Relative P@K",
        definition="hits in the top K / min(K, R), the most the top K can hold; 0 when R = 0 "
        "(trec_eval relative_P_k)",
        citation=_SOURCE.format("m_rel_P.c"),
        terms=(HITS,),
        formula=at_k(_relative_precision),
        trec_eval="relative_P_{k}",
        aliases=(trec("relative_P"),),
        divides_by_relevant=True,
    ),
    Metric(
        name="unjudged",
        title="Unjudged@K",
        definition="share of the top K without a judgement in the truth, / K; a negative "
        "grade is unjudged under Policy.trec_eval() (trec_eval unj_k)",
        citation=_SOURCE.format("m_unjudged.c"),
        direction="lower",
        terms=(JUDGED,),
        formula=at_k(_unjudged),
        trec_eval="unj_{k}",
        aliases=(trec("unj"),),
    ),
    Metric(
        name="infap",
        title="infAP",
        definition="inferred AP: over retrieved relevant rows at rank i with x judged rows "
        "above, r of them relevant, u pooled but unjudged (a negative grade under "
        "negative_grades='unjudged'), (1 + (x + u) (r + e) / (x + 2e)) / i, summed, / R; "
        "e = 1e-5; AP when every row above a relevant one is judged (trec_eval infAP)",
        citation="Yilmaz & Aslam, CIKM 2006; " + _SOURCE.format("m_infap.c, form_res_rels.c"),
        has_k=False,
        terms=(INFAP,),
        formula=without_k(_infap),
        trec_eval="infAP",
        ir_measures="infAP",
        aliases=(trec("infAP", cut=False), ir("infAP", cut=False)),
        divides_by_relevant=True,
    ),
    Metric(
        name="binary_g",
        title="binG",
        definition="over retrieved relevant rows, 1 / log2(2 + the rows above it that are not "
        "relevant, unjudged included), summed, / R (trec_eval binG)",
        citation=_SOURCE.format("m_binG.c"),
        has_k=False,
        terms=(BINARY_G,),
        formula=without_k(_binary_g),
        trec_eval="binG",
        aliases=(trec("binG", cut=False),),
        divides_by_relevant=True,
        deep=True,
    ),
    Metric(
        name="set_relative_precision",
        title="Set relative precision",
        definition="relevant items in the whole list / min(its length, R) (trec_eval "
        "set_relative_P)",
        citation=_SOURCE.format("m_set_rel_P.c"),
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(_set_relative_precision),
        trec_eval="set_relative_P",
        ir_measures="SetRelP",  # ir_measures' SetP(relative=True), pytrec_eval's set_relative_P
        aliases=(trec("set_relative_P", cut=False), ir("SetRelP", cut=False)),
        divides_by_relevant=True,
    ),
    Metric(
        name="set_average_precision",
        title="Set MAP",
        definition="set precision x set recall: relevant retrieved^2 / (retrieved R) "
        "(trec_eval set_map)",
        citation=_SOURCE.format("m_set_map.c"),
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(_set_map),
        trec_eval="set_map",
        ir_measures="SetAP",
        aliases=(trec("set_map", cut=False), ir("SetAP", cut=False)),
        divides_by_relevant=True,
    ),
    Metric(
        name="utility",
        title="Utility",
        definition="set utility 1 a - 1 b + 0 c + 0 d over relevant retrieved a, non-relevant "
        "retrieved b, relevant not retrieved c (trec_eval utility, default coefficients)",
        citation=_SOURCE.format("m_utility.c"),
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(_utility),
        trec_eval="utility",
        aliases=(trec("utility", cut=False),),
    ),
    Metric(
        name="num_nonrelevant_judged_retrieved",
        title="Judged non-relevant retrieved",
        definition="judged non-relevant items in the whole ranked list (trec_eval "
        "num_nonrel_judged_ret)",
        citation=_SOURCE.format("m_num_nonrel_judged_ret.c"),
        direction="lower",
        has_k=False,
        terms=(JUDGED_RETRIEVED, RELEVANT_RETRIEVED),
        formula=without_k(_nonrelevant_judged),
        trec_eval="num_nonrel_judged_ret",
        aliases=(trec("num_nonrel_judged_ret", cut=False),),
    ),
    Metric(
        name="gm_average_precision",
        parameters=(AP_DENOMINATOR,),
        title="GM-AP",
        definition="AP per group; summary() takes the geometric mean over groups, each value "
        "floored at 1e-5 (trec_eval gm_map, summary only)",
        citation=_SOURCE.format("m_gm_map.c, meas_avg.c"),
        terms=(PRECISION_SUM,),
        formula=at_k(formulas.average_precision),
        aliases=(trec("gm_map", cut=False, whole_list=True),),
        divides_by_relevant=True,
        aggregate="geometric",
        per_group_as="average_precision",
    ),
    Metric(
        name="gm_bpref",
        title="GM-bpref",
        definition="bpref per group; summary() takes the geometric mean over groups, each "
        "value floored at 1e-5 (trec_eval gm_bpref, summary only)",
        citation=_SOURCE.format("m_gm_bpref.c, meas_avg.c"),
        has_k=False,
        terms=(BPREF,),
        formula=without_k(formulas.bpref),
        trec_eval="gm_bpref",
        aliases=(trec("gm_bpref", cut=False),),
        divides_by_relevant=True,
        aggregate="geometric",
        per_group_as="bpref",
    ),
    Metric(
        name="trec_rbp_residual",
        parameters=(RBP_PERSISTENCE,),
        title="RBP resid@K",
        definition="rbp_residual@K where the top min(K, n) holds an unjudged row, else 0: "
        "p^n + (1 - p) sum of p^(i-1) over unjudged ranks i (trec_eval rbp_resid, whole "
        "list, p = Policy.rbp_persistence, 0.9 under Policy.trec_eval())",
        citation=_SOURCE.format("m_rbp_resid.c") + "; Moffat & Zobel, TOIS 27(1) 2008",
        direction="lower",
        terms=(RBP_JUDGED, JUDGED),
        formula=at_k(_rbp_resid),
        aliases=(trec("rbp_resid", cut=False, whole_list=True),),
    ),
)
