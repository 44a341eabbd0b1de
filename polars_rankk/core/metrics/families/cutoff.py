"""The cut-off ranking metrics evaluated by default (and the rank of the first hit)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from polars_rankk.core.columns import DCG, FIRST_HIT, HITS, PRECISION_SUM, RECIPROCAL_RANK
from polars_rankk.core.metrics import formulas
from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.declaration import Alias, Metric, Micro
from polars_rankk.core.metrics.families.shared import (
    MANNING,
    at_k,
    hits,
    ir,
    relevant,
    trec,
    without_k,
)
from polars_rankk.core.metrics.formulas import GroupStats, safe_ratio
from polars_rankk.core.metrics.parameters import AP_DENOMINATOR, F_BETA, NDCG_GAIN
from polars_rankk.core.policy import Policy


def _micro_f1(total: Mapping[str, pl.Expr]) -> pl.Expr:
    p = safe_ratio(total["hits"], total["denominator"])
    r = safe_ratio(total["hits"], total["relevant"])
    # beta^2 was summed once per group: the mean gives it back.
    weight = total["beta_squared"] / total["n_groups"]
    return pl.when(p + r > 0).then((1.0 + weight) * p * r / (weight * p + r)).otherwise(0.0)


def _beta_squared(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
    return stats.n_candidates * 0.0 + float(policy.f_beta) ** 2


__all__ = ["METRICS"]

METRICS: tuple[Metric, ...] = (
    Metric(
        name="precision",
        title="Precision@K",
        definition="hits in the top K / K (trec_eval P_k)",
        citation=MANNING,
        terms=(HITS,),
        formula=at_k(formulas.precision),
        micro=Micro.ratio(hits, at_k(formulas.precision_denominator)),
        trec_eval="P_{k}",
        ir_measures="P@{k}",
        aliases=(ir("P"), trec("P")),
        default=True,
    ),
    Metric(
        name="recall",
        title="Recall@K",
        definition="hits in the top K / R, the number of relevant items (trec_eval recall_k)",
        citation=MANNING,
        terms=(HITS,),
        formula=at_k(formulas.recall),
        micro=Micro.ratio(hits, relevant),
        trec_eval="recall_{k}",
        ir_measures="R@{k}",
        aliases=(ir("R"), trec("recall")),
        divides_by_relevant=True,
        default=True,
        deep=True,
    ),
    Metric(
        name="f1",
        parameters=(F_BETA,),
        title="F1@K",
        definition="F-beta of precision@K and recall@K, (1 + b^2) P R / (b^2 P + R), "
        "b = Policy.f_beta (default 1: the harmonic mean); 0 when both are 0",
        citation="van Rijsbergen, Information Retrieval (1979), ch. 7",
        terms=(HITS,),
        formula=at_k(formulas.f1),
        micro=Micro(
            sums=lambda policy, k, stats: {
                "hits": hits(policy, k, stats),
                "denominator": at_k(formulas.precision_denominator)(policy, k, stats),
                "relevant": stats.n_relevant,
                "beta_squared": _beta_squared(policy, k, stats),
            },
            value=_micro_f1,
        ),
        default=True,
    ),
    Metric(
        name="hit_rate",
        title="HitRate@K",
        definition="1 if any relevant item is in the top K, else 0 (trec_eval success_k)",
        citation="trec_eval success_k; Deshpande & Karypis, TOIS 22(1) 2004 (hit rate)",
        terms=(FIRST_HIT,),
        formula=at_k(formulas.hit_rate),
        micro=Micro(
            sums=lambda policy, k, stats: {"hit": at_k(formulas.hit_rate)(policy, k, stats)},
            value=lambda total: safe_ratio(total["hit"], total["n_groups"]),
        ),
        trec_eval="success_{k}",
        ir_measures="Success@{k}",
        aliases=(
            ir("Success"),
            trec("success"),
            Alias("hitrate", "alias", True),
            Alias("HR", "alias", True),
            Alias("Hit", "alias", True),
        ),
        discrete=True,
        default=True,
    ),
    Metric(
        name="ndcg",
        parameters=NDCG_GAIN,
        title="nDCG@K",
        definition="DCG@K / ideal DCG@K, gain / log2(rank + 1) (trec_eval ndcg_cut_k)",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002",
        terms=(DCG,),
        formula=at_k(formulas.ndcg),
        trec_eval="ndcg_cut_{k}",
        ir_measures="nDCG@{k}",
        aliases=(ir("nDCG", whole_list=True), trec("ndcg_cut")),
        default=True,
        deep=True,
    ),
    Metric(
        name="average_precision",
        parameters=(AP_DENOMINATOR,),
        title="AP@K",
        definition="sum of precision@i at relevant ranks i <= K, / R (trec_eval map_cut_k)",
        citation="Buckley & Voorhees, SIGIR 2000; trec_eval map_cut",
        terms=(PRECISION_SUM,),
        formula=at_k(formulas.average_precision),
        trec_eval="map_cut_{k}",
        ir_measures="AP@{k}",
        aliases=(
            ir("AP", whole_list=True),
            trec("map_cut"),
            trec("map", cut=False, whole_list=True),
        ),
        divides_by_relevant=True,
        default=True,
        deep=True,
    ),
    Metric(
        name="hit_rank",
        title="HitRank@K",
        definition="rank of the first relevant item within K, K + 1 if none (lower is better)",
        citation="the rank of the first hit; its reciprocal is MRR@K",
        direction="lower",
        terms=(term_table.TERMS["_rk_first_rank"].column, FIRST_HIT),
        formula=at_k(
            lambda policy, k, stats: (
                stats.at("_rk_first_rank", k) + (k + 1) * (1.0 - stats.at(FIRST_HIT, k))
            )
        ),
        discrete=True,
    ),
    Metric(
        name="mrr",
        title="MRR@K",
        # trec_eval's recip_rank reads the whole list: it is mrr without K, not mrr@K.
        definition="1 / rank of the first relevant item within K, 0 if none",
        citation="Voorhees, TREC-8 Question Answering Track Report (1999)",
        terms=(RECIPROCAL_RANK,),
        formula=at_k(formulas.mrr),
        trec_eval="recip_rank",
        ir_measures="RR@{k}",
        aliases=(
            ir("RR", whole_list=True),
            # ir_measures' MRR is its RR: the whole list without a cut-off (the canonical,
            # lower-case mrr is read at the evaluation's K).
            ir("MRR", whole_list=True),
            trec("recip_rank", cut=False, whole_list=True),
        ),
        default=True,
        deep=True,
    ),
    Metric(
        name="r_precision",
        title="R-precision",
        definition="precision at rank R, the number of relevant items (trec_eval Rprec)",
        citation="Buckley & Voorhees, SIGIR 2000; trec_eval Rprec",
        has_k=False,
        terms=(HITS,),
        counts=("hits_at_r",),
        formula=without_k(formulas.r_precision),
        micro=Micro.ratio(hits, relevant),
        trec_eval="Rprec",
        ir_measures="Rprec",
        aliases=(ir("Rprec", cut=False), trec("Rprec", cut=False)),
        divides_by_relevant=True,
        default=True,
    ),
)
