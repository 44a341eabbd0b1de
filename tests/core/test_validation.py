"""Bad input: one clear error naming the column, the expectation and an example row."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk

CANDIDATES = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.5, 0.1]})
TRUTH = pl.DataFrame({"user": [1, 2], "item": [11, 12], "relevance": [1, 2]})


def run(candidates=CANDIDATES, truth=TRUTH, **options):
    options.setdefault("group_by", "user")
    return rk.evaluate(candidates, truth, k=options.pop("k", 5), **options)


@pytest.mark.parametrize(
    ("candidates", "truth", "pattern"),
    [
        (CANDIDATES.drop("score"), TRUTH, r"candidates has no column 'score' \(expected"),
        (CANDIDATES, TRUTH.drop("item"), r"truth has no column 'item'"),
        (CANDIDATES.drop("user"), TRUTH, r"candidates has no column 'user'"),
    ],
)
def test_missing_columns(candidates, truth, pattern):
    with pytest.raises(ValueError, match=pattern):
        run(candidates, truth)


def test_score_must_be_numeric():
    bad = CANDIDATES.with_columns(pl.col("score").cast(pl.String))
    with pytest.raises(TypeError, match=r"column 'score' must be numeric.*dtype String.*'user': 1"):
        run(bad)


def test_relevance_must_be_numeric():
    with pytest.raises(TypeError, match=r"truth column 'relevance' must be numeric"):
        run(truth=TRUTH.with_columns(pl.col("relevance").cast(pl.String)))


@pytest.mark.parametrize("lazy", [False, True])
def test_mismatched_id_dtypes(lazy):
    truth = TRUTH.with_columns(pl.col("item").cast(pl.String))
    with pytest.raises(TypeError, match=r"column 'item' has dtype Int64 in candidates but String"):
        run(CANDIDATES.lazy() if lazy else CANDIDATES, truth.lazy() if lazy else truth)


def test_integer_widths_are_unified():
    truth = TRUTH.with_columns(pl.col("item").cast(pl.Int32), pl.col("user").cast(pl.UInt16))
    assert run(truth=truth).per_group.height > 0


@pytest.mark.parametrize("column", ["user", "item"])
def test_null_ids(column):
    bad = CANDIDATES.with_columns(
        pl.when(pl.col("item") == 11).then(None).otherwise(pl.col(column)).alias(column)
    )
    with pytest.raises(
        ValueError, match=rf"candidates: column '{column}' .* must not be null; 1 row"
    ):
        run(bad)


@pytest.mark.parametrize("value", [None, float("nan"), float("inf"), float("-inf")])
def test_invalid_scores_error_by_default(value):
    bad = CANDIDATES.with_columns(
        pl.when(pl.col("item") == 11).then(value).otherwise(pl.col("score")).alias("score")
    )
    with pytest.raises(ValueError, match=r"column 'score' must hold finite numbers.*'item': 11"):
        run(bad)
    dropped = run(bad, policy=rk.Policy(invalid_scores="drop"), metrics="recall")
    lowest = run(bad, policy=rk.Policy(invalid_scores="lowest"), metrics="recall")
    assert dropped.per_group.filter(pl.col("user") == 1)["value"].to_list() == [0.0]
    assert lowest.per_group.filter(pl.col("user") == 1)["value"].to_list() == [1.0]
    assert dropped.diagnostics.counts["invalid_scores"] == 1


@pytest.mark.parametrize("k", [0, -1, 2.5, "5", True, [5, 0], []])
def test_bad_k(k):
    with pytest.raises((TypeError, ValueError), match=r"k must|every k must"):
        run(k=k)


def test_unknown_metric_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown metric name 'ndgc'; valid names are: precision"):
        run(metrics=["ndgc"])


def test_nan_relevance():
    bad = TRUTH.with_columns(pl.lit(float("nan")).alias("relevance"))
    with pytest.raises(ValueError, match=r"truth: column 'relevance' .* must not be NaN"):
        run(truth=bad)


def test_negative_relevance_is_a_judged_non_relevant_item():
    # TREC qrels grade spam -1: not relevant, and (docs/definitions.md §1) gain 0.
    negative = TRUTH.with_columns(pl.lit(-1).alias("relevance"))
    res = run(truth=negative, policy=rk.Policy.trec_eval(), metrics=["ndcg", "recall"])
    assert res.per_group["value"].to_list() == [0.0, 0.0, 0.0, 0.0]


def test_duplicates_error_policy_names_the_pair():
    doubled = pl.concat([CANDIDATES, CANDIDATES.head(1)])
    with pytest.raises(ValueError, match=r"pairs repeat \(2 rows\).*'item': 10"):
        run(doubled, policy=rk.Policy(duplicates="error"))


def test_missing_groups_error_policy():
    truth = pl.concat([TRUTH, pl.DataFrame({"user": [9], "item": [1], "relevance": [1]})])
    with pytest.raises(ValueError, match=r"1 group\(s\) with no candidates.*'user': 9"):
        run(truth=truth, policy=rk.Policy(missing_groups="error"))


def test_group_key_named_like_an_output_column():
    renamed = CANDIDATES.rename({"user": "metric"})
    with pytest.raises(ValueError, match=r"clash with output columns"):
        run(renamed, TRUTH.rename({"user": "metric"}), group_by="metric")


def test_not_a_frame():
    with pytest.raises(TypeError, match=r"candidates must be a table \(polars, pandas, pyarrow"):
        rk.evaluate({"user": [1]}, TRUTH, group_by="user")  # type: ignore[arg-type]


def test_bad_policy_values():
    with pytest.raises(ValueError, match=r"Policy.short_lists must be one of"):
        rk.Policy(short_lists="truncate")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"relevance_threshold must be > 0"):
        rk.Policy(relevance_threshold=0)


@pytest.mark.parametrize("lazy", [False, True])
def test_empty_inputs_give_an_empty_result(lazy):
    empty_c = CANDIDATES.clear()
    empty_t = TRUTH.clear()
    convert = (lambda f: f.lazy()) if lazy else (lambda f: f)
    res = rk.evaluate(convert(empty_c), convert(empty_t), k=[1, 5], group_by="user")
    per_group = res.per_group.collect() if lazy else res.per_group
    assert per_group.height == 0
    assert per_group.columns == ["user", "metric", "k", "value"]
    summary = res.summary()
    assert summary.height == 0 or summary["n_groups"].sum() == 0
    # Truth without candidates: every group is an empty ranking scoring 0 (missing_groups="zero").
    res = rk.evaluate(convert(empty_c), convert(TRUTH), k=5, group_by="user", metrics="recall")
    per_group = res.per_group.collect() if lazy else res.per_group
    assert per_group["value"].to_list() == [0.0, 0.0]


def test_no_truth_and_no_labels():
    with pytest.raises(ValueError, match=r"no truth table and the candidates carry no 'relevance'"):
        rk.evaluate(CANDIDATES, None, group_by="user")


def test_internal_column_prefix_is_reserved() -> None:
    candidates = pl.DataFrame({"_rk_score": [1], "item": [1], "score": [1.0]})
    with pytest.raises(ValueError, match=r"start with '_rk_', which the library reserves"):
        rk.evaluate(candidates, candidates.select("_rk_score", "item"), group_by="_rk_score")
