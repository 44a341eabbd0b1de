"""`distribution` and `histogram`: statistics equal Polars'/NumPy's on the same per-group values,
strata, NaN values, empty and one-group strata, lazy and eager inputs."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankk.core import quantile_name
from polars_rankk.stats.distributions import distribution, histogram

QUANTILES = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


def per_group_frame(n_users: int = 60, seed: int = 0) -> pl.DataFrame:
    """Realistic per-group values: precision@5/@10 (hits/K), ndcg@10 (continuous), r_precision
    (k null) with NaN for empty-truth users, as `evaluate` returns under empty_truth='nan'."""
    rng = np.random.default_rng(seed)
    empty = rng.random(n_users) < 0.1
    rows = []
    for user in range(n_users):
        hits10 = int(rng.integers(0, 11))
        for metric, k, value in (
            ("precision", 5, min(hits10, 5) / 5),
            ("precision", 10, hits10 / 10),
            ("ndcg", 10, float(rng.random()) if hits10 else 0.0),
            ("r_precision", None, float(rng.integers(0, 4)) / 3),
        ):
            rows.append((user, metric, k, math.nan if empty[user] else value))
    return pl.DataFrame(
        rows, schema={"user": pl.Int64, "metric": pl.String, "k": pl.Int64, "value": pl.Float64},
        orient="row",
    )  # fmt: skip


def attributes_frame(n_users: int = 60) -> pl.DataFrame:
    # users 0..9 in "solo" except user 0 alone in "one"; the last 5 users have no attributes
    segment = ["one" if u == 0 else ("small" if u < 10 else "big") for u in range(n_users - 5)]
    return pl.DataFrame({"user": list(range(n_users - 5)), "segment": segment})


def numpy_row(values: np.ndarray) -> dict[str, float | int | None]:
    present = values[~np.isnan(values)]
    n = len(present)
    row: dict[str, float | int | None] = {"n_groups": n, "n_nan": int(np.isnan(values).sum())}
    if n == 0:
        return row
    row |= {
        "mean": float(np.mean(present)),
        "std": float(np.std(present, ddof=1)) if n > 1 else None,
        "min": float(present.min()),
        "max": float(present.max()),
        "median": float(np.median(present)),
        "share_zeros": float(np.mean(present == 0)),
        "share_ones": float(np.mean(present == 1)),
    }
    row |= {quantile_name(q): float(np.quantile(present, q)) for q in QUANTILES}
    return row


@pytest.mark.parametrize("lazy", [False, True])
def test_statistics_equal_numpy_and_polars(lazy: bool) -> None:
    frame = per_group_frame()
    source = frame.lazy() if lazy else frame
    out = distribution(source, quantiles=QUANTILES)
    assert isinstance(out, pl.LazyFrame if lazy else pl.DataFrame)
    table = out.collect() if isinstance(out, pl.LazyFrame) else out
    # one row per metric × k, r_precision (k null) its own row, library metric order
    assert table.select("metric", "k").rows() == [
        ("precision", 5), ("precision", 10), ("ndcg", 10), ("r_precision", None)
    ]  # fmt: skip
    for row in table.iter_rows(named=True):
        values = frame.filter(
            (pl.col("metric") == row["metric"]) & pl.col("k").eq_missing(row["k"])
        )["value"]
        expected = numpy_row(values.to_numpy())
        for name, number in expected.items():
            # NumPy sums in another order than Polars: equal to the last bits, not bit for bit
            assert row[name] == pytest.approx(number, rel=1e-12, abs=1e-15), name
        # and what Polars itself says on the same values: quantiles (order statistics) bit for
        # bit; sums to the last bit (a group-by kernel adds in another order than Series.mean)
        clean = values.fill_nan(None).drop_nulls()
        assert row["mean"] == pytest.approx(clean.mean(), rel=1e-14)
        assert row["std"] == pytest.approx(clean.std(), rel=1e-14)
        assert row["std_error"] == pytest.approx(clean.std() / math.sqrt(len(clean)), rel=1e-14)
        for q in QUANTILES:
            assert row[quantile_name(q)] == clean.quantile(q, interpolation="linear")
        assert row["median"] == clean.median()


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_lazy_result_is_the_same_on_every_engine(engine: str) -> None:
    frame = per_group_frame()
    eager = distribution(frame, by="segment", attributes=attributes_frame())
    lazy = distribution(frame.lazy(), by="segment", attributes=attributes_frame().lazy())
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(engine=engine), eager)  # type: ignore[call-overload]


def test_strata_one_group_all_nan_and_missing_attributes() -> None:
    frame = per_group_frame().with_columns(
        # user 1..9 ("small") have NaN ndcg: that stratum × metric has no group left
        pl.when((pl.col("user").is_between(1, 9)) & (pl.col("metric") == "ndcg"))
        .then(float("nan"))
        .otherwise(pl.col("value"))
        .alias("value")
    )
    table = distribution(frame, by="segment", attributes=attributes_frame())
    assert isinstance(table, pl.DataFrame)
    assert table["segment"].to_list()[:4] == ["big"] * 4  # sorted by stratum, null last
    assert table["segment"].to_list()[-4:] == [None] * 4  # users without attributes
    one = table.filter(
        pl.col("segment") == "one", pl.col("metric") == "precision", pl.col("k") == 10
    )
    user0 = frame.filter(pl.col("user") == 0, pl.col("metric") == "precision", pl.col("k") == 10)
    if not math.isnan(user0["value"][0]):
        assert one["n_groups"][0] == 1
        assert one["mean"][0] == user0["value"][0]
        assert one["std"][0] is None  # a sample deviation needs two groups
        assert one["std_error"][0] is None
    small = table.filter(pl.col("segment") == "small", pl.col("metric") == "ndcg").row(
        0, named=True
    )
    assert small["n_groups"] == 0
    assert small["n_nan"] == 9
    assert all(small[c] is None for c in ("mean", "std", "median", "share_zeros", "min"))


def test_stratum_from_the_evaluation_groups_table() -> None:
    class Result:  # duck-typed evaluation: per_group, group_keys, groups
        def __init__(self) -> None:
            self.per_group = per_group_frame(20)
            self.group_keys = ["user"]
            self.groups = pl.DataFrame(
                {"user": range(20), "n_candidates": 10, "n_relevant": [1, 2] * 10}
            )

    table = distribution(Result(), by="n_relevant", quantiles=[0.5])
    assert isinstance(table, pl.DataFrame)
    assert table.filter(pl.col("metric") == "precision", pl.col("k") == 5)[
        "n_relevant"
    ].to_list() == [1, 2]


def test_group_keys_inferred_or_given() -> None:
    frame = per_group_frame(10).with_columns(pl.lit("x").alias("market"))
    inferred = distribution(frame, by="market")  # market is a column of the frame
    given = distribution(frame, by="market", group_keys=["user", "market"])
    assert_frame_equal(inferred, given)


def test_empty_input_gives_an_empty_table_with_the_columns() -> None:
    empty = per_group_frame(3).clear()
    table = distribution(empty, quantiles=[0.5])
    assert isinstance(table, pl.DataFrame)
    assert table.height == 0
    assert table.columns[:5] == ["metric", "k", "n_groups", "n_nan", "mean"]
    assert "quantile_0.5" in table.columns


def test_errors_say_what_is_wrong() -> None:
    frame = per_group_frame(5)
    with pytest.raises(ValueError, match="missing \\['value'\\]"):
        distribution(frame.drop("value"))
    with pytest.raises(ValueError, match="stratum column\\(s\\) \\['country'\\] not found"):
        distribution(frame, by="country")
    with pytest.raises(ValueError, match="quantiles must be numbers in \\[0, 1\\]"):
        distribution(frame, quantiles=[1.5])
    repeated = pl.DataFrame({"user": [1, 1], "segment": ["a", "b"]})
    with pytest.raises(ValueError, match=r"attributes must have one row per group \(user\)"):
        distribution(frame, by="segment", attributes=repeated)
    with pytest.raises(TypeError, match="column 'value' must be numeric"):
        distribution(frame.with_columns(pl.col("value").cast(pl.String)))
    with pytest.raises(TypeError, match="must be an evaluation"):
        distribution([1, 2, 3])  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="metric, k and value are always separated"):
        distribution(frame, by="metric")


@pytest.mark.parametrize("lazy", [False, True])
def test_histogram_equals_numpy(lazy: bool) -> None:
    frame = per_group_frame()
    edges = [i / 10 for i in range(11)]
    out = histogram(frame.lazy() if lazy else frame, bins=10)
    assert isinstance(out, pl.LazyFrame if lazy else pl.DataFrame)
    table = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert table.height == 4 * 10  # every bin of every metric × k, empty ones included
    for (metric, k), part in table.group_by(["metric", "k"], maintain_order=True):
        values = frame.filter((pl.col("metric") == metric) & pl.col("k").eq_missing(k))["value"]
        present = values.to_numpy()[~np.isnan(values.to_numpy())]
        counts, _ = np.histogram(present, bins=np.array(edges))
        assert part["count"].to_list() == counts.tolist()
        assert part["bin_start"].to_list() == edges[:-1]
        assert part["share"].to_list() == pytest.approx((counts / len(present)).tolist())


def test_histogram_edges_outside_values_and_empty_strata() -> None:
    frame = pl.DataFrame(
        {"user": range(6), "metric": "ndcg", "k": 3,
         "value": [0.0, 0.25, 0.5, 0.75, 1.0, float("nan")]}
    )  # fmt: skip
    table = histogram(frame, bins=[0.2, 0.5, 0.8])
    assert isinstance(table, pl.DataFrame)
    # [0.2, 0.5) holds 0.25; [0.5, 0.8] holds 0.5 and 0.75; 0.0 and 1.0 fall in no bin
    assert table["count"].to_list() == [1, 2]
    assert table["share"].to_list() == [1 / 5, 2 / 5]  # of the 5 non-NaN values
    all_nan = frame.with_columns(pl.lit(float("nan")).alias("value"))
    empty = histogram(all_nan, bins=2)
    assert isinstance(empty, pl.DataFrame)
    assert empty["count"].to_list() == [0, 0]
    assert empty["share"].to_list() == [None, None]
    with pytest.raises(ValueError, match="strictly increasing"):
        histogram(frame, bins=[0.5, 0.5])
