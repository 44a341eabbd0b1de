"""An evaluation of several systems, split by its system column: one evaluation per system,
and the diagnostics counted per system.

`evaluate(..., system=COLUMN)` ranks every system in one pass, the system column being the
outer group key. What comes after (summaries, paired comparisons, curves, reports) works on one
system at a time: it reads the slices of the one pass made here, and never ranks again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rankk.core.prepare import Prepared

if TYPE_CHECKING:
    from polars_rankk.core.diagnostics import Diagnostics
    from polars_rankk.core.evaluation import Evaluation
    from polars_rankk.core.inputs import Spec


def system_names(frame: pl.DataFrame | pl.LazyFrame, system: str) -> list[object]:
    """The distinct values of the system column, sorted by their text."""
    values = frame.lazy().select(pl.col(system).unique()).collect().to_series()
    return sorted(values.to_list(), key=str)


def _one(frame: pl.LazyFrame, system: str, value: object) -> pl.LazyFrame:
    return frame.filter(pl.col(system) == value).drop(system)


def system_spec(spec: Spec, value: object) -> Spec:
    """The spec of one system: its candidates, the shared truth, the keys without the system."""
    assert spec.system is not None
    system = spec.system
    return replace(
        spec,
        candidates=_one(spec.candidates, system, value),
        truth=None if spec.truth is None else _one(spec.truth, system, value),
        keys=spec.group_keys,
        system=None,
        is_lazy=False,
    )


def system_prepared(prepared: Prepared, system: str, value: object) -> Prepared:
    """The lazy frames of one system (they read the inputs again if collected)."""
    return Prepared(
        group_sums=_one(prepared.group_sums, system, value),
        ranked=_one(prepared.ranked, system, value),
        truth=_one(prepared.truth, system, value),
        candidates=_one(prepared.candidates, system, value),
    )


def _pieces(frame: pl.DataFrame, system: str, values: list[object]) -> list[pl.DataFrame]:
    parts = frame.partition_by(system, as_dict=True, include_key=False, maintain_order=True)
    empty = frame.clear().drop(system)
    return [parts.get((value,), empty) for value in values]


def split_by_system(evaluation: Evaluation) -> dict[str, Evaluation]:
    """One eager evaluation per system from an eager multi-system evaluation's tables."""
    from polars_rankk.core.evaluation import Evaluation

    spec: Spec = evaluation._spec
    system = evaluation.system
    assert system is not None
    assert not evaluation.is_lazy
    tables = [
        evaluation.per_group,
        evaluation.groups,
        evaluation._evaluated_group_sums,
        evaluation._all_group_sums,
        evaluation._metric_table,
    ]
    frames = [table if isinstance(table, pl.DataFrame) else table.collect() for table in tables]
    values = system_names(frames[3], system)
    split = [_pieces(frame, system, values) for frame in frames]
    known = evaluation.__dict__.get("diagnostics")
    found: dict[str, Evaluation] = {}
    for index, value in enumerate(values):
        per_group, groups, kept, all_groups, wide = (pieces[index] for pieces in split)
        one = Evaluation(
            system_spec(spec, value),
            system_prepared(evaluation._prepared, system, value),
            per_group,
            groups,
            kept,
            all_groups,
            wide,
        )
        one._sliced = True
        if known is not None and str(value) in known.systems:
            one.__dict__["diagnostics"] = known.systems[str(value)]
        found[str(value)] = one
    return found


def diagnostics_by_system(evaluation: Evaluation) -> Diagnostics:
    """The diagnostics of every system, counted in one ``collect_all``: the counts summed over
    systems, the tables with the system column first, and each system's own in ``systems``."""
    from polars_rankk.core.diagnostics import Diagnostics, diagnostics_plan

    spec: Spec = evaluation._spec
    system = spec.system
    assert system is not None
    values = system_names(evaluation._all_group_sums, system)
    queries: list[pl.LazyFrame] = []
    plans = []
    for value in values:
        plan, assemble = diagnostics_plan(
            system_spec(spec, value), system_prepared(evaluation._prepared, system, value)
        )
        plans.append((len(queries), len(plan), assemble))
        queries += plan
    frames = pl.collect_all(queries)
    systems = {
        str(value): assemble(frames[start : start + size])
        for value, (start, size, assemble) in zip(values, plans, strict=True)
    }

    def stacked(table: str) -> pl.DataFrame:
        parts: list[pl.DataFrame] = [
            getattr(one, table).select(pl.lit(name, dtype=pl.String).alias(system), pl.all())
            for name, one in systems.items()
        ]
        return pl.concat(parts, how="vertical_relaxed")

    counts: dict[str, int] = {}
    for one in systems.values():
        for name, value in one.counts.items():
            counts[name] = counts.get(name, 0) + value
    return Diagnostics(
        counts=counts,
        per_k=stacked("per_k"),
        relevance_grades=stacked("relevance_grades"),
        policy=spec.policy.to_dict(),
        systems=systems,
        system=system,
    )
