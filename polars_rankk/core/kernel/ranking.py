"""Each group's top K items, ranked by the compiled kernel.

`rk.evaluate` ranks candidates in the kernel; a reader that needs the ranked items themselves
(the counterfactual estimates read the new ranking's top K) takes them from the same ranking
here: the kernel's ``ranked_items`` returns, per group, the items at ranks 1..K in rank order,
ranked under the policy's tie order exactly as `evaluate` ranks them (its ranking pass, with a
term that is 1 at every rank and read at K). Invalid scores rank last
(``Policy(invalid_scores="lowest")``) and ``ties="input_order"`` reads the rows' input order,
both done here for every caller; the pure-Polars ranking stays the reference the tests hold
it to.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel.call import Call, KernelPiece, LinearTerm, Output
from polars_rankk.core.metrics.order import lowest_if_invalid
from polars_rankk.core.policy import Policy

_TOP = "_rk_top"
_EVERY_RANK = LinearTerm("_rk_every_rank", (KernelPiece("one", False, ()),))
#: The key and item dtypes the kernel reads and gives back as they were.
READ = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.String)


def ranked_top(
    candidates: pl.LazyFrame,
    keys: list[str],
    item: str,
    score: pl.Expr,
    policy: Policy,
    k: int,
) -> pl.LazyFrame | None:
    """Each group's items at ranks 1..`k`: `keys`, `item` and ``rank`` (Int64, from 1), each
    item once (its best-ranked copy), the rows in (keys, rank) order as `sort` orders them
    (integer keys by value, text by its bytes; a null key first); None where the kernel
    cannot rank them (not loaded, a key or item dtype it does not read, a tie order that
    reads grades).

    `score` is the Float64 score, higher first (`order.score_value`); invalid scores are
    made the lowest here, and under ``ties="input_order"`` the candidates' row order breaks
    ties.
    """
    schema = candidates.collect_schema()
    ids = (*keys, item)
    if not _ranks(schema, ids, policy):
        return None
    ranking = dataclasses.replace(policy, duplicates="first", invalid_scores="lowest")
    by_row = ranking.ties == "input_order"
    frame = candidates.select(
        *(native.kernel_input(name, schema[name]).alias(name) for name in ids),
        lowest_if_invalid(score.cast(pl.Float64)).alias("__score"),
        *([pl.int_range(pl.len(), dtype=pl.Int64).alias("__row")] if by_row else []),
    )
    call = Call.under(
        ranking,
        (),
        keys=tuple(native.kernel_kind(schema[name]) or "" for name in keys),
        item=native.kernel_kind(schema[item]) or "",
        row=by_row,
        outputs=(
            *(Output(name, "key", index) for index, name in enumerate(keys)),
            Output("_rk_cut", "sum", k, _EVERY_RANK.name),
        ),
    )
    # No grades: one NaN, not a column of them as long as the candidates (the kernel reads a
    # one-row grade column of a call without truth as NaN at every row).
    no_grades = pl.lit(float("nan"), pl.Float64).alias("__grade")
    ranked = frame.select(_ranked(frame, "ranked_items", ranking, call, no_grades))
    ranked = ranked.unnest(_TOP).drop("score")
    return ranked.with_columns(pl.col(name).cast(schema[name]) for name in ids)


def item_ranks(
    candidates: pl.LazyFrame,
    keys: list[str],
    item: str,
    score: pl.Expr,
    policy: Policy,
    pairs: pl.DataFrame,
    depth: int,
) -> pl.Series | None:
    """The place of each row of `pairs` (`keys` and `item`) in its group's ranking of
    `candidates`, ranked as `ranked_top` ranks them: 0 where the item is not among the
    group's candidates, its rank where that is at most `depth`, ``depth + 1`` where it is
    ranked deeper (Int64, one per row of `pairs`, in their order); None where the kernel
    cannot rank them (as `ranked_top`). One ranking, to `depth`: no ranked list comes back.

    `pairs` has one row per (group, item) and the dtypes of `candidates`' keys and item.
    """
    schema = candidates.collect_schema()
    ids = (*keys, item)
    if not _ranks(schema, ids, policy) or any(pairs.schema[name] != schema[name] for name in ids):
        return None
    ranking = dataclasses.replace(policy, duplicates="first", invalid_scores="lowest")
    by_row = ranking.ties == "input_order"
    row = [pl.int_range(pl.len(), dtype=pl.Int64).alias("__row")] if by_row else []
    listed = candidates.select(
        *(native.kernel_input(name, schema[name]).alias(name) for name in ids),
        lowest_if_invalid(score.cast(pl.Float64)).alias("__score"),
        pl.lit(None, pl.Float64).alias("__grade"),
        *row,
    )
    # The pairs follow as truth rows, each graded with its number from 1: the kernel's truth
    # join hands each candidate the number of its pair.
    numbered = pairs.lazy().select(
        *(native.kernel_input(name, schema[name]).alias(name) for name in ids),
        pl.lit(None, pl.Float64).alias("__score"),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).cast(pl.Float64).alias("__grade"),
        *([pl.lit(None, pl.Int64).alias("__row")] if by_row else []),
    )
    frame = pl.concat([listed, numbered], how="vertical")
    call = Call.under(
        ranking,
        (),
        keys=tuple(native.kernel_kind(schema[name]) or "" for name in keys),
        item=native.kernel_kind(schema[item]) or "",
        row=by_row,
        truth=True,
        outputs=(Output("_rk_cut", "sum", depth, _EVERY_RANK.name),),
    )
    ranks = _ranked(frame, "item_ranks", ranking, call)
    return frame.select(ranks).collect().to_series().struct.field("rank")


def _ranks(schema: pl.Schema, ids: tuple[str, ...], policy: Policy) -> bool:
    """Whether the kernel ranks these candidates: loaded, a tie order that does not read the
    grades, key and item dtypes it reads."""
    return (
        native.status().loaded
        and policy.ties not in ("pessimistic", "optimistic", "expected")
        and all(isinstance(schema[name], READ) for name in ids)
    )


def _ranked(
    frame: pl.LazyFrame, function: str, ranking: Policy, call: Call, grade: pl.Expr | None = None
) -> pl.Expr:
    """The kernel's `function` over every column of `frame`, ranking to the call's cut-off;
    `grade`, where given, is sent after the score (`frame` then has none)."""
    # The one term read: 1 at every rank, so that every ranked row within K is ranked.
    call = dataclasses.replace(call, terms=(_EVERY_RANK,))
    names = frame.collect_schema().names()
    args: list[pl.Expr] = [pl.col(name) for name in names]
    if grade is not None:
        args.insert(names.index("__score") + 1, grade)
    return pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name=function,
        args=args,
        kwargs=native.kwargs(ranking, call),
        is_elementwise=False,
        changes_length=True,
    ).alias(_TOP)
