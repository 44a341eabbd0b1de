"""polars-rankk: top-K ranking metrics computed inside Polars, every choice an explicit policy.

>>> import polars as pl, polars_rankk as rk
>>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.3, 0.5]})
>>> truth = pl.DataFrame({"user": [1, 2], "item": [11, 12]})
>>> rk.evaluate(candidates, truth, k=1, metrics="hit_rate", group_by="user").summary()["value"][0]
0.5
"""

import importlib as _importlib
import typing as _typing

from polars_rankk.core import (
    METRIC_DEFINITIONS,
    METRICS,
    Diagnostics,
    EmptyResultWarning,
    Evaluation,
    IgnoredColumnWarning,
    MetricSums,
    PassageIdWarning,
    Policy,
    RankedRows,
    evaluate,
    label,
    metric_expression,
    metrics_expression,
    register_metric,
    relstring,
    show_versions,
    unregister_metric,
)

# The metric expression functions (generated from the registry, with their export list).
from polars_rankk.core.expressions import generated as _metric_expressions
from polars_rankk.core.expressions.generated import *  # noqa: F403
from polars_rankk.core.expressions.points import DEPRECATED_POINTS as _DEPRECATED_POINTS
from polars_rankk.core.version import package_version as _package_version

#: The public names of the other parts, by module, imported on first use: ``import
#: polars_rankk`` (and the ``rankk`` command's start-up) loads the core only, not the
#: statistics (NumPy), charts, reports or engines until one of their names is read.
_LAZY: dict[str, tuple[str, ...]] = {
    "polars_rankk.charts": (
        "enable_offline_charts",
        "plot_comparison",
        "plot_counterfactual",
        "plot_counterfactual_sensitivity",
        "plot_distribution",
        "plot_histogram",
        "plot_judge_correction",
        "plot_k_curve",
        "plot_over_time",
        "plot_precision_recall",
        "plot_risk",
        "plot_strata",
        "save_chart",
    ),
    "polars_rankk.counterfactual": (
        "CounterfactualDiagnostics",
        "CounterfactualResult",
        "CounterfactualWarning",
        "SensitivityResult",
        "counterfactual_sensitivity",
        "evaluate_counterfactual",
        "marginals_from_samples",
        "plackett_luce_marginals",
        "plackett_luce_samples",
    ),
    "polars_rankk.engines": (
        "BucketedEvaluation",
        "PartitionedEvaluation",
        "evaluate_in_buckets",
        "evaluate_in_partitions",
    ),
    "polars_rankk.io": (
        "read_beir_qrels",
        "read_trec_qrels",
        "read_trec_run",
    ),
    "polars_rankk.judges": (
        "JudgeCorrectionWarning",
        "judge_agreement",
        "judge_correction",
        "judge_cross_correction",
        "judge_labelling_plan",
    ),
    "polars_rankk.passages": (
        "ChunkDiagnostics",
        "DepthTieWarning",
        "DocumentRule",
        "chunk_diagnostics",
        "to_documents",
        "truth_to_documents",
    ),
    "polars_rankk.reports": (
        "render_report",
        "report",
    ),
    "polars_rankk.stats": (
        "UnjudgedBounds",
        "activity_buckets",
        "bootstrap",
        "buckets",
        "catalogue_intervals",
        "compare",
        "comparison_power",
        "curve_of_evaluations",
        "distribution",
        "evaluate_systems",
        "for_systems",
        "groups_needed",
        "histogram",
        "k_curve",
        "new_vs_returning",
        "relevant_size_buckets",
        "risk",
        "risk_distribution",
        "unjudged_bounds",
    ),
    "polars_rankk.tables": (
        "systems_table",
        "to_latex",
        "to_markdown",
    ),
    "polars_rankk.time": (
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
    ),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}
# The previous release's expression function per point (rk.iprec_at_recall_0_50), deprecated.
_MODULE_OF |= dict.fromkeys(_DEPRECATED_POINTS, "polars_rankk.core.expressions.deprecated")

if _typing.TYPE_CHECKING:  # the same names for type checkers (tests/test_lazy_imports.py)
    from polars_rankk.charts import (
        enable_offline_charts,
        plot_comparison,
        plot_counterfactual,
        plot_counterfactual_sensitivity,
        plot_distribution,
        plot_histogram,
        plot_judge_correction,
        plot_k_curve,
        plot_over_time,
        plot_precision_recall,
        plot_risk,
        plot_strata,
        save_chart,
    )
    from polars_rankk.counterfactual import (
        CounterfactualDiagnostics,
        CounterfactualResult,
        CounterfactualWarning,
        SensitivityResult,
        counterfactual_sensitivity,
        evaluate_counterfactual,
        marginals_from_samples,
        plackett_luce_marginals,
        plackett_luce_samples,
    )
    from polars_rankk.engines import (
        BucketedEvaluation,
        PartitionedEvaluation,
        evaluate_in_buckets,
        evaluate_in_partitions,
    )
    from polars_rankk.io import (
        read_beir_qrels,
        read_trec_qrels,
        read_trec_run,
    )
    from polars_rankk.judges import (
        JudgeCorrectionWarning,
        judge_agreement,
        judge_correction,
        judge_cross_correction,
        judge_labelling_plan,
    )
    from polars_rankk.passages import (
        ChunkDiagnostics,
        DepthTieWarning,
        DocumentRule,
        chunk_diagnostics,
        to_documents,
        truth_to_documents,
    )
    from polars_rankk.reports import (
        render_report,
        report,
    )
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
    from polars_rankk.tables import (
        systems_table,
        to_latex,
        to_markdown,
    )
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
    "ChunkDiagnostics",
    "CounterfactualDiagnostics",
    "CounterfactualResult",
    "CounterfactualWarning",
    "DepthTieWarning",
    "Diagnostics",
    "DocumentRule",
    "EmptyResultWarning",
    "Evaluation",
    "IgnoredColumnWarning",
    "JudgeCorrectionWarning",
    "MetricSums",
    "PartitionedEvaluation",
    "PassageIdWarning",
    "Policy",
    "RankedRows",
    "SeenFiltered",
    "SensitivityResult",
    "TemporalSplit",
    "UnjudgedBounds",
    "activity_buckets",
    "audit",
    "bootstrap",
    "buckets",
    "catalogue_intervals",
    "chunk_diagnostics",
    "compare",
    "comparison_power",
    "counterfactual_sensitivity",
    "curve_of_evaluations",
    "distribution",
    "drop_seen",
    "enable_offline_charts",
    "evaluate",
    "evaluate_counterfactual",
    "evaluate_in_buckets",
    "evaluate_in_partitions",
    "evaluate_over_time",
    "evaluate_systems",
    "for_systems",
    "groups_needed",
    "histogram",
    "judge_agreement",
    "judge_correction",
    "judge_cross_correction",
    "judge_labelling_plan",
    "k_curve",
    "label",
    "marginals_from_samples",
    "metric_expression",
    "metrics_expression",
    "new_vs_returning",
    "plackett_luce_marginals",
    "plackett_luce_samples",
    "plot_comparison",
    "plot_counterfactual",
    "plot_counterfactual_sensitivity",
    "plot_distribution",
    "plot_histogram",
    "plot_judge_correction",
    "plot_k_curve",
    "plot_over_time",
    "plot_precision_recall",
    "plot_risk",
    "plot_strata",
    "read_beir_qrels",
    "read_trec_qrels",
    "read_trec_run",
    "register_metric",
    "relevant_size_buckets",
    "relstring",
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
    "to_documents",
    "to_latex",
    "to_markdown",
    "truth_from_log",
    "truth_to_documents",
    "unjudged_bounds",
    "unregister_metric",
]
# The generated metric expression functions, with their own export list.
__all__ += _metric_expressions.__all__

__version__ = _package_version()


if not _typing.TYPE_CHECKING:  # type checkers read the imports above instead

    def __getattr__(name: str) -> _typing.Any:
        """A public name of a part other than the core, imported on first use."""
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module 'polars_rankk' has no attribute {name!r}")
        value = getattr(_importlib.import_module(module), name)
        if name not in _DEPRECATED_POINTS:  # a deprecated name stays out of the namespace
            globals()[name] = value  # later reads find it without this hook
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
