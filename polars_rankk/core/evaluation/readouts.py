"""What an `Evaluation` reads from its tables besides the summary: the eager per-group rows,
the groups each policy dropped, the ranked rows behind K-curves, and the metrics a summary
names."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from polars_rankk.core.columns import (
    DCG,
    FIRST_HIT,
    GRADE,
    HAS_CANDIDATES,
    HITS,
    N_CANDIDATES,
    N_RELEVANT,
    PRECISION_SUM,
    RANK,
    RECIPROCAL_RANK,
    SCORE,
)
from polars_rankk.core.evaluation import aggregate
from polars_rankk.core.evaluation.catalogue import Exposures, SharedCatalogue
from polars_rankk.core.evaluation.group_table import term_rows_read
from polars_rankk.core.evaluation.prepare import Prepared
from polars_rankk.core.evaluation.views import (
    apply_group_policies,
    dropped_table,
    long_table,
    metric_column,
    metric_cutoffs,
    per_group_rows,
)
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel import places as kernel_places
from polars_rankk.core.kernel import ranking as kernel_ranking
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.order import gain_of
from polars_rankk.core.metrics.registry import MICRO_METRICS, REGISTRY
from polars_rankk.core.names.cells import Label, at_cutoff
from polars_rankk.core.names.parse import NameStyle, parse_metric_name
from polars_rankk.core.names.write import written_summary
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import Average, FrameLike, MetricName


def dropped_queries(
    all_group_sums: FrameLike, policy: Policy, ks: Sequence[int]
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Groups each policy dropped: overall counts, and per k for short lists."""
    groups = all_group_sums.lazy()
    empty = pl.col(N_RELEVANT) == 0
    empty_dropped = empty if policy.empty_truth == "exclude" else pl.lit(False)
    missing_dropped = (
        ~pl.col(HAS_CANDIDATES) & ~empty_dropped
        if policy.missing_groups == "exclude"
        else pl.lit(False)
    )
    counts = groups.select(
        empty_dropped.sum().cast(pl.Int64).alias("dropped_empty_truth"),
        missing_dropped.sum().cast(pl.Int64).alias("dropped_missing"),
    )
    if policy.short_lists == "skip":
        short = (
            apply_group_policies(groups, policy)
            .join(pl.LazyFrame({"k": list(ks)}, schema={"k": pl.Int64}), how="cross")
            .group_by("k")
            .agg((pl.col(N_CANDIDATES) < pl.col("k")).sum().cast(pl.Int64).alias("dropped_short"))
        )
    else:
        short = pl.LazyFrame(schema={"k": pl.Int64, "dropped_short": pl.Int64})
    return counts, short


def ranking_rows(
    spec: Spec, prepared: Prepared, columns: tuple[str, ...]
) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
    """Per-rank term rows and ideal gain rows of the evaluated groups
    (`Evaluation.ranking_rows`)."""
    if not term_rows_read(spec) or prepared.term_rows is None or prepared.judged is None:
        return None
    keys = list(spec.keys)
    gain = gain_of(pl.col(GRADE), spec.policy)
    ideal_rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys, order_by=-gain)
    ideal = prepared.judged.select(*keys, gain.alias("gain"), ideal_rank.alias("rank"))
    ideal = ideal.filter((pl.col("gain") > 0) & (pl.col("rank") <= spec.k_max))
    return prepared.term_rows(columns), ideal


def ranking_events(
    spec: Spec, prepared: Prepared, columns: tuple[str, ...]
) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
    """Each group's event rows with running sums, where the kernel gave them
    (`Evaluation.ranking_events`)."""
    if not term_rows_read(spec) or prepared.term_events is None:
        return None
    return prepared.term_events(columns)


def ranked_items(
    spec: Spec, prepared: Prepared, top: int | None = None, tie_blocks: bool = False
) -> pl.LazyFrame:
    """The candidates as ranked: group keys, item and ``rank`` (`Evaluation.ranked_items`);
    with `top`, ranks 1..top only, from the compiled kernel's ranking where it can rank them
    (the same order: `kernel_ranking.ranked_top`); with `tie_blocks`, each row's ``block``."""
    if top is not None and not tie_blocks:
        fast = _kernel_top(spec, top)
        return (
            fast if fast is not None else ranked_items(spec, prepared).filter(pl.col("rank") <= top)
        )
    keys = list(spec.keys)
    rank = pl.col(RANK).cast(pl.Int64)
    block = rank.min().over([*keys, SCORE])  # the rank of the first row of equal scores
    if spec.policy.ties == "expected":
        rank = block
    ranked = prepared.ranked.select(
        *keys, spec.item, rank.alias("rank"), *([block.alias("block")] if tie_blocks else [])
    )
    return ranked if top is None else ranked.filter(pl.col("rank") <= top)


def _kernel_top(spec: Spec, top: int) -> pl.LazyFrame | None:
    """Each group's ranks 1..`top` ranked by the kernel, or None where the list it ranks is
    not the evaluation's (`_kernel_ranked`)."""
    found = _kernel_ranked(spec)
    if found is None:
        return None
    frame, score = found
    return kernel_ranking.ranked_top(frame, list(spec.keys), spec.item, score, spec.policy, top)


def item_ranks(spec: Spec, pairs: pl.DataFrame, depth: int) -> pl.Series | None:
    """Each of `pairs`' (keys, item) place in the evaluation's ranking, from the kernel
    (`Evaluation.item_ranks`), or None where it does not rank the evaluation's list."""
    found = _kernel_ranked(spec)
    if found is None:
        return None
    frame, score = found
    keys, item = list(spec.keys), spec.item
    return kernel_ranking.item_ranks(frame, keys, item, score, spec.policy, pairs, depth)


def _kernel_ranked(spec: Spec) -> tuple[pl.LazyFrame, pl.Expr] | None:
    """The candidates and score the kernel ranks as the evaluation does, or None where the
    list it would rank is not the evaluation's (unjudged rows condensed away, copies kept, a
    labelled list)."""
    policy = spec.policy
    if policy.unjudged == "condense" or policy.duplicates == "keep" or spec.labelled:
        return None
    frame = spec.candidates
    score = ranking.score_value(pl.col(spec.score), lower_is_better=spec.lower_is_better)
    if policy.invalid_scores == "drop":
        frame = frame.filter(ranking.is_valid_score(score))
    return frame, score


def chosen_metrics(
    evaluated: Sequence[MetricName], metrics: Iterable[str] | None, average: str
) -> list[str]:
    """The canonical metrics a summary reads: `metrics` in any accepted spelling, or every
    evaluated metric (those with a micro form for ``"micro"``)."""
    if metrics is None:
        if average == "micro":
            return [m for m in evaluated if m in MICRO_METRICS]
        return list(evaluated)
    chosen = [metrics] if isinstance(metrics, str) else list(metrics)
    if not chosen:
        raise ValueError(f"metrics is empty; evaluated: {evaluated}")
    # Any accepted spelling (P@5, ndcg_cut_10) names its canonical metric.
    chosen = [canonical(name) for name in chosen]
    missing = [m for m in chosen if m not in evaluated]
    if missing:
        raise ValueError(f"metrics {missing} were not evaluated; evaluated: {evaluated}")
    return chosen


def canonical(name: str) -> str:
    """The canonical name of an accepted spelling; other names are left for the caller to
    report."""
    try:
        return parse_metric_name(name).metric
    except (TypeError, ValueError):
        return name


def summarize(
    tables: tuple[FrameLike, FrameLike, FrameLike],
    spec: Spec,
    dropped: tuple[pl.LazyFrame, pl.LazyFrame],
    chosen: list[str],
    how: tuple[Average, str | FrameLike | None, NameStyle],
    cells: set[tuple[str, int | None]] | None = None,
    wide: FrameLike | None = None,
) -> pl.DataFrame:
    """`Evaluation.summary` of one system: from its per-group rows, groups table and evaluated
    groups' sums, the `dropped` queries, the `chosen` metrics and (average, weights, names),
    at `cells` only where given. `wide`, where given, is the metric table the per-group rows
    unpivot (one column per metric@k): a macro mean counts its values there."""
    per_group_table, groups, evaluated_sums = tables
    average, weights, names = how
    group_keys = list(spec.group_keys)
    per_group = per_group_table.lazy().filter(pl.col("metric").is_in(chosen))
    weight = None
    if average == "macro" and wide is not None:
        read = [(metric, k) for metric, k in metric_cutoffs(spec) if metric in chosen]
        query = aggregate.wide_value_histogram(wide, read)
    elif average == "macro":
        query = aggregate.value_histogram(per_group)
    elif average == "weighted":
        table, weight = aggregate.weights_table(weights, groups, group_keys)
        query = aggregate.weighted_query(
            per_group, table, group_keys, weight, check=not isinstance(weights, str)
        )
    elif average == "micro":
        aggregate.check_micro(chosen, list(spec.metrics))
        query = aggregate.micro_query(evaluated_sums, spec, chosen)
    else:
        raise ValueError(f"average must be 'macro', 'micro' or 'weighted'; got {average!r}")
    # One collect, so that a lazy evaluation runs its pipeline once for both.
    rows, counts, short = pl.collect_all([query, *dropped])
    if average == "macro":
        result = aggregate.summarize_histogram(rows, ordered=wide is not None)
    elif average == "weighted":
        result = aggregate.weighted_from(rows, weight or "")
    else:
        result = aggregate.micro_from(rows)
    dropped_counts = dropped_table(spec.ks, counts, short)
    if average != "micro":  # (micro's sums keep every K: a ratio of no group is NaN there)
        cells_kept = [cell for cell in aggregate.summary_cells(spec) if cell[0] in chosen]
        result = aggregate.with_skipped_cells(result, cells_kept, dropped_counts)
    result = result.join(dropped_counts, on="k", how="left", nulls_equal=True)
    if cells is not None:
        at = [(metric, k) in cells for metric, k in result.select("metric", "k").iter_rows()]
        result = result.filter(pl.Series(at, dtype=pl.Boolean))
    summed = per_group if average == "macro" else None
    return written_summary(result, names, spec.policy, summed)


class EvaluationTables:
    """The tables of an `Evaluation` and the views read straight from them (the rest of
    `Evaluation` summarises, splits and collects them)."""

    def __init__(
        self,
        spec: Spec,
        prepared: Prepared,
        per_group: FrameLike | None,
        groups: FrameLike,
        evaluated_group_sums: FrameLike,
        all_group_sums: FrameLike,
        metric_table: FrameLike,
        catalogue: FrameLike | None = None,
        exposures: Exposures | None = None,
    ) -> None:
        self._spec = spec
        self._prepared = prepared
        # One row per evaluated group, with the cumulated counts at every k.
        self._evaluated_group_sums = evaluated_group_sums
        # Every group of the universe, before the group policies drop any.
        self._all_group_sums = all_group_sums
        # One row per evaluated group, one column per metric@k: what per_group unpivots.
        self._metric_table = metric_table
        # None: an eager evaluation's per-group rows, built from the metric table when first
        # read (a summary counts the metric table's values and never needs them).
        self._per_group = per_group
        self.groups = groups
        self.group_keys: list[str] = list(spec.group_keys)
        self.system: str | None = spec.system
        # Every key of the per-group tables: the system column first, when there is one.
        self._keys: list[str] = list(spec.keys)
        # One system's slice of a multi-system evaluation: its plans would rank again.
        self._sliced = False
        self.ks: list[int] = list(spec.ks)
        self.metrics: list[MetricName] = list(spec.metrics)
        self.policy: Policy = spec.policy
        self.is_lazy: bool = spec.is_lazy
        self.catalogue: FrameLike | None = catalogue
        self.exposures: Exposures | None = exposures
        # With label probabilities: how each (metric, k) was computed (enumeration or Monte
        # Carlo), per group counts and draws.
        self.label_methods: FrameLike | None = None
        # With label probabilities: what they were computed from (`labels.joint.LabelSource`),
        # for evaluating several systems again on shared label outcomes (compare(labels=True)).
        self.label_source: Any = None
        # The names of its cells whose name reads the policy otherwise than the evaluation.
        self.labels: tuple[Label, ...] = ()
        # The catalogue shared by every system compared, when the catalogue metrics were
        # measured against it (`share_catalogue`); None: against the evaluation's own.
        self.shared_catalogue: SharedCatalogue | None = None

    @property
    def per_group(self) -> FrameLike:
        """One row per (group, metric, k): the group keys, ``metric``, ``k``, ``value``."""
        if self._per_group is None:
            assert isinstance(self._metric_table, pl.DataFrame)
            self._per_group = per_group_rows(self._metric_table, self._spec)
        return self._per_group

    @per_group.setter
    def per_group(self, rows: FrameLike) -> None:
        self._per_group = rows

    def _per_group_query(self) -> pl.LazyFrame:
        """The per-group rows as a query, not built where they were not yet (their order is
        then not `per_group`'s)."""
        if self._per_group is not None:
            return self._per_group.lazy()
        return long_table(self._metric_table.lazy(), self._spec)

    def share_catalogue(self, shared: SharedCatalogue | None) -> None:
        """Record that the catalogue metrics were measured against `shared`, one catalogue of
        every system compared (`evaluate_systems`, ``rankk compare``): said among the
        diagnostics' counts, counted already or not (and its first part's, of several)."""
        for one in (self, self.__dict__.get("_primary")):
            if shared is None or one is None:
                continue
            one.shared_catalogue = shared
            known = one.__dict__.get("diagnostics")
            if known is not None:  # counted already (the cached property's slot)
                one.__dict__["diagnostics"] = shared.added_to(known)

    def _one_pass(self) -> bool:
        """Every view derives from the collected one-row-per-group pass (no beyond-accuracy
        tables to collect beside it)."""
        return self.catalogue is None and all(REGISTRY[name].accuracy for name in self.metrics)

    def _dropped_queries(self) -> tuple[pl.LazyFrame, pl.LazyFrame]:
        """Groups each policy dropped: overall counts, and per k for short lists."""
        return dropped_queries(self._all_group_sums, self.policy, self.ks)

    def wide(self) -> FrameLike:
        """per_group pivoted: one row per group, one column per ``metric@k``.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [2]}),
        ...                   k=[1, 2], metrics=["hit_rate"], group_by="q")
        >>> res.wide()
        shape: (1, 3)
        ┌─────┬────────────┬────────────┐
        │ q   ┆ hit_rate@1 ┆ hit_rate@2 │
        │ --- ┆ ---        ┆ ---        │
        │ i64 ┆ f64        ┆ f64        │
        ╞═════╪════════════╪════════════╡
        │ 1   ┆ 0.0        ┆ 1.0        │
        └─────┴────────────┴────────────┘
        """
        wide = self._wide().sort(self._keys)
        return wide if self.is_lazy else wide.collect()

    def _wide(self) -> pl.LazyFrame:
        """This part's wide table, each labelled cell's column named as its label
        (``P(rel=2)@5``)."""
        named = {(label.metric, label.k): label.typed for label in self.labels}

        def column(name: str, k: int | None) -> str:
            return at_cutoff(named[name, k], k) if (name, k) in named else metric_column(name, k)

        if self.label_methods is not None:
            # Expectations over label outcomes: the per-group rows are the values (the metric
            # table holds those of one labelling).
            rows = self.per_group.lazy()
            values = [
                pl.col("value")
                .filter((pl.col("metric") == name) & pl.col("k").eq_missing(k))
                .first()
                .alias(column(name, k))
                for name, k in metric_cutoffs(self._spec)
            ]
            return rows.group_by(self._keys).agg(values)
        columns = [
            pl.col(metric_column(name, k)).alias(column(name, k))
            for name, k in metric_cutoffs(self._spec)
        ]
        return self._metric_table.lazy().select(*self._keys, *columns)

    def ranking_rows(
        self, columns: tuple[str, ...] = (HITS, FIRST_HIT, DCG, PRECISION_SUM, RECIPROCAL_RANK)
    ) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
        """Per-rank rows of the evaluated groups, for sums over ranks (K-curves).

        Returns ``(terms, ideal)``: ``terms`` holds one row per ranked candidate at rank <= max
        K where a per-rank term of `columns` is not zero (group keys, ``rank``, and each term's
        own value under its column's name: what `evaluate` cumulates, under the same ranking
        and term declarations, on the kernel when it ran there; the kernel ranks for these rows
        in a call of its own, `ranking_events` reading the evaluation's pass); ``ideal`` one row per
        judged truth item with a positive gain at ideal rank <= max K (group keys, ``rank``,
        ``gain``). Both are lazy and share this evaluation's plan. None when the policy needs
        more than these rows (``ties="expected"``, or an ``n_relevant`` column), for one
        system of several (`by_system`: its rows would be ranked again), and for expectations
        over label outcomes (no one labelling's rows give them). Rows of groups the policy
        dropped are included: join with ``groups`` to leave them out.
        """
        if self._sliced or self.label_methods is not None:
            return None
        return ranking_rows(self._spec, self._prepared, columns)

    def ranking_events(self, columns: tuple[str, ...]) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
        """`ranking_rows` as the kernel sums them: ``(order, events)``, ``order`` the group
        keys in the order of each group's number, ``events`` one row per group and rank where
        a term of `columns` or the ideal DCG changes (rank 1 included) — the group's number
        ``_rk_group``, ``rank``, each term's running sum under its column's name (summed in
        rank order, as `evaluate` sums it) and its own value, and the ideal DCG
        ``_rk_ideal``. None where the kernel did not rank this evaluation's groups with them
        (then `ranking_rows` gives what to sum). Groups without a candidate row have none.
        """
        if self._sliced or self.label_methods is not None:
            return None
        return ranking_events(self._spec, self._prepared, columns)

    def ranked_items(
        self, top: int | None = None, *, tie_blocks: bool = False
    ) -> pl.LazyFrame | None:
        """The candidates as this evaluation ranked them (lazy): group keys, item and ``rank``
        (Int64, from 1), after invalid scores, duplicates and (``unjudged="condense"``)
        unjudged rows were handled. Under ``ties="expected"`` a row's ``rank`` is that of the
        first row of its tie block, so every item that may reach rank r has ``rank <= r``.
        With `top`, only ranks 1..`top` (from the compiled kernel where it is loaded: the
        same ranking, without ordering the whole list in Polars). With `tie_blocks`, a
        ``block`` column: the rank of the first row of the row's tie block (its equal scores),
        what a tie order that reads the labels reorders.
        None for one system of several (`by_system`: its rows would be ranked again).

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> c = pl.DataFrame({"q": [1, 1, 1], "item": [7, 8, 9], "score": [0.2, 0.9, 0.5]})
        >>> t = pl.DataFrame({"q": [1], "item": [8]})
        >>> ranked = rk.evaluate(c, t, k=2, group_by="q").ranked_items()
        >>> ranked.sort("rank").collect()["item"].to_list()
        [8, 9, 7]
        """
        if self._sliced:
            return None
        return ranked_items(self._spec, self._prepared, top, tie_blocks)

    def item_ranks(self, pairs: pl.DataFrame, depth: int) -> pl.Series | None:
        """The place of each row of `pairs` (group keys and item, in the candidates' dtypes)
        in this evaluation's ranking, from the compiled kernel's one ranking to `depth`: 0
        where the item is not among its group's candidates, its rank where that is at most
        `depth`, ``depth + 1`` where deeper (Int64, in `pairs`' order). None where the kernel
        is not loaded or does not rank this evaluation's list (then `ranked_items` gives
        the ranks), and for one system of several.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> c = pl.DataFrame({"q": [1, 1, 1], "item": [7, 8, 9], "score": [0.2, 0.9, 0.5]})
        >>> t = pl.DataFrame({"q": [1], "item": [8]})
        >>> res = rk.evaluate(c, t, k=2, group_by="q")
        >>> found = res.item_ranks(pl.DataFrame({"q": [1, 1, 1], "item": [7, 8, 5]}), 2)
        >>> found is None or found.to_list() == [3, 1, 0]
        True
        """
        if self._sliced:
            return None
        return item_ranks(self._spec, pairs, depth)

    def ranked_places(self, pairs: pl.DataFrame, depth: int) -> pl.Series | None:
        """Each row of `pairs`' (group keys and item) rank in this evaluation's ranking where
        it is at most `depth`, else 0 (not among the candidates, or ranked deeper): Int64, in
        `pairs`' order, read from the items its own ranking pass listed at each group's first
        ranks (where `evaluate` was asked for ``places`` of at least `depth`: no second
        ranking). None where the pass listed none or fewer (then `item_ranks` ranks again)."""
        places = None if self._sliced else self._prepared.places
        if places is None:
            return None
        return kernel_places.item_places(places.collect(), self._spec, pairs, depth)
