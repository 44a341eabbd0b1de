"""Per-rank term rows from the compiled kernel: each ranked row's own terms within max K
(what a K-curve sums over ranks), alone (`term_rows`) or with the per-group sums from one
ranking of each group (`group_rows`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import polars as pl

from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel.call import Output, kernel_name
from polars_rankk.core.kernel.loader import (
    _SUMS,
    _call,
    _inputs,
    _sums_call,
    kwargs,
    library,
)
from polars_rankk.core.metrics.terms import TermNeeds


#: Each group's keys, in the order of its number (the sums rows' order), and its event rows:
#: the group's number (``_rk_group``), ``rank``, each term's running sum under its column's
#: name, its own value at the row (`own_value`) and the ideal DCG (``_rk_ideal``), in group
#: then rank order (`RowsOf.events`).
Events = tuple[pl.LazyFrame, pl.LazyFrame]

#: The kernel's columns of `Events`: the group's number, and the ideal DCG at the rank.
GROUP, IDEAL = "_rk_group", "_rk_ideal"
_RUNNING, _OWN = "_rk_running:", "_rk_own:"


@dataclasses.dataclass(frozen=True)
class RowsOf:
    """What one ranking of each group gives besides its sums (the kernel's ``group_rows``):
    a term's own values at each ranked row (`rows`) and the event rows with running sums
    (`events`); None for what the call did not compute."""

    rows: Callable[[tuple[str, ...]], pl.LazyFrame | None]
    events: Callable[[tuple[str, ...]], Events | None]


def group_rows(
    spec: Spec,
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame,
    needs: TermNeeds,
    schema: pl.Schema,
) -> tuple[pl.LazyFrame, RowsOf]:
    """`group_sums` and, from the same ranking of each group (the kernel's ``group_rows``: a
    K-curve reads both), the per-rank term rows of `term_rows` and the event rows: each
    group's ranks where a term or the ideal DCG changes (rank 1, a row with a non-zero term,
    an ideal rank of a positive gain, all within max K) with each term's running sum there,
    summed in rank order as `evaluate` sums them, and the ideal DCG.

    Everything reads one cached plan: collected together, the kernel runs once. The event
    rows are None for a column the call does not compute, and where the kernel does not read
    the ideal DCG's truth (its rows are not in the call, or the pool is restricted).
    """
    inputs, outputs, call = _sums_call(spec, selected, truth, truth_stats, needs)
    rows = (
        inputs.frame.select(_call(library(), inputs.arguments, call, "group_rows"))
        .unnest(_SUMS)
        .cache()
    )
    names = [*inputs.keys, *(output.column for output in outputs)]
    first = rows.filter(pl.col("rank") == 0)
    sums = first.select(pl.col(name).cast(schema[name]) for name in names)
    ideal_read = inputs.call.truth and spec.policy.pool != "restrict"

    def computed(columns: tuple[str, ...]) -> bool:
        return all(column in needs.columns for column in columns)

    def term_rows_of(columns: tuple[str, ...]) -> pl.LazyFrame | None:
        if not computed(columns):
            return None
        terms = [pl.col(kernel_name(column)) for column in columns]
        graded = rows.filter(pl.col("rank") > 0, pl.any_horizontal(term != 0 for term in terms))
        return graded.select(
            *(pl.col(key).cast(schema[key]) for key in inputs.keys),
            "rank",
            *(term.alias(column) for term, column in zip(terms, columns, strict=True)),
        )

    def events_of(columns: tuple[str, ...]) -> Events | None:
        if not (ideal_read and computed(columns)):
            return None
        order = first.select(pl.col(key).cast(schema[key]) for key in inputs.keys)
        events = rows.filter(pl.col("rank") > 0).select(
            GROUP,
            "rank",
            *(pl.col(_RUNNING + kernel_name(column)).alias(column) for column in columns),
            *(pl.col(kernel_name(column)).alias(own_value(column)) for column in columns),
            IDEAL,
        )
        return order, events

    return sums, RowsOf(term_rows_of, events_of)


def own_value(column: str) -> str:
    """The name of a term's own value at an event row (`RowsOf.events`), beside its running
    sum under the column's name."""
    return _OWN + column


def term_rows(
    spec: Spec, selected: pl.LazyFrame, truth: pl.LazyFrame, columns: tuple[str, ...]
) -> pl.LazyFrame:
    """Each ranked row within max K where a term of `columns` is not zero: keys, ``rank``
    (Int64) and each term's own value, under its column's name (`Prepared.term_rows`)."""
    needs = TermNeeds(columns=columns)
    inputs = _inputs(spec, selected, truth, None, needs)
    # The cut-off and the terms ride on outputs the rows do not return.
    cuts = tuple(
        Output(f"_rk_cut{i}", "sum", spec.k_max, kernel_name(c)) for i, c in enumerate(columns)
    )
    described = dataclasses.replace(inputs.call, outputs=(*inputs.call.outputs, *cuts))
    call = pl.plugins.register_plugin_function(
        plugin_path=library(),
        function_name="graded_rows",
        args=inputs.arguments,
        kwargs=kwargs(spec.policy, described),
        is_elementwise=False,
        changes_length=True,
    ).alias(_SUMS)
    rows = inputs.frame.select(call).unnest(_SUMS)
    return rows.with_columns(
        *(
            pl.col(key).cast(inputs.key_schema[key])
            for key in inputs.keys
            if inputs.key_schema[key] != pl.String
        )
    ).select(
        *inputs.keys,
        "rank",
        *(pl.col(kernel_name(column)).alias(column) for column in columns),
    )
