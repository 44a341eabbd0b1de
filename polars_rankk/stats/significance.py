"""Significance tools for paired comparisons: the randomization (sign-flip) test and
multiple-comparison adjustments (Holm; Benjamini–Hochberg through SciPy).

The randomization test is Fisher's, as used in IR by Smucker et al. (CIKM 2007): under "no
difference" each per-group difference is as likely to have either sign. Groups with equal
``|d|`` only matter through how many of them flip, so its distribution is a sum of binomials
over the distinct ``|d|`` values — cheap to enumerate exactly or to sample when metrics take few
values, and approximated by a saddlepoint where they take many over many groups.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt

from polars_rankk.core.optional import optional_module
from polars_rankk.stats.resampling import FloatArray, IntArray

RandomizationMethod = Literal["auto", "exact", "monte_carlo", "saddlepoint"]

#: "auto" enumerates the randomization distribution exactly up to this many arrangements.
EXACT_LIMIT = 2**20
#: "auto" samples (binomial draws per distinct |difference|) up to this many draws in all.
MONTE_CARLO_LIMIT = 10_000_000


def randomization_test(
    differences: npt.ArrayLike,
    n_permutations: int = 10_000,
    seed: int | None = 0,
    method: RandomizationMethod = "auto",
) -> tuple[float, str]:
    """Two-sided paired randomization test of "no difference" on per-group differences.

    Under the null hypothesis each difference is as likely to have either sign; the statistic
    is ``|Σ d|`` and the p-value is the share of the ``2^n`` sign arrangements whose statistic
    is at least the observed one (Fisher's randomization test; the same statistic as ranx's
    ``fisher`` test, which swaps the two systems' values of a group). Zero differences do not
    change the statistic. Groups with equal ``|d|`` only matter through how many of them flip,
    so the distribution is a sum of binomials over the distinct ``|d|`` values, which makes the
    exact and sampled versions cheap when metrics take few values.

    Parameters
    ----------
    differences
        Paired differences, one per group (no NaN).
    n_permutations
        Random arrangements drawn by the Monte Carlo method. Its p-value is
        ``(b + 1) / (B + 1)``, b of the B draws being at least as extreme as the observed
        statistic (the observed arrangement counts as one of them: Phipson & Smyth 2010), so
        it is never 0; ranx reports ``b / B``, which differs by less than 1/B.
    seed
        Seed of the Monte Carlo draws (``None``: fresh entropy).
    method
        ``"exact"``: enumerate every arrangement (by counts of flips per distinct ``|d|``);
        ``"monte_carlo"``: ``n_permutations`` random arrangements; ``"saddlepoint"``: the
        Lugannani–Rice approximation of the same randomization distribution (Robinson 1982,
        relative error O(1/n) — for the large, many-valued inputs where sampling is slow);
        ``"auto"``: exact up to 2**20 arrangements, else Monte Carlo up to 1e7 binomial draws
        (distinct ``|d|`` × ``n_permutations``), else the saddlepoint.

    Returns
    -------
    tuple[float, str]
        The p-value and the method used.

    See Also
    --------
    compare : runs this test (with the t and Wilcoxon tests) for every metric × K and pair.

    Examples
    --------
    >>> from polars_rankk.stats.significance import randomization_test
    >>> randomization_test([0.5, 0.25, 0.25, 0.5, -0.25])
    (0.25, 'exact')
    """
    d = np.asarray(differences, dtype=np.float64)
    if np.isnan(d).any():
        raise ValueError("differences must not contain NaN")
    magnitudes, signed_total = np.abs(d[d != 0]), float(d.sum())
    values, counts = np.unique(magnitudes, return_counts=True)
    return randomization_p_value(
        values, counts.astype(np.int64), abs(signed_total), n_permutations, seed, method
    )


def randomization_p_value(
    values: FloatArray,
    counts: IntArray,
    observed: float,
    n_permutations: int,
    rng: np.random.Generator | int | None,
    method: RandomizationMethod,
) -> tuple[float, str]:
    """p-value of ``|Σ s_i a_i| >= observed`` over random signs, ``a`` given as distinct values
    with counts (all > 0)."""
    stats = optional_module("scipy.stats", "significance tests")

    if len(values) == 0:
        return 1.0, "exact"
    total = float(counts @ values)
    threshold = observed - 1e-10 * total  # sums of floats in another order: allow rounding
    arrangements = 1
    for count in counts:
        arrangements *= int(count) + 1
        if arrangements > EXACT_LIMIT:
            break
    if method == "auto":
        if arrangements <= EXACT_LIMIT:
            method = "exact"
        elif len(values) * n_permutations <= MONTE_CARLO_LIMIT:
            method = "monte_carlo"
        else:
            method = "saddlepoint"
    if method == "exact":
        if arrangements > EXACT_LIMIT:
            raise ValueError(f"exact enumeration needs more than {EXACT_LIMIT} arrangements")
        statistic, probability = np.zeros(1), np.ones(1)
        for value, count in zip(values, counts, strict=True):
            flips = np.arange(count + 1)
            statistic = (statistic[:, None] + value * (count - 2 * flips)).ravel()
            probability = (probability[:, None] * stats.binom.pmf(flips, count, 0.5)).ravel()
        return min(1.0, float(probability[np.abs(statistic) >= threshold].sum())), "exact"
    if method == "monte_carlo":
        random = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        extreme = 0
        step = max(1, 4_000_000 // len(values))
        for start in range(0, n_permutations, step):
            size = min(step, n_permutations - start)
            flips = random.binomial(counts, 0.5, size=(size, len(values)))
            statistic = total - flips.astype(np.float64) @ (2 * values)
            extreme += int(np.count_nonzero(np.abs(statistic) >= threshold))
        return (extreme + 1) / (n_permutations + 1), "monte_carlo"
    if method == "saddlepoint":
        return _saddlepoint(values, counts, observed), "saddlepoint"
    raise ValueError(f"unknown randomization method {method!r}")


def _saddlepoint(values: FloatArray, counts: IntArray, observed: float) -> float:
    """Lugannani–Rice approximation of ``P(|Σ s_i a_i| >= observed)`` (Robinson 1982)."""
    optimize = optional_module("scipy.optimize", "the saddlepoint approximation")
    stats = optional_module("scipy.stats", "the saddlepoint approximation")

    total = float(counts @ values)
    variance = float(counts @ values**2)
    if observed <= 0:
        return 1.0
    if observed >= total * (1 - 1e-12):  # only the two arrangements with every sign alike
        return min(1.0, math.pow(2.0, 1 - float(counts.sum())))

    def slope(t: float) -> float:  # K'(t) - observed, K(t) = Σ log cosh(t a)
        return float(counts @ (values * np.tanh(t * values))) - observed

    upper = observed / variance
    while slope(upper) < 0:
        upper *= 2
    t = float(optimize.brentq(slope, 0.0, upper, xtol=1e-300, rtol=1e-13, maxiter=500))
    x = t * values
    log_cosh = np.abs(x) + np.log1p(np.exp(-2 * np.abs(x))) - math.log(2)
    curvature = float(counts @ (values**2 * (1 - np.tanh(x) ** 2)))
    w = math.sqrt(max(0.0, 2 * (t * observed - float(counts @ log_cosh))))
    u = t * math.sqrt(curvature)
    if w < 1e-4 or u <= 0:  # at the centre the formula is 0/0; the normal limit is exact there
        return min(1.0, float(2 * stats.norm.sf(observed / math.sqrt(variance))))
    tail = float(stats.norm.sf(w) + stats.norm.pdf(w) * (1 / u - 1 / w))
    return min(1.0, max(0.0, 2 * tail))


def holm(p_values: FloatArray) -> FloatArray:
    """Holm's step-down adjustment (controls the family-wise error rate); NaN stays NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from polars_rankk.stats.significance import holm
    >>> holm(np.array([0.01, 0.04, 0.03, np.nan])).round(3).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    adjusted = np.full(len(p_values), np.nan)
    present = np.flatnonzero(~np.isnan(p_values))
    order = present[np.argsort(p_values[present], kind="stable")]
    m = len(order)
    steps = np.maximum.accumulate((m - np.arange(m)) * p_values[order])
    adjusted[order] = np.minimum(steps, 1.0)
    return adjusted


def benjamini_hochberg(p_values: FloatArray) -> FloatArray:
    """Benjamini–Hochberg adjustment (false discovery rate), by SciPy; NaN stays NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from polars_rankk.stats.significance import benjamini_hochberg
    >>> benjamini_hochberg(np.array([0.01, 0.04, 0.03, np.nan])).round(3).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    stats = optional_module("scipy.stats", "significance tests")

    adjusted = np.full(len(p_values), np.nan)
    present = ~np.isnan(p_values)
    if present.any():
        adjusted[present] = stats.false_discovery_control(p_values[present], method="bh")
    return adjusted


#: Relative tolerance below which the spread of paired differences counts as 0: sums of
#: differences such as ``[.2, .3, .4] - [.1, .2, .3]`` deviate by a few ulps, never by this.
SPREAD_TOLERANCE = 1e-12
#: `compare`'s "auto" runs the shared Monte Carlo draw up to this many signs (groups × B).
SHARED_MONTE_CARLO_LIMIT = 20_000_000


def paired_t(
    differences: FloatArray, valid: npt.NDArray[np.bool_], scale: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Effect size (Cohen's d_z) and two-sided paired t-test p-value of every column.

    ``differences`` is groups × columns (0 where ``valid`` is False); ``scale`` is each
    column's largest absolute value. A standard deviation at most `SPREAD_TOLERANCE` × scale is
    0: the effect size is NaN, and the p-value is 1 when the mean difference is 0 too, else NaN
    (every difference the same non-zero number: the t statistic is undefined).
    """
    stats = optional_module("scipy.stats", "significance tests")

    n = valid.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = differences.sum(axis=0) / n
        centred = np.where(valid, differences - mean, 0.0)
        spread = np.sqrt((centred**2).sum(axis=0) / (n - 1))
        tolerance = SPREAD_TOLERANCE * np.maximum(scale, np.finfo(np.float64).tiny)
        flat = spread <= tolerance
        effect = np.where(flat | (n < 2), np.nan, mean / spread)
        statistic = mean / (spread / np.sqrt(n))
        p = 2 * stats.t.sf(np.abs(statistic), n - 1)
    p = np.where(flat, np.where(np.abs(mean) <= tolerance, 1.0, np.nan), p)
    p = np.where(n < 2, np.where((n == 1) & (np.abs(mean) <= tolerance), 1.0, np.nan), p)
    return effect, np.where(n == 0, np.nan, p)


def wilcoxon_method(differences: FloatArray) -> str:
    """How `scipy.stats.wilcoxon` computes its p-value by default for these differences:
    "exact" (the exact distribution, or every one of the 2^n sign arrangements when n <= 13)
    or "normal" (the asymptotic approximation)."""
    n = len(differences)
    nonzero = np.abs(differences[differences != 0])
    if n > 50:
        return "normal"
    if len(nonzero) == n and len(np.unique(nonzero)) == n:
        return "exact"
    return "exact" if n <= 13 else "normal"


def shared_randomization(
    differences: FloatArray,
    thresholds: FloatArray,
    n_permutations: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Monte Carlo randomization p-values of every column from one draw of signs per group.

    ``differences`` is groups × columns (0 for groups a column leaves out: flipping them
    changes nothing). Each of the ``n_permutations`` arrangements flips each group's sign with
    probability 1/2, the same flips for every column; a column's p-value is ``(b + 1) / (B + 1)``
    with b the arrangements whose ``|Σ ± d|`` reaches its threshold.
    """
    groups, columns = differences.shape
    totals = differences.sum(axis=0)
    doubled = 2 * differences
    extreme = np.zeros(columns, dtype=np.int64)
    step = max(1, 4_000_000 // max(groups, 1))
    for start in range(0, n_permutations, step):
        size = min(step, n_permutations - start)
        raw = np.frombuffer(rng.bytes(-(-size * groups // 8)), dtype=np.uint8)
        flips = np.unpackbits(raw)[: size * groups].reshape(size, groups).astype(np.float64)
        statistic = totals - flips @ doubled
        extreme += np.count_nonzero(np.abs(statistic) >= thresholds, axis=0)
    return (extreme + 1) / (n_permutations + 1)
