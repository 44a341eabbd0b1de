"""polars-rankk: top-K ranking metrics computed inside Polars, every choice an explicit policy.

>>> import polars as pl, polars_rankk as rk
>>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.3, 0.5]})
>>> truth = pl.DataFrame({"user": [1, 2], "item": [11, 12]})
>>> rk.evaluate(candidates, truth, k=1, metrics="hit_rate", group_by="user").summary()["value"][0]
0.5
"""

from polars_rankk.charts import (
    plot_comparison,
    plot_distribution,
    plot_histogram,
    plot_k_curve,
    plot_over_time,
    plot_precision_recall,
    plot_strata,
    save_chart,
)
from polars_rankk.core import (
    METRIC_DEFINITIONS,
    METRICS,
    Diagnostics,
    Evaluation,
    Policy,
    average_precision_at_k,
    evaluate,
    f1_at_k,
    hit_rate_at_k,
    mrr_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from polars_rankk.engines import BucketedEvaluation, evaluate_in_buckets
from polars_rankk.io import read_trec_qrels, read_trec_run
from polars_rankk.reports import render_report, report
from polars_rankk.stats import (
    activity_buckets,
    bootstrap,
    buckets,
    compare,
    curve_of_evaluations,
    distribution,
    evaluate_systems,
    histogram,
    k_curve,
    new_vs_returning,
    relevant_size_buckets,
)
from polars_rankk.tables import systems_table, to_latex, to_markdown
from polars_rankk.time import (
    AuditReport,
    SeenFiltered,
    TemporalSplit,
    audit,
    drop_seen,
    evaluate_over_time,
    rolling_splits,
    sessionize,
    split_by_time,
    split_last_fraction,
    split_last_n,
    summarize_by,
    truth_from_log,
)

__all__ = [
    "METRICS",
    "METRIC_DEFINITIONS",
    "AuditReport",
    "BucketedEvaluation",
    "Diagnostics",
    "Evaluation",
    "Policy",
    "SeenFiltered",
    "TemporalSplit",
    "activity_buckets",
    "audit",
    "average_precision_at_k",
    "bootstrap",
    "buckets",
    "compare",
    "curve_of_evaluations",
    "distribution",
    "drop_seen",
    "evaluate",
    "evaluate_in_buckets",
    "evaluate_over_time",
    "evaluate_systems",
    "f1_at_k",
    "histogram",
    "hit_rate_at_k",
    "k_curve",
    "mrr_at_k",
    "ndcg_at_k",
    "new_vs_returning",
    "plot_comparison",
    "plot_distribution",
    "plot_histogram",
    "plot_k_curve",
    "plot_over_time",
    "plot_precision_recall",
    "plot_strata",
    "precision_at_k",
    "r_precision",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k",
    "relevant_size_buckets",
    "render_report",
    "report",
    "rolling_splits",
    "save_chart",
    "sessionize",
    "split_by_time",
    "split_last_fraction",
    "split_last_n",
    "summarize_by",
    "systems_table",
    "to_latex",
    "to_markdown",
    "truth_from_log",
]
__version__ = "0.1.0"
