"""`rk.label` gives the expression API `evaluate`'s numbers on candidates joined with truth."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk

EXPRESSIONS = {
    "precision": rk.precision_at_k,
    "recall": rk.recall_at_k,
    "f1": rk.f1_at_k,
    "hit_rate": rk.hit_rate_at_k,
    "ndcg": rk.ndcg_at_k,
    "average_precision": rk.average_precision_at_k,
    "mrr": rk.mrr_at_k,
}


def _tables(graded: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(11)
    candidates = pl.DataFrame(
        {
            "user": np.repeat(np.arange(30), 8),
            "item": rng.integers(0, 15, size=240),
            "score": rng.integers(0, 5, size=240) / 4,
        }
    ).unique(["user", "item"], maintain_order=True)
    truth = pl.DataFrame(
        {"user": rng.integers(0, 32, size=90), "item": rng.integers(0, 15, size=90)}
    ).unique(maintain_order=True)
    if graded:
        truth = truth.with_columns(relevance=pl.Series(rng.integers(1, 4, size=truth.height)))
    return candidates, truth


@pytest.mark.parametrize(
    ("policy", "graded"),
    [
        (rk.Policy(), False),
        (rk.Policy.trec_eval(ties="pessimistic"), False),
        (rk.Policy(relevance_threshold=2, gain="binary", short_lists="observed"), True),
        (rk.Policy(pool="restrict", ap_denominator="min_k_relevant"), False),
    ],
)
def test_label_then_expressions_equal_evaluate(policy: rk.Policy, graded: bool) -> None:
    candidates, truth = _tables(graded)
    ks = [1, 3, 5]
    per_group = rk.evaluate(candidates, truth, k=ks, group_by="user", policy=policy).per_group
    assert isinstance(per_group, pl.DataFrame)
    labelled = rk.label(candidates, truth, group_by="user", policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    assert labelled.columns == ["user", "item", "score", "relevance", "n_relevant", "unretrieved"]
    for name, expression in EXPRESSIONS.items():
        for k in ks:
            value = expression(
                "relevance", by="score", k=k, item="item", n_relevant="n_relevant", policy=policy
            )
            got = (
                labelled.group_by("user").agg(value.alias("value")).drop_nulls("value").sort("user")
            )
            want = (
                per_group.filter(pl.col("metric") == name, pl.col("k") == k)
                .join(labelled.select("user").unique(), on="user")  # groups with candidates
                .select("user", "value")
                .drop_nulls("value")
                .sort("user")
            )
            assert_frame_equal(got, want, check_dtypes=False)


def test_left_join_alone_disagrees() -> None:
    """Why label exists: a plain join loses the relevant items the model missed."""
    candidates = pl.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [0.9, 0.1]})
    truth = pl.DataFrame({"user": [1, 1, 1], "item": ["b", "c", "d"]})
    labelled = rk.label(candidates, truth, group_by="user")
    recall = rk.recall_at_k("relevance", by="score", k=2, item="item", n_relevant="n_relevant")
    assert labelled.select(recall).item() == pytest.approx(1 / 3)
    assert labelled["n_relevant"].to_list() == [3, 3]
    assert labelled["relevance"].to_list() == [None, 1]  # "a" is not judged


def test_label_keeps_laziness_and_grades() -> None:
    candidates = pl.LazyFrame({"user": [1, 2], "item": [10, 20], "score": [1.0, 1.0]})
    truth = pl.DataFrame({"user": [1, 1], "item": [10, 10], "relevance": [1, 3]})
    labelled = rk.label(candidates, truth, group_by="user", policy=rk.Policy(relevance_threshold=2))
    assert isinstance(labelled, pl.LazyFrame)
    # User 2 is not in the truth: no grade, no R_g (evaluate does not evaluate it).
    assert labelled.collect().rows() == [(1, 10, 1.0, 3, 1, []), (2, 20, 1.0, None, None, None)]


def test_label_refuses_to_overwrite() -> None:
    candidates = pl.DataFrame({"user": [1], "item": [1], "score": [1.0], "relevance": [1]})
    with pytest.raises(ValueError, match="already has a column 'relevance'"):
        rk.label(candidates, pl.DataFrame({"user": [1], "item": [1]}), group_by="user")


def test_labelled_rows_in_key_order_and_a_groups_list_on_its_first_row() -> None:
    """The groups in ascending key order, each group's rows in the candidates' order
    (ties="input_order" reads it), the key flagged sorted, and each group's missed grades on
    its first row only (null on its other rows and on every row of a group the truth does
    not know)."""
    candidates = pl.DataFrame(
        {"user": [2, 1, 2, 1, 3], "item": [5, 1, 4, 2, 7], "score": [1.0, 1.0, 1.0, 1.0, 0.5]}
    )
    truth = pl.DataFrame({"user": [1, 1, 2], "item": [2, 9, 6], "relevance": [1, 2, 3]})
    labelled = rk.label(candidates, truth, group_by="user")
    assert isinstance(labelled, pl.DataFrame)
    assert labelled.select("user", "item").rows() == [(1, 1), (1, 2), (2, 5), (2, 4), (3, 7)]
    assert labelled["user"].flags["SORTED_ASC"]
    assert labelled["unretrieved"].to_list() == [[2.0], None, [3.0], None, None]
    assert labelled["n_relevant"].to_list() == [2, 2, 1, 1, None]
    # Candidates' order within a group: the first item ranks first on tied scores.
    policy = rk.Policy(ties="input_order")
    first = rk.hit_rate_at_k(
        "relevance", by="score", k=1, item="item", unretrieved="unretrieved", policy=policy
    )
    got = labelled.group_by("user").agg(first).sort("user")["hit_rate@1"].to_list()
    assert got == [0.0, 0.0, None]


def test_one_key_with_a_null_is_flagged_sorted_on_either_path() -> None:
    """A null key sorts last; the key column (built of several chunks) still carries its
    sorted flag, as for keys without nulls."""
    from tests.support.kernel_path import path

    candidates = pl.DataFrame({"user": [0, None], "item": [0, 0], "score": [0.0, 0.0]})
    truth = pl.DataFrame(schema={"user": pl.Int64, "item": pl.Int64, "relevance": pl.Int64})
    for kernel in (True, False):
        with path(kernel):
            labelled = rk.label(candidates, truth, group_by="user")
        assert labelled["user"].to_list() == [0, None]
        assert labelled["user"].flags["SORTED_ASC"]
