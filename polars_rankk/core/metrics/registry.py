"""The metric registry: every fact about a metric, declared once.

A `Metric` says what a metric is — its name and the names other tools give it, whether higher
or lower is better, whether it takes a cut-off K, its kind (a per-group accuracy metric, a
per-group beyond-accuracy metric, or one figure over the catalogue), the per-rank terms it reads
(`polars_rankk.core.metrics.terms`), its formula, its micro average (or none), and whether
K-curves read
it from sums over ranks. Validation, names, evaluation, aggregation, curves, comparisons, charts
and tables (which value is "best"), the report, the CLI's choices, the docs generators and the
tests' parametrisation all read this table. A built-in metric is one entry here (plus its term
in `polars_rankk.core.metrics.terms` if it reads a new one, and its docs); a user's metric is
one call
of `polars_rankk.register_metric`.

Examples
--------
>>> from polars_rankk.core.metrics.registry import REGISTRY
>>> REGISTRY["ndcg"].trec_eval_name(10), REGISTRY["ndcg"].ir_measures_name(10)
('ndcg_cut_10', 'nDCG@10')
>>> [name for name, metric in REGISTRY.items() if metric.micro]
['precision', 'recall', 'f1', 'hit_rate', 'r_precision']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload

import polars as pl

from polars_rankk.core.columns import (
    BPREF,
    DCG,
    ERR,
    FIRST_HIT,
    HITS,
    JUDGED,
    PRECISION_SUM,
    RBP,
    RBP_JUDGED,
    RECIPROCAL_RANK,
    RELEVANT_RETRIEVED,
)
from polars_rankk.core.metrics import formulas
from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.declaration import (
    Alias,
    Direction,
    Formula,
    Kind,
    Metric,
    Micro,
    MicroSums,
)
from polars_rankk.core.metrics.families.diversity import DIVERSITY_METRICS
from polars_rankk.core.metrics.formulas import GroupStats, safe_ratio
from polars_rankk.core.policy import Policy

__all__ = [
    "ACCURACY_METRICS",
    "DEFAULT_METRICS",
    "K_METRICS",
    "LOWER_IS_BETTER",
    "METRICS",
    "METRIC_DEFINITIONS",
    "MICRO_METRICS",
    "RANK_SUMMED_METRICS",
    "REGISTRY",
    "Alias",
    "Direction",
    "Formula",
    "Kind",
    "Metric",
    "MetricNames",
    "Micro",
    "MicroSums",
    "add_metric",
    "higher_is_better",
    "metric_rank",
    "remove_metric",
    "term_needs",
]


def _at_k(builder: Callable[[Policy, int, GroupStats], pl.Expr]) -> Formula:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        assert k is not None  # checked by Metric.value
        return builder(policy, k, stats)

    return formula


def _without_k(builder: Callable[[Policy, GroupStats], pl.Expr]) -> Formula:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        return builder(policy, stats)

    return formula


def _hits(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
    return stats.hits_at_r if k is None else stats.at(HITS, k)


def _relevant(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
    return stats.n_relevant


def _micro_f1(total: Mapping[str, pl.Expr]) -> pl.Expr:
    p = safe_ratio(total["hits"], total["denominator"])
    r = safe_ratio(total["hits"], total["relevant"])
    # beta^2 was summed once per group: the mean gives it back.
    weight = total["beta_squared"] / total["n_groups"]
    return pl.when(p + r > 0).then((1.0 + weight) * p * r / (weight * p + r)).otherwise(0.0)


def _beta_squared(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
    return stats.n_candidates * 0.0 + float(policy.f_beta) ** 2


def _ir(spelling: str, cut: bool = True, whole_list: bool = False) -> Alias:
    return Alias(spelling, "ir_measures", cut, whole_list)


def _trec(spelling: str, cut: bool = True, whole_list: bool = False) -> Alias:
    return Alias(spelling, "trec_eval", cut, whole_list)


_MANNING = "Manning, Raghavan & Schütze, Introduction to IR (2008), §8.4"

_METRICS = (
    Metric(
        name="precision",
        title="Precision@K",
        definition="hits in the top K / K (trec_eval P_k)",
        citation=_MANNING,
        terms=(HITS,),
        formula=_at_k(formulas.precision),
        micro=Micro.ratio(_hits, _at_k(formulas.precision_denominator)),
        rank_summed=True,
        trec_eval="P_{k}",
        ir_measures="P@{k}",
        aliases=(_ir("P"), _trec("P")),
        default=True,
    ),
    Metric(
        name="recall",
        title="Recall@K",
        definition="hits in the top K / R, the number of relevant items (trec_eval recall_k)",
        citation=_MANNING,
        terms=(HITS,),
        formula=_at_k(formulas.recall),
        micro=Micro.ratio(_hits, _relevant),
        rank_summed=True,
        trec_eval="recall_{k}",
        ir_measures="R@{k}",
        aliases=(_ir("R"), _trec("recall")),
        divides_by_relevant=True,
        default=True,
    ),
    Metric(
        name="f1",
        title="F1@K",
        definition="F-beta of precision@K and recall@K, (1 + b^2) P R / (b^2 P + R), "
        "b = Policy.f_beta (default 1: the harmonic mean); 0 when both are 0",
        citation="van Rijsbergen, Information Retrieval (1979), ch. 7",
        terms=(HITS,),
        formula=_at_k(formulas.f1),
        micro=Micro(
            sums=lambda policy, k, stats: {
                "hits": _hits(policy, k, stats),
                "denominator": _at_k(formulas.precision_denominator)(policy, k, stats),
                "relevant": stats.n_relevant,
                "beta_squared": _beta_squared(policy, k, stats),
            },
            value=_micro_f1,
        ),
        rank_summed=True,
        default=True,
    ),
    Metric(
        name="hit_rate",
        title="HitRate@K",
        definition="1 if any relevant item is in the top K, else 0 (trec_eval success_k)",
        citation="trec_eval success_k; Deshpande & Karypis, TOIS 22(1) 2004 (hit rate)",
        terms=(FIRST_HIT,),
        formula=_at_k(formulas.hit_rate),
        micro=Micro(
            sums=lambda policy, k, stats: {"hit": _at_k(formulas.hit_rate)(policy, k, stats)},
            value=lambda total: safe_ratio(total["hit"], total["n_groups"]),
        ),
        rank_summed=True,
        trec_eval="success_{k}",
        ir_measures="Success@{k}",
        aliases=(_ir("Success"), _trec("success"), Alias("hitrate", "alias", True)),
        discrete=True,
        default=True,
    ),
    Metric(
        name="ndcg",
        title="nDCG@K",
        definition="DCG@K / ideal DCG@K, gain / log2(rank + 1) (trec_eval ndcg_cut_k)",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002",
        terms=(DCG,),
        formula=_at_k(formulas.ndcg),
        rank_summed=True,
        trec_eval="ndcg_cut_{k}",
        ir_measures="nDCG@{k}",
        aliases=(_ir("nDCG", whole_list=True), _trec("ndcg_cut")),
        default=True,
    ),
    Metric(
        name="average_precision",
        title="AP@K",
        definition="sum of precision@i at relevant ranks i <= K, / R (trec_eval map_cut_k)",
        citation="Buckley & Voorhees, SIGIR 2000; trec_eval map_cut",
        terms=(PRECISION_SUM,),
        formula=_at_k(formulas.average_precision),
        rank_summed=True,
        trec_eval="map_cut_{k}",
        ir_measures="AP@{k}",
        aliases=(
            _ir("AP", whole_list=True),
            _trec("map_cut"),
            _trec("map", cut=False, whole_list=True),
        ),
        divides_by_relevant=True,
        default=True,
    ),
    Metric(
        name="hit_rank",
        title="HitRank@K",
        definition="rank of the first relevant item within K, K + 1 if none (lower is better)",
        citation="the rank of the first hit; its reciprocal is MRR@K",
        direction="lower",
        terms=(term_table.TERMS["_rk_first_rank"].column, FIRST_HIT),
        formula=_at_k(
            lambda policy, k, stats: (
                stats.at("_rk_first_rank", k) + (k + 1) * (1.0 - stats.at(FIRST_HIT, k))
            )
        ),
        discrete=True,
    ),
    Metric(
        name="mrr",
        title="MRR@K",
        definition="1 / rank of the first relevant item within K, 0 if none (trec_eval recip_rank)",
        citation="Voorhees, TREC-8 Question Answering Track Report (1999)",
        terms=(RECIPROCAL_RANK,),
        formula=_at_k(formulas.mrr),
        rank_summed=True,
        trec_eval="recip_rank",
        ir_measures="RR@{k}",
        aliases=(_ir("RR", whole_list=True), _trec("recip_rank", cut=False, whole_list=True)),
        default=True,
    ),
    Metric(
        name="r_precision",
        title="R-precision",
        definition="precision at rank R, the number of relevant items (trec_eval Rprec)",
        citation="Buckley & Voorhees, SIGIR 2000; trec_eval Rprec",
        has_k=False,
        terms=(HITS,),
        counts=("hits_at_r",),
        formula=_without_k(formulas.r_precision),
        micro=Micro.ratio(_hits, _relevant),
        trec_eval="Rprec",
        ir_measures="Rprec",
        aliases=(_ir("Rprec", cut=False), _trec("Rprec", cut=False)),
        divides_by_relevant=True,
        default=True,
    ),
    # The judgement-aware IR measures: asked for by name, not evaluated by default.
    Metric(
        name="dcg",
        title="DCG@K",
        definition="unnormalised DCG@K: sum of gain / log2(rank + 1) over the top K",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002",
        terms=(DCG,),
        formula=_at_k(formulas.dcg),
    ),
    Metric(
        name="err",
        title="ERR@K",
        definition="expected reciprocal rank of the stop of a cascade user, a grade g stopping "
        "with chance (2^g - 1) / 2^g_max (Policy.err_max_grade, default 4 as gdeval)",
        citation="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009",
        terms=(ERR,),
        formula=_at_k(formulas.err),
        ir_measures="ERR@{k}",
        aliases=(_ir("ERR", whole_list=True),),
    ),
    Metric(
        name="rbp",
        title="RBP@K",
        definition="rank-biased precision (1 - p) sum of p^(i-1) over relevant ranks i <= K, "
        "p = Policy.rbp_persistence (default 0.8); unjudged items count as non-relevant",
        citation="Moffat & Zobel, TOIS 27(1) 2008",
        terms=(RBP,),
        formula=_at_k(formulas.rbp),
        ir_measures="RBP(p={p})@{k}",
        aliases=(_ir("RBP", whole_list=True),),
    ),
    Metric(
        name="rbp_residual",
        title="RBP residual@K",
        definition="the most rbp@K could grow were every unjudged rank within min(K, n) and "
        "every rank past it relevant: 1 - (1 - p) sum of p^(i-1) over judged ranks i",
        citation="Moffat & Zobel, TOIS 27(1) 2008, §4 (residuals)",
        # A residual is an uncertainty: the smaller, the better the judgements cover the list.
        direction="lower",
        terms=(RBP_JUDGED,),
        formula=_at_k(formulas.rbp_residual),
    ),
    Metric(
        name="judged",
        title="Judged@K",
        definition="share of the top K with any judgement in the truth (non-relevant grades "
        "included); / min(K, n) under short_lists='observed', as ir_measures",
        citation="ir_measures Judged@k (after OpenNIR); Sakai, SIGIR 2007",
        terms=(JUDGED,),
        formula=_at_k(formulas.judged),
        ir_measures="Judged@{k}",
        aliases=(_ir("Judged", whole_list=True),),
    ),
    Metric(
        name="bpref",
        title="bpref",
        definition="over retrieved relevant items, 1 - min(n, R) / min(N, R) for the n judged "
        "non-relevant items above it (N judged non-relevant in all), / R; unjudged skipped",
        citation="Buckley & Voorhees, SIGIR 2004; trec_eval bpref (m_bpref.c)",
        has_k=False,
        terms=(BPREF,),
        formula=_without_k(formulas.bpref),
        trec_eval="bpref",
        ir_measures="Bpref",
        aliases=(_ir("Bpref", cut=False), _trec("bpref", cut=False)),
        divides_by_relevant=True,
    ),
    # Set measures over the whole retrieved list (trec_eval's set_* and num_* measures).
    Metric(
        name="set_precision",
        title="Set precision",
        definition="relevant items in the whole list / its length (trec_eval set_P)",
        citation=_MANNING + "; trec_eval set_P",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=_without_k(formulas.set_precision),
        trec_eval="set_P",
        ir_measures="SetP",
        aliases=(_ir("SetP", cut=False), _trec("set_P", cut=False)),
    ),
    Metric(
        name="set_recall",
        title="Set recall",
        definition="relevant items in the whole list / R (trec_eval set_recall)",
        citation=_MANNING + "; trec_eval set_recall",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=_without_k(formulas.set_recall),
        trec_eval="set_recall",
        ir_measures="SetR",
        aliases=(_ir("SetR", cut=False), _trec("set_recall", cut=False)),
        divides_by_relevant=True,
    ),
    Metric(
        name="set_f",
        title="Set F",
        definition="F-beta of set precision and set recall, b = Policy.f_beta (trec_eval "
        "set_F.x with x = b^2)",
        citation="van Rijsbergen, Information Retrieval (1979), ch. 7; trec_eval set_F",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=_without_k(formulas.set_f),
        trec_eval="set_F",
        ir_measures="SetF",
        aliases=(_ir("SetF", cut=False), _trec("set_F", cut=False)),
    ),
    Metric(
        name="num_retrieved",
        title="Retrieved",
        definition="the length of the ranked list after de-duplication (trec_eval num_ret)",
        citation="trec_eval num_ret",
        has_k=False,
        formula=_without_k(formulas.retrieved),
        trec_eval="num_ret",
        ir_measures="NumRet",
        aliases=(_ir("NumRet", cut=False), _trec("num_ret", cut=False)),
    ),
    Metric(
        name="num_relevant",
        title="Relevant",
        definition="R, the relevant items in the truth (trec_eval num_rel)",
        citation="trec_eval num_rel",
        has_k=False,
        formula=_without_k(formulas.relevant),
        trec_eval="num_rel",
        ir_measures="NumRel",
        aliases=(_ir("NumRel", cut=False), _trec("num_rel", cut=False)),
    ),
    Metric(
        name="num_relevant_retrieved",
        title="Relevant retrieved",
        definition="relevant items in the whole ranked list (trec_eval num_rel_ret; "
        "ir_measures NumRet(rel=1))",
        citation="trec_eval num_rel_ret",
        has_k=False,
        terms=(RELEVANT_RETRIEVED,),
        formula=_without_k(formulas.relevant_retrieved),
        trec_eval="num_rel_ret",
        ir_measures="NumRet",
        aliases=(_trec("num_rel_ret", cut=False), Alias("NumRelRet", "alias", False)),
    ),
    # Beyond accuracy: computed from the top-K items and item tables, not from relevance;
    # asked for by name.
    Metric(
        name="novelty",
        title="Novelty@K",
        definition="mean self-information -log2(share of interactions) of the top K items "
        "(an item the popularity log never saw counts as seen once)",
        citation="Zhou et al., PNAS 107(10) 2010; Vargas & Castells, RecSys 2011",
        kind="beyond_accuracy",
        requires=("popularity",),
    ),
    Metric(
        name="arp",
        title="ARP@K",
        definition="average recommendation popularity: mean interaction count of the top K items",
        citation="Abdollahpouri, Burke & Mobasher, FLAIRS 2019 (ARP)",
        kind="beyond_accuracy",
        # A popularity bias: smaller is better (RecBole's AveragePopularity, smaller=True).
        direction="lower",
        requires=("popularity",),
    ),
    Metric(
        name="long_tail_share",
        title="Long-tail share@K",
        definition="share of the top K outside the head: the most popular items that make up "
        "head_share (default 20%) of interactions, tied counts on one side",
        citation="Abdollahpouri, Burke & Mobasher, FLAIRS 2019 (APLT)",
        kind="beyond_accuracy",
        requires=("popularity",),
    ),
    Metric(
        name="intra_list_diversity",
        title="ILD@K",
        definition="mean cosine distance 1 - cos(u_i, u_j) over pairs of the top K items "
        "(labels as multi-hot vectors, or an embedding)",
        citation="Ziegler, McNee, Konstan & Lausen, WWW 2005",
        kind="beyond_accuracy",
        requires=("item_features",),
    ),
    Metric(
        name="coverage",
        title="Coverage@K",
        definition="share of the catalogue in at least one top-K list",
        citation="Ge, Delgado-Battenfeld & Jannach, RecSys 2010 (catalog coverage)",
        kind="catalogue",
    ),
    Metric(
        name="gini",
        title="Gini@K",
        definition="Gini index of the catalogue's top-K exposure counts, unexposed items included",
        citation="Fleder & Hosanagar, Management Science 55(5) 2009; RecBole GiniIndex",
        kind="catalogue",
        # Concentration of exposure, 0 when every item is shown equally often: smaller is
        # better (RecBole's GiniIndex, smaller=True).
        direction="lower",
    ),
    Metric(
        name="entropy",
        title="Entropy@K",
        definition="Shannon entropy (bits) of the catalogue's top-K exposure shares",
        citation="Shani & Gunawardana, Recommender Systems Handbook (2011), §8.3.3",
        kind="catalogue",
    ),
    Metric(
        name="personalization",
        title="Personalization@K",
        definition="1 - mean over pairs of lists of |L_u ∩ L_v| / K, from per-item exposure "
        "counts (sum of c(c - 1)/2 shared pairs)",
        citation="Zhou et al., PNAS 107(10) 2010 (personalization, 1 - mean overlap)",
        kind="catalogue",
    ),
)

#: Every metric by name, in canonical order (the order of ``metrics=None`` and of outputs);
#: `polars_rankk.register_metric` adds to it.
REGISTRY: dict[str, Metric] = {metric.name: metric for metric in (*_METRICS, *DIVERSITY_METRICS)}


class MetricNames(Sequence[str]):
    """The names of the registered metrics that satisfy a condition, in canonical order.

    A live view: a metric registered later is in it. It compares equal to a tuple of the same
    names.
    """

    def __init__(self, keep: Callable[[Metric], bool]) -> None:
        self._keep = keep

    def _names(self) -> tuple[str, ...]:
        return tuple(name for name, metric in REGISTRY.items() if self._keep(metric))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        metric = REGISTRY.get(name) if isinstance(name, str) else None
        return metric is not None and self._keep(metric)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MetricNames):
            return self._names() == other._names()
        if isinstance(other, (tuple, list)):
            return self._names() == tuple(other)
        if isinstance(other, (set, frozenset)):
            return set(self._names()) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._names())

    def __repr__(self) -> str:
        return repr(self._names())


#: The canonical metric names, in order.
METRICS = MetricNames(lambda metric: True)
#: The metrics ``metrics=None`` evaluates.
DEFAULT_METRICS = MetricNames(lambda metric: metric.default)
#: Metrics that take a cut-off K.
K_METRICS = MetricNames(lambda metric: metric.has_k)
#: Metrics computed from relevance (the rest are beyond-accuracy metrics).
ACCURACY_METRICS = MetricNames(lambda metric: metric.accuracy)
#: Metrics with a micro average.
MICRO_METRICS = MetricNames(lambda metric: metric.micro is not None)
#: Metrics whose K-curves are read from sums over ranks.
RANK_SUMMED_METRICS = MetricNames(lambda metric: metric.rank_summed)
#: Metrics where lower values are better.
LOWER_IS_BETTER = MetricNames(lambda metric: metric.direction == "lower")


class _Definitions(Mapping[str, str]):
    """One line per metric: what it measures, with its reference convention (live)."""

    def __getitem__(self, name: str) -> str:
        return REGISTRY[name].definition

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


#: One line per metric: what it measures, with its reference convention.
METRIC_DEFINITIONS: Mapping[str, str] = _Definitions()


def higher_is_better(metric: str) -> bool:
    """Whether larger values of `metric` are better (an unknown name: True).

    Examples
    --------
    >>> from polars_rankk.core.metrics.registry import higher_is_better
    >>> higher_is_better("ndcg"), higher_is_better("gini")
    (True, False)
    """
    entry = REGISTRY.get(metric)
    return True if entry is None else entry.higher_is_better


def add_metric(metric: Metric, *, replace: bool = False) -> None:
    """Add `metric` to the registry (after the metrics already there).

    A name or alias another metric already uses raises a ValueError, unless `replace` is True
    and the name is that of a metric registered at run time (built-in metrics stay).
    """
    existing = REGISTRY.get(metric.name)
    if existing is not None and (not replace or existing.origin == "built-in"):
        raise ValueError(
            f"a metric called {metric.name!r} is already registered "
            f"({'built in' if existing.origin == 'built-in' else existing.origin}); "
            f"choose another name{'' if existing.origin == 'built-in' else ' or replace=True'}"
        )
    taken = {
        alias.spelling.lower(): other.name
        for other in REGISTRY.values()
        if other.name != metric.name
        for alias in other.aliases
    } | {other.lower(): other for other in REGISTRY if other != metric.name}
    for spelling in (metric.name, *(alias.spelling for alias in metric.aliases)):
        if spelling.lower() in taken:
            raise ValueError(
                f"metric {metric.name!r}: the name {spelling!r} already names "
                f"{taken[spelling.lower()]!r}"
            )
    for term in metric.own_terms:
        term_table.add_term(term, replace=replace)
    REGISTRY[metric.name] = metric


def remove_metric(name: str) -> None:
    """Remove a metric registered at run time (built-in metrics stay)."""
    metric = REGISTRY.get(name)
    if metric is None:
        raise ValueError(f"no metric {name!r} is registered")
    if metric.origin == "built-in":
        raise ValueError(f"{name} is built in; only metrics registered at run time can go")
    del REGISTRY[name]
    for term in metric.own_terms:
        term_table.TERMS.pop(term.column, None)


def metric_rank(column: str = "metric") -> pl.Expr:
    """Sort key putting metric names in canonical order (unknown names after them)."""
    names = tuple(REGISTRY)
    return pl.col(column).replace_strict(
        {name: index for index, name in enumerate(names)},
        default=len(names),
        return_dtype=pl.Int64,
    )


def term_needs(metrics: Iterable[str], policy: Policy) -> term_table.TermNeeds:
    """The per-rank terms and counts the accuracy `metrics` read, checked against `policy`.

    Under ``ties="expected"`` a metric reading a term without an exact expectation over tie
    orderings raises a ValueError naming it.
    """
    chosen = [REGISTRY[name] for name in metrics if REGISTRY[name].accuracy]
    if policy.ties == "expected":
        unsupported = [metric.name for metric in chosen if not metric.supports_expected_ties]
        if unsupported:
            raise ValueError(
                f"{' and '.join(unsupported)} have no exact expectation over tie orderings "
                f"here: Policy(ties='expected') cannot evaluate them; choose another tie "
                f"policy (e.g. 'trec_eval' or 'pessimistic') for them"
            )
    return term_table.TermNeeds(
        columns=term_table.ordered(column for metric in chosen for column in metric.terms),
        hits_at_r=any("hits_at_r" in metric.counts for metric in chosen),
    )
