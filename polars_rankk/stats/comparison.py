"""Paired comparison of systems evaluated on the same groups (SPEC §5).

Two systems with the same mean can fail different groups; a paired analysis looks at the
per-group differences. `compare` aligns the per-group values of two or more systems, then for
every metric × K (and stratum) reports each mean, the mean difference with a bootstrap interval,
three paired tests — Student's t (`scipy.stats.ttest_rel`), the randomization (sign-flip)
test of Fisher as used in IR by Smucker et al. (CIKM 2007), and Wilcoxon's signed-rank test
(`scipy.stats.wilcoxon`) — an effect size, win/tie/loss counts, and p-values adjusted for
multiple comparisons across every row (Holm, or Benjamini–Hochberg).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import polars as pl

from polars_rankk.stats.distributions import (
    Attributes,
    PerGroup,
    Results,
    as_list,
    per_group_input,
    sort_rows,
    with_strata,
)
from polars_rankk.stats.resampling import (
    FloatArray,
    IntArray,
    IntervalMethod,
    check_options,
    generator,
    interval,
    resampled_column_sums,
    resampled_sums,
    uses_histogram,
)
from polars_rankk.stats.significance import (
    RandomizationMethod,
    benjamini_hochberg,
    holm,
    randomization_p_value,
)

GroupPolicy = Literal["intersect", "error", "zero"]
PairedTest = Literal["t", "randomization", "wilcoxon"]
Correction = Literal["holm", "bh"]
_TEST_COLUMN = {
    "t": "p_value_t",
    "randomization": "p_value_randomization",
    "wilcoxon": "p_value_wilcoxon",
}
_NUMBERS: dict[str, type[pl.DataType]] = {
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
    "randomization_method": pl.String,
}


def compare(
    systems: Mapping[str, Results],
    baseline: str | None = None,
    *,
    by: str | Sequence[str] | None = None,
    attributes: Attributes = None,
    groups: GroupPolicy = "intersect",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    method: IntervalMethod = "percentile",
    n_permutations: int = 10_000,
    randomization: RandomizationMethod = "auto",
    test: PairedTest = "randomization",
    correction: Correction | None = "holm",
    seed: int | None = 0,
    group_keys: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Compare two or more systems on the same groups: differences, intervals, paired tests.

    Differences are ``system - baseline`` per group. Every row of the output is one comparison
    of one metric × K (in one stratum).

    Parameters
    ----------
    systems
        ``{name: evaluation or per-group frame}``, all with the same group keys.
    baseline
        Compare every other system with this one; ``None`` compares all pairs (in the order of
        ``systems``, the earlier one as baseline).
    by
        Stratum column(s) for separate comparisons. Looked up on the per-group frames, the
        ``attributes`` tables, then the baseline's (or first system's) ``groups`` table.
    attributes
        Table(s) of group attributes holding ``by`` columns.
    groups
        Groups not evaluated by every system (per metric × K): ``"intersect"`` uses only groups
        every system has; ``"zero"`` scores a system 0 on the groups it lacks (as trec_eval
        ``-c`` does for missing queries); ``"error"`` raises. The counts are reported.
    n_resamples, confidence, method
        Bootstrap interval of the mean difference, resampling groups (see `bootstrap`).
    n_permutations, randomization
        Randomization test: arrangements drawn, and how (see `randomization_test`; "auto" is
        exact when it can be and switches to the saddlepoint approximation only where sampling
        would exceed 1e7 draws — many distinct differences over many groups).
    test
        The test whose p-values are adjusted into ``p_adjusted``. Randomization by default
        (Smucker et al. 2007 recommend it for IR metrics).
    correction
        ``"holm"`` (family-wise error), ``"bh"`` (Benjamini–Hochberg false discovery rate), or
        ``None`` (``p_adjusted`` is then the unadjusted p-value). Applied across all rows:
        every metric, K, stratum and pair; rows without a p-value are left out.
    seed
        Reproducibility of the bootstrap and randomization draws: each (stratum…, metric, k)
        draws from its own generator seeded by ``(seed, stratum…, metric, k)``, its pairs in
        turn (so results do not move when other metrics are added, but can when systems are).
        ``None``: fresh entropy.
    group_keys
        The group key columns of per-group frames.

    Returns
    -------
    pl.DataFrame
        Always eager. One row per (stratum…, metric, k, pair), sorted, with ``baseline``,
        ``system``; ``n_groups`` (compared), ``n_groups_union`` (in any system),
        ``n_nan`` (left out: a NaN value in some system), ``n_missing_baseline``,
        ``n_missing_system`` (union groups absent from that system: dropped under
        "intersect", scored 0 under "zero"); ``baseline_mean``, ``mean``, ``diff`` (mean
        difference), ``ci_low``, ``ci_high``; ``effect_size`` (Cohen's d_z: mean difference /
        standard deviation of the differences, ddof=1; NaN when that deviation is 0);
        ``wins``, ``ties``, ``losses`` (groups where the system is above, equal to, below the
        baseline); ``p_value_t`` (`scipy.stats.ttest_rel`), ``p_value_randomization``,
        ``p_value_wilcoxon`` (`scipy.stats.wilcoxon`, its defaults: zero differences dropped);
        ``p_adjusted`` and ``randomization_method``. When every difference is 0 all three
        p-values are 1; with fewer than 2 groups the interval and the t-test are null/NaN.

    See Also
    --------
    bootstrap : intervals for one system's means.
    randomization_test : the randomization test on its own.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> a = pl.DataFrame({"user": range(6), "metric": "ndcg", "k": 10,
    ...                   "value": [0.2, 0.5, 0.1, 0.4, 0.3, 0.6]})
    >>> b = a.with_columns(pl.col("value") + pl.Series([0.1, 0.2, 0.0, 0.3, 0.1, 0.2]))
    >>> out = rk.compare({"A": a, "B": b}, baseline="A", seed=0)
    >>> out.select("system", "diff", "wins", "ties", "p_value_randomization")
    shape: (1, 5)
    ┌────────┬──────┬──────┬──────┬───────────────────────┐
    │ system ┆ diff ┆ wins ┆ ties ┆ p_value_randomization │
    │ ---    ┆ ---  ┆ ---  ┆ ---  ┆ ---                   │
    │ str    ┆ f64  ┆ i64  ┆ i64  ┆ f64                   │
    ╞════════╪══════╪══════╪══════╪═══════════════════════╡
    │ B      ┆ 0.15 ┆ 5    ┆ 1    ┆ 0.0625                │
    └────────┴──────┴──────┴──────┴───────────────────────┘
    """
    check_options(n_resamples, confidence, method, seed)
    names = _check_systems(systems, baseline, groups, test, correction, n_permutations)
    pairs = (
        [(baseline, name) for name in names if name != baseline]
        if baseline is not None
        else list(combinations(names, 2))
    )
    sources = [per_group_input(systems[n], group_keys, argument=f"systems[{n!r}]") for n in names]
    keys = _common_keys(sources, names)
    columns = [f"__value_{i}" for i in range(len(names))]
    strata = as_list(by)
    part = [*strata, "metric", "k"]
    anchor = sources[names.index(baseline) if baseline is not None else 0]
    wide = with_strata(_aligned(sources, names, keys, columns).lazy(), keys, strata, attributes,
                       anchor.groups).collect()  # fmt: skip
    table, parts = _partitions(wide, part, strata, columns, names, groups)
    index = {name: i for i, name in enumerate(names)}
    rows: list[dict[str, float | int | str | None]] = []
    for position, key in enumerate(table.select(part).iter_rows()):
        matrix = parts[key] if key in parts else np.empty((0, len(names)))
        rng = generator(seed, key)
        found = _compare_part(
            matrix, [(index[a], index[b]) for a, b in pairs], n_resamples, confidence, method,
            n_permutations, randomization, rng,
        )  # fmt: skip
        for (a, b), row in zip(pairs, found, strict=True):
            row |= {
                "n_groups_union": table["n_groups_union"][position],
                "n_nan": table["n_nan"][position],
                "n_missing_baseline": table[f"__missing_{index[a]}"][position],
                "n_missing_system": table[f"__missing_{index[b]}"][position],
            }
            rows.append(row)
    heads = table.select(part).select(
        pl.all().gather(np.repeat(np.arange(table.height), len(pairs)))
    )
    labels = pl.DataFrame(
        {"baseline": [a for a, _ in pairs] * table.height,
         "system": [b for _, b in pairs] * table.height},
        schema={"baseline": pl.String, "system": pl.String},
    )  # fmt: skip
    numbers = pl.DataFrame(
        {name: [row[name] for row in rows] for name in _NUMBERS}, schema=_NUMBERS
    )
    chosen = numbers[_TEST_COLUMN[test]].to_numpy().astype(np.float64)
    adjust: Callable[[FloatArray], FloatArray] | None = {
        "holm": holm, "bh": benjamini_hochberg, None: None
    }[correction]  # fmt: skip
    adjusted = adjust(chosen) if adjust is not None else chosen
    numbers = numbers.with_columns(pl.Series("p_adjusted", adjusted, dtype=pl.Float64))
    order = [*list(_NUMBERS)[:-1], "p_adjusted", "randomization_method"]
    return pl.concat([heads, labels, numbers.select(order)], how="horizontal")


def _check_systems(
    systems: Mapping[str, Results],
    baseline: str | None,
    groups: str,
    test: str,
    correction: str | None,
    n_permutations: int,
) -> list[str]:
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError("systems must be a mapping {name: evaluation} of at least two systems")
    names = list(systems)
    if any(not isinstance(name, str) for name in names):
        raise TypeError(f"system names must be strings; got {names}")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
    for option, value, allowed in (
        ("groups", groups, ("intersect", "error", "zero")),
        ("test", test, ("t", "randomization", "wilcoxon")),
        ("correction", correction, ("holm", "bh", None)),
    ):
        if value not in allowed:
            raise ValueError(f"{option} must be one of {allowed}; got {value!r}")
    if not isinstance(n_permutations, int) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer; got {n_permutations!r}")
    return names


def _common_keys(sources: list[PerGroup], names: list[str]) -> list[str]:
    keys = sources[0].group_keys
    first = sources[0].frame.collect_schema()
    for name, source in zip(names[1:], sources[1:], strict=True):
        if sorted(source.group_keys) != sorted(keys):
            raise ValueError(
                f"systems must share group keys: {names[0]!r} has {keys}, {name!r} has "
                f"{source.group_keys}"
            )
        schema = source.frame.collect_schema()
        for key in keys:
            if schema[key] != first[key]:
                raise TypeError(
                    f"group key {key!r} is {first[key]} in {names[0]!r} but {schema[key]} in "
                    f"{name!r}"
                )
    return keys


def _aligned(
    sources: list[PerGroup], names: list[str], keys: list[str], columns: list[str]
) -> pl.DataFrame:
    """One row per (group, metric, k) in any system; one value column per system (null where
    a system lacks the row). Systems listing the same rows in the same order (as `evaluate`
    does for eager inputs) are stacked side by side; otherwise each metric × K is joined on
    the group keys alone, which is much cheaper than joining on (keys, metric, k)."""
    on = [*keys, "metric", "k"]
    frames = pl.collect_all(
        [
            s.frame.select(*on, pl.col("value").alias(c))
            for s, c in zip(sources, columns, strict=True)
        ]
    )
    first = frames[0]
    if all(f.height == first.height for f in frames) and all(
        first.select(on).equals(f.select(on)) for f in frames[1:]
    ):
        return first.with_columns(
            f.get_column(c) for f, c in zip(frames[1:], columns[1:], strict=True)
        )
    split = [f.partition_by("metric", "k", as_dict=True) for f in frames]
    joined = []
    for part in dict.fromkeys(key for pieces in split for key in pieces):
        wide: pl.LazyFrame | None = None
        for name, frame, pieces in zip(names, frames, split, strict=True):
            piece = pieces.get(part, frame.clear()).drop("metric", "k")
            if piece.select(keys).is_duplicated().any():
                example = piece.filter(piece.select(keys).is_duplicated()).row(0, named=True)
                raise ValueError(
                    f"systems[{name!r}] has more than one row for a (group, metric, k): "
                    f"{example | {'metric': part[0], 'k': part[1]}}"
                )
            wide = piece.lazy() if wide is None else wide.join(
                piece.lazy(), on=keys, how="full", coalesce=True, nulls_equal=True
            )  # fmt: skip
        assert wide is not None
        joined.append(
            wide.select(
                *keys,
                pl.lit(part[0], pl.String).alias("metric"),
                pl.lit(part[1], pl.Int64).alias("k"),
                *columns,
            )
        )
    return pl.concat(pl.collect_all(joined))


def _partitions(
    wide: pl.DataFrame,
    part: list[str],
    strata: list[str],
    columns: list[str],
    names: list[str],
    groups: GroupPolicy,
) -> tuple[pl.DataFrame, dict[tuple[object, ...], FloatArray]]:
    """Counts per (stratum…, metric, k), and the compared values of each as a matrix."""
    missing = [pl.col(c).null_count().cast(pl.Int64).alias(f"__missing_{i}")
               for i, c in enumerate(columns)]  # fmt: skip
    counts = wide.group_by(part).agg(pl.len().cast(pl.Int64).alias("n_groups_union"), *missing)
    absent = counts.select(pl.sum_horizontal(f"__missing_{i}" for i in range(len(names))).sum())
    if groups == "error" and absent.item():
        example = wide.filter(pl.any_horizontal(pl.col(c).is_null() for c in columns)).head(1)
        lacking = [n for n, c in zip(names, columns, strict=True) if example[c][0] is None]
        raise ValueError(
            f"groups='error': systems {lacking} lack a (group, metric, k) others have, for "
            f"example {example.drop(columns).row(0, named=True)}; use groups='intersect' or 'zero'"
        )
    if groups == "zero":
        kept = wide.with_columns(pl.col(c).fill_null(0.0) for c in columns)
    else:
        kept = wide.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in columns))
    kept = kept.with_columns(pl.any_horizontal(pl.col(c).is_nan() for c in columns).alias("__nan"))
    nan = kept.group_by(part).agg(pl.col("__nan").sum().cast(pl.Int64).alias("n_nan"))
    table = sort_rows(
        counts.lazy().join(nan.lazy(), on=part, how="left", nulls_equal=True), strata
    ).collect().with_columns(pl.col("n_nan").fill_null(0))  # fmt: skip
    split = kept.filter(~pl.col("__nan")).select(*part, *columns)
    parts = {
        key: frame.select(columns).to_numpy().astype(np.float64)
        for key, frame in split.partition_by(part, as_dict=True).items()
    }
    return table, parts


def _compare_part(
    matrix: FloatArray,
    pairs: list[tuple[int, int]],
    n_resamples: int,
    confidence: float,
    method: IntervalMethod,
    n_permutations: int,
    randomization: RandomizationMethod,
    rng: np.random.Generator,
) -> list[dict[str, float | int | str | None]]:
    """Every statistic of every pair on one metric × K (× stratum); ``matrix`` is groups ×
    systems."""
    n = matrix.shape[0]
    differences = [matrix[:, b] - matrix[:, a] for a, b in pairs]
    histograms = [np.unique(d, return_counts=True) for d in differences]
    resampled: dict[int, FloatArray] = {}
    if n >= 2:  # intervals first, so the draws do not depend on the tests
        dense = [j for j, (v, _) in enumerate(histograms) if not uses_histogram(len(v), n)]
        for j, (values, counts) in enumerate(histograms):
            if j not in dense:
                resampled[j] = resampled_sums(values, counts.astype(np.int64), n_resamples, rng) / n
        if dense:
            stacked = np.column_stack([differences[j] for j in dense])
            sums = resampled_column_sums(stacked, n_resamples, rng) / n
            resampled |= {j: sums[:, i] for i, j in enumerate(dense)}
    rows = []
    for j, (a, b) in enumerate(pairs):
        d, (values, counts) = differences[j], histograms[j]
        row: dict[str, float | int | str | None] = dict.fromkeys(_NUMBERS)
        row |= {"n_groups": n, "wins": int((d > 0).sum()), "ties": int((d == 0).sum())}
        row["losses"] = int((d < 0).sum())
        if n == 0:
            rows.append(row)
            continue
        diff = float(d.mean())
        row |= {"baseline_mean": float(matrix[:, a].mean()), "mean": float(matrix[:, b].mean())}
        row["diff"] = diff
        if j in resampled:
            row["ci_low"], row["ci_high"] = interval(
                diff, resampled[j], confidence, method, values, counts.astype(np.int64)
            )
        spread = float(d.std(ddof=1)) if n >= 2 else math.nan
        row["effect_size"] = diff / spread if spread > 0 else math.nan
        row |= _p_values(matrix[:, b], matrix[:, a], values, counts, n_permutations,
                         randomization, rng)  # fmt: skip
        rows.append(row)
    return rows


def _p_values(
    system: FloatArray,
    base: FloatArray,
    values: FloatArray,
    counts: FloatArray | IntArray,
    n_permutations: int,
    randomization: RandomizationMethod,
    rng: np.random.Generator,
) -> dict[str, float | int | str | None]:
    from scipy import stats

    nonzero = values != 0
    if not nonzero.any():
        return {"p_value_t": 1.0, "p_value_wilcoxon": 1.0, "p_value_randomization": 1.0,
                "randomization_method": "exact"}  # fmt: skip
    magnitudes, inverse = np.unique(np.abs(values[nonzero]), return_inverse=True)
    weights = np.bincount(inverse, weights=counts[nonzero]).astype(np.int64)
    observed = abs(float(counts @ values))
    p_random, used = randomization_p_value(
        magnitudes, weights, observed, n_permutations, rng, randomization
    )
    with warnings.catch_warnings():  # degenerate inputs: SciPy warns and returns NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        p_t = float(stats.ttest_rel(system, base).pvalue) if len(system) >= 2 else math.nan
        p_w = float(stats.wilcoxon(system, base).pvalue)
    return {"p_value_t": p_t, "p_value_wilcoxon": p_w, "p_value_randomization": p_random,
            "randomization_method": used}  # fmt: skip
