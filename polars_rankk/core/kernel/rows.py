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


def group_rows(
    spec: Spec,
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame,
    needs: TermNeeds,
    schema: pl.Schema,
) -> tuple[pl.LazyFrame, Callable[[tuple[str, ...]], pl.LazyFrame | None]]:
    """`group_sums` and the per-rank term rows of `term_rows` from one ranking of each group
    (the kernel's ``group_rows``: a K-curve reads both): the sums, and ``rows(columns)``, the
    rows of `columns` (None for a column the call does not compute: `term_rows` ranks for it).

    Both read one cached plan: collected together, the kernel runs once.
    """
    inputs, outputs, call = _sums_call(spec, selected, truth, truth_stats, needs)
    rows = (
        inputs.frame.select(_call(library(), inputs.arguments, call, "group_rows"))
        .unnest(_SUMS)
        .cache()
    )
    names = [*inputs.keys, *(output.column for output in outputs)]
    sums = rows.filter(pl.col("rank") == 0).select(
        pl.col(name).cast(schema[name]) for name in names
    )

    def term_rows_of(columns: tuple[str, ...]) -> pl.LazyFrame | None:
        if any(column not in needs.columns for column in columns):
            return None
        terms = [pl.col(kernel_name(column)) for column in columns]
        graded = rows.filter(pl.col("rank") > 0, pl.any_horizontal(term != 0 for term in terms))
        return graded.select(
            *(pl.col(key).cast(schema[key]) for key in inputs.keys),
            "rank",
            *(term.alias(column) for term, column in zip(terms, columns, strict=True)),
        )

    return sums, term_rows_of


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
