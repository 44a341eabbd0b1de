"""Column names of the prepared ranking, shared by preparation, metrics and aggregation.

The ``_rk_`` prefix keeps internal columns apart from user columns; the public per-group columns
(``n_candidates``, ``n_relevant``) are part of every evaluation's output.
"""

from __future__ import annotations

# Internal column names; the `_rk_` prefix keeps them apart from user columns.
SCORE = "_rk_score"
GRADE = "_rk_grade"
GAIN = "_rk_gain"
RELEVANT = "_rk_is_relevant"
RANK = "_rk_rank"
ROW = "_rk_row"
N_PADDING = "_rk_padding"
HITS = "_rk_hits"
DCG = "_rk_dcg"
IDEAL_DCG = "_rk_ideal_dcg"
PRECISION_SUM = "_rk_precision_sum"
RECIPROCAL_RANK = "_rk_reciprocal_rank"
FIRST_HIT = "_rk_first_hit"
#: Per-row contributions before they are cumulated in rank order.
TERMS = {
    HITS: "_rk_term_hits",
    DCG: "_rk_term_dcg",
    PRECISION_SUM: "_rk_term_precision",
    RECIPROCAL_RANK: "_rk_term_reciprocal",
    FIRST_HIT: "_rk_term_first",
}
CUMULATED = (HITS, DCG, PRECISION_SUM, RECIPROCAL_RANK, FIRST_HIT)

# Public per-group columns.
N_CANDIDATES = "n_candidates"
N_RELEVANT = "n_relevant"
HAS_CANDIDATES = "has_candidates"
HITS_AT_R = "hits_at_r"


def stat_column(stat: str, k: int) -> str:
    """Name of the per-group column holding cumulated `stat` at cut-off `k`."""
    return f"{stat}@{k}"
