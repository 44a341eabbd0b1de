"""`label`'s inputs and its reference path: candidates labelled from a truth table, ready
for the expression API (`polars_rankk.core.expressions.labelled.label` says what it attaches
and why; it runs this path or the compiled kernel's, `polars_rankk.core.kernel.labels`, which
gives the identical frame).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import polars as pl

from polars_rankk.core.inputs.frames import long_form, to_lazy
from polars_rankk.core.inputs.normalize import column_name
from polars_rankk.core.inputs.spec import align_ids, normalize_keys, require_columns
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

__all__ = [
    "LabelInputs",
    "flag_sorted",
    "label_inputs",
    "polars_label",
    "pool_scores",
    "unused_name",
]

_NO_GRADES = pl.lit([], dtype=pl.List(pl.Float64))
F = TypeVar("F", pl.DataFrame, pl.LazyFrame)


def unused_name(name: str, schema: Mapping[str, object]) -> str:
    """`name`, lengthened with underscores until no column of `schema` has it."""
    while name in schema:
        name += "_"
    return name


def pool_scores(score: str, schema: Mapping[str, object], policy: Policy) -> pl.Expr | None:
    """Which candidate rows the truth is restricted to under ``pool="restrict"``: those with a
    valid score where ``invalid_scores="drop"`` drops the others (None: every row)."""
    if policy.invalid_scores != "drop":
        return None
    if score not in schema:
        raise ValueError(
            f"pool='restrict' with invalid_scores='drop' keeps only the rows with a "
            f"valid score in the pool, and the candidates have no column {score!r}; "
            f"name the score column (score=...); its columns are {list(schema)}"
        )
    return pl.col(score).cast(pl.Float64).is_finite().fill_null(False)


def _known(
    truth_frame: pl.LazyFrame,
    grades: pl.LazyFrame,
    matched: pl.LazyFrame,
    keys: list[str],
    item: str,
    columns: tuple[str, str, str],
    policy: Policy,
) -> pl.LazyFrame:
    """One row per group the truth knows: its R_g and the grades of its judged items the
    candidates miss (`grades`: the truth's, one per item, restricted to the pool; `matched`:
    the (group, item) pairs of the candidates the truth judges), under the names `columns`
    gives (relevance, n_relevant, unretrieved)."""
    relevance, n_relevant, unretrieved = columns
    relevant = pl.col(relevance) >= policy.relevance_threshold
    # Against the candidates the truth judges (as many rows as the truth at most), not all of
    # them: the anti join's table is the truth's size, not the candidates'.
    missed = grades.join(matched, on=[*keys, item], how="anti", nulls_equal=True)
    known = grades.group_by(keys).agg(relevant.sum().cast(pl.Int64).alias(n_relevant))
    known = known.join(
        # Highest grade first: the same list on every call (the joins keep no row order).
        missed.group_by(keys).agg(
            pl.col(relevance).cast(pl.Float64).sort(descending=True).alias(unretrieved)
        ),
        on=keys,
        how="left",
        nulls_equal=True,
    )
    if policy.pool == "restrict":
        # Groups of the truth whose judged items were all missed: known, nothing to find.
        known = truth_frame.select(keys).unique().join(known, on=keys, how="left", nulls_equal=True)
    return known.with_columns(
        pl.col(n_relevant).fill_null(0), pl.col(unretrieved).fill_null(_NO_GRADES)
    )


@dataclass(frozen=True)
class LabelInputs:
    """`label`'s inputs, read and checked: the candidates and the truth in long form, their
    ids aligned, the column names and the policy."""

    frame: pl.LazyFrame
    truth: pl.LazyFrame
    keys: list[str]
    item: str
    score: str
    relevance: str
    n_relevant: str
    unretrieved: str
    policy: Policy
    #: The candidates' columns (the output's first ones, in this order) and the truth's.
    schema: pl.Schema
    truth_schema: pl.Schema

    @property
    def written(self) -> tuple[str, str, str]:
        """The columns `label` adds, in order."""
        return (self.relevance, self.n_relevant, self.unretrieved)

    def grade(self) -> pl.Expr:
        """The truth's grade: its relevance column, or 1 (Int32) where it has none."""
        if self.relevance in self.truth_schema:
            return pl.col(self.relevance)
        return pl.lit(1, dtype=pl.Int32)


def label_inputs(
    candidates: FrameLike,
    truth: FrameLike,
    *,
    group_by: str | Sequence[str],
    item: str,
    score: str,
    relevance: str,
    n_relevant: str,
    unretrieved: str,
    policy: Policy | None,
) -> LabelInputs:
    """`label`'s arguments read and checked (see `polars_rankk.label`)."""
    policy = Policy() if policy is None else policy
    keys = list(normalize_keys(group_by))
    item, score = column_name(item, "item"), column_name(score, "score")
    relevance = column_name(relevance, "relevance")
    frame = long_form(
        to_lazy(candidates, "candidates"),
        "candidates",
        keys=keys,
        item=item,
        parallel=[],
        ranking=score,
    )
    truth_frame = long_form(
        to_lazy(truth, "truth"), "truth", keys=keys, item=item, parallel=[relevance]
    )
    schema = require_columns(
        frame, "candidates", {**dict.fromkeys(keys, "a group key"), item: "the item id"}
    )
    require_columns(
        truth_frame, "truth", {**dict.fromkeys(keys, "a group key"), item: "the item id"}
    )
    for column, option in (
        (relevance, "relevance"),
        (n_relevant, "n_relevant"),
        (unretrieved, "unretrieved"),
    ):
        if column in schema:
            raise ValueError(
                f"candidates already has a column {column!r}; label writes it from the truth: "
                f"drop it or choose another name ({option}=...)"
            )
    if policy.pool == "restrict":
        pool_scores(score, schema, policy)  # refuses a missing score column now
    frame, truth_frame = align_ids(frame, truth_frame, [*keys, item])
    return LabelInputs(
        frame,
        truth_frame,
        keys,
        item,
        score,
        relevance,
        n_relevant,
        unretrieved,
        policy,
        frame.collect_schema(),
        truth_frame.collect_schema(),
    )


def flag_sorted(frame: F, keys: list[str]) -> F:
    """`frame`, its rows in ascending order of its one key column, with that column's sorted
    flag set (a `group_by` on it then reads each group as a slice); several keys: as it is.
    (Set again on the collected frame: the streaming engine may drop a flag set in a plan.)"""
    if len(keys) != 1:
        return frame
    if isinstance(frame, pl.DataFrame):
        # Polars keeps no sorted flag on a column of several chunks holding a null: one chunk.
        return frame.with_columns(frame.get_column(keys[0]).rechunk().set_sorted())
    return frame.with_columns(pl.col(keys[0]).set_sorted())


def polars_label(read: LabelInputs) -> pl.LazyFrame:
    """`label` in Polars: the reference the kernel's `label_rows` is tested against."""
    keys, item, policy, schema = read.keys, read.item, read.policy, read.schema
    frame = read.frame
    # A null key or item is a value of its own in every join, as a group_by makes it.
    grades = read.truth.group_by([*keys, item]).agg(read.grade().max().alias(read.relevance))
    if policy.pool == "restrict":
        # The truth restricted to the candidates' items, as `evaluate` restricts it.
        valid = pool_scores(read.score, schema, policy)
        pool = frame if valid is None else frame.filter(valid)
        grades = grades.join(pool, on=[*keys, item], how="semi", nulls_equal=True)
    # The rows come out grouped by key, the groups in ascending key order (nulls last), each
    # group's rows in the candidates' order: one sort on (keys, row number) at the end (a join
    # asked to keep the left order costs several times more on the streaming engine). With the
    # key sorted and flagged so, a `group_by` reads each group as a slice.
    row = unused_name("__rankk_row", schema)
    first = unused_name("__rankk_first", schema)
    judged = unused_name("__rankk_judged", schema)
    # Each group's first row, marked in the candidates' order: it alone gets the missed grades
    # (a list on every row cost more than the joins, to build, to sort and for every
    # expression to gather again).
    group = pl.col(keys[0]) if len(keys) == 1 else pl.struct(keys)
    frame = frame.with_row_index(row).with_columns(group.is_first_distinct().alias(first))
    # Unjudged rows keep a null grade: they are not judged non-relevant.
    labelled = frame.join(
        grades.with_columns(pl.lit(True).alias(judged)),
        on=[*keys, item],
        how="left",
        nulls_equal=True,
    )
    matched = labelled.filter(pl.col(judged).is_not_null()).select(*keys, item)
    known = _known(read.truth, grades, matched, keys, item, read.written, policy)
    out = (
        labelled.join(known.drop(read.unretrieved), on=keys, how="left", nulls_equal=True)
        .join(
            known.select(*keys, pl.lit(True).alias(first), read.unretrieved),
            on=[*keys, first],
            how="left",
            nulls_equal=True,
        )
        .sort([*keys, row], nulls_last=True)
        .select(*schema, *read.written)
    )
    return flag_sorted(out, keys)
