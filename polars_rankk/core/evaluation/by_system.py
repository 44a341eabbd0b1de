"""An evaluation of several systems, split by its system column: one evaluation per system,
and the diagnostics counted per system.

`evaluate(..., system=COLUMN)` ranks every system in one pass, the system column being the
outer group key. What comes after (summaries, paired comparisons, curves, reports) works on one
system at a time: it reads the slices of the one pass made here, and never ranks again.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from polars_rankk.core.evaluation.diagnostics import Diagnostics, diagnostics_plan
from polars_rankk.core.evaluation.prepare import Prepared
from polars_rankk.core.inputs.spec import Spec


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

    def one(frame: pl.LazyFrame | None) -> pl.LazyFrame | None:
        return None if frame is None else _one(frame, system, value)

    return replace(
        spec,
        candidates=_one(spec.candidates, system, value),
        truth=one(spec.truth),
        empty_candidate_groups=one(spec.empty_candidate_groups),
        empty_truth_groups=one(spec.empty_truth_groups),
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
        deduplicated=None
        if prepared.deduplicated is None
        else _one(prepared.deduplicated, system, value),
        path=prepared.path,
    )


def slices(frame: pl.DataFrame, system: str, values: list[object]) -> list[pl.DataFrame]:
    """`frame` split by its system column, one slice per value (empty where it has none).

    The per-group tables are sorted by the system column first: each system's rows are then
    one run, taken as a zero-copy slice instead of copied by ``partition_by``."""
    empty = frame.clear().drop(system)
    runs = frame.get_column(system).rle()
    if runs.len() == runs.struct.field("value").n_unique():  # one run per system
        offsets = runs.struct.field("len").cum_sum() - runs.struct.field("len")
        parts = {
            (value,): frame.slice(offset, length).drop(system)
            for value, offset, length in zip(
                runs.struct.field("value"), offsets, runs.struct.field("len"), strict=True
            )
        }
    else:
        parts = frame.partition_by(system, as_dict=True, include_key=False, maintain_order=True)
    return [parts.get((value,), empty) for value in values]


def diagnostics_by_system(
    spec: Spec, prepared: Prepared, all_group_sums: pl.DataFrame | pl.LazyFrame
) -> Diagnostics:
    """The diagnostics of every system, counted in one ``collect_all``: the counts summed over
    systems, the tables with the system column first, and each system's own in ``systems``."""
    system = spec.system
    assert system is not None
    # From the candidates: a lazy evaluation's per-group pass is not run for the names.
    values = system_names(spec.candidates, system)
    queries: list[pl.LazyFrame] = []
    plans = []
    for value in values:
        plan, assemble = diagnostics_plan(
            system_spec(spec, value), system_prepared(prepared, system, value)
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

    counts: dict[str, float] = {}
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
