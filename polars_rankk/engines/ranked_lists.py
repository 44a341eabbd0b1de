"""Ranked-list inputs (``evaluate``'s list columns) on the engines that split the groups.

`evaluate` takes candidates and truth as one row per group holding a list of items (and
parallel lists of scores or grades); its long form has one row per item, and a group whose
list is empty has no row there at all. An engine that moves long-form rows (the buckets, Dask)
carries the groups of empty lists as rows of their own and, for each part it evaluates, puts
the rows back in list form (`with_empty_lists`), so that `evaluate` sees every group as it sees
it in the whole input.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core import check_one_row_per_group
from polars_rankk.core.inputs.frames import long_form

#: Tag column of the engines' union of candidates and truth (see `partition.TAG`).
TAG = "_rk_tag"
#: With ranked lists ordered by position (no score list): which input list a row came from,
#: so that a partition can refuse a group with two lists as `evaluate` does.
LIST_ID = "_rk_list"


def is_list(dtype: pl.DataType | None) -> bool:
    """Whether a column holds lists (a ranked list of items, or values parallel to one)."""
    return isinstance(dtype, (pl.List, pl.Array))


def with_empty_lists(
    rows: pl.DataFrame, empty: pl.DataFrame | None, lists: Sequence[str]
) -> pl.DataFrame:
    """Long-form rows back in ranked-list form: each row a one-item list (the `lists`
    columns), each group of `empty` (keys only) an empty list.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.engines.ranked_lists import with_empty_lists
    >>> rows = pl.DataFrame({"user": [1, 1], "item": [3, 4]})
    >>> with_empty_lists(rows, pl.DataFrame({"user": [2]}), ["item"])["item"].to_list()
    [[3], [4], []]
    """
    wrapped = rows.with_columns(pl.concat_list(pl.col(column)) for column in lists)
    if empty is None or empty.height == 0:
        return wrapped
    nothing = empty.with_columns(
        pl.lit([], dtype=wrapped.schema[column]).alias(column) for column in lists
    )
    return pl.concat([wrapped, nothing], how="diagonal_relaxed")


def long_rows(
    frame: pl.DataFrame,
    *,
    side: int,
    keys: Sequence[str],
    item: str,
    score: str,
    parallel: Sequence[str],
    positional: bool,
    check_values: bool,
    first_list: int = 0,
) -> pl.DataFrame:
    """One input partition of ranked lists (`side` 0 candidates, 1 truth) as union rows: one
    row per item (`TAG` `side`), converted as `evaluate` converts them, and one keys-only row
    per group whose list is empty (`TAG` ``side + 2``). With `positional` candidates (the list
    order is the ranking) every row carries its list's number (`LIST_ID`, from `first_list`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.engines.ranked_lists import long_rows
    >>> lists = pl.DataFrame({"user": [1, 2], "item": [["b", "a"], []]})
    >>> long_rows(lists, side=0, keys=["user"], item="item", score="score", parallel=[],
    ...           positional=True, check_values=True).rows()
    [(1, 'b', 0, -1, 0), (1, 'a', 0, -2, 0), (2, None, 1, None, 2)]
    """
    table = "candidates" if side == 0 else "truth"
    lazy = frame.lazy()
    if positional:
        lazy = lazy.with_columns(
            (pl.int_range(pl.len(), dtype=pl.Int64) + first_list).alias(LIST_ID)
        )
    long = long_form(
        lazy,
        table,
        keys=keys,
        item=item,
        parallel=list(parallel),
        ranking=score if side == 0 else None,
        check_values=check_values,
    ).with_columns(pl.lit(side, dtype=pl.Int8).alias(TAG))
    dtype = frame.schema[item]
    items = pl.col(item)
    length = items.arr.len() if isinstance(dtype, pl.Array) else items.list.len()
    empty = lazy.filter(length.fill_null(0) == 0).select(
        *keys, *([LIST_ID] if positional else []), pl.lit(side + 2, dtype=pl.Int8).alias(TAG)
    )
    return pl.concat([long, empty], how="diagonal_relaxed").collect()


def check_one_list(frame: pl.DataFrame, keys: Sequence[str]) -> None:
    """Refuse, as `evaluate` does, a group with two candidate lists when the list order is
    the ranking (rows of the union, with `LIST_ID`)."""
    lists = frame.filter(pl.col(TAG).is_in([0, 2])).select(*keys, LIST_ID).unique()
    try:
        check_one_row_per_group(lists, keys, "candidates")
    except ValueError as error:
        raise ValueError(
            f"{error}; with ranked list columns and no score list, the list order is the "
            f"ranking, so each group needs exactly one list"
        ) from None


def refuse_ranked_lists(
    engine: str,
    schemas: dict[str, dict[str, pl.DataType] | None],
    item: str,
    instead: str,
) -> None:
    """Raise a ValueError naming the table and column when an item column holds ranked lists,
    which `engine` does not take; `instead` says what to do.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.engines.ranked_lists import refuse_ranked_lists
    >>> refuse_ranked_lists("engine", {"truth": {"item": pl.List(pl.Int64)}}, "item", "Explode.")
    Traceback (most recent call last):
    ...
    ValueError: engine: truth column 'item' holds ranked lists (List(Int64)); engine takes ...
    """
    for table, schema in schemas.items():
        if schema is not None and is_list(schema.get(item)):
            raise ValueError(
                f"{engine}: {table} column {item!r} holds ranked lists ({schema[item]}); "
                f"{engine} takes one row per (group, item). {instead}"
            )


def list_fields(
    candidates_schema: dict[str, pl.DataType],
    truth_schema: dict[str, pl.DataType] | None,
    item: str,
    score: str,
) -> tuple[bool, bool, bool]:
    """The `PartitionJob` fields for inputs whose item columns may hold ranked lists (the
    driver's schemas, before long form): ``candidate_lists``, ``truth_lists`` and
    ``positional`` (the candidates' list order is the ranking: no score column).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.engines.ranked_lists import list_fields
    >>> list_fields({"user": pl.Int64, "item": pl.List(pl.Int64)}, None, "item", "score")
    (True, False, True)
    """
    lists = is_list(candidates_schema.get(item))
    truth_lists = truth_schema is not None and is_list(truth_schema.get(item))
    return lists, truth_lists, lists and score not in candidates_schema
