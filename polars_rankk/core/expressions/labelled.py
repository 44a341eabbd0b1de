"""`label`: candidates labelled from a truth table, ready for the expression API.

On candidates left-joined with the truth, the expressions (``rk.ndcg_at_k`` ...) see only the
labelled rows, so R_g would count only the relevant items the model happened to retrieve, and
a group with no hit would look like a group with nothing to find. `label` attaches what the
expressions need to give `evaluate`'s numbers: each row's grade (null when the truth does not
judge the item), the group's ``n_relevant`` counted from the whole truth, and the grades of
the judged items the candidates missed (``unretrieved``, a list on the group's first row), for
the ideal DCG of graded truth and bpref; both null for a group the truth does not know, which
`evaluate` leaves out.

The compiled kernel labels in one call where it reads the keys, the items and the grade
(`polars_rankk.core.kernel.labels`); Polars does otherwise
(`polars_rankk.core.inputs.labelling.polars_label`, the reference): the same frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core.inputs.labelling import flag_sorted, label_inputs, polars_label
from polars_rankk.core.kernel.labels import kernel_label
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

__all__ = ["label"]


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
    read = label_inputs(
        candidates,
        truth,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        unretrieved=unretrieved,
        policy=policy,
    )
    kernel = kernel_label(read)
    out = polars_label(read) if kernel is None else kernel
    if isinstance(candidates, pl.LazyFrame):
        return out
    return flag_sorted(out.collect(), read.keys)
