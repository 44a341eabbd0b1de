"""evaluate(..., label_probability=...) with copies of an item kept (``duplicates="keep"``): the
copies share their item's label, so the metrics that add up over items (precision, DCG, RBP,
SDCG, INSQ) sum each item's copies' weights and those that read the first relevant rank (hit
rate, RR) read each item's first copy: equal to the enumeration to 1e-12, 2**16 outcomes too;
the metrics that read the relevant count as they go keep the enumeration."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.inputs.labels.copies import KEPT_COPIES
from tests.judges.test_label_probability import _enumerated, assert_equal_to_enumeration
from tests.judges.test_label_recursion import binary_groups

KEPT = sorted(KEPT_COPIES)
POLICIES = [
    rk.Policy(duplicates="keep"),
    rk.Policy(duplicates="keep", ties="item_asc", empty_truth="zero", gain="exponential"),
    rk.Policy(
        duplicates="keep",
        ties="input_order",
        empty_truth="nan",
        pool="restrict",
        short_lists="observed",
        rbp_persistence=0.5,
    ),
    rk.Policy(duplicates="keep", cwl_max_grade=3, cwl_target=2, relevance_threshold=2),
]


def _methods(candidates: pl.DataFrame, truth: pl.DataFrame, options: dict) -> dict[str, str]:
    """Each metric's method, the cells equal to the enumeration."""
    expected = _enumerated(candidates, truth, **options)
    result = rk.evaluate(candidates, truth, group_by="q", label_probability="p", **options)
    assert_equal_to_enumeration(result, expected)
    methods = result.label_methods
    return dict(zip(methods["metric"], methods["method"], strict=False)) if methods.height else {}


@pytest.mark.filterwarnings("ignore::polars_rankk.EmptyResultWarning")
@settings(max_examples=40, deadline=None)
@given(data=binary_groups(), policy=st.sampled_from(POLICIES))
def test_kept_copies_equal_the_enumeration(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """Repeated items, ties, short and empty lists, empty truth, items outside the list."""
    candidates, truth = data
    named = _methods(candidates, truth, {"k": [1, 3, 5], "metrics": [*KEPT, "recall", "ndcg"],
                                         "policy": policy})  # fmt: skip
    for metric, method in named.items():
        assert method == ("recursion" if metric in KEPT_COPIES else "enumeration"), metric


def test_sixteen_uncertain_items_with_copies_are_exact() -> None:
    """2**16 outcomes, each uncertain item listed twice (its copies far apart)."""
    n = 16
    listed = [*range(n), *range(n)]
    candidates = pl.DataFrame({"q": 0, "item": listed, "score": [float(2 * n - i) for i in
                                                                 range(2 * n)]})  # fmt: skip
    truth = pl.DataFrame({"q": 0, "item": range(n), "relevance": 1.0,
                          "p": [0.05 + 0.055 * i for i in range(n)]})  # fmt: skip
    options = {"k": [3, 20], "metrics": KEPT, "policy": rk.Policy(duplicates="keep")}
    assert set(_methods(candidates, truth, options).values()) == {"recursion"}


def test_several_relevant_grades_leave_dcg_to_the_other_methods() -> None:
    """DCG with copies reads one gain per group: with two relevant grades it is enumerated,
    precision and RR stay exact."""
    candidates = pl.DataFrame({"q": 0, "item": [1, 2, 1, 3, 2], "score": [5.0, 4.0, 3.0, 3.0, 1.0]})
    truth = pl.DataFrame({"q": 0, "item": [1, 2, 3], "relevance": [1.0, 2.0, 1.0],
                          "p": [0.5, 0.3, 0.8]})  # fmt: skip
    options = {"k": [2, 4], "metrics": ["dcg", "precision", "mrr"],
               "policy": rk.Policy(duplicates="keep")}  # fmt: skip
    named = _methods(candidates, truth, options)
    assert named == {"dcg": "enumeration", "precision": "recursion", "mrr": "recursion"}
