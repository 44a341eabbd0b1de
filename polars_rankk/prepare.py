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

from polars_rankk.policy import Policy
from polars_rankk.validate import Spec

# Internal column names; the `_rk_` prefix keeps them apart from user columns.
SCORE = "_rk_score"
GRADE = "_rk_grade"
GAIN = "_rk_gain"
RELEVANT = "_rk_relevant"
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
N_RELEVANT_TOTAL = "n_relevant_total"
HAS_CANDIDATES = "has_candidates"
HITS_AT_R = "hits_at_r"

RELEVANCE_AWARE_TIES = frozenset({"pessimistic", "optimistic", "expected"})


@dataclass(frozen=True)
class Prepared:
    """The lazy frames every metric and diagnostic is computed from."""

    #: One row per evaluated group: keys, n_candidates, n_relevant, n_relevant_total,
    #: has_candidates, hits_at_r.
    groups: pl.LazyFrame
    #: One row per (group, k): the groups columns, k, and the cumulated sums at rank k.
    per_k: pl.LazyFrame
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


def _normalised_candidates(spec: Spec) -> pl.LazyFrame:
    """Select and rename the candidate columns; handle invalid scores; add the input row."""
    policy = spec.policy
    frame = spec.candidates
    if policy.ties == "input_order":
        frame = frame.with_row_index(ROW)
    # `+ 0.0` folds -0.0 into 0.0 so the two tie.
    score = pl.col(spec.score).cast(pl.Float64) + 0.0
    columns = [*spec.keys, spec.item, score.alias(SCORE)]
    if spec.labelled:
        columns.append(pl.col(spec.relevance).cast(pl.Float64).alias(GRADE))
    if spec.n_relevant is not None:
        columns.append(pl.col(spec.n_relevant).cast(pl.Int64).alias(N_PADDING))
    if policy.ties == "input_order":
        columns.append(pl.col(ROW))
    frame = frame.select(columns)
    if policy.invalid_scores == "drop":
        frame = frame.filter(pl.col(SCORE).is_finite())
    elif policy.invalid_scores == "lowest":
        frame = frame.with_columns(
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
    # Among copies with the best score: the highest grade, then the earliest row.
    best = [-pl.col(SCORE)]
    if spec.labelled:
        best.append(-pl.col(GRADE))
    if spec.policy.ties == "input_order":
        best.append(pl.col(ROW))
    best_copy = pl.struct(best) if len(best) > 1 else best[0]
    aggregations = [pl.col(SCORE).max()]
    for column in (GRADE, ROW, N_PADDING):
        if column in frame.collect_schema():
            aggregations.append(pl.col(column).min_by(best_copy))
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


def _bucket_table(ks: tuple[int, ...]) -> pl.LazyFrame:
    """rank -> the smallest K >= rank, for ranks 1..K_max."""
    buckets = []
    previous = 0
    for k in ks:
        buckets += [k] * (k - previous)
        previous = k
    return pl.LazyFrame(
        {RANK: range(1, ks[-1] + 1), "k": buckets}, schema={RANK: pl.Int64, "k": pl.Int64}
    )


def _ideal(truth: pl.LazyFrame, spec: Spec, padding: pl.LazyFrame | None) -> pl.LazyFrame:
    """Per (group, k): the ideal DCG of all truth grades, cut at k (bucketed)."""
    keys = list(spec.keys)
    gains = truth.select([*keys, gain_of(pl.col(GRADE), spec.policy).alias(GAIN)])
    if padding is not None:
        gains = pl.concat([gains, padding], how="vertical")
    gains = gains.filter(pl.col(GAIN) > 0)
    ideal_rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys, order_by=-pl.col(GAIN))
    gains = gains.with_columns(ideal_rank.alias(RANK)).filter(pl.col(RANK) <= spec.k_max)
    # Equal gains are interchangeable, so the cumulated sequence is the same in any tie order.
    gains = gains.with_columns(
        (pl.col(GAIN) / _log2_discount(pl.col(RANK)))
        .cum_sum()
        .over(keys, order_by=RANK)
        .alias(IDEAL_DCG)
    )
    return (
        gains.join(_bucket_table(spec.ks), on=RANK, how="inner")
        .group_by([*keys, "k"])
        .agg(pl.col(IDEAL_DCG).max())
    )


def _present(spec: Spec) -> pl.LazyFrame:
    """Groups that have candidate rows in the input, before invalid scores are dropped.

    A group whose every score was dropped is ranked empty; it is not a missing group.
    """
    return (
        spec.candidates.select(spec.keys).unique().with_columns(pl.lit(True).alias(HAS_CANDIDATES))
    )


def prepare(spec: Spec) -> Prepared:
    """Build the lazy per-group and per-(group, k) tables for `spec`."""
    policy = spec.policy
    keys = list(spec.keys)
    relevance_aware = policy.ties in RELEVANCE_AWARE_TIES
    candidates = _normalised_candidates(spec)
    deduplicated = _deduplicated(candidates, spec)
    truth = _normalised_truth(spec, deduplicated)

    if policy.pool == "restrict" and spec.truth is not None:
        pool = deduplicated.select([*keys, spec.item]).unique()
        judged = truth.join(pool, on=[*keys, spec.item], how="semi")
    else:
        judged = truth
    positive = judged.filter(pl.col(GRADE) > 0)

    labelled = deduplicated
    if relevance_aware and not spec.labelled:
        labelled = labelled.join(positive, on=[*keys, spec.item], how="left").with_columns(
            pl.col(GRADE).fill_null(0.0)
        )
    ranked = _ranked(labelled, spec)
    needs_whole_list = "r_precision" in spec.metrics
    if policy.ties == "expected":
        rows = _expected_terms(ranked, spec).filter(
            (pl.col("_rk_r") > 0) | (pl.col("_rk_block_gain") > 0)
        )
    else:
        rows = ranked if needs_whole_list else ranked.filter(pl.col(RANK) <= spec.k_max)
        if GRADE in rows.collect_schema():
            rows = rows.filter(pl.col(GRADE) > 0)
        else:
            rows = rows.join(positive, on=[*keys, spec.item], how="inner")
        rows = _deterministic_terms(rows, spec)
    rows = _cumulate(rows, keys)

    # Per-group counts.
    relevant = pl.col(GRADE) >= policy.relevance_threshold
    truth_counts = judged.group_by(keys).agg(relevant.sum().cast(pl.Int64).alias(N_RELEVANT))
    list_lengths = ranked.group_by(keys).agg(pl.len().cast(pl.Int64).alias(N_CANDIDATES))
    padding = None
    if spec.truth is None:
        universe = list_lengths.select(keys)
        if spec.n_relevant is not None:
            declared = deduplicated.group_by(keys).agg(pl.col(N_PADDING).first())
            truth_counts = truth_counts.join(declared, on=keys, how="left").select(
                [
                    *keys,
                    pl.col(N_PADDING).alias(N_RELEVANT),
                    (pl.col(N_PADDING) - pl.col(N_RELEVANT)).clip(lower_bound=0).alias("_rk_pad"),
                ]
            )
            missing_gain = gain_of(pl.lit(float(policy.relevance_threshold)), policy)
            padding = (
                truth_counts.filter(pl.col("_rk_pad") > 0)
                .with_columns(pl.int_ranges(0, pl.col("_rk_pad")).alias("_rk_pad"))
                .explode("_rk_pad")
                .select([*keys, missing_gain.alias(GAIN)])
            )
            truth_counts = truth_counts.drop("_rk_pad")
    else:
        universe = truth.select(keys).unique()
    total_relevant = truth.group_by(keys).agg(relevant.sum().cast(pl.Int64).alias(N_RELEVANT_TOTAL))
    if spec.n_relevant is not None:
        total_relevant = truth_counts.select([*keys, pl.col(N_RELEVANT).alias(N_RELEVANT_TOTAL)])
    groups = (
        universe.join(truth_counts, on=keys, how="left")
        .join(total_relevant, on=keys, how="left")
        .join(list_lengths, on=keys, how="left")
    )
    if policy.invalid_scores == "drop":
        groups = groups.join(_present(spec), on=keys, how="left")
    else:
        groups = groups.with_columns(pl.col(N_CANDIDATES).is_not_null().alias(HAS_CANDIDATES))
    groups = groups.with_columns(
        pl.col(HAS_CANDIDATES).fill_null(False),
        pl.col(N_CANDIDATES).fill_null(0),
        pl.col(N_RELEVANT).fill_null(0),
        pl.col(N_RELEVANT_TOTAL).fill_null(0),
    )
    hits_at_r = (
        rows.join(groups.select([*keys, N_RELEVANT]), on=keys, how="inner")
        .filter(pl.col(RANK) <= pl.col(N_RELEVANT))
        .group_by(keys)
        .agg(pl.col(HITS).max().cast(pl.Float64).alias(HITS_AT_R))
    )
    groups = groups.join(hits_at_r, on=keys, how="left").with_columns(
        pl.col(HITS_AT_R).fill_null(0.0)
    )

    by_bucket = (
        rows.filter(pl.col(RANK) <= spec.k_max)
        .join(_bucket_table(spec.ks), on=RANK, how="inner")
        .group_by([*keys, "k"])
        .agg(pl.col(column).max() for column in CUMULATED)
    )
    ks = pl.LazyFrame({"k": spec.ks}, schema={"k": pl.Int64})
    per_k = (
        groups.join(ks, how="cross")
        .join(by_bucket, on=[*keys, "k"], how="left")
        .join(_ideal(judged, spec, padding), on=[*keys, "k"], how="left")
    )
    # A bucket with no relevant row carries the totals of the buckets before it.
    per_k = per_k.with_columns(
        pl.col(column).fill_null(0).cum_max().over(keys, order_by="k")
        for column in (*CUMULATED, IDEAL_DCG)
    )
    return Prepared(groups=groups, per_k=per_k, ranked=ranked, truth=truth, candidates=candidates)
