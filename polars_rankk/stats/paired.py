"""The vectorised core of `compare`: every (metric, K) × pair of a stratum at once.

The aligned per-group values become one matrix per stratum (groups × cells, one cell per
metric × K, one layer per system). Each test then runs over all columns (cells × pairs) in one
pass: means, win/tie/loss counts, the t-test and Cohen's d as column reductions; the bootstrap
from one draw of group weights per stratum (``W @ differences``); the Monte Carlo
randomization test from one draw of signs per stratum (``S @ differences``). Only the exact
enumeration, the saddlepoint and SciPy's Wilcoxon test run column by column, on histograms.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core.optional import optional_module
from polars_rankk.core.progress import Bar
from polars_rankk.stats.per_group import sort_rows
from polars_rankk.stats.resampling import (
    FloatArray,
    IntervalMethod,
    generator,
    interval,
    resample_key,
)
from polars_rankk.stats.significance import (
    EXACT_LIMIT,
    SHARED_MONTE_CARLO_LIMIT,
    RandomizationMethod,
    benjamini_hochberg,
    holm,
    paired_t,
    randomization_p_value,
    shared_randomization,
    wilcoxon_method,
)

BoolArray = npt.NDArray[np.bool_]

NUMBERS: dict[str, type[pl.DataType]] = {
    "n_groups": pl.Int64,
    "n_groups_union": pl.Int64,
    "n_nan": pl.Int64,
    "n_missing_baseline": pl.Int64,
    "n_missing_system": pl.Int64,
    "baseline_mean": pl.Float64,
    "mean": pl.Float64,
    "diff": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "effect_size": pl.Float64,
    "wins": pl.Int64,
    "ties": pl.Int64,
    "losses": pl.Int64,
    "p_value_t": pl.Float64,
    "p_value_randomization": pl.Float64,
    "p_value_wilcoxon": pl.Float64,
    "p_adjusted": pl.Float64,
    "randomization_method": pl.String,
    "test": pl.String,
    "p_value_method": pl.String,
    "n_permutations": pl.Int64,
    "family_size": pl.Int64,
}
#: Every column of a `compare` table besides the stratum columns, in order.
COMPARISON_COLUMNS: tuple[str, ...] = ("metric", "k", "baseline", "system", *NUMBERS)
_TEST_COLUMN = {
    "t": "p_value_t",
    "randomization": "p_value_randomization",
    "wilcoxon": "p_value_wilcoxon",
}
_NULL_WITHOUT_GROUPS = (
    "baseline_mean", "mean", "diff", "effect_size", "p_value_t", "p_value_randomization",
    "p_value_wilcoxon", "randomization_method", "p_value_method",
)  # fmt: skip


@dataclass(frozen=True)
class Options:
    """The options of `compare` that the per-stratum work reads."""

    n_resamples: int
    confidence: float
    method: IntervalMethod
    n_permutations: int
    randomization: RandomizationMethod
    test: str
    seed: int | None


@dataclass
class Stratum:
    """One stratum: its cells (rows of the counts table) and its values as matrices."""

    key: tuple[object, ...]
    cells: pl.DataFrame
    values: FloatArray  # systems × groups × cells
    compared: BoolArray  # groups × cells: the group enters this cell's comparison
    has: BoolArray  # systems × cells: the system computed this metric × K at all
    # groups × cells × pairs: each pair's difference's variance over the label outcomes
    # (``compare(labels=True)``); None without.
    label_variance: FloatArray | None = None


@dataclass
class Layout:
    """The aligned values, cut by stratum, and what each system lacks."""

    part: list[str]
    strata: list[Stratum]
    empty: pl.DataFrame
    lacking: dict[str, list[str]]


def arrange(
    wide: pl.DataFrame,
    keys: list[str],
    strata: list[str],
    columns: list[str],
    names: list[str],
    groups: str,
    label_columns: Sequence[str] = (),
) -> Layout:
    """Counts per (stratum…, metric, k) and the compared values of each stratum as matrices
    (with `label_columns`, one per pair, each pair's label variances too).

    A system lacks a metric × K when it has no row for it in any group: comparisons with it are
    left out there (no zeros are invented for it), and the other systems are compared without it.
    """
    part = [*strata, "metric", "k"]
    has = wide.group_by("metric", "k").agg(
        pl.col(c).is_not_null().any().alias(f"__has_{i}") for i, c in enumerate(columns)
    )
    flags = [f"__has_{i}" for i in range(len(columns))]
    wide = wide.join(has, on=["metric", "k"], how="left", nulls_equal=True)
    if groups == "error":
        absent = wide.filter(pl.any_horizontal(pl.col(c).is_null() for c in columns))
        if absent.height:
            example = absent.row(0, named=True)
            without = [n for n, c in zip(names, columns, strict=True) if example[c] is None]
            shown = {k: v for k, v in example.items() if k in [*keys, *part]}
            raise ValueError(
                f"groups='error': systems {without} lack a (group, metric, k) others have, for "
                f"example {shown}; use groups='intersect' or 'zero'"
            )
    if groups == "zero":
        wide = wide.with_columns(
            pl.when(pl.col(f)).then(pl.col(c).fill_null(0.0)).alias(c)
            for c, f in zip(columns, flags, strict=True)
        )
    kept = pl.all_horizontal(
        ~pl.col(f) | pl.col(c).is_not_null() for c, f in zip(columns, flags, strict=True)
    )
    nan = pl.any_horizontal(
        pl.col(f) & pl.col(c).is_nan() for c, f in zip(columns, flags, strict=True)
    ).fill_null(False)
    wide = wide.with_columns(kept.alias("__kept"), (kept & nan).alias("__nan"))
    table = sort_rows(
        wide.lazy()
        .group_by(part)
        .agg(
            pl.len().cast(pl.Int64).alias("n_groups_union"),
            pl.col("__nan").sum().cast(pl.Int64).alias("n_nan"),
            *[pl.col(c).null_count().cast(pl.Int64).alias(f"__missing_{i}")
              for i, c in enumerate(columns)],
            *[pl.col(f).first() for f in flags],
        ),
        strata,
    ).collect().with_row_index("__cell")  # fmt: skip
    # A stratum may be a group key (by="user" of (user, session) groups): named once.
    identity = list(dict.fromkeys([*strata, *keys]))
    members = (
        wide.select(identity).unique().sort(identity, nulls_last=True)
        .with_columns(
            (pl.int_range(pl.len()).over(strata) if strata else pl.int_range(pl.len()))
            .alias("__group")
        )
    )  # fmt: skip
    rows = (
        wide.filter(pl.col("__kept") & ~pl.col("__nan"))
        .join(members, on=identity, nulls_equal=True)
        .join(table.select(*part, "__cell"), on=part, nulls_equal=True)
    )
    lacking = {
        name: [_label(m, k) for m, k, flag in has.select("metric", "k", f).iter_rows() if not flag]
        for name, f in zip(names, flags, strict=True)
    }
    found = []
    by_stratum = _split(table, strata)
    rows_of = _split(rows, strata)
    size_of: dict[tuple[object, ...], int] = {(): members.height}
    if strata:
        sizes = members.group_by(strata, maintain_order=True).len()
        size_of = {tuple(r[:-1]): r[-1] for r in sizes.iter_rows()}
    for key, cells in by_stratum.items():
        if cells.is_empty():
            continue  # no per-group metric (catalogue-level ones only): nothing to pair
        first = int(cells["__cell"][0])
        inside = rows_of.get(key, rows.clear())
        n_groups = int(size_of.get(key, 0))
        values = np.zeros((len(names), n_groups, cells.height))
        compared = np.zeros((n_groups, cells.height), dtype=bool)
        g = inside["__group"].to_numpy()
        c = inside["__cell"].to_numpy().astype(np.int64) - first
        compared[g, c] = True
        for i, column in enumerate(columns):
            values[i, g, c] = inside[column].fill_null(0.0).to_numpy()
        flags_matrix = cells.select(flags).to_numpy().T.astype(bool)
        label_variance = None
        if label_columns:
            label_variance = np.zeros((n_groups, cells.height, len(label_columns)))
            for j, column in enumerate(label_columns):
                spread = inside[column].fill_nan(0.0).fill_null(0.0).to_numpy()
                label_variance[g, c, j] = spread
        found.append(Stratum(key, cells, values, compared, flags_matrix, label_variance))
    return Layout(part, found, table.clear(), {n: v for n, v in lacking.items() if v})


def _split(frame: pl.DataFrame, strata: list[str]) -> dict[tuple[object, ...], pl.DataFrame]:
    if not strata:
        return {(): frame}
    return dict(frame.partition_by(strata, as_dict=True, maintain_order=True).items())


def _label(metric: str, k: int | None) -> str:
    return metric if k is None else f"{metric}@{k}"


def compare_stratum(
    stratum: Stratum, pairs: list[tuple[int, int]], options: Options, bar: Bar | None = None
) -> pl.DataFrame:
    """Every statistic of every pair on every metric × K of one stratum; one row per (cell,
    pair), cells in table order; pairs with a system lacking the cell are left out."""

    n_cells, n_pairs = stratum.cells.height, len(pairs)
    first = np.array([a for a, _ in pairs], dtype=np.int64)
    second = np.array([b for _, b in pairs], dtype=np.int64)
    # columns are cell-major: column c * n_pairs + j is cell c, pair j
    base = stratum.values[first].transpose(1, 2, 0).reshape(-1, n_cells * n_pairs)
    other = stratum.values[second].transpose(1, 2, 0).reshape(-1, n_cells * n_pairs)
    valid = np.repeat(stratum.compared, n_pairs, axis=1)
    differences = np.where(valid, other - base, 0.0)
    n = valid.sum(axis=0)
    out: dict[str, Any] = {"n_groups": n}
    with np.errstate(invalid="ignore", divide="ignore"):
        out["baseline_mean"] = np.where(valid, base, 0.0).sum(axis=0) / n
        out["mean"] = np.where(valid, other, 0.0).sum(axis=0) / n
        out["diff"] = differences.sum(axis=0) / n
    out["wins"] = np.count_nonzero(differences > 0, axis=0)
    out["losses"] = np.count_nonzero(differences < 0, axis=0)
    out["ties"] = n - out["wins"] - out["losses"]
    scale = np.where(valid, np.maximum(np.abs(base), np.abs(other)), 0.0).max(axis=0, initial=0)
    out["effect_size"], out["p_value_t"] = paired_t(differences, valid, scale)
    label_variance = None
    if stratum.label_variance is not None:
        # Cell-major like `differences`: column c * n_pairs + j is cell c, pair j.
        label_variance = np.where(valid, stratum.label_variance.reshape(-1, n_cells * n_pairs), 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["label_std_error"] = np.sqrt(label_variance.sum(axis=0)) / n
    out["ci_low"], out["ci_high"] = _intervals(
        stratum, differences, n, out["diff"], options, bar, label_variance
    )
    _tests(stratum, differences, valid, n, options, out)
    numbers = pl.DataFrame(
        {name: out[name] for name in _OUTPUT if name in out},
        schema={name: _OUTPUT[name] for name in _OUTPUT if name in out},
        nan_to_null=False,
    )
    cells = np.repeat(np.arange(n_cells), n_pairs)
    heads = stratum.cells.select(pl.all().gather(cells))
    labels = pl.DataFrame(
        {"__baseline": np.tile(first, n_cells), "__system": np.tile(second, n_cells)}
    )
    kept = stratum.has[first][:, :].T.ravel() & stratum.has[second].T.ravel()
    frame = pl.concat([heads, labels, numbers], how="horizontal")
    return frame.filter(pl.Series(kept)).with_columns(
        *[pl.when(pl.col("n_groups") == 0).then(None).otherwise(pl.col(c)).alias(c)
          for c in (*_NULL_WITHOUT_GROUPS, *(name for name in _LABEL if name in out))],
        *[pl.when(pl.col("n_groups") < 2).then(None).otherwise(pl.col(c)).alias(c)
          for c in ("ci_low", "ci_high")],
    )  # fmt: skip


def _intervals(
    stratum: Stratum,
    differences: FloatArray,
    n: npt.NDArray[np.int64],
    diff: FloatArray,
    options: Options,
    bar: Bar | None = None,
    label_variance: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Bootstrap intervals of every column from one draw of group weights per stratum:
    the resampled mean difference is ``(W @ d) / (W @ present)``, which for a column that
    compares every group of the stratum is the plain resampled mean. With `label_variance`
    (groups × columns), ``W @ d`` gains a normal label deviation of variance
    ``W @ label_variance``, drawn from its own generator (as `bootstrap(labels=True)` does):
    the group weights stay those without."""
    from polars_rankk.core.kernel.resample import resampled_column_sums
    from polars_rankk.stats.resampling import over_weight_blocks

    low = np.full(len(n), np.nan)
    high = np.full(len(n), np.nan)
    wanted = np.flatnonzero(n >= 2)
    if not len(wanted):
        if bar is not None:
            bar.update(options.n_resamples)
        return low, high
    n_pairs = differences.shape[1] // stratum.cells.height
    # Columns × groups, contiguous: ``(D.T @ W.T).T`` runs an order of magnitude faster in
    # BLAS than ``W @ D`` for a few hundred columns.
    chosen = np.ascontiguousarray(differences[:, wanted].T)
    everywhere = bool(stratum.compared.all())
    present = np.ascontiguousarray(stratum.compared.T, dtype=np.float64)
    rng = generator(options.seed, resample_key(stratum.key))
    label_rng = generator(options.seed, ("labels", *resample_key(stratum.key)))
    spread = None if label_variance is None else np.ascontiguousarray(label_variance[:, wanted].T)

    def block_means(weights: FloatArray) -> FloatArray:
        if everywhere:  # every column compares every group: each resample draws them all
            drawn = np.float64(stratum.compared.shape[0])
        else:
            drawn = np.repeat((present @ weights.T).T, n_pairs, axis=1)[:, wanted]
        sums = (chosen @ weights.T).T
        if spread is not None:  # blocks run one after another: the label draws in order
            deviation = np.sqrt((spread @ weights.T).T)
            sums = sums + deviation * label_rng.standard_normal(deviation.shape)
        if bar is not None:
            bar.update(len(weights))
        with np.errstate(invalid="ignore", divide="ignore"):
            means: FloatArray = sums / drawn
        return means

    groups = [stratum.compared.shape[0]]
    # Every column over every group, no label noise: the kernel draws and sums in one call.
    plain = everywhere and spread is None
    resampled = resampled_column_sums(rng, chosen, options.n_resamples) if plain else None
    if resampled is not None:
        resampled = resampled / np.float64(groups[0])
        if bar is not None:
            bar.update(options.n_resamples)
    else:
        parts = over_weight_blocks(rng, groups, options.n_resamples, block_means)
        resampled = np.concatenate(parts, axis=0)
    for position, column in enumerate(wanted):
        if options.method == "bca":
            d = differences[stratum.compared[:, column // n_pairs], column]
            values, counts = np.unique(d, return_counts=True)
        else:
            values, counts = np.empty(0), np.empty(0, dtype=np.int64)
        low[column], high[column] = interval(
            float(diff[column]), resampled[:, position], options.confidence, options.method,
            values, counts.astype(np.int64),
        )  # fmt: skip
    return low, high


def _tests(
    stratum: Stratum,
    differences: FloatArray,
    valid: BoolArray,
    n: npt.NDArray[np.int64],
    options: Options,
    out: dict[str, Any],
) -> None:
    """The randomization and Wilcoxon p-values, and which method gave each row's p-value."""
    stats = optional_module("scipy.stats", "paired significance tests")

    columns = differences.shape[1]
    p_random = np.full(columns, np.nan)
    p_wilcoxon = np.full(columns, np.nan)
    used: list[str | None] = [None] * columns
    wilcoxon_used: list[str | None] = [None] * columns
    shared: list[int] = []
    for column in np.flatnonzero(n > 0):
        d = differences[valid[:, column], column]
        if not d.any():
            p_random[column], p_wilcoxon[column] = 1.0, 1.0
            used[column] = wilcoxon_used[column] = "exact"
            continue
        magnitudes, counts = np.unique(np.abs(d[d != 0]), return_counts=True)
        choice = options.randomization
        if choice == "auto":
            arrangements = 1
            for count in counts:
                arrangements *= int(count) + 1
                if arrangements > EXACT_LIMIT:
                    break
            if arrangements <= EXACT_LIMIT:
                choice = "exact"
            elif len(d) * options.n_permutations <= SHARED_MONTE_CARLO_LIMIT:
                choice = "monte_carlo"
            else:
                choice = "saddlepoint"
        if choice == "monte_carlo":
            shared.append(int(column))
            used[column] = "monte_carlo"
        else:
            p_random[column], used[column] = randomization_p_value(
                magnitudes, counts.astype(np.int64), abs(float(d.sum())),
                options.n_permutations, None, choice,
            )  # fmt: skip
        with warnings.catch_warnings():  # degenerate inputs: SciPy warns and returns NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            p_wilcoxon[column] = float(stats.wilcoxon(d).pvalue)
        wilcoxon_used[column] = wilcoxon_method(d)
    if shared:
        picked = differences[:, shared]
        thresholds = np.abs(picked.sum(axis=0)) - 1e-10 * np.abs(picked).sum(axis=0)
        rng = generator(options.seed, ("randomization", *stratum.key))
        p_random[shared] = shared_randomization(picked, thresholds, options.n_permutations, rng)
    out["p_value_randomization"] = p_random
    out["p_value_wilcoxon"] = p_wilcoxon
    out["randomization_method"] = used
    out["test"] = [options.test] * columns
    method = {
        "t": ["t_distribution" if k > 0 else None for k in n],
        "randomization": used,
        "wilcoxon": wilcoxon_used,
    }[options.test]
    out["p_value_method"] = method
    out["n_permutations"] = [options.n_permutations if m == "monte_carlo" else None for m in method]


def finish(
    layout: Layout,
    pairs: list[tuple[str, str]],
    names: list[str],
    rows: pl.DataFrame | None,
    test: str,
    correction: str | None,
    family: str,
) -> pl.DataFrame:
    """Name the systems, add the missing counts, adjust the p-values within each family."""
    if layout.lacking:
        lacked = "; ".join(f"{n!r} lacks {', '.join(v)}" for n, v in layout.lacking.items())
        warnings.warn(
            f"compare: {lacked}; comparisons with a system on a metric × K it did not compute "
            "are left out",
            UserWarning,
            stacklevel=3,
        )
    part = layout.part
    if rows is None:
        rows = pl.concat(
            [layout.empty, pl.DataFrame(schema={"__baseline": pl.Int64, "__system": pl.Int64}),
             pl.DataFrame(schema={k: v for k, v in NUMBERS.items() if k not in _LATER})],

            how="horizontal",
        )  # fmt: skip
    index = pl.DataFrame({"__i": range(len(names)), "__name": names},
                         schema={"__i": pl.Int64, "__name": pl.String})  # fmt: skip
    missing = [f"__missing_{i}" for i in range(len(names))]
    rows = rows.with_columns(
        pl.col("__baseline").replace_strict(index["__i"], index["__name"]).alias("baseline"),
        pl.col("__system").replace_strict(index["__i"], index["__name"]).alias("system"),
        pl.concat_list(missing).list.get(pl.col("__baseline")).alias("n_missing_baseline"),
        pl.concat_list(missing).list.get(pl.col("__system")).alias("n_missing_system"),
    )
    chosen = rows[_TEST_COLUMN[test]].fill_null(np.nan).to_numpy().astype(np.float64)
    adjust = {"holm": holm, "bh": benjamini_hochberg}.get(correction or "")
    families = (
        rows["__cell"].to_numpy() if family == "challengers" else np.zeros(rows.height, np.int64)
    )
    adjusted = np.full(rows.height, np.nan)
    size = np.zeros(rows.height, dtype=np.int64)
    for member in np.unique(families):
        inside = np.flatnonzero(families == member)
        p = chosen[inside]
        adjusted[inside] = adjust(p) if adjust is not None else p
        size[inside] = int(np.count_nonzero(~np.isnan(p)))
    rows = rows.with_columns(
        pl.Series("p_adjusted", adjusted, dtype=pl.Float64),
        pl.Series("family_size", size, dtype=pl.Int64),
    )
    order = [*part, "baseline", "system", *NUMBERS, *(c for c in _LABEL if c in rows.columns)]
    return rows.select(order)


#: The columns `compare(labels=True)` adds after the others: the standard error of the mean
#: difference that the label outcomes alone give.
_LABEL: dict[str, type[pl.DataType]] = {"label_std_error": pl.Float64}
_OUTPUT = {**NUMBERS, **_LABEL}
_LATER = (
    "n_groups_union", "n_nan", "n_missing_baseline", "n_missing_system", "p_adjusted",
    "family_size",
)  # fmt: skip
