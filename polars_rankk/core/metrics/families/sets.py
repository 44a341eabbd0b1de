"""Set measures over the whole retrieved list (trec_eval's set_* and num_* measures)."""

from __future__ import annotations

from polars_rankk.core.columns import RELEVANT_RETRIEVED
from polars_rankk.core.metrics import formulas
from polars_rankk.core.metrics.declaration import Alias, Metric
from polars_rankk.core.metrics.families.shared import MANNING, ir, trec, without_k
from polars_rankk.core.metrics.parameters import F_BETA

__all__ = ["METRICS"]

METRICS: tuple[Metric, ...] = (
    Metric(
        name="set_precision",
        title="Set precision",
        definition="relevant items in the whole list / its length (trec_eval set_P)",
        citation=MANNING + "; trec_eval set_P",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(formulas.set_precision),
        trec_eval="set_P",
        ir_measures="SetP",
        aliases=(ir("SetP", cut=False), trec("set_P", cut=False)),
    ),
    Metric(
        name="set_recall",
        title="Set recall",
        definition="relevant items in the whole list / R (trec_eval set_recall)",
        citation=MANNING + "; trec_eval set_recall",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(formulas.set_recall),
        trec_eval="set_recall",
        ir_measures="SetR",
        aliases=(ir("SetR", cut=False), trec("set_recall", cut=False)),
        divides_by_relevant=True,
    ),
    Metric(
        name="set_f",
        parameters=(F_BETA,),
        title="Set F",
        definition="F-beta of set precision and set recall, b = Policy.f_beta (trec_eval "
        "set_F.x with x = b^2)",
        citation="van Rijsbergen, Information Retrieval (1979), ch. 7; trec_eval set_F",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(formulas.set_f),
        trec_eval="set_F",
        ir_measures="SetF",
        aliases=(ir("SetF", cut=False), trec("set_F", cut=False)),
    ),
    Metric(
        name="num_retrieved",
        title="Retrieved",
        definition="the length of the ranked list after de-duplication (trec_eval num_ret)",
        citation="trec_eval num_ret",
        has_k=False,
        formula=without_k(formulas.retrieved),
        trec_eval="num_ret",
        ir_measures="NumRet",
        aliases=(ir("NumRet", cut=False), trec("num_ret", cut=False)),
    ),
    Metric(
        name="num_relevant",
        title="Relevant",
        definition="R, the relevant items in the truth (trec_eval num_rel)",
        citation="trec_eval num_rel",
        has_k=False,
        formula=without_k(formulas.relevant),
        trec_eval="num_rel",
        ir_measures="NumRel",
        aliases=(ir("NumRel", cut=False), trec("num_rel", cut=False)),
    ),
    Metric(
        name="num_relevant_retrieved",
        title="Relevant retrieved",
        definition="relevant items in the whole ranked list (trec_eval num_rel_ret; "
        "ir_measures NumRet(rel=1))",
        citation="trec_eval num_rel_ret",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=without_k(formulas.relevant_retrieved),
        trec_eval="num_rel_ret",
        ir_measures="NumRet",
        aliases=(trec("num_rel_ret", cut=False), Alias("NumRelRet", "alias", False)),
    ),
)
