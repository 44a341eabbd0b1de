"""Arguments as the library uses them: cut-offs, group keys, metric names, the ranking
column, and the id columns two tables are joined on cast to one dtype."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

from polars_rankk.core.inputs.checks import example_row
from polars_rankk.core.names.request import Request
from polars_rankk.core.types import MetricName


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


def column_name(value: object, what: str) -> str:
    """A column argument of a function that takes tables, as the column's name: a ``str``, or
    a plain ``pl.col("name")`` (read as ``"name"``). Any other expression — computed, renamed,
    several columns — is refused in words: such a column goes into the table first. (The
    expression functions, ``rk.ndcg_at_k`` and the like, take any expression.)

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.inputs.normalize import column_name
    >>> column_name("score", "score"), column_name(pl.col("score"), "score")
    ('score', 'score')
    >>> column_name(pl.col("score") * 2, "score")
    Traceback (most recent call last):
    ...
    TypeError: score must be a column name (str) or pl.col(name); got the expression ...
    """
    if isinstance(value, str):
        return value
    if isinstance(value, pl.Expr):
        if value.meta.is_column():
            return value.meta.output_name()
        raise TypeError(
            f"{what} must be a column name (str) or pl.col(name); got the expression {value}: "
            f"add the column to the table first (frame.with_columns(...)) and pass its name"
        )
    raise TypeError(f"{what} must be a column name (str); got {value!r}")


def optional_column(value: object, what: str) -> str | None:
    """`column_name` of an optional column argument (None stays None)."""
    return None if value is None else column_name(value, what)


def normalize_keys(group_by: str | pl.Expr | Sequence[str | pl.Expr]) -> tuple[str, ...]:
    """Group keys as a tuple of column names (each a name or a plain ``pl.col(name)``)."""
    if isinstance(group_by, (str, pl.Expr)):
        group_by = [group_by]
    if not isinstance(group_by, Sequence) or not group_by:
        raise TypeError(f"group_by must be a column name or a list of names; got {group_by!r}")
    keys = tuple(column_name(key, "every group_by key") for key in group_by)
    if len(set(keys)) != len(keys):
        raise ValueError(f"group_by names a column twice: {list(keys)}")
    return keys


def require_group_by(
    group_by: str | Sequence[str] | None, candidates: object
) -> str | Sequence[str]:
    """`group_by` as given, or a TypeError that names the candidates' columns (and the
    ``query`` column of `polars_rankk.io.read_trec_run`'s tables, when they have it).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.inputs.normalize import require_group_by
    >>> run = pl.LazyFrame({"query": ["q1"], "item": ["d1"], "score": [1.0]})
    >>> require_group_by(None, run)
    Traceback (most recent call last):
    ...
    TypeError: evaluate needs group_by=..., the column(s) naming each ranked list; ...
    name it 'query', so pass group_by='query'
    """
    if group_by is not None:
        return group_by
    from polars_rankk.core.inputs.frames import to_lazy

    columns = to_lazy(candidates, "candidates").collect_schema().names()
    hint = (
        ": the TREC readers (rk.read_trec_run, rk.read_trec_qrels) name it 'query', so pass "
        "group_by='query'"
        if "query" in columns
        else ""
    )
    raise TypeError(
        f"evaluate needs group_by=..., the column(s) naming each ranked list; the "
        f"candidates' columns are {columns}{hint}"
    )


def normalize_metrics(metrics: str | Iterable[str] | None) -> tuple[MetricName, ...]:
    """Canonical metric names in canonical order, from any accepted spelling (``P@5``,
    ``ndcg_cut_10``, ``recip_rank``: docs/metric_names.md); unknown names raise with the valid
    list. None is every metric evaluated by default. Cut-offs and parameters in the names are
    read by `polars_rankk.core.names.request.Request`.

    Examples
    --------
    >>> from polars_rankk.core.inputs.spec import normalize_metrics
    >>> normalize_metrics(["nDCG@10", "P_5", "recall"])
    ('precision', 'recall', 'ndcg')
    """
    if isinstance(metrics, Request):
        return metrics.metrics  # a path's parsed request, checked where it was planned
    request = Request.of(metrics)
    request.policy()  # names that set one policy field two ways are refused
    return request.metrics


def is_stringlike(dtype: pl.DataType) -> bool:
    return dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum))


def _common_integer(left: pl.DataType, right: pl.DataType) -> pl.DataType:
    """Integers of any width as Int64, but ids beyond Int64 kept: UInt64 beside another
    unsigned type stays UInt64, beside a signed one both become Int128 (which holds both)."""
    if pl.UInt64() not in (left, right):
        return pl.Int64()
    if left.is_unsigned_integer() and right.is_unsigned_integer():
        return pl.UInt64()
    return pl.Int128()


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
        return _common_integer(left, right)
    if is_stringlike(left) and is_stringlike(right):
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

    Integers of any width become Int64 (UInt64 ids stay UInt64 beside unsigned ones, Int128
    beside signed ones, so no id beyond Int64 is lost), string-like ids (String, Categorical,
    Enum) String; any other mismatch raises a TypeError naming both tables with an example
    row of each.
    """
    left_schema, right_schema = dict(left.collect_schema()), dict(right.collect_schema())
    casts = {
        column: _common_id_dtype(
            column, (left, right), (left_schema[column], right_schema[column]), names
        )
        for column in columns
    }
    return cast_if_needed(left, casts, left_schema), cast_if_needed(right, casts, right_schema)


def cast_if_needed(
    frame: pl.LazyFrame, casts: dict[str, pl.DataType], schema: dict[str, pl.DataType]
) -> pl.LazyFrame:
    changed = [pl.col(c).cast(dtype) for c, dtype in casts.items() if schema[c] != dtype]
    return frame.with_columns(changed) if changed else frame
