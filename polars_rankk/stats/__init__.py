"""Statistics over per-group values: distributions, strata, resampling, tests, K-curves."""

from polars_rankk.stats.bounds import UnjudgedBounds, unjudged_bounds
from polars_rankk.stats.catalogue_resampling import catalogue_intervals
from polars_rankk.stats.comparison import compare
from polars_rankk.stats.curves import curve_of_evaluations, k_curve
from polars_rankk.stats.distributions import distribution, histogram
from polars_rankk.stats.paired import COMPARISON_COLUMNS
from polars_rankk.stats.per_group import as_list
from polars_rankk.stats.power import POWER_COLUMNS, comparison_power, groups_needed
from polars_rankk.stats.resampling import bootstrap
from polars_rankk.stats.risk_sensitive import (
    RISK_COLUMNS,
    RISK_DISTRIBUTION_COLUMNS,
    per_group_risk,
    risk,
    risk_distribution,
)
from polars_rankk.stats.significance import benjamini_hochberg, holm, randomization_test
from polars_rankk.stats.strata import (
    activity_buckets,
    buckets,
    new_vs_returning,
    relevant_size_buckets,
)
from polars_rankk.stats.systems import evaluate_systems, for_systems

__all__ = [
    "COMPARISON_COLUMNS",
    "POWER_COLUMNS",
    "RISK_COLUMNS",
    "RISK_DISTRIBUTION_COLUMNS",
    "UnjudgedBounds",
    "activity_buckets",
    "as_list",
    "benjamini_hochberg",
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
    "holm",
    "k_curve",
    "new_vs_returning",
    "per_group_risk",
    "randomization_test",
    "relevant_size_buckets",
    "risk",
    "risk_distribution",
    "unjudged_bounds",
]
