"""Seen items: drop from candidates and truth what each user already had (docs/definitions.md §6).

The usual recommender protocol: a model gets no credit for recommending what the user
already consumed, and a repeat in the future is not a discovery. `drop_seen` filters and
counts; the counts (`SeenFiltered.report`) belong next to the evaluation's diagnostics.
"""

from __future__ import annotations

from functools import cached_property

import polars as pl

from polars_rankk.core.inputs.spec import align_ids, require_columns, to_lazy
from polars_rankk.core.types import FrameLike


class SeenFiltered:
    """Candidates and truth without the items each user already had, and what was removed.

    Attributes
    ----------
    candidates, truth
        The filtered tables (None when not given), eager or lazy like the inputs.
    report
        One row per filtered table: ``table``, ``rows_before``, ``rows_removed``,
        ``rows_after``, ``users_affected`` (users who lost a row) and ``users_emptied`` (users
        left with no row: no longer evaluated, or evaluated as missing). Computed on first
        access.
    """

    def __init__(
        self,
        candidates: FrameLike | None,
        truth: FrameLike | None,
        before: dict[str, pl.LazyFrame],
        after: dict[str, pl.LazyFrame],
        user: str,
    ) -> None:
        self.candidates = candidates
        self.truth = truth
        self._before = before
        self._after = after
        self._user = user

    @cached_property
    def report(self) -> pl.DataFrame:
        """Counts of what was removed, per table."""
        user = self._user
        queries = []
        for name, before in self._before.items():
            after = self._after[name]
            per_user = (
                before.group_by(user)
                .agg(pl.len().alias("_before"))
                .join(after.group_by(user).agg(pl.len().alias("_after")), on=user, how="left")
                .with_columns(pl.col("_after").fill_null(0))
            )
            queries.append(
                per_user.select(
                    pl.lit(name).alias("table"),
                    pl.col("_before").sum().cast(pl.Int64).alias("rows_before"),
                    (pl.col("_before") - pl.col("_after"))
                    .sum()
                    .cast(pl.Int64)
                    .alias("rows_removed"),
                    pl.col("_after").sum().cast(pl.Int64).alias("rows_after"),
                    (pl.col("_after") < pl.col("_before"))
                    .sum()
                    .cast(pl.Int64)
                    .alias("users_affected"),
                    (pl.col("_after") == 0).sum().cast(pl.Int64).alias("users_emptied"),
                )
            )
        schema = {
            "table": pl.String,
            **dict.fromkeys(
                ("rows_before", "rows_removed", "rows_after", "users_affected", "users_emptied"),
                pl.Int64,
            ),
        }
        if not queries:
            return pl.DataFrame(schema=schema)
        return pl.concat(pl.collect_all(queries), how="vertical").cast(schema)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"SeenFiltered(candidates, truth, report=\n{self.report})"


def drop_seen(
    candidates: FrameLike | None,
    history: FrameLike,
    truth: FrameLike | None = None,
    *,
    user: str = "user",
    item: str = "item",
    from_candidates: bool = True,
    from_truth: bool = True,
) -> SeenFiltered:
    """Remove from candidates and/or truth the items each user already has in its history.

    The usual recommender protocol: a model should not get credit for recommending what the
    user already consumed, and a repeat in the future is not a discovery. Rows are matched on
    (`user`, `item`); any other key column (system, session) is kept.

    Parameters
    ----------
    candidates
        Scored candidates (`user`, `item`, …), or None.
    history
        What each user had before the cutoff (`user`, `item`, …), e.g. ``split.history``.
    truth
        The truth table, or None.
    user, item
        Column names, the same in every table.
    from_candidates, from_truth
        Which tables to filter.

    Returns
    -------
    SeenFiltered
        ``candidates`` and ``truth`` (eager or lazy like the inputs) and ``report``, the
        counts of rows and users affected per table.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.time.seen import drop_seen
    >>> history = pl.DataFrame({"user": [1, 1], "item": ["a", "b"]})
    >>> candidates = pl.DataFrame({"user": [1, 1, 1], "item": ["a", "c", "d"],
    ...                            "score": [0.9, 0.8, 0.7]})
    >>> truth = pl.DataFrame({"user": [1, 1], "item": ["b", "c"]})
    >>> seen = drop_seen(candidates, history, truth)
    >>> seen.candidates["item"].to_list(), seen.truth["item"].to_list()
    (['c', 'd'], ['c'])
    >>> seen.report.select("table", "rows_removed", "users_affected")
    shape: (2, 3)
    ┌────────────┬──────────────┬────────────────┐
    │ table      ┆ rows_removed ┆ users_affected │
    │ ---        ┆ ---          ┆ ---            │
    │ str        ┆ i64          ┆ i64            │
    ╞════════════╪══════════════╪════════════════╡
    │ candidates ┆ 1            ┆ 1              │
    │ truth      ┆ 1            ┆ 1              │
    └────────────┴──────────────┴────────────────┘
    """
    keys = [user, item]
    seen_lf = to_lazy(history, "history")
    require_columns(seen_lf, "history", {user: "the user id", item: "the item id"})
    seen_lf = seen_lf.select(keys).unique()
    before: dict[str, pl.LazyFrame] = {}
    after: dict[str, pl.LazyFrame] = {}
    outputs: dict[str, FrameLike | None] = {"candidates": candidates, "truth": truth}
    for name, table, wanted in (
        ("candidates", candidates, from_candidates),
        ("truth", truth, from_truth),
    ):
        if table is None or not wanted:
            continue
        frame = to_lazy(table, name)
        require_columns(frame, name, {user: "the user id", item: "the item id"})
        aligned, seen_here = align_ids(frame, seen_lf, keys, (name, "history"))
        kept = aligned.join(seen_here, on=keys, how="anti", maintain_order="left")
        before[name], after[name] = frame, kept
        outputs[name] = kept if isinstance(table, pl.LazyFrame) else kept.collect()
    return SeenFiltered(outputs["candidates"], outputs["truth"], before, after, user)
