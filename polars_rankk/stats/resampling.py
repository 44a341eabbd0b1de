"""Bootstrap confidence intervals for mean metric values, resampling groups.

`bootstrap` draws the resample weights over groups once per stratum and applies them to every
(metric, K): a resampled mean is ``(W @ values) / (W @ present)``.

Groups — never rows — are the resampling unit, and every interval of the library draws them
the one way `weight_blocks` does (``Generator.integers`` per resample, counted into weights,
a block of resamples at a time so that memory stays at a few arrays of ``n``): `bootstrap`,
`compare`, the K-curves' bands and the counterfactual's intervals. Where the compiled kernel
is loaded it makes the same draws itself and adds the products without an array of weights
(`polars_rankk.core.kernel.resample`).
"""

from __future__ import annotations

import math
import zlib
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Literal, TypeVar

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core.optional import optional_module
from polars_rankk.stats.per_group import (
    Attributes,
    Results,
    as_list,
    per_group_input,
    sort_rows,
    with_strata,
)

IntervalMethod = Literal["percentile", "bca"]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Cells (metric × K) × groups laid out at a time by `bootstrap`, to bound its memory.
_CELLS_PER_CHUNK = 4_000_000


def generator(seed: int | None, key: Hashable) -> np.random.Generator:
    """A generator for one output row: reproducible from ``(seed, key)``, so a row's interval
    does not change when other metrics, K or strata are added. ``seed=None``: fresh entropy."""
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng([seed, zlib.crc32(repr(key).encode())])


def check_options(n_resamples: int, confidence: float, method: str, seed: int | None) -> None:
    """Raise ``ValueError`` on an out-of-range bootstrap option."""
    if not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer; got {n_resamples!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    if method not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca'; got {method!r}")
    if seed is not None and (not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None; got {seed!r}")


def acceleration(values: FloatArray, counts: IntArray) -> float:
    """BCa acceleration of the mean, from the jackknife (leave one group out).

    Leaving out a group of value ``v`` moves the mean by ``-(v - mean) / (n - 1)``, so the
    jackknife sums reduce to weighted central moments of the value histogram.
    """
    n = counts.sum()
    deviation = values - (counts @ values) / n
    spread = float(counts @ deviation**2)
    if spread == 0:
        return 0.0
    return float(counts @ deviation**3) / (6 * spread * math.sqrt(spread))


def interval(
    estimate: float,
    resampled: FloatArray,
    confidence: float,
    method: IntervalMethod,
    values: FloatArray,
    counts: IntArray,
) -> tuple[float, float]:
    """Percentile or BCa interval (Efron 1987) from a bootstrap distribution of the mean.

    Quantiles of the resampled means use linear interpolation (NumPy's default). For BCa the
    bias correction counts resamples equal to the estimate as half below (as SciPy does), and
    is clipped to ``[1/(2B), 1 - 1/(2B)]`` so that it stays finite.
    """
    alpha = 1 - confidence
    tails = np.array([alpha / 2, 1 - alpha / 2])
    if method == "bca":
        # Only here: importing scipy.stats takes about a second.
        stats = optional_module("scipy.stats", "BCa intervals")

        tolerance = 1e-12 * max(1.0, abs(estimate))
        below = np.count_nonzero(resampled < estimate - tolerance)
        tied = np.count_nonzero(np.abs(resampled - estimate) <= tolerance)
        b = len(resampled)
        share = min(max((below + tied / 2) / b, 1 / (2 * b)), 1 - 1 / (2 * b))
        bias = float(stats.norm.ppf(share))
        a = acceleration(values, counts)
        z = stats.norm.ppf(tails)
        tails = stats.norm.cdf(bias + (bias + z) / (1 - a * (bias + z)))
    low, high = np.nanquantile(resampled, tails)
    return float(low), float(high)


def bootstrap(
    results: Results,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
    *,
    method: IntervalMethod = "percentile",
    by: str | Sequence[str] | None = None,
    stratify: str | Sequence[str] | None = None,
    attributes: Attributes = None,
    group_keys: Sequence[str] | None = None,
    labels: bool = False,
) -> pl.DataFrame:
    """Bootstrap confidence intervals for the mean of every metric × K, resampling groups.

    Each resample draws as many groups as there are, with replacement (or, with ``stratify``,
    as many as each stratum has from within that stratum) and takes the mean. NaN values
    (``empty_truth="nan"``) are not groups of that metric × K: they are left out and counted.

    Parameters
    ----------
    results
        An evaluation (`polars_rankk.evaluate`) or a per-group frame (group keys…, ``metric``,
        ``k``, ``value``). A lazy input is run once, down to the value histogram.
    n_resamples
        Bootstrap resamples per row.
    confidence
        Two-sided confidence level.
    seed
        Reproducibility: each stratum draws its group weights once from
        ``numpy.random.default_rng([seed, hash(stratum)])`` and every metric × K of the
        stratum shares them, so a row's interval is the same whatever else is computed, and
        equals the K-curve's (`k_curve`) for the same seed. ``None`` draws fresh entropy.
    method
        ``"percentile"`` (quantiles of the resampled means) or ``"bca"`` (bias-corrected and
        accelerated, Efron 1987; the acceleration from the jackknife of the mean).
    by
        Stratum column(s): one interval per stratum (found as in `distribution`).
    stratify
        Column(s) to resample within: every resample keeps each stratum's group count, as in a
        stratified sample (e.g. by traffic segment). The interval is still for the overall mean.
    attributes
        Table(s) of group attributes holding ``by`` / ``stratify`` columns.
    group_keys
        The group key columns of a per-group frame.
    labels
        Resample the labels as well as the groups, for values that are expectations over
        uncertain labels (``evaluate(..., label_probability=...)``, whose ``std`` column
        this reads): every group a resample draws also draws its value's deviation over the
        label outcomes (their sum over the drawn groups, normal by the central limit
        theorem, with variance the sum of their ``std**2``). The interval then covers the
        mean under the labels that are true as well as over the groups; without, it covers
        only the groups' variation.

    Returns
    -------
    pl.DataFrame
        Always eager (it draws random numbers). One row per (stratum…, metric, k), sorted:
        ``n_groups``, ``n_nan``, ``value`` (the mean), ``ci_low``, ``ci_high`` and
        ``std_error`` (standard deviation of the resampled means). With no groups every
        statistic is null; with one group ``ci_low``, ``ci_high`` and ``std_error`` are null
        (one group says nothing about spread).

    See Also
    --------
    distribution : summary statistics without resampling.
    compare : paired differences between systems, with bootstrap intervals and tests.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> per_group = pl.DataFrame({
    ...     "user": range(8),
    ...     "metric": "hit_rate",
    ...     "k": 10,
    ...     "value": [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0],
    ... })
    >>> ci = rk.bootstrap(per_group, n_resamples=2000, seed=0)
    >>> ci.select("metric", "k", "n_groups", "value", "ci_low", "ci_high")
    shape: (1, 6)
    ┌──────────┬─────┬──────────┬───────┬────────┬─────────┐
    │ metric   ┆ k   ┆ n_groups ┆ value ┆ ci_low ┆ ci_high │
    │ ---      ┆ --- ┆ ---      ┆ ---   ┆ ---    ┆ ---     │
    │ str      ┆ i64 ┆ i64      ┆ f64   ┆ f64    ┆ f64     │
    ╞══════════╪═════╪══════════╪═══════╪════════╪═════════╡
    │ hit_rate ┆ 10  ┆ 8        ┆ 0.625 ┆ 0.25   ┆ 0.875   │
    └──────────┴─────┴──────────┴───────┴────────┴─────────┘
    """
    check_options(n_resamples, confidence, method, seed)
    source = per_group_input(results, group_keys)
    strata = as_list(by, "by")
    layers = [c for c in as_list(stratify, "stratify") if c not in strata]
    keys_of_groups = list(source.group_keys)
    frame = with_strata(
        source.frame, source.group_keys, [*strata, *layers], attributes, source.groups
    )
    keys = [*strata, "metric", "k"]
    histogram = (
        frame.select(*keys, *layers, pl.col("value").fill_nan(None))
        .group_by([*keys, *layers, "value"])
        .agg(pl.len().cast(pl.Int64).alias("count"))
    )
    universe = _universe(frame, source.groups, keys_of_groups, [*strata, *layers], attributes)
    if labels and "std" not in frame.collect_schema():
        raise ValueError(
            "bootstrap(labels=True) resamples the label outcomes: the per-group values need a "
            "'std' column (evaluate(..., label_probability=...)); columns are "
            f"{frame.collect_schema().names()}"
        )
    spread = [pl.col("std").fill_nan(0.0).fill_null(0.0)] if labels else []
    values = frame.select(*keys_of_groups, "metric", "k", pl.col("value").fill_nan(None), *spread)
    table, groups, per_group = pl.collect_all(
        [sort_rows(histogram, strata, *layers, "value"), universe, values]
    )
    resampled = _resampled_means(
        groups.with_row_index("_g"), per_group, keys_of_groups, strata, layers, n_resamples, seed,
        labels=labels,
    )  # fmt: skip
    partitions = table.partition_by(keys, maintain_order=True) if table.height else []
    columns: dict[str, list[float | int | None]] = {
        name: [] for name in ("n_groups", "n_nan", "value", "ci_low", "ci_high", "std_error")
    }
    for part in partitions:
        key = part.select(keys).row(0)
        row = _one_row(part, resampled.get(key), confidence, method)
        for name, number in row.items():
            columns[name].append(number)
    heads = (
        pl.concat([part.select(keys).head(1) for part in partitions])
        if partitions
        else table.select(keys).clear()
    )
    schema = {"n_groups": pl.Int64, "n_nan": pl.Int64}
    numbers = pl.DataFrame(columns, schema={n: schema.get(n, pl.Float64) for n in columns})
    return pl.concat([heads, numbers], how="horizontal")


def _universe(
    frame: pl.LazyFrame,
    groups: pl.LazyFrame | None,
    group_keys: list[str],
    strata: list[str],
    attributes: Attributes,
) -> pl.LazyFrame:
    """The groups resampled, with their strata, sorted: the evaluation's groups table when
    there is one (so K-curves draw the same weights), else the groups of the per-group rows."""
    order = list(dict.fromkeys([*strata, *group_keys]))
    if groups is not None:
        try:
            table = with_strata(groups.select(group_keys), group_keys, strata, attributes, groups)
            return table.select(order).sort(order, nulls_last=True)
        except ValueError:
            pass  # a stratum that only the per-group rows carry
    return frame.select(order).unique().sort(order, nulls_last=True)


def resample_key(stratum: tuple[object, ...]) -> tuple[object, ...]:
    """The generator key of a stratum's resamples: shared by `bootstrap` and the K-curves."""
    return ("groups", *stratum)


def _resampled_means(
    groups: pl.DataFrame,
    per_group: pl.DataFrame,
    group_keys: list[str],
    strata: list[str],
    layers: list[str],
    n_resamples: int,
    seed: int | None,
    *,
    labels: bool = False,
) -> dict[tuple[object, ...], FloatArray]:
    """Resampled means of every (stratum…, metric, k) row, from one draw of group weights per
    stratum shared by all its rows: ``(W @ values) / (W @ present)`` per resample; with
    `labels`, ``W @ values`` gains a normal label deviation of variance ``W @ std**2`` (its
    own generator: the group weights stay those without)."""
    rows = per_group.join(groups, on=group_keys, how="inner", nulls_equal=True)
    out: dict[tuple[object, ...], FloatArray] = {}
    stratum_groups = groups.partition_by(strata, maintain_order=True) if strata else [groups]
    stratum_rows = (
        {part.select(strata).row(0): part for part in rows.partition_by(strata)}
        if strata
        else {(): rows}
    )
    for members in stratum_groups:
        stratum = members.select(strata).row(0) if strata else ()
        inside = stratum_rows.get(stratum)
        if inside is None or inside.height == 0:
            continue
        start = int(members["_g"][0])
        size = members.height
        sizes = (
            members.group_by(layers, maintain_order=True).len()["len"].to_list()
            if layers
            else [size]
        )
        cells = inside.select("metric", "k").unique().sort("metric", "k", nulls_last=True)
        step = max(1, _CELLS_PER_CHUNK // max(size, 1))
        for offset in range(0, cells.height, step):
            chunk = cells.slice(offset, step).with_row_index("_c")
            cell_rows = inside.join(chunk, on=["metric", "k"], nulls_equal=True)
            index = (cell_rows["_g"].to_numpy() - start, cell_rows["_c"].to_numpy())
            present = cell_rows["value"].is_not_null().to_numpy()
            matrix = np.zeros((size, chunk.height))
            valid = np.zeros((size, chunk.height))
            matrix[index[0][present], index[1][present]] = cell_rows["value"].to_numpy()[present]
            valid[index[0][present], index[1][present]] = 1.0
            variance = np.zeros((size, chunk.height))
            if labels:
                spread = cell_rows["std"].to_numpy()[present]
                variance[index[0][present], index[1][present]] = spread**2
            rng = generator(seed, resample_key(stratum))
            label_rng = generator(seed, ("labels", *resample_key(stratum)))
            # A column present in every group draws `size` groups in each resample: the
            # integer weights add up to it exactly, so it need not be multiplied out.
            everywhere = valid.min(axis=0) == 1.0

            def block(weights: FloatArray) -> FloatArray:
                # Column by column: a row's numbers must not depend on which others are asked.
                sums = np.column_stack([weights @ matrix[:, c] for c in range(chunk.height)])  # noqa: B023
                if labels:  # blocks run one after another: the label draws come in order
                    deviation = np.sqrt(weights @ variance)  # noqa: B023
                    sums = sums + deviation * label_rng.standard_normal(deviation.shape)  # noqa: B023
                drawn: FloatArray = np.full((len(weights), chunk.height), float(size))  # noqa: B023
                for c in np.flatnonzero(~everywhere):  # noqa: B023
                    drawn[:, c] = weights @ valid[:, c]  # noqa: B023
                with np.errstate(invalid="ignore", divide="ignore"):
                    return sums / drawn

            means = np.concatenate(over_weight_blocks(rng, sizes, n_resamples, block), axis=0)
            for c, (metric, k) in enumerate(chunk.select("metric", "k").iter_rows()):
                out[tuple(stratum) + (metric, k)] = means[:, c]  # noqa: RUF005
    return out


def _one_row(
    part: pl.DataFrame,
    resampled: FloatArray | None,
    confidence: float,
    method: IntervalMethod,
) -> dict[str, float | int | None]:
    present = part.filter(pl.col("value").is_not_null())
    n_nan = int(part.filter(pl.col("value").is_null())["count"].sum())
    n = int(present["count"].sum())
    row: dict[str, float | int | None] = {"n_groups": n, "n_nan": n_nan, "value": None}
    row |= {"ci_low": None, "ci_high": None, "std_error": None}
    if n == 0:
        return row
    values = present["value"].to_numpy().astype(np.float64)
    counts = present["count"].to_numpy().astype(np.int64)
    estimate = float(counts @ values) / n
    row["value"] = estimate
    if n < 2 or resampled is None:
        return row
    row["ci_low"], row["ci_high"] = interval(
        estimate, resampled, confidence, method, values, counts
    )
    row["std_error"] = float(np.nanstd(resampled, ddof=1)) if len(resampled) > 1 else None
    return row


#: Resamples drawn per block; fixed so that the draws do not depend on the table's size.
RESAMPLE_BLOCK = 50


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
        weights = np.empty((size, total))
        offset = 0
        for m in layers:
            if m:
                _count_draws(rng.integers(0, m, size=(size, m)), weights[:, offset : offset + m])
            offset += m
        yield weights


_Result = TypeVar("_Result")


def over_weight_blocks(
    rng: np.random.Generator,
    layers: Sequence[int],
    n_resamples: int,
    function: Callable[[FloatArray], _Result],
) -> list[_Result]:
    """`function` of each block of `weight_blocks`, in order: the weights drawn on this
    thread while one worker applies `function` to the block before (NumPy's draws and counts
    and the products `function` makes release the GIL, so the two overlap on two cores).
    The weights, and so the results, are those of drawing and applying block by block."""
    results: list[_Result] = []
    in_flight: deque[Future[_Result]] = deque()
    with ThreadPoolExecutor(max_workers=1) as worker:
        for weights in weight_blocks(rng, layers, n_resamples):
            in_flight.append(worker.submit(function, weights))
            if len(in_flight) > 1:  # two blocks held at most
                results.append(in_flight.popleft().result())
        results.extend(future.result() for future in in_flight)
    return results


def _count_draws(drawn: npt.NDArray[np.int64], out: FloatArray) -> None:
    """How often each of a layer's groups was drawn, per resample (a row of `drawn`)."""
    size, m = drawn.shape
    if m < 4096:
        shifted = (drawn + np.arange(0, size * m, m)[:, None]).ravel()
        out[:] = np.bincount(shifted, minlength=size * m).reshape(size, m)
        return
    # A large layer one resample at a time: its m counts stay in cache, size × m would not.
    for row, draws in zip(out, drawn, strict=True):
        row[:] = np.bincount(draws, minlength=m)
