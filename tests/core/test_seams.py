"""Seams around `evaluate`: per-group tables joined after it, micro averages, K
given as NumPy integers, and the names errors use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core import check_one_row_per_group, normalize_k, normalize_ks

CANDIDATES = pl.DataFrame(
    {
        "user": ["u1", "u1", "u2", "u2", "u3", "u3"],
        "item": ["a", "b", "c", "d", "e", "f"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
    }
)
TRUTH = pl.DataFrame({"user": ["u1", "u2", "u3"], "item": ["a", "x", "f"]})
SEGMENTS = pl.DataFrame({"user": ["u1", "u2", "u3"], "segment": ["new", "old", "old"]})


def _evaluation(key_dtype: pl.DataType | None = None, **options: Any) -> rk.Evaluation:
    def cast(frame: pl.DataFrame) -> pl.DataFrame:
        return frame if key_dtype is None else frame.with_columns(pl.col("user").cast(key_dtype))

    options = {"k": [1, 2], "group_by": "user", "metrics": ["precision", "ndcg"]} | options
    return rk.evaluate(cast(CANDIDATES), cast(TRUTH), **options)


# --- 1. one row per group in every per-group table ---------------------------------------


def test_weighted_summary_refuses_a_repeated_weight_row() -> None:
    result = rk.evaluate(
        pl.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]}),
        pl.DataFrame({"user": [1, 2], "item": ["a", "x"]}),
        k=1,
        metrics="precision",
        group_by="user",
    )
    good = pl.DataFrame({"user": [1, 2], "w": [1.0, 1.0]})
    summary = result.summary("weighted", weights=good)
    assert summary.select("value", "n_groups").row(0) == (0.5, 2)
    repeated = pl.DataFrame({"user": [1, 2, 2], "w": [1.0, 1.0, 1.0]})  # was 0.3333 over 3
    with pytest.raises(ValueError, match=r"^weights must have one row per group \(user\)") as info:
        result.summary("weighted", weights=repeated)
    assert "user=2 has 2 rows, e.g. {'user': 2, 'w': 1.0}" in str(info.value)
    with pytest.raises(ValueError, match=r"^weights must have one row per group"):
        result.summary("weighted", weights=repeated.lazy())


REPEATED = pl.DataFrame({"user": ["u1", "u2", "u2", "u3"], "segment": ["new", "old", "x", "old"]})
STRATIFIED: list[tuple[str, Callable[[rk.Evaluation], object]]] = [
    ("distribution", lambda res: rk.distribution(res, by="segment", attributes=REPEATED)),
    ("histogram", lambda res: rk.histogram(res, by="segment", attributes=REPEATED)),
    ("bootstrap", lambda res: rk.bootstrap(res, by="segment", attributes=REPEATED)),
    ("stratify", lambda res: rk.bootstrap(res, stratify="segment", attributes=[REPEATED])),
]


@pytest.mark.parametrize(("name", "call"), STRATIFIED, ids=[name for name, _ in STRATIFIED])
def test_every_attributes_join_refuses_a_repeated_group(
    name: str, call: Callable[[rk.Evaluation], object]
) -> None:
    with pytest.raises(ValueError, match=r"must have one row per group \(user\), but user='u2'"):
        call(_evaluation())


def test_k_curve_refuses_a_repeated_group() -> None:
    with pytest.raises(ValueError, match=r"attributes must have one row per group \(user\)"):
        rk.k_curve(
            CANDIDATES, TRUTH, k_max=2, group_by="user", by="segment", attributes=REPEATED, ci=False
        )


def test_check_one_row_per_group_shows_the_key_and_a_row() -> None:
    table = pl.LazyFrame({"a": [1, 1, 2], "b": ["x", "x", "y"], "c": [1, 2, 3]})
    check_one_row_per_group(table, ["a", "c"], "t")  # unique on (a, c)
    with pytest.raises(ValueError, match=r"t must have one row per group \(a, b\), but a=1, b='x'"):
        check_one_row_per_group(table, ["a", "b"], "t")


# --- 10. Categorical and Enum keys -------------------------------------------------------

KEY_DTYPES = [pl.Categorical(), pl.Enum(["u1", "u2", "u3"])]


@pytest.mark.parametrize("key_dtype", KEY_DTYPES, ids=["categorical", "enum"])
def test_categorical_keys_join_their_attributes_and_weights(key_dtype: pl.DataType) -> None:
    plain, keyed = _evaluation(), _evaluation(key_dtype)
    attributes = SEGMENTS.with_columns(pl.col("user").cast(key_dtype))
    assert_frame_equal(
        rk.distribution(keyed, by="segment", attributes=attributes),
        rk.distribution(plain, by="segment", attributes=SEGMENTS),
    )
    assert_frame_equal(
        rk.bootstrap(keyed, by="segment", attributes=attributes, n_resamples=50),
        rk.bootstrap(plain, by="segment", attributes=SEGMENTS, n_resamples=50),
    )
    weights = attributes.select("user", w=pl.Series([1.0, 2.0, 3.0]))
    string_weights = weights.with_columns(pl.col("user").cast(pl.String))
    assert_frame_equal(
        keyed.summary("weighted", weights=weights),
        plain.summary("weighted", weights=string_weights),
    )


@pytest.mark.parametrize("key_dtype", KEY_DTYPES, ids=["categorical", "enum"])
def test_k_curve_with_categorical_keys(key_dtype: pl.DataType) -> None:
    def curve(dtype: pl.DataType) -> pl.DataFrame:
        cast = pl.col("user").cast(dtype)
        return rk.k_curve(
            CANDIDATES.with_columns(cast),
            TRUTH.with_columns(cast),
            k_max=2,
            group_by="user",
            by="segment",
            attributes=SEGMENTS.with_columns(cast),
            n_resamples=20,
        )

    assert_frame_equal(curve(key_dtype), curve(pl.String()))


def test_incompatible_attribute_keys_raise_a_type_error_naming_both_tables() -> None:
    numbered = pl.DataFrame({"user": [1, 2, 3], "segment": ["a", "b", "b"]})
    with pytest.raises(TypeError, match=r"dtype String in results but Int64 in attributes"):
        rk.distribution(_evaluation(), by="segment", attributes=numbered)
    weights = numbered.select("user", w=pl.lit(1.0))
    with pytest.raises(TypeError, match=r"dtype String in the evaluation but Int64 in weights"):
        _evaluation().summary("weighted", weights=weights)
    renamed = weights.rename({"user": "customer"})
    with pytest.raises(ValueError, match=r"weights has no column 'user' \(expected a group key\)"):
        _evaluation().summary("weighted", weights=renamed)


# --- 12. micro averages ------------------------------------------------------------------


def test_micro_reports_only_metrics_with_a_micro_form() -> None:
    result = _evaluation(metrics=None, k=2)
    summary = result.summary("micro")
    assert summary["metric"].unique(maintain_order=True).to_list() == [
        "precision", "recall", "f1", "hit_rate", "r_precision"
    ]  # fmt: skip
    precision = summary.filter(pl.col("metric") == "precision")
    assert precision.select("value", "n_groups").row(0) == (2 / 6, 3)


def test_micro_names_the_metrics_without_a_micro_form() -> None:
    result = _evaluation(metrics=None)
    with pytest.raises(ValueError, match=r"micro averaging .*; ndcg, mrr are not ratios of counts"):
        result.summary("micro", metrics=["precision", "ndcg", "mrr"])
    with pytest.raises(ValueError, match=r"average_precision is not a ratio of counts"):
        result.summary("micro", metrics="average_precision")


def test_micro_with_only_non_micro_metrics_is_a_clear_error() -> None:
    # used to fail inside Polars with "cannot concat empty list"
    result = _evaluation(metrics=["ndcg", "average_precision", "mrr"])
    with pytest.raises(ValueError, match=r"none of the evaluated metrics \(ndcg, ") as info:
        result.summary("micro")
    assert "concat" not in str(info.value)
    assert result.summary("macro").height == 6


def test_summary_metrics_as_one_name_and_empty() -> None:
    result = _evaluation()
    assert result.summary(metrics="ndcg")["metric"].unique().to_list() == ["ndcg"]
    with pytest.raises(ValueError, match="metrics is empty"):
        result.summary("micro", metrics=[])


# --- 14. K as NumPy integers -------------------------------------------------------------


@pytest.mark.parametrize(
    "k",
    [
        np.arange(1, 3),
        np.int64(2),
        np.array([2, 1], dtype=np.uint8),
        np.array(2),
        pl.Series([1, 2]),
    ],
    ids=["arange", "int64", "uint8-array", "0d-array", "series"],
)
def test_numpy_integer_k(k: object) -> None:
    expected = _evaluation(k=[1, 2] if np.size(k) == 2 else 2).summary()  # type: ignore[arg-type]
    got = _evaluation(k=k).summary()
    assert_frame_equal(got, expected)
    assert all(type(value) is int for value in got["k"].drop_nulls())


@pytest.mark.parametrize(
    ("k", "error", "words"),
    [
        (True, TypeError, "k must be an int >= 1; got True (bool)"),
        (np.bool_(True), TypeError, "got np.True_"),
        (2.5, TypeError, "k must be an int >= 1; got 2.5 (float)"),
        (5.0, TypeError, "pass the int 5"),
        (np.array([1.0, 2.0]), TypeError, "every k must be an int >= 1; got np.float64(1.0)"),
        (np.int64(0), ValueError, "k must be an int >= 1; got 0"),
        ("5", TypeError, "k must be an int or a list of ints"),
    ],
)
def test_bad_k_is_named(k: object, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        _evaluation(k=k)
    assert words in str(info.value)


def test_numpy_k_in_expressions() -> None:
    assert normalize_k(np.uint16(7)) == 7
    assert normalize_ks(range(3, 0, -1)) == (1, 2, 3)
    labelled = pl.DataFrame(
        {"user": [1, 1, 1], "rel": [1, 0, 1], "score": [3.0, 2.0, 1.0], "item": [1, 2, 3]}
    )

    def precision(k: Any) -> pl.DataFrame:
        return labelled.group_by("user").agg(rk.precision_at_k("rel", by="score", k=k, item="item"))

    assert_frame_equal(precision(np.int64(2)), precision(2))


def test_numpy_k_max_in_k_curve() -> None:
    curve = rk.k_curve(CANDIDATES, TRUTH, k_max=np.int64(2), group_by="user", ci=False)
    assert curve["k"].unique().sort().to_list() == [1, 2]


# --- 17. errors name the table the user passed -------------------------------------------


def test_errors_name_the_attributes_table_not_a_position() -> None:
    extra = pl.DataFrame({"user": ["u1"], "tier": ["gold"]})
    with pytest.raises(ValueError, match="must have one row per group") as info:
        rk.distribution(_evaluation(), by=["segment", "tier"], attributes=[REPEATED, extra])
    message = str(info.value)
    assert "[0]" not in message
    assert "[1]" not in message
    assert message.startswith("the attributes table with columns ['user', 'segment'] must have")
    no_keys = pl.DataFrame({"customer": ["u1"], "tier": ["gold"]})
    with pytest.raises(ValueError, match=r"^attributes has stratum columns \['tier'\] but none"):
        rk.distribution(_evaluation(), by="tier", attributes=no_keys)
