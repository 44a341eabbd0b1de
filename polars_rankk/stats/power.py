"""How many groups a paired comparison needs, and the power of the comparison as run.

From the observed paired differences d_g = system − baseline over c groups, the effect size
is Cohen's d_z = mean(d) / sd(d) (ddof=1), the standardised effect of a paired t-test. The
power of a paired t-test at level α with n groups is the chance that the test rejects when the
true effect is d_z: with df = n − 1, noncentrality λ = d_z √n and t_crit the upper α/2
quantile of Student's t (two-sided),

    power = P(T' > t_crit) + P(T' < −t_crit),   T' ~ noncentral t(df, λ),

as `statsmodels.stats.power.TTestPower` computes it (``"larger"``: the first term with the
upper α quantile; ``"smaller"``: the second with the lower one). ``groups_needed`` is the
smallest whole number of groups (at least 2) whose power reaches the target: the ceiling of
`statsmodels.stats.power.tt_solve_power`'s solution. It treats the observed effect as the
true one, so it answers "how many groups would a comparison need to detect an effect this
large", not whether this one exists; an observed power is a function of the observed p-value
and adds no evidence of its own (Hoenig & Heisey, The American Statistician 2001).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.optional import optional_module
from polars_rankk.stats.pairing import paired_values
from polars_rankk.stats.per_group import Results

Alternative = Literal["two-sided", "larger", "smaller"]
FloatArray = npt.NDArray[np.float64]
#: The largest number of groups `groups_needed` searches; beyond it the answer is null.
MAX_GROUPS = 2**40
#: The columns of a `groups_needed` table, in order.
POWER_COLUMNS: tuple[str, ...] = (
    "metric", "k", "baseline", "system", "n_groups", "diff", "sd", "effect_size",
    "power_as_run", "groups_needed", "target_power", "alpha",
)  # fmt: skip


def _check(power: float, alpha: float, alternative: str) -> None:
    for name, value in (("power", power), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise ValueError(f"{name} must be a number in (0, 1); got {value!r}")
    if alternative not in ("two-sided", "larger", "smaller"):
        raise ValueError(
            f"alternative must be 'two-sided', 'larger' or 'smaller'; got {alternative!r}"
        )


def ttest_power(
    effect_size: FloatArray | float,
    n_groups: FloatArray | float,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> FloatArray:
    """The power of a paired (one-sample) t-test, element-wise, as statsmodels'
    ``TTestPower().power(effect_size, nobs, alpha, alternative=...)`` computes it.

    Examples
    --------
    >>> from polars_rankk.stats.power import ttest_power
    >>> round(float(ttest_power(0.5, 34)), 4)
    0.8078
    """
    stats = optional_module("scipy.stats", "paired t-test power")
    d = np.asarray(effect_size, dtype=np.float64)
    n = np.asarray(n_groups, dtype=np.float64)
    df = n - 1.0
    noncentrality = d * np.sqrt(n)
    level = alpha / 2.0 if alternative == "two-sided" else alpha
    power = np.zeros(np.broadcast(d, n).shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        if alternative in ("two-sided", "larger"):
            power = power + stats.nct.sf(stats.t.isf(level, df), df, noncentrality)
        if alternative in ("two-sided", "smaller"):
            power = power + stats.nct.cdf(stats.t.ppf(level, df), df, noncentrality)
    return np.asarray(power, dtype=np.float64)


def groups_for_power(
    effect_size: FloatArray | float,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> npt.NDArray[np.float64]:
    """The smallest whole number of groups (>= 2) at which `ttest_power` reaches `power`,
    element-wise; NaN where no number up to `MAX_GROUPS` does (an effect of 0, NaN, or of
    the wrong sign for a one-sided test).

    All elements are searched at once: doubling until the power is reached, then bisection.

    Examples
    --------
    >>> from polars_rankk.stats.power import groups_for_power
    >>> groups_for_power([0.5, 0.3, 0.0]).tolist()
    [34.0, 90.0, nan]
    """
    _check(power, alpha, alternative)
    d = np.atleast_1d(np.asarray(effect_size, dtype=np.float64))

    def reached(n: FloatArray) -> npt.NDArray[np.bool_]:
        return np.asarray(ttest_power(d, n, alpha, alternative) >= power)

    high = np.full(d.shape, 2.0)
    done = reached(high) | ~np.isfinite(d)
    while not done.all() and high.max() < MAX_GROUPS:
        high = np.where(done, high, high * 2.0)
        done = reached(high) | ~np.isfinite(d) | (high >= MAX_GROUPS)
    found = reached(high) & np.isfinite(d)
    low = np.where(high > 2.0, high / 2.0, 1.0)  # power at low < target (or low = 1)
    while ((high - low) > 1.0).any():
        middle = np.floor((low + high) / 2.0)
        ok = reached(middle)
        wide = (high - low) > 1.0
        high = np.where(wide & ok, middle, high)
        low = np.where(wide & ~ok, middle, low)
    return np.where(found, high, np.nan)


def _with_power(
    table: pl.DataFrame, power: float, alpha: float, alternative: Alternative
) -> pl.DataFrame:
    d = table["effect_size"].to_numpy().astype(np.float64)
    n = table["n_groups"].to_numpy().astype(np.float64)
    as_run = np.where(n >= 2, ttest_power(d, np.maximum(n, 2.0), alpha, alternative), np.nan)
    needed = groups_for_power(d, power, alpha, alternative) if len(d) else np.empty(0)
    return table.with_columns(
        pl.Series("power_as_run", as_run, dtype=pl.Float64).fill_nan(None),
        pl.Series("groups_needed", needed, dtype=pl.Float64).fill_nan(None).cast(pl.Int64),
    )


def groups_needed(
    systems: Mapping[str, Results] | Evaluation,
    baseline: str | Sequence[str] | None = None,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
    group_keys: Sequence[str] | None = None,
) -> pl.DataFrame:
    """How many groups a paired t-test needs to detect the observed difference, and the
    power of the comparison as run (see the module docstring).

    Parameters
    ----------
    systems
        ``{name: evaluation or per-group frame}`` sharing their group keys, or one evaluation
        of several systems (``evaluate(..., system=COLUMN)``).
    baseline
        The baseline (or several); default the first system. Every other system is paired
        with it on the groups both evaluated with a number.
    power
        The target power, in (0, 1).
    alpha
        The test's level, in (0, 1).
    alternative
        ``"two-sided"`` (default), ``"larger"`` or ``"smaller"`` (the system is better or
        worse than the baseline; for metrics where lower is better, the differences are
        oriented so that ``"larger"`` means better).
    group_keys
        The group key columns of per-group frames.

    Returns
    -------
    pl.DataFrame
        One row per (metric, k, baseline, system): ``n_groups`` (paired), ``diff`` (mean
        difference), ``sd`` (its standard deviation, ddof=1), ``effect_size`` (d_z; null
        without spread), ``power_as_run`` (at ``n_groups``), ``groups_needed`` (null when no
        number of groups reaches the power), ``target_power``, ``alpha``.

    See Also
    --------
    comparison_power : the same two columns added to a `compare` table.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> a = pl.DataFrame({"q": range(6), "metric": "ndcg", "k": 10,
    ...                   "value": [0.2, 0.5, 0.1, 0.4, 0.3, 0.6]})
    >>> b = a.with_columns(pl.col("value") + pl.Series([0.1, 0.2, 0.0, 0.3, 0.1, -0.1]))
    >>> out = rk.groups_needed({"A": a, "B": b}, "A")
    >>> out.select("n_groups", "effect_size", "groups_needed").row(0)
    (6, 0.7071067811865476, 18)
    """
    _check(power, alpha, alternative)
    paired, _ = paired_values(systems, baseline, group_keys=group_keys, caller="groups_needed")
    delta = pl.col("delta")
    summary = (
        paired.group_by("metric", "k", "baseline", "system", maintain_order=True)
        .agg(
            pl.len().cast(pl.Int64).alias("n_groups"),
            delta.mean().alias("diff"),
            delta.std(ddof=1).alias("sd"),
            delta.abs().max().alias("__scale"),
        )
        .with_columns(
            pl.when(pl.col("sd") > 1e-12 * pl.col("__scale"))  # rounding is not a spread
            .then(pl.col("diff") / pl.col("sd"))
            .otherwise(None)
            .alias("effect_size"),
            pl.lit(power).alias("target_power"),
            pl.lit(alpha).alias("alpha"),
        )
        .collect()
    )
    return _with_power(summary, power, alpha, alternative).select(POWER_COLUMNS)


def comparison_power(
    comparison: pl.DataFrame,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> pl.DataFrame:
    """A `compare` table with ``power_as_run`` and ``groups_needed`` after its p-values,
    from its ``effect_size`` (d_z) and ``n_groups``; its own columns are unchanged.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> a = pl.DataFrame({"q": range(6), "metric": "ndcg", "k": 10,
    ...                   "value": [0.2, 0.5, 0.1, 0.4, 0.3, 0.6]})
    >>> b = a.with_columns(pl.col("value") + pl.Series([0.1, 0.2, 0.0, 0.3, 0.1, -0.1]))
    >>> table = rk.comparison_power(rk.compare({"A": a, "B": b}, "A"))
    >>> table.select("p_value_t", "power_as_run", "groups_needed").row(0)  # doctest: +ELLIPSIS
    (0.14..., 0.29..., 18)
    """
    _check(power, alpha, alternative)
    missing = [c for c in ("effect_size", "n_groups") if c not in comparison.columns]
    if missing:
        raise ValueError(
            f"comparison_power needs a compare table with columns {missing}; its columns are "
            f"{comparison.columns}"
        )
    added = _with_power(comparison, power, alpha, alternative)
    order = list(comparison.columns)
    at = order.index("p_adjusted") + 1 if "p_adjusted" in order else len(order)
    return added.select([*order[:at], "power_as_run", "groups_needed", *order[at:]])
