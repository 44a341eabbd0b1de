"""The metrics that read the ideal ranking rank by rank: the Q-measure and Compat.

Both compare the run with the ideal ranking of the group's relevant truth items (grade >=
``Policy.relevance_threshold``, sorted by grade, highest first), read at each rank of the run.
That ranking is joined from the truth before the terms are computed (`with_ideal`): the ideal
cumulative gain at each rank (the Q-measure) and each relevant retrieved item's position in the
ideal ranking (Compat). Neither term is linear: the compiled kernel does not compute them, and
both run in pure Polars beside it (``diagnostics.path`` says so per term). `with_ideal` also
joins the columns of trec_eval's gain-level measures (count ``"ideal_levels"``: G, ndcg_rel,
Rndcg and trec_eval's rbp, declared in `polars_rankk.core.metrics.families.trec_gain`), over the
judged items of positive gain whatever the threshold.

- **Q-measure** (Sakai, NTCIR-4 2004, "New performance metrics based on multigrade relevance";
  Sakai, Information Processing & Management 43(2) 2007): with I(r) = 1 at a relevant rank,
  C(r) the relevant items in the top r, g(r) = the row's grade when relevant (else 0),
  cg(r) = Σ_{j <= r} g(j) and cg*(r) the ideal ranking's cumulative gain at r (cg*(R) past R),
  Q@K = Σ_{r <= K} I(r) (C(r) + β cg(r)) / (r + β cg*(r)) / R, β = `Policy.q_beta` (1; β = 0
  gives AP@K); the denominator follows ``Policy.ap_denominator`` (R, or min(K, R)), as AP@K.
- **Compat** (Clarke, Vtyurina & Smucker, TOIS 39(2) 2021 / "Offline evaluation without gain",
  ICTIR 2020; ir_measures' compat provider): RBO(run, ideal) to depth D = max(n, R) (n the
  list's length) over RBO(ideal, ideal), RBO = Σ_{i <= D} p^(i-1) |run_i ∩ ideal_i| / i,
  p = `Policy.compat_persistence` (0.95). Equal grades in the ideal ranking are ordered as the
  run orders them (retrieved first, in rank order), as the provider sorts them by the run's
  score; it has no cut-off. An item d of ideal position q_d at rank r_d is in both top-i sets
  for i >= max(q_d, r_d), so the overlap sum is Σ_d Σ_{i = max(q_d, r_d)}^{D} p^(i-1) / i.

Examples
--------
>>> from polars_rankk.core.metrics.families.compat_q import METRICS
>>> [metric.name for metric in METRICS]
['q_measure', 'compat']
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core.columns import (
    GRADE,
    INTERNAL_PREFIX,
    N_CANDIDATES,
    N_PADDING,
    N_RELEVANT,
    RANK,
)
from polars_rankk.core.metrics import formulas
from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.declaration import Alias, Metric
from polars_rankk.core.metrics.families.shared import at_k, ir, without_k
from polars_rankk.core.metrics.formulas import GroupStats
from polars_rankk.core.metrics.order import gain_of
from polars_rankk.core.metrics.parameters import AP_DENOMINATOR, COMPAT_PERSISTENCE, Q_BETA
from polars_rankk.core.metrics.rows import RankedRows
from polars_rankk.core.metrics.terms import Term
from polars_rankk.core.policy import Policy

__all__ = [
    "COMPAT",
    "COMPAT_TERM",
    "IDEAL_COUNTS",
    "METRICS",
    "Q_MEASURE",
    "Q_TERM",
    "reads_ideal",
    "with_ideal",
]

#: The cumulated columns of the two terms.
Q_MEASURE = f"{INTERNAL_PREFIX}q_measure"
COMPAT = f"{INTERNAL_PREFIX}compat"
#: The per-row columns `with_ideal` joins: cg*(min(r, R)) and an item's ideal position.
IDEAL_GAIN = f"{INTERNAL_PREFIX}ideal_gain_at_rank"
IDEAL_POSITION = f"{INTERNAL_PREFIX}ideal_position"
#: The per-row columns of trec_eval's gain measures (G, ndcg_rel, Rndcg: `trec_gain`), over
#: the ideal ranking of every judged item of positive gain (``Policy.gain``, whatever the
#: threshold), P of them, read at min(r, P): its DCG, its gains' excess over 1 summed (G's
#: cost), and Σ 1 / ideal DCG(b) over the ends b >= r of its gain levels (0 past P); and per
#: group P, the ideal DCG and gain of all P, and the number of gain levels.
IDEAL_DCG_AT = f"{INTERNAL_PREFIX}ideal_dcg_at_rank"
IDEAL_EXCESS = f"{INTERNAL_PREFIX}ideal_excess_at_rank"
IDEAL_LEVEL_WEIGHT = f"{INTERNAL_PREFIX}ideal_level_weight"
IDEAL_POSITIVE = f"{INTERNAL_PREFIX}ideal_positive"
IDEAL_TOTAL_DCG = f"{INTERNAL_PREFIX}ideal_total_dcg"
IDEAL_TOTAL_GAIN = f"{INTERNAL_PREFIX}ideal_total_gain"
IDEAL_LEVELS = f"{INTERNAL_PREFIX}ideal_levels"
#: And the group's largest judged grade, at least 1 (trec_eval's rbp rescales grades by it).
IDEAL_TOP_GRADE = f"{INTERNAL_PREFIX}ideal_top_grade"
#: The counts (`Term.counts`) that ask for them.
IDEAL_COUNTS = ("ideal_gain", "ideal_position", "ideal_levels")
_IDEAL_RANK = f"{INTERNAL_PREFIX}ideal_rank"
_IDEAL_R = f"{INTERNAL_PREFIX}ideal_relevant"
_ABOVE = f"{INTERNAL_PREFIX}relevant_above"
_GAIN = f"{INTERNAL_PREFIX}ideal_level_gain"
_LEVEL_END = f"{INTERNAL_PREFIX}ideal_level_end"


def with_ideal(
    chain: pl.LazyFrame,
    judged: pl.LazyFrame,
    keys: Sequence[str],
    policy: Policy,
    counts: frozenset[str],
) -> pl.LazyFrame:
    """`chain` (keys, rank, grade and R_g per ranked row) with the ideal-ranking columns
    `counts` ask for, from `judged` (keys, grade per judged truth item).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.policy import Policy
    >>> run = pl.LazyFrame({"q": [1, 1, 1], "_rk_rank": [1, 2, 3], "_rk_grade": [1.0, 0.0, 2.0],
    ...                     "n_relevant": [3, 3, 3]})
    >>> truth = pl.LazyFrame({"q": [1, 1, 1], "_rk_grade": [2.0, 1.0, 1.0]})
    >>> out = with_ideal(run, truth, ["q"], Policy(), frozenset(IDEAL_COUNTS)).collect()
    >>> out = out.sort("_rk_rank")  # a join does not keep the run's row order
    >>> out["_rk_ideal_gain_at_rank"].to_list(), out["_rk_ideal_position"].to_list()
    ([2.0, 3.0, 4.0], [2, None, 1])
    """
    keys = list(keys)
    relevant = judged.filter(pl.col(GRADE) >= policy.relevance_threshold).select(*keys, GRADE)
    if "ideal_gain" in counts:
        ideal = relevant.with_columns(
            pl.col(GRADE)
            .rank("ordinal", descending=True)
            .over(keys)
            .cast(pl.Int64)
            .alias(_IDEAL_RANK)
        ).with_columns(
            pl.col(GRADE)
            .clip(lower_bound=0.0)
            .cum_sum()
            .over(keys, order_by=_IDEAL_RANK)
            .cast(pl.Float64)
            .alias(IDEAL_GAIN)
        )
        sizes = ideal.group_by(keys).agg(pl.len().cast(pl.Int64).alias(_IDEAL_R))
        chain = (
            chain.join(sizes, on=keys, how="left")
            .with_columns(
                pl.min_horizontal(pl.col(RANK), pl.col(_IDEAL_R).fill_null(0))
                .cast(pl.Int64)
                .alias(_IDEAL_RANK)
            )
            .join(ideal.select(*keys, _IDEAL_RANK, IDEAL_GAIN), on=[*keys, _IDEAL_RANK], how="left")
            .with_columns(pl.col(IDEAL_GAIN).fill_null(0.0) + _padded_gain(policy))
            .drop(_IDEAL_R, _IDEAL_RANK)
        )
    if "ideal_position" in counts:
        above = (
            relevant.with_columns(
                (pl.col(GRADE).rank("min", descending=True).over(keys) - 1)
                .cast(pl.Int64)
                .alias(_ABOVE)
            )
            .unique([*keys, GRADE])
            .select(*keys, GRADE, _ABOVE)
        )
        is_relevant = pl.col(GRADE) >= policy.relevance_threshold
        # Equal grades are ordered as the run orders them: the n-th retrieved item of a grade
        # sits n places after the relevant items of higher grades.
        within = pl.col(RANK).rank("ordinal").over([*keys, GRADE]).cast(pl.Int64)
        chain = (
            chain.join(above, on=[*keys, GRADE], how="left")
            .with_columns(
                pl.when(is_relevant)
                .then(pl.col(_ABOVE).fill_null(0) + within)
                .otherwise(None)
                .alias(IDEAL_POSITION)
            )
            .drop(_ABOVE)
        )
    if "ideal_levels" in counts:
        chain = _with_ideal_levels(chain, judged, keys, policy)
    return chain


def _with_ideal_levels(
    chain: pl.LazyFrame, judged: pl.LazyFrame, keys: list[str], policy: Policy
) -> pl.LazyFrame:
    """`chain` with trec_eval's gain-level columns (`IDEAL_DCG_AT` ... `IDEAL_LEVELS`): the
    ideal ranking sorts the judged items of positive gain by gain, highest first (equal gains
    are interchangeable: every column is the same in any order among them)."""
    if N_PADDING in chain.collect_schema():
        raise ValueError(
            "G, ndcg_rel, Rndcg and trec_rbp read the grades of every judged item, and "
            "n_relevant= says only how many relevant items a pre-labelled list missed, not "
            "their grades: pass the truth table instead"
        )
    gain = gain_of(pl.col(GRADE), policy)
    ideal = (
        judged.select(*keys, gain.alias(_GAIN))
        .filter(pl.col(_GAIN) > 0)
        .with_columns(
            pl.col(_GAIN)
            .rank("ordinal", descending=True)
            .over(keys)
            .cast(pl.Int64)
            .alias(_IDEAL_RANK),
            # The last rank of each gain level: where trec_eval's ideal gain changes.
            pl.col(_GAIN).rank("max", descending=True).over(keys).cast(pl.Int64).alias(_LEVEL_END),
        )
    )
    ideal = ideal.with_columns(
        (pl.col(_GAIN) / (pl.col(_IDEAL_RANK) + 1).cast(pl.Float64).log(2))
        .cum_sum()
        .over(keys, order_by=_IDEAL_RANK)
        .alias(IDEAL_DCG_AT),
        (pl.col(_GAIN) - 1.0)
        .clip(lower_bound=0.0)
        .cum_sum()
        .over(keys, order_by=_IDEAL_RANK)
        .alias(IDEAL_EXCESS),
    ).with_columns(
        pl.when(pl.col(_LEVEL_END) == pl.col(_IDEAL_RANK))
        .then(1.0 / pl.col(IDEAL_DCG_AT))
        .otherwise(0.0)
        .cum_sum(reverse=True)
        .over(keys, order_by=_IDEAL_RANK)
        .alias(IDEAL_LEVEL_WEIGHT)
    )
    sizes = ideal.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias(IDEAL_POSITIVE),
        pl.col(IDEAL_DCG_AT).max().alias(IDEAL_TOTAL_DCG),
        pl.col(_GAIN).sum().alias(IDEAL_TOTAL_GAIN),
        pl.col(_LEVEL_END).n_unique().cast(pl.Int64).alias(IDEAL_LEVELS),
    )
    top = judged.group_by(keys).agg(pl.col(GRADE).max().alias(IDEAL_TOP_GRADE))
    at_rank = [IDEAL_DCG_AT, IDEAL_EXCESS, IDEAL_LEVEL_WEIGHT]
    positive = pl.col(IDEAL_POSITIVE)
    return (
        chain.join(sizes, on=keys, how="left")
        .join(top, on=keys, how="left")
        .with_columns(
            pl.max_horizontal(pl.col(IDEAL_TOP_GRADE).fill_null(1.0), pl.lit(1.0)).alias(
                IDEAL_TOP_GRADE
            ),
            positive.fill_null(0),
            *(pl.col(c).fill_null(0.0) for c in (IDEAL_TOTAL_DCG, IDEAL_TOTAL_GAIN)),
            pl.col(IDEAL_LEVELS).fill_null(0),
            pl.min_horizontal(pl.col(RANK), positive.fill_null(0))
            .cast(pl.Int64)
            .alias(_IDEAL_RANK),
        )
        .join(ideal.select(*keys, _IDEAL_RANK, *at_rank), on=[*keys, _IDEAL_RANK], how="left")
        .with_columns(
            *(pl.col(c).fill_null(0.0) for c in at_rank[:2]),
            pl.when(pl.col(RANK) > positive)
            .then(0.0)
            .otherwise(pl.col(IDEAL_LEVEL_WEIGHT).fill_null(0.0))
            .alias(IDEAL_LEVEL_WEIGHT),
        )
        .drop(_IDEAL_RANK)
    )


def _padded_gain(policy: Policy) -> pl.Expr:
    """The ideal gain of the relevant items a pre-labelled list says it missed (``n_relevant``
    over the truth's relevant items): each at the threshold grade, the lowest relevant one, so
    last in the ideal ranking."""
    padded = (
        pl.min_horizontal(pl.col(RANK), pl.col(N_RELEVANT)) - pl.col(_IDEAL_R).fill_null(0)
    ).clip(lower_bound=0)
    return padded.cast(pl.Float64) * max(float(policy.relevance_threshold), 0.0)


def reads_ideal(metric: Metric) -> bool:
    """Whether `metric` reads the ideal ranking rank by rank (joined from the truth by
    `rk.evaluate`; the expression API, which sees one group's rows, does not compute it).

    Examples
    --------
    >>> from polars_rankk.core.metrics.registry import REGISTRY
    >>> reads_ideal(REGISTRY["compat"]), reads_ideal(REGISTRY["ndcg"])
    (True, False)
    """
    return any(
        count in IDEAL_COUNTS
        for column in metric.terms
        for count in term_table.TERMS[column].counts
    )


def _q_row(rows: RankedRows) -> pl.Expr:
    """I(r) (C(r) + β cg(r)) / (r + β cg*(r))."""
    beta = float(rows.policy.q_beta)
    relevant = rows.relevant_row.cast(pl.Float64)
    gain = rows.stage("q_gain_row", rows.grade.clip(lower_bound=0.0) * relevant)
    gain_so_far = rows.stage("q_gain_so_far", rows.cumulative(gain))
    hits = rows.hits_so_far.cast(pl.Float64)
    ratio = (hits + beta * gain_so_far) / (rows.rank.cast(pl.Float64) + beta * pl.col(IDEAL_GAIN))
    return relevant * ratio


def _log_series(start: pl.Expr, stop: pl.Expr, p: float) -> pl.Expr:
    """Σ_{start <= i <= stop} p^(i-1) / i (0 when start > stop)."""
    return (
        pl.int_ranges(start, stop + 1, dtype=pl.Int64)
        .list.eval(pl.lit(p, dtype=pl.Float64).pow(pl.element() - 1) / pl.element())
        .list.sum()
        .fill_null(0.0)
        .cast(pl.Float64)
    )


def _depth(n_candidates: pl.Expr, n_relevant: pl.Expr) -> pl.Expr:
    return pl.max_horizontal(n_candidates.cast(pl.Int64), n_relevant.cast(pl.Int64))


def _compat_row(rows: RankedRows) -> pl.Expr:
    """Σ_{i = max(q_d, r_d)}^{D} p^(i-1) / i on a relevant row d (0 elsewhere)."""
    depth = _depth(pl.col(N_CANDIDATES), rows.n_relevant)
    start = (
        pl.when(rows.relevant_row == 1)
        .then(pl.max_horizontal(pl.col(IDEAL_POSITION), rows.rank.cast(pl.Int64)))
        .otherwise(depth + 1)
    )
    return _log_series(start, depth, float(rows.policy.compat_persistence))


Q_TERM = Term(
    "q_measure",
    Q_MEASURE,
    f"{INTERNAL_PREFIX}term_q_measure",
    _q_row,
    None,
    counts=("n_relevant", "ideal_gain"),
)
COMPAT_TERM = Term(
    "compat",
    COMPAT,
    f"{INTERNAL_PREFIX}term_compat",
    _compat_row,
    None,
    whole_list=True,
    counts=("n_relevant", "ideal_position"),
)
for _declared in (Q_TERM, COMPAT_TERM):
    term_table.add_term(_declared)


def _q_measure(policy: Policy, k: int, stats: GroupStats) -> pl.Expr:
    denominator = formulas.ap_denominator(policy, k, stats)
    return formulas.ratio_or_zero(stats.at(Q_MEASURE, k), denominator)


def _compat(policy: Policy, stats: GroupStats) -> pl.Expr:
    """The overlap sum over the ideal ranking's own: Σ_{i <= R} p^(i-1) + R Σ_{R < i <= D}
    p^(i-1) / i."""
    p = float(policy.compat_persistence)
    relevant = stats.n_relevant.cast(pl.Int64)
    depth = _depth(stats.n_candidates, relevant)
    best = (1.0 - pl.lit(p).pow(relevant)) / (1.0 - p) + relevant.cast(pl.Float64) * _log_series(
        relevant + 1, depth, p
    )
    return pl.when(best > 0).then(stats.whole(COMPAT) / best).otherwise(0.0)


METRICS: tuple[Metric, ...] = (
    Metric(
        name="q_measure",
        parameters=(Q_BETA, AP_DENOMINATOR),
        title="Q-measure@K",
        definition="Σ over relevant ranks r <= K of (C(r) + β cg(r)) / (r + β cg*(r)), / R "
        "(or min(K, R): Policy.ap_denominator); gain = grade, cg* the ideal ranking's, "
        "β = Policy.q_beta",
        citation="Sakai, NTCIR-4 2004 (New performance metrics based on multigrade relevance); "
        "Sakai, IP&M 43(2) 2007",
        terms=(Q_MEASURE,),
        formula=at_k(_q_measure),
        aliases=(Alias("Q", "alias", True, True),),
        divides_by_relevant=True,
    ),
    Metric(
        name="compat",
        parameters=(COMPAT_PERSISTENCE,),
        title="Compat",
        definition="RBO(run, ideal) / RBO(ideal, ideal) to depth max(n, R), persistence "
        "p = Policy.compat_persistence; ideal = relevant items by grade, equal grades in the "
        "run's order (ir_measures' compat provider)",
        citation="Clarke, Vtyurina & Smucker, TOIS 39(2) 2021 (Assessing top-k preferences); "
        "ICTIR 2020 (Offline evaluation without gain); ir_measures Compat",
        has_k=False,
        terms=(COMPAT,),
        formula=without_k(_compat),
        ir_measures="Compat",
        aliases=(ir("Compat", cut=False),),
        divides_by_relevant=True,
    ),
)
