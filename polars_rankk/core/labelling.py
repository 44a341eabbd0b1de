"""`label`: candidates labelled from a truth table, ready for the expression API.

On candidates left-joined with the truth, the expressions (``rk.ndcg_at_k`` ...) see only the
labelled rows, so R_g would count only the relevant items the model happened to retrieve, and
a group with no hit would look like a group with nothing to find. `label` attaches each row's
grade and the group's ``n_relevant`` counted from the whole truth, which the expressions take
as ``n_relevant=``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core.inputs import align_ids, normalize_keys, require_columns
from polars_rankk.core.policy import Policy
from polars_rankk.core.tables_in import long_form, to_lazy
from polars_rankk.core.types import FrameLike

__all__ = ["label"]


def label(
    candidates: FrameLike,
    truth: FrameLike,
    *,
    group_by: str | Sequence[str],
    item: str = "item",
    relevance: str = "relevance",
    n_relevant: str = "n_relevant",
    policy: Policy | None = None,
) -> FrameLike:
    """Attach each candidate's grade and its group's relevant count from `truth`.

    Parameters
    ----------
    candidates
        Scored rows: the `group_by` columns and `item` (any table `evaluate` accepts; ranked
        list columns are exploded to one row per item, the list order kept as ``score``).
    truth
        One row per judged (group, item), with an optional `relevance` grade (absent: every
        row has grade 1). Repeated items keep their highest grade, as in `evaluate`.
    group_by, item
        The group key column(s) and the item id column.
    relevance
        The grade column to read from `truth` and to write: 0 for items not in the truth.
    n_relevant
        The column to write: R_g, the group's items with ``grade >= relevance_threshold`` in
        the truth (``pool="restrict"``: only those among the candidates), 0 for a group the
        truth does not know.
    policy
        Supplies ``relevance_threshold`` and ``pool``; default ``Policy()``.

    Returns
    -------
    DataFrame or LazyFrame
        The candidates with `relevance` and `n_relevant` added; lazy for a lazy input.

    Notes
    -----
    With ``n_relevant`` every metric equals `evaluate` on the same candidates and truth. The
    ideal DCG counts a relevant item the candidates missed at the threshold grade, so nDCG is
    exact when such items have that grade (binary truth) or under ``gain="binary"``.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"],
    ...                            "score": [0.9, 0.5, 0.8]})
    >>> truth = pl.DataFrame({"user": [1, 1, 2], "item": ["b", "c", "d"]})
    >>> labelled = rk.label(candidates, truth, group_by="user")
    >>> labelled.rows()
    [(1, 'a', 0.9, 0, 2), (1, 'b', 0.5, 1, 2), (2, 'a', 0.8, 0, 1)]
    >>> labelled.group_by("user").agg(
    ...     rk.recall_at_k("relevance", by="score", k=2, item="item", n_relevant="n_relevant")
    ... ).sort("user")["recall@2"].to_list()
    [0.5, 0.0]
    """
    policy = Policy() if policy is None else policy
    keys = list(normalize_keys(group_by))
    is_lazy = isinstance(candidates, pl.LazyFrame)
    frame = long_form(
        to_lazy(candidates, "candidates"),
        "candidates",
        keys=keys,
        item=item,
        parallel=[],
        ranking="score",
    )
    truth_frame = long_form(
        to_lazy(truth, "truth"), "truth", keys=keys, item=item, parallel=[relevance]
    )
    schema = require_columns(
        frame, "candidates", {**dict.fromkeys(keys, "a group key"), item: "the item id"}
    )
    truth_schema = require_columns(
        truth_frame, "truth", {**dict.fromkeys(keys, "a group key"), item: "the item id"}
    )
    for column in (relevance, n_relevant):
        if column in schema:
            option = "relevance" if column == relevance else "n_relevant"
            raise ValueError(
                f"candidates already has a column {column!r}; label writes it from the truth: "
                f"drop it or choose another name ({option}=...)"
            )
    frame, truth_frame = align_ids(frame, truth_frame, [*keys, item])
    grade = pl.col(relevance) if relevance in truth_schema else pl.lit(1, dtype=pl.Int32)
    grades = truth_frame.group_by([*keys, item]).agg(grade.max().alias(relevance))
    labelled = frame.join(
        grades, on=[*keys, item], how="left", nulls_equal=True, maintain_order="left"
    ).with_columns(pl.col(relevance).fill_null(0))
    relevant = pl.col(relevance) >= policy.relevance_threshold
    if policy.pool == "restrict":
        count = pl.col(item).filter(relevant).n_unique().over(keys)
        out = labelled.with_columns(count.cast(pl.Int64).alias(n_relevant))
    else:
        counts = grades.group_by(keys).agg(relevant.sum().cast(pl.Int64).alias(n_relevant))
        out = labelled.join(
            counts, on=keys, how="left", nulls_equal=True, maintain_order="left"
        ).with_columns(pl.col(n_relevant).fill_null(0))
    return out if is_lazy else out.collect()
