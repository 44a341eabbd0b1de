"""Risk-sensitive comparison with one or several baselines: URisk, TRisk and GeoRisk.

A system that wins on average can still hurt many groups badly. Risk-sensitive measures weigh
each group's loss against a baseline more than its win:

- **URisk** (Wang, Bennett & Collins-Thompson, SIGIR 2012): with δ_g = system − baseline on
  group g, z_g = δ_g for a win or a tie and (1 + α) δ_g for a loss; URisk = mean of z_g.
- **TRisk** (Dinçer, Macdonald & Ounis, SIGIR 2014): URisk divided by its standard error,
  sd(z_g) / √c (sd with ddof=1, c groups): a one-sample t statistic of the z_g, with c − 1
  degrees of freedom. |TRisk| > 2 is the authors' rule of thumb for a significant risk (below
  −2) or reward (above 2); ``p_value`` is the two-sided p-value of that t statistic (equal to
  `scipy.stats.ttest_1samp` of the z_g).
- **GeoRisk** (Dinçer, Macdonald & Ounis, SIGIR 2016) scores a system within a matrix of
  systems × groups — here the system and every baseline, on the groups they all have. With
  x_ig the value of system i on group g, S_i = Σ_g x_ig, T_g = Σ_i x_ig, N = Σ S_i and the
  expected value e_ig = S_i T_g / N, each group gives z_ig = (x_ig − e_ig) / √e_ig (0 where
  e_ig = 0: every system scores 0 there), losses weighted by 1 + α; ZRisk_i = Σ_g z_ig and
  GeoRisk_i = √(S_i / c · Φ(ZRisk_i / c)), Φ the standard normal distribution function. It
  combines a system's mean (S_i / c) with how it fares, group by group, against what the
  matrix expects of it. Only for metrics where higher is better and values are not negative.

For a metric where lower is better, δ_g = baseline − system, so that a positive δ is a win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from polars_rankk.core import LOWER_IS_BETTER, Evaluation
from polars_rankk.core.optional import optional_module
from polars_rankk.stats.pairing import baselines_of, long_values, paired_values, system_mapping
from polars_rankk.stats.per_group import Results, sort_rows

#: The columns of a `risk` table, in order.
RISK_COLUMNS: tuple[str, ...] = (
    "metric", "k", "baseline", "system", "n_groups", "wins", "ties", "losses", "diff",
    "urisk", "urisk_se", "trisk", "p_value", "geo_risk", "baseline_geo_risk", "alpha",
)  # fmt: skip


def loss_weighted(delta: pl.Expr, alpha: float) -> pl.Expr:
    """δ for a win or a tie, (1 + α) δ for a loss."""
    return pl.when(delta < 0).then((1.0 + alpha) * delta).otherwise(delta)


def risk(
    systems: Mapping[str, Results] | Evaluation,
    baseline: str | Sequence[str] | None = None,
    *,
    alpha: float = 1.0,
    group_keys: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Risk-sensitive comparison of systems with one or several baselines: URisk, TRisk with
    its p-value, and GeoRisk (see the module docstring for the definitions).

    Parameters
    ----------
    systems
        ``{name: evaluation or per-group frame}`` sharing their group keys, or one evaluation
        of several systems (``evaluate(..., system=COLUMN)``).
    baseline
        The baseline name, or several: every other system is compared with each of them.
        Default: the first system.
    alpha
        The risk aversion α >= 0: a loss weighs 1 + α times a win of the same size (α = 0:
        URisk is the mean difference). Dinçer et al. report α in {1, 5, 10}.
    group_keys
        The group key columns of per-group frames.

    Returns
    -------
    pl.DataFrame
        One row per (metric, k, baseline, system) with ``n_groups`` (paired: both values
        present and not NaN), ``wins``, ``ties``, ``losses``, ``diff`` (mean δ), ``urisk``,
        ``urisk_se``, ``trisk`` and ``p_value`` (null with fewer than 2 groups, NaN when
        the z_g have no spread), ``geo_risk`` (the system's GeoRisk in the matrix of it and
        every baseline, on the groups all of them have), ``baseline_geo_risk`` (this
        baseline's GeoRisk in that same matrix) and ``alpha``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> base = pl.DataFrame({"q": range(4), "metric": "ndcg", "k": 10,
    ...                      "value": [0.5, 0.5, 0.5, 0.5]})
    >>> new = base.with_columns(pl.Series("value", [0.75, 0.75, 0.5, 0.25]))
    >>> out = rk.risk({"base": base, "new": new}, "base", alpha=1.0)
    >>> out.select("wins", "losses", "diff", "urisk", "trisk").row(0)
    (2, 1, 0.0625, 0.0, 0.0)
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha >= 0:
        raise ValueError(f"alpha must be a number >= 0; got {alpha!r}")
    mapping = system_mapping(systems, "risk")
    chosen = baselines_of(list(mapping), baseline, "risk")
    paired, keys = paired_values(mapping, chosen, group_keys=group_keys, caller="risk")
    delta = pl.col("delta")
    z = loss_weighted(delta, float(alpha))
    on = ["metric", "k", "baseline", "system"]
    summary = paired.group_by(on, maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("n_groups"),
        (delta > 0).sum().cast(pl.Int64).alias("wins"),
        (delta == 0).sum().cast(pl.Int64).alias("ties"),
        (delta < 0).sum().cast(pl.Int64).alias("losses"),
        delta.mean().alias("diff"),
        z.mean().alias("urisk"),
        z.std(ddof=1).alias("__sd"),
        z.abs().max().alias("__scale"),
    )
    long, _ = long_values(mapping, group_keys)
    found, geo = pl.collect_all([summary, geo_risk_frame(long, keys, chosen, float(alpha))])
    table = found.join(geo, on=["metric", "k", "baseline", "system"], how="left", nulls_equal=True)
    return _with_inference(table, float(alpha)).select(RISK_COLUMNS)


def _with_inference(table: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """``urisk_se``, ``trisk`` and its two-sided p-value (t with c − 1 degrees of freedom)."""
    stats = optional_module("scipy.stats", "TRisk's p-values")
    n = pl.col("n_groups")
    flat = pl.col("__sd") <= 1e-12 * pl.col("__scale")  # float rounding is not a spread
    se = pl.col("__sd") / n.cast(pl.Float64).sqrt()
    table = table.with_columns(
        pl.when(n < 2).then(None).otherwise(se).alias("urisk_se"),
        pl.when(n < 2)
        .then(None)
        .when(flat)
        .then(float("nan"))
        .otherwise(pl.col("urisk") / se)
        .alias("trisk"),
        pl.lit(alpha).alias("alpha"),
    )
    statistic = table["trisk"].to_numpy().astype(np.float64)
    freedom = np.maximum(table["n_groups"].to_numpy() - 1, 1)
    with np.errstate(invalid="ignore"):
        p = 2.0 * stats.t.sf(np.abs(statistic), freedom)
    return table.with_columns(
        pl.when(pl.col("trisk").is_null())
        .then(None)
        .otherwise(pl.Series(p, dtype=pl.Float64, nan_to_null=False))
        .alias("p_value")
    )


def geo_risk_frame(
    long: pl.LazyFrame, keys: list[str], baselines: list[str], alpha: float
) -> pl.LazyFrame:
    """GeoRisk of each non-baseline system and of each baseline, in the matrix of that system
    and every baseline (lazy): metric, k, baseline, system, geo_risk, baseline_geo_risk."""
    special = optional_module("scipy.special", "GeoRisk")
    base = long.filter(pl.col("system").is_in(baselines))
    others = long.filter(~pl.col("system").is_in(baselines))
    candidates = others.select(pl.col("system").unique().alias("__candidate"))
    matrix = pl.concat(
        [
            others.with_columns(pl.col("system").alias("__candidate")),
            base.join(candidates, how="cross"),
        ],
        how="vertical_relaxed",
    )
    cell = ["__candidate", "metric", "k"]
    column = [*cell, "system"]
    complete = pl.len().over([*cell, *keys]) == len(baselines) + 1
    x = pl.col("value")
    s = x.sum().over(column)
    e = s * x.sum().over([*cell, *keys]) / x.sum().over(cell)
    z = pl.when(e > 0).then((x - e) / e.sqrt()).otherwise(0.0)
    scored = (
        matrix.filter(complete)
        .with_columns(loss_weighted(z, alpha).alias("__z"))
        .group_by(column)
        .agg(
            x.sum().alias("__s"),
            pl.col("__z").sum().alias("__zrisk"),
            pl.len().alias("__c"),
            (x < 0).any().alias("__negative"),
        )
    )
    c = pl.col("__c").cast(pl.Float64)
    ratio = pl.col("__zrisk") / c
    normal = ratio.map_batches(
        lambda series: pl.Series(special.ndtr(series.to_numpy()), dtype=pl.Float64),
        return_dtype=pl.Float64,
    )
    lower = list(LOWER_IS_BETTER)
    valid = ~pl.col("__negative").any().over(cell) & ~pl.col("metric").cast(pl.String).is_in(lower)
    value = pl.when(valid).then((pl.col("__s") / c * normal).sqrt()).otherwise(None)
    scores = scored.with_columns(value.alias("__geo")).select(*column, "__geo")
    own = scores.filter(pl.col("system") == pl.col("__candidate")).select(
        "metric", "k", pl.col("system"), pl.col("__geo").alias("geo_risk"), "__candidate"
    )
    theirs = scores.filter(pl.col("system") != pl.col("__candidate")).select(
        "metric", "k", "__candidate", pl.col("system").alias("baseline"),
        pl.col("__geo").alias("baseline_geo_risk"),
    )  # fmt: skip
    return own.join(theirs, on=["metric", "k", "__candidate"], nulls_equal=True).select(
        "metric", "k", "baseline", "system", "geo_risk", "baseline_geo_risk"
    )


def per_group_risk(
    systems: Mapping[str, Results] | Evaluation,
    baseline: str | Sequence[str] | None = None,
    *,
    alpha: float = 1.0,
    group_keys: Sequence[str] | None = None,
) -> pl.DataFrame:
    """The groups behind `risk`: one row per (metric, k, baseline, system, group) with both
    values, δ and its loss-weighted z (what the risk chart draws).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.risk_sensitive import per_group_risk
    >>> base = pl.DataFrame({"q": [1, 2], "metric": "ndcg", "k": 10, "value": [0.5, 0.5]})
    >>> new = base.with_columns(pl.Series("value", [0.75, 0.25]))
    >>> per_group_risk({"base": base, "new": new}, alpha=2.0)["z"].to_list()
    [0.25, -0.75]
    """
    mapping = system_mapping(systems, "risk")
    chosen = baselines_of(list(mapping), baseline, "risk")
    paired, _ = paired_values(mapping, chosen, group_keys=group_keys, caller="risk")
    z = loss_weighted(pl.col("delta"), float(alpha))
    return paired.with_columns(z.alias("z")).collect()


#: The columns of a `risk_distribution` table, in order.
RISK_DISTRIBUTION_COLUMNS: tuple[str, ...] = (
    "metric", "k", "baseline", "system", "outcome", "bin_low", "bin_high", "n_groups",
    "urisk", "trisk", "alpha",
)  # fmt: skip


def risk_distribution(
    systems: Mapping[str, Results] | Evaluation,
    baseline: str | Sequence[str] | None = None,
    *,
    alpha: float = 1.0,
    bins: int = 20,
    group_keys: Sequence[str] | None = None,
) -> pl.DataFrame:
    """The per-group wins and losses behind `risk`, counted in bins of δ: what
    `polars_rankk.plot_risk` draws, a few rows however many groups there are.

    The bins of one metric × K are shared by every pair: `bins` bins of equal width
    splitting [−m, m], m the largest |δ|, so that 0 is an edge and no bin mixes wins with
    losses; ties (δ = 0) have their own row (``bin_low = bin_high = 0``).

    Returns
    -------
    pl.DataFrame
        One row per (metric, k, baseline, system, outcome, bin) with groups in it:
        ``outcome`` ("win", "tie", "loss"), ``bin_low``, ``bin_high``, ``n_groups``, and the
        pair's ``urisk``, ``trisk`` and ``alpha`` (as `risk` computes them).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> base = pl.DataFrame({"q": range(4), "metric": "ndcg", "k": 10,
    ...                      "value": [0.5, 0.5, 0.5, 0.5]})
    >>> new = base.with_columns(pl.Series("value", [0.75, 0.75, 0.5, 0.25]))
    >>> table = rk.risk_distribution({"base": base, "new": new}, bins=2)
    >>> table.select("outcome", "bin_low", "bin_high", "n_groups").rows()
    [('loss', -0.25, 0.0, 1), ('tie', 0.0, 0.0, 1), ('win', 0.0, 0.25, 2)]
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2 or bins % 2:
        raise ValueError(f"bins must be an even integer >= 2; got {bins!r}")
    mapping = system_mapping(systems, "risk")
    summary = risk(mapping, baseline, alpha=alpha, group_keys=group_keys)
    chosen = baselines_of(list(mapping), baseline, "risk")
    paired, _ = paired_values(mapping, chosen, group_keys=group_keys, caller="risk")
    half = bins // 2
    delta = pl.col("delta")
    width = delta.abs().max().over("metric", "k") / half
    index = pl.when(delta == 0).then(0).otherwise((delta / width).floor().clip(-half, half - 1))
    outcome = pl.when(delta > 0).then(pl.lit("win")).when(delta < 0).then(pl.lit("loss"))
    on = ["metric", "k", "baseline", "system"]
    counted = (
        paired.with_columns(
            outcome.otherwise(pl.lit("tie")).alias("outcome"),
            index.alias("__bin"),
            width.alias("__width"),
        )
        .group_by(*on, "outcome", "__bin", maintain_order=True)
        .agg(pl.len().cast(pl.Int64).alias("n_groups"), pl.col("__width").first())
        .with_columns(
            pl.when(pl.col("outcome") == "tie")
            .then(0.0)
            .otherwise(pl.col("__bin") * pl.col("__width"))
            .alias("bin_low"),
            pl.when(pl.col("outcome") == "tie")
            .then(0.0)
            .otherwise((pl.col("__bin") + 1) * pl.col("__width"))
            .alias("bin_high"),
        )
        .collect()
    )
    order = {name: i for i, name in enumerate(mapping)}
    return (
        counted.join(summary.select(*on, "urisk", "trisk", "alpha"), on=on, nulls_equal=True)
        .with_columns(
            pl.col("baseline").replace_strict(order, return_dtype=pl.Int64).alias("__b"),
            pl.col("system").replace_strict(order, return_dtype=pl.Int64).alias("__s"),
        )
        .lazy()
        .pipe(sort_rows, [], "__b", "__s", "bin_low", "bin_high")
        .collect()
        .select(RISK_DISTRIBUTION_COLUMNS)
    )
