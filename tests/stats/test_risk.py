"""`risk`: URisk, TRisk and GeoRisk equal their definitions computed group by group with plain
Python loops (Wang et al. 2012; Dinçer, Macdonald & Ounis 2014, 2016), TRisk's p-value equals
SciPy's one-sample t-test of the loss-weighted differences."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_rankk as rk
from polars_rankk.stats.risk_sensitive import RISK_COLUMNS, per_group_risk


def frame(values: np.ndarray, metric: str = "ndcg", k: int | None = 10) -> pl.DataFrame:
    return pl.DataFrame(
        {"user": np.arange(len(values)), "metric": metric, "k": k, "value": values},
        schema={"user": pl.Int64, "metric": pl.String, "k": pl.Int64, "value": pl.Float64},
    )


def brute_urisk(system: list[float], baseline: list[float], alpha: float) -> tuple[float, float]:
    """URisk as Wang et al. write it (reward minus (1 + alpha) risk, each over all groups),
    and TRisk = URisk / (sd of the weighted differences / sqrt(c))."""
    c = len(system)
    reward = sum(s - b for s, b in zip(system, baseline, strict=True) if s > b) / c
    loss = sum(b - s for s, b in zip(system, baseline, strict=True) if s < b) / c
    urisk = reward - (1 + alpha) * loss
    z = [
        (s - b) if s >= b else (1 + alpha) * (s - b) for s, b in zip(system, baseline, strict=True)
    ]
    mean = sum(z) / c
    sd = math.sqrt(sum((v - mean) ** 2 for v in z) / (c - 1))
    return urisk, urisk / (sd / math.sqrt(c))


def brute_georisk(matrix: list[list[float]], i: int, alpha: float) -> float:
    """GeoRisk of column i of a groups x systems matrix, loop by loop (Dinçer et al. 2016)."""
    c, r = len(matrix), len(matrix[0])
    s_i = sum(row[i] for row in matrix)
    n = sum(sum(row) for row in matrix)
    zrisk = 0.0
    for row in matrix:
        t_j = sum(row)
        e = s_i * t_j / n
        z = 0.0 if e == 0 else (row[i] - e) / math.sqrt(e)
        zrisk += z if z >= 0 else (1 + alpha) * z
    assert r >= 2
    phi = 0.5 * (1 + math.erf(zrisk / c / math.sqrt(2)))
    return math.sqrt(s_i / c * phi)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0])
def test_urisk_trisk_and_p_value_equal_their_definitions(seed: int, alpha: float) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    base = np.round(rng.random(n), 2)  # rounded: ties between systems occur
    new = np.clip(np.round(base + rng.normal(0, 0.2, n), 2), 0, 1)
    out = rk.risk({"base": frame(base), "new": frame(new)}, "base", alpha=alpha)
    row = out.row(0, named=True)
    urisk, trisk = brute_urisk(list(new), list(base), alpha)
    assert row["urisk"] == pytest.approx(urisk, abs=1e-12)
    assert row["trisk"] == pytest.approx(trisk, rel=1e-9)
    z = np.where(new >= base, new - base, (1 + alpha) * (new - base))
    expected = stats.ttest_1samp(z, 0.0)
    assert row["p_value"] == pytest.approx(float(expected.pvalue), rel=1e-9)
    assert row["trisk"] == pytest.approx(float(expected.statistic), rel=1e-9)
    assert (row["wins"], row["ties"], row["losses"]) == (
        int((new > base).sum()), int((new == base).sum()), int((new < base).sum()),
    )  # fmt: skip
    assert row["diff"] == pytest.approx(float((new - base).mean()), abs=1e-12)
    assert out.columns == list(RISK_COLUMNS)


@pytest.mark.parametrize("seed", range(6))
def test_georisk_equals_its_definition_with_several_baselines(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, alpha = int(rng.integers(2, 30)), float(rng.choice([0.0, 1.0, 5.0]))
    columns = {name: np.round(rng.random(n), 2) for name in ("new", "b1", "b2")}
    columns["b2"][0] = columns["new"][0] = columns["b1"][0] = 0.0  # a group all systems fail
    systems = {name: frame(values) for name, values in columns.items()}
    out = rk.risk(systems, ["b1", "b2"], alpha=alpha)
    matrix = [[columns["new"][g], columns["b1"][g], columns["b2"][g]] for g in range(n)]
    assert out["baseline"].to_list() == ["b1", "b2"]
    assert out["geo_risk"].to_list() == pytest.approx([brute_georisk(matrix, 0, alpha)] * 2)
    assert out["baseline_geo_risk"].to_list() == pytest.approx(
        [brute_georisk(matrix, 1, alpha), brute_georisk(matrix, 2, alpha)]
    )


def test_georisk_uses_only_groups_every_system_has() -> None:
    new, b1 = frame(np.array([0.5, 0.2, 0.9])), frame(np.array([0.4, 0.3, 0.1]))
    b2 = frame(np.array([0.6, 0.1]))  # no group 2
    out = rk.risk({"new": new, "b1": b1, "b2": b2}, ["b1", "b2"])
    matrix = [[0.5, 0.4, 0.6], [0.2, 0.3, 0.1]]
    assert out["geo_risk"][0] == pytest.approx(brute_georisk(matrix, 0, 1.0))
    assert out["n_groups"].to_list() == [3, 2]  # URisk pairs each baseline on its own groups


def test_every_challenger_against_every_baseline_on_every_metric_and_k() -> None:
    rng = np.random.default_rng(0)
    parts = {
        name: pl.concat(
            [frame(rng.random(5), m, k) for m, k in [("ndcg", 5), ("ndcg", 10), ("recall", 5)]]
        )
        for name in ("a", "b", "c")
    }
    out = rk.risk(parts, ["a", "b"])
    assert out.select("metric", "k", "baseline", "system").rows() == [  # the library's order
        ("recall", 5, "a", "c"), ("recall", 5, "b", "c"), ("ndcg", 5, "a", "c"),
        ("ndcg", 5, "b", "c"), ("ndcg", 10, "a", "c"), ("ndcg", 10, "b", "c"),
    ]  # fmt: skip


def test_a_lower_is_better_metric_counts_a_decrease_as_a_win() -> None:
    base, new = (
        frame(np.array([0.5, 0.5]), "gini", None),
        frame(np.array([0.25, 0.75]), "gini", None),
    )
    row = rk.risk({"base": base, "new": new}, alpha=1.0).row(0, named=True)
    assert (row["wins"], row["losses"], row["urisk"]) == (1, 1, pytest.approx(-0.125))
    assert row["geo_risk"] is None  # GeoRisk reads effectiveness: higher is better


def test_no_spread_gives_nan_trisk_and_one_group_gives_null() -> None:
    base = frame(np.array([0.5, 0.5, 0.5]))
    flat = rk.risk({"base": base, "new": frame(np.array([0.6, 0.6, 0.6]))}).row(0, named=True)
    assert math.isnan(flat["trisk"])
    assert math.isnan(flat["p_value"])
    one = rk.risk({"base": frame(np.array([0.5])), "new": frame(np.array([0.1]))}).row(
        0, named=True
    )
    assert one["trisk"] is None
    assert one["p_value"] is None
    assert one["urisk"] == pytest.approx(-0.8)


def test_groups_with_nan_are_left_out_of_the_pairs() -> None:
    base = frame(np.array([0.5, np.nan, 0.2]))
    new = frame(np.array([0.7, 0.1, np.nan]))
    table = per_group_risk({"base": base, "new": new}, alpha=1.0)
    assert table["user"].to_list() == [0]
    assert table["z"].to_list() == pytest.approx([0.2])


def test_one_evaluation_of_several_systems_is_compared_by_system() -> None:
    candidates = pl.DataFrame({
        "run": ["a", "a", "b", "b", "a", "b"], "q": [1, 1, 1, 1, 2, 2],
        "item": [1, 2, 1, 2, 3, 3], "score": [0.9, 0.1, 0.1, 0.9, 0.5, 0.5],
    })  # fmt: skip
    truth = pl.DataFrame({"q": [1, 2], "item": [1, 3]})
    evaluation = rk.evaluate(candidates, truth, k=1, metrics="ndcg", group_by="q", system="run")
    out = rk.risk(evaluation, "a")
    assert out.select("system", "wins", "ties", "losses").row(0) == ("b", 0, 1, 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": -1.0}, "alpha must be a number >= 0"),
        ({"baseline": "zzz"}, "baseline 'zzz' is not one of the systems"),
        ({"baseline": ["a", "b"]}, "every system is a baseline"),
    ],
)
def test_wrong_options_are_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    systems = {"a": frame(np.array([0.1, 0.2])), "b": frame(np.array([0.3, 0.1]))}
    with pytest.raises(ValueError, match=message):
        rk.risk(systems, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(4))
def test_risk_distribution_counts_each_group_in_its_bin(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, bins = int(rng.integers(5, 60)), int(rng.choice([2, 6, 20]))
    base = rng.random(n)
    new = np.where(rng.random(n) < 0.2, base, base + rng.normal(0, 0.2, n))  # some ties
    table = rk.risk_distribution({"base": frame(base), "new": frame(new)}, bins=bins)
    delta = new - base
    width = np.abs(delta).max() / (bins // 2)
    expected: dict[tuple[str, float], int] = {}
    for d in delta:  # one group at a time (continuous values: none on a bin edge but 0)
        if d == 0:
            key = ("tie", 0.0)
        else:
            index = min(max(math.floor(d / width), -(bins // 2)), bins // 2 - 1)
            key = ("win" if d > 0 else "loss", index * width)
        expected[key] = expected.get(key, 0) + 1
    found = sorted(table.select("outcome", "bin_low", "n_groups").rows())
    wanted = sorted((o, low, count) for (o, low), count in expected.items())
    assert [(o, c) for o, _, c in found] == [(o, c) for o, _, c in wanted]
    assert [low for _, low, _ in found] == pytest.approx([low for _, low, _ in wanted])
    assert table["n_groups"].sum() == n
    summary = rk.risk({"base": frame(base), "new": frame(new)})
    assert table["urisk"].unique().to_list() == summary["urisk"].to_list()


def test_risk_distribution_refuses_an_odd_number_of_bins() -> None:
    systems = {"a": frame(np.array([0.1, 0.2])), "b": frame(np.array([0.3, 0.1]))}
    with pytest.raises(ValueError, match="bins must be an even integer >= 2; got 3"):
        rk.risk_distribution(systems, bins=3)


def test_lazy_evaluations_give_the_numbers_of_eager_ones() -> None:
    candidates = pl.DataFrame({"q": [1, 1, 2, 2, 3, 3], "item": [1, 2, 3, 4, 5, 6],
                               "score": [0.9, 0.1, 0.2, 0.8, 0.5, 0.4]})  # fmt: skip
    truth = pl.DataFrame({"q": [1, 2, 3], "item": [1, 3, 5]})
    flipped = candidates.with_columns(-pl.col("score"))

    def both(lazy: bool) -> pl.DataFrame:
        c, f, t = (x.lazy() if lazy else x for x in (candidates, flipped, truth))
        a = rk.evaluate(c, t, k=1, group_by="q", metrics="precision")
        b = rk.evaluate(f, t, k=1, group_by="q", metrics="precision")
        return rk.risk({"a": a, "b": b}, alpha=2.0)

    assert both(lazy=True).equals(both(lazy=False))
