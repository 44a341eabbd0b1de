"""polars-rankk: top-K ranking metrics computed inside Polars, every choice an explicit policy.

>>> import polars as pl, polars_rankk as rk
>>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.3, 0.5]})
>>> truth = pl.DataFrame({"user": [1, 2], "item": [11, 12]})
>>> rk.evaluate(candidates, truth, k=1, metrics="hit_rate", group_by="user").summary()["value"][0]
0.5
"""

from polars_rankk.charts import (
    enable_offline_charts,
    plot_comparison,
    plot_distribution,
    plot_histogram,
    plot_k_curve,
    plot_over_time,
    plot_precision_recall,
    plot_risk,
    plot_strata,
    save_chart,
)
from polars_rankk.core import (
    METRIC_DEFINITIONS,
    METRICS,
    Diagnostics,
    EmptyResultWarning,
    Evaluation,
    IgnoredColumnWarning,
    MetricSums,
    Policy,
    RankedRows,
    evaluate,
    label,
    metric_expression,
    metrics_expression,
    register_metric,
    show_versions,
    unregister_metric,
)

# The metric expression functions (generated from the registry, with their export list).
from polars_rankk.core import metric_expressions as _metric_expressions
from polars_rankk.core.metric_expressions import *  # noqa: F403
from polars_rankk.core.version import package_version as _package_version
from polars_rankk.engines import BucketedEvaluation, evaluate_in_buckets
from polars_rankk.io import read_trec_qrels, read_trec_run
from polars_rankk.reports import render_report, report
from polars_rankk.stats import (
    UnjudgedBounds,
    activity_buckets,
    bootstrap,
    buckets,
    catalogue_intervals,
    compare,
    comparison_power,
    curve_of_evaluations,
    distribution,
    evaluate_systems,
    for_systems,
    groups_needed,
    histogram,
    k_curve,
    new_vs_returning,
    relevant_size_buckets,
    risk,
    risk_distribution,
    unjudged_bounds,
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
    "EmptyResultWarning",
    "Evaluation",
    "IgnoredColumnWarning",
    "MetricSums",
    "Policy",
    "RankedRows",
    "SeenFiltered",
    "TemporalSplit",
    "UnjudgedBounds",
    "activity_buckets",
    "audit",
    "bootstrap",
    "buckets",
    "catalogue_intervals",
    "compare",
    "comparison_power",
    "curve_of_evaluations",
    "distribution",
    "drop_seen",
    "enable_offline_charts",
    "evaluate",
    "evaluate_in_buckets",
    "evaluate_over_time",
    "evaluate_systems",
    "for_systems",
    "groups_needed",
    "histogram",
    "k_curve",
    "label",
    "metric_expression",
    "metrics_expression",
    "new_vs_returning",
    "plot_comparison",
    "plot_distribution",
    "plot_histogram",
    "plot_k_curve",
    "plot_over_time",
    "plot_precision_recall",
    "plot_risk",
    "plot_strata",
    "read_trec_qrels",
    "read_trec_run",
    "register_metric",
    "relevant_size_buckets",
    "render_report",
    "report",
    "risk",
    "risk_distribution",
    "rolling_splits",
    "save_chart",
    "sessionize",
    "show_versions",
    "split_by_time",
    "split_last_fraction",
    "split_last_n",
    "summarize_by",
    "systems_table",
    "to_latex",
    "to_markdown",
    "truth_from_log",
    "unjudged_bounds",
    "unregister_metric",
]
# The generated metric expression functions, with their own export list.
__all__ += _metric_expressions.__all__

__version__ = _package_version()
