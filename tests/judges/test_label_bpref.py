"""evaluate(..., label_probability=...) of bpref by its walk down the ranked judged items:
under fixed tie orders each per-group expectation and standard deviation equals an
enumeration of every label outcome (each outcome an ordinary deterministic evaluation) to
1e-12, with 2**16 outcomes too, and no outcome is evaluated (lists condensed to their judged
items too: every truth item is judged in every outcome); a tie order that reads the grades
walks the tie blocks, whose relevant items the labels put first (or last); where copies are
kept, or a negative grade would be unjudged, the outcomes are still enumerated."""

from __future__ import annotations

import itertools
import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.inputs.labels import bpref as label_bpref
from polars_rankk.core.inputs.labels import exact as label_exact
from tests.judges.test_label_probability import _enumerated, assert_equal_to_enumeration
from tests.judges.test_label_recursion import _tables

METRICS = ["bpref", "gm_bpref", "recall"]
# Invalid scores dropped: a dropped row's truth item is not listed (under pool="restrict",
# not judged either).
POLICIES = [
    rk.Policy(empty_truth=empty, relevance_threshold=threshold, ties=ties, pool=pool,
              invalid_scores="drop", unjudged=unjudged)
    for empty, threshold, ties, pool, unjudged in itertools.product(
        ["exclude", "zero", "nan"], [1, 2], ["trec_eval", "item_asc", "input_order"],
        ["all", "restrict"], ["keep", "condense"],
    )
]  # fmt: skip


@st.composite
def judged_groups(draw: st.DrawFn, max_items: int = 6) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates with tied and invalid scores, repeated items and empty lists; truth items
    inside and outside the candidates, of grades 1 to 3 (an item's mass spread over up to
    two, the rest grade 0), some of probability 0 (sure non-relevant, yet judged)."""
    candidates, truth = [], []
    for group in range(draw(st.integers(1, 3))):
        for _ in range(draw(st.integers(0, max_items))):
            item = draw(st.integers(0, max_items))
            candidates.append((group, item, draw(st.sampled_from([0.0, 1.0, 2.0, 3.0, math.nan]))))
        for item in draw(st.lists(st.integers(0, max_items + 2), max_size=6, unique=True)):
            grades = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=1, max_size=2,
                                   unique=True))  # fmt: skip
            total = 0.0
            for grade in grades:
                p = min(draw(st.sampled_from([0.0, 0.2, 0.5, 1.0])), 1 - total)
                total += p
                truth.append((group, item, grade, p))
    return _tables(candidates, truth)


def _bpref_methods(result: rk.Evaluation) -> set[str]:
    """The methods `label_methods` names for bpref and GM-bpref."""
    methods = result.label_methods.filter(pl.col("metric").is_in(["bpref", "gm_bpref"]))
    return set(methods["method"])


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=60, deadline=None)
@given(data=judged_groups(), policy=st.sampled_from(POLICIES))
def test_bpref_by_its_walk_equals_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = data
    options = {"k": [2], "metrics": METRICS, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    if expected:
        assert _bpref_methods(result) == {"recursion"}
    assert_equal_to_enumeration(result, expected)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(
    data=judged_groups(),
    policy=st.sampled_from([
        rk.Policy(ties="optimistic", invalid_scores="drop"),
        rk.Policy(ties="pessimistic", invalid_scores="lowest", empty_truth="zero"),
        rk.Policy(ties="optimistic", pool="restrict", relevance_threshold=2, empty_truth="nan",
                  invalid_scores="drop"),
        rk.Policy(ties="pessimistic", unjudged="condense", duplicates="first",
                  invalid_scores="lowest"),
    ]),
)  # fmt: skip
def test_bpref_over_tie_blocks_ordered_by_the_labels_equals_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """A tie order that reads the grades puts a block's relevant items first (or last): the
    walk goes block by block, exact."""
    candidates, truth = data
    options = {"metrics": ["bpref", "gm_bpref"], "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    if expected:
        assert _bpref_methods(result) == {"recursion"}
    assert_equal_to_enumeration(result, expected)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=15, deadline=None)
@given(data=judged_groups())
def test_kept_copies_keep_the_enumeration(data: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """Copies of an item share its label: bpref is enumerated, as before."""
    candidates, truth = data
    options = {"metrics": ["bpref"], "policy": rk.Policy(duplicates="keep", invalid_scores="drop")}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    if expected:
        assert _bpref_methods(result) == {"enumeration"}
    assert_equal_to_enumeration(result, expected)


@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic"])
def test_negative_grades_are_judged_non_relevant_for_bpref(ties: str) -> None:
    """A negative grade is a judged non-relevant item (as grade 0): the walk reads it so;
    under negative_grades="unjudged" the judged items change with the labels (enumerated)."""
    candidates = pl.DataFrame({"q": 0, "item": range(6), "score": [3.0, 2.0, 2.0, 2.0, 1.0, 0.0]})
    truth = pl.DataFrame({"q": 0, "item": [0, 1, 2, 3, 4, 4, 9],
                          "relevance": [1.0, -1.0, 1.0, 2.0, -2.0, 1.0, 1.0],
                          "p": [0.5, 0.6, 0.3, 0.9, 0.4, 0.5, 0.7]})  # fmt: skip
    for negative, method in (("nonrelevant", "recursion"), ("unjudged", "enumeration")):
        options = {"metrics": ["bpref"], "policy": rk.Policy(ties=ties, negative_grades=negative)}
        expected = _enumerated(candidates, truth, **options)
        result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
        assert _bpref_methods(result) == {method}
        assert_equal_to_enumeration(result, expected)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_fourteen_tied_uncertain_items_are_exact(ties: str) -> None:
    """2**14 outcomes in blocks of tied scores, past the enumeration's limit: the walk over
    the blocks equals the enumeration to 1e-12."""
    n = 14
    scores = [float((n + 4 - i) // 3) for i in range(n + 4)]
    candidates = pl.DataFrame({"q": 0, "item": range(n + 4), "score": scores})
    items = [*range(2, n + 2), 30]
    chances = [0.05 + 0.06 * i for i in range(n)] + [0.4]
    truth = pl.DataFrame({"q": 0, "item": items, "relevance": 1.0, "p": chances})
    options = {"metrics": ["bpref"], "policy": rk.Policy(ties=ties)}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert _bpref_methods(result) == {"recursion"}
    assert_equal_to_enumeration(result, expected)


def _bpref(ranked: list[bool | None], relevant: int, nonrelevant: int) -> float:
    """trec_eval's bpref of one list (True relevant, False judged non-relevant, None
    unjudged) with `relevant` and `nonrelevant` judged truth items (m_bpref.c)."""
    if relevant == 0:
        return 0.0
    total, above = 0.0, 0
    for judgement in ranked:
        if judgement is True:
            penalty = min(above, relevant) / min(nonrelevant, relevant) if above else 0.0
            total += 1.0 - penalty
        elif judgement is False:
            above += 1
    return total / relevant


def test_sixteen_uncertain_items_are_exact() -> None:
    """2**16 outcomes (16 times the enumeration's limit), enumerated here by trec_eval's
    definition: bpref by the walk equals their mean and standard deviation to 1e-12."""
    n = 16
    scores = [float(n + 4 - i) for i in range(n + 4)]
    candidates = pl.DataFrame({"q": 0, "item": range(n + 4), "score": scores})
    # Items 2..17 uncertain, 18 and 19 sure non-relevant (probability 0), 30 relevant for
    # sure outside the list, 31 uncertain outside it; 0 and 1 are not judged.
    items = [*range(2, n + 2), 18, 19, 30, 31]
    chances = [0.05 + 0.055 * i for i in range(n)] + [0.0, 0.0, 1.0, 0.4]
    truth = pl.DataFrame({"q": 0, "item": items, "relevance": 1.0, "p": chances})
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p",
                         metrics=["bpref"])  # fmt: skip
    assert _bpref_methods(result) == {"recursion"}
    ranked_items = list(range(n + 4))  # the scores fall with the item
    chance = dict(zip(items, chances, strict=True))
    uncertain = [item for item in items if 0 < chance[item] < 1]
    first = second = 0.0
    for outcome in itertools.product([False, True], repeat=len(uncertain)):
        relevant = {item for item in items if chance[item] == 1.0}
        relevant |= {item for item, hit in zip(uncertain, outcome, strict=True) if hit}
        weight = math.prod(chance[i] if hit else 1 - chance[i]
                           for i, hit in zip(uncertain, outcome, strict=True))  # fmt: skip
        judged = [(i in relevant) if i in chance else None for i in ranked_items]
        value = _bpref(judged, len(relevant), len(items) - len(relevant))
        first += weight * value
        second += weight * value * value
    row = result.per_group.row(0, named=True)
    assert row["value"] == pytest.approx(first, abs=1e-12)
    assert row["std"] == pytest.approx(math.sqrt(second - first * first), abs=1e-12)
    assert row["standard_error"] == 0.0


def test_chunks_of_groups_give_the_same_numbers_and_large_groups_are_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The groups walked one chunk at a time give the same frame bit for bit; a group with
    more states than the walk keeps leaves bpref to the enumeration."""
    candidates = pl.DataFrame({"q": [0, 0, 0, 1, 1, 2, 2, 2], "item": [1, 2, 3, 1, 2, 1, 4, 5],
                               "score": [3.0, 2.0, 2.0, 1.0, 0.5, 1.0, 1.0, 0.0]})  # fmt: skip
    chances = [0.5, 0.25, 0.8, 1.0, 0.3, 0.6, 0.0, 0.9]
    truth = pl.DataFrame({"q": [0, 0, 0, 1, 1, 2, 2, 2], "item": [1, 3, 9, 2, 7, 5, 4, 8],
                          "relevance": 2.0, "p": chances})  # fmt: skip
    options = {"metrics": ["bpref"], "group_by": "q", "label_probability": "p"}
    at_once = rk.evaluate(candidates, truth, **options)
    monkeypatch.setattr(label_bpref, "_STATES_AT_ONCE", 1)
    one_by_one = rk.evaluate(candidates, truth, **options)
    assert_frame_equal(at_once.per_group, one_by_one.per_group, check_exact=True)
    monkeypatch.setattr(label_bpref, "_LARGEST_STATES", 3)
    enumerated = rk.evaluate(candidates, truth, **options)
    assert _bpref_methods(enumerated) == {"enumeration"}
    assert_equal_to_enumeration(enumerated, _enumerated(candidates, truth, metrics=["bpref"]))


@pytest.mark.parametrize("empty_truth", ["exclude", "zero", "nan"])
def test_groups_and_summary_equal_the_enumerations(empty_truth: str) -> None:
    """R_g's expectation (``groups``) and the summary (GM-bpref's geometric mean included)
    read the same numbers by the walk as by the enumeration; lazy inputs give the same."""
    candidates = pl.DataFrame({"q": [0, 0, 0, 1, 1, 2], "item": [1, 2, 3, 1, 2, 1],
                               "score": [3.0, 2.0, 2.0, 1.0, 0.5, 1.0]})  # fmt: skip
    truth = pl.DataFrame({"q": [0, 0, 0, 0, 1, 1, 2], "item": [1, 3, 9, 2, 2, 7, 5],
                          "relevance": 2.0, "p": [0.5, 0.25, 0.8, 0.0, 1.0, 0.3, 0.6]})  # fmt: skip
    options = {"metrics": ["bpref", "gm_bpref"], "group_by": "q", "label_probability": "p",
               "policy": rk.Policy(empty_truth=empty_truth)}  # fmt: skip
    walked = rk.evaluate(candidates, truth, **options)
    assert _bpref_methods(walked) == {"recursion"}
    lazy = rk.evaluate(candidates.lazy(), truth.lazy(), **options).collect()
    assert_frame_equal(lazy.per_group, walked.per_group, check_exact=True)
    original = label_exact.exact_cells
    try:
        label_exact.exact_cells = lambda *arguments: None  # type: ignore[assignment]
        enumerated = rk.evaluate(candidates, truth, **options)
    finally:
        label_exact.exact_cells = original
    assert _bpref_methods(enumerated) == {"enumeration"}
    assert_frame_equal(
        walked.groups, enumerated.groups, check_exact=False, rel_tol=0, abs_tol=1e-12
    )
    assert_frame_equal(
        walked.summary(), enumerated.summary(), check_exact=False, rel_tol=0, abs_tol=1e-12
    )
