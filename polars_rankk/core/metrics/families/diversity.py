"""Subtopic (diversity) metrics: the truth judges each item per subtopic (intent).

They are computed per group from the ranking and the (group, subtopic, item) judgements by
`polars_rankk.core.evaluation.diversity`, in pure Polars, and equal ndeval (the TREC Web
track's evaluator, through pyndeval and ir_measures) number for number: a judgement is binary
(grade >= ``Policy.relevance_threshold``), an unjudged item is non-relevant, the ideal ranking
of the normalised measures is built greedily rank by rank (ties to the larger item id, byte
order) and a group without a relevant subtopic scores 0. ``Policy.diversity_alpha`` is the
redundancy penalty alpha (ir_measures ``alpha=``, default 0.5), ``Policy.nrbp_beta`` NRBP's
patience beta (default 0.5), also nNRBP's. What each measures: docs/definitions.md.
"""

from __future__ import annotations

from polars_rankk.core.metrics.declaration import Alias, Metric
from polars_rankk.core.metrics.families.shared import ir
from polars_rankk.core.metrics.parameters import ALPHA, NRBP_BETA

_CLARKE_2008 = "Clarke et al., SIGIR 2008 (alpha-nDCG); ndeval"
_AGRAWAL = "Agrawal et al., WSDM 2009 (intent-aware measures); ndeval"


def _ndeval(spelling: str, cut: bool = True) -> Alias:
    # ndeval's own column names (alpha-nDCG@20, ERR-IA@20, strec@20, MAP-IA).
    return Alias(spelling, "alias", cut)


DIVERSITY_METRICS: tuple[Metric, ...] = (
    Metric(
        name="alpha_ndcg",
        parameters=(ALPHA,),
        title="α-nDCG@K",
        definition="alpha-DCG@K (an item gains (1-alpha)^c for each subtopic it covers, c its "
        "earlier coverers, discounted by log2(rank+1)) over that of the greedy ideal ranking",
        citation=_CLARKE_2008,
        kind="diversity",
        ir_measures="alpha_nDCG@{k}",
        aliases=(
            ir("alpha_nDCG"),
            _ndeval("alpha-nDCG"),
            Alias("α-nDCG", "alias", True),
            Alias("α_nDCG", "alias", True),
        ),
        requires=("subtopic",),
    ),
    Metric(
        name="alpha_dcg",
        parameters=(ALPHA,),
        title="α-DCG@K",
        definition="alpha-DCG@K over ndeval's 'ideal ideal' (every subtopic at every rank, "
        "discounted by log2(rank+1)); ndeval does not divide at K = 1",
        citation=_CLARKE_2008,
        kind="diversity",
        ir_measures="alpha_DCG@{k}",
        aliases=(ir("alpha_DCG"), _ndeval("alpha-DCG")),
        requires=("subtopic",),
    ),
    Metric(
        name="err_ia",
        parameters=(ALPHA,),
        title="ERR-IA@K",
        definition="intent-aware ERR as ndeval: sum of the alpha-gains over rank, over the "
        "'ideal ideal' (every subtopic at every rank); ndeval does not divide at K = 1",
        citation="Chapelle et al., CIKM 2009 (ERR-IA); " + _AGRAWAL,
        kind="diversity",
        ir_measures="ERR_IA@{k}",
        aliases=(ir("ERR_IA"), _ndeval("ERR-IA")),
        requires=("subtopic",),
    ),
    Metric(
        name="nerr_ia",
        parameters=(ALPHA,),
        title="nERR-IA@K",
        definition="ERR-IA@K over that of the greedy ideal ranking",
        citation="Chapelle et al., CIKM 2009 (ERR-IA); " + _AGRAWAL,
        kind="diversity",
        ir_measures="nERR_IA@{k}",
        aliases=(ir("nERR_IA"), _ndeval("nERR-IA")),
        requires=("subtopic",),
    ),
    Metric(
        name="p_ia",
        title="P-IA@K",
        definition="intent-aware precision: (item, subtopic) hits in the top K over K times "
        "the subtopics with a relevant item",
        citation=_AGRAWAL,
        kind="diversity",
        ir_measures="P_IA@{k}",
        aliases=(ir("P_IA"), _ndeval("P-IA")),
        requires=("subtopic",),
    ),
    Metric(
        name="ap_ia",
        title="AP-IA",
        definition="intent-aware average precision: the mean over subtopics with a relevant "
        "item of the subtopic's average precision over the whole list",
        citation=_AGRAWAL,
        kind="diversity",
        has_k=False,
        ir_measures="AP_IA",
        aliases=(ir("AP_IA", cut=False), ir("MAP_IA", cut=False), _ndeval("MAP-IA", cut=False)),
        requires=("subtopic",),
    ),
    Metric(
        name="st_recall",
        title="S-recall@K",
        definition="subtopic recall: the share of subtopics with a relevant item that the top "
        "K cover",
        citation="Zhai, Cohen & Lafferty, SIGIR 2003 (S-recall); ndeval strec",
        kind="diversity",
        ir_measures="StRecall@{k}",
        aliases=(ir("StRecall"), _ndeval("strec")),
        requires=("subtopic",),
    ),
    Metric(
        name="nrbp",
        parameters=(ALPHA, NRBP_BETA),
        title="NRBP",
        definition="novelty- and rank-biased precision over the whole list: alpha-gains "
        "weighed by beta^(rank-1), times (1 - (1-alpha) beta) / subtopics",
        citation="Clarke, Kolla & Vechtomova, ICTIR 2009 (NRBP); ndeval",
        kind="diversity",
        has_k=False,
        ir_measures="NRBP",
        aliases=(ir("NRBP", cut=False),),
        requires=("subtopic",),
    ),
    Metric(
        name="nnrbp",
        parameters=(ALPHA, NRBP_BETA),
        title="nNRBP",
        definition="NRBP over the NRBP of the greedy ideal ranking (all its ranks; the same "
        "ideal as alpha-nDCG's); ndeval's 0/0 without a relevant subtopic is the empty-truth "
        "policy's value",
        citation="Clarke, Kolla & Vechtomova, ICTIR 2009 (NRBP); ndeval nNRBP",
        kind="diversity",
        has_k=False,
        ir_measures="nNRBP",
        aliases=(ir("nNRBP", cut=False),),
        requires=("subtopic",),
    ),
)
