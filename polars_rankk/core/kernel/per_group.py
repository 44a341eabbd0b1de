"""The metric expressions on the compiled kernel: one plugin call over every group's rows.

The rows' columns are handed over as one list per group (``implode()``): inside
``group_by().agg()`` or ``.over()`` Polars then calls the plugin once with every group's list,
and in a plain ``select`` the whole column is one list on every engine (the streaming engine
does not hand it over in pieces); ``unretrieved`` (its first non-null list) and ``n_relevant``
(its largest value) come one row per group. The kernel (`native/src/grouped.rs`) reads the
groups' boundaries off the lists' lengths, splits the groups across its threads, ranks each
(`native/src/group.rs`) under the `Policy` exactly as `evaluate` does, sums the metric's
declared terms (`polars_rankk.core.metrics.terms`, sent as data) at its cut-off, and counts the
group's truth from its own grades (R_g, the judged non-relevant items, the ideal DCG), with the
judged items the rows miss (``unretrieved``) or a declared R_g (``n_relevant``). It hands back
one row of sums per group; the registry's formula computes the metric from them in Polars —
the same formula, over the same sums, as the pure-Polars expression
(`polars_rankk.core.expressions.group`), which stays the reference.

Choice, measured (`benchmarks/bench_every_path.py`): one call for all the groups rather than
one per group, whose per-call cost (a Series per group and column, the call, a one-row struct)
was most of an expression's time; lists per group rather than the rows with each row's
position in its group (``pl.int_range(pl.len())``) and the sums laid out on every row, which
cost each expression a gathered column more and its outputs written on 1M rows (five
expressions on 1M labelled rows: process CPU 0.16 -> 0.11 s). The struct of sums is read by
each metric's formula inside ``struct.with_fields``, so that the plugin runs once per
expression. Polars evaluates each
expression of an ``agg()`` on its own (it finds no common subexpressions inside an
aggregation), so the expressions of the default metrics at one K make the same call and the
kernel, keeping the last call's rows and sums, ranks the groups once for all of them.
"""

from __future__ import annotations

from collections.abc import Collection

import polars as pl

from polars_rankk.core.columns import IDEAL_DCG, stat_column
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel.call import (
    Call,
    Output,
    OutputValue,
    sum_outputs,
)
from polars_rankk.core.metrics.formulas import GroupStats
from polars_rankk.core.metrics.terms import TERMS, TermNeeds
from polars_rankk.core.policy import Policy

_SUMS = "_rk_group_sums"


def usable(policy: Policy, needs: TermNeeds) -> bool:
    """Whether the kernel can compute these terms of one group under `policy`."""
    if not native.status().loaded or policy.duplicates == "error":
        return False
    return all(native.computes(TERMS[column]) for column in needs.columns)


def group_stats(
    *,
    item: pl.Expr | None,
    score: pl.Expr,
    score_name: str,
    grade: pl.Expr,
    n_relevant: pl.Expr | None,
    unretrieved: pl.Expr | None,
    policy: Policy,
    needs: TermNeeds,
    ks: list[int],
    reads: Collection[str] | None = None,
    returned: Collection[str] | None = None,
) -> pl.Expr:
    """One kernel call over every group's rows: per group, a struct of its statistics (read by
    `FIELDS`) and whether the truth knows the group (`KNOWN`).

    `grade` is the grade as given (a null marks an unjudged row; negative grades kept: the
    kernel applies ``negative_grades``, to `unretrieved`'s grades too); `score` is
    higher-first Float64. With `reads`, the struct holds only those statistics, R_g and the
    list's length (`n_candidates`): each field is one more column handed back across the
    plugin boundary. With `returned`, the kernel computes `reads` and hands back only
    `returned` (and R_g and the list's length): expressions whose calls differ only in what
    they return share one ranking (the kernel keeps the last call's sums,
    `native/src/grouped.rs`).
    """
    args: list[pl.Expr] = []
    if item is not None:
        # As given: the kernel reads integer ids by value and string ids by their bytes (and
        # compares both as text under trec_eval's ties).
        args.append(item)
    args.extend([score.cast(pl.Float64), grade.cast(pl.Float64)])
    # What the kernel reads once per group, as one value per group: a list column gathered
    # by group would cost each expression a copy of every row's list.
    if unretrieved is not None:
        args.append(unretrieved.cast(pl.List(pl.Float64)).first(ignore_nulls=True))
    if n_relevant is not None and unretrieved is None:
        args.append(n_relevant.cast(pl.Float64).max())
    # Each input as one list per group: inside a group_by Polars then calls the kernel once
    # with every group's lists (the rows' lists' lengths are the groups' boundaries) and takes
    # one row of sums per group; in a plain select the whole column is one list, on every
    # engine.
    args = [arg.implode() for arg in args]
    counts: list[OutputValue] = ["n_candidates", "n_relevant", "n_nonrelevant", "hits_at_r"]
    outputs = [Output(value, value) for value in counts]
    outputs += [Output(stat_column(IDEAL_DCG, cut), "ideal_dcg", cut) for cut in ks]
    outputs += sum_outputs(needs, ks)
    if reads is not None:
        kept = {"n_candidates", "n_relevant", *reads}
        outputs = [output for output in outputs if output.column in kept]
    given_back: tuple[str, ...] = ()
    if returned is not None:
        wanted = {"n_candidates", "n_relevant", *returned}
        given_back = tuple(output.column for output in outputs if output.column in wanted)
    call = Call.under(
        policy,
        needs.columns,
        one_group=True,
        score_name=score_name,
        has_item=item is not None,
        has_extra=unretrieved is not None,
        counts=int(n_relevant is not None and unretrieved is None),
        condense=policy.unjudged == "condense",
        pool_restrict=policy.pool == "restrict",
        labelled=True,
        negative_unjudged=policy.negative_grades == "unjudged",
        outputs=tuple(outputs),
        returned=given_back,
    )
    return pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name="grouped_metric_sums",
        args=args,
        kwargs=native.kwargs(policy, call),
        is_elementwise=True,
    )


#: The field of the kernel's struct that is 0 for a group the truth does not know (every
#: ``unretrieved`` list, or every declared R_g, null): it has no value.
KNOWN = "_rk_known"


#: The statistics as fields of the kernel's struct of sums: a formula over them is computed
#: inside ``struct.with_fields``, so that the plugin runs once per group however often the
#: formula reads it.
FIELDS = GroupStats(
    at=lambda stat, cut: pl.field(stat_column(stat, cut)),
    n_candidates=pl.field("n_candidates").cast(pl.Int64),
    n_relevant=pl.field("n_relevant").cast(pl.Int64),
    hits_at_r=pl.field("hits_at_r"),
    whole=pl.field,
)


def computed(sums: pl.Expr, value: pl.Expr) -> pl.Expr:
    """`value` (an expression of `FIELDS`) computed on the group's struct of sums.

    The closing get(0) keeps the value one per group: Polars' streaming engine spreads a
    struct's with_fields to the frame's height in a select outside group_by (Polars 2.1).
    """
    return sums.struct.with_fields(value.alias("_rk_value")).struct.field("_rk_value").get(0)


def computed_struct(sums: pl.Expr, values: dict[str, pl.Expr], void: pl.Expr) -> pl.Expr:
    """A struct of `values` (expressions of `FIELDS`), from one evaluation of `sums`; null
    where `void` (an expression of `FIELDS`)."""
    fields = pl.struct(*(value.alias(name) for name, value in values.items()))
    fields = pl.when(void).then(pl.lit(None)).otherwise(fields)
    found = sums.struct.with_fields(fields.alias("_rk_values")).struct.field("_rk_values")
    return found.get(0)  # one per group on every engine, as in `computed`
