"""`compare(labels=True)`: the label noise of a difference between systems judged by the same
uncertain labels, from both systems evaluated on the same outcomes.

The reference enumerates every outcome of each group by hand (`itertools.product` over each
item's grades), evaluates each system on that outcome's deterministic truth, and takes the
probability-weighted variance of the difference — nothing of the joint evaluation is reused.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.inputs.labels.joint import difference_variances

pytestmark = pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")

METRICS = ["P", "R", "nDCG", "AP", "RR", "Rprec", "Success"]
KS = [1, 3]


def _data(seed: int, groups: int = 4) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Two systems' candidates (ties, short lists) and graded truth with probabilities."""
    rng = np.random.default_rng(seed)
    rows_a, rows_b, truth = [], [], []
    for g in range(groups):
        items = [f"i{j}" for j in range(int(rng.integers(2, 6)))]
        for item in items:
            rows_a.append((g, item, float(rng.integers(0, 3))))  # ties
            rows_b.append((g, item, float(rng.integers(0, 3))))
        for item in rng.choice([*items, "outside"], size=int(rng.integers(1, 4)), replace=False):
            grade = int(rng.integers(1, 3))
            truth.append((g, str(item), grade, float(rng.choice([0.2, 0.5, 0.9, 1.0]))))
    schema = {"q": pl.Int64, "item": pl.String, "score": pl.Float64}
    a = pl.DataFrame(rows_a, schema=schema, orient="row")
    b = pl.DataFrame(rows_b, schema=schema, orient="row").head(len(rows_b) - 1)  # short list
    labelled = pl.DataFrame(
        truth, schema={"q": pl.Int64, "item": pl.String, "relevance": pl.Int64, "p": pl.Float64},
        orient="row",
    )  # fmt: skip
    return a, b, labelled


def _enumerated_variances(a: pl.DataFrame, b: pl.DataFrame, truth: pl.DataFrame) -> pl.DataFrame:
    """Per (q, metric, k): the variance of b − a over every label outcome of the group."""
    found = []
    for (group,), rows in truth.group_by("q", maintain_order=True):
        items = rows.rows(named=True)
        options = [[(r["relevance"], r["p"]), (0, 1 - r["p"])] for r in items]
        per_outcome: list[tuple[float, pl.DataFrame]] = []
        for outcome in itertools.product(*options):
            weight = math.prod(p for _, p in outcome)
            if weight == 0:
                continue
            labels = pl.DataFrame(
                {"q": [group] * len(items), "item": [r["item"] for r in items],
                 "relevance": [grade for grade, _ in outcome]},
                schema={"q": pl.Int64, "item": pl.String, "relevance": pl.Int64},
            )  # fmt: skip
            values = [
                rk.evaluate(c.filter(pl.col("q") == group), labels, group_by="q",
                            metrics=METRICS, k=KS).per_group.select("metric", "k", "value")
                for c in (a, b)
            ]  # fmt: skip
            joined = values[1].join(values[0], on=["metric", "k"], nulls_equal=True)
            difference = joined.select("metric", "k", d=pl.col("value") - pl.col("value_right"))
            per_outcome.append((weight, difference))
        if not per_outcome:
            continue
        stacked = pl.concat(
            [d.with_columns(w=pl.lit(w)) for w, d in per_outcome], how="vertical"
        ).filter(pl.col("d").is_not_nan())
        mean = (pl.col("w") * pl.col("d")).sum() / pl.col("w").sum()
        found.append(
            stacked.group_by("metric", "k")
            .agg(variance=(pl.col("w") * (pl.col("d") - mean) ** 2).sum() / pl.col("w").sum())
            .with_columns(pl.lit(group, pl.Int64).alias("q"))
        )
    return pl.concat(found).select("q", "metric", "k", "variance")


def _label_evaluations(
    a: pl.DataFrame, b: pl.DataFrame, truth: pl.DataFrame
) -> tuple[rk.Evaluation, rk.Evaluation]:
    return tuple(  # type: ignore[return-value]
        rk.evaluate(c, truth, group_by="q", metrics=METRICS, k=KS, label_probability="p")
        for c in (a, b)
    )


@pytest.mark.parametrize("seed", range(4))
def test_the_variance_of_a_difference_is_that_over_every_outcome_evaluated(seed: int) -> None:
    a, b, truth = _data(seed)
    ea, eb = _label_evaluations(a, b, truth)
    found = difference_variances({"a": ea.label_source, "b": eb.label_source}, [("a", "b")])
    assert found["exact"].all()
    expected = _enumerated_variances(a, b, truth)
    cell = ["q", "metric", "k"]
    joined = expected.join(found, on=cell, how="full", nulls_equal=True, coalesce=True)
    assert joined["variance"].null_count() == 0, joined.filter(pl.col("variance").is_null())
    assert joined["variance_right"].null_count() == 0
    assert np.allclose(joined["variance"], joined["variance_right"], rtol=0, atol=1e-12)


def test_the_label_standard_error_is_the_summed_variance_over_the_groups() -> None:
    a, b, truth = _data(7, groups=6)
    ea, eb = _label_evaluations(a, b, truth)
    out = rk.compare({"a": ea, "b": eb}, baseline="a", labels=True, seed=0)
    variances = _enumerated_variances(a, b, truth).rename({"variance": "v"})
    per_cell = variances.group_by("metric", "k").agg(pl.col("v").sum())
    joined = out.join(per_cell, on=["metric", "k"], nulls_equal=True)
    expected = joined["v"].sqrt() / joined["n_groups"]
    assert np.allclose(joined["label_std_error"], expected, rtol=0, atol=1e-12)


def test_a_cell_without_a_group_has_no_label_standard_error() -> None:
    """Every group's value NaN (``empty_truth="nan"``, an outcome without a relevant item):
    no group compares, and the label standard error is null like the difference, not NaN."""
    a = pl.DataFrame({"q": [0, 0, 1, 1], "item": [1, 2, 1, 2], "score": [2.0, 1.0, 2.0, 1.0]})
    b = a.with_columns(score=-pl.col("score"))
    truth = pl.DataFrame({"q": [0, 1], "item": [1, 2], "relevance": 1.0, "p": [0.5, 0.7]})
    options = {"group_by": "q", "k": 1, "metrics": ["precision"], "label_probability": "p",
               "policy": rk.Policy(empty_truth="nan")}  # fmt: skip
    ea, eb = rk.evaluate(a, truth, **options), rk.evaluate(b, truth, **options)
    out = rk.compare({"a": ea, "b": eb}, baseline="a", labels=True, seed=0)
    assert out["n_groups"].to_list() == [0]
    assert out["diff"].to_list() == [None]
    assert out["label_std_error"].to_list() == [None]


def test_labels_widen_only_the_interval() -> None:
    a, b, truth = _data(3, groups=8)
    ea, eb = _label_evaluations(a, b, truth)
    plain = rk.compare({"a": ea, "b": eb}, baseline="a", seed=0)
    noisy = rk.compare({"a": ea, "b": eb}, baseline="a", seed=0, labels=True)
    assert "label_std_error" not in plain.columns
    assert plain.columns == noisy.columns[:-1]
    same = [c for c in plain.columns if c not in ("ci_low", "ci_high")]
    assert plain.select(same).equals(noisy.select(same))
    spread = noisy["ci_high"] - noisy["ci_low"] - (plain["ci_high"] - plain["ci_low"])
    assert (spread.fill_null(0.0) >= -1e-12).all()
    assert (spread.fill_null(0.0) > 0).any()


def test_lazy_evaluations_compare_as_eager_ones() -> None:
    a, b, truth = _data(5, groups=5)
    eager = rk.compare(dict(zip("ab", _label_evaluations(a, b, truth), strict=True)),
                       baseline="a", seed=0, labels=True)  # fmt: skip
    lazy = {
        name: rk.evaluate(c.lazy(), truth.lazy(), group_by="q", metrics=METRICS, k=KS,
                          label_probability="p")
        for name, c in (("a", a), ("b", b))
    }  # fmt: skip
    assert rk.compare(lazy, baseline="a", seed=0, labels=True).equals(eager)


def test_collecting_lazy_label_evaluations_together_keeps_the_expectations() -> None:
    a, _, truth = _data(2)
    eager = rk.evaluate(a, truth, group_by="q", metrics=METRICS, k=KS, label_probability="p")
    lazy = rk.evaluate(a.lazy(), truth.lazy(), group_by="q", metrics=METRICS, k=KS,
                       label_probability="p")  # fmt: skip
    (found,) = rk.Evaluation.collect_together([lazy])
    assert found.per_group.equals(eager.per_group)
    assert found.label_source is not None


def test_labels_need_every_system_evaluated_over_the_same_labels() -> None:
    a, b, truth = _data(1)
    ea, eb = _label_evaluations(a, b, truth)
    plain = rk.evaluate(b, truth, group_by="q", metrics=METRICS, k=KS)
    with pytest.raises(ValueError, match=r"systems\['b'\] must be an evaluation with label_prob"):
        rk.compare({"a": ea, "b": plain}, baseline="a", labels=True)
    with pytest.raises(ValueError, match="a per-group table"):
        rk.compare({"a": ea, "b": eb.per_group}, baseline="a", labels=True)
    other = truth.with_columns(pl.col("p") * 0.5)
    eo = rk.evaluate(b, other, group_by="q", metrics=METRICS, k=KS, label_probability="p")
    with pytest.raises(ValueError, match=r"not evaluated over the same labels \(the truth table"):
        rk.compare({"a": ea, "b": eo}, baseline="a", labels=True)
    fewer = rk.evaluate(b, truth, group_by="q", metrics="P", k=KS, label_probability="p")
    with pytest.raises(ValueError, match="the names, K or policy"):
        rk.compare({"a": ea, "b": fewer}, baseline="a", labels=True)


def test_the_interval_covers_the_difference_under_the_true_labels() -> None:
    """Simulation with a known truth: forty alike groups whose difference is mostly label
    noise. Labels drawn from their probabilities give the true difference; the interval with
    labels covers it at about its nominal rate, the one without far less often."""
    rng = np.random.default_rng(11)
    groups, items = 40, 4
    q = np.repeat(np.arange(groups), items)
    item = np.tile([f"i{j}" for j in range(items)], groups)
    a = pl.DataFrame({"q": q, "item": item, "score": np.tile([4.0, 3.0, 2.0, 1.0], groups)})
    b = pl.DataFrame({"q": q, "item": item, "score": np.tile([1.0, 2.0, 3.0, 4.0], groups)})
    p = np.tile([0.5, 0.5, 0.5, 0.5], groups)
    truth = pl.DataFrame({"q": q, "item": item, "relevance": 1, "p": p})
    ea, eb = (
        rk.evaluate(c, truth, group_by="q", metrics="P", k=1, label_probability="p") for c in (a, b)
    )
    intervals = {
        labels: rk.compare({"a": ea, "b": eb}, baseline="a", seed=0, labels=labels,
                           n_resamples=2000).row(0, named=True)
        for labels in (False, True)
    }  # fmt: skip
    covered = {False: 0, True: 0}
    draws = 300
    for _ in range(draws):
        drawn = rng.random(groups * items) < p
        # P@1: a's first item against b's last, in each group (no relevant item: dropped).
        rows = drawn.reshape(groups, items)
        kept = rows.any(axis=1)
        true_difference = float((rows[kept, 3].astype(float) - rows[kept, 0]).mean())
        for labels, row in intervals.items():
            covered[labels] += row["ci_low"] <= true_difference <= row["ci_high"]
    assert covered[True] / draws >= 0.90
    assert covered[False] / draws <= 0.5


def test_systems_of_one_frame_evaluated_over_labels_compare_as_separate_ones() -> None:
    a, b, truth = _data(6, groups=5)
    stacked = pl.concat([a.with_columns(model=pl.lit("a")), b.with_columns(model=pl.lit("b"))])
    systems = rk.evaluate_systems(
        stacked, truth, group_by="q", metrics=METRICS, k=KS, system="model",
        label_probability="p",
    )  # fmt: skip
    separate = dict(zip("ab", _label_evaluations(a, b, truth), strict=True))
    assert rk.compare(systems, baseline="a", seed=0, labels=True).equals(
        rk.compare(separate, baseline="a", seed=0, labels=True)
    )
