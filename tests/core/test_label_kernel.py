"""`rk.label` on the compiled kernel gives the reference path's frame exactly: the same rows in
the same order (groups in ascending key order, nulls last, the candidates' order within a
group), the same values and dtypes, on data full of ties, repeated items, repeated truth rows,
null and NaN grades, groups the truth does not know or whose judged items were all missed,
null keys and items, integer, string and multi-column keys, under every pool and invalid-score
policy."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.inputs.labelling import LabelInputs, label_inputs, polars_label
from polars_rankk.core.kernel import loader
from polars_rankk.core.kernel.labels import kernel_label
from tests.support.examples import examples

needs_kernel = pytest.mark.skipif(not loader.status().loaded, reason="the kernel is not loaded")

USERS = (0, 1, 2, 3, None)
NAMES = ("b", "a", "B", "", "é", None)
ITEMS = (0, 1, 2, 3, 4, None)
SCORES = (0.0, 0.5, 1.0, 1.0, None, math.nan, math.inf)
GRADES = (0, 1, 2, 3, None)


@st.composite
def tables(draw: st.DrawFn, keys: str) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Candidates and truth under `keys` ("int", "str" or "multi": an int and a string)."""

    def key() -> dict[str, object]:
        if keys == "int":
            return {"user": draw(st.sampled_from(USERS))}
        if keys == "str":
            return {"user": draw(st.sampled_from(NAMES))}
        return {"user": draw(st.sampled_from((*USERS[:2], None))),
                "name": draw(st.sampled_from((*NAMES[:2], None)))}  # fmt: skip

    graded = draw(st.sampled_from(("int", "float", "none")))
    candidates = [
        {**key(), "item": draw(st.sampled_from(ITEMS)), "score": draw(st.sampled_from(SCORES))}
        for _ in range(draw(st.integers(0, 14)))
    ]
    truth = []
    for _ in range(draw(st.integers(0, 12))):
        row = {**key(), "item": draw(st.sampled_from(ITEMS))}
        if graded != "none":
            grade = draw(st.sampled_from(GRADES + ((math.nan,) if graded == "float" else ())))
            row["relevance"] = grade if grade is None or graded == "int" else float(grade)
        truth.append(row)
    names = ["user"] if keys != "multi" else ["user", "name"]
    key_dtypes = {"user": pl.String if keys == "str" else pl.Int64, "name": pl.String}
    schema = {name: key_dtypes[name] for name in names}
    grade_dtype = {"int": pl.Int64, "float": pl.Float64}.get(graded)
    truth_schema = {**schema, "item": pl.Int64}
    if grade_dtype is not None:
        truth_schema["relevance"] = grade_dtype
    return (
        pl.DataFrame(candidates, schema={**schema, "item": pl.Int64, "score": pl.Float64}),
        pl.DataFrame(truth, schema=truth_schema),
        names,
    )


def _read(candidates: object, truth: object, keys: list[str], policy: rk.Policy) -> LabelInputs:
    return label_inputs(
        candidates,  # type: ignore[arg-type]
        truth,  # type: ignore[arg-type]
        group_by=keys,
        item="item",
        score="score",
        relevance="relevance",
        n_relevant="n_relevant",
        unretrieved="unretrieved",
        policy=policy,
    )


@needs_kernel
@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.sampled_from(("int", "str", "multi")).flatmap(tables),
    pool=st.sampled_from(("all", "restrict")),
    invalid=st.sampled_from(("error", "lowest", "drop")),
    threshold=st.sampled_from((1.0, 2.0, 0.5)),
)
def test_the_kernel_labels_as_the_reference_path(
    data: tuple[pl.DataFrame, pl.DataFrame, list[str]],
    pool: str,
    invalid: str,
    threshold: float,
) -> None:
    candidates, truth, keys = data
    policy = rk.Policy(pool=pool, invalid_scores=invalid, relevance_threshold=threshold)  # type: ignore[arg-type]
    read = _read(candidates, truth, keys, policy)
    kernel = kernel_label(read)
    assert kernel is not None
    expected = polars_label(read).collect()
    got = kernel.collect()
    assert_frame_equal(got, expected)
    assert (
        got.select(keys).rows()
        == expected.sort(keys, nulls_last=True, maintain_order=True).select(keys).rows()
    )
    # The public function takes the kernel path here, lazily or not; one key is flagged sorted.
    labelled = rk.label(candidates, truth, group_by=keys, policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    assert_frame_equal(labelled, expected)
    if len(keys) == 1:
        assert labelled[keys[0]].flags["SORTED_ASC"]
    lazy = rk.label(candidates.lazy(), truth.lazy(), group_by=keys, policy=policy)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), expected)


@needs_kernel
def test_the_kernel_labels_many_groups_across_partitions_as_the_reference() -> None:
    """Enough rows for the kernel to partition them across its threads."""
    n = 60_000
    candidates = pl.DataFrame({
        "user": (pl.int_range(n, eager=True).hash(7) % 5_000).cast(pl.Int64),
        "item": pl.int_range(n, eager=True) % 37,
        "score": pl.int_range(n, eager=True).cast(pl.Float64) % 11,
    })  # fmt: skip
    truth = pl.DataFrame({
        "user": (pl.int_range(9_000, eager=True).hash(3) % 6_000).cast(pl.Int64),
        "item": pl.int_range(9_000, eager=True) % 41,
        "relevance": pl.int_range(9_000, eager=True) % 4,
    })  # fmt: skip
    for policy in (rk.Policy(), rk.Policy(pool="restrict")):
        read = _read(candidates.lazy(), truth, ["user"], policy)
        kernel = kernel_label(read)
        assert kernel is not None
        assert_frame_equal(kernel.collect(), polars_label(read).collect())


def test_keys_the_kernel_does_not_read_are_labelled_in_polars_in_key_order() -> None:
    """A float key: Polars labels, the rows in the same order (the reference's)."""
    candidates = pl.DataFrame(
        {"user": [2.5, None, 1.0, 2.5], "item": [1, 2, 3, 4], "score": [1.0, 0.5, 0.2, 0.1]}
    )
    truth = pl.DataFrame({"user": [2.5, 1.0], "item": [4, 9]})
    read = _read(candidates, truth, ["user"], rk.Policy())
    assert kernel_label(read) is None
    labelled = rk.label(candidates, truth, group_by="user")
    assert isinstance(labelled, pl.DataFrame)
    assert labelled.select("user", "item").rows() == [(1.0, 3), (2.5, 1), (2.5, 4), (None, 2)]
    assert labelled["user"].flags["SORTED_ASC"]
    assert labelled["unretrieved"].to_list() == [[1.0], [], None, None]


@needs_kernel
@pytest.mark.parametrize(
    ("keys", "dtype"),
    [
        ([None, 3, 1, 3, 2], pl.Date),
        ([True, None, False, True, False], pl.Boolean),
        ([7, 200, None, 7, 0], pl.UInt8),
        ([5, None, -5, 5, 0], pl.Duration("ms")),
    ],
)
def test_temporal_boolean_and_narrow_keys_with_text_items_label_as_the_reference(
    keys: list[object], dtype: pl.DataType
) -> None:
    """Keys the kernel reads through their physical integers, string items, a Float32 grade."""
    candidates = pl.DataFrame(
        {"user": pl.Series(keys).cast(dtype), "item": ["a", "b", "a", None, "c"],
         "score": [1.0, 2.0, 3.0, 4.0, 5.0]}
    )  # fmt: skip
    truth = pl.DataFrame(
        {"user": pl.Series([keys[3], keys[3], keys[1], keys[4]]).cast(dtype),
         "item": [None, "z", "b", "c"],
         "relevance": pl.Series([2.0, 1.0, None, 3.0], dtype=pl.Float32)}
    )  # fmt: skip
    read = _read(candidates, truth, ["user"], rk.Policy())
    kernel = kernel_label(read)
    assert kernel is not None
    assert_frame_equal(kernel.collect(), polars_label(read).collect())
