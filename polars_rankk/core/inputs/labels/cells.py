"""Which cells of a label-probability evaluation the recursion over ranks computes: the
metrics, tie orders and cut-offs it serves, and what the truth's possible grades are
(`RelevantGains`), read once per evaluation and handed to the recursion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.graded import affordable, gain_levels
from polars_rankk.core.inputs.labels.laws import largest
from polars_rankk.core.inputs.labels.tie_blocks import BLOCK_METRICS, BLOCK_TIES
from polars_rankk.core.policy import Policy

#: The metrics the recursion computes (each value a sum over the ranks times h(R)).
RECURSIVE_METRICS = frozenset(
    {
        "precision",
        "recall",
        "hit_rate",
        "mrr",
        "average_precision",
        "ndcg",
        "dcg",
        "rbp",
        "r_precision",
        "err",
        "f1",
    }
)
#: Tie orders fixed before the labels are read (the ranking is the same in every outcome).
FIXED_ORDER_TIES = frozenset({"trec_eval", "item_asc", "input_order"})
#: A cut-off past which the recursion's K^2 work is not worth it.
_LARGEST_K = 1000


@dataclass(frozen=True)
class RelevantGains:
    """What the truth's possible grades are, read once per evaluation: whether each group's
    items of positive grade share one grade (nDCG's ideal DCG is then a function of R),
    whether a possible grade lies between 0 and the relevance threshold (it would gain
    without being relevant), and the distinct positive gains of the relevant grades, largest
    first (the graded recursion's levels)."""

    one_grade: bool
    in_between: bool
    levels: np.ndarray

    @property
    def graded_levels(self) -> np.ndarray:
        """The levels the graded recursion walks: none where each group has one grade."""
        return np.empty(0) if self.one_grade else self.levels


def relevant_gains(
    truth: pl.DataFrame, keys: list[str], relevance: str, probability: str, policy: Policy
) -> RelevantGains:
    """The `RelevantGains` of the labels of positive probability in `truth`."""
    grade = pl.col(relevance)
    possible = truth.filter(pl.col(probability) > 0)
    grades = possible.filter(grade > 0).group_by(keys).agg(grade.n_unique().alias("n"))["n"]
    in_between = possible.filter((grade > 0) & (grade < policy.relevance_threshold)).height
    return RelevantGains(
        one_grade=largest(grades) <= 1,
        in_between=in_between > 0,
        levels=gain_levels(possible, relevance, policy),
    )


def recursive_cells(
    cells: Sequence[tuple[str, int | None]],
    policy: Policy,
    truth: pl.DataFrame,
    relevance: str,
    probability: str,
    gains: RelevantGains,
) -> list[tuple[str, int | None]]:
    """The (metric, cut-off) pairs of `cells` the recursion computes under `policy` on these
    probabilistic labels (their `gains`): every one of its metrics that reads only whether
    an item is relevant, and nDCG and DCG where no possible grade lies between 0 and the
    threshold (by the relevant count where each group's relevant items share one gain, else
    by `graded`, nDCG where its states are few enough); none under a policy whose ranking or
    lists depend on the labels, or with negative grades."""
    # Ties ordered by the labels: the ranking within a block of equal scores follows them,
    # which the block recursion reads where every possible positive grade is relevant (the
    # relevant items then come first, or last, whatever their grades); for the gains of nDCG
    # and DCG, where each group's relevant items share one grade.
    by_blocks = policy.ties in BLOCK_TIES and not gains.in_between
    fixed = (
        (policy.ties in FIXED_ORDER_TIES or by_blocks)
        and policy.duplicates != "keep"
        and policy.unjudged == "keep"
        and policy.gains is None
        and policy.relevance_threshold > 0
    )
    possible = truth.filter(pl.col(probability) > 0)
    if not fixed or possible.filter(pl.col(relevance) < 0).height:
        return []
    one_gain = not gains.in_between and gains.one_grade

    def computed(metric: str, k: int | None) -> bool:
        if metric not in (BLOCK_METRICS | {"r_precision"} if by_blocks else RECURSIVE_METRICS):
            return False
        if by_blocks and metric in ("ndcg", "dcg", "err") and not gains.one_grade:
            return False
        # Graded: DCG by its independent terms, nDCG by counts per gain level.
        graded = (
            k is not None
            and not gains.in_between
            and (metric == "dcg" or affordable(k, len(gains.levels)))
        )
        if metric in ("ndcg", "dcg") and not one_gain and not graded:
            return False
        # ERR reads each ranked item's grade: exact when every possible positive grade is
        # relevant (a grade that stops the user is then one that makes R > 0).
        if metric == "err" and gains.in_between:
            return False
        if metric == "rbp" and policy.rbp_grades != "binary":
            return False
        return (k is None and metric == "r_precision") or (k is not None and 0 < k <= _LARGEST_K)

    return [(metric, k) for metric, k in cells if computed(metric, k)]


def possibly_relevant(truth: pl.DataFrame, keys: list[str], relevance: str, probability: str,
                      policy: Policy) -> int:  # fmt: skip
    """The most items one group may find relevant (a relevant grade of positive probability)."""
    relevant = (pl.col(relevance) >= policy.relevance_threshold) & (pl.col(probability) > 0)
    counts = truth.filter(relevant).group_by(keys).agg(pl.col(relevance).len().alias("n"))
    return largest(counts["n"])
