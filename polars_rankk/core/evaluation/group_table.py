"""The group side of `polars_rankk.core.evaluation.prepare.prepare_groups`: the truth's
per-group counts (R, the ideal DCG), each group's sums from the compiled kernel or pure Polars,
whether the group has candidates, and zeros where it has none — the one-row-per-group table
every metric reads."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rankk.core.columns import (
    GAIN,
    GRADE,
    HAS_CANDIDATES,
    HITS_AT_R,
    IDEAL_DCG,
    N_CANDIDATES,
    N_NONRELEVANT,
    N_PADDING,
    N_RELEVANT,
    RANK,
    RELEVANT,
    stat_column,
)
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel import rows as kernel_rows
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.order import gain_of
from polars_rankk.core.metrics.terms import TERMS, TermNeeds

#: Each ranked row within max K where a term of the columns asked is not zero.
TermRows = Callable[[tuple[str, ...]], pl.LazyFrame]

#: A K-curve's event rows from the kernel (`kernel_rows.group_rows`).
TermEvents = Callable[[tuple[str, ...]], kernel_rows.Events | None]

#: The kernel's per-group sums of one part (`loader.group_sums`' arguments and result).
KernelSums = Callable[
    [Spec, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, TermNeeds, pl.Schema], pl.LazyFrame
]


def term_rows_read(spec: Spec) -> bool:
    """Whether per-rank term rows give `spec`'s sums over ranks (K-curves): not under
    ``ties="expected"`` (a tie block's expectation is read through the whole list) nor with an
    ``n_relevant`` column (R padded beyond the rows)."""
    return spec.policy.ties != "expected" and spec.n_relevant is None


def kernel_or_pure_sums(
    spec: Spec,
    needs: TermNeeds,
    pure: tuple[Callable[[TermNeeds], pl.LazyFrame], TermRows],
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame,
    group_sums: KernelSums = native.group_sums,
) -> tuple[pl.LazyFrame, str, TermRows, TermEvents]:
    """Each group's sums, which path computed them, its term rows and its event rows: from
    the compiled kernel when it is there (`group_sums`: its call, or a part's columns of a
    call shared with other parts) — every term it computes; the others (a user's term that is
    not linear) from pure Polars, joined — else from `pure` (its sums and its term rows; no
    event rows: a K-curve sums the term rows itself)."""
    pure_sums, pure_rows = pure
    per_group = pure_sums(needs)
    path = native.unsupported(spec)
    if path is not None:
        return per_group, path, pure_rows, _no_events
    on_kernel = tuple(column for column in needs.columns if native.computes(TERMS[column]))
    rest = tuple(column for column in needs.columns if column not in on_kernel)
    schema = per_group.collect_schema()
    path = native.status().line()

    kernel_needs = TermNeeds(columns=on_kernel, hits_at_r=needs.hits_at_r)
    arguments = (spec, selected, truth, truth_stats, kernel_needs, schema)
    events_of: TermEvents = _no_events
    if spec.term_rows and term_rows_read(spec) and not rest:
        # Sums and event rows from one ranking; an eager evaluation collects its sums alone
        # (the kernel ranks again for its events).
        ranked, events_of = kernel_rows.group_rows(*arguments)
        per_group = ranked if spec.is_lazy else group_sums(*arguments)
    else:
        per_group = group_sums(*arguments)

    def term_rows(columns: tuple[str, ...]) -> pl.LazyFrame:
        return kernel_rows.term_rows(spec, selected, truth, columns)

    if rest:
        names = ", ".join(TERMS[column].name for column in rest)
        path += (
            f"; the terms {names} in pure Polars (the kernel computes only terms "
            "declared as labels times weights of the rank)"
        )
        extra = pure_sums(TermNeeds(columns=rest)).drop(N_CANDIDATES, HITS_AT_R, strict=False)
        # In the pure path's column order: one schema whichever path computed a term.
        per_group = per_group.join(extra, on=list(spec.keys), how="left").select(schema.names())
    return per_group, path, term_rows, events_of


def _no_events(columns: tuple[str, ...]) -> kernel_rows.Events | None:
    """No event rows came with the sums: a K-curve sums the term rows itself."""
    return None


def with_presence(spec: Spec, groups: pl.LazyFrame, condensed: bool, path: str) -> pl.LazyFrame:
    """`groups` with whether each has candidates (`HAS_CANDIDATES`): a fact of the input."""
    policy = spec.policy
    kernel = path.startswith("native kernel: loaded")
    if (
        condensed
        or spec.empty_candidate_groups is not None
        or (policy.invalid_scores == "drop" and not kernel)
    ):
        # A list emptied by dropping invalid scores or condensing unjudged items, or given
        # empty, is an empty ranking, not a missing one.
        return groups.join(_present(spec), on=list(spec.keys), how="left")
    if kernel:
        # The kernel returns every group with candidate rows, ranked empty when none survived.
        present = pl.col(N_CANDIDATES).is_not_null()
        if policy.invalid_scores != "drop":
            present = present & (pl.col(N_CANDIDATES) > 0)
        return groups.with_columns(present.alias(HAS_CANDIDATES))
    return groups.with_columns(pl.col(N_CANDIDATES).is_not_null().alias(HAS_CANDIDATES))


def _present(spec: Spec) -> pl.LazyFrame:
    """Groups that have candidate rows in the input, before invalid scores are dropped or
    unjudged items (negative labels, without truth) condensed.

    A group whose every row was dropped is ranked empty; it is not a missing group.
    """
    present = spec.candidates.select(spec.keys).unique()
    if spec.empty_candidate_groups is not None:
        # An empty list is an empty ranking: the group has candidates, none of them ranked.
        present = pl.concat([present, spec.empty_candidate_groups]).unique()
    return present.with_columns(pl.lit(True).alias(HAS_CANDIDATES))


def filled(spec: Spec, groups: pl.LazyFrame, needs: TermNeeds) -> pl.LazyFrame:
    """`groups` with zeros where a group has no candidate (or no relevant) row, and only the
    columns every metric reads."""
    stat_columns = [stat_column(stat, k) for k in spec.read_ks for stat in (*needs.by_k, IDEAL_DCG)]
    groups = groups.with_columns(
        pl.col(HAS_CANDIDATES).fill_null(False),
        pl.col(N_CANDIDATES).fill_null(0),
        pl.col(N_RELEVANT).fill_null(0),
        *(pl.col(column).fill_null(0) for column in [*stat_columns, *needs.whole_list]),
    )
    if "n_nonrelevant" in needs.counts:
        groups = groups.drop(N_NONRELEVANT)
    if needs.hits_at_r:
        return groups.with_columns(pl.col(HITS_AT_R).fill_null(0.0))
    return groups.with_columns(pl.lit(0.0).alias(HITS_AT_R))


def universe(
    spec: Spec, truth: pl.LazyFrame, judged: pl.LazyFrame, truth_stats: pl.LazyFrame
) -> pl.LazyFrame:
    """Every group evaluated, with its truth statistics: the truth's groups (or, without a
    truth, the candidates'), a group given an empty list included."""
    keys = list(spec.keys)
    groups = truth_stats
    if judged is not truth:
        groups = truth.select(keys).unique().join(truth_stats, on=keys, how="left")
    # A group whose truth is an empty list is in the truth with nothing relevant; without a
    # truth table, a group whose candidate list is empty is a group with nothing at all.
    empty = spec.empty_truth_groups if spec.truth is not None else spec.empty_candidate_groups
    if empty is None:
        return groups
    extra = empty.join(groups.select(keys), on=keys, how="anti")
    return pl.concat([groups, extra], how="diagonal_relaxed")


def _truth_stats(
    judged: pl.LazyFrame, spec: Spec, padding: pl.LazyFrame | None, count_nonrelevant: bool
) -> pl.LazyFrame:
    """Per group: R_g and the ideal DCG of all its truth grades cut at every k (and, for
    bpref, the number of judged non-relevant truth items)."""
    keys = list(spec.keys)
    policy = spec.policy
    relevant = (pl.col(GRADE) >= policy.relevance_threshold).cast(pl.Int64)
    gains = judged.select(
        [*keys, gain_of(pl.col(GRADE), policy).alias(GAIN), relevant.alias(RELEVANT)]
    )
    if padding is not None:
        gains = pl.concat([gains, padding], how="vertical")
    extra = []
    if count_nonrelevant:
        # Padding rows are relevant, so every non-relevant row is a judged truth item.
        extra.append((1 - pl.col(RELEVANT)).sum().cast(pl.Int64).alias(N_NONRELEVANT))
    partition = [pl.col(key) for key in keys]
    gains = gains.with_columns(ranking.rank_of([-pl.col(GAIN)], False, partition).alias(RANK))
    # Equal gains are interchangeable, so the cumulated sequence is the same in any tie order.
    gains = gains.with_columns(
        ranking.cumulative(
            pl.col(GAIN) / ranking.discount(pl.col(RANK)), partition, pl.col(RANK)
        ).alias(IDEAL_DCG)
    )
    return gains.group_by(keys).agg(
        pl.col(RELEVANT).sum().cast(pl.Int64).alias(N_RELEVANT),
        *extra,
        *(
            ranking.read_at(pl.col(IDEAL_DCG), pl.col(RANK), k).alias(stat_column(IDEAL_DCG, k))
            for k in spec.read_ks
        ),
    )


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


def truth_statistics(
    spec: Spec, selected: pl.LazyFrame, truth: pl.LazyFrame, judged: pl.LazyFrame,
    needs: TermNeeds,
) -> pl.LazyFrame:  # fmt: skip
    """R_g and the truth's other per-group counts: the kernel's where it takes them (none
    padded by ``n_relevant``), else pure Polars'."""
    padding = _padding(spec, selected, truth) if spec.n_relevant is not None else None
    counted = "n_nonrelevant" in needs.counts
    stats = None if padding is not None else native.truth_stats(spec, judged, counted)
    return stats if stats is not None else _truth_stats(judged, spec, padding, counted)
