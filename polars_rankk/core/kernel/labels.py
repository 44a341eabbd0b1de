"""`label` on the compiled kernel: one call (``label_rows``, ``native/src/labelling.rs``)
reads the candidates and then the truth's rows in the same columns, joins the truth within
each group, and returns each candidate's grade, its group's R and missed grades in output
order, with the input row at each place, and the candidates' Int64 keys and item and Float64
score already in that order (`_written`); their other columns are gathered by row. The frame
is the reference path's (`polars_rankk.core.inputs.labelling.polars_label`), row order and
dtypes included."""

from __future__ import annotations

import polars as pl

from polars_rankk.core.inputs.labelling import (
    LabelInputs,
    flag_sorted,
    pool_scores,
    unused_name,
)
from polars_rankk.core.kernel.loader import kernel_input, kernel_kind, library, status

__all__ = ["kernel_label"]

#: The sides of a row (``native/src/kernel/labels.rs``): a candidate in the pool, one out of
#: it, a truth row with a grade, one whose grade is null.
_CANDIDATE, _OUT_OF_POOL, _TRUTH, _TRUTH_NULL = 0, 1, 2, 3
_GRADES = (pl.Float64, pl.Float32, pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16)


def _readable(read: LabelInputs) -> pl.DataType | None:
    """The grade's dtype where the kernel reads every input of `read` (None: it does not)."""
    if not status().loaded:
        return None
    for column in (*read.keys, read.item):
        kind = kernel_kind(read.schema[column])
        if kind is None or kernel_kind(read.truth_schema[column]) != kind:
            return None
    if read.relevance not in read.truth_schema:
        return pl.Int32()
    dtype = read.truth_schema[read.relevance]
    return dtype if isinstance(dtype, _GRADES) else None


def _written(read: LabelInputs) -> tuple[bool, bool, bool]:
    """Whether the kernel writes the keys, the item and the score in output order: the keys
    and item where they are Int64 (the dtype it writes them in), the score where it is
    Float64 (it carries the score in the grade's column, Float64)."""
    schema = read.schema
    keys = all(schema[key] == pl.Int64 for key in read.keys)
    score = read.score
    writes_score = (
        score in schema and schema[score] == pl.Float64 and score not in (*read.keys, read.item)
    )
    return keys, schema[read.item] == pl.Int64, writes_score


def kernel_label(read: LabelInputs) -> pl.LazyFrame | None:
    """`label`'s frame from the kernel; None where it does not read the inputs (not loaded,
    keys or items of a dtype it does not read, a grade that is not an integer or float)."""
    grade_dtype = _readable(read)
    if grade_dtype is None:
        return None
    keys, item, schema = read.keys, read.item, read.schema
    side = unused_name("__rankk_side", schema)
    grade = unused_name("__rankk_grade", schema)
    pool = pool_scores(read.score, schema, read.policy) if read.policy.pool == "restrict" else None
    candidate_side = (
        pl.lit(_CANDIDATE, pl.Int64)
        if pool is None
        else pl.when(pool).then(_CANDIDATE).otherwise(_OUT_OF_POOL).cast(pl.Int64)
    )
    inputs = [kernel_input(column, schema[column]).alias(column) for column in (*keys, item)]
    truth_inputs = [
        kernel_input(column, read.truth_schema[column]).alias(column) for column in (*keys, item)
    ]
    truth_grade = read.grade()
    write_keys, write_item, write_score = _written(read)
    # A candidate's grade is not read: where the score is written, it rides there.
    carried = pl.col(read.score) if write_score else pl.lit(None, pl.Float64)
    rows = pl.concat(
        [
            read.frame.select(*inputs, candidate_side.alias(side), carried.alias(grade)),
            read.truth.select(
                *truth_inputs,
                pl.when(truth_grade.is_null())
                .then(_TRUTH_NULL)
                .otherwise(_TRUTH)
                .cast(pl.Int64)
                .alias(side),
                truth_grade.cast(pl.Float64).alias(grade),
            ),
        ],
        how="vertical",
    )
    row = unused_name("__rankk_row", schema)
    names = [row, read.relevance, read.n_relevant, read.unretrieved]
    call = pl.plugins.register_plugin_function(
        plugin_path=library(),
        function_name="label_rows",
        args=[pl.col(column) for column in (*keys, item, side, grade)],
        kwargs={
            "keys": [kernel_kind(schema[key]) for key in keys],
            "item": kernel_kind(schema[item]),
            "threshold": float(read.policy.relevance_threshold),
            "restrict": read.policy.pool == "restrict",
            "integer_grades": grade_dtype.is_integer(),
            "names": names,
            "write_keys": write_keys,
            "write_item": write_item,
            "score": read.score if write_score else None,
        },
        is_elementwise=False,
        changes_length=True,
    ).alias(row)
    labels = rows.select(call).unnest(row)
    written = {
        *(keys if write_keys else ()),
        *((item,) if write_item else ()),
        *((read.score,) if write_score else ()),
    }
    gathered = [column for column in schema.names() if column not in written]
    if gathered:
        labels = pl.concat([read.frame.select(gathered), labels], how="horizontal")
    out = labels.select(
        *(
            pl.col(column) if column in written else pl.col(column).gather(pl.col(row))
            for column in schema.names()
        ),
        pl.col(read.relevance).cast(grade_dtype),
        pl.col(read.n_relevant),
        pl.col(read.unretrieved),
    )
    return flag_sorted(out, keys)
