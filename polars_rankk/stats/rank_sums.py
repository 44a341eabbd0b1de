"""K-curves from sums over ranks: every K at the cost of the graded rows, not groups × K.

Each metric's macro mean at K is a sum over groups of a per-group value v_g(K), divided by the
number of groups that count at K. v_g only moves at a few K: where the group has a graded row,
where its ideal DCG (or ``min(K, R)``) still grows, and where ``short_lists`` drops it. So
each group contributes *events* ``(column, K, delta)`` and a column's sum at K is the running
sum of its deltas up to K. Precision and f1 move at every K, but only through a factor of K:
precision sums the hits and divides by K afterwards, f1 sums the hits of the groups with the
same R and weights them by ``2 / (K + R)``.

The same sparse events give every resample at once: with resample weights ``W`` (resamples ×
groups), the resampled sums are ``W @ D`` (D: groups × events), then the same running sums.

Order of summation: a group's v_g(K) uses the same cumulated DCG and ideal DCG as `evaluate`
(bit for bit); the sum over groups adds the deltas in (group, column, K) order, then runs over
K. Means agree with ``evaluate(k=K).summary()`` exactly where the sums are integers (hit
rate, group counts) and to 1e-12 elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.columns import DCG as DCG_TERM
from polars_rankk.core.columns import FIRST_HIT as FIRST_HIT_TERM
from polars_rankk.core.columns import HITS as HITS_TERM
from polars_rankk.core.columns import PRECISION_SUM as PRECISION_TERM
from polars_rankk.core.columns import RECIPROCAL_RANK as RECIPROCAL_TERM
from polars_rankk.core.metrics.order import discount
from polars_rankk.core.metrics.registry import RANK_SUMMED_METRICS
from polars_rankk.core.optional import optional_module
from polars_rankk.core.policy import Policy

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Fixed bases (column index); f1's hits-by-R columns follow.
COUNT, HITS, RECALL, HIT_RATE, MRR, AP, NDCG, PRECISION_TAIL, F1_TAIL = range(9)
_FIXED = 9
#: The metrics these sums give (declared ``rank_summed`` in the registry); a curve of any
#: other metric reads the per-group values.
SUMMED_METRICS = RANK_SUMMED_METRICS
#: The per-rank terms the sums read, per row, from the evaluation's own ranking pass.
ROW_TERMS = (HITS_TERM, FIRST_HIT_TERM, DCG_TERM, PRECISION_TERM, RECIPROCAL_TERM)
#: Resamples drawn per block; fixed so that the draws do not depend on the table's size.
RESAMPLE_BLOCK = 50


@dataclass
class RankSums:
    """Sparse per-group events of one evaluation, ready to sum (see the module docstring)."""

    groups: pl.DataFrame  # strata…, keys, n_candidates, n_relevant; sorted, row = group index
    strata: list[str]
    group: IntArray  # event -> group index
    column: IntArray  # event -> column * k_max + (k - 1)
    delta: FloatArray
    relevant_sizes: FloatArray  # R of each f1 column
    k_max: int
    short_lists: str
    f_beta: float = 1.0

    @property
    def n_columns(self) -> int:
        return _FIXED + len(self.relevant_sizes)


def sums_over_ranks(
    evaluation: Evaluation, strata: Sequence[str] = (), groups: pl.LazyFrame | None = None
) -> RankSums | None:
    """Events of `evaluation` at K = 1…max K; None when its policy needs the per-group path.

    `groups` is the evaluation's groups table with the `strata` columns attached.
    """
    rows = evaluation.ranking_rows(ROW_TERMS)
    if rows is None:
        return None
    graded, ideal = rows
    keys = list(evaluation.group_keys)
    table = evaluation.groups.lazy() if groups is None else groups
    own = [key for key in keys if key not in strata]  # a stratum may be a group key
    table = table.select(*strata, *own, "n_candidates", "n_relevant").sort(
        [*strata, *own], nulls_last=True
    )
    group_table, graded_rows, ideal_rows = pl.collect_all([table, graded, ideal])
    group_table = group_table.with_row_index("_g")
    index = group_table.select(*keys, "_g")
    policy = evaluation.policy
    k_max = max(evaluation.ks)
    nan_empty = policy.empty_truth == "nan"
    sizes = group_table.select(
        "_g",
        pl.col("n_candidates").alias("n"),
        pl.col("n_relevant").alias("r"),
        (~(pl.col("n_relevant") == 0) | pl.lit(not nan_empty)).alias("valid"),
    )
    rows_g = (
        graded_rows.join(index, on=keys, how="inner", nulls_equal=True)
        .join(sizes, on="_g")
        .filter("valid")
        .sort("_g", "rank")
    )
    # Each row's terms as `evaluate` computed them (one declaration, one ranking pass).
    rows_g = rows_g.with_columns(
        pl.col(HITS_TERM).alias("hit"),
        (pl.col(FIRST_HIT_TERM) > 0).alias("first"),
        pl.col(PRECISION_TERM).alias("precision_term"),
        pl.col(DCG_TERM).alias("dcg_term"),
        pl.col(RECIPROCAL_TERM).alias("reciprocal_term"),
    )
    hits = rows_g.filter(pl.col("hit") == 1)
    r_float = pl.col("r").cast(pl.Float64)
    distinct_r = np.unique(hits["r"].to_numpy()).astype(np.int64)
    f1_column = pl.col("r").replace_strict(
        distinct_r.tolist(), list(range(_FIXED, _FIXED + len(distinct_r))), return_dtype=pl.Int64
    )
    skip = policy.short_lists == "skip"
    event = _event
    rank = pl.col("rank")
    first = hits.filter("first")
    pieces = [
        event(hits, HITS, rank, pl.lit(1.0)),
        event(hits, RECALL, rank, 1.0 / r_float),
        event(hits, AP, rank, pl.col("precision_term") / r_float),
        event(hits, f1_column, rank, pl.lit(1.0)),
        event(first, HIT_RATE, rank, pl.lit(1.0)),
        event(first, MRR, rank, pl.col("reciprocal_term")),
    ]
    valid_groups = sizes.filter("valid")
    pieces.append(event(valid_groups, COUNT, pl.lit(1), pl.lit(1.0)))
    pieces.extend(_short_list_events(hits, valid_groups, f1_column, k_max, policy))
    pieces.append(_ndcg_events(rows_g, ideal_rows, index, sizes, keys, k_max, skip))
    if policy.ap_denominator == "min_k_relevant":
        pieces = [p for p in pieces if not (p["c"] == AP).any()] + [
            _ap_min_events(hits, sizes, k_max, skip)
        ]
    frame = (
        pl.concat(pieces)
        .filter((pl.col("k") >= 1) & (pl.col("k") <= k_max) & (pl.col("d") != 0.0))
        .sort("_g", "c", "k")
    )
    return RankSums(
        groups=group_table.drop("_g"),
        strata=list(strata),
        group=frame["_g"].to_numpy().astype(np.int64),
        column=(frame["c"] * k_max + frame["k"] - 1).to_numpy().astype(np.int64),
        delta=frame["d"].to_numpy().astype(np.float64),
        relevant_sizes=distinct_r.astype(np.float64),
        k_max=k_max,
        short_lists=policy.short_lists,
        f_beta=float(policy.f_beta),
    )


def _event(frame: pl.DataFrame, column: int | pl.Expr, k: pl.Expr, delta: pl.Expr) -> pl.DataFrame:
    """Events (group, column, K, delta) of the rows of `frame`."""
    col = column if isinstance(column, pl.Expr) else pl.lit(column, dtype=pl.Int64)
    return frame.select(
        pl.col("_g").cast(pl.Int64), col.cast(pl.Int64).alias("c"), k.cast(pl.Int64).alias("k"),
        delta.cast(pl.Float64).alias("d"),
    )  # fmt: skip


def _short_list_events(
    hits: pl.DataFrame,
    valid_groups: pl.DataFrame,
    f1_column: pl.Expr,
    k_max: int,
    policy: Policy,
) -> list[pl.DataFrame]:
    """What a group adds once its list is shorter than K: ``short_lists="skip"`` drops it,
    ``"observed"`` freezes it at its own length."""
    event = _event
    r_float = pl.col("r").cast(pl.Float64)
    removes = policy.short_lists in ("skip", "observed")
    skip = policy.short_lists == "skip"
    beta2 = float(policy.f_beta) ** 2
    pieces: list[pl.DataFrame] = []
    # What a group adds once its list is shorter than K (skip drops it; observed freezes it).
    totals = hits.group_by("_g").agg(
        pl.len().cast(pl.Float64).alias("h"),
        (1.0 / r_float).sum().alias("recall"),
        (pl.col("precision_term") / r_float).sum().alias("ap"),
        pl.col("first").any().cast(pl.Float64).alias("hit_rate"),
        pl.col("reciprocal_term").filter("first").sum().alias("mrr"),
    )
    # Only the totals are filled (a fill of every column would turn the integer sizes into
    # floats when no group has a hit).
    short = valid_groups.join(totals, on="_g", how="left").with_columns(
        pl.col("h", "recall", "ap", "hit_rate", "mrr").fill_null(0.0)
    )
    short = short.filter(pl.col("n") < k_max)
    after = pl.col("n") + 1
    if removes:
        pieces.append(event(short, HITS, after, -pl.col("h")))
        pieces.append(event(short.filter(pl.col("h") > 0), f1_column, after, -pl.col("h")))
    if skip:
        pieces.append(event(short, COUNT, after, pl.lit(-1.0)))
        for column, name in ((RECALL, "recall"), (AP, "ap"), (HIT_RATE, "hit_rate"), (MRR, "mrr")):
            pieces.append(event(short, column, after, -pl.col(name)))
    if policy.short_lists == "observed":
        short = short.filter(pl.col("h") > 0)
        denominator = pl.col("n").cast(pl.Float64)
        pieces.append(event(short, PRECISION_TAIL, after, pl.col("h") / denominator))
        # F-beta of h hits in a list of n: (1 + b^2) h / (n + b^2 R).
        pieces.append(
            event(
                short, F1_TAIL, after, (1.0 + beta2) * pl.col("h") / (denominator + beta2 * r_float)
            )
        )
    return pieces


def _value_deltas(frame: pl.DataFrame, value: pl.Expr, column: int) -> pl.DataFrame:
    """Deltas of a value read at each event K of each group (frame sorted by _g, k)."""
    frame = frame.with_columns(value.alias("v"))
    delta = pl.col("v") - pl.col("v").shift(1, fill_value=0.0).over("_g")
    return frame.select(
        pl.col("_g").cast(pl.Int64), pl.lit(column, dtype=pl.Int64).alias("c"),
        pl.col("k").cast(pl.Int64), delta.alias("d"),
    )  # fmt: skip


def _truncate(frame: pl.DataFrame, sizes: pl.DataFrame, k_max: int, skip: bool) -> pl.DataFrame:
    """Under skip: keep K <= n and add a removal event at n + 1 (the value then drops to 0)."""
    if not skip:
        return frame
    frame = frame.join(sizes.select("_g", "n"), on="_g").filter(pl.col("k") <= pl.col("n"))
    return frame.drop("n")


def _ndcg_events(
    rows: pl.DataFrame,
    ideal: pl.DataFrame,
    index: pl.DataFrame,
    sizes: pl.DataFrame,
    keys: list[str],
    k_max: int,
    skip: bool,
) -> pl.DataFrame:
    """nDCG moves where a graded row adds DCG and where the ideal DCG still grows."""
    valid = sizes.filter("valid").select("_g")
    ideal_g = ideal.join(index, on=keys, how="inner", nulls_equal=True).join(valid, on="_g")
    ideal_term = pl.col("gain") / discount(pl.col("rank"))
    ideal_terms = ideal_g.select("_g", "rank", pl.lit(0.0).alias("dcg"), ideal_term.alias("ideal"))
    terms = rows.select("_g", "rank", pl.col("dcg_term").alias("dcg"), pl.lit(0.0).alias("ideal"))
    events = (
        pl.concat([terms, ideal_terms])
        .group_by("_g", "rank")
        .agg(pl.col("dcg").sum(), pl.col("ideal").sum())
        .sort("_g", "rank")
        .with_columns(
            pl.col("dcg").cum_sum().over("_g"),
            pl.col("ideal").cum_sum().over("_g"),
            pl.col("rank").alias("k"),
        )
    )
    events = _truncate(events, sizes, k_max, skip)
    value = pl.when(pl.col("ideal") > 0).then(pl.col("dcg") / pl.col("ideal")).otherwise(0.0)
    deltas = _value_deltas(events, value, NDCG)
    return pl.concat([deltas, _removals(deltas, sizes, skip)])


def _ap_min_events(hits: pl.DataFrame, sizes: pl.DataFrame, k_max: int, skip: bool) -> pl.DataFrame:
    """AP over min(K, R) moves at hit ranks and at every K <= R."""
    valid = sizes.filter(pl.col("valid") & (pl.col("r") > 0))
    steps = valid.select(
        "_g", pl.int_ranges(1, pl.min_horizontal(pl.col("r"), pl.lit(k_max)) + 1).alias("rank")
    ).explode("rank")
    terms = hits.select("_g", pl.col("rank").cast(pl.Int64), "precision_term")
    steps = steps.select("_g", pl.col("rank").cast(pl.Int64), pl.lit(0.0).alias("precision_term"))
    events = (
        pl.concat([terms, steps])
        .group_by("_g", "rank")
        .agg(pl.col("precision_term").sum())
        .sort("_g", "rank")
        .with_columns(pl.col("precision_term").cum_sum().over("_g"), pl.col("rank").alias("k"))
        .join(sizes.select("_g", "r"), on="_g")
    )
    events = _truncate(events, sizes, k_max, skip)
    denominator = pl.min_horizontal(pl.col("k"), pl.col("r")).cast(pl.Float64)
    value = pl.when(denominator > 0).then(pl.col("precision_term") / denominator).otherwise(0.0)
    deltas = _value_deltas(events, value, AP)
    return pl.concat([deltas, _removals(deltas, sizes, skip)])


def _removals(deltas: pl.DataFrame, sizes: pl.DataFrame, skip: bool) -> pl.DataFrame:
    """Under skip, a value leaves the sum at K = n + 1: remove what its deltas added."""
    if not skip:
        return deltas.clear()
    totals = deltas.group_by("_g", "c").agg(pl.col("d").sum())
    return totals.join(sizes.select("_g", "n"), on="_g").select(
        "_g", "c", (pl.col("n") + 1).cast(pl.Int64).alias("k"), (-pl.col("d")).alias("d")
    )


def _transform(
    sums: FloatArray, sizes: RankSums, metrics: Sequence[str]
) -> tuple[FloatArray, FloatArray]:
    """Running sums (… × columns × K) -> per-metric numerators (… × metrics × K) and counts."""
    k = np.arange(1, sums.shape[-1] + 1, dtype=np.float64)
    hits = sums[..., HITS, :]
    precision = hits / k + sums[..., PRECISION_TAIL, :]
    f1_by_r = sums[..., _FIXED:, :]
    # F-beta at K of h hits, R relevant: (1 + b^2) h / (K + b^2 R).
    beta2 = sizes.f_beta**2
    factor = (1.0 + beta2) / (k[None, :] + beta2 * sizes.relevant_sizes[:, None])
    f1 = (f1_by_r * factor).sum(axis=-2) + sums[..., F1_TAIL, :]
    by_name = {
        "precision": precision,
        "recall": sums[..., RECALL, :],
        "f1": f1,
        "hit_rate": sums[..., HIT_RATE, :],
        "ndcg": sums[..., NDCG, :],
        "average_precision": sums[..., AP, :],
        "mrr": sums[..., MRR, :],
    }
    return np.stack([by_name[m] for m in metrics], axis=-2), sums[..., COUNT, :]


def _running(flat: FloatArray, sizes: RankSums) -> FloatArray:
    shaped = flat.reshape(*flat.shape[:-1], sizes.n_columns, sizes.k_max)
    return np.cumsum(shaped, axis=-1)


def stratum_slices(sums: RankSums) -> list[tuple[tuple[object, ...], slice]]:
    """Each stratum's key values and its contiguous rows of groups."""
    if not sums.strata:
        return [((), slice(0, sums.groups.height))]
    runs = (
        sums.groups.with_row_index("_i")
        .group_by(sums.strata, maintain_order=True)
        .agg(pl.col("_i").min().alias("start"), pl.len().alias("size"))
    )
    return [
        (tuple(row[c] for c in sums.strata), slice(row["start"], row["start"] + row["size"]))
        for row in runs.iter_rows(named=True)
    ]


def means(
    sums: RankSums, metrics: Sequence[str]
) -> list[tuple[tuple[object, ...], FloatArray, FloatArray]]:
    """Per stratum: (key, sums metrics × K, counts K)."""
    out = []
    width = sums.n_columns * sums.k_max
    for key, rows in stratum_slices(sums):
        inside = (sums.group >= rows.start) & (sums.group < rows.stop)
        flat: FloatArray = np.asarray(
            np.bincount(sums.column[inside], weights=sums.delta[inside], minlength=width),
            dtype=np.float64,
        )
        numerators, counts = _transform(_running(flat, sums), sums, metrics)
        out.append((key, numerators, counts))
    return out


def weight_blocks(
    rng: np.random.Generator, layers: Sequence[int], n_resamples: int
) -> Iterator[FloatArray]:
    """Resample weights (how often each group is drawn), `RESAMPLE_BLOCK` resamples at a time.

    Each layer of ``m`` groups draws ``m`` of its groups with replacement, layer after layer,
    block after block, so the weights depend only on the generator, the layer sizes and B.
    """
    total = int(sum(layers))
    for start in range(0, n_resamples, RESAMPLE_BLOCK):
        size = min(RESAMPLE_BLOCK, n_resamples - start)
        weights = np.zeros((size, total))
        offset = 0
        for m in layers:
            if m:
                drawn = rng.integers(0, m, size=(size, m))
                shifted = (drawn + np.arange(size)[:, None] * m).ravel()
                weights[:, offset : offset + m] = np.bincount(shifted, minlength=size * m).reshape(
                    size, m
                )
            offset += m
        yield weights


def resampled_means(
    sums: RankSums, metrics: Sequence[str], rows: slice, rng: np.random.Generator, n_resamples: int
) -> FloatArray:
    """Resampled means (B × metrics × K) of the stratum whose groups are `rows`."""
    sparse = optional_module("scipy.sparse", "K-curve intervals")

    inside = (sums.group >= rows.start) & (sums.group < rows.stop)
    size = rows.stop - rows.start
    matrix = sparse.csr_matrix(
        (sums.delta[inside], (sums.group[inside] - rows.start, sums.column[inside])),
        shape=(size, sums.n_columns * sums.k_max),
    ).T.tocsr()
    parts = []
    for weights in weight_blocks(rng, [size], n_resamples):
        flat = np.asarray((matrix @ weights.T).T)
        numerators, counts = _transform(_running(flat, sums), sums, metrics)
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append(
                np.where(counts[:, None, :] > 0.5, numerators / counts[:, None, :], np.nan)
            )
    return np.concatenate(parts, axis=0)
