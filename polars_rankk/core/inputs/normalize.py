"""Arguments as the library uses them: cut-offs, group keys, metric names, the ranking
column, and the id columns two tables are joined on cast to one dtype."""

from __future__ import annotations

import operator
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
    read by `polars_rankk.core.names.request.Request`.

    Examples
    --------
    >>> from polars_rankk.core.inputs.spec import normalize_metrics
    >>> normalize_metrics(["nDCG@10", "P_5", "recall"])
    ('precision', 'recall', 'ndcg')
    """
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
