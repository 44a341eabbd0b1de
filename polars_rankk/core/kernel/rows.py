"""What a K-curve sums over ranks, from the compiled kernel: each ranked row's own terms
within max K (`term_rows`), or each group's event rows with running sums beside its sums from
one ranking of each group (`group_rows`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import polars as pl

from polars_rankk.core.columns import EVENT_GROUP, EVENT_IDEAL
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
#: name and the ideal DCG (``_rk_ideal``), in group then rank order (`group_rows`).
Events = tuple[pl.LazyFrame, pl.LazyFrame]


def group_rows(
    spec: Spec,
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame,
    needs: TermNeeds,
    schema: pl.Schema,
) -> tuple[pl.LazyFrame, Callable[[tuple[str, ...]], Events | None]]:
    """`group_sums` and, from the same ranking of each group (the kernel's ``group_rows``: a
    K-curve reads both), ``events(columns)``: each group's ranks where a term or the ideal
    DCG may change (rank 1, a row with a non-zero term, the rank of a positive ideal gain, all
    within max K) with each term's running sum there, summed in rank order as `evaluate` sums
    it, and the ideal DCG.

    Both read one cached plan: collected together, the kernel runs once. The events are None
    for a column the call does not compute, and where the kernel does not read the ideal
    DCG's truth (its rows are not in the call, or the pool is restricted).
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

    def events_of(columns: tuple[str, ...]) -> Events | None:
        if not ideal_read or any(column not in needs.columns for column in columns):
            return None
        order = first.select(pl.col(key).cast(schema[key]) for key in inputs.keys)
        events = rows.filter(pl.col("rank") > 0).select(
            EVENT_GROUP,
            "rank",
            *(pl.col(kernel_name(column)).alias(column) for column in columns),
            EVENT_IDEAL,
        )
        return order, events

    return sums, events_of


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
