"""Measures without a cut-off under label probabilities, equal to the enumeration of every
outcome, including groups past the enumeration's limit: the whole list's (trec_eval's map,
recip_rank and binG, ir_measures' AP, RR and nDCG), whose value is the value at any cut-off
past the list and past the group's relevant count, so the recursion reads them there; GM-AP's
(AP's per group); and hits at a multiple of R (trec_eval's Rprec_mult), read as R-precision
is."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.judges.test_label_probability import _enumerated, assert_equal_to_enumeration
from tests.judges.test_label_recursion import (
    POLICIES,
    _recursion_equals_enumeration,
    binary_groups,
    tied_uncertain_items,
)

# ir_measures' whole-list AP, RR, nDCG and trec_eval's binG (each relevant row's
# 1 / log2(2 + the rows above it not relevant), over R: the c-th relevant item at rank j has
# j - c such rows above; a tie block's relevant items, its first or last x places, as many).
WHOLE = ["nDCG", "AP", "RR", "binG"]
BLOCKS = [rk.Policy(ties="optimistic"), rk.Policy(ties="pessimistic", empty_truth="zero")]


def _whole_cells_by_recursion(
    candidates: pl.DataFrame, truth: pl.DataFrame, options: dict[str, object]
) -> None:
    result = _recursion_equals_enumeration(candidates, truth, options)
    if result.label_methods.height:
        assert result.label_methods.filter(pl.col("k").is_null()).height == len(WHOLE)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@pytest.mark.filterwarnings("ignore::polars_rankk.core.names.conventions.ToolNameWarning")
@settings(max_examples=40, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from([*POLICIES, *BLOCKS]))
def test_whole_list_measures_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """Ties, repeated items, short and empty lists, empty truth, relevant items the list
    misses (R past the list's length), beside the same measures at a cut-off."""
    candidates, truth = data
    options = {"k": [2], "metrics": [*WHOLE, "ap@2", "ndcg@2"], "policy": policy}
    _whole_cells_by_recursion(candidates, truth, options)


@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic"])
def test_fourteen_uncertain_items_are_exact(ties: str) -> None:
    """2**14 outcomes (four times the enumeration's limit): tied scores, two unjudged items and
    two relevant items never listed."""
    n = 14
    scores = [float((n - i) // 2) for i in range(n)]
    candidates = pl.DataFrame({"q": 0, "item": range(n), "score": scores})
    truth = pl.DataFrame({"q": 0, "item": range(2, n + 2), "relevance": 1.0,
                          "p": [0.05 + 0.065 * i for i in range(n)]})  # fmt: skip
    options = {"metrics": WHOLE, "policy": rk.Policy(ties=ties)}  # type: ignore[arg-type]
    _whole_cells_by_recursion(candidates, truth, options)


def test_trec_eval_names_read_by_the_recursion() -> None:
    """map and recip_rank, trec_eval's whole-list names, by the recursion."""
    candidates = pl.DataFrame({"q": 0, "item": range(6), "score": [6.0, 5, 5, 3, 2, 1]})
    truth = pl.DataFrame({"q": 0, "item": [1, 2, 4, 9], "relevance": 1,
                          "p": [0.3, 0.9, 0.5, 0.7]})  # fmt: skip
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p",
                         metrics=["map", "recip_rank"], policy=rk.Policy.trec_eval())  # fmt: skip
    assert result.label_methods.select("metric", "k", "method").rows() == [
        ("average_precision", None, "recursion"),
        ("mrr", None, "recursion"),
    ]
    expected = _enumerated(candidates, truth, metrics=["map", "recip_rank"],
                           policy=rk.Policy.trec_eval())  # fmt: skip
    assert_equal_to_enumeration(result, expected)


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@pytest.mark.filterwarnings("ignore::polars_rankk.core.names.conventions.ToolNameWarning")
@settings(max_examples=25, deadline=None)
@given(
    data=binary_groups(),
    policy=st.sampled_from([*POLICIES[:3], *BLOCKS]),
    metrics=st.sampled_from(
        [["gm_map"], ["map", "gm_map"], ["gm_map@3"], ["ap@3", "gm_map@3", "judged@3"]]
    ),
)
def test_gm_ap_is_ap_per_group(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, metrics: list[str]
) -> None:
    """GM-AP's value per group is AP's (only its summary, a geometric mean, differs): by the
    recursion, alone or beside AP, at a cut-off or over the whole list."""
    candidates, truth = data
    options = {"metrics": metrics, "policy": policy}
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    if expected:
        ap = result.label_methods.filter(pl.col("metric").str.contains("average_precision"))
        assert set(ap["method"]) == {"recursion"}
        assert "gm_average_precision" in set(ap["metric"])
    assert_equal_to_enumeration(result, expected)


MULTIPLES = ["r_precision", "r_precision_times_0_20", "r_precision_times_1_40",
             "r_precision_times_2_00"]  # fmt: skip


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@pytest.mark.filterwarnings("ignore::polars_rankk.core.names.conventions.ToolNameWarning")
@settings(max_examples=30, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from([*POLICIES, *BLOCKS]))
def test_hits_at_multiples_of_r_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """Precision at (long) (m R + 0.9) along a fixed order and over tie blocks the labels
    order, below R and past it (past the list's end too), beside R-precision."""
    candidates, truth = data
    _recursion_equals_enumeration(candidates, truth, {"metrics": MULTIPLES, "policy": policy})


@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic"])
def test_multiples_of_r_past_the_enumeration_limit_are_exact(ties: str) -> None:
    """2**14 outcomes: twelve uncertain items listed, two never listed, tied scores."""
    candidates, truth = tied_uncertain_items(tie=3, grade=1.0)
    policy = rk.Policy.trec_eval().replace(ties=ties)
    result = _recursion_equals_enumeration(
        candidates, truth, {"metrics": MULTIPLES, "policy": policy}
    )
    assert set(result.label_methods["method"]) == {"recursion"}
