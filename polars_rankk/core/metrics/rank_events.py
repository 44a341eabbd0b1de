"""Each group's *event rows*, what a K-curve sums over ranks: the ranks where a term's
running sum or the ideal DCG may change — rank 1, each ranked row with a non-zero term, each
rank of a positive ideal gain, all within max K — with each term's running sum there (summed in
rank order, as `evaluate` sums it) and the ideal DCG (`polars_rankk.stats.rank_sums` evaluates
the formulas on them).

The compiled kernel hands them back beside its sums (`Evaluation.ranking_events`); the pure
path, and a group the kernel did not rank, build the same rows from the term rows and the
ideal gain rows (`Evaluation.ranking_rows`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core.columns import EVENT_GROUP, EVENT_IDEAL
from polars_rankk.core.metrics.order import discount
from polars_rankk.core.metrics.summed import IDEAL

__all__ = ["event_rows"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def event_rows(
    terms: Sequence[str],
    index: pl.DataFrame,
    collected: list[pl.DataFrame],
    from_rows: bool,
    valid: pl.DataFrame,
    ideal: pl.LazyFrame,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The `valid` groups' event rows and term rows (`_running_of_rows`): from the collected
    term and ideal rows (`from_rows`), else from the kernel's event rows — a group without a
    candidate row has none there, its rank 1 and ideal ranks come from the `ideal` rows."""
    keys = [c for c in index.columns if c != "_g"]

    def with_index(frame: pl.DataFrame, among: pl.DataFrame = valid) -> pl.DataFrame:
        joined = frame.join(index, on=keys, how="inner", nulls_equal=True)
        return joined.join(among.select("_g"), on="_g").drop(keys)

    if from_rows:
        rows = with_index(collected[0])
        return _running_of_rows(terms, rows, with_index(collected[1]), valid), rows
    running, rows = _kernel_running(terms, index.join(valid.select("_g"), on="_g"), *collected)
    seen = np.zeros(index.height, bool)
    seen[running.get_column("_g").to_numpy()] = True
    missing = valid.filter(~pl.Series(seen[valid.get_column("_g").to_numpy()]))
    if missing.height:
        keyed = index.join(missing.select("_g"), on="_g").lazy()
        ideal_rows = ideal.join(keyed, on=keys, how="semi", nulls_equal=True).collect()
        extra = _running_of_rows(terms, rows.clear(), with_index(ideal_rows, missing), missing)
        running = pl.concat([running, extra])
    return running, rows


def _running_of_rows(
    terms: Sequence[str], rows: pl.DataFrame, ideal: pl.DataFrame, valid: pl.DataFrame
) -> pl.DataFrame:
    """The event rows of the `valid` groups from their term rows (``_g, rank``, each term's
    own value) and their ideal gain rows (``_g, rank, gain``): per group, each rank where a
    term or the ideal DCG changes, from rank 1 on (``_g, k``, each term's running sum, the
    ideal DCG), sorted by group and K — what the kernel's event rows hold."""
    stride = 2 + max(int(np.max(f["rank"].to_numpy(), initial=0)) for f in (rows, ideal))
    # Each (group, rank) once: a term row, a group's first rank, an ideal gain's rank.
    at_rows = _group_ranks(rows, stride)
    at_first = _group_ranks(valid.select("_g", rank=pl.lit(1)), stride)
    at_ideal = _group_ranks(ideal, stride)
    keys, at = np.unique(np.concatenate([at_rows, at_first, at_ideal]), return_inverse=True)
    sums = np.zeros((keys.size, len(terms) + 1))  # the terms, then the ideal DCG
    # No (group, rank) is a term row twice or an ideal rank twice: each value lands alone.
    values = rows.select(pl.col(t).cast(pl.Float64) for t in terms).to_numpy()
    sums[at[: at_rows.size], : len(terms)] = values
    ideal_dcg = ideal.select(pl.col("gain") / discount(pl.col("rank"))).to_series()
    sums[at[at_rows.size + at_first.size :], len(terms)] = ideal_dcg.cast(pl.Float64).to_numpy()
    group = keys // stride
    _cumulate_by_group(sums, group)
    return pl.DataFrame(
        {"_g": group, "k": keys % stride}
        | {name: sums[:, j] for j, name in enumerate([*terms, IDEAL])}
    )


def _kernel_running(
    terms: Sequence[str], index: pl.DataFrame, numbers: pl.DataFrame, events: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`_running_of_rows` and the term rows, from the kernel's event rows of the groups of
    `index` (keys, ``_g``; `Evaluation.ranking_events`): a group's number is its place among
    `numbers`' keys, a row's own terms the steps of their running sums."""
    keys = [c for c in index.columns if c != "_g"]
    place = (
        numbers.with_row_index("_k")
        .join(index, on=keys, how="left", nulls_equal=True)
        .sort("_k")
        .get_column("_g")
        .fill_null(-1)
        .to_numpy()
        .astype(np.int64)
    )
    group = place[events.get_column(EVENT_GROUP).to_numpy()]
    ideal_dcg = pl.col(EVENT_IDEAL).alias(IDEAL)
    inside = group >= 0
    kept = events if inside.all() else events.filter(pl.Series(inside))
    kept = kept.select(pl.Series("_g", group[inside]), pl.col("rank").alias("k"), *terms, ideal_dcg)
    same = pl.col("_g") == pl.col("_g").shift(1)
    steps = [pl.when(same).then(pl.col(t) - pl.col(t).shift(1)).otherwise(pl.col(t)) for t in terms]
    rows = kept.select("_g", pl.col("k").alias("rank"), *steps)
    if terms:
        rows = rows.filter(pl.any_horizontal(pl.col(t) != 0 for t in terms))
    return kept, rows


def _group_ranks(frame: pl.DataFrame, stride: int) -> IntArray:
    """Each row's (group, rank) as one integer, in group then rank order."""
    ids = pl.col("_g").cast(pl.Int64) * stride + pl.col("rank").cast(pl.Int64)
    return frame.select(ids).to_series().to_numpy()


def _cumulate_by_group(sums: FloatArray, group: IntArray) -> None:
    """Running sums of `sums`' rows within each group (rows sorted by group), in place: each
    row adds the one before it in its group, in order, as a sequential cumulative sum does."""
    if not group.size:
        return
    first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    position = np.arange(group.size) - np.repeat(first, np.diff(np.r_[first, group.size]))
    order = np.argsort(position, kind="stable")
    bounds = np.searchsorted(position[order], np.arange(1, position.max() + 2))
    for start, stop in itertools.pairwise(bounds):
        rows = order[start:stop]
        sums[rows] += sums[rows - 1]
