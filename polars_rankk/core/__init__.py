"""The core: policy, metric registry, input checks, ranking, evaluation, expressions.

Everything else in the package (statistics, time, engines, charts, report, CLI) builds on the
names exported here; the core imports none of them.
"""

# The metric expression functions: one per registry entry, generated with their export list.
from polars_rankk.core.evaluation.aggregate import (
    check_quantiles,
    order_metrics,
    quantile_name,
    summarize_histogram,
    value_histogram,
)
from polars_rankk.core.evaluation.diagnostics import Diagnostics
from polars_rankk.core.evaluation.evaluation import Evaluation
from polars_rankk.core.evaluation.pipeline import evaluate
from polars_rankk.core.evaluation.views import dropped_table, metric_column
from polars_rankk.core.expressions import generated as _metric_expressions
from polars_rankk.core.expressions import (
    namespace as _namespace,  # registers the `rankk` namespaces
)
from polars_rankk.core.expressions.deprecated import metric_expression
from polars_rankk.core.expressions.expressions import metrics_expression
from polars_rankk.core.expressions.generated import *  # noqa: F403
from polars_rankk.core.expressions.labelled import label
from polars_rankk.core.expressions.text import relstring
from polars_rankk.core.inputs.frames import is_table
from polars_rankk.core.inputs.passage_guard import PassageIdWarning
from polars_rankk.core.inputs.spec import (
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
from polars_rankk.core.kernel.loader import show_versions
from polars_rankk.core.metrics.registration import (
    MetricSums,
    register_metric,
    unregister_metric,
)
from polars_rankk.core.metrics.registry import (
    LOWER_IS_BETTER,
    METRIC_DEFINITIONS,
    METRICS,
    MICRO_METRICS,
    REGISTRY,
    Metric,
    higher_is_better,
)
from polars_rankk.core.metrics.terms import RankedRows
from polars_rankk.core.names.listing import metric_rank
from polars_rankk.core.policy import POLICY_HELP, Policy
from polars_rankk.core.types import EngineType, FrameLike, IntoExprColumn, MetricName

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
    "PassageIdWarning",
    "Policy",
    "RankedRows",
    "align_ids",
    "check_numeric",
    "check_one_row_per_group",
    "check_quantiles",
    "dropped_table",
    "evaluate",
    "example_row",
    "higher_is_better",
    "is_table",
    "label",
    "metric_column",
    "metric_expression",
    "metric_rank",
    "metrics_expression",
    "normalize_k",
    "normalize_keys",
    "normalize_ks",
    "order_metrics",
    "quantile_name",
    "register_metric",
    "relstring",
    "require_columns",
    "show_versions",
    "summarize_histogram",
    "to_lazy",
    "unregister_metric",
    "value_histogram",
]
# The generated metric expression functions, with their own export list.
__all__ += _metric_expressions.__all__

del _namespace
