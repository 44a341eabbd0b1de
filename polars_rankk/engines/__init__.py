"""Engines beyond one in-memory pass: out-of-core buckets, Spark and Dask.

Each splits the candidates by group, runs `polars_rankk.evaluate` on every part with the same
`Policy`, and merges exact summaries. Spark and Dask share the driver's checks and the
per-partition evaluation (`partition`) and the exact reduction of histograms (`reduction`);
`spark_plan` and `dask_plan` hold each engine's own plumbing. `spark` and `dask` import their
engine lazily; `polars_rankk.spark` and `polars_rankk.dask` are the documented paths.
"""

from polars_rankk.engines.buckets import BucketedEvaluation, evaluate_in_buckets
from polars_rankk.engines.staging import ResumedRunWarning

__all__ = ["BucketedEvaluation", "ResumedRunWarning", "evaluate_in_buckets"]
