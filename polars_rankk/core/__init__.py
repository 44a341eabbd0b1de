"""The core: policy, metric registry, input checks, ranking, evaluation, expressions.

Everything else in the package (statistics, time, engines, charts, report, CLI) builds on the
names exported here; the core imports none of them.
"""

from polars_rankk.core import namespace as _namespace  # registers the `rankk` namespaces
from polars_rankk.core.aggregate import (
    check_quantiles,
    order_metrics,
    quantile_name,
    summarize_histogram,
    value_histogram,
)
from polars_rankk.core.diagnostics import Diagnostics
from polars_rankk.core.evaluation import EngineType, Evaluation
from polars_rankk.core.expressions import metric_expression
from polars_rankk.core.inputs import (
    EmptyResultWarning,
    IgnoredColumnWarning,
    align_ids,
    check_numeric,
    check_one_row_per_group,
    example_row,
    normalize_k,
    normalize_keys,
    normalize_ks,
    require_columns,
    to_lazy,
)
from polars_rankk.core.labelling import label
from polars_rankk.core.metric_expressions import (
    average_precision_at_k,
    bpref,
    dcg_at_k,
    err_at_k,
    f1_at_k,
    hit_rate_at_k,
    judged_at_k,
    mrr_at_k,
    ndcg_at_k,
    num_relevant,
    num_relevant_retrieved,
    num_retrieved,
    precision_at_k,
    r_precision,
    rbp_at_k,
    rbp_residual_at_k,
    recall_at_k,
    set_f,
    set_precision,
    set_recall,
)
from polars_rankk.core.native import show_versions
from polars_rankk.core.pipeline import evaluate
from polars_rankk.core.policy import POLICY_HELP, Policy
from polars_rankk.core.registration import (
    MetricSums,
    register_metric,
    unregister_metric,
)
from polars_rankk.core.registry import (
    LOWER_IS_BETTER,
    METRIC_DEFINITIONS,
    METRICS,
    MICRO_METRICS,
    REGISTRY,
    Metric,
    higher_is_better,
    metric_rank,
)
from polars_rankk.core.tables_in import is_table
from polars_rankk.core.terms import RankedRows
from polars_rankk.core.types import FrameLike, IntoExprColumn, MetricName
from polars_rankk.core.views import dropped_table, metric_column

__all__ = [
    "LOWER_IS_BETTER",
    "METRICS",
    "METRIC_DEFINITIONS",
    "MICRO_METRICS",
    "POLICY_HELP",
    "REGISTRY",
    "Diagnostics",
    "EmptyResultWarning",
    "EngineType",
    "Evaluation",
    "FrameLike",
    "IgnoredColumnWarning",
    "IntoExprColumn",
    "Metric",
    "MetricName",
    "MetricSums",
    "Policy",
    "RankedRows",
    "align_ids",
    "average_precision_at_k",
    "bpref",
    "check_numeric",
    "check_one_row_per_group",
    "check_quantiles",
    "dcg_at_k",
    "dropped_table",
    "err_at_k",
    "evaluate",
    "example_row",
    "f1_at_k",
    "higher_is_better",
    "hit_rate_at_k",
    "is_table",
    "judged_at_k",
    "label",
    "metric_column",
    "metric_expression",
    "metric_rank",
    "mrr_at_k",
    "ndcg_at_k",
    "normalize_k",
    "normalize_keys",
    "normalize_ks",
    "num_relevant",
    "num_relevant_retrieved",
    "num_retrieved",
    "order_metrics",
    "precision_at_k",
    "quantile_name",
    "r_precision",
    "rbp_at_k",
    "rbp_residual_at_k",
    "recall_at_k",
    "register_metric",
    "require_columns",
    "set_f",
    "set_precision",
    "set_recall",
    "show_versions",
    "summarize_histogram",
    "to_lazy",
    "unregister_metric",
    "value_histogram",
]
del _namespace
