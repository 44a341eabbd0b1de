"""The judgement-aware IR measures: asked for by name, not evaluated by default."""

from __future__ import annotations

from polars_rankk.core.columns import BPREF, DCG, ERR, JUDGED, RBP, RBP_JUDGED
from polars_rankk.core.metrics import formulas
from polars_rankk.core.metrics.declaration import Metric
from polars_rankk.core.metrics.families.shared import at_k, ir, trec, without_k
from polars_rankk.core.metrics.parameters import (
    ERR_MAX_GRADE,
    NDCG_GAIN,
    RBP_GRADES,
    RBP_PERSISTENCE,
)

__all__ = ["METRICS"]

METRICS: tuple[Metric, ...] = (
    Metric(
        name="dcg",
        parameters=NDCG_GAIN,
        title="DCG@K",
        definition="unnormalised DCG@K: sum of gain / log2(rank + 1) over the top K",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002",
        terms=(DCG,),
        formula=at_k(formulas.dcg),
    ),
    Metric(
        name="err",
        parameters=(ERR_MAX_GRADE,),
        title="ERR@K",
        definition="expected reciprocal rank of the stop of a cascade user, a grade g stopping "
        "with chance (2^g - 1) / 2^g_max (Policy.err_max_grade, default 4 as gdeval)",
        citation="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009",
        terms=(ERR,),
        formula=at_k(formulas.err),
        ir_measures="ERR@{k}",
        aliases=(ir("ERR", whole_list=True),),
    ),
    Metric(
        name="rbp",
        parameters=(RBP_PERSISTENCE, RBP_GRADES),
        title="RBP@K",
        definition="rank-biased precision (1 - p) sum of p^(i-1) over relevant ranks i <= K, "
        "p = Policy.rbp_persistence (default 0.8); unjudged items count as non-relevant",
        citation="Moffat & Zobel, TOIS 27(1) 2008",
        terms=(RBP,),
        formula=at_k(formulas.rbp),
        ir_measures="RBP(p={p})@{k}",
        aliases=(ir("RBP", whole_list=True),),
    ),
    Metric(
        name="rbp_residual",
        parameters=(RBP_PERSISTENCE,),
        title="RBP residual@K",
        definition="the most rbp@K could grow were every unjudged rank within min(K, n) and "
        "every rank past it relevant: 1 - (1 - p) sum of p^(i-1) over judged ranks i",
        citation="Moffat & Zobel, TOIS 27(1) 2008, §4 (residuals)",
        # A residual is an uncertainty: the smaller, the better the judgements cover the list.
        direction="lower",
        terms=(RBP_JUDGED,),
        formula=at_k(formulas.rbp_residual),
    ),
    Metric(
        name="judged",
        title="Judged@K",
        definition="share of the top K with any judgement in the truth (non-relevant grades "
        "included); / min(K, n) under short_lists='observed', as ir_measures",
        citation="ir_measures Judged@k (after OpenNIR); Sakai, SIGIR 2007",
        terms=(JUDGED,),
        formula=at_k(formulas.judged),
        ir_measures="Judged@{k}",
        aliases=(ir("Judged", whole_list=True),),
    ),
    Metric(
        name="bpref",
        title="bpref",
        definition="over retrieved relevant items, 1 - min(n, R) / min(N, R) for the n judged "
        "non-relevant items above it (N judged non-relevant in all), / R; unjudged skipped",
        citation="Buckley & Voorhees, SIGIR 2004; trec_eval bpref (m_bpref.c)",
        has_k=False,
        terms=(BPREF,),
        formula=without_k(formulas.bpref),
        trec_eval="bpref",
        ir_measures="Bpref",
        aliases=(ir("Bpref", cut=False), trec("bpref", cut=False)),
        divides_by_relevant=True,
    ),
)
