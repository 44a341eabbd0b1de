"""`compare`: p-values equal SciPy's; the randomization test equals brute-force enumeration on
small inputs and agrees with its Monte Carlo, saddlepoint and ranx versions within their error;
alignment policies, strata, NaN, corrections."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_rankk as rk
from polars_rankk.stats.comparison import compare
from polars_rankk.stats.significance import benjamini_hochberg, holm, randomization_test


def brute_force_p(d: np.ndarray) -> float:
    """Every one of the 2^n sign arrangements, counted one by one."""
    observed = abs(d.sum())
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    statistic = np.abs(signs @ d)
    return float(np.mean(statistic >= observed - 1e-9))


def system_frame(values: np.ndarray, metric: str = "ndcg", k: int | None = 10) -> pl.DataFrame:
    return pl.DataFrame(
        {"user": np.arange(len(values)), "metric": metric, "k": k, "value": values},
        schema={"user": pl.Int64, "metric": pl.String, "k": pl.Int64, "value": pl.Float64},
    )


@pytest.mark.parametrize("seed", range(6))
def test_exact_randomization_equals_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 13))
    discrete = (rng.integers(0, 6, n) - rng.integers(0, 6, n)) / 5  # hits/5: ties and zeros
    d = discrete if seed % 2 else rng.normal(0.1, 0.3, n)
    p, method = randomization_test(d)
    assert method == "exact"
    assert p == pytest.approx(brute_force_p(d), abs=1e-12)


def test_monte_carlo_and_saddlepoint_agree_with_exact() -> None:
    d = np.random.default_rng(20).normal(0.05, 0.3, 14)
    exact, _ = randomization_test(d, method="exact")
    sampled, method = randomization_test(d, n_permutations=40_000, seed=1, method="monte_carlo")
    assert method == "monte_carlo"
    assert abs(sampled - exact) < 4 * math.sqrt(exact * (1 - exact) / 40_000)
    # many groups, continuous: the saddlepoint against 60,000 random sign flips, at a mean
    # difference of about two standard errors (p near 0.05, where the comparison matters)
    noise = np.random.default_rng(21).exponential(0.3, 2000)
    big = noise - noise.mean() + 2 * noise.std() / math.sqrt(len(noise))
    saddle, method = randomization_test(big, method="saddlepoint")
    assert method == "saddlepoint"
    flips = np.random.default_rng(22)
    statistic = np.concatenate([
        np.abs(np.where(flips.random((10_000, len(big))) < 0.5, -1.0, 1.0) @ big)
        for _ in range(6)
    ])  # fmt: skip
    sampled = float(np.mean(statistic >= abs(big.sum())))
    assert 0.02 < sampled < 0.1
    assert abs(saddle - sampled) < 4 * math.sqrt(sampled * (1 - sampled) / len(statistic))
    assert randomization_test(np.zeros(5)) == (1.0, "exact")


def test_auto_method_choice() -> None:
    rng = np.random.default_rng(23)
    assert randomization_test(rng.normal(size=15))[1] == "exact"  # 2^15 arrangements
    hit_rate = rng.integers(0, 2, 5000) - rng.integers(0, 2, 5000)  # |d| = 1 only: a sign test
    assert randomization_test(hit_rate)[1] == "exact"
    assert randomization_test(rng.normal(size=300))[1] == "monte_carlo"
    assert randomization_test(rng.normal(size=5000))[1] == "saddlepoint"


def test_p_values_equal_scipy() -> None:
    rng = np.random.default_rng(24)
    n = 80
    a = rng.integers(0, 11, n) / 10
    b = np.clip(a + rng.integers(-2, 4, n) / 10, 0, 1)  # ties, zeros and a shift
    c = rng.random(n)
    systems = {"A": system_frame(a), "B": system_frame(b), "C": system_frame(c)}
    out = compare(systems, baseline="A", n_resamples=200, n_permutations=2000)
    for row in out.iter_rows(named=True):
        x = {"B": b, "C": c}[row["system"]]
        assert row["p_value_t"] == pytest.approx(stats.ttest_rel(x, a).pvalue, rel=1e-12)
        assert row["p_value_wilcoxon"] == pytest.approx(stats.wilcoxon(x, a).pvalue, rel=1e-12)
        d = x - a
        assert row["diff"] == pytest.approx(d.mean(), rel=1e-12)
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert (row["wins"], row["ties"], row["losses"]) == (
            (d > 0).sum(), (d == 0).sum(), (d < 0).sum()
        )  # fmt: skip
        assert (row["baseline_mean"], row["mean"]) == pytest.approx((a.mean(), x.mean()))
        assert row["ci_low"] < row["diff"] < row["ci_high"]


@pytest.mark.slow  # ranx compiles its numba kernels on first use (about a minute, then cached)
def test_randomization_agrees_with_ranx_within_monte_carlo_error() -> None:
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(25)
    queries = [f"q{i}" for i in range(150)]
    qrels = ranx.Qrels(
        {q: {f"d{j}": int(rng.integers(1, 3)) for j in rng.choice(30, 4, replace=False)}
         for q in queries}
    )  # fmt: skip
    runs = []
    for name, skill in (("A", 0.0), ("B", 0.04)):
        scores = {}
        for q in queries:
            relevant = qrels.qrels[q]
            scores[q] = {f"d{j}": float(rng.random() + (skill if f"d{j}" in relevant else 0.0))
                         for j in range(30)}  # fmt: skip
        runs.append(ranx.Run(scores, name=name))
    # ranx permutes in numba threads whose random streams its seed does not reach (on more
    # than one thread, its p-value changes with the scheduling, e.g. under load): on one
    # thread it is the seeded Monte Carlo estimate, the same on every run.
    numba = pytest.importorskip("numba")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        report = ranx.compare(
            qrels, runs, metrics=["ndcg@10"], stat_test="fisher", n_permutations=10_000,
            random_seed=1, rounding_digits=12,
        )  # fmt: skip
    finally:
        numba.set_num_threads(threads)
    p_ranx = report.to_dict()["A"]["comparisons"]["B"]["ndcg@10"]
    per_query = {
        run.name: system_frame(np.array(ranx.evaluate(qrels, run, "ndcg@10", return_mean=False)))
        for run in runs
    }
    ours = compare(per_query, baseline="A", n_permutations=10_000, n_resamples=100, seed=1)
    row = ours.row(0, named=True)
    assert row["randomization_method"] == "monte_carlo"
    p_ours = row["p_value_randomization"]
    assert 0.02 < p_ranx < 0.5  # an informative p-value, not 0 or 1
    # Two independent Monte Carlo estimates of the same p, each over 10,000 permutations:
    # their difference has this standard error; 4 of them leave a 6e-5 chance of a false alarm
    # (and both estimates are seeded, so the test gives the same answer on every run).
    p = (p_ours + p_ranx) / 2
    spread = math.sqrt(p * (1 - p) / 10_000 + p * (1 - p) / 10_000)
    assert abs(p_ours - p_ranx) < 4 * spread, (p_ours, p_ranx, spread)


def test_groups_policies_and_counts() -> None:
    a = system_frame(np.array([0.1, 0.2, 0.3, 0.4, float("nan")]))
    b = system_frame(np.array([0.2, 0.2, 0.5, 0.4, float("nan")])).filter(pl.col("user") != 0)
    c = system_frame(np.array([0.3, 0.3, 0.3, 0.3, float("nan")]))
    systems = {"A": a, "B": b, "C": c}
    out = compare(systems, baseline="A", n_resamples=50).select(
        "system", "n_groups", "n_groups_union", "n_nan", "n_missing_baseline", "n_missing_system"
    )
    # user 0 is missing from B: dropped everywhere; user 4 is NaN everywhere: left out
    assert out.rows() == [("B", 3, 5, 1, 0, 1), ("C", 3, 5, 1, 0, 0)]
    zero = compare(systems, baseline="A", groups="zero", n_resamples=50)
    assert zero["n_groups"].to_list() == [4, 4]
    assert zero.filter(pl.col("system") == "B")["mean"][0] == pytest.approx(
        (0 + 0.2 + 0.5 + 0.4) / 4
    )
    with pytest.raises(ValueError, match="systems \\['B'\\] lack a \\(group, metric, k\\)"):
        compare(systems, baseline="A", groups="error")


def test_rows_in_another_order_or_lazy_give_the_same_result() -> None:
    rng = np.random.default_rng(26)
    a, b = rng.random(40), rng.random(40)
    frames = {"A": system_frame(a), "B": system_frame(b)}
    aligned = compare(frames, n_resamples=100, n_permutations=500)
    shuffled: dict[str, pl.DataFrame | pl.LazyFrame] = {
        "A": frames["A"].reverse().lazy(),
        "B": frames["B"].sample(fraction=1.0, seed=1),
    }
    joined = compare(shuffled, n_resamples=100, n_permutations=500)
    columns = ["diff", "p_value_t", "p_value_wilcoxon", "baseline_mean", "mean", "wins"]
    for name in columns:
        assert joined[name][0] == pytest.approx(aligned[name][0], rel=1e-12)
    repeated = {"A": pl.concat([frames["A"], frames["A"].head(1)]), "B": frames["B"]}
    with pytest.raises(ValueError, match="more than one row for a \\(group, metric, k\\)"):
        compare(repeated)


def test_all_pairs_strata_null_k_and_one_group() -> None:
    base = np.array([0.0, 0.5, 1.0, 0.5, 0.0, 1.0])
    frames = {}
    for name, shift in (("A", 0), ("B", 1), ("C", 2)):
        values = np.roll(base, shift)
        frames[name] = pl.concat([
            system_frame(values, "precision", 5), system_frame(values, "r_precision", None)
        ])  # fmt: skip
    segments = pl.DataFrame({"user": range(6), "segment": ["solo"] + ["crowd"] * 5})
    out = compare(frames, by="segment", attributes=segments, n_resamples=100)
    assert out.height == 2 * 2 * 3  # strata × metric/k × pairs
    assert out.select("baseline", "system").unique(maintain_order=True).rows() == [
        ("A", "B"), ("A", "C"), ("B", "C")
    ]  # fmt: skip
    assert out["k"].null_count() == 6  # r_precision keeps its null k
    solo = out.filter(pl.col("segment") == "solo")
    assert solo["n_groups"].unique().to_list() == [1]
    assert solo["ci_low"].null_count() == solo.height  # one group: no interval
    for row in solo.iter_rows(named=True):  # nor a t-test, unless nothing differs (p = 1)
        assert math.isnan(row["p_value_t"]) or (row["ties"] == 1 and row["p_value_t"] == 1)


def test_identical_systems_and_corrections() -> None:
    values = np.random.default_rng(27).random(30)
    same = compare({"A": system_frame(values), "B": system_frame(values)}, n_resamples=50)
    row = same.row(0, named=True)
    assert (row["p_value_t"], row["p_value_randomization"], row["p_value_wilcoxon"]) == (1, 1, 1)
    assert row["ties"] == 30
    assert math.isnan(row["effect_size"])
    p = np.array([0.01, 0.04, np.nan, 0.03, 0.5])
    np.testing.assert_allclose(holm(p), [0.04, 0.09, np.nan, 0.09, 0.5])
    np.testing.assert_allclose(
        benjamini_hochberg(p)[[0, 1, 3, 4]], stats.false_discovery_control(p[[0, 1, 3, 4]])
    )


@pytest.mark.parametrize("correction", ["holm", "bh", None])
@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon"])
def test_p_adjusted_uses_the_chosen_test_across_all_rows(test: Any, correction: Any) -> None:
    rng = np.random.default_rng(28)
    frames = {
        name: pl.concat([system_frame(rng.random(25) + shift, m, 10) for m in ("ndcg", "mrr")])
        for name, shift in (("A", 0.0), ("B", 0.1), ("C", 0.3))
    }
    out = compare(
        frames,
        baseline="A",
        test=test,
        correction=correction,
        n_resamples=50,
        family="all",
    )
    raw = out[{"t": "p_value_t", "randomization": "p_value_randomization",
               "wilcoxon": "p_value_wilcoxon"}[test]].to_numpy()  # fmt: skip
    adjust: dict[str | None, Callable[[np.ndarray], np.ndarray]] = {
        "holm": holm, "bh": benjamini_hochberg, None: lambda p: p
    }  # fmt: skip
    expected = adjust[correction](raw)
    np.testing.assert_allclose(out["p_adjusted"].to_numpy(), expected, rtol=1e-12)


def test_argument_errors() -> None:
    frame = system_frame(np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="at least two systems"):
        compare({"A": frame})
    with pytest.raises(ValueError, match="baseline 'Z' is not one of"):
        compare({"A": frame, "B": frame}, baseline="Z")
    with pytest.raises(ValueError, match="groups must be one of"):
        compare({"A": frame, "B": frame}, groups="union")  # type: ignore[arg-type]
    other = frame.rename({"user": "query"})
    with pytest.raises(ValueError, match="systems must share group keys"):
        compare({"A": frame, "B": other})


def test_through_evaluate() -> None:
    rng = np.random.default_rng(29)
    users, items = 40, 8
    truth = pl.DataFrame({"user": np.arange(users), "item": rng.integers(0, items, users)})
    results = {}
    for name, noise in (("base", 3.0), ("better", 0.8)):
        item = np.tile(np.arange(items), users)
        user = np.repeat(np.arange(users), items)
        target = truth["item"].to_numpy()[user]
        score = (item == target) + noise * rng.random(users * items)
        candidates = pl.DataFrame({"user": user, "item": item, "score": score})
        results[name] = rk.evaluate(candidates, truth, k=[1, 5], group_by="user")
    out = compare(results, baseline="base", n_resamples=200)
    assert set(out["metric"]) >= {"precision", "ndcg", "r_precision"}
    assert (out["n_groups"] == users).all()
    better = out.filter(pl.col("metric") == "mrr", pl.col("k") == 5).row(0, named=True)
    assert better["diff"] > 0
    assert better["p_value_randomization"] < 0.05


def test_a_stratum_with_no_groups_left() -> None:
    a = system_frame(np.array([0.1, 0.2, 0.3, float("nan"), float("nan")]))
    b = system_frame(np.array([0.3, 0.1, 0.4, float("nan"), float("nan")]))
    segments = pl.DataFrame({"user": range(5), "segment": ["x", "x", "x", "empty", "empty"]})
    out = compare({"A": a, "B": b}, by="segment", attributes=segments, n_resamples=50)
    empty = out.filter(pl.col("segment") == "empty").row(0, named=True)
    assert (empty["n_groups"], empty["n_nan"], empty["n_groups_union"]) == (0, 2, 2)
    assert all(empty[c] is None for c in ("diff", "mean", "ci_low", "p_value_t"))
    assert math.isnan(empty["p_adjusted"])  # no p-value: left out of the correction
    assert out.filter(pl.col("segment") == "x")["n_groups"][0] == 3


def test_default_family_is_the_challengers_of_each_metric_and_k() -> None:
    """Holm over the challengers of one (metric, K), not over every row."""
    rng = np.random.default_rng(30)
    frames = {
        name: pl.concat([system_frame(rng.random(25) + shift, m, k)
                         for m in ("ndcg", "mrr") for k in (5, 10)])
        for name, shift in (("A", 0.0), ("B", 0.1), ("C", 0.3))
    }  # fmt: skip
    out = compare(frames, baseline="A", n_resamples=50)
    assert out.height == 8
    assert (out["family_size"] == 2).all()
    for _, rows in out.group_by("metric", "k"):
        raw = rows["p_value_randomization"].to_numpy()
        np.testing.assert_allclose(rows["p_adjusted"].to_numpy(), holm(raw), rtol=1e-12)
    everything = compare(frames, baseline="A", n_resamples=50, family="all")
    assert (everything["family_size"] == 8).all()
    np.testing.assert_allclose(
        everything["p_adjusted"].to_numpy(),
        holm(everything["p_value_randomization"].to_numpy()),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="family must be"):
        compare(frames, family="every")  # type: ignore[arg-type]


def test_each_row_names_its_test_and_p_value_method() -> None:
    """The "exact" enumeration or "monte_carlo" with B permutations, row by row."""
    rng = np.random.default_rng(31)
    few = (rng.integers(0, 3, 12) / 2, rng.integers(0, 3, 12) / 2)  # 2^12 arrangements: exact
    many = (rng.random(300), rng.random(300) + 0.05)  # continuous, 300 groups: Monte Carlo
    a = pl.concat([system_frame(few[0], "precision", 1),
                   system_frame(np.resize(many[0], 12), "ndcg", 10)])  # fmt: skip
    b = pl.concat([system_frame(few[1], "precision", 1),
                   system_frame(np.resize(many[1], 12), "ndcg", 10)])  # fmt: skip
    out = compare({"A": a, "B": b}, n_resamples=20, n_permutations=3000)
    assert out.select("metric", "test", "p_value_method", "n_permutations").rows() == [
        ("precision", "randomization", "exact", None),
        ("ndcg", "randomization", "exact", None),
    ]
    big = {"A": system_frame(many[0]), "B": system_frame(many[1])}
    row = compare(big, n_resamples=20, n_permutations=3000).row(0, named=True)
    assert (row["test"], row["p_value_method"], row["n_permutations"]) == (
        "randomization", "monte_carlo", 3000
    )  # fmt: skip
    t_row = compare(big, n_resamples=20, test="t").row(0, named=True)
    assert (t_row["test"], t_row["p_value_method"], t_row["n_permutations"]) == (
        "t", "t_distribution", None
    )  # fmt: skip
    w_row = compare(big, n_resamples=20, test="wilcoxon").row(0, named=True)
    assert (w_row["test"], w_row["p_value_method"]) == ("wilcoxon", "normal")


def test_shared_monte_carlo_agrees_with_the_exact_p_value() -> None:
    """One draw of signs serves every column; each column's p stays within Monte Carlo error."""
    rng = np.random.default_rng(32)
    n = 22  # 2^22 arrangements: "auto" samples, and the exact value is still computable
    base = {m: rng.random(n) for m in ("ndcg", "recall", "mrr")}
    shifted = {m: v + rng.normal(0.08, 0.2, n) for m, v in base.items()}
    a = pl.concat([system_frame(v, m, 10) for m, v in base.items()])
    b = pl.concat([system_frame(v, m, 10) for m, v in shifted.items()])
    out = compare({"A": a, "B": b}, n_resamples=20, n_permutations=20_000, seed=3)
    for row in out.iter_rows(named=True):
        assert row["p_value_method"] == "monte_carlo"
        d = shifted[row["metric"]] - base[row["metric"]]
        exact = _exact_by_halves(d)
        assert (
            abs(row["p_value_randomization"] - exact)
            < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1 / 20_000
        )


def _exact_by_halves(d: np.ndarray) -> float:
    """Exact randomization p-value of 22 differences: every sign arrangement of each half."""
    half = len(d) // 2
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=half)))
    left, right = signs @ d[:half], signs @ d[half:]
    total = np.abs(left[:, None] + right[None, :])
    return float(np.mean(total >= abs(d.sum()) - 1e-9))


def test_a_metric_a_system_lacks_is_left_out_not_zero_filled() -> None:
    """B never computed precision@1; "zero" must not compare A with zeros there."""
    a = pl.concat([system_frame(np.array([0.1, 0.3, 0.2, 0.4]), "ndcg", 10),
                   system_frame(np.array([0.0, 1.0, 1.0, 0.0]), "precision", 1)])  # fmt: skip
    b = system_frame(np.array([0.2, 0.3, 0.5, 0.4]), "ndcg", 10)
    c = pl.concat([system_frame(np.array([0.3, 0.1, 0.2, 0.6]), "ndcg", 10),
                   system_frame(np.array([1.0, 1.0, 0.0, 1.0]), "precision", 1)])  # fmt: skip
    policies: tuple[Literal["zero", "intersect"], ...] = ("zero", "intersect")
    for groups in policies:
        with pytest.warns(UserWarning, match="'B' lacks precision@1"):
            out = compare({"A": a, "B": b, "C": c}, baseline="A", groups=groups, n_resamples=20)
        assert out.select("metric", "system").rows() == [
            ("precision", "C"), ("ndcg", "B"), ("ndcg", "C")
        ]  # fmt: skip
        precision = out.row(0, named=True)
        assert precision["n_groups"] == 4  # A and C still compared on every group
        assert precision["family_size"] == 1  # B's missing row does not enter the family
    with pytest.raises(ValueError, match="lack a \\(group, metric, k\\)"):
        compare({"A": a, "B": b}, groups="error")


def test_differences_equal_up_to_float_noise_have_no_spread() -> None:
    """[.2,.3,.4] - [.1,.2,.3] is 0.1 everywhere, up to rounding: no effect size
    of 3e15 and no p of 3e-32; the t statistic is undefined (NaN)."""
    a = system_frame(np.array([0.1, 0.2, 0.3]))
    b = system_frame(np.array([0.2, 0.3, 0.4]))
    assert np.std(b["value"].to_numpy() - a["value"].to_numpy()) > 0  # the noise is real
    row = compare({"A": a, "B": b}, n_resamples=20).row(0, named=True)
    assert math.isnan(row["effect_size"])
    assert math.isnan(row["p_value_t"])
    assert row["diff"] == pytest.approx(0.1)
    # equal up to noise, with a zero mean difference: nothing differs, p = 1
    c = system_frame(np.array([0.1 + 0.2, 0.3, 0.7]))
    d = system_frame(np.array([0.3, 0.1 + 0.2, 0.7]))
    tied = compare({"C": c, "D": d}, n_resamples=20).row(0, named=True)
    assert math.isnan(tied["effect_size"])
    assert tied["p_value_t"] == 1.0


def test_intervals_equal_bootstrap_of_the_differences_with_the_same_seed() -> None:
    # Both paths of the shared resampling: a cell every group enters, and one some lack.
    rng = np.random.default_rng(1)
    n = 200
    a = system_frame(rng.random(n))
    b = a.with_columns(pl.col("value") + rng.normal(0.05, 0.2, n))
    a2 = system_frame(rng.random(n), "recall", 5)
    b2 = a2.with_columns(pl.col("value") + rng.normal(0.0, 0.2, n)).filter(pl.col("user") % 7 != 0)
    out = compare({"A": pl.concat([a, a2]), "B": pl.concat([b, b2])}, baseline="A", seed=3)
    on = ["user", "metric", "k"]
    differences = (
        pl.concat([a, a2])
        .join(pl.concat([b, b2]), on=on, how="left")
        .select(*on, (pl.col("value_right") - pl.col("value")).alias("value"))
    )
    expected = rk.bootstrap(differences, seed=3)
    joined = out.join(expected, on=["metric", "k"])
    assert joined.height == 2
    for column in ("ci_low", "ci_high"):
        gap = (joined[column] - joined[f"{column}_right"]).abs().max()
        assert isinstance(gap, float)
        assert gap <= 1e-12


def test_any_table_in_and_lazy_evaluations_run_once() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(2)
    a = system_frame(rng.random(30))
    b = a.with_columns(pl.col("value") + rng.normal(0.0, 0.1, 30))
    expected = compare({"A": a, "B": b}, baseline="A", seed=1)
    for converted in (
        {"A": a.to_pandas(), "B": b.to_arrow()},
        {"A": a.to_arrow().to_reader(), "B": b.to_pandas()},
    ):
        assert compare(converted, baseline="A", seed=1).equals(expected)

    reads: list[int] = []

    def counted(frame: pl.DataFrame) -> pl.DataFrame:
        reads.append(frame.height)
        return frame

    candidates = pl.DataFrame(
        {"user": np.repeat(np.arange(20), 5), "item": np.tile(np.arange(5), 20),
         "score": rng.random(100)}
    )  # fmt: skip
    truth = pl.DataFrame({"user": np.arange(20), "item": rng.integers(0, 5, 20)})
    systems = {
        name: rk.evaluate(
            candidates.lazy()
            .with_columns(pl.col("score") * sign)
            .map_batches(counted, schema=candidates.schema),
            truth.lazy(),
            k=[1, 3],
            group_by="user",
        )
        for name, sign in (("up", 1.0), ("down", -1.0))
    }
    reads.clear()
    lazy = compare(systems, baseline="up", seed=1)
    assert len(reads) == 2  # each system's pipeline once
    eager = {n: rk.evaluate(candidates.with_columns(pl.col("score") * s), truth, k=[1, 3],
                            group_by="user") for n, s in (("up", 1.0), ("down", -1.0))}  # fmt: skip
    assert lazy.equals(compare(eager, baseline="up", seed=1))


def test_progress_reports_resamples(capsys: pytest.CaptureFixture[str]) -> None:
    a = system_frame(np.linspace(0.0, 1.0, 10))
    b = a.with_columns(pl.col("value") * 0.9)
    compare({"A": a, "B": b}, baseline="A", n_resamples=120, progress=True)
    assert "resamples" in capsys.readouterr().err
    compare({"A": a, "B": b}, baseline="A", n_resamples=120, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_the_kernel_draws_the_intervals_numpys_weights_give(method: str) -> None:
    """Where the kernel is loaded it draws the paired bootstrap's groups and sums the
    differences itself (no array of weights): the same draws as NumPy's weights, so the same
    intervals up to the order of the additions."""
    from tests.support.kernel_path import needs_kernel, path

    if needs_kernel.args[0]:
        pytest.skip(needs_kernel.kwargs["reason"])
    rng = np.random.default_rng(11)
    systems = {name: system_frame(rng.random(400).round(1)) for name in ("a", "b", "c")}
    found = {}
    for kernel in (True, False):
        with path(kernel):
            found[kernel] = compare(systems, method=method, n_resamples=300, seed=4)
    for column in ("ci_low", "ci_high"):
        assert np.allclose(found[True][column], found[False][column], rtol=1e-12, atol=1e-15)
    assert found[True].drop("ci_low", "ci_high").equals(found[False].drop("ci_low", "ci_high"))
