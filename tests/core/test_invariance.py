"""The same per-group numbers, exactly, however the data arrives."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from tests.conftest import ENGINES, assert_same_values
from tests.support.reference import per_group_dict

TIES = ("trec_eval", "item_asc", "input_order", "pessimistic", "optimistic", "expected")


def _tables(seed: int = 0, n_groups: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = []
    for group in range(n_groups):
        n = int(rng.integers(0, 25))
        items = rng.integers(0, 40, size=n)  # repeats -> duplicates
        scores = rng.integers(0, 6, size=n) / 4  # few values -> many ties
        rows += [(group, int(i), float(s)) for i, s in zip(items, scores, strict=True)]
    candidates = pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
    truth_rows = []
    for group in range(n_groups + 5):  # some groups have no candidates
        for item in rng.choice(45, size=int(rng.integers(0, 8)), replace=False):
            truth_rows.append((group, int(item), int(rng.integers(0, 4))))
    truth = pl.DataFrame(truth_rows, schema=["user", "item", "relevance"], orient="row")
    return candidates, truth


K = [1, 3, 5, 10, 20]


@pytest.mark.parametrize("ties", TIES)
def test_lazy_eager_engines_shuffles_and_splits_agree(ties: str) -> None:
    candidates, truth = _tables()
    policy = rk.Policy(ties=ties, empty_truth="nan")
    if ties == "input_order":
        # Input order is part of the data under this policy: shuffles may not change it.
        shuffled = candidates
    else:
        shuffled = candidates.sample(fraction=1.0, shuffle=True, seed=7)
    reference = per_group_dict(
        rk.evaluate(candidates, truth, k=K, group_by="user", policy=policy).per_group, ["user"]
    )
    for engine in ENGINES:
        lazy = rk.evaluate(
            shuffled.lazy(), truth.lazy(), k=K, group_by="user", policy=policy
        ).per_group
        assert isinstance(lazy, pl.LazyFrame)
        assert_same_values(per_group_dict(lazy.collect(engine=engine), ["user"]), reference)
        eager = rk.evaluate(
            shuffled,
            truth.sample(fraction=1.0, shuffle=True, seed=3),
            k=K,
            group_by="user",
            policy=policy,
            engine=engine,
        ).per_group
        assert_same_values(per_group_dict(eager, ["user"]), reference)
    # Any split of the groups into separate calls gives the same per-group numbers.
    parts = {}
    for part in range(3):
        in_part = pl.col("user") % 3 == part
        res = rk.evaluate(
            candidates.filter(in_part),
            truth.filter(in_part),
            k=K,
            group_by="user",
            policy=policy,
        )
        parts.update(per_group_dict(res.per_group, ["user"]))
    assert_same_values(parts, reference)
    # One group at a time, too.
    single = {}
    for user in truth["user"].unique().to_list()[:10]:
        res = rk.evaluate(
            candidates.filter(pl.col("user") == user),
            truth.filter(pl.col("user") == user),
            k=K,
            group_by="user",
            policy=policy,
        )
        single.update(per_group_dict(res.per_group, ["user"]))
    assert_same_values(single, {key: reference[key] for key in single})


def test_multiple_group_keys_and_string_ids() -> None:
    candidates, truth = _tables(seed=1)

    def split(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(
            (pl.col("user") % 4).alias("country"),
            pl.format("ユーザー{}", pl.col("user") // 4).alias("user"),
            pl.format("é{}", pl.col("item")).alias("item"),
        )

    res = rk.evaluate(split(candidates), split(truth), k=K, group_by=["country", "user"])
    base = rk.evaluate(candidates, truth, k=K, group_by="user", policy=rk.Policy(ties="item_asc"))
    assert res.per_group.columns == ["country", "user", "metric", "k", "value"]
    assert res.per_group.height == base.per_group.height


def test_summary_is_independent_of_row_order() -> None:
    candidates, truth = _tables(seed=2, n_groups=200)
    a = rk.evaluate(candidates, truth, k=K, group_by="user").summary()
    b = rk.evaluate(candidates.lazy().sort("score"), truth.lazy(), k=K, group_by="user").summary()
    assert a.equals(b)
