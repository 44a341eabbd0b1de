"""evaluate(..., label_probability=...): each per-group value and its standard deviation equal
an enumeration of every label outcome built here, each outcome evaluated with deterministic
labels (exactly, to 1e-12, where the outcomes are enumerated; within 4 standard errors where
they are drawn); labels of probability 1 give the deterministic numbers; bad probabilities
are named with a row."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.inputs.labels import bpref as label_bpref

METRICS = [
    "precision", "recall", "hit_rate", "hit_rank", "dcg", "ndcg", "average_precision",
    "r_precision", "mrr", "rbp", "err", "bpref", "f1", "judged", "q_measure", "relative_precision",
]  # fmt: skip
LINEAR = {"precision", "dcg", "rbp", "num_relevant_retrieved"}
POLICIES = [
    rk.Policy(),
    rk.Policy(ties="expected"),
    rk.Policy(ties="optimistic", relevance_threshold=2, gain="exponential"),
    rk.Policy(empty_truth="zero", ap_denominator="min_k_relevant", short_lists="skip"),
    rk.Policy(duplicates="keep", unjudged="condense", rbp_persistence=0.5),
    rk.Policy(empty_truth="nan", short_lists="observed", rbp_grades="graded", pool="restrict"),
]


@st.composite
def judged_groups(draw: st.DrawFn, max_items: int = 6) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates with tied scores and duplicate items, truth with 1 or 2 grades per item."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 2))):
        n_items = draw(st.integers(0, max_items))
        for position in range(draw(st.integers(0, max_items))):
            item = draw(st.integers(0, max_items))
            candidates.append((group, item, float(draw(st.integers(0, 3)))))
            del position
        for item in range(n_items):
            grades = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=2,
                                   unique=True))  # fmt: skip
            total = 0.0
            for grade in grades:
                p = draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
                p = min(p, 1 - total)
                total += p
                truth.append((group, item, grade, p))
    candidates_frame = pl.DataFrame(
        candidates, schema={"q": pl.Int64, "item": pl.Int64, "score": pl.Float64}, orient="row"
    )
    truth_frame = pl.DataFrame(
        truth, schema={"q": pl.Int64, "item": pl.Int64, "relevance": pl.Float64,
                       "p": pl.Float64}, orient="row",
    )  # fmt: skip
    return candidates_frame, truth_frame


def _enumerated(candidates: pl.DataFrame, truth: pl.DataFrame, **options: object) -> dict:
    """{(q, metric, k): (mean, std)} over every outcome, each outcome a group of its own in
    one deterministic evaluation; outcomes in which a policy drops the group do not count."""
    outcomes_truth, weights, outcome_candidates = [], {}, []
    for (group,), rows in truth.group_by(["q"], maintain_order=True):
        options_of = []
        for (item,), grades in rows.group_by(["item"], maintain_order=True):
            choices = [(g, p) for g, p in zip(grades["relevance"], grades["p"], strict=True)
                       if p > 0]  # fmt: skip
            rest = 1 - sum(p for _, p in choices)
            if rest > 1e-9:
                choices.append((0.0, rest))
            options_of.append([(item, g, p) for g, p in choices])
        for number, combination in enumerate(itertools.product(*options_of)):
            key = f"{group}/{number}"
            weights[key] = (group, math.prod(p for _, _, p in combination))
            outcomes_truth += [(key, item, g) for item, g, _ in combination]
            outcome_candidates.append(
                candidates.filter(pl.col("q") == group).with_columns(q=pl.lit(key))
            )
    if not weights:
        return {}
    per_group = rk.evaluate(
        pl.concat(outcome_candidates),
        pl.DataFrame(outcomes_truth, schema={"q": pl.String, "item": pl.Int64,
                                             "relevance": pl.Float64}, orient="row"),
        group_by="q", **options,
    ).per_group  # fmt: skip
    values: dict = {}
    for row in per_group.iter_rows(named=True):
        group, weight = weights[row["q"]]
        values.setdefault((group, row["metric"], row["k"]), []).append((weight, row["value"]))
    result = {}
    for key, pairs in values.items():
        total = sum(w for w, _ in pairs)
        mean = sum(w * v for w, v in pairs) / total
        variance = sum(w * (v - mean) ** 2 for w, v in pairs) / total
        result[key] = (mean, math.sqrt(max(variance, 0.0)))
    return result


def assert_equal_to_enumeration(result: rk.Evaluation, expected: dict) -> None:
    """Every per-group expectation and standard deviation of `result` equals the
    enumeration's (`_enumerated`) to 1e-12, with no Monte Carlo error."""
    got = {(r["q"], r["metric"], r["k"]): r for r in result.per_group.iter_rows(named=True)}
    assert set(got) == set(expected)
    for key, (mean, std) in expected.items():
        row = got[key]
        if math.isnan(mean):
            assert math.isnan(row["value"]), key
            continue
        assert row["value"] == pytest.approx(mean, abs=1e-12), key
        assert row["std"] == pytest.approx(std, abs=1e-12), key
        assert row["standard_error"] == 0.0


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=25, deadline=None)
@given(data=judged_groups(), policy=st.sampled_from(POLICIES))
def test_expectation_and_std_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """Every metric, ties, duplicates, short lists, empty truth, the Policy fields they read."""
    candidates, truth = data
    names = [
        m for m in METRICS if policy.ties != "expected" or m not in ("err", "bpref", "q_measure")
    ]
    options = {"k": [1, 3], "metrics": names, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)


def test_monte_carlo_within_four_standard_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """13 uncertain items of two relevant grades (8192 outcomes, past the enumeration limit;
    bpref's exact walk held below the group's states): drawn, and the means lie within 4
    standard errors of the enumeration; graded nDCG, ERR, precision and AP exact by the
    recursion."""
    monkeypatch.setattr(label_bpref, "_LARGEST_STATES", 0)
    n = 13
    candidates = pl.DataFrame({"q": 0, "item": range(n), "score": [float(n - i) for i in range(n)]})
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": [1.0 + i % 2 for i in range(n)],
                          "p": [0.1 + 0.06 * i for i in range(n)]})  # fmt: skip
    options = {"k": 10, "metrics": ["bpref", "err", "ndcg", "average_precision", "precision"]}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p",
                         label_draws=400, **options)  # fmt: skip
    methods = dict(zip(result.label_methods["metric"], result.label_methods["method"],
                       strict=True))  # fmt: skip
    assert methods == {"bpref": "monte_carlo", "err": "recursion", "ndcg": "recursion",
                       "average_precision": "recursion", "precision": "recursion"}  # fmt: skip
    for row in result.per_group.iter_rows(named=True):
        mean, std = expected[(0, row["metric"], row["k"])]
        if row["metric"] != "bpref":
            assert row["value"] == pytest.approx(mean, abs=1e-12)
            assert row["std"] == pytest.approx(std, abs=1e-12)
            assert row["standard_error"] == 0.0
            continue
        assert row["standard_error"] == pytest.approx(row["std"] / 20)
        assert abs(row["value"] - mean) <= 4 * row["standard_error"]
        assert row["std"] == pytest.approx(std, rel=0.2)


def test_certain_labels_give_the_deterministic_numbers_exactly() -> None:
    candidates = pl.DataFrame({"q": [1, 1, 1, 2, 2], "item": [1, 2, 3, 3, 4],
                               "score": [0.9, 0.8, 0.8, 0.6, 0.5]})  # fmt: skip
    truth = pl.DataFrame({"q": [1, 1, 2, 2], "item": [2, 3, 3, 4], "relevance": [1, 2, 2, 1],
                          "p": 1.0})  # fmt: skip
    options = {"k": [1, 2, 5], "metrics": METRICS, "group_by": "q"}
    plain = rk.evaluate(candidates, truth, **options).per_group
    expected = rk.evaluate(candidates, truth, label_probability="p", **options).per_group
    assert expected.select(plain.columns).equals(plain)
    assert expected["std"].to_list() == [0.0] * expected.height


@pytest.mark.parametrize(
    ("probabilities", "message"),
    [
        ([0.5, 1.5], r"column 'p' .* in \[0, 1\]; got row .*'p': 1.5"),
        ([0.7, 0.6], r"sum to at most 1 .*'item': 1"),
    ],
)
def test_bad_probabilities_are_named(probabilities: list[float], message: str) -> None:
    candidates = pl.DataFrame({"q": [1], "item": [1], "score": [1.0]})
    truth = pl.DataFrame({"q": [1, 1], "item": [1, 1], "relevance": [1, 2], "p": probabilities})
    with pytest.raises(ValueError, match=message):
        rk.evaluate(candidates, truth, group_by="q", label_probability="p")


def _uncertain_case() -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates = pl.DataFrame({"q": [1, 1, 1, 1, 2, 2, 2], "item": [1, 2, 3, 4, 5, 6, 7],
                               "score": [0.9, 0.8, 0.8, 0.1, 0.6, 0.5, 0.5]})  # fmt: skip
    truth = pl.DataFrame({"q": [1, 1, 1, 2, 2, 2], "item": [2, 3, 3, 5, 6, 9],
                          "relevance": [1, 1, 2, 2, 1, 1],
                          "p": [0.4, 0.3, 0.6, 0.9, 0.5, 0.7]})  # fmt: skip
    return candidates, truth


def test_kernel_and_pure_polars_give_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each outcome is an ordinary evaluation: POLARS_RANKK_NATIVE=0 gives the same frame."""
    candidates, truth = _uncertain_case()
    options = {"k": [1, 3], "metrics": METRICS, "group_by": "q", "label_probability": "p"}
    with_kernel = rk.evaluate(candidates, truth, **options).per_group
    monkeypatch.setenv("POLARS_RANKK_NATIVE", "0")
    pure = rk.evaluate(candidates, truth, **options).per_group
    assert pure.equals(with_kernel)


def test_lazy_inputs_give_the_same_numbers() -> None:
    """Lazy and eager inputs read the same methods (the recursion's cells computed when
    `evaluate` is called, the others enumerated by the lazy plan): the same numbers."""
    candidates, truth = _uncertain_case()
    options = {"k": [1, 3], "metrics": METRICS, "group_by": "q", "label_probability": "p"}
    eager = rk.evaluate(candidates, truth, **options)
    lazy = rk.evaluate(candidates.lazy(), truth.lazy(), **options)
    assert isinstance(lazy.per_group, pl.LazyFrame)
    assert lazy.per_group.collect().equals(eager.per_group)
    assert lazy.collect().label_methods.equals(eager.label_methods)


@pytest.mark.parametrize("policy", [POLICIES[i] for i in (0, 1, 2, 4)], ids=(0, 1, 2, 4))
def test_linear_metrics_past_the_enumeration_limit_are_exact(policy: rk.Policy) -> None:
    """13 uncertain items of grades 0-2 in tied blocks (8192 and more outcomes: sampled), yet
    precision, DCG, RBP and the relevant retrieved count equal the enumeration to 1e-12 by
    linearity, under every policy (the count, a function of the list's relevant count, by
    its law: "counts"). Where a grade below the threshold would score, precision and RBP,
    which read only relevance, and DCG, which reads the grade below the threshold as one more
    of the blocks' grades, stay exact by the recursion over the tie blocks ("optimistic")."""
    n = 13
    candidates = pl.DataFrame({"q": 0, "item": range(n),
                               "score": [float((n - i) // 3) for i in range(n)]})  # fmt: skip
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": [1.0 + i % 2 for i in range(n)],
                          "p": [0.1 + 0.06 * i for i in range(n)]})  # fmt: skip
    options = {"k": [3, 10], "metrics": sorted(LINEAR), "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p",
                         label_draws=50, **options)  # fmt: skip
    linear = policy.relevance_threshold <= 1 and policy.pool == "all"
    # Where the policy lets it, the recursion over ranks computes precision and RBP exactly.
    methods = dict(result.label_methods.select("metric", "method").iter_rows())
    if linear:
        assert set(methods.values()) <= {"linearity", "recursion", "counts"}
    else:
        by_blocks = {"precision": "recursion", "rbp": "recursion", "dcg": "recursion"}
        assert methods == {**by_blocks, "num_relevant_retrieved": "counts"}
    for row in result.per_group.iter_rows(named=True):
        if methods[row["metric"]] == "monte_carlo":
            continue
        mean, std = expected[(0, row["metric"], row["k"])]
        if math.isnan(mean):
            assert math.isnan(row["value"])
            continue
        assert row["value"] == pytest.approx(mean, abs=1e-12), row
        assert row["std"] == pytest.approx(std, abs=1e-12), row


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_a_tie_order_by_grade_is_not_read_by_linearity(ties: str) -> None:
    """13 tied items of p=0.5 (8192 outcomes) of two relevant grades: under a tie order that
    ranks by grade an item's rank depends on the others' labels, so no term that reads the
    rank is summed by linearity (13 tied items once gave precision@5 = 1.3). Precision reads
    only relevance (the relevant items fill the block's first or last places, whatever their
    grades), DCG and RBP weighing ranks by grade the block's count at or above each grade:
    exact by the recursion over blocks; the relevant retrieved count reads no rank: exact by
    the law of the list's relevant count ("counts")."""
    n = 13
    candidates = pl.DataFrame({"q": 0, "item": range(n), "score": 1.0})
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": [1.0 + i % 2 for i in range(n)],
                          "p": 0.5})  # fmt: skip
    policy = rk.Policy(ties=ties, rbp_grades="graded")
    metrics = ["precision", "dcg", "rbp", "num_relevant_retrieved"]
    options = {"k": [1, 5], "metrics": metrics, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    methods = dict(result.label_methods.select("metric", "method").iter_rows())
    assert methods == {"precision": "recursion", "dcg": "recursion", "rbp": "recursion",
                       "num_relevant_retrieved": "counts"}  # fmt: skip
    assert_equal_to_enumeration(result, expected)


def test_linearity_gives_the_same_numbers_on_every_call() -> None:
    """A tie block straddling K, past the enumeration limit: identical calls give identical
    numbers, equal to the enumeration."""
    n = 13
    candidates = pl.DataFrame({"q": 0, "item": range(n), "score": [2.0] * 3 + [1.0] * 10})
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": 1.0,
                          "p": [0.05 + 0.07 * i for i in range(n)]})  # fmt: skip
    options = {"k": [1, 2], "metrics": ["precision"]}
    expected = _enumerated(candidates, truth, **options)
    options = {**options, "group_by": "q", "label_probability": "p"}
    runs = {
        tuple(rk.evaluate(candidates, truth, **options).per_group["value"].to_list())
        for _ in range(8)
    }
    assert len(runs) == 1
    (values,) = runs
    assert list(values) == pytest.approx([expected[(0, "precision", k)][0] for k in (1, 2)])


def test_every_view_reads_the_expectations() -> None:
    """A lazy evaluation's collect(), wide(), summary(), groups and a K-curve give the
    expectations (not the numbers of one labelling); the micro average is refused in words."""
    candidates, truth = _uncertain_case()
    options = {"k": [1, 3], "metrics": ["precision", "recall", "ndcg"], "group_by": "q",
               "label_probability": "p"}  # fmt: skip
    eager = rk.evaluate(candidates, truth, **options)
    expected = _enumerated(candidates, truth, k=[1, 3], metrics=options["metrics"])
    values = {
        (r["q"], r["metric"], r["k"]): r["value"] for r in eager.per_group.iter_rows(named=True)
    }
    assert values == pytest.approx({key: mean for key, (mean, _) in expected.items()}, abs=1e-12)
    lazy = rk.evaluate(candidates.lazy(), truth.lazy(), **options).collect()
    assert lazy.per_group.equals(eager.per_group)
    assert lazy.label_methods is not None
    assert lazy.label_methods.equals(eager.label_methods)
    wide = eager.wide()
    for (q, metric, k), value in values.items():
        assert wide.filter(pl.col("q") == q)[f"{metric}@{k}"].item() == pytest.approx(value)
    summary = eager.summary()
    for row in summary.iter_rows(named=True):
        mean = (values[(1, row["metric"], row["k"])] + values[(2, row["metric"], row["k"])]) / 2
        assert row["value"] == pytest.approx(mean, abs=1e-12)
    with pytest.raises(ValueError, match=r"average='micro' is not computed over label outcomes"):
        eager.summary(average="micro")
    # R_g's expectation over the outcomes in which the group is evaluated (at least one
    # relevant item): q=1 holds items of P(relevant) 0.4 and 0.9, none relevant with 0.06.
    assert eager.groups["n_relevant"].to_list()[0] == pytest.approx((0.4 + 0.9) / (1 - 0.06))
    curve = rk.curve_of_evaluations({"run": eager}, ci=False)
    for row in curve.iter_rows(named=True):
        mean = (values[(1, row["metric"], row["k"])] + values[(2, row["metric"], row["k"])]) / 2
        assert row["value"] == pytest.approx(mean, abs=1e-12)


@pytest.mark.parametrize("dtype", [pl.Categorical, pl.Int32])
def test_group_keys_are_aligned_as_evaluate_aligns_them(dtype: pl.DataType) -> None:
    """Categorical beside String keys, Int32 beside Int64: the same numbers; String beside
    Int64: the error `evaluate` gives, naming both tables (not a raw SchemaError)."""
    candidates, truth = _uncertain_case()
    options = {"k": [3], "metrics": ["precision"], "group_by": "q", "label_probability": "p"}
    plain = rk.evaluate(candidates, truth, **options).per_group["value"]
    if dtype == pl.Categorical:
        candidates = candidates.with_columns(pl.col("q").cast(pl.String).cast(pl.Categorical))
        truth = truth.with_columns(pl.col("q").cast(pl.String))
    else:
        candidates = candidates.with_columns(pl.col("q").cast(pl.Int32))
    assert rk.evaluate(candidates, truth, **options).per_group["value"].equals(plain)
    with pytest.raises(TypeError, match=r"column 'q' has dtype .* in candidates but .* in truth"):
        rk.evaluate(candidates, truth.with_columns(pl.col("q").cast(pl.Float64)), **options)


@pytest.mark.slow
def test_monte_carlo_error_bars_cover_the_truth_at_their_nominal_rate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bpref (its exact walk held below the group's states) over 13 uncertain items of two
    grades, drawn under 200 seeds: the mean ± 1.96 standard errors holds the enumerated
    expectation about 95% of the time (a binomial 95% band around 0.95 for 200 trials), and
    the standard error shrinks as one over the square root of the draws."""
    monkeypatch.setattr(label_bpref, "_LARGEST_STATES", 0)
    n = 13
    candidates = pl.DataFrame({"q": 0, "item": range(n), "score": [float(n - i) for i in range(n)]})
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": [float(i % 2) for i in range(n)],
                          "p": [0.15 + 0.05 * i for i in range(n)]})  # fmt: skip
    options = {"k": 10, "metrics": ["bpref"]}
    ((mean, _),) = _enumerated(candidates, truth, **options).values()
    covered, errors = 0, []
    for seed in range(200):
        row = rk.evaluate(candidates, truth, group_by="q", label_probability="p", label_draws=100,
                          label_seed=seed, **options).per_group.row(0, named=True)  # fmt: skip
        assert row["standard_error"] > 0
        covered += abs(row["value"] - mean) <= 1.96 * row["standard_error"]
        errors.append(row["standard_error"])
    assert 181 <= covered <= 197, covered
    more = rk.evaluate(candidates, truth, group_by="q", label_probability="p", label_draws=400,
                       label_seed=0, **options).per_group["standard_error"].item()  # fmt: skip
    assert more == pytest.approx(float(np.median(errors)) / 2, rel=0.25)
