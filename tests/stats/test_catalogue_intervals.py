"""Catalogue intervals resample groups as rk.bootstrap does and recompute each figure exactly."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.stats.resampling import generator, resample_key, weight_blocks

FIGURES = ["coverage", "gini", "entropy", "personalization"]


def _run(seed: int = 3, users: int = 12) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = users * 4
    return pl.DataFrame(
        {
            "user": np.repeat(np.arange(users), 4),
            "item": rng.integers(0, 9, size=n),
            "score": rng.random(n),
        }
    )


def test_each_resample_is_the_evaluation_of_the_drawn_groups() -> None:
    # Brute force: evaluate the resampled groups (a group drawn w times is w lists), with the
    # same weights rk.bootstrap draws for seed 0, and take the percentiles by hand.
    candidates = _run()
    catalogue = pl.DataFrame({"item": range(12)})
    options = {"k": [1, 3], "metrics": FIGURES, "group_by": "user", "catalogue": catalogue}
    res = rk.evaluate(candidates, **options)  # type: ignore[arg-type]
    got = rk.catalogue_intervals(res, n_resamples=20, seed=0)
    users = sorted(candidates["user"].unique().to_list())
    weights = next(weight_blocks(generator(0, resample_key(())), [len(users)], 20))
    draws: dict[tuple[str, int], list[float]] = {}
    for row in weights:
        copies = [
            candidates.filter(pl.col("user") == user).with_columns(
                (pl.col("user") * 100 + copy).alias("user")
            )
            for user, times in zip(users, row, strict=True)
            for copy in range(int(times))
        ]
        drawn = rk.evaluate(pl.concat(copies), **options)  # type: ignore[arg-type]
        assert drawn.catalogue is not None
        for metric, k, value in drawn.catalogue.iter_rows():
            draws.setdefault((metric, k), []).append(value)
    for row in got.iter_rows(named=True):
        values = np.array(draws[(row["metric"], row["k"])])
        assert row["ci_low"] == pytest.approx(np.quantile(values, 0.025), abs=1e-12)
        assert row["ci_high"] == pytest.approx(np.quantile(values, 0.975), abs=1e-12)
    assert res.catalogue is not None
    assert got.select("metric", "k", "value").equals(res.catalogue)


def test_intervals_cover_the_population_figure() -> None:
    # Lists drawn from one fixed distribution: the 90% interval of a sample of 60 lists
    # covers the figure of 20,000 lists in most of 40 samples. Personalization (a mean over
    # pairs) estimates that figure without bias; entropy and coverage grow with the number of
    # lists, so a percentile interval at 60 lists does not cover the 20,000-list value.
    rng = np.random.default_rng(7)
    popularity = 1.0 / np.arange(1, 31)
    popularity /= popularity.sum()

    def lists(n: int) -> pl.DataFrame:
        items = np.stack([rng.choice(30, size=3, replace=False, p=popularity) for _ in range(n)])
        return pl.DataFrame(
            {
                "user": np.repeat(np.arange(n), 3),
                "item": items.ravel(),
                "score": np.tile([3.0, 2.0, 1.0], n),
            }
        )

    catalogue = pl.DataFrame({"item": range(30)})
    options = {"k": 3, "metrics": ["personalization"], "group_by": "user",
               "catalogue": catalogue}  # fmt: skip
    truth = rk.evaluate(lists(20_000), **options).catalogue  # type: ignore[arg-type]
    assert truth is not None
    target = dict(zip(truth["metric"], truth["value"], strict=True))
    covered = dict.fromkeys(target, 0)
    samples = 40
    for seed in range(samples):
        res = rk.evaluate(lists(60), **options)  # type: ignore[arg-type]
        ci = rk.catalogue_intervals(res, confidence=0.9, n_resamples=300, seed=seed)
        for row in ci.iter_rows(named=True):
            covered[row["metric"]] += row["ci_low"] <= target[row["metric"]] <= row["ci_high"]
    for name, hits in covered.items():
        assert hits >= 0.7 * samples, (name, hits)


def test_needs_catalogue_metrics() -> None:
    res = rk.evaluate(_run(), k=2, metrics=["novelty"], group_by="user", popularity=_run())
    with pytest.raises(ValueError, match="catalogue-level metrics"):
        rk.catalogue_intervals(res)
