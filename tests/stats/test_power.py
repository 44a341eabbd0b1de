"""`groups_needed` and `comparison_power`: paired t-test power equal to statsmodels'
`TTestPower` / `tt_solve_power` (when statsmodels is installed) and to the noncentral t
integrated numerically from its definition; the number of groups is the smallest that reaches
the power."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import integrate, stats

import polars_rankk as rk
from polars_rankk.stats.power import POWER_COLUMNS, groups_for_power, ttest_power


def frame(values: np.ndarray, metric: str = "ndcg", k: int | None = 10) -> pl.DataFrame:
    return pl.DataFrame(
        {"user": np.arange(len(values)), "metric": metric, "k": k, "value": values},
        schema={"user": pl.Int64, "metric": pl.String, "k": pl.Int64, "value": pl.Float64},
    )


def integrated_power(d: float, n: int, alpha: float) -> float:
    """Two-sided power by integrating over the chi distribution of the standard deviation:
    T' = (Z + lambda) / sqrt(V / df), so P(T' > c) = E_V[P(Z > c sqrt(V/df) - lambda)]."""
    df, nc = n - 1, d * math.sqrt(n)
    crit = stats.t.isf(alpha / 2, df)

    def inner(v: float) -> float:
        scale = crit * math.sqrt(v / df)
        return float(
            (stats.norm.sf(scale - nc) + stats.norm.cdf(-scale - nc)) * stats.chi2.pdf(v, df)
        )

    return float(integrate.quad(inner, 0, np.inf, limit=200)[0])


@pytest.mark.parametrize("d", [0.1, 0.35, -0.6, 1.2])
@pytest.mark.parametrize("n", [3, 11, 50])
def test_power_equals_the_noncentral_t_integrated_numerically(d: float, n: int) -> None:
    assert float(ttest_power(d, n)) == pytest.approx(integrated_power(d, n, 0.05), abs=1e-7)


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
@pytest.mark.parametrize("d", [0.2, 0.5, -0.4, 1.5])
def test_power_and_groups_needed_equal_statsmodels(alternative: str, d: float) -> None:
    power_module = pytest.importorskip("statsmodels.stats.power")
    for n in (4, 17, 60):
        expected = power_module.TTestPower().power(d, n, 0.05, alternative=alternative)
        assert float(ttest_power(d, n, 0.05, alternative)) == pytest.approx(expected, rel=1e-9)  # type: ignore[arg-type]
    if (alternative == "larger" and d < 0) or (alternative == "smaller" and d > 0):
        assert math.isnan(groups_for_power(d, 0.8, 0.05, alternative)[0])  # type: ignore[arg-type]
        return
    solved = power_module.tt_solve_power(
        effect_size=d, alpha=0.05, power=0.8, alternative=alternative
    )
    assert groups_for_power(d, 0.8, 0.05, alternative)[0] == max(2, math.ceil(solved))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(5))
def test_groups_needed_is_the_smallest_number_reaching_the_power(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = rng.uniform(0.05, 2.0, 20) * rng.choice([-1, 1], 20)
    target = float(rng.uniform(0.5, 0.95))
    needed = groups_for_power(d, target)
    assert (ttest_power(d, needed) >= target).all()
    before = np.maximum(needed - 1, 2)
    assert ((ttest_power(d, before) < target) | (needed == 2)).all()


def test_groups_needed_reads_the_observed_paired_differences() -> None:
    rng = np.random.default_rng(3)
    base = rng.random(25)
    new = np.clip(base + rng.normal(0.05, 0.15, 25), 0, 1)
    out = rk.groups_needed({"base": frame(base), "new": frame(new)}, "base", power=0.9, alpha=0.01)
    row = out.row(0, named=True)
    diff = new - base
    effect = diff.mean() / diff.std(ddof=1)
    assert out.columns == list(POWER_COLUMNS)
    assert row["n_groups"] == 25
    assert row["effect_size"] == pytest.approx(effect, rel=1e-12)
    assert row["power_as_run"] == pytest.approx(float(ttest_power(effect, 25, 0.01)), rel=1e-12)
    assert row["groups_needed"] == groups_for_power(effect, 0.9, 0.01)[0]
    assert (row["target_power"], row["alpha"]) == (0.9, 0.01)


def test_no_difference_needs_no_finite_number_of_groups() -> None:
    base = frame(np.array([0.1, 0.4, 0.3]))
    same = rk.groups_needed({"base": base, "new": base}).row(0, named=True)
    assert same["effect_size"] is None
    assert same["groups_needed"] is None
    shifted = rk.groups_needed({"base": base, "new": base.with_columns(pl.col("value") + 0.1)})
    assert shifted["effect_size"][0] is None  # no spread: d_z undefined, as compare says


def test_comparison_power_adds_two_columns_after_the_p_values_and_keeps_the_rest() -> None:
    rng = np.random.default_rng(1)
    base = rng.random(30)
    systems = {"a": frame(base), "b": frame(base + rng.normal(0.05, 0.1, 30))}
    table = rk.compare(systems, "a", n_resamples=50, n_permutations=200)
    out = rk.comparison_power(table)
    assert out.drop("power_as_run", "groups_needed").equals(table)
    at = out.columns.index("p_adjusted")
    assert out.columns[at + 1 : at + 3] == ["power_as_run", "groups_needed"]
    row = out.row(0, named=True)
    assert row["power_as_run"] == pytest.approx(float(ttest_power(row["effect_size"], 30)))
    direct = rk.groups_needed(systems, "a").row(0, named=True)
    assert row["groups_needed"] == direct["groups_needed"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"power": 1.0}, r"power must be a number in \(0, 1\)"),
        ({"alpha": 0.0}, r"alpha must be a number in \(0, 1\)"),
        ({"alternative": "greater"}, "alternative must be 'two-sided', 'larger' or 'smaller'"),
    ],
)
def test_wrong_options_are_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    systems = {"a": frame(np.array([0.1, 0.2])), "b": frame(np.array([0.3, 0.1]))}
    with pytest.raises(ValueError, match=message):
        rk.groups_needed(systems, **kwargs)  # type: ignore[arg-type]
