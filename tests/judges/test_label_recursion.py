"""evaluate(..., label_probability=...) by the recursion over ranks: where the tie order is
fixed, each expectation and standard deviation equals an enumeration of every label outcome
(each outcome an ordinary deterministic evaluation) to 1e-12 — with 2**16 outcomes too, past
the enumeration's limit — and no outcome is evaluated: one relevant grade per group for every
metric, several (an item's mass spread over them) for nDCG and DCG."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.inputs.labels import exact as label_exact
from tests.judges.test_label_probability import _enumerated, assert_equal_to_enumeration

RECURSIVE = ["precision", "recall", "hit_rate", "hit_rank", "mrr", "average_precision", "ndcg",
             "dcg", "rbp", "r_precision", "err", "f1", "relative_precision"]  # fmt: skip
# Exact along a fixed order only (over tie blocks: enumerated); Q-measure's cg and cg* are
# the grade times counts, where each group's relevant items share one grade.
ONE_GRADE_FIXED = [*RECURSIVE, "q_measure"]
POLICIES = [
    rk.Policy(),
    rk.Policy(ties="item_asc", gain="exponential", relevance_threshold=2),
    rk.Policy(empty_truth="zero", ap_denominator="min_k_relevant", short_lists="skip"),
    rk.Policy(
        empty_truth="nan", short_lists="observed", pool="restrict", rbp_persistence=0.5, f_beta=2.0
    ),
    rk.Policy(ties="input_order", invalid_scores="drop", duplicates="first"),
    rk.Policy(err_max_grade=3, gain="exponential", q_beta=2.5),
]


def _tables(
    candidates: list[tuple[int, int, float]], truth: list[tuple[int, int, float, float]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The drawn rows as candidates (q, item, score) and truth (q, item, relevance, p)."""
    return (
        pl.DataFrame(candidates, schema={"q": pl.Int64, "item": pl.Int64, "score": pl.Float64},
                     orient="row"),
        pl.DataFrame(truth, schema={"q": pl.Int64, "item": pl.Int64, "relevance": pl.Float64,
                                    "p": pl.Float64}, orient="row"),
    )  # fmt: skip


def _recursion_equals_enumeration(
    candidates: pl.DataFrame, truth: pl.DataFrame, options: dict[str, object]
) -> rk.Evaluation:
    """Every cell computed by the recursion, equal to the enumeration of every outcome."""
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    if expected:
        assert set(result.label_methods["method"]) == {"recursion"}
    assert_equal_to_enumeration(result, expected)
    return result


@st.composite
def binary_groups(draw: st.DrawFn, max_items: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates with tied scores, repeated items and short or empty lists; truth of one
    relevant grade per group (an item's other mass grade 0), items outside the candidates."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 3))):
        for _ in range(draw(st.integers(0, max_items))):
            item = draw(st.integers(0, max_items))
            candidates.append((group, item, float(draw(st.integers(0, 3)))))
        grade = float(draw(st.sampled_from([2, 3])))
        for item in draw(st.lists(st.integers(0, max_items + 2), max_size=6, unique=True)):
            p = draw(st.sampled_from([0.0, 0.1, 0.5, 0.75, 1.0]))
            truth.append((group, item, grade, p))
    return _tables(candidates, truth)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from(POLICIES))
def test_the_recursion_equals_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = data
    options = {"k": [1, 3, 5], "metrics": ONE_GRADE_FIXED, "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from(POLICIES))
def test_the_kernel_and_numpy_recursions_give_the_same_numbers_bit_for_bit(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """The recursion in compiled code and its NumPy statement (``POLARS_RANKK_NATIVE=0``) add
    the same terms in the same order: the same frame, bit for bit."""
    candidates, truth = data
    options = {"k": [1, 3, 12], "metrics": ONE_GRADE_FIXED, "policy": policy, "group_by": "q",
               "label_probability": "p"}  # fmt: skip
    with_kernel = rk.evaluate(candidates, truth, **options).per_group
    previous = os.environ.get("POLARS_RANKK_NATIVE")
    os.environ["POLARS_RANKK_NATIVE"] = "0"
    try:
        pure = rk.evaluate(candidates, truth, **options).per_group
    finally:
        if previous is None:
            del os.environ["POLARS_RANKK_NATIVE"]
        else:
            os.environ["POLARS_RANKK_NATIVE"] = previous
    assert_frame_equal(with_kernel, pure, check_exact=True)


def test_sixteen_uncertain_items_are_exact() -> None:
    """2**16 outcomes (16 times the enumeration's limit): every metric exact, in one pass."""
    n = 16
    scores = [float((n + 2 - i) // 2) for i in range(n + 2)]
    candidates = pl.DataFrame({"q": 0, "item": range(n + 2), "score": scores})
    truth = pl.DataFrame({"q": 0, "item": range(2, n + 2), "relevance": 1.0,
                          "p": [0.05 + 0.055 * i for i in range(n)]})  # fmt: skip
    options = {"k": [3, 10], "metrics": ONE_GRADE_FIXED}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert set(result.label_methods["method"]) == {"recursion"}
    assert_equal_to_enumeration(result, expected)


@pytest.mark.parametrize("policy", POLICIES, ids=range(len(POLICIES)))
def test_groups_and_summary_equal_the_enumerations(policy: rk.Policy) -> None:
    """R_g's expectation (``groups``) and the summary read the same numbers by either method."""
    candidates = pl.DataFrame({"q": [0, 0, 0, 1, 1, 2], "item": [1, 2, 3, 1, 2, 1],
                               "score": [3.0, 2.0, 2.0, 1.0, 0.5, 1.0]})  # fmt: skip
    truth = pl.DataFrame({"q": [0, 0, 0, 1, 1, 2], "item": [1, 3, 9, 2, 7, 5],
                          "relevance": 2.0, "p": [0.5, 0.25, 0.8, 1.0, 0.3, 0.6]})  # fmt: skip
    options = {"k": [1, 2], "metrics": ONE_GRADE_FIXED, "group_by": "q", "policy": policy,
               "label_probability": "p"}  # fmt: skip
    recursive = rk.evaluate(candidates, truth, **options)
    assert set(recursive.label_methods["method"]) == {"recursion"}
    original = label_exact.exact_cells
    try:
        label_exact.exact_cells = lambda *arguments: None  # type: ignore[assignment]
        enumerated = rk.evaluate(candidates, truth, **options)
    finally:
        label_exact.exact_cells = original
    assert set(enumerated.label_methods["method"]) == {"enumeration"}
    assert recursive.groups.equals(enumerated.groups) or (
        recursive.groups.drop("n_relevant").equals(enumerated.groups.drop("n_relevant"))
        and (recursive.groups["n_relevant"] - enumerated.groups["n_relevant"]).abs().max() < 1e-12
    )
    left, right = recursive.summary(), enumerated.summary()
    assert left.drop("value").equals(right.drop("value"))
    assert (left["value"] - right["value"]).abs().max() < 1e-12


@st.composite
def graded_groups(draw: st.DrawFn, lowest: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """As `binary_groups`, with each judged item's mass spread over one to three relevant
    grades (from `lowest`), so that a group's items have several gains."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 3))):
        for _ in range(draw(st.integers(0, 6))):
            item = draw(st.integers(0, 6))
            candidates.append((group, item, float(draw(st.integers(0, 3)))))
        for item in draw(st.lists(st.integers(0, 8), max_size=5, unique=True)):
            grades = draw(st.lists(st.integers(lowest, lowest + 2), min_size=1, max_size=3,
                                   unique=True))  # fmt: skip
            for grade in grades:
                p = draw(st.sampled_from([0.0, 0.1, 0.2, 0.3]))
                truth.append((group, item, float(grade), p))
    return _tables(candidates, truth)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(policy=st.sampled_from(POLICIES), data=st.data())
def test_graded_ndcg_dcg_and_err_by_counts_per_gain_equal_the_enumeration(
    policy: rk.Policy, data: st.DataObject
) -> None:
    candidates, truth = data.draw(graded_groups(int(policy.relevance_threshold)))
    options = {"k": [1, 3, 5], "metrics": ["ndcg", "dcg", "err"], "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


def test_which_graded_cells_the_recursion_reads() -> None:
    """A possible grade between 0 and the relevance threshold gains without being relevant:
    nDCG reads it by the recursion, along a fixed order and over tie blocks ordered by the
    grades (where it takes the places after the relevant items); and so are several relevant
    grades, ties ranked by one relevant grade and the metrics that read only relevance;
    where a gains map makes a non-relevant grade gain as much as a relevant one, nDCG is
    enumerated."""
    candidates = pl.DataFrame({"q": 0, "item": [1, 2, 3], "score": [2.0, 1.0, 1.0]})
    graded = pl.DataFrame({"q": 0, "item": [1, 2], "relevance": [1.0, 2.0], "p": [0.5, 0.5]})
    options = {"group_by": "q", "k": 2, "metrics": ["ndcg"], "label_probability": "p"}

    def methods(truth: pl.DataFrame, **changes: object) -> set[str]:
        result = rk.evaluate(candidates, truth, **{**options, **changes})  # type: ignore[arg-type]
        return set(result.label_methods["method"])

    assert methods(graded) == {"recursion"}
    assert methods(graded, policy=rk.Policy(relevance_threshold=2)) == {"recursion"}
    below_in_blocks = rk.Policy(relevance_threshold=2, ties="optimistic")
    assert methods(graded, policy=below_in_blocks) == {"recursion"}
    shared = rk.Policy(relevance_threshold=2, gains={1: 2.0})  # grades 1 and 2 both gain 2
    assert methods(graded, policy=shared) == {"enumeration"}
    assert methods(graded, policy=rk.Policy(ties="optimistic")) == {"recursion"}
    binary = graded.with_columns(relevance=pl.lit(1.0))  # one grade: the block recursion
    assert methods(binary, policy=rk.Policy(ties="optimistic")) == {"recursion"}
    relevance_only = ["recall", "average_precision", "mrr"]
    assert methods(graded, metrics=relevance_only, policy=below_in_blocks) == {"recursion"}


BELOW_THRESHOLD = [
    rk.Policy(relevance_threshold=2, gain="exponential"),
    rk.Policy(relevance_threshold=3, nonrelevant_gain="zero", err_max_grade=3),
    rk.Policy(relevance_threshold=2, empty_truth="zero", ties="item_asc"),
    rk.Policy(relevance_threshold=2, empty_truth="nan", pool="restrict"),
    rk.Policy(relevance_threshold=3, ties="input_order", invalid_scores="drop",
              short_lists="observed", ap_denominator="min_k_relevant"),
]  # fmt: skip


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=60, deadline=None)
@given(policy=st.sampled_from(BELOW_THRESHOLD), data=st.data())
def test_grades_below_the_threshold_along_a_fixed_order_equal_the_enumeration(
    policy: rk.Policy, data: st.DataObject
) -> None:
    """Grades 1 to 3 under a threshold of 2 or 3: the grades below it gain in nDCG and DCG
    and may stop the user in ERR without making R > 0. Where the outcomes without a relevant
    item are left out, each such metric is E[M] - P(R = 0) E[M | R = 0] (the items given
    R = 0 still independent); kept, they score M. Every metric equals the enumeration."""
    candidates, truth = data.draw(graded_groups(1))
    options = {"k": [1, 3, 5], "metrics": RECURSIVE, "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.parametrize("threshold", [1, 2])
def test_fractional_grades_truncated_as_the_evaluation_reads_them(threshold: int) -> None:
    """Under ``fractional_grades="truncate"`` the recursion reads the truncated grades (2.7 is
    2), as every enumerated outcome's evaluation does: graded nDCG, DCG, ERR exact."""
    candidates = pl.DataFrame({"q": 0, "item": [1, 2, 3, 4], "score": [4.0, 3.0, 2.0, 1.0]})
    truth = pl.DataFrame({"q": 0, "item": [1, 2, 2, 3, 4], "relevance": [1.5, 2.7, 1.2, 3.9, 1.0],
                          "p": [0.5, 0.4, 0.3, 0.6, 0.5]})  # fmt: skip
    policy = rk.Policy(fractional_grades="truncate", relevance_threshold=threshold)
    options = {"k": [2, 4], "metrics": RECURSIVE, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert "recursion" in set(result.label_methods["method"])
    assert_equal_to_enumeration(result, expected)


BLOCK_METRICS = ["precision", "recall", "hit_rate", "hit_rank", "mrr", "average_precision",
                 "ndcg", "dcg", "rbp", "f1", "r_precision"]  # fmt: skip
GRADE_READING = [
    rk.Policy(ties="optimistic"),
    rk.Policy(ties="pessimistic"),
    rk.Policy(ties="optimistic", empty_truth="zero", ap_denominator="min_k_relevant",
              short_lists="skip", gain="exponential"),
    rk.Policy(ties="pessimistic", empty_truth="nan", short_lists="observed", pool="restrict",
              rbp_persistence=0.5, relevance_threshold=2, f_beta=0.5),
    rk.Policy(ties="optimistic", invalid_scores="drop", duplicates="first", pool="restrict"),
    rk.Policy(ties="expected"),
    rk.Policy(ties="expected", empty_truth="zero", ap_denominator="min_k_relevant",
              short_lists="skip", gain="exponential"),
    rk.Policy(ties="expected", empty_truth="nan", short_lists="observed", pool="restrict",
              rbp_persistence=0.5, relevance_threshold=2, f_beta=0.5),
    rk.Policy(ties="expected", invalid_scores="drop", duplicates="first"),
]  # fmt: skip


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=60, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from(GRADE_READING))
def test_ties_ordered_by_the_labels_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """Relevant first (or last) within each block of equal scores, or the mean over every
    order of each block: the ranking differs between outcomes (or is averaged), and the
    recursion over blocks still equals every outcome evaluated."""
    candidates, truth = data
    options = {"k": [1, 3, 5], "metrics": BLOCK_METRICS, "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(
    data=binary_groups(),
    policy=st.sampled_from([p for p in GRADE_READING if p.ties != "expected"]),
    top=st.sampled_from([2, 3, 4]),
)
def test_err_under_ties_ordered_by_the_labels_equals_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, top: int
) -> None:
    """ERR with relevant items first (or last) in each block: every relevant item of a group
    shares one grade, so the (c + i)-th relevant one is reached with chance (1 - s)^(c + i)
    wherever the labels put it: exact by the recursion over blocks."""
    candidates, truth = data
    options = {"k": [1, 3, 5], "metrics": ["err"], "policy": replace(policy, err_max_grade=top)}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(
    data=binary_groups(),
    policy=st.sampled_from([p for p in GRADE_READING if p.ties != "expected"]),
    beta=st.sampled_from([0.0, 1.0, 2.5]),
)
def test_q_measure_under_ties_ordered_by_the_labels_equals_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, beta: float
) -> None:
    """Q-measure with relevant items first (or last) in each block, each group's relevant
    items of one grade: a block's x relevant items take known places, so the walk over
    blocks carries the count found and each value R may take, as along a fixed order."""
    candidates, truth = data
    options = {"k": [1, 3, 5], "metrics": ["q_measure", "average_precision"],
               "policy": replace(policy, q_beta=beta)}  # fmt: skip
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_q_measure_of_fourteen_tied_uncertain_items_is_exact(ties: str) -> None:
    """2**14 outcomes: blocks straddling K, two relevant items never listed."""
    candidates, truth = tied_uncertain_items(tie=4, grade=2.0)
    options = {"k": [6], "metrics": ["q_measure"], "policy": rk.Policy(ties=ties)}
    _recursion_equals_enumeration(candidates, truth, options)


def tied_uncertain_items(tie: int, grade: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    """2**14 outcomes in one group: 14 items scored in blocks of `tie` equal scores, two of
    them unjudged, 14 truth items of `grade` and falling chances, two never listed."""
    n = 14
    candidates = pl.DataFrame(
        {"q": 0, "item": range(n), "score": [float(i // tie) for i in range(n)]}
    )
    truth = pl.DataFrame({"q": 0, "item": range(2, n + 2), "relevance": grade,
                          "p": [0.9 - 0.06 * i for i in range(n)]})  # fmt: skip
    return candidates, truth


RELEVANCE_ONLY = ["precision", "recall", "hit_rate", "hit_rank", "mrr", "average_precision",
                  "rbp", "f1", "r_precision"]  # fmt: skip


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(policy=st.sampled_from(GRADE_READING), data=st.data())
def test_several_relevant_grades_under_block_tie_orders_equal_the_enumeration(
    policy: rk.Policy, data: st.DataObject
) -> None:
    """Several relevant grades in a block of equal scores: the relevant items still fill its
    first (or last) places whatever their grades, so the metrics that read only relevance
    stay exact by the recursion over blocks."""
    candidates, truth = data.draw(graded_groups(int(policy.relevance_threshold)))
    options = {"k": [1, 3, 5], "metrics": RELEVANCE_ONLY, "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "expected"])
def test_thirteen_tied_items_are_exact_under_ties_that_read_the_labels(ties: str) -> None:
    """13 tied items of p = 0.5 (8,192 outcomes, past the enumeration): precision@5 is the
    exact 0.9615 / 0.0385 under the tie order that reads the labels, and E[R] / 13 over the
    outcomes with a relevant item (6.5 / 13 / (1 - 2^-13)) as the mean over every order,
    by the recursion."""
    n = 13
    candidates = pl.DataFrame({"q": 0, "item": range(n), "score": 1.0})
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": 1.0, "p": 0.5})
    options = {"k": [5, 10], "metrics": BLOCK_METRICS, "policy": rk.Policy(ties=ties)}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert set(result.label_methods["method"]) == {"recursion"}
    assert_equal_to_enumeration(result, expected)
    precision = result.per_group.filter(metric="precision", k=5)["value"].item()
    exact = {"optimistic": 0.9615, "pessimistic": 0.0385, "expected": 0.5 / (1 - 2**-13)}
    assert precision == pytest.approx(exact[ties], abs=1e-4)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "expected"])
def test_a_block_reaching_k_from_the_top_counts_its_last_places(ties: str) -> None:
    """Five tied items, one of them possibly relevant, at K = 5: the relevant item's places
    reach K (the last place under "pessimistic"), and each is counted as the enumeration
    counts it (the places' sums once stopped short of K)."""
    candidates = pl.DataFrame({"q": 0, "item": range(5), "score": 1.0})
    truth = pl.DataFrame({"q": [0], "item": [0], "relevance": [1.0], "p": [0.5]})
    policy = rk.Policy(ties=ties, empty_truth="zero")
    options = {"k": [5], "metrics": BLOCK_METRICS, "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=60, deadline=None)
@given(policy=st.sampled_from(GRADE_READING), data=st.data(), top=st.sampled_from([3, 4]))
def test_graded_ndcg_dcg_and_err_over_blocks_ordered_by_grade_equal_the_enumeration(
    policy: rk.Policy, data: st.DataObject, top: int
) -> None:
    """Several relevant grades in a block of equal scores, ordered by grade (highest first, or
    last) or averaged over every order: nDCG, DCG, ERR and RBP weighing ranks by grade read
    how many of the block's items turn out at or above each grade, and equal every outcome
    evaluated."""
    candidates, truth = data.draw(graded_groups(int(policy.relevance_threshold)))
    metrics = ["ndcg", "dcg", "rbp"] + ([] if policy.ties == "expected" else ["err"])
    read = replace(policy, err_max_grade=top, rbp_grades="graded")
    options = {"k": [1, 3, 5], "metrics": metrics, "policy": read}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "expected"])
def test_fourteen_tied_items_of_three_grades_are_exact(ties: str) -> None:
    """14 tied items, each of grade 1, 2 or 3 or none (4^7 x 2^7 = 2,097,152 outcomes, far
    past the enumeration): nDCG, DCG and ERR by the blocks' counts per grade, equal to a
    brute force over the block's grade counts written out here."""
    n = 14
    grades = [1.0, 2.0, 3.0]
    candidates = pl.DataFrame({"q": 0, "item": range(n + 2), "score": [2.0] + [1.0] * n + [0.0]})
    rows = [(0, item, g, 0.2) for item in range(1, 8) for g in grades]
    rows += [(0, item, 2.0, 0.5) for item in range(8, n + 1)]
    truth = pl.DataFrame(rows, schema=["q", "item", "relevance", "p"], orient="row")
    metrics = ["ndcg", "dcg"] if ties == "expected" else ["ndcg", "dcg", "err"]
    options = {"k": [5, 20], "metrics": metrics, "policy": rk.Policy(ties=ties)}
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert set(result.label_methods["method"]) == {"recursion"}
    expected = _block_brute_force(ties, n, options["k"])
    for (metric, k), (mean, std) in expected.items():
        row = result.per_group.filter(metric=metric, k=k).row(0, named=True)
        assert row["value"] == pytest.approx(mean, abs=1e-12), (metric, k)
        assert row["std"] == pytest.approx(std, abs=1e-12), (metric, k)


def _block_brute_force(ties: str, n: int, ks: list[int]) -> dict:
    """{(metric, k): (mean, std)} of `test_fourteen_tied_items_of_three_grades_are_exact`'s
    list (rank 1 unjudged, ranks 2..n + 1 one tie block, the last rank unjudged): every
    count of the block's items per grade, its chance a product of multinomial and binomial
    laws, the block listed by grade as the tie order lists it, DCG and ERR summed over it
    and nDCG divided by the ideal list of the same grades."""
    import itertools
    import math

    uniform, halves = 7, n - 7  # items of grade 1, 2, 3 at 0.2 each; items of grade 2 at 0.5
    found: dict = {}
    for a, b, c in itertools.product(range(uniform + 1), repeat=3):
        if a + b + c > uniform:
            continue
        none = uniform - a - b - c
        chance = (
            math.factorial(uniform)
            / (math.factorial(a) * math.factorial(b) * math.factorial(c) * math.factorial(none))
            * 0.2 ** (a + b + c)
            * 0.4**none
        )
        for twos in range(halves + 1):
            weight = chance * math.comb(halves, twos) * 0.5**halves
            block = [3.0] * c + [2.0] * (b + twos) + [1.0] * a
            block += [0.0] * (n - len(block))
            if ties == "pessimistic":
                block.reverse()
            ranked = [0.0, *block, 0.0]
            for k in ks:
                for metric, value in _graded_values(ranked, k, ties).items():
                    first, second = found.get((metric, k), (0.0, 0.0))
                    found[(metric, k)] = (first + weight * value, second + weight * value**2)
    # The outcome without a relevant item is left out (empty_truth="exclude").
    none_relevant = 0.4**uniform * 0.5**halves
    return {
        key: (first / (1 - none_relevant),
              math.sqrt(max(second / (1 - none_relevant) - (first / (1 - none_relevant)) ** 2,
                            0.0)))
        for key, (first, second) in found.items()
    }  # fmt: skip


def _graded_values(ranked: list[float], k: int, ties: str) -> dict:
    """nDCG@k, DCG@k and ERR@k of one listed outcome as the default policy reads its grades:
    the grade is the gain, ERR's chance of stopping (2^g - 1) / 2^4."""
    import math

    def gain(g: float) -> float:
        return g

    discount = [1.0 / math.log2(r + 1) for r in range(1, k + 1)]
    if ties == "expected":  # each place of the block at the block's mean discount
        inside = [1.0 / math.log2(r + 1) if r <= k else 0.0 for r in range(2, len(ranked))]
        mean = sum(inside) / len(inside)
        dcg = sum(gain(g) for g in ranked[1:-1]) * mean
    else:
        dcg = sum(gain(g) * d for g, d in zip(ranked[:k], discount, strict=False))
    ideal = sorted(ranked, reverse=True)
    idcg = sum(gain(g) * d for g, d in zip(ideal[:k], discount, strict=False))
    values = {"dcg": dcg, "ndcg": dcg / idcg if idcg > 0 else 0.0}
    if ties != "expected":
        err, reach = 0.0, 1.0
        for rank, g in enumerate(ranked[:k], start=1):
            stop = (2.0**g - 1.0) / 2.0**4
            err += reach * stop / rank
            reach *= 1 - stop
        values["err"] = err
    return values


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(
    policy=st.sampled_from([p for p in GRADE_READING if p.relevance_threshold == 2]),
    data=st.data(),
)
def test_a_grade_below_the_threshold_leaves_the_block_recursion_exact(
    policy: rk.Policy, data: st.DataObject
) -> None:
    """Grades 1 to 3 under a relevance threshold of 2: grade 1 is not relevant, and a block
    lists it below the relevant items (above them under "pessimistic"), so the metrics that
    read only relevance stay exact by the recursion over blocks."""
    candidates, truth = data.draw(graded_groups(1))
    options = {"k": [1, 3, 5], "metrics": RELEVANCE_ONLY, "policy": policy}
    _recursion_equals_enumeration(candidates, truth, options)


#: Gains maps, and whether nDCG and DCG read them by the recursion: under a fixed tie order any
#: positive gains of the relevant grades (and gains of the grades below the threshold that are
#: not negative); not where grade 0 gains (every item's remaining mass would score) or a grade
#: loses; over tie blocks ordered by grade, only gains that do not fall as the grade rises.
GAIN_MAPS = [
    (rk.Policy(gains={1: 4.0, 2: 1.0, 3: 0.5}), True),
    (rk.Policy(gains={0: 1.0}, ties="item_asc"), False),
    (rk.Policy(ties="optimistic", gains={2: 5.0, 3: 9.0}, gain="exponential"), True),
    (rk.Policy(ties="pessimistic", gains={2: 9.0, 3: 1.0}), False),
    (rk.Policy(ties="expected", gains={1: 0.5, 3: 4.0}), True),
    (rk.Policy(relevance_threshold=2, gains={1: 0.5, 3: 7.0}), True),
    (rk.Policy(relevance_threshold=2, gains={1: -1.0}), False),
]


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=50, deadline=None)
@given(case=st.sampled_from(GAIN_MAPS), data=st.data())
def test_a_gains_map_is_read_as_the_evaluation_reads_it(
    case: tuple[rk.Policy, bool], data: st.DataObject
) -> None:
    """A `gains` map changes only what nDCG and DCG add: every other metric stays exact by the
    recursion, and nDCG and DCG too where the recursion reads the map as the evaluation does
    (else, on the grades that defeat it, the outcomes are enumerated); every number equals
    the enumeration."""
    policy, read = case
    candidates, truth = data.draw(graded_groups(1))
    metrics = RECURSIVE if policy.ties != "expected" else [m for m in RECURSIVE if m != "err"]
    options = {"k": [1, 3, 5], "metrics": metrics, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)
    if not expected:
        return
    # Where the map is not read, nDCG and DCG are enumerated unless the group's possible
    # grades avoid what the recursion cannot read (a drawn truth of one grade, say).
    for metric, method in result.label_methods.select("metric", "method").iter_rows():
        if read or metric not in ("ndcg", "dcg"):
            assert method == "recursion", metric


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=50, deadline=None)
@given(policy=st.sampled_from(POLICIES + GRADE_READING), data=st.data())
def test_lists_condensed_to_their_judged_items_equal_the_enumeration(
    policy: rk.Policy, data: st.DataObject
) -> None:
    """``unjudged="condense"``: every truth item is judged in every outcome (grade 0 where
    its grades leave it), so the condensed list is the same in every outcome and the
    recursion reads it as it reads any fixed list, under every tie order."""
    read = replace(policy, unjudged="condense")
    candidates, truth = data.draw(graded_groups(int(read.relevance_threshold)))
    metrics = RECURSIVE if read.ties != "expected" else [m for m in RECURSIVE if m != "err"]
    options = {"k": [1, 3, 5], "metrics": metrics, "policy": read}
    _recursion_equals_enumeration(candidates, truth, options)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=60, deadline=None)
@given(
    policy=st.sampled_from([replace(p, relevance_threshold=2) for p in GRADE_READING]),
    data=st.data(),
)
def test_grades_below_the_threshold_over_blocks_ordered_by_grade_equal_the_enumeration(
    policy: rk.Policy, data: st.DataObject
) -> None:
    """Grades 1 to 3 under a threshold of 2 over tie blocks: grade 1 takes the places after
    the relevant items (before them under "pessimistic"), gains in nDCG and DCG and may stop
    the user in ERR; every metric equals the enumeration."""
    candidates, truth = data.draw(graded_groups(1))
    metrics = [m for m in RECURSIVE if policy.ties != "expected" or m != "err"]
    options = {"k": [1, 3, 5], "metrics": metrics, "policy": replace(policy, rbp_grades="graded")}
    _recursion_equals_enumeration(candidates, truth, options)


@st.composite
def groups_with_negative_grades(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """As `graded_groups`, each judged item's mass spread over grades -2 to 3 (0 excluded:
    what the grades leave is grade 0)."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 2))):
        for _ in range(draw(st.integers(0, 6))):
            item = draw(st.integers(0, 6))
            candidates.append((group, item, float(draw(st.integers(0, 3)))))
        for item in draw(st.lists(st.integers(0, 8), max_size=5, unique=True)):
            grades = draw(st.lists(st.sampled_from([-2, -1, 1, 2, 3]), min_size=1, max_size=2,
                                   unique=True))  # fmt: skip
            for grade in grades:
                truth.append((group, item, float(grade), draw(st.sampled_from([0.1, 0.3, 0.4]))))
    return _tables(candidates, truth)


NEGATIVE = [
    rk.Policy(negative_grades=negative, unjudged=unjudged, ties=ties)
    for negative, unjudged, ties in itertools.product(
        ["nonrelevant", "unjudged"], ["keep", "condense"], ["trec_eval", "optimistic"]
    )
]


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=60, deadline=None)
@given(policy=st.sampled_from(NEGATIVE), data=st.data())
def test_negative_grades_add_nothing_as_grade_0_does(
    policy: rk.Policy, data: st.DataObject
) -> None:
    """A negative grade is a judged non-relevant item, or (``negative_grades="unjudged"``)
    an unjudged one: either way it adds to no metric, as grade 0, so the recursion reads it
    so; only a list condensed to its judged items changes with it (enumerated)."""
    candidates, truth = data.draw(groups_with_negative_grades())
    options = {"k": [1, 3, 5], "metrics": RECURSIVE, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)
    varies = policy.unjudged == "condense" and policy.negative_grades == "unjudged"
    if expected and not (varies and (truth["relevance"] < 0).any()):
        assert set(result.label_methods["method"]) == {"recursion"}
