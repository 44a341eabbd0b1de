"""Beyond-accuracy metrics out of core: per-group values and catalogue figures equal one
machine's exactly (per-part exposure counts summed, whole item tables given to every part)."""

from __future__ import annotations

import tempfile

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.registry import metric_rank

METRICS = [
    "hit_rate",
    "novelty",
    "arp",
    "long_tail_share",
    "intra_list_diversity",
    "coverage",
    "gini",
    "entropy",
    "personalization",
]
LOG = pl.DataFrame({"item": [0, 0, 0, 1, 1, 2, 3, 9]})
FEATURES = pl.DataFrame({"item": [0, 1, 2, 3, 4, 5], "label": ["x", "y", "x", "z", "y", "x"]})


@st.composite
def runs(draw: st.DrawFn) -> pl.DataFrame:
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 6), st.integers(0, 7), st.sampled_from([0.0, 0.5, 1.0])),
            min_size=1,
            max_size=40,
        )
    )
    users, items, scores = zip(*rows, strict=True)
    return pl.DataFrame({"user": users, "item": items, "score": scores})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    candidates=runs(),
    buckets=st.integers(1, 4),
    short_lists=st.sampled_from(["fixed", "observed", "skip"]),
    duplicates=st.sampled_from(["first", "keep"]),
)
def test_buckets_equal_one_machine(
    candidates: pl.DataFrame, buckets: int, short_lists: str, duplicates: str
) -> None:
    policy = rk.Policy(short_lists=short_lists, duplicates=duplicates)  # type: ignore[arg-type]
    truth = candidates.filter(pl.col("score") > 0.7).select("user", "item").unique()
    options = {
        "k": [1, 3],
        "metrics": METRICS,
        "group_by": "user",
        "policy": policy,
        "popularity": LOG,
        "item_features": FEATURES,
    }
    one = rk.evaluate(candidates, truth, **options)  # type: ignore[arg-type]
    out = rk.evaluate_in_buckets(
        candidates,
        truth,
        output=tempfile.mkdtemp(),
        buckets=buckets,
        engine="in-memory",
        **options,  # type: ignore[arg-type]
    )
    per_group = out.per_group.collect().sort("user", metric_rank(), "k")
    assert per_group.equals(one.per_group)
    assert one.catalogue is not None
    assert out.catalogue is not None
    assert out.catalogue.equals(one.catalogue)


def test_bucket_catalogue_is_the_whole_inputs() -> None:
    # Items 5 and 6 sit in one bucket each: the default catalogue counts both everywhere.
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": [5, 0, 6, 0], "score": [1.0, 0.5, 1.0, 0.5]}
    )
    one = rk.evaluate(candidates, k=1, metrics=["coverage", "gini"], group_by="user")
    out = rk.evaluate_in_buckets(
        candidates, output=tempfile.mkdtemp(), buckets=2, k=1,
        metrics=["coverage", "gini"], group_by="user", engine="in-memory",
    )  # fmt: skip
    assert one.catalogue is not None
    assert out.catalogue is not None
    assert out.catalogue.equals(one.catalogue)
    assert out.catalogue["value"].to_list() == [2 / 3, 1 / 3]
