"""Lists far longer than K are ranked by a partial selection of their first ranks.

Where the metrics read only the first K ranks (and R, for R-precision), the kernel selects
them, with the rest of the last one's tie block, and sorts only those: a TREC run of 1,000
documents per query read at K=10 sorts a few dozen. The numbers stay exactly those of the
whole list sorted (the same evaluation with a K past every list, read at the small K's) and the
pure path's, on lists full of ties, duplicates, invalid scores and negative grades, under every
tie policy (expected ties read every rank and are not selected).
"""

from __future__ import annotations

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.core.test_native import _policies, both_paths
from tests.support.examples import examples
from tests.support.kernel_path import needs_kernel, path

pytestmark = needs_kernel

#: Few distinct scores: long tie blocks, one of them across the K-th rank.
SCORES = [0.0, 0.25, 0.5, 0.5, 0.5, 1.0, -1.0, float("nan"), None, float("inf")]


@st.composite
def long_lists(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = []
    truth_rows = []
    for group in range(draw(st.integers(1, 4))):
        for _ in range(draw(st.sampled_from([0, 3, 13, 40, 64]))):
            rows.append((group, draw(st.integers(0, 49)), draw(st.sampled_from(SCORES))))
        for item in draw(st.sets(st.integers(0, 55), max_size=12)):
            truth_rows.append((group, item, draw(st.sampled_from([-1, 0, 1, 2, 3]))))
    candidates = pl.DataFrame(
        {
            "user": pl.Series([r[0] for r in rows], dtype=pl.Int64),
            "item": pl.Series([r[1] for r in rows], dtype=pl.Int64),
            "score": pl.Series([r[2] for r in rows], dtype=pl.Float64),
        }
    )
    truth = pl.DataFrame(
        {
            "user": pl.Series([r[0] for r in truth_rows], dtype=pl.Int64),
            "item": pl.Series([r[1] for r in truth_rows], dtype=pl.Int64),
            "relevance": pl.Series([r[2] for r in truth_rows], dtype=pl.Int64),
        }
    )
    return candidates, truth


def _values(
    candidates: pl.DataFrame, truth: pl.DataFrame, ks: list[int], policy: rk.Policy
) -> pl.DataFrame:
    with path(True):
        evaluation = rk.evaluate(candidates, truth, k=ks, group_by="user", policy=policy)
    assert evaluation.diagnostics.path.startswith("native kernel: loaded")
    per_group = evaluation.per_group
    assert isinstance(per_group, pl.DataFrame)
    return per_group.sort("user", "metric", "k", nulls_last=True)


def _accepting() -> st.SearchStrategy[rk.Policy]:
    """Policies that evaluate any of these tables (none refuses a duplicate or a bad score)."""
    return _policies().filter(lambda p: p.duplicates != "error" and p.invalid_scores != "error")


@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=long_lists(), policy=_accepting(), ks=st.sampled_from([[1], [1, 3], [2, 5, 10]]))
def test_a_selection_of_the_first_ranks_gives_the_whole_sort_s_numbers(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, ks: list[int]
) -> None:
    candidates, truth = data
    selected = _values(candidates, truth, ks, policy)
    # K = 1000 ranks every list whole (no list is 4 x 1000 long): the same cells, bit for bit.
    whole = _values(candidates, truth, [*ks, 1000], policy).filter(
        pl.col("k").is_null() | pl.col("k").is_in(ks)
    )
    assert selected.select("user", "metric", "k").equals(whole.select("user", "metric", "k"))
    bits = pl.col("value").fill_nan(None).to_physical()
    assert selected["value"].is_nan().to_list() == whole["value"].is_nan().to_list()
    assert selected.select(bits).equals(whole.select(bits))
    both_paths(candidates, truth, k=ks, group_by="user", policy=policy)
