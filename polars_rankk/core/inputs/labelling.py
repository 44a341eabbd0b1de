"""`label`: candidates labelled from a truth table, ready for the expression API.

On candidates left-joined with the truth, the expressions (``rk.ndcg_at_k`` ...) see only the
labelled rows, so R_g would count only the relevant items the model happened to retrieve, and
a group with no hit would look like a group with nothing to find. `label` attaches what the
expressions need to give `evaluate`'s numbers: each row's grade (null when the truth does not
judge the item), the group's ``n_relevant`` counted from the whole truth, and the grades of
the judged items the candidates missed (``unretrieved``, a list on the group's first row), for
the ideal DCG of graded truth and bpref; both null for a group the truth does not know, which
`evaluate` leaves out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_rankk.core.inputs.frames import long_form, to_lazy
from polars_rankk.core.inputs.normalize import column_name
from polars_rankk.core.inputs.spec import align_ids, normalize_keys, require_columns
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

__all__ = ["label"]

_NO_GRADES = pl.lit([], dtype=pl.List(pl.Float64))


def _unused_name(name: str, schema: Mapping[str, object]) -> str:
    """`name`, lengthened with underscores until no column of `schema` has it."""
    while name in schema:
        name += "_"
    return name


def _pool(
    frame: pl.LazyFrame, score: str, schema: Mapping[str, object], policy: Policy
) -> pl.LazyFrame:
    """The candidates' (group, item) pairs the truth is restricted to under
    ``pool="restrict"``: the ranked ones, without the rows whose invalid score is dropped."""
    if policy.invalid_scores != "drop":
        return frame
    if score not in schema:
        raise ValueError(
            f"pool='restrict' with invalid_scores='drop' keeps only the rows with a "
            f"valid score in the pool, and the candidates have no column {score!r}; "
            f"name the score column (score=...); its columns are {list(schema)}"
        )
    return frame.filter(pl.col(score).cast(pl.Float64).is_finite().fill_null(False))


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
    missed = grades.join(matched, on=[*keys, item], how="anti")
    known = grades.group_by(keys).agg(relevant.sum().cast(pl.Int64).alias(n_relevant))
    known = known.join(
        # Highest grade first: the same list on every call (the joins keep no row order).
        missed.group_by(keys).agg(
            pl.col(relevance).cast(pl.Float64).sort(descending=True).alias(unretrieved)
        ),
        on=keys,
        how="left",
    )
    if policy.pool == "restrict":
        # Groups of the truth whose judged items were all missed: known, nothing to find.
        known = truth_frame.select(keys).unique().join(known, on=keys, how="left")
    return known.with_columns(
        pl.col(n_relevant).fill_null(0), pl.col(unretrieved).fill_null(_NO_GRADES)
    )


def flag_sorted(frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """`frame`, its rows in ascending order of its one key column, with that column's sorted
    flag set (a `group_by` on it then reads each group as a slice); several keys: as it is."""
    if len(keys) != 1:
        return frame
    return frame.with_columns(pl.col(keys[0]).set_sorted())


def label(
    candidates: FrameLike,
    truth: FrameLike,
    *,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str = "n_relevant",
    unretrieved: str = "unretrieved",
    policy: Policy | None = None,
) -> FrameLike:
    """Attach each candidate's grade, and its group's relevant count and missed judged items
    from `truth`.

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
    score
        The candidates' score column, the one the expressions rank by: under
        ``pool="restrict"`` with ``invalid_scores="drop"`` a row whose score is invalid leaves
        the pool, as in `evaluate`. For ranked list columns, the name the list order is kept
        under when the candidates have no such column.
    relevance
        The grade column to read from `truth` and to write: null for an item the truth does
        not judge (unjudged: what ``judged@K``, ``rbp_residual``, bpref and
        ``unjudged="condense"`` read), its gain 0 otherwise.
    n_relevant
        The column to write: R_g, the group's items with ``grade >= relevance_threshold`` in
        the truth (``pool="restrict"``: only those among the candidates); null for a group
        the truth does not know.
    unretrieved
        The column to write: on each group's first row, the grades (a list, Float64) of the
        group's judged truth items that are not among its candidates (empty under
        ``pool="restrict"``); null on its other rows (the expressions read a group's first
        non-null list) and on every row of a group the truth does not know.
    policy
        Supplies ``relevance_threshold`` and ``pool``; default ``Policy()``.

    Returns
    -------
    DataFrame or LazyFrame
        The candidates with `relevance`, `n_relevant` and `unretrieved` added; lazy for a
        lazy input. The rows are grouped by key, the groups in ascending key order (of the key
        tuple for several keys; null keys last), each group's rows in the candidates' order;
        a single key column carries Polars' sorted flag, so that a ``group_by`` on it reads
        each group as a slice.

    Notes
    -----
    Passed ``unretrieved="unretrieved"``, every expression equals `evaluate` on the same
    candidates and truth, under every policy, for every group that has candidates. A group
    the truth does not know comes out null (`evaluate` does not evaluate it). A group
    without candidates has no rows, so no expression sees it: `evaluate` scores it 0 under
    ``missing_groups="zero"`` (join the truth's groups and fill 0 to match). With
    ``n_relevant`` alone the ideal DCG counts a missed relevant item at the threshold grade
    and bpref counts only the judged non-relevant items among the rows: exact for binary
    truth without unjudged-aware metrics.

    Filter the candidates before labelling them, not the labelled rows: a group whose
    first row is filtered out loses its missed items' grades and comes out null, as a
    group the truth does not know.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"user": [2, 1, 1], "item": ["a", "a", "b"],
    ...                            "score": [0.8, 0.9, 0.5]})
    >>> truth = pl.DataFrame({"user": [1, 1, 2], "item": ["b", "c", "d"]})
    >>> labelled = rk.label(candidates, truth, group_by="user")
    >>> labelled.rows()
    [(1, 'a', 0.9, None, 2, [1.0]), (1, 'b', 0.5, 1, 2, None), (2, 'a', 0.8, None, 1, [1.0])]
    >>> labelled["user"].flags["SORTED_ASC"]  # the groups in key order, each a slice
    True
    >>> labelled.group_by("user").agg(
    ...     rk.recall_at_k("relevance", by="score", k=2, item="item", unretrieved="unretrieved")
    ... ).sort("user")["recall@2"].to_list()
    [0.5, 0.0]
    """
    policy = Policy() if policy is None else policy
    keys = list(normalize_keys(group_by))
    item, score = column_name(item, "item"), column_name(score, "score")
    relevance = column_name(relevance, "relevance")
    is_lazy = isinstance(candidates, pl.LazyFrame)
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
    truth_schema = require_columns(
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
    frame, truth_frame = align_ids(frame, truth_frame, [*keys, item])
    grade = pl.col(relevance) if relevance in truth_schema else pl.lit(1, dtype=pl.Int32)
    grades = truth_frame.group_by([*keys, item]).agg(grade.max().alias(relevance))
    if policy.pool == "restrict":
        # The truth restricted to the candidates' items, as `evaluate` restricts it.
        grades = grades.join(_pool(frame, score, schema, policy), on=[*keys, item], how="semi")
    # The rows come out grouped by key, the groups in ascending key order (nulls last), each
    # group's rows in the candidates' order: one sort on (keys, row number) at the end (a join
    # asked to keep the left order costs several times more on the streaming engine). With the
    # key sorted and flagged so, a `group_by` reads each group as a slice.
    row = _unused_name("__rankk_row", schema)
    first = _unused_name("__rankk_first", schema)
    judged = _unused_name("__rankk_judged", schema)
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
    written = (relevance, n_relevant, unretrieved)
    known = _known(truth_frame, grades, matched, keys, item, written, policy)
    out = (
        labelled.join(known.drop(unretrieved), on=keys, how="left", nulls_equal=True)
        .join(
            known.select(*keys, pl.lit(True).alias(first), unretrieved),
            on=[*keys, first],
            how="left",
            nulls_equal=True,
        )
        .sort([*keys, row], nulls_last=True)
        .select(*schema, *written)
    )
    out = flag_sorted(out, keys)
    return out if is_lazy else out.collect()
