"""The ranks the label recursion reads: one depth (`layout.ranks_read`) for the places the
evaluation's own ranking pass lists, the ranked list the recursion reads and the ranks it lays
out, so the recursion never ranks a second time."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk
from tests.judges.test_label_copies import _methods
from tests.support.kernel_path import needs_kernel


@needs_kernel  # (the pure path's places are ranked again: only the kernel's pass lists them)
def test_the_recursion_reads_the_places_of_the_evaluations_own_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ranks the recursion reads (`layout.ranks_read`) are those the evaluation's pass
    lists places to: R-precision with items that may only gain below the threshold reads the
    places of that pass, never a second ranking."""
    from polars_rankk.core.evaluation.readouts import EvaluationTables

    def second_ranking(*arguments: object) -> None:
        raise AssertionError("a second ranking")

    monkeypatch.setattr(EvaluationTables, "item_ranks", second_ranking)
    candidates = pl.DataFrame({"q": [0] * 6 + [1] * 3, "item": [*range(6), 0, 1, 2],
                               "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})  # fmt: skip
    # Items 0..4 of group 0 may gain only below the threshold; 5 may be relevant.
    truth = pl.DataFrame({"q": [0] * 6 + [1], "item": [*range(6), 2],
                          "relevance": [1.0] * 5 + [2.0, 2.0], "p": [0.5] * 7})  # fmt: skip
    options = {"k": [1], "metrics": ["r_precision", "precision", "ndcg"],
               "policy": rk.Policy(relevance_threshold=2)}  # fmt: skip
    names = _methods(candidates, truth, options)
    assert set(names.values()) == {"recursion"}
