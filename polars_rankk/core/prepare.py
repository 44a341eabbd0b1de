"""Preparation of the ranking, once for every metric (SPEC §1, §3).

De-duplicate, break ties, rank each group in a window, attach relevance, and reduce the
relevant rows to cumulative per-rank sums read off at every cut-off K. The shape is chosen to
stay native in Polars' streaming engine: windows (`over(..., order_by=...)`), filters, joins and
scalar `group_by` aggregations only — no order-dependent expressions inside `group_by().agg`.

Exactness: every floating-point sum is a cumulative sum in rank order inside one group's
window, read back with `max` (the sums are non-decreasing), so a group's numbers depend only
on its own rows — never on row order, partitioning or the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from polars_rankk.core.inputs import Spec
from polars_rankk.core.policy import Policy

# Internal column names; the `_rk_` prefix keeps them apart from user columns.
SCORE = "_rk_score"
GRADE = "_rk_grade"
GAIN = "_rk_gain"
RELEVANT = "_rk_is_relevant"
RANK = "_rk_rank"
ROW = "_rk_row"
N_PADDING = "_rk_padding"
HITS = "_rk_hits"
DCG = "_rk_dcg"
IDEAL_DCG = "_rk_ideal_dcg"
PRECISION_SUM = "_rk_precision_sum"
RECIPROCAL_RANK = "_rk_reciprocal_rank"
FIRST_HIT = "_rk_first_hit"
#: Per-row contributions before they are cumulated in rank order.
_TERMS = {
    HITS: "_rk_term_hits",
    DCG: "_rk_term_dcg",
    PRECISION_SUM: "_rk_term_precision",
    RECIPROCAL_RANK: "_rk_term_reciprocal",
    FIRST_HIT: "_rk_term_first",
}
CUMULATED = (HITS, DCG, PRECISION_SUM, RECIPROCAL_RANK, FIRST_HIT)

# Public per-group columns.
N_CANDIDATES = "n_candidates"
N_RELEVANT = "n_relevant"
HAS_CANDIDATES = "has_candidates"
HITS_AT_R = "hits_at_r"

RELEVANCE_AWARE_TIES = frozenset({"pessimistic", "optimistic", "expected"})


@dataclass(frozen=True)
class Prepared:
    """The lazy frames every metric and diagnostic is computed from."""

    #: One row per group of the universe (truth groups, or candidate groups without truth):
    #: keys, n_candidates, n_relevant, has_candidates, hits_at_r, and every cumulated sum
    #: at every k (`stat_column`).
    groups: pl.LazyFrame
    #: The de-duplicated candidates with rank and grade (not cut): for diagnostics.
    ranked: pl.LazyFrame
    #: The normalised truth: keys, item, grade (one row per (group, item)).
    truth: pl.LazyFrame
    #: The candidates after invalid-score handling, before de-duplication: for diagnostics.
    candidates: pl.LazyFrame


def gain_of(grade: pl.Expr, policy: Policy) -> pl.Expr:
    """nDCG gain of a grade: the grade itself, or 2^grade - 1; negative grades gain 0."""
    grade = grade.clip(lower_bound=0.0)
    if policy.gain == "exponential":
        return pl.lit(2.0, dtype=pl.Float64).pow(grade) - 1.0
    return grade


def _log2_discount(rank: pl.Expr) -> pl.Expr:
    return (rank + 1).cast(pl.Float64).log(2)


def _selected_candidates(spec: Spec) -> pl.LazyFrame:
    """Select and rename the candidate columns, adding the input row where ties need it."""
    frame = spec.candidates
    if spec.policy.ties == "input_order":
        frame = frame.with_row_index(ROW)
    # `+ 0.0` folds -0.0 into 0.0 so the two tie.
    score = pl.col(spec.score).cast(pl.Float64) + 0.0
    columns = [*spec.keys, spec.item, score.alias(SCORE)]
    if spec.labelled:
        columns.append(pl.col(spec.relevance).cast(pl.Float64).alias(GRADE))
    if spec.n_relevant is not None:
        columns.append(pl.col(spec.n_relevant).cast(pl.Int64).alias(N_PADDING))
    if spec.policy.ties == "input_order":
        columns.append(pl.col(ROW))
    return frame.select(columns)


def _valid_scores(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """Apply `Policy.invalid_scores` to null, NaN and infinite scores."""
    if spec.policy.invalid_scores == "drop":
        return frame.filter(pl.col(SCORE).is_finite())
    if spec.policy.invalid_scores == "lowest":
        return frame.with_columns(
            pl.when(pl.col(SCORE).is_finite())
            .then(pl.col(SCORE))
            .otherwise(float("-inf"))
            .alias(SCORE)
        )
    return frame


def _deduplicated(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """Keep the highest-scored copy of each (group, item) under duplicates='first'."""
    if spec.policy.duplicates != "first":
        return frame  # 'error' was checked during validation; 'keep' ranks every copy
    # An item's label is the highest among its copies; under input_order ties its position
    # is that of the earliest copy with the best score.
    aggregations = [pl.col(SCORE).max()]
    schema = frame.collect_schema()
    if GRADE in schema:
        aggregations.append(pl.col(GRADE).max())
    if N_PADDING in schema:
        aggregations.append(pl.col(N_PADDING).max())
    if ROW in schema:
        aggregations.append(pl.col(ROW).min_by(pl.struct(-pl.col(SCORE), pl.col(ROW))))
    return frame.group_by([*spec.keys, spec.item]).agg(aggregations)


def _normalised_truth(spec: Spec, candidates: pl.LazyFrame) -> pl.LazyFrame:
    """keys, item, grade: one row per (group, item) with its highest grade."""
    if spec.truth is None:
        # Pre-labelled candidates are their own truth.
        return candidates.group_by([*spec.keys, spec.item]).agg(pl.col(GRADE).max())
    grade = pl.col(spec.relevance).cast(pl.Float64) if spec.truth_graded else pl.lit(1.0)
    return (
        spec.truth.select([*spec.keys, spec.item, grade.alias(GRADE)])
        .group_by([*spec.keys, spec.item])
        .agg(pl.col(GRADE).max())
    )


def _tie_order(spec: Spec) -> tuple[list[pl.Expr], bool]:
    """Window ordering (columns, descending) that ranks by score then breaks ties."""
    ties = spec.policy.ties
    score = pl.col(SCORE)
    item = pl.col(spec.item)
    if ties == "trec_eval":
        # trec_eval: sim descending, then strcmp(docno) descending.
        return [score, item.cast(pl.String)], True
    if ties == "input_order":
        return [-score, pl.col(ROW)], False
    if ties == "pessimistic":
        return [-score, pl.col(GRADE), item], False
    if ties == "optimistic":
        return [-score, -pl.col(GRADE), item], False
    return [-score, item], False  # item_asc; expected (any fixed order will do)


def _ranked(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    order, descending = _tie_order(spec)
    rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(
        list(spec.keys), order_by=order, descending=descending
    )
    return frame.with_columns(rank.alias(RANK))


def _cumulate(frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Cumulate each per-row term in rank order within its group (exact, order-free)."""
    return frame.with_columns(
        pl.col(term).cum_sum().over(keys, order_by=RANK).alias(total)
        for total, term in _TERMS.items()
    )


def _deterministic_terms(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """Per-row terms when the order is fixed: each row is relevant or not."""
    keys = list(spec.keys)
    relevant = pl.col(GRADE) >= spec.policy.relevance_threshold
    hits_so_far = relevant.cast(pl.Int64).cum_sum().over(keys, order_by=RANK)
    frame = frame.with_columns(relevant.cast(pl.Int64).alias(_TERMS[HITS]))
    frame = frame.with_columns(hits_so_far.alias("_rk_hits_so_far"))
    rank = pl.col(RANK).cast(pl.Float64)
    first = (pl.col(_TERMS[HITS]) == 1) & (pl.col("_rk_hits_so_far") == 1)
    return frame.with_columns(
        (gain_of(pl.col(GRADE), spec.policy) / _log2_discount(pl.col(RANK))).alias(_TERMS[DCG]),
        (pl.col(_TERMS[HITS]) * pl.col("_rk_hits_so_far") / rank).alias(_TERMS[PRECISION_SUM]),
        (first.cast(pl.Float64) / rank).alias(_TERMS[RECIPROCAL_RANK]),
        first.cast(pl.Int64).alias(_TERMS[FIRST_HIT]),
    )


def _expected_terms(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """Per-row expectations over every ordering of each tie block (McSherry & Najork 2008).

    A block is a run of equal scores in one group: `m` rows, `r` relevant, `hb` hits before
    it, position `t` (1-based) inside it. By symmetry each position holds a relevant item with
    probability r/m and the mean gain of the block; the precision term E[rel_i * hits@i] is
    (r/m)(hb + 1 + (t-1)(r-1)/(m-1)); the first relevant item sits at t with probability
    q_{t-1} * r / (m - t + 1), where q_t = P(no relevant among the block's first t) is a
    running product.
    """
    keys = list(spec.keys)
    block = [*keys, SCORE]
    relevant = (pl.col(GRADE) >= spec.policy.relevance_threshold).cast(pl.Int64)
    gain = gain_of(pl.col(GRADE), spec.policy)
    frame = frame.with_columns(
        relevant.alias("_rk_relevant"),
        gain.alias("_rk_row_gain"),
        relevant.cum_sum().over(keys, order_by=RANK).alias("_rk_hits_so_far"),
    )
    frame = frame.with_columns(
        pl.len().over(block).cast(pl.Int64).alias("_rk_m"),
        pl.col("_rk_relevant").sum().over(block).alias("_rk_r"),
        # A running sum in rank order keeps the block's gain total exact.
        pl.col("_rk_row_gain").cum_sum().over(block, order_by=RANK).alias("_rk_gain_so_far"),
        pl.col(RANK).min().over(block).alias("_rk_start"),
        (pl.col("_rk_hits_so_far") - pl.col("_rk_relevant")).min().over(block).alias("_rk_hb"),
    )
    m = pl.col("_rk_m").cast(pl.Float64)
    r = pl.col("_rk_r").cast(pl.Float64)
    t = (pl.col(RANK) - pl.col("_rk_start") + 1).cast(pl.Float64)
    hb = pl.col("_rk_hb").cast(pl.Float64)
    # Chance that the t-th position of the block is not relevant given none before it.
    miss = ((m - r - t + 1.0) / (m - t + 1.0)).clip(lower_bound=0.0)
    frame = frame.with_columns(
        pl.col("_rk_gain_so_far").max().over(block).alias("_rk_block_gain"),
        miss.cum_prod().over(block, order_by=RANK).alias("_rk_none_yet"),
    )
    none_before = pl.col("_rk_none_yet").shift(1).over(block, order_by=RANK).fill_null(1.0)
    rank = pl.col(RANK).cast(pl.Float64)
    others = pl.when(m > 1).then((t - 1.0) * (r - 1.0) / (m - 1.0)).otherwise(0.0)
    p_relevant = r / m
    p_first = pl.when(hb == 0).then(none_before * r / (m - t + 1.0)).otherwise(0.0)
    return frame.with_columns(
        p_relevant.alias(_TERMS[HITS]),
        (pl.col("_rk_block_gain") / m / _log2_discount(pl.col(RANK))).alias(_TERMS[DCG]),
        (p_relevant * (hb + 1.0 + others) / rank).alias(_TERMS[PRECISION_SUM]),
        (p_first / rank).alias(_TERMS[RECIPROCAL_RANK]),
        p_first.alias(_TERMS[FIRST_HIT]),
    )


def stat_column(stat: str, k: int) -> str:
    """Name of the per-group column holding cumulated `stat` at cut-off `k`."""
    return f"{stat}@{k}"


def _truth_stats(judged: pl.LazyFrame, spec: Spec, padding: pl.LazyFrame | None) -> pl.LazyFrame:
    """Per group: R_g and the ideal DCG of all its truth grades cut at every k."""
    keys = list(spec.keys)
    policy = spec.policy
    relevant = (pl.col(GRADE) >= policy.relevance_threshold).cast(pl.Int64)
    gains = judged.select(
        [*keys, gain_of(pl.col(GRADE), policy).alias(GAIN), relevant.alias(RELEVANT)]
    )
    if padding is not None:
        gains = pl.concat([gains, padding], how="vertical")
    ideal_rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys, order_by=-pl.col(GAIN))
    gains = gains.with_columns(ideal_rank.alias(RANK))
    # Equal gains are interchangeable, so the cumulated sequence is the same in any tie order.
    gains = gains.with_columns(
        (pl.col(GAIN) / _log2_discount(pl.col(RANK)))
        .cum_sum()
        .over(keys, order_by=RANK)
        .alias(IDEAL_DCG)
    )
    return gains.group_by(keys).agg(
        pl.col(RELEVANT).sum().cast(pl.Int64).alias(N_RELEVANT),
        *(
            pl.when(pl.col(RANK) <= k)
            .then(pl.col(IDEAL_DCG))
            .max()
            .fill_null(0.0)
            .alias(stat_column(IDEAL_DCG, k))
            for k in spec.ks
        ),
    )


def _present(spec: Spec) -> pl.LazyFrame:
    """Groups that have candidate rows in the input, before invalid scores are dropped.

    A group whose every score was dropped is ranked empty; it is not a missing group.
    """
    present = spec.candidates.select(spec.keys).unique()
    return present.with_columns(pl.lit(True).alias(HAS_CANDIDATES))


def _padding(spec: Spec, candidates: pl.LazyFrame, truth: pl.LazyFrame) -> pl.LazyFrame:
    """Virtual truth rows for relevant items a pre-labelled list missed (``n_relevant``).

    They count in R_g and enter the ideal DCG with the gain of the threshold grade.
    """
    keys = list(spec.keys)
    policy = spec.policy
    labelled = truth.group_by(keys).agg(
        (pl.col(GRADE) >= policy.relevance_threshold).sum().cast(pl.Int64).alias("_rk_labelled")
    )
    declared = candidates.group_by(keys).agg(pl.col(N_PADDING).max())
    missing = (pl.col(N_PADDING) - pl.col("_rk_labelled")).clip(lower_bound=0)
    missing_gain = gain_of(pl.lit(float(policy.relevance_threshold)), policy)
    return (
        declared.join(labelled, on=keys, how="left")
        .with_columns(pl.col("_rk_labelled").fill_null(0))
        .select([*keys, pl.int_ranges(0, missing).alias("_rk_pad")])
        .explode("_rk_pad")
        .filter(pl.col("_rk_pad").is_not_null())
        .select([*keys, missing_gain.alias(GAIN), pl.lit(1, dtype=pl.Int64).alias(RELEVANT)])
    )


def prepare(spec: Spec) -> Prepared:
    """Build the lazy per-group table for `spec`: one pass over the candidates.

    The candidates are read once: de-duplicated, ranked in a window, joined with the
    positive truth, compacted to the rows that matter (graded rows and each group's first
    row, which carries the list length), cumulated in rank order and reduced per group.
    """
    policy = spec.policy
    keys = list(spec.keys)
    relevance_aware = policy.ties in RELEVANCE_AWARE_TIES
    selected = _selected_candidates(spec)
    candidates = _valid_scores(selected, spec)
    deduplicated = _deduplicated(candidates, spec)
    # Labels of rows dropped for invalid scores still count in R_g: the item was relevant.
    truth = _normalised_truth(spec, selected)

    if policy.pool == "restrict" and spec.truth is not None:
        pool = deduplicated.select([*keys, spec.item]).unique()
        judged = truth.join(pool, on=[*keys, spec.item], how="semi")
    else:
        judged = truth
    positive = judged.filter(pl.col(GRADE) > 0)
    padding = _padding(spec, selected, truth) if spec.n_relevant is not None else None
    truth_stats = _truth_stats(judged, spec, padding)
    if judged is truth:
        universe = truth_stats
    else:
        universe = truth.select(keys).unique().join(truth_stats, on=keys, how="left")

    chain = deduplicated
    if relevance_aware and not spec.labelled:
        chain = chain.join(positive, on=[*keys, spec.item], how="left").with_columns(
            pl.col(GRADE).fill_null(0.0)
        )
    ranked = _ranked(chain, spec)
    chain = ranked.with_columns(pl.len().over(keys).cast(pl.Int64).alias(N_CANDIDATES))
    needs_whole_list = "r_precision" in spec.metrics or policy.ties == "expected"
    if not needs_whole_list:
        chain = chain.filter(pl.col(RANK) <= spec.k_max)
    if GRADE not in chain.collect_schema():
        chain = chain.join(positive, on=[*keys, spec.item], how="left")
    chain = chain.with_columns(pl.col(GRADE).fill_null(0.0))
    # Each group keeps its first row, so that groups without a single hit still report
    # their list length.
    first_row = pl.col(RANK) == 1
    if policy.ties == "expected":
        chain = _expected_terms(chain, spec).filter(
            (pl.col("_rk_r") > 0) | (pl.col("_rk_block_gain") > 0) | first_row
        )
    else:
        chain = _deterministic_terms(chain.filter((pl.col(GRADE) > 0) | first_row), spec)
    chain = _cumulate(chain, keys)

    aggregations = [pl.col(N_CANDIDATES).max()]
    if "r_precision" in spec.metrics:
        chain = chain.join(truth_stats.select([*keys, N_RELEVANT]), on=keys, how="left")
        aggregations.append(
            pl.when(pl.col(RANK) <= pl.col(N_RELEVANT))
            .then(pl.col(HITS))
            .max()
            .fill_null(0)
            .cast(pl.Float64)
            .alias(HITS_AT_R)
        )
    aggregations += [
        pl.when(pl.col(RANK) <= k).then(pl.col(stat)).max().fill_null(0).alias(stat_column(stat, k))
        for k in spec.ks
        for stat in CUMULATED
    ]
    per_group = chain.group_by(keys).agg(aggregations)

    groups = universe.join(per_group, on=keys, how="left")
    if policy.invalid_scores == "drop":
        groups = groups.join(_present(spec), on=keys, how="left")
    else:
        groups = groups.with_columns(pl.col(N_CANDIDATES).is_not_null().alias(HAS_CANDIDATES))
    stat_columns = [stat_column(stat, k) for k in spec.ks for stat in (*CUMULATED, IDEAL_DCG)]
    groups = groups.with_columns(
        pl.col(HAS_CANDIDATES).fill_null(False),
        pl.col(N_CANDIDATES).fill_null(0),
        pl.col(N_RELEVANT).fill_null(0),
        *(pl.col(column).fill_null(0) for column in stat_columns),
    )
    if "r_precision" in spec.metrics:
        groups = groups.with_columns(pl.col(HITS_AT_R).fill_null(0.0))
    else:
        groups = groups.with_columns(pl.lit(0.0).alias(HITS_AT_R))
    return Prepared(groups=groups, ranked=ranked, truth=truth, candidates=candidates)
