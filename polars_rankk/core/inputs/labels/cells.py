"""Which cells of a label-probability evaluation the recursion over ranks computes: the
metrics, tie orders and cut-offs it serves, and what the truth's possible grades are
(`RelevantGains`), read once per evaluation and handed to the recursion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.copies import KEPT_COPIES
from polars_rankk.core.inputs.labels.cwl import CASCADE, CWL_EXACT
from polars_rankk.core.inputs.labels.graded import affordable, gain_levels
from polars_rankk.core.inputs.labels.graded_blocks import affordable as block_affordable
from polars_rankk.core.inputs.labels.graded_blocks import by_grade_counts
from polars_rankk.core.inputs.labels.laws import largest
from polars_rankk.core.inputs.labels.tie_blocks import BLOCK_METRICS, BLOCK_TIES
from polars_rankk.core.metrics.families.trec_eval import RPREC_MULTIPLE_OF
from polars_rankk.core.policy import Policy

#: The metrics the recursion computes (each value a sum over the ranks times h(R)).
RECURSIVE_METRICS = frozenset(
    {
        "precision",
        "recall",
        "hit_rate",
        "hit_rank",
        "mrr",
        "average_precision",
        "ndcg",
        "dcg",
        "rbp",
        "r_precision",
        "err",
        "f1",
        "q_measure",
        "relative_precision",
        "binary_g",
    }
)
#: Tie orders fixed before the labels are read (the ranking is the same in every outcome).
FIXED_ORDER_TIES = frozenset({"trec_eval", "item_asc", "input_order"})
#: A cut-off past which the recursion's K^2 work is not worth it.
_LARGEST_K = 1000
#: Q-measure's: its walk's work is K^2 times the values R may take.
_Q_LARGEST_K = 100


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
    #: The distinct positive grades, highest first, and the most items of a positive grade
    #: one group may hold: what the tie blocks of several grades read (`graded_blocks`).
    grades: np.ndarray
    most_possible: int
    #: Whether nDCG and DCG read the gains as the recursion does: no `gains` map, or one that
    #: gives grade 0 and below no gain, no grade a negative one, every relevant grade a
    #: positive one and, where the labels order tie blocks by grade, higher grades no smaller
    #: gains.
    gains_read: bool
    #: The distinct positive gains of the possible grades between 0 and the threshold (they
    #: gain, and may stop the user, without being relevant), largest first.
    below: np.ndarray

    @property
    def graded_levels(self) -> np.ndarray:
        """The levels the graded recursion walks, largest first: none where each group has
        one relevant grade and no grade lies below the threshold."""
        if self.one_grade and not self.in_between:
            return np.empty(0)
        levels: np.ndarray = np.sort(np.concatenate([self.levels, self.below]))[::-1]
        return levels

    @property
    def one_positive(self) -> bool:
        """Whether each group's positive grades are one relevant grade."""
        return self.one_grade and not self.in_between

    @property
    def relevant_levels(self) -> np.ndarray:
        """Which of `graded_levels` are relevant grades' gains."""
        return np.isin(self.graded_levels, self.levels)

    @property
    def below_apart(self) -> bool:
        """Whether no gain is both a relevant grade's and one below the threshold: each
        level then says whether its item is relevant."""
        return not np.isin(self.below, self.levels).any()


def relevant_gains(
    truth: pl.DataFrame,
    keys: list[str],
    item: str,
    relevance: str,
    probability: str,
    policy: Policy,
) -> RelevantGains:
    """The `RelevantGains` of the labels of positive probability in `truth`."""
    grade = pl.col(relevance)
    possible = truth.filter(pl.col(probability) > 0)
    positive = possible.filter(grade > 0)
    # One positive grade in the whole truth is one in each group: no grouping needed.
    one_grade = (
        positive.get_column(relevance).n_unique() <= 1
        or largest(positive.group_by(keys).agg(grade.n_unique().alias("n"))["n"]) <= 1
    )
    in_between = bool(positive.filter(grade < policy.relevance_threshold).height)
    # Only the tie blocks read each positive grade and how many items a block may hold, and
    # only a grade below the threshold has gains below it: not computed where not read.
    blocks = policy.ties in BLOCK_TIES
    most = positive.group_by(keys).agg(pl.col(item).n_unique())[item] if blocks else None
    distinct = positive[relevance].unique().sort(descending=True) if blocks else pl.Series([])
    return RelevantGains(
        one_grade=one_grade,
        in_between=in_between,
        levels=gain_levels(possible, relevance, policy),
        grades=distinct.to_numpy().astype(np.float64),
        most_possible=largest(most) if most is not None else 0,
        gains_read=_gains_read(possible[relevance], policy),
        below=gain_levels(possible, relevance, policy, below=True) if in_between else np.empty(0),
    )


def _gains_read(grades: pl.Series, policy: Policy) -> bool:
    """`RelevantGains.gains_read` of the possible `grades`."""
    if policy.gains is None:
        return True
    from polars_rankk.core.metrics.order import gain_of

    distinct = pl.concat([grades.cast(pl.Float64), pl.Series([0.0])]).unique().sort()
    read = pl.DataFrame({"grade": distinct}).with_columns(gain=gain_of(pl.col("grade"), policy))
    relevant = pl.col("grade") >= policy.relevance_threshold
    zero, below = read.filter(pl.col("grade") <= 0)["gain"], read.filter(~relevant)["gain"]
    above = read.filter(relevant)["gain"]
    # Over tie blocks listed by grade, nDCG's ideal list reads the grades' gains in that order.
    ordered = policy.ties not in BLOCK_TIES or read.filter(pl.col("grade") > 0)["gain"].is_sorted()
    return bool((zero == 0).all() and (below >= 0).all() and (above > 0).all() and ordered)


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
    an item is relevant, and nDCG, DCG and ERR where no possible grade lies between 0 and the
    threshold (by the relevant count where each group's relevant items share one gain, else
    by `graded` or, over tie blocks ordered by the grades, `graded_blocks`, where their states
    are few enough, and a `gains` map they read as the recursion does); the C/W/L measures
    `cwl` computes; where copies of an item are kept (they share its label) only those
    `copies` computes; none where an unjudged negative grade would leave a list condensed to
    its judged items."""
    # Ties ordered by the labels: the ranking within a block of equal scores follows them,
    # which the block recursion reads (the relevant items come first, or last, whatever their
    # grades); nDCG, DCG and ERR of several grades by the blocks' counts per grade
    # (`graded_blocks`).
    by_blocks = policy.ties in BLOCK_TIES
    # Every truth item is judged in every outcome (what its grades leave is grade 0), so a
    # list condensed to its judged items (unjudged="condense") is the same in every outcome.
    fixed = (policy.ties in FIXED_ORDER_TIES or by_blocks) and policy.relevance_threshold > 0
    # Kept copies share their item's label: the sums of independent items' terms and the
    # first relevant rank (`copies`), along a fixed order.
    copies = policy.duplicates == "keep"
    if copies and by_blocks:
        return []
    # A negative grade is a judged non-relevant item (or an unjudged one: either way it adds
    # nothing, as grade 0), unless it leaves a list condensed to its judged items.
    possible = truth.filter(pl.col(probability) > 0)
    unjudged = policy.unjudged == "condense" and policy.negative_grades == "unjudged"
    if not fixed or (unjudged and possible.filter(pl.col(relevance) < 0).height):
        return []
    one_gain = gains.one_positive
    # The C/W/L measures along a fixed order where each relevant item gains one gain (`cwl`):
    # the NERR measures where it ends the cascade (g = 1), BPM with a target to reach.
    ends = any(metric in CASCADE for metric, _ in cells) and bool(
        (possible.filter(pl.col(relevance) >= policy.relevance_threshold)[relevance]
         >= policy.cwl_max_grade).all()
    )  # fmt: skip
    by_cwl = CWL_EXACT - (frozenset() if ends else CASCADE)
    # BPM's user stops where the gain reaches T > 0; INST's C(i) is a chance where T >= 1/4.
    by_cwl -= frozenset(m for m in by_cwl if "bpm" in m and policy.cwl_target <= 0)
    by_cwl -= frozenset(m for m in by_cwl if "inst" in m and policy.cwl_target < 0.25)

    def computed(metric: str, k: int | None) -> bool:
        if copies and (metric not in KEPT_COPIES or (metric == "dcg" and not one_gain)):
            return False  # DCG with copies: each group's relevant items of one gain
        if metric in CWL_EXACT:
            # Past cwl_eval's depth of 1000 ranks the evaluation refuses the cell.
            fixed_gain = not by_blocks and one_gain
            return fixed_gain and metric in by_cwl and k is not None and 0 < k <= _LARGEST_K
        if metric in RPREC_MULTIPLE_OF:  # hits at a multiple of R, as R-precision's
            return k is None
        over_blocks = BLOCK_METRICS | {"r_precision", "q_measure"}  # Q: `graded_blocks`' walk
        if metric not in (over_blocks if by_blocks else RECURSIVE_METRICS):
            return False
        # A grade between 0 and the threshold gains (and may stop the user) without being
        # relevant: nDCG, DCG and ERR read it, by the laws given that no item is relevant,
        # along a fixed order (over tie blocks it takes places among the others); the other
        # metrics do not read it, wherever it ranks (a block lists it below the relevant
        # items, or above them under "pessimistic").
        reads_below = metric in ("ndcg", "dcg", "err") and gains.in_between
        if reads_below and not by_blocks and not gains.below_apart:
            return False
        if metric in ("ndcg", "dcg") and not gains.gains_read:
            return False
        if by_blocks and by_grade_counts(metric, gains.one_positive, policy):
            # Several grades in a group: by the blocks' counts per grade (`graded_blocks`).
            counted = (len(gains.grades), gains.most_possible, policy.ties)
            if k is None or not block_affordable(metric, k, *counted):
                return False
        elif metric in ("ndcg", "dcg") and not one_gain:
            # Graded: DCG by its independent terms, nDCG by counts per gain level.
            if k is None or (metric == "ndcg" and not affordable(k, len(gains.graded_levels))):
                return False
        elif metric == "rbp" and policy.rbp_grades != "binary":
            return False
        elif metric == "q_measure" and (copies or not one_gain):
            return False  # cg and the ideal's cg* are the grade times counts: one grade
        elif metric == "q_measure" and (k is None or k > _Q_LARGEST_K):
            return False  # its walk carries K x (K + the items past K) numbers per group
        return (k is None and metric == "r_precision") or (k is not None and 0 < k <= _LARGEST_K)

    return [(metric, k) for metric, k in cells if computed(metric, k)]
