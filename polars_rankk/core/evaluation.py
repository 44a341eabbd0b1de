"""`evaluate`: candidates + truth -> per-group metrics, summaries and diagnostics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rankk.core import aggregate
from polars_rankk.core.beyond_accuracy import beyond_values, item_tables, split_metrics, top_rows
from polars_rankk.core.catalogue import Exposures
from polars_rankk.core.columns import HAS_CANDIDATES, N_CANDIDATES, N_RELEVANT
from polars_rankk.core.inputs import Spec, check_inputs, check_output_names
from polars_rankk.core.metrics import finished
from polars_rankk.core.names import NameStyle, parse_metric_name, render_name
from polars_rankk.core.policy import Policy
from polars_rankk.core.prepare import Prepared, prepare_groups
from polars_rankk.core.registry import MICRO_METRICS, REGISTRY, metric_rank
from polars_rankk.core.types import Average, FrameLike, MetricName

if TYPE_CHECKING:
    from polars_rankk.core.diagnostics import Diagnostics

EngineType = Literal["auto", "in-memory", "streaming"]



class Evaluation:
    """The result of `evaluate`: per-group values, summaries and diagnostics.

    Attributes
    ----------
    per_group
        One row per (group, metric, k): the group keys, ``metric`` (str), ``k`` (Int64, null
        for ``r_precision``) and ``value`` (Float64). A ``pl.DataFrame`` when the inputs were
        eager (sorted by group, metric, k), a ``pl.LazyFrame`` when they were lazy.
    groups
        One row per evaluated group: the keys, ``n_candidates`` (ranked list length after
        de-duplication) and ``n_relevant`` (R_g under the policy).
    group_keys, ks, metrics, policy
        What was evaluated, and under which policy.
    catalogue
        Catalogue-level metrics (``coverage``, ``gini``, ``entropy``, ``personalization``)
        when asked for: one row per (metric, k) with ``metric, k, value``; None otherwise.
    exposures
        With catalogue-level metrics: the exposure counts they are computed from
        (`polars_rankk.core.catalogue.Exposures`), which add up over disjoint sets of groups
        (`polars_rankk.core.catalogue.merge_exposures`); None otherwise.
    """

    def __init__(
        self,
        spec: Spec,
        prepared: Prepared,
        per_group: FrameLike,
        groups: FrameLike,
        kept_groups: FrameLike,
        all_groups: FrameLike,
        wide_metrics: FrameLike,
        catalogue: FrameLike | None = None,
        exposures: Exposures | None = None,
    ) -> None:
        self._spec = spec
        self._prepared = prepared
        # One row per evaluated group, with the cumulated counts at every k.
        self._kept_groups_wide = kept_groups
        # Every group of the universe, before the group policies drop any.
        self._all_groups = all_groups
        # One row per evaluated group, one column per metric@k: what per_group unpivots.
        self._wide_metrics = wide_metrics
        self.per_group = per_group
        self.groups = groups
        self.group_keys: list[str] = list(spec.keys)
        self.ks: list[int] = list(spec.ks)
        self.metrics: list[MetricName] = list(spec.metrics)
        self.policy: Policy = spec.policy
        self.is_lazy: bool = spec.is_lazy
        self.catalogue: FrameLike | None = catalogue
        self.exposures: Exposures | None = exposures

    def summary(
        self,
        average: Average = "macro",
        *,
        weight: str | None = None,
        weights: FrameLike | None = None,
        metrics: Iterable[str] | None = None,
        names: NameStyle = "canonical",
    ) -> pl.DataFrame:
        """Aggregate the per-group values over groups.

        Parameters
        ----------
        average
            ``"macro"`` (the mean of per-group values), ``"micro"`` (ratio of summed counts;
            precision, recall, f1, hit_rate and r_precision only: ndcg, average_precision
            and mrr have no micro form) or ``"weighted"``.
        weight
            For ``"weighted"``: a column of `weights`, or of `groups` (``n_candidates``,
            ``n_relevant``) when `weights` is None.
        weights
            A table keyed by the group keys that holds `weight`, one row per group (a
            repeated group raises a ValueError). Categorical or Enum keys are matched to the
            evaluation's String keys, as `evaluate` aligns ids.
        metrics
            Restrict to these metrics. For ``"micro"`` the default is the evaluated metrics
            that have a micro form; naming one without (ndcg, average_precision, mrr) raises
            a ValueError that names it, as does an evaluation with none of them.
        names
            How the ``metric`` column names each (metric, K): ``"canonical"`` (``ndcg``, with
            K in its own column), or the ``"ir_measures"`` / ``"trec_eval"`` spelling
            (``nDCG@10``, ``ndcg_cut_10``; the canonical ``metric@K`` where that tool has
            none). Any accepted spelling may be given in `metrics`.

        Returns
        -------
        pl.DataFrame
            ``metric, k, value, n_groups`` and, for macro, ``n_nan`` (groups whose value is
            NaN and was skipped), plus the groups each policy dropped at that k:
            ``dropped_empty_truth``, ``dropped_missing``, ``dropped_short``.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "c", "d"],
        ...                            "score": [0.9, 0.8, 0.7, 0.6]})
        >>> truth = pl.DataFrame({"user": [1, 2], "item": ["b", "x"]})
        >>> res = rk.evaluate(candidates, truth, k=2, metrics=["precision", "recall"],
        ...                   group_by="user")
        >>> res.summary().select("metric", "k", "value", "n_groups")
        shape: (2, 4)
        ┌───────────┬─────┬───────┬──────────┐
        │ metric    ┆ k   ┆ value ┆ n_groups │
        │ ---       ┆ --- ┆ ---   ┆ ---      │
        │ str       ┆ i64 ┆ f64   ┆ i64      │
        ╞═══════════╪═════╪═══════╪══════════╡
        │ precision ┆ 2   ┆ 0.25  ┆ 2        │
        │ recall    ┆ 2   ┆ 0.5   ┆ 2        │
        └───────────┴─────┴───────┴──────────┘
        """
        chosen = self._chosen_metrics(metrics, average)
        per_group = self.per_group.lazy().filter(pl.col("metric").is_in(chosen))
        if average == "macro":
            query = aggregate.value_histogram(per_group)
        elif average == "weighted":
            if weight is None:
                raise ValueError("average='weighted' needs weight=<column name>")
            table = self.groups if weights is None else weights
            if weight not in table.lazy().collect_schema():
                raise ValueError(
                    f"weight column {weight!r} is not in "
                    f"{'the groups table' if weights is None else 'weights'}; "
                    f"its columns are {list(table.lazy().collect_schema())}"
                )
            query = aggregate.weighted_query(
                per_group, table, self.group_keys, weight, check=weights is not None
            )
        elif average == "micro":
            aggregate.check_micro(chosen, self.metrics)
            query = aggregate.micro_query(self._kept_groups_wide, self._spec)
        else:
            raise ValueError(f"average must be 'macro', 'micro' or 'weighted'; got {average!r}")
        # One collect, so that a lazy evaluation runs its pipeline once for both.
        rows, counts, short = pl.collect_all([query, *self._dropped_queries()])
        if average == "macro":
            result = aggregate.summarize_histogram(rows)
        elif average == "weighted":
            result = aggregate.weighted_from(rows, weight or "")
        else:
            result = aggregate.micro_from(rows, chosen)
        dropped = dropped_table(self.ks, counts, short)
        result = result.join(dropped, on="k", how="left", nulls_equal=True)
        return _renamed(result, names, self.policy)

    def _chosen_metrics(self, metrics: Iterable[str] | None, average: str) -> list[str]:
        if metrics is None:
            if average == "micro":
                return [m for m in self.metrics if m in MICRO_METRICS]
            return list(self.metrics)
        chosen = [metrics] if isinstance(metrics, str) else list(metrics)
        if not chosen:
            raise ValueError(f"metrics is empty; evaluated: {self.metrics}")
        # Any accepted spelling (P@5, ndcg_cut_10) names its canonical metric.
        chosen = [_canonical(name) for name in chosen]
        missing = [m for m in chosen if m not in self.metrics]
        if missing:
            raise ValueError(f"metrics {missing} were not evaluated; evaluated: {self.metrics}")
        return chosen

    @cached_property
    def dropped(self) -> pl.DataFrame:
        """Groups each policy dropped, per k (null k: r_precision).

        Columns ``k``, ``dropped_empty_truth``, ``dropped_missing``, ``dropped_short`` — the
        counts `summary()` joins on. Computed on first access.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 2], "item": [1, 1], "score": [0.5, 0.5]})
        >>> truth = pl.DataFrame({"q": [1, 2, 3], "item": [1, 2, 3], "relevance": [1, 0, 1]})
        >>> rk.evaluate(candidates, truth, k=1, metrics="precision", group_by="q").dropped
        shape: (2, 4)
        ┌──────┬─────────────────────┬─────────────────┬───────────────┐
        │ k    ┆ dropped_empty_truth ┆ dropped_missing ┆ dropped_short │
        │ ---  ┆ ---                 ┆ ---             ┆ ---           │
        │ i64  ┆ i64                 ┆ i64             ┆ i64           │
        ╞══════╪═════════════════════╪═════════════════╪═══════════════╡
        │ 1    ┆ 1                   ┆ 0               ┆ 0             │
        │ null ┆ 1                   ┆ 0               ┆ 0             │
        └──────┴─────────────────────┴─────────────────┴───────────────┘
        """
        counts, short = pl.collect_all(list(self._dropped_queries()))
        return dropped_table(self.ks, counts, short)

    def _dropped_queries(self) -> tuple[pl.LazyFrame, pl.LazyFrame]:
        """Groups each policy dropped: overall counts, and per k for short lists."""
        policy = self.policy
        groups = self._all_groups.lazy()
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
                _apply_group_policies(groups, policy)
                .join(pl.LazyFrame({"k": self.ks}, schema={"k": pl.Int64}), how="cross")
                .group_by("k")
                .agg(
                    (pl.col(N_CANDIDATES) < pl.col("k")).sum().cast(pl.Int64).alias("dropped_short")
                )
            )
        else:
            short = pl.LazyFrame(schema={"k": pl.Int64, "dropped_short": pl.Int64})
        return counts, short

    @cached_property
    def diagnostics(self) -> Diagnostics:
        """Counts that qualify the numbers (docs/definitions.md §7); computed on first access."""
        from polars_rankk.core.diagnostics import compute_diagnostics

        return compute_diagnostics(self._spec, self._prepared)

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
        columns = [metric_column(name, k) for name, k in _metric_cutoffs(self._spec)]
        wide = self._wide_metrics.lazy().select(*self.group_keys, *columns).sort(self.group_keys)
        return wide if self.is_lazy else wide.collect()

    def collect(self, engine: EngineType = "auto", *, diagnostics: bool = True) -> Evaluation:
        """An eager copy of a lazy evaluation, run once for all its views.

        ``per_group``, ``groups``, the tables behind ``summary()`` and ``wide()``, and
        ``diagnostics`` come from one ``pl.collect_all``: the pipeline (ranking, joins,
        cumulated sums) runs once, and every view is derived from its one row per group.
        ``diagnostics=False`` leaves the diagnostics out of that pass (they read every
        candidate row again, about twice the pipeline's cost; they are then computed on first
        access). An eager evaluation returns itself.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.LazyFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.LazyFrame({"q": [1], "item": [2]}), k=2,
        ...                   metrics="precision", group_by="q").collect()
        >>> res.is_lazy, res.summary()["value"].to_list()
        (False, [0.5])
        """
        if not self.is_lazy:
            return self

        spec = self._spec
        if self._one_pass():
            return Evaluation.collect_together([self], engine, diagnostics=diagnostics)[0]
        extra = [] if self.catalogue is None else [self.catalogue.lazy()]
        if self.catalogue is not None and self.exposures is not None:
            extra.extend([self.exposures.exposure.lazy(), self.exposures.n_lists.lazy()])
        per_group, groups, kept, all_groups, wide, *catalogue = pl.collect_all(
            [
                self.per_group.lazy(),
                self.groups.lazy(),
                self._kept_groups_wide.lazy(),
                self._all_groups.lazy(),
                self._wide_metrics.lazy(),
                *extra,
            ],
            engine=engine,
        )
        return Evaluation(
            replace(spec, is_lazy=False),
            self._prepared,
            _sorted(per_group, self.group_keys),
            groups.sort(self.group_keys),
            kept,
            all_groups,
            wide,
            catalogue[0] if catalogue else None,
            None
            if self.exposures is None or len(catalogue) < 3
            else replace(self.exposures, exposure=catalogue[1], n_lists=catalogue[2]),
        )

    @staticmethod
    def collect_together(
        evaluations: Sequence[Evaluation], engine: EngineType = "auto", *, diagnostics: bool = True
    ) -> list[Evaluation]:
        """Eager copies of several evaluations, their lazy pipelines run in one
        ``pl.collect_all`` (side by side), each once (see `collect`).

        Eager evaluations are returned as they are.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> truth = pl.LazyFrame({"q": [1], "item": [2]})
        >>> runs = [pl.LazyFrame({"q": [1, 1], "item": [1, 2], "score": [s, 1.0]})
        ...         for s in (2.0, 0.5)]
        >>> found = rk.Evaluation.collect_together(
        ...     [rk.evaluate(r, truth, k=1, metrics="precision", group_by="q") for r in runs])
        >>> [e.summary()["value"].item() for e in found]
        [0.0, 1.0]
        """
        from polars_rankk.core.diagnostics import diagnostics_plan

        together = [e for e in evaluations if e.is_lazy and e._one_pass()]
        # Polars does not share the heavy pass between separate plans (each projects the
        # inputs differently): one query per evaluation, every view derived from its result.
        queries: list[pl.LazyFrame] = []
        plans = []
        for evaluation in together:
            extra, assemble = (
                diagnostics_plan(evaluation._spec, evaluation._prepared)
                if diagnostics and "diagnostics" not in evaluation.__dict__
                else ([], None)
            )
            plans.append((len(queries), len(extra), assemble))
            queries += [evaluation._all_groups.lazy(), *extra]
        frames = pl.collect_all(queries, engine=engine)
        done = {}
        for evaluation, (start, size, assemble) in zip(together, plans, strict=True):
            found = evaluation._from_groups(frames[start])
            known = evaluation.__dict__.get("diagnostics")
            if assemble is not None:
                known = assemble(frames[start + 1 : start + 1 + size])
            if known is not None:
                found.__dict__["diagnostics"] = known  # the cached_property's slot
            done[id(evaluation)] = found
        return [done[id(e)] if id(e) in done else e.collect(engine) for e in evaluations]

    def _one_pass(self) -> bool:
        """Every view derives from the collected one-row-per-group pass (no beyond-accuracy
        tables to collect beside it)."""
        return self.catalogue is None and all(REGISTRY[name].accuracy for name in self.metrics)

    def _from_groups(self, all_groups: pl.DataFrame) -> Evaluation:
        """The eager evaluation whose one-row-per-group pass collected to `all_groups`."""
        spec = self._spec
        kept, wide = _views_of(all_groups, spec)
        return Evaluation(
            replace(spec, is_lazy=False),
            self._prepared,
            Evaluation._per_group_rows(wide, spec),
            kept.select(*spec.keys, N_CANDIDATES, N_RELEVANT).sort(self.group_keys),
            kept,
            all_groups,
            wide,
        )

    @staticmethod
    def _per_group_rows(wide: pl.DataFrame, spec: Spec) -> pl.DataFrame:
        """The eager ``per_group`` from the wide metric table, built in its sorted order
        (group, canonical metric, k) rather than unpivoted, joined and sorted: at K = 1..100
        that costs about what the output weighs instead of several copies of it."""
        import numpy as np

        keys = list(spec.keys)
        pairs = _metric_cutoffs(spec)
        cells = pl.DataFrame(
            {"metric": [m for m, _ in pairs], "k": [k for _, k in pairs]},
            schema={"metric": pl.String, "k": pl.Int64},
        ).sort(metric_rank(), "k", nulls_last=True, maintain_order=True)
        names = [metric_column(m, k) for m, k in cells.iter_rows()]
        ordered = wide.select(*keys, *names).sort(keys, nulls_last=True)
        n_groups, n_cells = ordered.height, len(names)
        # One temporary at a time (the row-major values, then 32-bit gather indices): the
        # peak stays near the output's own size.
        matrix = ordered.select(pl.col(names).cast(pl.Float64)).to_numpy(order="c")
        values = pl.Series("value", matrix.ravel(), dtype=pl.Float64, nan_to_null=False)
        del matrix
        heads = ordered.select(pl.col(keys).gather(np.repeat(np.arange(n_groups), n_cells)))
        labels = cells[np.tile(np.arange(n_cells), n_groups)]
        rows = pl.concat([heads, labels, values.to_frame()], how="horizontal")
        # No columns: only catalogue-level metrics were asked for.
        if names and ordered.select(pl.col(names).null_count().sum()).sum_horizontal().item():
            # Null: short_lists="skip" dropped the group at that k.
            absent = ordered.select(pl.col(names).is_null()).to_numpy(order="c").ravel()
            rows = rows.filter(pl.Series(~absent))
        return rows

    def ranking_rows(self) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
        """Per-rank rows of the evaluated groups, for sums over ranks (K-curves).

        Returns ``(graded, ideal)``: ``graded`` holds one row per candidate with a positive
        grade at rank <= max K (group keys, ``rank``, ``grade``); ``ideal`` one row per judged
        truth item with a positive gain at ideal rank <= max K (group keys, ``rank``,
        ``gain``). Both are lazy and share this evaluation's plan. None when the policy needs
        more than these rows (``ties="expected"``, or an ``n_relevant`` column). Rows of
        groups the policy dropped are included: join with ``groups`` to leave them out.
        """
        from polars_rankk.core.columns import GRADE, RANK
        from polars_rankk.core.ranking import gain_of

        spec = self._spec
        if spec.policy.ties == "expected" or spec.n_relevant is not None:
            return None
        keys = list(spec.keys)
        ranked = self._prepared.ranked.filter(pl.col(RANK) <= spec.k_max)
        truth = self._prepared.truth
        if spec.policy.pool == "restrict" and spec.truth is not None:
            pool = self._prepared.ranked.select(*keys, spec.item).unique()
            truth = truth.join(pool, on=[*keys, spec.item], how="semi")
        positive = truth.filter(pl.col(GRADE) > 0)
        if GRADE not in ranked.collect_schema():
            ranked = ranked.join(positive, on=[*keys, spec.item], how="inner")
        graded = ranked.filter(pl.col(GRADE) > 0).select(
            *keys, pl.col(RANK).cast(pl.Int64).alias("rank"), pl.col(GRADE).alias("grade")
        )
        gain = gain_of(pl.col(GRADE), spec.policy)
        ideal_rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys, order_by=-gain)
        ideal = truth.select(*keys, gain.alias("gain"), ideal_rank.alias("rank")).filter(
            (pl.col("gain") > 0) & (pl.col("rank") <= spec.k_max)
        )
        return graded, ideal

    def __repr__(self) -> str:
        """The summary at a glance (metrics × K, macro means) and any diagnostics warnings."""
        from polars_rankk.core.display import evaluation_text

        return evaluation_text(self)

    def _repr_html_(self) -> str:
        """The notebook display: `__repr__` as an HTML table."""
        from polars_rankk.core.display import evaluation_html

        return evaluation_html(self)

    def to_markdown(self, digits: int = 4) -> str:
        """The macro summary as a Markdown table: one row per metric, one column per K.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [2]}),
        ...                   k=[1, 2], metrics=["precision", "hit_rate"], group_by="q")
        >>> print(res.to_markdown(digits=2))
        | metric | @1 | @2 |
        |:---|---:|---:|
        | precision | 0.00 | 0.50 |
        | hit_rate | 0.00 | 1.00 |
        """
        from polars_rankk.core.display import summary_grid, to_markdown

        return to_markdown(summary_grid(self.summary()), digits)

    def to_latex(
        self, digits: int = 4, caption: str | None = None, label: str | None = None
    ) -> str:
        """The macro summary as a LaTeX table (booktabs): one row per metric, one column per K.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [2]}),
        ...                   k=2, metrics="hit_rate", group_by="q")
        >>> print(res.to_latex(digits=2).splitlines()[4])
        metric & @2 \\\\
        """
        from polars_rankk.core.display import summary_grid, to_latex

        return to_latex(summary_grid(self.summary()), digits, caption, label)


def _canonical(name: str) -> str:
    """The canonical name of an accepted spelling; other names are left for the caller to
    report."""
    try:
        return parse_metric_name(name).metric
    except (TypeError, ValueError):
        return name


def _renamed(result: pl.DataFrame, names: NameStyle, policy: Policy) -> pl.DataFrame:
    """The summary's ``metric`` column in another tool's spelling (with K folded in)."""
    if names == "canonical":
        return result
    if names not in ("ir_measures", "trec_eval"):
        raise ValueError(f"names must be 'canonical', 'ir_measures' or 'trec_eval'; got {names!r}")
    pairs = result.select("metric", "k").to_dicts()
    rendered = [
        render_name(row["metric"], row["k"], policy, names) if row["metric"] in REGISTRY
        else row["metric"] if row["k"] is None else f"{row['metric']}@{row['k']}"
        for row in pairs
    ]
    return result.with_columns(pl.Series("metric", rendered, dtype=pl.String))


def dropped_table(ks: Sequence[int], counts: pl.DataFrame, short: pl.DataFrame) -> pl.DataFrame:
    """Per k (and null k): the overall drop counts, and the short-list drops at that k."""
    frame = pl.DataFrame({"k": [*ks, None]}, schema={"k": pl.Int64})
    return (
        frame.join(counts, how="cross")
        .join(short, on="k", how="left", nulls_equal=True)
        .with_columns(pl.col("dropped_short").fill_null(0))
    )


def _apply_group_policies(groups: pl.LazyFrame, policy: Policy) -> pl.LazyFrame:
    """Drop the groups that empty_truth='exclude' and missing_groups='exclude' leave out."""
    if policy.empty_truth == "exclude":
        groups = groups.filter(pl.col(N_RELEVANT) > 0)
    if policy.missing_groups == "exclude":
        groups = groups.filter(pl.col(HAS_CANDIDATES))
    return groups


def _views_of(all_groups: pl.DataFrame, spec: Spec) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The kept groups and the wide metric table, from the collected one-row-per-group pass."""
    kept = _apply_group_policies(all_groups.lazy(), spec.policy).collect()
    return kept, _wide_metrics(kept.lazy(), spec).collect()


def _check_missing_groups(spec: Spec) -> None:
    if spec.policy.missing_groups != "error" or spec.truth is None:
        return
    keys = list(spec.keys)
    missing = (
        spec.truth.select(keys)
        .unique()
        .join(spec.candidates.select(keys).unique(), on=keys, how="anti")
    )
    rows = missing.head(1).collect()
    if rows.height:
        count = missing.select(pl.len()).collect().item()
        raise ValueError(
            f"truth has {count} group(s) with no candidates and "
            f"Policy(missing_groups='error') forbids it, e.g. {rows.row(0, named=True)}; "
            f"use missing_groups='zero' (score an empty ranking) or 'exclude'"
        )


def evaluate(
    candidates: FrameLike,
    truth: FrameLike | None = None,
    *,
    k: int | Iterable[int] = 10,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str | None = None,
    policy: Policy | None = None,
    engine: EngineType = "auto",
    check_values: bool = True,
    rank: str | None = None,
    popularity: FrameLike | None = None,
    catalogue: FrameLike | None = None,
    item_features: FrameLike | None = None,
    head_share: float = 0.2,
) -> Evaluation:
    """Evaluate ranked candidates against truth: every metric at every K, per group.

    Parameters
    ----------
    candidates
        One row per (group, item) scored by the model: the `group_by` columns, `item` and
        `score` (higher ranks first). If it carries a `relevance` column it is pre-labelled:
        ranks take their relevance from it and `truth` becomes optional.
    truth
        One row per judged (group, item), with an optional `relevance` grade (absent: every
        row is relevant with grade 1). The groups evaluated are the groups in `truth`
        (or in `candidates` when there is no truth).
    k
        One cut-off or several (``k=[1, 5, 10]``, ``k=range(1, 101)``); all come from one pass.
    metrics
        Metric names (default all): ``precision, recall, f1, hit_rate, ndcg,
        average_precision, mrr, r_precision``.
    group_by
        The group key column(s): query, user, session ...
    item, score, relevance
        Column names.
    n_relevant
        With pre-labelled candidates and no truth: a column holding R_g for each group
        (relevant items the list may have missed).
    policy
        Every definitional choice (`Policy`); default ``Policy()``; ``Policy.trec_eval()``
        reproduces trec_eval.
    engine
        Polars engine used to collect eager results.
    check_values
        Scan the inputs once for nulls, invalid scores and negative grades (default). Turn it
        off only for inputs already validated.
    rank
        A rank column (1 = best, lower ranks first) to rank by instead of `score`, e.g. a
        logged position. Ties in it are broken by the policy, as for scores.
    popularity
        For ``novelty``, ``arp`` and ``long_tail_share``: an interaction log (each row of its
        `item` column counts once) or an ``(item, count)`` table (a ``count`` column).
    catalogue
        For the catalogue-level metrics: a table of items (an `item` column); default every
        item seen in the candidates or the popularity log.
    item_features
        For ``intra_list_diversity``: `item` and one feature column, either labels (one or
        several rows per item, or a list of labels) or an embedding (``list[f64]`` or
        ``array``, one row per item), compared by cosine distance.
    head_share
        The share of interactions the head (the most popular items) makes up, for
        ``long_tail_share``.

    The beyond-accuracy metrics (``novelty, arp, long_tail_share, intra_list_diversity``
    per group; ``coverage, gini, entropy, personalization`` in ``catalogue``) are asked for
    by name. With only those, `truth` is optional: every candidate group is evaluated.

    Returns
    -------
    Evaluation
        ``per_group`` (one row per group, metric, k), ``summary()``, ``diagnostics``. Lazy
        inputs give a lazy ``per_group`` to collect or sink.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({
    ...     "user": [1, 1, 1, 2, 2],
    ...     "item": ["a", "b", "c", "a", "d"],
    ...     "score": [0.9, 0.5, 0.1, 0.8, 0.7],
    ... })
    >>> truth = pl.DataFrame({"user": [1, 2, 2], "item": ["b", "d", "e"]})
    >>> res = rk.evaluate(candidates, truth, k=[1, 2], metrics=["precision", "ndcg"],
    ...                   group_by="user")
    >>> res.per_group.filter(pl.col("k") == 2)
    shape: (4, 4)
    ┌──────┬───────────┬─────┬──────────┐
    │ user ┆ metric    ┆ k   ┆ value    │
    │ ---  ┆ ---       ┆ --- ┆ ---      │
    │ i64  ┆ str       ┆ i64 ┆ f64      │
    ╞══════╪═══════════╪═════╪══════════╡
    │ 1    ┆ precision ┆ 2   ┆ 0.5      │
    │ 1    ┆ ndcg      ┆ 2   ┆ 0.63093  │
    │ 2    ┆ precision ┆ 2   ┆ 0.5      │
    │ 2    ┆ ndcg      ┆ 2   ┆ 0.386853 │
    └──────┴───────────┴─────┴──────────┘
    """
    policy = Policy() if policy is None else policy
    accuracy, beyond_group, beyond_catalogue = split_metrics(metrics)
    if (beyond_group or beyond_catalogue) and not accuracy:
        # The ranking is needed, not an accuracy metric: rank for a cheap one, report none.
        accuracy = []
        frame = candidates if isinstance(candidates, (pl.DataFrame, pl.LazyFrame)) else None
        if truth is None and frame is not None and relevance not in frame.collect_schema():
            # Without truth every candidate group is evaluated, none relevant.
            candidates = frame.with_columns(pl.lit(0.0).alias(relevance))
            policy = replace(policy, empty_truth="zero")
    spec = check_inputs(
        candidates,
        truth,
        k=k,
        metrics=accuracy or (None if accuracy is None else ["hit_rate"]),
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        policy=policy,
        check_values=check_values,
        rank=rank,
    )
    check_output_names(spec)
    _check_missing_groups(spec)
    beyond = (*beyond_group, *beyond_catalogue)
    tables = item_tables(
        spec,
        needs=[table for name in beyond for table in REGISTRY[name].requires],
        popularity=popularity,
        catalogue=catalogue,
        item_features=item_features,
        head_share=head_share,
    )
    prepared = prepare_groups(spec)
    all_groups: FrameLike = prepared.groups
    top: pl.LazyFrame = top_rows(spec, prepared.ranked)
    if not spec.is_lazy:
        # The one heavy pass; everything after works on one row per group (and on the top
        # K rows, for the beyond-accuracy metrics).
        if beyond:
            all_groups, top_df = pl.collect_all([prepared.groups, top], engine=engine)
            top = top_df.lazy()
        else:
            all_groups = prepared.groups.collect(engine=engine)
    kept = _apply_group_policies(all_groups.lazy(), policy)
    wide = _wide_metrics(kept, spec)
    per_group_beyond, catalogue_table, exposures = beyond_values(
        spec, top, kept, beyond_group, beyond_catalogue, tables
    )
    if per_group_beyond is not None:
        wide = wide.join(per_group_beyond, on=list(spec.keys), how="left")
    if beyond:
        spec = replace(spec, metrics=(*(accuracy or ()), *beyond_group))
    groups = kept.select(*spec.keys, N_CANDIDATES, N_RELEVANT)
    if spec.is_lazy:
        return Evaluation(
            spec,
            prepared,
            _long(wide, spec),
            groups,
            kept,
            all_groups,
            wide,
            catalogue_table,
            exposures,
        )
    extra = []
    if catalogue_table is not None and exposures is not None:
        extra = [catalogue_table, exposures.exposure.lazy(), exposures.n_lists.lazy()]
    wide_df, groups_df, kept_df, *catalogue_df = pl.collect_all([wide, groups, kept, *extra])
    return Evaluation(
        spec,
        prepared,
        Evaluation._per_group_rows(wide_df, spec),
        groups_df.sort(spec.keys),
        kept_df,
        all_groups,
        wide_df,
        catalogue_df[0] if catalogue_df else None,
        None
        if exposures is None
        else replace(exposures, exposure=catalogue_df[1], n_lists=catalogue_df[2]),
    )


def metric_column(metric: str, k: int | None) -> str:
    """Name of the wide column holding `metric` at `k` (``r_precision`` has no k)."""
    return metric if k is None else f"{metric}@{k}"


def _wide_metrics(groups: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """One row per group, one column per metric@k (null where short_lists='skip' drops it).

    Metrics are computed on the one-row-per-group table, where every division is between
    full columns (see `metrics.cutoff`).
    """
    policy = spec.policy
    columns = [
        finished(REGISTRY[name].value(policy, k), policy, k).alias(metric_column(name, k))
        for name, k in _metric_cutoffs(spec)
    ]
    return groups.select(*spec.keys, N_CANDIDATES, N_RELEVANT, *columns)


def _metric_cutoffs(spec: Spec) -> list[tuple[str, int | None]]:
    return [
        (name, k)
        for name in spec.metrics
        # Beyond-accuracy metrics all take a cut-off.
        for k in (spec.ks if name not in REGISTRY or REGISTRY[name].has_k else [None])
    ]


def _long(wide: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """The wide metric@k columns as one long table: keys, metric, k, value."""
    keys = list(spec.keys)
    pairs = _metric_cutoffs(spec)
    lookup = pl.LazyFrame(
        {
            "_name": [metric_column(name, k) for name, k in pairs],
            "metric": [name for name, _ in pairs],
            "k": [k for _, k in pairs],
        },
        schema={"_name": pl.String, "metric": pl.String, "k": pl.Int64},
    )
    return (
        wide.select(*keys, *(metric_column(name, k) for name, k in pairs))
        .unpivot(index=keys, variable_name="_name", value_name="value")
        # Null: short_lists="skip" dropped the group at that k.
        .filter(pl.col("value").is_not_null())
        .join(lookup, on="_name", how="inner")
        .select(*keys, "metric", "k", "value")
    )


def _sorted(per_group: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return per_group.sort([*keys, metric_rank(), "k"], nulls_last=True)
