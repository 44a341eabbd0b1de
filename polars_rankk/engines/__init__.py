"""Engines beyond one in-memory pass: out-of-core partitions, Spark and Dask.

Each splits the candidates by group, runs `polars_rankk.evaluate` on every part with the same
`Policy`, and merges exact summaries. Spark and Dask share the driver's checks (`driver`), the
per-partition evaluation (`partition`) and the exact reduction of histograms (`reduction`);
`spark_plan` and `dask_plan` hold each engine's own plumbing. `spark` and `dask` import their
engine lazily; `polars_rankk.spark` and `polars_rankk.dask` are the documented paths.
`out_of_core` evaluates larger-than-memory inputs in hash partitions of groups on disk.
"""

import typing as _typing
import warnings as _warnings

from polars_rankk.engines.out_of_core import (
    PartitionedEvaluation,
    evaluate_in_buckets,
    evaluate_in_partitions,
)
from polars_rankk.engines.staging import ResumedRunWarning

__all__ = [
    "BucketedEvaluation",
    "PartitionedEvaluation",
    "ResumedRunWarning",
    "evaluate_in_buckets",
    "evaluate_in_partitions",
]

if _typing.TYPE_CHECKING:
    #: Deprecated: `PartitionedEvaluation`.
    BucketedEvaluation = PartitionedEvaluation
else:

    def __getattr__(name: str) -> _typing.Any:
        """``BucketedEvaluation``, the previous release's name, with a DeprecationWarning."""
        if name == "BucketedEvaluation":
            _warnings.warn(
                "BucketedEvaluation is deprecated: use PartitionedEvaluation",
                DeprecationWarning,
                stacklevel=2,
            )
            return PartitionedEvaluation
        raise AttributeError(f"module 'polars_rankk.engines' has no attribute {name!r}")
