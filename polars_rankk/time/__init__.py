"""Time-aware evaluation: splits at a cutoff, seen items, sessions, leakage audit, over time."""

from polars_rankk.time.audit_report import AuditReport
from polars_rankk.time.leakage import audit
from polars_rankk.time.over_time import OVER_TIME_COLUMNS, evaluate_over_time
from polars_rankk.time.seen import SeenFiltered, drop_seen
from polars_rankk.time.sessions import sessionize, summarize_by
from polars_rankk.time.splits import (
    rolling_splits,
    split_by_time,
    split_last_fraction,
    split_last_n,
)
from polars_rankk.time.temporal_split import TemporalSplit
from polars_rankk.time.truth import truth_from_log

__all__ = [
    "OVER_TIME_COLUMNS",
    "AuditReport",
    "SeenFiltered",
    "TemporalSplit",
    "audit",
    "drop_seen",
    "evaluate_over_time",
    "rolling_splits",
    "sessionize",
    "split_by_time",
    "split_last_fraction",
    "split_last_n",
    "summarize_by",
    "truth_from_log",
]
