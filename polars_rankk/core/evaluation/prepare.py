"""Preparation of the ranking, once for every metric (see docs/definitions.md).

De-duplicate, break ties, rank each group in a window, attach relevance, and reduce the
relevant rows to cumulative per-rank sums read off at every cut-off K. The shape is chosen to
stay native in Polars' streaming engine: windows (`over(..., order_by=...)`), filters, joins and
scalar `group_by` aggregations only — no order-dependent expressions inside `group_by().agg`.

Exactness: every floating-point sum is a cumulative sum in rank order inside one group's
window, read back with `max` (the sums are non-decreasing), so a group's numbers depend only
on its own rows — never on row order, partitioning or the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_rankk.core.columns import (
    GRADE,
    HITS,
    HITS_AT_R,
    IS_JUDGED,
    IS_POOLED_UNJUDGED,
    N_CANDIDATES,
    N_NONRELEVANT,
    N_PADDING,
    N_RELEVANT,
    RANK,
    ROW,
    SCORE,
    stat_column,
)
from polars_rankk.core.evaluation.group_table import (
    KernelSums,
    filled,
    kernel_or_pure_sums,
    truth_statistics,
    universe,
    with_presence,
)
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel import facts as kernel_facts
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel import places as kernel_places
from polars_rankk.core.kernel.shared import SumsAsked, shared_group_sums
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.families import compat_q
from polars_rankk.core.metrics.order import RELEVANCE_AWARE_TIES
from polars_rankk.core.metrics.registry import term_needs
from polars_rankk.core.metrics.terms import TERMS, RankedRows, TermNeeds, row_terms


@dataclass(frozen=True)
class Prepared:
    """The lazy frames every metric and diagnostic is computed from."""

    #: One row per group of the universe (truth groups, or candidate groups without truth):
    #: keys, n_candidates, n_relevant, has_candidates, hits_at_r, and every cumulated sum
    #: at every k (`stat_column`).
    group_sums: pl.LazyFrame
    #: The de-duplicated candidates with rank and grade (not cut): for diagnostics.
    ranked: pl.LazyFrame
    #: The normalised truth: keys, item, grade (one row per (group, item)).
    truth: pl.LazyFrame
    #: The candidates after invalid-score handling, before de-duplication: for diagnostics.
    candidates: pl.LazyFrame
    #: The candidates after de-duplication, before unjudged rows are condensed away: for
    #: diagnostics (rows removed as duplicates, rows removed as unjudged).
    deduplicated: pl.LazyFrame | None = None
    #: Which path computed `group_sums`: the native kernel, or pure Polars and why.
    path: str = "pure Polars"
    #: ``term_rows(columns)``: each ranked row within max K where a term of `columns` is not
    #: zero (keys, ``rank``, each term's own value under its column's name), from the same
    #: ranking and term declarations as `group_sums` (the kernel's when it computed them).
    term_rows: Callable[[tuple[str, ...]], pl.LazyFrame] | None = None
    #: ``term_events(columns)``: each group's event rows with running sums, from the same
    #: ranking as `group_sums` (`kernel_rows.RowsOf.events`), or None where none came with them.
    term_events: Callable[[tuple[str, ...]], tuple[pl.LazyFrame, pl.LazyFrame] | None] | None = None
    #: The judged truth rows (keys, item, grade): the pool, negative grades and padding
    #: applied as `group_sums` reads them.
    judged: pl.LazyFrame | None = None
    #: The diagnostics' per-group facts from the kernel's ranking (`kernel.facts`), where the
    #: kernel ranks and its facts stand for the diagnostics' own query.
    facts: pl.LazyFrame | None = None
    #: Each group's items at its first ranks from the kernel's ranking (`kernel.places`),
    #: where the spec asks for them (`Spec.places`) and the kernel lists them.
    places: pl.LazyFrame | None = None


def _needs_row(spec: Spec) -> bool:
    """The input row orders ties under input_order, and repeated items kept as given."""
    return spec.policy.ties == "input_order" or spec.policy.duplicates == "keep"


def _selected_candidates(spec: Spec) -> pl.LazyFrame:
    """Select and rename the candidate columns, adding the input row where ties need it."""
    frame = spec.candidates
    if _needs_row(spec):
        frame = frame.with_row_index(ROW)
    score = ranking.score_value(pl.col(spec.score), lower_is_better=spec.lower_is_better)
    columns = [*spec.keys, spec.item, score.alias(SCORE)]
    if spec.labelled:
        columns.append(pl.col(spec.relevance).cast(pl.Float64).alias(GRADE))
    if spec.n_relevant is not None:
        columns.append(pl.col(spec.n_relevant).cast(pl.Int64).alias(N_PADDING))
    if _needs_row(spec):
        columns.append(pl.col(ROW))
    return frame.select(columns)


def _valid_scores(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """Apply `Policy.invalid_scores` to null, NaN and infinite scores."""
    if spec.policy.invalid_scores == "drop":
        return frame.filter(ranking.is_valid_score(pl.col(SCORE)))
    if spec.policy.invalid_scores == "lowest":
        return frame.with_columns(ranking.lowest_if_invalid(pl.col(SCORE)).alias(SCORE))
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


def _ranked(frame: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    schema = frame.collect_schema()
    order, descending = ranking.tie_order(
        spec.policy,
        pl.col(SCORE),
        pl.col(spec.item),
        pl.col(GRADE) if GRADE in schema else None,
        pl.col(ROW) if ROW in schema else None,
    )
    rank = ranking.rank_of(order, descending, [pl.col(key) for key in spec.keys])
    return frame.with_columns(rank.alias(RANK))


def _with_terms(
    frame: pl.LazyFrame, spec: Spec, needs: TermNeeds, keep: pl.Expr | None
) -> pl.LazyFrame:
    """Each row's terms, then their running sums in rank order within the group.

    `keep` (the deterministic tie policies) leaves out the rows that add nothing before the
    terms are computed; under ``ties="expected"`` a row adds nothing when its tie block does,
    which only the staged block statistics tell, so those rows leave afterwards.
    """
    if keep is not None:
        frame = frame.filter(keep)
    window = ranking.Windows(frame, list(spec.keys), SCORE, RANK)
    schema = frame.collect_schema()
    rows = RankedRows(
        window,
        pl.col(GRADE),
        spec.policy,
        judged=pl.col(IS_JUDGED) if IS_JUDGED in schema else None,
        n_relevant=pl.col(N_RELEVANT) if N_RELEVANT in schema else None,
        n_nonrelevant=pl.col(N_NONRELEVANT) if N_NONRELEVANT in schema else None,
        pooled_unjudged=pl.col(IS_POOLED_UNJUDGED) if IS_POOLED_UNJUDGED in schema else None,
    )
    terms = row_terms(rows, needs.columns)
    dropped_after = None
    if rows.expected and needs.sparse:
        dropped_after = rows.contributes(needs.judged) | (pl.col(RANK) == 1)
    window.stage({TERMS[stat].row_column: term for stat, term in terms.items()})
    window.stage({stat: window.cumulative(pl.col(TERMS[stat].row_column)) for stat in terms})
    return window.frame if dropped_after is None else window.frame.filter(dropped_after)


def _ranked_chain(
    spec: Spec, deduplicated: pl.LazyFrame, joined_truth: pl.LazyFrame
) -> pl.LazyFrame:
    """The de-duplicated candidates ranked under the tie policy (relevance-aware ties read
    the joined grades)."""
    chain = deduplicated
    if spec.policy.ties in RELEVANCE_AWARE_TIES and not spec.labelled:
        chain = chain.join(joined_truth, on=[*spec.keys, spec.item], how="left").with_columns(
            pl.col(GRADE).fill_null(ranking.unjudged_grade(spec.policy))
        )
    return _ranked(chain, spec)


@dataclass(frozen=True)
class _PureSums:
    """The pure-Polars per-group sums of a set of terms, from the ranked candidates."""

    spec: Spec
    ranked: pl.LazyFrame
    judged: pl.LazyFrame
    joined_truth: pl.LazyFrame
    truth_stats: pl.LazyFrame
    #: The normalised truth: its negative grades are pooled, unjudged ones for infAP.
    truth: pl.LazyFrame

    def sums(self, needs: TermNeeds) -> pl.LazyFrame:
        """keys, n_candidates, [hits_at_r], whole-list terms and each term at every k."""
        spec, keys = self.spec, list(self.spec.keys)
        cut = not (
            needs.hits_at_r or needs.whole_list or spec.whole_list or spec.policy.ties == "expected"
        )
        chain = self._terms(needs, cut)
        aggregations = [pl.col(N_CANDIDATES).max()]
        if needs.hits_at_r:
            aggregations.append(
                pl.when(pl.col(RANK) <= pl.col(N_RELEVANT))
                .then(pl.col(HITS))
                .max()
                .fill_null(0)
                .cast(pl.Float64)
                .alias(HITS_AT_R)
            )
        # A sum of negative gains falls: read where it stands at K (the whole list: at its
        # last rank), not at its peak.
        fall = ranking.falls(spec.policy)
        aggregations += [
            ranking.read_whole(pl.col(stat), pl.col(RANK), may_fall=fall).alias(stat)
            for stat in needs.whole_list
        ]
        aggregations += [
            ranking.read_at(pl.col(stat), pl.col(RANK), k, may_fall=fall).alias(
                stat_column(stat, k)
            )
            for k in spec.read_ks
            for stat in needs.by_k
        ]
        return chain.group_by(keys).agg(aggregations)

    def _terms(self, needs: TermNeeds, cut: bool) -> pl.LazyFrame:
        """The ranked rows (cut at max K when `cut`) with each term and its running sum."""
        spec, policy, keys = self.spec, self.spec.policy, list(self.spec.keys)
        chain = self.ranked.with_columns(pl.len().over(keys).cast(pl.Int64).alias(N_CANDIDATES))
        if cut:
            chain = chain.filter(pl.col(RANK) <= spec.k_max)
        if "pooled_unjudged" in needs.counts:
            negative = None if spec.truth is None else self.truth.filter(pl.col(GRADE) < 0)
            chain = ranking.with_pooled_unjudged(chain, negative, keys, spec.item, policy)
        chain = self._labelled(chain, needs)
        counts = [N_RELEVANT, N_NONRELEVANT] if "n_nonrelevant" in needs.counts else []
        if "n_relevant" in needs.counts and not counts:
            counts = [N_RELEVANT]
        if counts:
            chain = chain.join(self.truth_stats.select([*keys, *counts]), on=keys, how="left")
            chain = chain.with_columns(pl.col(column).fill_null(0) for column in counts)
        if needs.counts & set(compat_q.IDEAL_COUNTS):
            chain = compat_q.with_ideal(chain, self.judged, keys, policy, needs.counts)
        # Each group keeps its first row, so that groups without a single hit still report
        # their list length; rows that add nothing to a sparse term (ungraded, unjudged rows;
        # under "expected", blocks without gain) are left out: their terms are exact zeros.
        keep = None
        if policy.ties != "expected" and needs.sparse:
            keep = ranking.may_add(pl.col(GRADE), policy) | (pl.col(RANK) == 1)
            for flag in (IS_JUDGED, IS_POOLED_UNJUDGED) if needs.judged else ():
                keep = keep | pl.col(flag) if flag in chain.collect_schema() else keep
        return _with_terms(chain, spec, needs, keep)

    def rows(self, columns: tuple[str, ...]) -> pl.LazyFrame:
        """Each ranked row within max K where a term of `columns` is not zero: keys,
        ``rank`` and each term's own value (not cumulated), under its column's name."""
        keys = list(self.spec.keys)
        chain = self._terms(TermNeeds(columns=columns), cut=True)
        values = [
            pl.col(TERMS[column].row_column).cast(pl.Float64).alias(column) for column in columns
        ]
        return chain.select(*keys, pl.col(RANK).cast(pl.Int64).alias("rank"), *values).filter(
            pl.any_horizontal(pl.col(column) != 0 for column in columns)
        )

    def _labelled(self, chain: pl.LazyFrame, needs: TermNeeds) -> pl.LazyFrame:
        """The ranked rows with their grade (and judged flag, when a term reads it)."""
        spec, policy, keys = self.spec, self.spec.policy, list(self.spec.keys)
        if GRADE not in chain.collect_schema():
            chain = chain.join(self.joined_truth, on=[*keys, spec.item], how="left")
        chain = chain.with_columns(pl.col(GRADE).fill_null(ranking.unjudged_grade(policy)))
        if needs.judged:
            if spec.truth is None:
                labelled_judged = (
                    pl.col(GRADE) >= 0 if policy.negative_grades == "unjudged" else pl.lit(True)
                )
                chain = chain.with_columns(labelled_judged.alias(IS_JUDGED))
            elif IS_JUDGED not in chain.collect_schema():
                flags = self.judged.select([*keys, spec.item, pl.lit(True).alias(IS_JUDGED)])
                chain = chain.join(flags, on=[*keys, spec.item], how="left")
            chain = chain.with_columns(pl.col(IS_JUDGED).fill_null(False))
        if (
            spec.truth is None
            and policy.negative_grades == "unjudged"
            and ranking.mapped_below_one(policy)
        ):
            # Ranked by its label, an unjudged (negative) candidate then adds what an unjudged
            # row adds: no mapped gain.
            chain = chain.with_columns(
                pl.when(pl.col(GRADE) >= 0)
                .then(pl.col(GRADE))
                .otherwise(ranking.unjudged_grade(policy))
                .alias(GRADE)
            )
        return chain


@dataclass(frozen=True)
class Ranking:
    """The candidates ranked under a policy's ordering fields (`Policy.ordering`): what every
    part of an evaluation whose ordering fields are equal reads, built once."""

    #: The selected candidate columns, before invalid scores are handled.
    selected: pl.LazyFrame
    #: After invalid-score handling, before de-duplication.
    candidates: pl.LazyFrame
    #: After de-duplication, before unjudged rows are condensed away.
    deduplicated: pl.LazyFrame
    #: The normalised truth (keys, item, grade).
    truth: pl.LazyFrame
    #: Whether unjudged candidates left before ranking.
    condensed: bool
    #: The candidates ranked (`RANK`).
    ranked: pl.LazyFrame


def rank_candidates(spec: Spec, reads_judged: bool) -> Ranking:
    """One ranking pass's ranking: `spec`'s candidates read, de-duplicated, condensed and
    ranked under its policy's ordering fields (relevance-aware ties ordering by the grades of
    every judgement when `reads_judged`, else of the rows that may add)."""
    selected = _selected_candidates(spec)
    candidates = _valid_scores(selected, spec)
    before_condensing = _deduplicated(candidates, spec)
    # Labels of rows dropped for invalid scores still count in R_g: the item was relevant.
    truth = _normalised_truth(spec, selected)
    judged = _judged(spec, before_condensing, truth)
    deduplicated, condensed = _condensed(spec, before_condensing, judged)
    joined_truth = _joined_truth(spec, reads_judged, judged)
    ranked = _ranked_chain(spec, deduplicated, joined_truth)
    return Ranking(selected, candidates, before_condensing, truth, condensed, ranked)


def prepare_parts(specs: Sequence[Spec], truths: Sequence[int]) -> list[Prepared]:
    """`prepare_groups` of each spec (one evaluation's parts over the same candidates), those
    of equal ordering fields (`Policy.ordering`) and truth (`truths`: an id per spec) ranked
    once: in pure Polars one ranked frame, in the kernel one call summing each part's terms
    under its own label fields (`shared_group_sums`, where the parts' inputs are alike).
    Under relevance-aware ties a ranking orders by the grades its terms join: a part that
    reads judgements ranks apart from one that does not."""
    rankings: dict[tuple[object, ...], tuple[Ranking, list[int]]] = {}
    for index, (spec, truth) in enumerate(zip(specs, truths, strict=True)):
        reads_judged = term_needs(spec.metrics, spec.policy).judged
        key = (*spec.policy.ordering(), truth, reads_judged and _grades_order(spec))
        if key not in rankings:
            rankings[key] = (rank_candidates(spec, reads_judged), [])
        rankings[key][1].append(index)
    prepared: dict[int, Prepared] = {}
    for shared, indices in rankings.values():
        found = _prepared_from(shared, [specs[index] for index in indices])
        prepared.update(zip(indices, found, strict=True))
    return [prepared[index] for index in range(len(specs))]


def _prepared_from(ranking: Ranking, specs: list[Spec]) -> list[Prepared]:
    """`prepare_groups` of `specs` from one `ranking`: prepared once with the kernel's call
    of each (what each asks recorded), then, where the kernel can sum every part from one
    call (`shared_group_sums`), again from that call's columns."""
    asked: list[SumsAsked] = []

    def recorded(*arguments: Any) -> pl.LazyFrame:
        asked.append(SumsAsked(*arguments))
        return native.group_sums(*arguments)

    prepared = [prepare_groups(spec, ranking, recorded) for spec in specs]
    shared = shared_group_sums(asked) if 1 < len(asked) == len(specs) else None
    if shared is None:
        return prepared
    return [
        prepare_groups(spec, ranking, lambda *_, sums=sums: sums)
        for spec, sums in zip(specs, shared, strict=True)
    ]


def _grades_order(spec: Spec) -> bool:
    """Whether the truth's grades, joined to the candidates, order tie blocks."""
    return spec.policy.ties in RELEVANCE_AWARE_TIES and not spec.labelled


def prepare_groups(
    spec: Spec, ranking: Ranking | None = None, group_sums: KernelSums = native.group_sums
) -> Prepared:
    """Build the lazy per-group table for `spec`: one pass over the candidates, ranked by
    `ranking` (built under the same ordering fields; None: ranked here), the kernel's sums
    from `group_sums` where the kernel computes them.

    The candidates are read once: de-duplicated, ranked in a window, joined with the
    positive truth, compacted to the rows that matter (graded rows and each group's first
    row, which carries the list length), cumulated in rank order and reduced per group.
    Judgement-aware metrics (judged@K, rbp's residual, bpref) and ``unjudged="condense"``
    join every truth row instead, flag the judged candidates and keep the judged rows.
    """
    needs = term_needs(spec.metrics, spec.policy)
    if ranking is None:
        ranking = rank_candidates(spec, needs.judged)
    selected, truth, ranked = ranking.selected, ranking.truth, ranking.ranked
    judged = _judged(spec, ranking.deduplicated, truth)
    truth_stats = truth_statistics(spec, selected, truth, judged, needs)
    joined_truth = _joined_truth(spec, needs.judged, judged)
    pure = _PureSums(spec, ranked, judged, joined_truth, truth_stats, truth)
    per_group, path, term_rows, term_events = kernel_or_pure_sums(
        spec, needs, (pure.sums, pure.rows), selected, truth, truth_stats, group_sums
    )
    kernel_sums = per_group
    per_group, facts = kernel_facts.facts_of(spec, kernel_sums)
    per_group, places = kernel_places.places_of(spec, per_group, kernel_sums)
    groups = universe(spec, truth, judged, truth_stats).join(
        per_group, on=list(spec.keys), how="left"
    )
    groups = filled(spec, with_presence(spec, groups, ranking.condensed, path), needs)
    return Prepared(
        group_sums=groups,
        ranked=ranked,
        truth=truth,
        candidates=ranking.candidates,
        deduplicated=ranking.deduplicated,
        path=path,
        term_rows=term_rows,
        term_events=term_events,
        judged=judged,
        facts=facts,
        places=places,
    )


def _judged(spec: Spec, deduplicated: pl.LazyFrame, truth: pl.LazyFrame) -> pl.LazyFrame:
    """The judged truth rows: restricted to the ranked items under ``pool="restrict"``, the
    negative grades and the pool applied (a group stays in the universe, being in the truth,
    even when none of its grades is judged)."""
    keys = [*spec.keys, spec.item]
    judged = truth
    if spec.policy.pool == "restrict" and spec.truth is not None:
        judged = truth.join(deduplicated.select(keys).unique(), on=keys, how="semi")
    return ranking.judged_rows(judged, pl.col(GRADE), spec.policy)


def _condensed(
    spec: Spec, deduplicated: pl.LazyFrame, judged: pl.LazyFrame
) -> tuple[pl.LazyFrame, bool]:
    """The candidates ranked, and whether unjudged ones left first (Sakai's condensed list:
    candidates without a judgement; pre-labelled, those with a negative grade)."""
    condensed = ranking.condenses(spec.policy, has_truth=spec.truth is not None)
    if condensed and spec.truth is not None:
        return deduplicated.join(judged, on=[*spec.keys, spec.item], how="semi"), True
    if condensed:
        return deduplicated.filter(pl.col(GRADE) >= 0), True
    return deduplicated, False


def _joined_truth(spec: Spec, reads_judged: bool, judged: pl.LazyFrame) -> pl.LazyFrame:
    """The truth rows joined to the candidates: every judged row when a metric needs the
    judged flag (`reads_judged`), else the positive ones only (the default path stays as
    small as it was)."""
    if reads_judged and spec.truth is not None:
        return judged.with_columns(pl.lit(True).alias(IS_JUDGED))
    return judged.filter(ranking.may_add(pl.col(GRADE), spec.policy))
