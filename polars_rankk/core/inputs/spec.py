"""Schema and value checks, raised as clear errors before any metric is computed.

Every error names the table and the column, says what was expected, and shows one offending
row, so that nothing surfaces later as a Polars exception from the middle of a query.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.columns import INTERNAL_PREFIX, N_CANDIDATES, N_RELEVANT, WHOLE_LIST
from polars_rankk.core.inputs.checks import (
    check_numeric,
    check_one_row_per_group,
    example_row,
    require_columns,
    value_checks,
)
from polars_rankk.core.inputs.frames import empty_list_groups, index_hints, long_form
from polars_rankk.core.inputs.frames import to_lazy as to_lazy  # noqa: PLC0414 (re-export)
from polars_rankk.core.names.parse import resolve_metric_names, whole_list_metrics
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike, MetricName

__all__ = [
    "Spec",
    "align_ids",
    "check_inputs",
    "check_numeric",
    "check_one_row_per_group",
    "example_row",
    "normalize_k",
    "normalize_keys",
    "normalize_ks",
    "normalize_metrics",
    "require_columns",
    "resolve_ranking_column",
    "to_lazy",
    "value_checks",
]


@dataclass(frozen=True)
class Spec:
    """What to evaluate, after validation: the resolved column names and options."""

    candidates: pl.LazyFrame
    truth: pl.LazyFrame | None
    keys: tuple[str, ...]
    item: str
    score: str
    relevance: str
    #: True when the candidates carry their own relevance labels.
    labelled: bool
    #: True when the truth table has a relevance column (else every truth row has grade 1).
    truth_graded: bool
    n_relevant: str | None
    ks: tuple[int, ...]
    metrics: tuple[MetricName, ...]
    policy: Policy
    is_lazy: bool
    #: True when `score` names a rank column (lower ranks first) rather than a score.
    lower_is_better: bool = False
    #: Groups whose candidates were an empty list (an empty ranking, present), and groups
    #: whose truth was an empty list (in the truth, nothing relevant): no row stands for them.
    empty_candidate_groups: pl.LazyFrame | None = None
    empty_truth_groups: pl.LazyFrame | None = None
    #: The candidates' column naming each row's system: the first of `keys`, an outer key
    #: under which every system is ranked and scored on its own in the same pass.
    system: str | None = None
    #: Metrics named over the whole ranked list (trec_eval's ``map``, ir_measures' ``AP``), and
    #: those of them asked for at no cut-off besides: rows with no K.
    whole_list: tuple[MetricName, ...] = ()
    whole_list_only: tuple[MetricName, ...] = ()

    @property
    def group_keys(self) -> tuple[str, ...]:
        """The keys of one system's groups (`keys` without the system column)."""
        return self.keys[1:] if self.system is not None else self.keys

    @property
    def k_max(self) -> int:
        return max(self.ks)

    @property
    def read_ks(self) -> tuple[int, ...]:
        """The cut-offs the running sums are read at: `ks`, and the whole list when a metric
        is named over it."""
        return (*self.ks, WHOLE_LIST) if self.whole_list else self.ks


#: Names the output uses; a group key may not take them.
RESERVED = ("metric", "k", "value", N_CANDIDATES, N_RELEVANT)


def _check_output_names(spec: Spec) -> None:
    """Group keys may not take the output's column names, and no column may start with the
    internal prefix: one rule for `evaluate` and every engine."""
    clashes = [key for key in spec.keys if key in RESERVED]
    if clashes:
        raise ValueError(
            f"group key(s) {clashes} clash with output columns {list(RESERVED)}; rename them"
        )
    internal = [
        column
        for column in (*spec.keys, spec.item, spec.score, spec.relevance)
        if column.startswith(INTERNAL_PREFIX)
    ]
    if internal:
        raise ValueError(
            f"column name(s) {internal} start with {INTERNAL_PREFIX!r}, which the library "
            f"reserves for its internal columns; rename them"
        )


def resolve_ranking_column(score: str, rank: str | None) -> tuple[str, bool]:
    """The column to rank by, and whether lower values rank first (a rank column).

    Examples
    --------
    >>> from polars_rankk.core.inputs.spec import resolve_ranking_column
    >>> resolve_ranking_column("score", None), resolve_ranking_column("score", "position")
    (('score', False), ('position', True))
    """
    if rank is None:
        return score, False
    if not isinstance(rank, str):
        raise TypeError(f"rank must be a column name (str); got {rank!r}")
    if score != "score":
        raise ValueError(
            f"give either score={score!r} (higher ranks first) or rank={rank!r} (lower ranks "
            f"first), not both"
        )
    return rank, True


def normalize_keys(group_by: str | Sequence[str]) -> tuple[str, ...]:
    """Group keys as a tuple of column names."""
    keys = (group_by,) if isinstance(group_by, str) else tuple(group_by)
    if not keys or not all(isinstance(key, str) for key in keys):
        raise TypeError(f"group_by must be a column name or a list of names; got {group_by!r}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"group_by names a column twice: {list(keys)}")
    return keys


def normalize_k(value: object, name: str = "k") -> int:
    """One cut-off as a Python int >= 1.

    Any integer scalar is accepted — ``int``, ``numpy.int64``, a 0-d integer array (anything
    ``operator.index`` takes); bools and floats, even ``5.0``, raise a TypeError.

    Examples
    --------
    >>> import numpy as np
    >>> from polars_rankk.core import normalize_k
    >>> normalize_k(np.int64(5))
    5
    >>> normalize_k(5.0)
    Traceback (most recent call last):
    ...
    TypeError: k must be an int >= 1; got 5.0 (float); pass the int 5
    """
    dtype = getattr(value, "dtype", None)
    is_bool = isinstance(value, bool) or getattr(dtype, "kind", None) == "b"
    try:
        number = None if is_bool else operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        number = None
    if number is None:
        hint = ""
        if isinstance(value, float) and value.is_integer():
            hint = f"; pass the int {int(value)}"
        raise TypeError(f"{name} must be an int >= 1; got {value!r} ({type(value).__name__}){hint}")
    if number <= 0:
        raise ValueError(f"{name} must be an int >= 1; got {number}")
    return number


def normalize_ks(k: int | Iterable[int]) -> tuple[int, ...]:
    """Cut-offs as a sorted tuple of distinct positive ints.

    ``k`` is one integer scalar (see `normalize_k`) or an iterable of them: a list, a range,
    a ``numpy`` array (``np.arange(1, 11)``), a ``pl.Series``.

    Examples
    --------
    >>> import numpy as np
    >>> from polars_rankk.core import normalize_ks
    >>> normalize_ks(np.arange(1, 4)), normalize_ks(np.int64(5)), normalize_ks([10, 5, 10])
    ((1, 2, 3), (5,), (5, 10))
    """
    if isinstance(k, (str, bytes)):
        raise TypeError(f"k must be an int or a list of ints; got {k!r}")
    if not isinstance(k, Iterable) or getattr(k, "ndim", None) == 0:
        return (normalize_k(k),)
    values = list(k)
    if not values:
        raise ValueError("k must name at least one cut-off, e.g. k=10 or k=[5, 10]")
    return tuple(sorted({normalize_k(value, "every k") for value in values}))


def normalize_metrics(metrics: str | Iterable[str] | None) -> tuple[MetricName, ...]:
    """Canonical metric names in canonical order, from any accepted spelling (``P@5``,
    ``ndcg_cut_10``, ``recip_rank``: docs/metric_names.md); unknown names raise with the valid
    list. None is every metric evaluated by default. Cut-offs and parameters in the names are
    read by `polars_rankk.core.names.parse.resolve_metric_names`.

    Examples
    --------
    >>> from polars_rankk.core.inputs.spec import normalize_metrics
    >>> normalize_metrics(["nDCG@10", "P_5", "recall"])
    ('precision', 'recall', 'ndcg')
    """
    names, _, _ = resolve_metric_names(metrics)
    return names


def _is_stringlike(dtype: pl.DataType) -> bool:
    return dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum))


def _common_id_dtype(
    column: str,
    frames: tuple[pl.LazyFrame, pl.LazyFrame],
    dtypes: tuple[pl.DataType, pl.DataType],
    names: tuple[str, str],
) -> pl.DataType:
    """The dtype both tables' id column is cast to, or a TypeError if they cannot agree."""
    left, right = dtypes
    if left == right and not isinstance(left, (pl.Categorical, pl.Enum)):
        return left
    if left.is_integer() and right.is_integer():
        return pl.Int64()
    if _is_stringlike(left) and _is_stringlike(right):
        return pl.String()
    example_left = example_row(frames[0], pl.lit(True), [column])
    example_right = example_row(frames[1], pl.lit(True), [column])
    raise TypeError(
        f"column {column!r} has dtype {left} in {names[0]} but {right} in {names[1]}; "
        f"ids must have the same type in both tables (e.g. {names[0]} row {example_left} vs "
        f"{names[1]} row {example_right}). Cast one side, e.g. pl.col({column!r}).cast(pl.{right})"
    )


def align_ids(
    left: pl.LazyFrame,
    right: pl.LazyFrame,
    columns: Sequence[str],
    names: tuple[str, str] = ("candidates", "truth"),
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Cast the id columns two tables are joined on to one dtype.

    Integers of any width become Int64, string-like ids (String, Categorical, Enum) String;
    any other mismatch raises a TypeError naming both tables with an example row of each.
    """
    left_schema, right_schema = dict(left.collect_schema()), dict(right.collect_schema())
    casts = {
        column: _common_id_dtype(
            column, (left, right), (left_schema[column], right_schema[column]), names
        )
        for column in columns
    }
    return _cast_if_needed(left, casts, left_schema), _cast_if_needed(right, casts, right_schema)


def check_inputs(
    candidates: FrameLike,
    truth: FrameLike | None,
    *,
    k: int | Iterable[int],
    metrics: str | Iterable[str] | None,
    group_by: str | Sequence[str],
    item: str,
    score: str,
    relevance: str,
    n_relevant: str | None,
    policy: Policy,
    check_values: bool = True,
    rank: str | None = None,
    system: str | None = None,
) -> Spec:
    """Validate the inputs of `evaluate` and resolve them into a `Spec`.

    `rank` names a rank column (1 = best) to rank by instead of a score: it takes the place of
    `score`, which must then be left at its default. `system` names a candidates column that
    tells systems apart: it becomes the first group key, and a truth table without it is
    shared by every system.
    """
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a polars_rankk.Policy; got {type(policy).__name__}")
    score, lower_is_better = resolve_ranking_column(score, rank)
    is_lazy = isinstance(candidates, pl.LazyFrame) or isinstance(truth, pl.LazyFrame)
    keys = normalize_keys(group_by)
    # Names may carry a cut-off (P@5 adds K=5) and parameters that set policy fields.
    metric_names, named_ks, policy = resolve_metric_names(metrics, policy)
    whole = whole_list_metrics(metrics)  # trec_eval's map: the whole list, no K
    ks = tuple(sorted({*normalize_ks(k), *named_ks}))
    for name, value in (("item", item), ("score", score), ("relevance", relevance)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a column name (str); got {value!r}")
        if value in keys:
            raise ValueError(f"{name}={value!r} is also a group_by key; they must differ")

    candidates_lf = to_lazy(candidates, "candidates")
    truth_lf = None if truth is None else to_lazy(truth, "truth")
    candidate_hints = index_hints(candidates, "candidates")
    truth_hints = index_hints(truth, "truth")
    if system is not None:
        keys, truth_lf = _with_system(system, keys, (item, score, relevance), candidates_lf,
                                      truth_lf)  # fmt: skip
    # Ranked list columns become one row per item; without a score list the list order is the
    # ranking (a score of -position). A rank column (lower first) is only ever exploded.
    empty_candidates = empty_list_groups(candidates_lf, keys, item)
    empty_truth = None if truth_lf is None else empty_list_groups(truth_lf, keys, item)
    candidates_lf = long_form(
        candidates_lf,
        "candidates",
        keys=keys,
        item=item,
        parallel=[score, relevance, *([n_relevant] if n_relevant else [])],
        ranking=None if lower_is_better else score,
        check_values=check_values,
        rank=score if lower_is_better else None,
    )
    if truth_lf is not None:
        truth_lf = long_form(
            truth_lf, "truth", keys=keys, item=item, parallel=[relevance], check_values=check_values
        )

    required = dict.fromkeys(keys, "a group key")
    required[item] = "the item id"
    required[score] = (
        "the rank of each item (lower ranks first)"
        if lower_is_better
        else "the model's score (higher ranks first)"
    )
    if not lower_is_better:
        candidate_hints[score] = _rank_hint(candidates_lf, score)
    cand_schema = require_columns(candidates_lf, "candidates", required, candidate_hints)
    labelled = relevance in cand_schema
    if labelled and truth_lf is not None:
        # The truth passed beside the candidates decides what is relevant.
        warnings.warn(
            f"candidates carry a {relevance!r} column and a truth table was passed: the "
            f"truth's grades are used and the candidates' {relevance!r} column is ignored. To "
            f"rank by the candidates' own labels, pass truth=None (with n_relevant=... for "
            f"relevant items they miss); else drop or rename the column",
            IgnoredColumnWarning,
            stacklevel=3,
        )
        candidates_lf = candidates_lf.drop(relevance)
        labelled = False
    show_cand = [*keys, item, score] + ([relevance] if labelled else [])
    check_numeric(
        candidates_lf,
        "candidates",
        score,
        cand_schema[score],
        "a rank" if lower_is_better else "a score",
        show_cand,
    )
    if labelled:
        check_numeric(
            candidates_lf, "candidates", relevance, cand_schema[relevance], "a grade", show_cand
        )
    if n_relevant is not None:
        if truth_lf is not None:
            raise ValueError(
                "give either a truth table or an n_relevant column, not both: "
                "with a truth table R_g is counted from the truth"
            )
        if not labelled:
            raise ValueError(
                f"n_relevant={n_relevant!r} needs pre-labelled candidates (a {relevance!r} column)"
            )
        require_columns(candidates_lf, "candidates", {n_relevant: "R_g, the relevant count"})
        check_numeric(
            candidates_lf, "candidates", n_relevant, cand_schema[n_relevant], "a count", show_cand
        )
    if truth_lf is None and not labelled:
        raise ValueError(
            f"no truth table and the candidates carry no {relevance!r} column: give truth=..., "
            f"or label the candidates with a relevance column (relevance=...)"
        )

    truth_graded = False
    if truth_lf is not None:
        truth_required = dict.fromkeys(keys, "a group key")
        truth_required[item] = "the item id"
        truth_schema = require_columns(truth_lf, "truth", truth_required, truth_hints)
        truth_graded = relevance in truth_schema
        if not truth_graded and not labelled:
            _check_unused_grades(truth_schema, keys, item, relevance)
        show_truth = [*keys, item] + ([relevance] if truth_graded else [])
        if truth_graded:
            check_numeric(
                truth_lf, "truth", relevance, truth_schema[relevance], "a grade", show_truth
            )
        candidates_lf, truth_lf = align_ids(candidates_lf, truth_lf, [*keys, item])

    if check_values:
        _check_candidate_values(
            candidates_lf, keys, item, score, relevance if labelled else None, n_relevant, policy
        )
        if policy.duplicates == "first" and system is None:
            named = (*keys, item, score, relevance, *([n_relevant] if n_relevant else []))
            _warn_pooled_labels(candidates_lf, keys, item, named)
        if truth_lf is not None:
            _check_truth_values(truth_lf, keys, item, relevance if truth_graded else None)

    spec = Spec(
        empty_candidate_groups=_keys_as(empty_candidates, candidates_lf, keys),
        empty_truth_groups=None if truth_lf is None else _keys_as(empty_truth, truth_lf, keys),
        candidates=candidates_lf,
        truth=truth_lf,
        keys=keys,
        item=item,
        score=score,
        relevance=relevance,
        labelled=labelled,
        truth_graded=truth_graded,
        n_relevant=n_relevant,
        ks=ks,
        metrics=metric_names,
        policy=policy,
        is_lazy=is_lazy,
        lower_is_better=lower_is_better,
        system=system,
        whole_list=whole.metrics,
        whole_list_only=whole.only,
    )
    _check_output_names(spec)
    return spec


#: Column names that usually hold a rank (lower first), for the hint when the score is missing.
_RANK_NAMES = ("rank", "position", "pos", "ranking")


def _rank_hint(frame: pl.LazyFrame, score: str) -> str:
    """What to say when the score column is missing and a rank-like column is present."""
    names = frame.collect_schema().names()
    found = [name for name in names if name.lower() in _RANK_NAMES]
    if not found:
        return ""
    return (
        f"; to rank by {found[0]!r} (1 = best, lower ranks first), pass rank={found[0]!r}, "
        f"or name the score column with score=..."
    )


class IgnoredColumnWarning(UserWarning):
    """A column of the input that looks meaningful was not used: a numeric truth column when
    no relevance column was named, or a label column (a system name) pooled by
    de-duplication."""


class EmptyResultWarning(UserWarning):
    """A result has no rows, and this says why (an empty split, no group evaluated)."""


#: The default relevance column: a table without it is ungraded; any other name must exist.
DEFAULT_RELEVANCE = "relevance"


def _check_unused_grades(
    schema: dict[str, pl.DataType], keys: Sequence[str], item: str, relevance: str
) -> None:
    """A relevance column named but absent raises; an absent default with a numeric truth
    column left over warns (every truth row then counts as grade 1)."""
    ids = {*keys, item}
    unused = [name for name, dtype in schema.items() if name not in ids and dtype.is_numeric()]
    if relevance != DEFAULT_RELEVANCE:
        hint = f"; to grade by {unused[0]!r}, pass relevance={unused[0]!r}" if unused else ""
        raise ValueError(
            f"relevance={relevance!r} is not a column of the truth (nor of the candidates); "
            f"the truth's columns are {list(schema)}{hint}"
        )
    if unused:
        listed = ", ".join(repr(name) for name in unused)
        warnings.warn(
            f"truth has no {relevance!r} column, so every truth row counts as relevant "
            f"(grade 1) and its numeric column {listed} is not used; to grade by it, pass "
            f"relevance={unused[0]!r}",
            IgnoredColumnWarning,
            stacklevel=4,
        )


def label_columns(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, named: Sequence[str]
) -> dict[str, int]:
    """String columns besides `named` whose value differs between rows of one (group, item):
    a label such as a system name, which de-duplication would pool. By column, the rows of
    the (group, item) pairs where it differs.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.inputs.spec import label_columns
    >>> runs = pl.LazyFrame({"run": ["A", "B", "B"], "q": [1, 1, 1], "item": [1, 1, 2],
    ...                      "score": [0.5, 0.2, 0.1]})
    >>> label_columns(runs, ["q"], "item", ["q", "item", "score"])
    {'run': 2}
    """
    schema = frame.collect_schema()
    columns = [
        name for name, dtype in schema.items() if name not in named and _is_stringlike(dtype)
    ]
    if not columns:
        return {}
    pair = [*keys, item]
    counts = (
        frame.group_by(pair)
        .agg(pl.len().alias("_rk_rows"), *(pl.col(c).n_unique().alias(c) for c in columns))
        .select((pl.when(pl.col(c) > 1).then(pl.col("_rk_rows")).sum()).alias(c) for c in columns)
        .collect()
    )
    return {c: int(counts.item(0, c) or 0) for c in columns if counts.item(0, c)}


def _warn_pooled_labels(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, named: Sequence[str]
) -> None:
    for column, rows in label_columns(frame, keys, item, named).items():
        warnings.warn(
            f"candidates: {rows:,} rows share a (group, {item!r}) pair with a row whose "
            f"{column!r} differs, and Policy(duplicates='first') keeps only the highest-scored "
            f"copy, pooling them into one ranking. If {column!r} names the system of each "
            f"row, pass system={column!r} to evaluate each system on its own",
            IgnoredColumnWarning,
            stacklevel=4,
        )


def _with_system(
    system: str,
    keys: tuple[str, ...],
    columns: tuple[str, ...],
    candidates: pl.LazyFrame,
    truth: pl.LazyFrame | None,
) -> tuple[tuple[str, ...], pl.LazyFrame | None]:
    """The keys with the system column first, and the truth shared by every system.

    A truth table without the system column applies to every system: it is crossed with the
    systems of the candidates (a handful of names), so each (system, group) has its truth.
    """
    if not isinstance(system, str):
        raise TypeError(f"system must be a column name (str); got {system!r}")
    if system in keys or system in columns:
        raise ValueError(
            f"system={system!r} is also a group_by key or the item/score/relevance column; "
            f"it must name the column that tells the systems apart"
        )
    schema = candidates.collect_schema()
    if system not in schema:
        raise ValueError(
            f"system={system!r} is not a column of the candidates; its columns are {schema.names()}"
        )
    if truth is not None and system not in truth.collect_schema():
        names = candidates.select(pl.col(system).unique())
        truth = truth.join(names, how="cross")
    return (system, *keys), truth


def _keys_as(
    groups: pl.LazyFrame | None, frame: pl.LazyFrame, keys: Sequence[str]
) -> pl.LazyFrame | None:
    """`groups` with the key dtypes of `frame` (after the ids were aligned)."""
    if groups is None:
        return None
    schema = frame.collect_schema()
    return groups.with_columns(pl.col(key).cast(schema[key]) for key in keys)


def _cast_if_needed(
    frame: pl.LazyFrame, casts: dict[str, pl.DataType], schema: dict[str, pl.DataType]
) -> pl.LazyFrame:
    changed = [pl.col(c).cast(dtype) for c, dtype in casts.items() if schema[c] != dtype]
    return frame.with_columns(changed) if changed else frame


def _null_checks(keys: Sequence[str], item: str) -> list[tuple[str, pl.Expr, str]]:
    return [
        (column, pl.col(column).is_null(), f"column {column!r} ({meaning}) must not be null")
        for column, meaning in [*((key, "a group key") for key in keys), (item, "the item id")]
    ]


def _grade_checks(column: str) -> list[tuple[str, pl.Expr, str]]:
    grade = pl.col(column).cast(pl.Float64)
    return [
        (column, grade.is_null(), f"column {column!r} (a relevance grade) must not be null"),
        (column, grade.is_nan(), f"column {column!r} (a relevance grade) must not be NaN"),
    ]


def _check_candidate_values(
    frame: pl.LazyFrame,
    keys: Sequence[str],
    item: str,
    score: str,
    relevance: str | None,
    n_relevant: str | None,
    policy: Policy,
) -> None:
    checks = _null_checks(keys, item)
    if policy.invalid_scores == "error":
        value = pl.col(score).cast(pl.Float64)
        checks.append(
            (
                score,
                value.is_null() | ~value.is_finite(),
                f"column {score!r} must hold finite numbers (null, NaN and inf are invalid "
                f"scores; Policy(invalid_scores='drop' or 'lowest') handles them)",
            )
        )
    if relevance is not None:
        checks += _grade_checks(relevance)
    if n_relevant is not None:
        count = pl.col(n_relevant)
        checks.append(
            (
                n_relevant,
                count.is_null() | (count.cast(pl.Float64) < 0) | (count.n_unique().over(keys) > 1),
                f"column {n_relevant!r} must be a non-null count >= 0, the same on every row "
                f"of a group",
            )
        )
    show = [*keys, item, score] + [c for c in (relevance, n_relevant) if c is not None]
    value_checks(frame, "candidates", checks, show)
    if policy.duplicates == "error":
        duplicated = pl.len().over([*keys, item]) > 1
        count = frame.select(duplicated.sum()).collect().item()
        if count:
            example = example_row(frame, duplicated, show)
            raise ValueError(
                f"candidates: (group, {item!r}) pairs repeat ({count} rows) and "
                f"Policy(duplicates='error') forbids it, e.g. {example}; "
                f"use duplicates='first' to keep the highest-scored copy"
            )


def _check_truth_values(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, relevance: str | None
) -> None:
    checks = _null_checks(keys, item)
    if relevance is not None:
        checks += _grade_checks(relevance)
    show = [*keys, item] + ([relevance] if relevance is not None else [])
    value_checks(frame, "truth", checks, show)
