"""Column names of the prepared ranking, shared by preparation, metrics and aggregation.

The ``_rk_`` prefix keeps internal columns apart from user columns; the public per-group columns
(``n_candidates``, ``n_relevant``) are part of every evaluation's output.
"""

from __future__ import annotations

#: The prefix of every internal column; user columns may not start with it.
INTERNAL_PREFIX = "_rk_"

# Internal column names; the `_rk_` prefix keeps them apart from user columns.
SCORE = "_rk_score"
GRADE = "_rk_grade"
GAIN = "_rk_gain"
RELEVANT = "_rk_is_relevant"
RANK = "_rk_rank"
ROW = "_rk_row"
N_PADDING = "_rk_padding"
# Cumulated per-rank terms (their definitions: `polars_rankk.core.metrics.terms`).
HITS = "_rk_hits"
DCG = "_rk_dcg"
IDEAL_DCG = "_rk_ideal_dcg"
PRECISION_SUM = "_rk_precision_sum"
RECIPROCAL_RANK = "_rk_reciprocal_rank"
FIRST_HIT = "_rk_first_hit"
JUDGED = "_rk_judged"
ERR = "_rk_err"
RBP = "_rk_rbp"
RBP_JUDGED = "_rk_rbp_judged"
BPREF = "_rk_bpref"
#: Relevant rows over the whole retrieved list (trec_eval num_rel_ret, set_P, set_recall).
RELEVANT_RETRIEVED = "_rk_relevant_retrieved"
#: Judged rows over the whole retrieved list (trec_eval num_nonrel_judged_ret).
JUDGED_RETRIEVED = "_rk_judged_retrieved"
#: Inferred AP's sum over the retrieved relevant rows (trec_eval infAP, m_infap.c).
INFAP = "_rk_infap"
#: binG's sum over the retrieved relevant rows (trec_eval binG, m_binG.c).
BINARY_G = "_rk_binary_g"
#: Per-row flag: the candidate has a judgement (any grade) in the truth.
IS_JUDGED = "_rk_is_judged"
#: A ranked row whose item the truth holds with a negative grade under
#: ``negative_grades="unjudged"``: in the pool, not judged (trec_eval's RELVALUE_UNJUDGED).
IS_POOLED_UNJUDGED = "_rk_is_pooled_unjudged"
#: Per-group count of judged non-relevant truth items (bpref's N).
N_NONRELEVANT = "_rk_n_nonrelevant"
# Public per-group columns.
N_CANDIDATES = "n_candidates"
N_RELEVANT = "n_relevant"
#: Beside ``value`` in an evaluation over label probabilities: the value's standard deviation
#: over the label outcomes, and the standard error of a Monte Carlo mean (0 when exact).
LABEL_STD = "std"
LABEL_STANDARD_ERROR = "standard_error"
HAS_CANDIDATES = "has_candidates"
HITS_AT_R = "hits_at_r"


#: The cut-off that stands for the whole ranked list (a name without a cut-off, such as
#: trec_eval's ``map``): past the end of any list, so a running sum read there is its total.
WHOLE_LIST = 2**62


def stat_column(stat: str, k: int) -> str:
    """Name of the per-group column holding cumulated `stat` at cut-off `k`."""
    return f"{stat}@all" if k == WHOLE_LIST else f"{stat}@{k}"


#: The kernel's event rows (`Evaluation.ranking_events`): each row's group number (its sums
#: row's place among them), and the ideal DCG at the row's rank.
EVENT_GROUP = "_rk_group"
EVENT_IDEAL = "_rk_ideal"
