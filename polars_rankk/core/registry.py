"""The metric registry: every metric declared once.

A `Metric` says what a metric is — its name, whether it takes a cut-off K, whether it divides
by R_g, whether it has a micro average, its one-line definition with its citation, the names
trec_eval and ir_measures give it, which cumulated per-row terms of the prepared ranking it
reads, and the expression that computes it from them. Validation, evaluation, aggregation, the
CLI's choices, the report and `docs/definitions.md` all read this table; adding a metric is one
entry here plus its formula (`polars_rankk.core.metrics`) and its tests.

Examples
--------
>>> from polars_rankk.core.registry import REGISTRY
>>> REGISTRY["ndcg"].trec_eval_name(10), REGISTRY["ndcg"].ir_measures_name(10)
('ndcg_cut_10', 'nDCG@10')
>>> [name for name, metric in REGISTRY.items() if metric.micro]
['precision', 'recall', 'f1', 'hit_rate', 'r_precision']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import polars as pl

from polars_rankk.core import metrics as formulas
from polars_rankk.core.columns import (
    BPREF,
    DCG,
    ERR,
    FIRST_HIT,
    HITS,
    HITS_AT_R,
    IDEAL_DCG,
    JUDGED,
    PRECISION_SUM,
    RBP,
    RBP_JUDGED,
    RECIPROCAL_RANK,
)
from polars_rankk.core.metrics import COLUMNS, GroupStats
from polars_rankk.core.policy import Policy


@dataclass(frozen=True)
class Metric:
    """One metric: what it is, how it is named, and how it is computed.

    Attributes
    ----------
    name
        The canonical snake_case name used in every output (``metric`` column).
    title
        How charts and reports title it (``"nDCG@K"``).
    has_k
        Whether it takes a cut-off K (``r_precision`` cuts at R_g instead).
    divides_by_relevant
        Whether its value divides by R_g: it scores 0 on groups without a relevant item under
        ``Policy(empty_truth="zero")``.
    micro
        Whether it has a micro average (a ratio of counts summed over groups).
    discrete
        Whether every per-group value is 0 or 1 (charts show the share of each value).
    definition
        One line: what it measures, with its reference convention.
    citation
        Where the definition comes from.
    trec_eval, ir_measures
        Its name in trec_eval and ir_measures, ``{k}`` standing for the cut-off.
    needs
        The cumulated per-row terms of the prepared ranking it reads.
    formula
        ``formula(policy, k, stats)``: its value from a group's statistics (k is None for a
        metric without a cut-off); see `value`.
    default
        Whether ``metrics=None`` evaluates it (the judgement-aware IR measures and the
        beyond-accuracy metrics are asked for by name).
    level
        ``"group"``: one value per group (and K), in ``per_group``; ``"catalogue"``: one value
        per K over all lists, in ``Evaluation.catalogue``.
    requires
        The `evaluate` inputs besides the ranking it reads (``"popularity"``,
        ``"item_features"``); a beyond-accuracy metric never reads relevance.
    """

    name: str
    title: str
    has_k: bool
    divides_by_relevant: bool
    micro: bool
    discrete: bool
    definition: str
    citation: str
    trec_eval: str | None
    ir_measures: str | None
    needs: tuple[str, ...]
    formula: Callable[[Policy, int | None, GroupStats], pl.Expr]
    default: bool = True
    level: Literal["group", "catalogue"] = "group"
    requires: tuple[str, ...] = ()

    @property
    def accuracy(self) -> bool:
        """Whether it is computed from relevance by `formula` (False: a beyond-accuracy
        metric, computed by `polars_rankk.core.beyond_accuracy` from the top-K items)."""
        return self.level == "group" and not self.requires

    def value(self, policy: Policy, k: int | None, stats: GroupStats = COLUMNS) -> pl.Expr:
        """Its value at cut-off `k` from a group's statistics (default: the prepared table's
        columns), before the per-group policies (`polars_rankk.core.metrics.finished`)."""
        if self.has_k and k is None:
            raise ValueError(f"{self.name} needs a cut-off k")
        return self.formula(policy, k, stats)

    def trec_eval_name(self, k: int | None = None) -> str | None:
        """Its trec_eval measure name at cut-off `k` (``P_10``), or None if trec_eval lacks it."""
        return None if self.trec_eval is None else self.trec_eval.format(k=k)

    def ir_measures_name(self, k: int | None = None, policy: Policy | None = None) -> str | None:
        """Its ir_measures name at cut-off `k` (``P@10``), or None if ir_measures lacks it;
        a parameter of the name (RBP's ``p``) is read from `policy`."""
        if self.ir_measures is None:
            return None
        persistence = (Policy() if policy is None else policy).rbp_persistence
        return self.ir_measures.format(k=k, p=persistence)

    def column(self, k: int | None) -> str:
        """Name of its wide per-group column: ``name@k``, or ``name`` without a cut-off."""
        return self.name if k is None or not self.has_k else f"{self.name}@{k}"


def _at_k(
    builder: Callable[[Policy, int, GroupStats], pl.Expr],
) -> Callable[[Policy, int | None, GroupStats], pl.Expr]:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        assert k is not None  # checked by Metric.value
        return builder(policy, k, stats)

    return formula


def _without_k(
    builder: Callable[[Policy, GroupStats], pl.Expr],
) -> Callable[[Policy, int | None, GroupStats], pl.Expr]:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        return builder(policy, stats)

    return formula


def _beyond_accuracy(name: str) -> Callable[[Policy, int | None, GroupStats], pl.Expr]:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        raise ValueError(
            f"{name} is a beyond-accuracy metric: rk.evaluate computes it from the top-K items "
            f"(and popularity= / item_features=); it has no formula over relevance"
        )

    return formula


_METRICS = (
    Metric(
        name="precision",
        title="Precision@K",
        has_k=True,
        divides_by_relevant=False,
        micro=True,
        discrete=False,
        definition="hits in the top K / K (trec_eval P_k)",
        citation="Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4",
        trec_eval="P_{k}",
        ir_measures="P@{k}",
        needs=(HITS,),
        formula=_at_k(formulas.precision),
    ),
    Metric(
        name="recall",
        title="Recall@K",
        has_k=True,
        divides_by_relevant=True,
        micro=True,
        discrete=False,
        definition="hits in the top K / R, the number of relevant items (trec_eval recall_k)",
        citation="Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4",
        trec_eval="recall_{k}",
        ir_measures="R@{k}",
        needs=(HITS,),
        formula=_at_k(formulas.recall),
    ),
    Metric(
        name="f1",
        title="F1@K",
        has_k=True,
        divides_by_relevant=False,
        micro=True,
        discrete=False,
        definition="harmonic mean of precision@K and recall@K; 0 when both are 0",
        citation="van Rijsbergen, Information Retrieval (1979), ch. 7 (F with beta = 1)",
        trec_eval=None,
        ir_measures=None,
        needs=(HITS,),
        formula=_at_k(formulas.f1),
    ),
    Metric(
        name="hit_rate",
        title="HitRate@K",
        has_k=True,
        divides_by_relevant=False,
        micro=True,
        discrete=True,
        definition="1 if any relevant item is in the top K, else 0 (trec_eval success_k)",
        citation="trec_eval success_k; Deshpande & Karypis, TOIS 22(1) 2004 (hit rate)",
        trec_eval="success_{k}",
        ir_measures="Success@{k}",
        needs=(FIRST_HIT,),
        formula=_at_k(formulas.hit_rate),
    ),
    Metric(
        name="ndcg",
        title="nDCG@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="DCG@K / ideal DCG@K, gain / log2(rank + 1) (trec_eval ndcg_cut_k)",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002",
        trec_eval="ndcg_cut_{k}",
        ir_measures="nDCG@{k}",
        needs=(DCG, IDEAL_DCG),
        formula=_at_k(formulas.ndcg),
    ),
    Metric(
        name="average_precision",
        title="AP@K",
        has_k=True,
        divides_by_relevant=True,
        micro=False,
        discrete=False,
        definition="sum of precision@i at relevant ranks i <= K, / R (trec_eval map_cut_k)",
        citation="Buckley & Voorhees, SIGIR 2000; trec_eval map_cut",
        trec_eval="map_cut_{k}",
        ir_measures="AP@{k}",
        needs=(PRECISION_SUM,),
        formula=_at_k(formulas.average_precision),
    ),
    Metric(
        name="mrr",
        title="MRR@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="1 / rank of the first relevant item within K, 0 if none (trec_eval recip_rank)",
        citation="Voorhees, TREC-8 Question Answering Track Report (1999)",
        trec_eval="recip_rank",
        ir_measures="RR@{k}",
        needs=(RECIPROCAL_RANK,),
        formula=_at_k(formulas.mrr),
    ),
    Metric(
        name="r_precision",
        title="R-precision",
        has_k=False,
        divides_by_relevant=True,
        micro=True,
        discrete=False,
        definition="precision at rank R, the number of relevant items (trec_eval Rprec)",
        citation="Buckley & Voorhees, SIGIR 2000; trec_eval Rprec",
        trec_eval="Rprec",
        ir_measures="Rprec",
        needs=(HITS_AT_R,),
        formula=_without_k(formulas.r_precision),
    ),
    # The judgement-aware IR measures (issue 14): asked for by name, not evaluated by default.
    Metric(
        name="dcg",
        title="DCG@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="unnormalised DCG@K: sum of gain / log2(rank + 1) over the top K",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002",
        trec_eval=None,
        ir_measures=None,
        needs=(DCG,),
        formula=_at_k(formulas.dcg),
        default=False,
    ),
    Metric(
        name="err",
        title="ERR@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="expected reciprocal rank of the stop of a cascade user, a grade g stopping "
        "with chance (2^g - 1) / 2^g_max (Policy.err_max_grade, default 4 as gdeval)",
        citation="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009",
        trec_eval=None,
        ir_measures="ERR@{k}",
        needs=(ERR,),
        formula=_at_k(formulas.err),
        default=False,
    ),
    Metric(
        name="rbp",
        title="RBP@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="rank-biased precision (1 - p) sum of p^(i-1) over relevant ranks i <= K, "
        "p = Policy.rbp_persistence (default 0.8); unjudged items count as non-relevant",
        citation="Moffat & Zobel, TOIS 27(1) 2008",
        trec_eval=None,
        ir_measures="RBP(p={p})@{k}",
        needs=(RBP,),
        formula=_at_k(formulas.rbp),
        default=False,
    ),
    Metric(
        name="rbp_residual",
        title="RBP residual@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="the most rbp@K could grow were every unjudged rank within min(K, n) and "
        "every rank past it relevant: 1 - (1 - p) sum of p^(i-1) over judged ranks i",
        citation="Moffat & Zobel, TOIS 27(1) 2008, §4 (residuals)",
        trec_eval=None,
        ir_measures=None,
        needs=(RBP_JUDGED,),
        formula=_at_k(formulas.rbp_residual),
        default=False,
    ),
    Metric(
        name="judged",
        title="Judged@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="share of the top K with any judgement in the truth (non-relevant grades "
        "included); / min(K, n) under short_lists='observed', as ir_measures",
        citation="ir_measures Judged@k (after OpenNIR); Sakai, SIGIR 2007",
        trec_eval=None,
        ir_measures="Judged@{k}",
        needs=(JUDGED,),
        formula=_at_k(formulas.judged),
        default=False,
    ),
    Metric(
        name="bpref",
        title="bpref",
        has_k=False,
        divides_by_relevant=True,
        micro=False,
        discrete=False,
        definition="over retrieved relevant items, 1 - min(n, R) / min(N, R) for the n judged "
        "non-relevant items above it (N judged non-relevant in all), / R; unjudged skipped",
        citation="Buckley & Voorhees, SIGIR 2004; trec_eval bpref (m_bpref.c)",
        trec_eval="bpref",
        ir_measures="Bpref",
        needs=(BPREF,),
        formula=_without_k(formulas.bpref),
        default=False,
    ),
    # Beyond accuracy (issue 15): computed from the top-K items and item tables, not from
    # relevance; asked for by name.
    Metric(
        name="novelty",
        title="Novelty@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="mean self-information -log2(share of interactions) of the top K items "
        "(an item the popularity log never saw counts as seen once)",
        citation="Zhou et al., PNAS 107(10) 2010; Vargas & Castells, RecSys 2011",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("novelty"),
        default=False,
        level="group",
        requires=("popularity",),
    ),
    Metric(
        name="arp",
        title="ARP@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="average recommendation popularity: mean interaction count of the top K items",
        citation="Abdollahpouri, Burke & Mobasher, FLAIRS 2019 (ARP)",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("arp"),
        default=False,
        level="group",
        requires=("popularity",),
    ),
    Metric(
        name="long_tail_share",
        title="Long-tail share@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="share of the top K outside the head: the most popular items that make up "
        "head_share (default 20%) of interactions, tied counts on one side",
        citation="Abdollahpouri, Burke & Mobasher, FLAIRS 2019 (APLT)",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("long_tail_share"),
        default=False,
        level="group",
        requires=("popularity",),
    ),
    Metric(
        name="intra_list_diversity",
        title="ILD@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="mean cosine distance 1 - cos(u_i, u_j) over pairs of the top K items "
        "(labels as multi-hot vectors, or an embedding)",
        citation="Ziegler, McNee, Konstan & Lausen, WWW 2005",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("intra_list_diversity"),
        default=False,
        level="group",
        requires=("item_features",),
    ),
    Metric(
        name="coverage",
        title="Coverage@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="share of the catalogue in at least one top-K list",
        citation="Ge, Delgado-Battenfeld & Jannach, RecSys 2010 (catalog coverage)",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("coverage"),
        default=False,
        level="catalogue",
    ),
    Metric(
        name="gini",
        title="Gini@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="Gini index of the catalogue's top-K exposure counts, unexposed items included",
        citation="Fleder & Hosanagar, Management Science 55(5) 2009; RecBole GiniIndex",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("gini"),
        default=False,
        level="catalogue",
    ),
    Metric(
        name="entropy",
        title="Entropy@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="Shannon entropy (bits) of the catalogue's top-K exposure shares",
        citation="Shani & Gunawardana, Recommender Systems Handbook (2011), §8.3.3",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("entropy"),
        default=False,
        level="catalogue",
    ),
    Metric(
        name="personalization",
        title="Personalization@K",
        has_k=True,
        divides_by_relevant=False,
        micro=False,
        discrete=False,
        definition="1 - mean over pairs of lists of |L_u ∩ L_v| / K, from per-item exposure "
        "counts (sum of c(c - 1)/2 shared pairs)",
        citation="Zhou et al., PNAS 107(10) 2010 (personalization, 1 - mean overlap)",
        trec_eval=None,
        ir_measures=None,
        needs=(),
        formula=_beyond_accuracy("personalization"),
        default=False,
        level="catalogue",
    ),
)

#: Every metric by name, in canonical order (the order of ``metrics=None`` and of outputs).
REGISTRY: dict[str, Metric] = {metric.name: metric for metric in _METRICS}
#: The canonical metric names, in order.
METRICS: tuple[str, ...] = tuple(REGISTRY)
#: The metrics ``metrics=None`` evaluates.
DEFAULT_METRICS: tuple[str, ...] = tuple(name for name, m in REGISTRY.items() if m.default)
#: One line per metric: what it measures, with its reference convention.
METRIC_DEFINITIONS: dict[str, str] = {name: m.definition for name, m in REGISTRY.items()}
#: Metrics that take a cut-off K.
K_METRICS: frozenset[str] = frozenset(name for name, m in REGISTRY.items() if m.has_k)
#: Metrics computed from relevance (the rest are beyond-accuracy metrics).
ACCURACY_METRICS: tuple[str, ...] = tuple(name for name, m in REGISTRY.items() if m.accuracy)
#: Metrics with a micro average (a ratio of summed counts).
MICRO_METRICS: tuple[str, ...] = tuple(name for name, m in REGISTRY.items() if m.micro)


def metric_rank(column: str = "metric") -> pl.Expr:
    """Sort key putting metric names in canonical order (unknown names after them)."""
    return pl.col(column).replace_strict(
        {name: index for index, name in enumerate(METRICS)},
        default=len(METRICS),
        return_dtype=pl.Int64,
    )
