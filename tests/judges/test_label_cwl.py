"""evaluate(..., label_probability=...) for the C/W/L measures: along a fixed order, where each
group's relevant items share one gain, SDCG, INSQ and BPM (and the NERR measures where that
gain is 1) are computed over the atoms of their laws, INST's and the NERR measures' total gain
and depth by a walk over the count of relevant items, each equal to an enumeration of every
label outcome to 1e-12 — with 2**16 outcomes too — and the others are named as enumerated."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.inputs.labels.cwl import CASCADE, CWL_EXACT
from tests.judges.test_label_probability import _enumerated, assert_equal_to_enumeration
from tests.judges.test_label_recursion import binary_groups

CWL = sorted(CWL_EXACT)
POLICIES = [
    rk.Policy(),
    rk.Policy(empty_truth="zero", cwl_target=2),
    rk.Policy(ties="item_asc", empty_truth="nan", cwl_target=0.5, rbp_persistence=0.5),
    rk.Policy(ties="input_order", duplicates="first", cwl_max_grade=2, pool="restrict"),
    rk.Policy(short_lists="observed", cwl_target=3, relevance_threshold=2),
    rk.Policy(unjudged="condense", invalid_scores="drop"),
]


def _exact_cells_equal_the_enumeration(
    candidates: pl.DataFrame, truth: pl.DataFrame, options: dict[str, object]
) -> pl.DataFrame:
    """Every cell equal to the enumeration; the `label_methods` rows."""
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)
    return result.label_methods


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from(POLICIES))
def test_cwl_measures_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """Ties, repeated items, short and empty lists, empty truth, items outside the list."""
    candidates, truth = data
    options = {"k": [1, 3, 5], "metrics": CWL, "policy": policy}
    methods = _exact_cells_equal_the_enumeration(candidates, truth, options)
    if methods.height:
        # Grades 2 and 3 gain 1 under cwl_max_grade <= 2: the NERR measures by the first
        # relevant rank too; under a larger one they are enumerated.
        grades = truth.filter(pl.col("p") > 0)["relevance"]
        ends = bool((grades >= policy.cwl_max_grade).all())
        by_atoms = set(methods.filter(pl.col("method") == "recursion")["metric"])
        assert by_atoms == (set(CWL) if ends or grades.is_empty() else set(CWL) - CASCADE)


def test_sixteen_uncertain_items_are_exact() -> None:
    """2**16 outcomes (16 times the enumeration's limit), with ties and unjudged items."""
    n = 16
    scores = [float((n + 2 - i) // 2) for i in range(n + 2)]
    candidates = pl.DataFrame({"q": 0, "item": range(n + 2), "score": scores})
    truth = pl.DataFrame({"q": 0, "item": range(2, n + 2), "relevance": 1.0,
                          "p": [0.05 + 0.055 * i for i in range(n)]})  # fmt: skip
    for policy in (rk.Policy(cwl_target=2.5), rk.Policy(empty_truth="zero")):
        options = {"k": [3, 10, 18], "metrics": CWL, "policy": policy}
        methods = _exact_cells_equal_the_enumeration(candidates, truth, options)
        assert set(methods["method"]) == {"recursion"}


def test_graded_gains_and_inst_are_enumerated_and_named() -> None:
    """A relevant grade gaining less than 1 (NERR), several relevant grades in a group, and
    INST (its rate of gain is a ratio of two sums over the path): not by the atoms, and
    `label_methods` says how each was computed."""
    candidates = pl.DataFrame({"q": 0, "item": range(5), "score": [5.0, 4.0, 4.0, 2.0, 1.0]})
    truth = pl.DataFrame({"q": 0, "item": [0, 2, 3], "relevance": [1.0, 1.0, 1.0],
                          "p": [0.5, 0.25, 0.8]})  # fmt: skip
    options = {"k": [2, 4], "metrics": ["inst", "inst_depth", "nerr8", "nerr8_total_gain", "bpm"],
               "policy": rk.Policy(cwl_max_grade=2)}  # fmt: skip
    methods = _exact_cells_equal_the_enumeration(candidates, truth, options)
    named = dict(zip(methods["metric"], methods["method"], strict=False))
    assert named == {"inst": "enumeration", "nerr8": "enumeration", "bpm": "recursion",
                     "inst_depth": "recursion", "nerr8_total_gain": "recursion"}  # fmt: skip
    graded = truth.with_columns(relevance=pl.Series([1.0, 2.0, 1.0]))
    methods = _exact_cells_equal_the_enumeration(candidates, graded, options)
    assert set(methods["method"]) == {"enumeration"}
