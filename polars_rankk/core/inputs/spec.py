"""Schema and value checks, raised as clear errors before any metric is computed.

Every error names the table and the column, says what was expected, and shows one offending
row, so that nothing surfaces later as a Polars exception from the middle of a query.
`check_inputs` checks the candidates, then the truth, then the pair; the argument normalising
is `polars_rankk.core.inputs.normalize`, the value checks `polars_rankk.core.inputs.values`.
"""

from __future__ import annotations

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
from polars_rankk.core.inputs.normalize import (
    align_ids,
    column_name,
    normalize_keys,
    normalize_metrics,
    optional_column,
    resolve_ranking_column,
)
from polars_rankk.core.inputs.passage_guard import warn_passage_ids
from polars_rankk.core.inputs.values import (
    DEFAULT_RELEVANCE,
    EmptyResultWarning,
    IgnoredColumnWarning,
    check_candidate_values,
    check_truth_values,
    check_unused_grades,
    label_columns,
    warn_pooled_labels,
)
from polars_rankk.core.names.cutoffs import normalize_k, normalize_ks
from polars_rankk.core.names.request import Request
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike, MetricName

__all__ = [
    "DEFAULT_RELEVANCE",
    "EmptyResultWarning",
    "IgnoredColumnWarning",
    "Spec",
    "align_ids",
    "check_inputs",
    "check_numeric",
    "check_one_row_per_group",
    "example_row",
    "label_columns",
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
    #: The (metric, K) the results report (`polars_rankk.core.names.cells`); None: every
    #: metric at every K.
    cells: tuple[tuple[str, int | None], ...] | None = None
    #: The inputs' values were checked (`check_values`): grades are finite and not null.
    values_checked: bool = False
    #: Under ``fractional_grades="truncate"``: a one-row count (``fractional_grades``) of the
    #: grades given that were not integers (the tables above hold them truncated).
    fractional_grades: pl.LazyFrame | None = None
    #: The per-rank term rows are read beside the sums (a K-curve, planned at every K): a
    #: lazy evaluation on the kernel takes both from one ranking of each group.
    term_rows: bool = False
    #: The ranks whose items the kernel's ranking pass lists per group beside the sums
    #: (`polars_rankk.core.kernel.places`), for a reader of the items' places; 0: none.
    places: int = 0

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


@dataclass
class _Tables:
    """The two tables as `check_inputs` reads them, from one step to the next."""

    candidates: pl.LazyFrame
    truth: pl.LazyFrame | None
    keys: tuple[str, ...]
    item: str
    score: str
    relevance: str
    n_relevant: str | None
    lower_is_better: bool
    check_values: bool
    labelled: bool = False
    truth_graded: bool = False


def check_inputs(
    candidates: FrameLike,
    truth: FrameLike | None,
    *,
    k: int | Iterable[int],
    metrics: Request | None,
    group_by: str | Sequence[str],
    item: str,
    score: str,
    relevance: str,
    n_relevant: str | None,
    policy: Policy,
    check_values: bool = True,
    rank: str | None = None,
    system: str | None = None,
    cells: tuple[tuple[str, int | None], ...] | None = None,
) -> Spec:
    """Validate the inputs of `evaluate` and resolve them into a `Spec`.

    `rank` names a rank column (1 = best) to rank by instead of a score: it takes the place of
    `score`, which must then be left at its default. `system` names a candidates column that
    tells systems apart: it becomes the first group key, and a truth table without it is
    shared by every system. What to compute is the plan's (`polars_rankk.core.names.plan`):
    `metrics` a part's names (None: the default metrics), `k` every cut-off, `policy` the
    part's and `cells` the (metric, K) it reports, all read already.
    """
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a polars_rankk.Policy; got {type(policy).__name__}")
    item, score, relevance = (
        column_name(item, "item"), column_name(score, "score"), column_name(relevance, "relevance")
    )  # fmt: skip
    rank, n_relevant = optional_column(rank, "rank"), optional_column(n_relevant, "n_relevant")
    system = optional_column(system, "system")
    score, lower_is_better = resolve_ranking_column(score, rank)
    is_lazy = isinstance(candidates, pl.LazyFrame) or isinstance(truth, pl.LazyFrame)
    keys = normalize_keys(group_by)
    # What to compute was planned (`Plan`): the part's names, every cut-off, its policy.
    request = Request.of(metrics)
    whole = request.whole_list  # trec_eval's map: the whole list, no K
    ks = normalize_ks(k)
    for name, value in (("item", item), ("score", score), ("relevance", relevance)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a column name (str); got {value!r}")
        if value in keys:
            raise ValueError(f"{name}={value!r} is also a group_by key; they must differ")

    candidates_lf = to_lazy(candidates, "candidates")
    truth_lf = None if truth is None else to_lazy(truth, "truth")
    if system is not None:
        keys, truth_lf = _with_system(system, keys, (item, score, relevance), candidates_lf,
                                      truth_lf)  # fmt: skip
    empty_candidates = empty_list_groups(candidates_lf, keys, item)
    empty_truth = None if truth_lf is None else empty_list_groups(truth_lf, keys, item)
    tables = _Tables(
        candidates_lf, truth_lf, keys, item, score, relevance, n_relevant, lower_is_better,
        check_values,
    )  # fmt: skip
    _check_candidates(tables, index_hints(candidates, "candidates"))
    _check_truth(tables, index_hints(truth, "truth"))
    _check_pair(tables, policy, system)
    fractional = _truncated_grades(tables) if policy.fractional_grades == "truncate" else None
    if check_values:
        warn_passage_ids(tables.candidates, tables.truth, item)

    spec = Spec(
        empty_candidate_groups=_keys_as(empty_candidates, tables.candidates, keys),
        empty_truth_groups=None
        if tables.truth is None
        else _keys_as(empty_truth, tables.truth, keys),
        candidates=tables.candidates,
        truth=tables.truth,
        keys=keys,
        item=item,
        score=score,
        relevance=relevance,
        labelled=tables.labelled,
        truth_graded=tables.truth_graded,
        n_relevant=n_relevant,
        ks=ks,
        metrics=request.metrics,
        policy=policy,
        is_lazy=is_lazy,
        lower_is_better=lower_is_better,
        system=system,
        whole_list=whole.metrics,
        whole_list_only=whole.only,
        cells=cells,
        values_checked=check_values,
        fractional_grades=fractional,
    )
    _check_output_names(spec)
    return spec


def truncated_grade(grade: pl.Expr) -> pl.Expr:
    """`grade` truncated toward zero, as trec_eval reads a grade (``atol``) and
    ``Policy(fractional_grades="truncate")`` asks."""
    return grade.cast(pl.Int64, strict=False)


def _truncated_grades(tables: _Tables) -> pl.LazyFrame:
    """Truncate the grades given (the truth's, or labelled candidates') toward zero, as
    trec_eval reads a grade (``atol``: 0.5 is 0, -1.5 is -1), in `tables`; the count of
    those that were not integers, as a one-row query."""
    grade = pl.col(tables.relevance)
    fractional = (grade != grade.cast(pl.Int64, strict=False)).sum().cast(pl.Int64)
    counts: list[pl.LazyFrame] = []
    for role in ("truth", "candidates"):
        frame: pl.LazyFrame | None = getattr(tables, role)
        graded = tables.truth_graded if role == "truth" else tables.labelled
        if frame is None or not graded or not frame.collect_schema()[tables.relevance].is_float():
            continue
        counts.append(frame.select(fractional.alias("fractional_grades")))
        setattr(tables, role, frame.with_columns(truncated_grade(grade)))
    if not counts:
        return pl.LazyFrame({"fractional_grades": [0]}, schema={"fractional_grades": pl.Int64})
    total: pl.LazyFrame = pl.concat(counts).select(pl.col("fractional_grades").sum())
    return total


def _check_candidates(tables: _Tables, hints: dict[str, str]) -> None:
    """The candidates in long form, their columns and dtypes checked; `tables.labelled` says
    whether they carry their own labels (dropped, with a warning, when a truth is given)."""
    t = tables
    # Ranked list columns become one row per item; without a score list the list order is the
    # ranking (a score of -position). A rank column (lower first) is only ever exploded.
    t.candidates = long_form(
        t.candidates,
        "candidates",
        keys=t.keys,
        item=t.item,
        parallel=[t.score, t.relevance, *([t.n_relevant] if t.n_relevant else [])],
        ranking=None if t.lower_is_better else t.score,
        check_values=t.check_values,
        rank=t.score if t.lower_is_better else None,
    )
    required = dict.fromkeys(t.keys, "a group key")
    required[t.item] = "the item id"
    required[t.score] = (
        "the rank of each item (lower ranks first)"
        if t.lower_is_better
        else "the model's score (higher ranks first)"
    )
    if not t.lower_is_better:
        hints[t.score] = _rank_hint(t.candidates, t.score)
    schema = require_columns(t.candidates, "candidates", required, hints)
    t.labelled = t.relevance in schema
    if t.labelled and t.truth is not None:
        # The truth passed beside the candidates decides what is relevant.
        warnings.warn(
            f"candidates carry a {t.relevance!r} column and a truth table was passed: the "
            f"truth's grades are used and the candidates' {t.relevance!r} column is ignored. To "
            f"rank by the candidates' own labels, pass truth=None (with n_relevant=... for "
            f"relevant items they miss); else drop or rename the column",
            IgnoredColumnWarning,
            stacklevel=4,
        )
        t.candidates = t.candidates.drop(t.relevance)
        t.labelled = False
    show = [*t.keys, t.item, t.score] + ([t.relevance] if t.labelled else [])
    what = "a rank" if t.lower_is_better else "a score"
    check_numeric(t.candidates, "candidates", t.score, schema[t.score], what, show)
    if t.labelled:
        check_numeric(t.candidates, "candidates", t.relevance, schema[t.relevance], "a grade", show)
    if t.n_relevant is not None:
        if t.truth is not None:
            raise ValueError(
                "give either a truth table or an n_relevant column, not both: "
                "with a truth table R_g is counted from the truth"
            )
        if not t.labelled:
            raise ValueError(
                f"n_relevant={t.n_relevant!r} needs pre-labelled candidates (a {t.relevance!r} "
                f"column)"
            )
        require_columns(t.candidates, "candidates", {t.n_relevant: "R_g, the relevant count"})
        check_numeric(
            t.candidates, "candidates", t.n_relevant, schema[t.n_relevant], "a count", show
        )
    if t.truth is None and not t.labelled:
        raise ValueError(
            f"no truth table and the candidates carry no {t.relevance!r} column: give "
            f"truth=..., or label the candidates with a relevance column (relevance=...)"
        )


def _check_truth(tables: _Tables, hints: dict[str, str]) -> None:
    """The truth in long form, its columns and grades checked; `tables.truth_graded` says
    whether it has a relevance column. The ids of both tables are cast to one dtype."""
    t = tables
    if t.truth is None:
        return
    t.truth = long_form(
        t.truth,
        "truth",
        keys=t.keys,
        item=t.item,
        parallel=[t.relevance],
        check_values=t.check_values,
    )
    required = dict.fromkeys(t.keys, "a group key")
    required[t.item] = "the item id"
    schema = require_columns(t.truth, "truth", required, hints)
    t.truth_graded = t.relevance in schema
    if not t.truth_graded and not t.labelled:
        check_unused_grades(schema, t.keys, t.item, t.relevance)
    if t.truth_graded:
        show = [*t.keys, t.item, t.relevance]
        check_numeric(t.truth, "truth", t.relevance, schema[t.relevance], "a grade", show)
    t.candidates, t.truth = align_ids(t.candidates, t.truth, [*t.keys, t.item])


def _check_pair(tables: _Tables, policy: Policy, system: str | None) -> None:
    """The values of both tables (nulls, NaN, invalid scores, duplicates), when asked for."""
    t = tables
    if not t.check_values:
        return
    relevance = t.relevance if t.labelled else None
    check_candidate_values(t.candidates, t.keys, t.item, t.score, relevance, t.n_relevant, policy)
    if policy.duplicates == "first" and system is None:
        extra = [t.n_relevant] if t.n_relevant else []
        named = (*t.keys, t.item, t.score, t.relevance, *extra)
        warn_pooled_labels(t.candidates, t.keys, t.item, named)
    if t.truth is not None:
        check_truth_values(t.truth, t.keys, t.item, t.relevance if t.truth_graded else None)


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
