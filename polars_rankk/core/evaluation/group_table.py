"""The last steps of `polars_rankk.core.evaluation.prepare.prepare_groups`: each group's sums
from the compiled kernel or pure Polars, whether the group has candidates, and zeros where it
has none — the one-row-per-group table every metric reads."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rankk.core.columns import (
    HAS_CANDIDATES,
    HITS_AT_R,
    IDEAL_DCG,
    N_CANDIDATES,
    N_NONRELEVANT,
    N_RELEVANT,
    stat_column,
)
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel import rows as kernel_rows
from polars_rankk.core.metrics.terms import TERMS, TermNeeds

#: Each ranked row within max K where a term of the columns asked is not zero.
TermRows = Callable[[tuple[str, ...]], pl.LazyFrame]


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
) -> tuple[pl.LazyFrame, str, TermRows]:
    """Each group's sums, which path computed them, and its term rows: from the compiled
    kernel when it is there — every term it computes; the others (a user's term that is not
    linear) from pure Polars, joined — else from `pure` (its sums and its term rows)."""
    pure_sums, pure_rows = pure
    per_group = pure_sums(needs)
    path = native.unsupported(spec)
    if path is not None:
        return per_group, path, pure_rows
    on_kernel = tuple(column for column in needs.columns if native.computes(TERMS[column]))
    rest = tuple(column for column in needs.columns if column not in on_kernel)
    schema = per_group.collect_schema()
    path = native.status().line()

    kernel_needs = TermNeeds(columns=on_kernel, hits_at_r=needs.hits_at_r)
    if spec.term_rows and spec.is_lazy and term_rows_read(spec) and not rest:
        # Sums and term rows from one ranking (an eager evaluation collects its sums alone).
        per_group, rows_of = kernel_rows.group_rows(
            spec, selected, truth, truth_stats, kernel_needs, schema
        )
    else:
        per_group = native.group_sums(spec, selected, truth, truth_stats, kernel_needs, schema)
        rows_of = _no_rows

    def term_rows(columns: tuple[str, ...]) -> pl.LazyFrame:
        rows = rows_of(columns)
        return kernel_rows.term_rows(spec, selected, truth, columns) if rows is None else rows

    if rest:
        names = ", ".join(TERMS[column].name for column in rest)
        path += (
            f"; the terms {names} in pure Polars (the kernel computes only terms "
            "declared as labels times weights of the rank)"
        )
        extra = pure_sums(TermNeeds(columns=rest)).drop(N_CANDIDATES, HITS_AT_R, strict=False)
        # In the pure path's column order: one schema whichever path computed a term.
        per_group = per_group.join(extra, on=list(spec.keys), how="left").select(schema.names())
    return per_group, path, term_rows


def _no_rows(columns: tuple[str, ...]) -> pl.LazyFrame | None:
    """No term rows came with the sums: `native.term_rows` ranks for them."""
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
