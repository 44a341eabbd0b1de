"""`Evaluation`: the result of `evaluate` — per-group values, summaries, diagnostics, and the
views a user asks for, each built from one pass."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES, N_RELEVANT
from polars_rankk.core.evaluation import aggregate
from polars_rankk.core.evaluation.catalogue import Exposures
from polars_rankk.core.evaluation.display import Displayed
from polars_rankk.core.evaluation.prepare import Prepared
from polars_rankk.core.evaluation.readouts import (
    EvaluationTables,
    chosen_metrics,
    summarize,
)
from polars_rankk.core.evaluation.variants import (
    label,
    relabelled,
    summary_of_parts,
    unlabelled,
    with_catalogue,
)
from polars_rankk.core.evaluation.views import dropped_table, long_table, sorted_per_group, views_of
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.names.parse import NameStyle
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.types import Average, EngineType, FrameLike

if TYPE_CHECKING:
    from polars_rankk.core.evaluation.diagnostics import Diagnostics


class Evaluation(Displayed, EvaluationTables):
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
        What was evaluated, and under which policy. `group_keys` are one system's keys.
    system
        With ``evaluate(..., system=COLUMN)``: the column naming each system, the first
        column of ``per_group``, ``groups``, ``summary()`` and the diagnostics' tables, and
        `by_system` gives one evaluation per system; None for one system.
    catalogue
        Catalogue-level metrics (``coverage``, ``gini``, ``entropy``, ``personalization``)
        when asked for: one row per (metric, k) with ``metric, k, value``; None otherwise.
    exposures
        With catalogue-level metrics: the exposure counts they are computed from
        (`polars_rankk.core.evaluation.catalogue.Exposures`), which add up over disjoint sets
        of groups (`polars_rankk.core.evaluation.catalogue.merge_exposures`); None otherwise.
    label_methods
        With ``evaluate(..., label_probability=...)``: how each (metric, k) was computed over
        the label outcomes (``method``: ``recursion``, ``enumeration``, ``linearity`` or
        ``monte_carlo``; ``n_enumerated``, ``n_linear``, ``n_sampled``, ``n_recursion``
        groups; ``draws``); None otherwise.
    variants
        The evaluations of measures whose names ask for other parameters than `policy`
        (``P(rel=2)@5`` beside ``R@5``: each measure is evaluated under its own, as the tools
        do). ``per_group`` and ``summary()`` hold their rows, each metric labelled with the
        fields it reads otherwise than the policy asked (``precision(relevance_threshold=2)``,
        `labels`); the other views (``groups``, ``wide()``, ``diagnostics``) are this
        evaluation's own measures'. Empty when every name reads the same policy.
    """

    variants: tuple[Evaluation, ...] = ()
    #: The plan it executed (`polars_rankk.core.names.plan.Plan`): None for one system of
    #: several or an evaluation made otherwise.
    plan: Plan | None = None

    def summary(
        self,
        average: Average = "macro",
        *,
        weights: str | FrameLike | None = None,
        metrics: Iterable[str] | None = None,
        names: NameStyle = "canonical",
        weight: str | None = None,
    ) -> pl.DataFrame:
        """Aggregate the per-group values over groups.

        Parameters
        ----------
        average
            ``"macro"`` (the mean of per-group values), ``"micro"`` (ratio of summed counts;
            precision, recall, f1, hit_rate and r_precision only: ndcg, average_precision
            and mrr have no micro form) or ``"weighted"``.
        weights
            For ``"weighted"``: the name of a column of `groups` (``n_candidates``,
            ``n_relevant``), or a table of the group keys and one weight column, one row per
            group (a repeated group raises a ValueError). Categorical or Enum keys are
            matched to the evaluation's String keys, as `evaluate` aligns ids.
        metrics
            Restrict to these metrics. For ``"micro"`` the default is the evaluated metrics
            that have a micro form; naming one without (ndcg, average_precision, mrr) raises
            a ValueError that names it, as does an evaluation with none of them.
        names
            How the ``metric`` column names each (metric, K): ``"canonical"`` (``ndcg``, with
            K in its own column), or the ``"ir_measures"`` / ``"trec_eval"`` spelling
            (``nDCG@10``, ``ndcg_cut_10``; the canonical ``metric@K`` where that tool has
            none). Any accepted spelling may be given in `metrics`. As in those tools' summary
            line, ``num_ret``, ``num_rel`` and ``num_rel_ret`` (``NumRet``, ``NumRel``) hold the
            sum over groups, not the mean (with ``"macro"``; other averages keep the canonical
            name).
        weight
            Deprecated (a `DeprecationWarning`; removed in the next release): the weight
            column, now given as `weights` alone.

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
        if average == "micro" and self.label_methods is not None:
            raise ValueError(
                "average='micro' is not computed over label outcomes (label_probability): the "
                "expectation of a ratio of summed counts is not the ratio of the expected "
                "sums; use average='macro' (the mean of the expectations) or 'weighted'"
            )
        if weight is not None:
            weights = aggregate.renamed_weights(weight, weights, self._keys)
        parts: list[Evaluation] = [self.__dict__.get("_primary", self), *self.variants]
        evaluation_policy = self.plan.policy if self.plan is not None else self.policy
        how = (average, weights, names)
        found = summary_of_parts(parts, evaluation_policy, metrics, how)
        return with_catalogue(found, self.catalogue, metrics, self.system)

    def _summary_of_part(
        self,
        chosen: list[str] | None,
        how: tuple[Average, str | FrameLike | None, NameStyle],
        cells: set[tuple[str, int | None]] | None = None,
    ) -> pl.DataFrame:
        """`summary` of this part's `chosen` canonical metrics (None: every one), at `cells`
        (None: every K), its labelled cells named as labelled."""
        average, _, names = how
        if self.system is not None:
            return self._per_system(lambda one: one._summary_of_part(chosen, how, cells))
        picked = chosen_metrics(self.metrics, chosen, average)
        rows = unlabelled(self._per_group_query(), self.labels)  # the registry's names
        tables = (rows, self.groups, self._evaluated_group_sums)
        dropped = self._dropped_queries()
        wide = self._metric_table if self.label_methods is None else None  # not expectations
        found = summarize(tables, self._spec, dropped, picked, how, cells, wide)
        return relabelled(found, self.labels, canonical_only=names != "canonical")

    def wide(self) -> FrameLike:
        """per_group pivoted: one row per group, one column per ``metric@k`` (a labelled cell's
        column named as its label, ``P(rel=2)@5``), every part's columns side by side (a
        group a part's policy leaves out is null in its columns).

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> truth = pl.DataFrame({"q": [1, 1], "item": [1, 2], "relevance": [1, 2]})
        >>> res = rk.evaluate(candidates, truth, metrics=["P@2", "P(rel=2)@2"], group_by="q")
        >>> res.wide().columns
        ['q', 'precision@2', 'P(rel=2)@2']
        """
        if "_primary" not in self.__dict__:
            return super().wide()
        parts: list[Evaluation] = [self.__dict__["_primary"], *self.variants]
        joined = parts[0]._wide()
        for part in parts[1:]:
            joined = joined.join(part._wide(), on=self._keys, how="full", coalesce=True)
        joined = joined.sort(self._keys)
        return joined if self.is_lazy else joined.collect()

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
        if self.system is not None:
            return self._per_system(lambda one: one.dropped)
        counts, short = pl.collect_all(list(self._dropped_queries()))
        return dropped_table(self.ks, counts, short)

    def by_system(self) -> dict[str, Evaluation]:
        """One eager evaluation per system, split from this evaluation's tables.

        Nothing is ranked again: the per-group tables of an ``evaluate(..., system=...)``
        call are split by the system column (a lazy evaluation is collected first, once).
        Systems come in the sorted order of their names (as strings).

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"model": ["A", "A", "B", "B"], "user": [1, 1, 1, 1],
        ...                            "item": [1, 2, 1, 2], "score": [0.9, 0.1, 0.1, 0.9]})
        >>> res = rk.evaluate(candidates, pl.DataFrame({"user": [1], "item": [2]}), k=1,
        ...                   metrics="hit_rate", group_by="user", system="model")
        >>> {name: one.summary()["value"][0] for name, one in res.by_system().items()}
        {'A': 0.0, 'B': 1.0}
        """
        if self.system is None:
            raise ValueError(
                "this evaluation holds one system; evaluate(..., system=COLUMN) evaluates "
                "several at once"
            )
        found: dict[str, Evaluation] | None = self.__dict__.get("_systems")
        if found is None:
            found = (self.collect(diagnostics=False) if self.is_lazy else self)._split()
            self.__dict__["_systems"] = found
        return found

    def _split(self) -> dict[str, Evaluation]:
        """One eager evaluation per system, from this eager multi-system evaluation's tables."""
        from polars_rankk.core.evaluation.by_system import (
            slices,
            system_names,
            system_prepared,
            system_spec,
        )

        system = self.system
        assert system is not None
        assert not self.is_lazy
        tables = [
            self.per_group,
            self.groups,
            self._evaluated_group_sums,
            self._all_group_sums,
            self._metric_table,
        ]
        frames = [table if isinstance(table, pl.DataFrame) else table.collect() for table in tables]
        # From the candidates: a system without evaluated groups still has its (empty) slice.
        values = system_names(self._spec.candidates, system)
        split = [slices(frame, system, values) for frame in frames]
        known = self.__dict__.get("diagnostics")
        found: dict[str, Evaluation] = {}
        for index, value in enumerate(values):
            per_group, groups, kept, all_groups, wide = (pieces[index] for pieces in split)
            one = assemble(
                system_spec(self._spec, value),
                system_prepared(self._prepared, system, value),
                all_groups,
                kept,
                wide,
                per_group=per_group,
                groups=groups,
            )
            one._sliced = True
            one.labels, one.plan = self.labels, self.plan
            if known is not None and str(value) in known.systems:
                one.__dict__["diagnostics"] = known.systems[str(value)]
            found[str(value)] = one
        return found

    def _per_system(self, table: Callable[[Evaluation], pl.DataFrame]) -> pl.DataFrame:
        """`table` of each system, stacked, the system column first."""
        assert self.system is not None
        parts = [
            table(one).select(pl.lit(name, dtype=pl.String).alias(self.system), pl.all())
            for name, one in self.by_system().items()
        ]
        return pl.concat(parts, how="vertical_relaxed")

    @cached_property
    def diagnostics(self) -> Diagnostics:
        """Counts that qualify the numbers (docs/definitions.md §7); computed on first access."""
        from polars_rankk.core.evaluation import diagnostics as counted

        if "_primary" in self.__dict__:
            # The first part's counts, and each other part's by the names it carries.
            primary: Evaluation = self.__dict__["_primary"]
            parts = {
                ", ".join(dict.fromkeys(label.typed for label in part.labels)): part.diagnostics
                for part in self.variants
            }
            return replace(primary.diagnostics, parts=parts)
        if self.system is not None:
            from polars_rankk.core.evaluation.by_system import diagnostics_by_system

            return diagnostics_by_system(self._spec, self._prepared, self._all_group_sums)
        sums = self._all_group_sums
        found = counted.compute_diagnostics(
            self._spec, self._prepared, sums if isinstance(sums, pl.DataFrame) else None
        )
        if self.label_source is not None:
            found = counted.expected_label_diagnostics(found, self)
        return found if self.shared_catalogue is None else self.shared_catalogue.added_to(found)

    def collect(self, engine: EngineType = "auto", *, diagnostics: bool = True) -> Evaluation:
        """An eager copy of a lazy evaluation, run once for all its views.

        ``per_group``, ``groups``, the tables behind ``summary()`` and ``wide()``, and
        ``diagnostics`` come from one ``pl.collect_all``: the pipeline (ranking, joins,
        cumulated sums) runs once, and every view is derived from its one row per group.
        ``diagnostics=False`` leaves the diagnostics out of that pass (they are then computed
        on first access: the kernel's ranking again where it ranked, else a pure-Polars
        aggregation of every candidate row, about twice the pipeline's cost). An eager
        evaluation returns itself.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.LazyFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.LazyFrame({"q": [1], "item": [2]}), k=2,
        ...                   metrics="precision", group_by="q").collect()
        >>> res.is_lazy, res.summary()["value"].to_list()
        (False, [0.5])
        """
        return self._with_label_tables(self._collected(engine, diagnostics), engine)

    def _with_label_tables(self, found: Evaluation, engine: EngineType) -> Evaluation:
        """`found` (this evaluation collected) with its label expectations' own tables."""
        if self.label_methods is None or found.label_methods is not None:
            return found  # no labels, or in place already
        assert self.groups is not None
        tables = [self.per_group.lazy(), self.label_methods.lazy(), self.groups.lazy()]
        found.per_group, found.label_methods, found.groups = pl.collect_all(tables, engine=engine)
        found.label_source = self.label_source
        return found

    def _collected(self, engine: EngineType, diagnostics: bool) -> Evaluation:
        """`collect` of the evaluation's own tables."""
        if not self.is_lazy:
            return self
        if "_primary" in self.__dict__:
            from polars_rankk.core.evaluation.variants import combined

            parts: list[Evaluation] = [self.__dict__["_primary"], *self.variants]
            # In one collect_all: parts that share a ranking (or a kernel call) run it once.
            return combined(Evaluation.collect_together(parts, engine, diagnostics=diagnostics))

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
                self._evaluated_group_sums.lazy(),
                self._all_group_sums.lazy(),
                self._metric_table.lazy(),
                *extra,
            ],
            engine=engine,
        )
        found = assemble(
            replace(spec, is_lazy=False),
            self._prepared,
            all_groups,
            kept,
            wide,
            catalogue=catalogue[0] if catalogue else None,
            exposures=None
            if self.exposures is None or len(catalogue) < 3
            else replace(self.exposures, exposure=catalogue[1], n_lists=catalogue[2]),
            per_group=sorted_per_group(per_group, self._keys),
            groups=groups.sort(self._keys),
        )
        found.labels, found.plan = self.labels, self.plan
        found.share_catalogue(self.shared_catalogue)
        return found

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
        from polars_rankk.core.evaluation.diagnostics import diagnostics_plan

        together = [e for e in evaluations if e.is_lazy and e._one_pass()]
        # Polars does not share the heavy pass between separate plans (each projects the
        # inputs differently): one query per evaluation, every view derived from its result.
        queries: list[pl.LazyFrame] = []
        plans = []
        for evaluation in together:
            extra, assemble = (
                diagnostics_plan(evaluation._spec, evaluation._prepared, sums_later=True)
                # Several systems' diagnostics are counted per system, on first access.
                if diagnostics
                and "diagnostics" not in evaluation.__dict__
                and evaluation.system is None
                else ([], None)
            )
            plans.append((len(queries), len(extra), assemble))
            queries += [evaluation._all_group_sums.lazy(), *extra]
        frames = pl.collect_all(queries, engine=engine)
        done = {}
        for evaluation, (start, size, assemble) in zip(together, plans, strict=True):
            found = evaluation._from_groups(frames[start])
            known = evaluation.__dict__.get("diagnostics")
            if assemble is not None:
                known = assemble(frames[start + 1 : start + 1 + size], frames[start])
            if known is not None:
                found.__dict__["diagnostics"] = known  # the cached_property's slot
            done[id(evaluation)] = evaluation._with_label_tables(found, engine)
        return [done[id(e)] if id(e) in done else e.collect(engine) for e in evaluations]

    def _from_groups(self, all_groups: pl.DataFrame) -> Evaluation:
        """The eager evaluation whose one-row-per-group pass collected to `all_groups`."""
        spec = self._spec
        kept, wide = views_of(all_groups, spec)
        found = assemble(replace(spec, is_lazy=False), self._prepared, all_groups, kept, wide)
        return label(found, self.labels, self.plan)


def assemble(
    spec: Spec,
    prepared: Prepared,
    all_group_sums: FrameLike,
    kept: FrameLike,
    wide: FrameLike,
    *,
    catalogue: FrameLike | None = None,
    exposures: Exposures | None = None,
    per_group: FrameLike | None = None,
    groups: FrameLike | None = None,
) -> Evaluation:
    """The one place an `Evaluation` is built: from the one-row-per-group pass
    (`all_group_sums`), the groups the policies keep (`kept`) and the wide metric table, the
    per-group rows and the groups table derived here unless given (already collected).
    Eager when ``spec.is_lazy`` is False: `kept` and `wide` are then DataFrames."""
    if groups is None:
        groups = kept.select(*spec.keys, N_CANDIDATES, N_RELEVANT)
        if isinstance(groups, pl.DataFrame):
            groups = groups.sort(list(spec.keys))
    if per_group is None and not isinstance(wide, pl.DataFrame):
        per_group = long_table(wide, spec)
    return Evaluation(
        spec, prepared, per_group, groups, kept, all_group_sums, wide, catalogue, exposures
    )
