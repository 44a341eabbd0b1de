"""Engines beyond one in-memory pass: out-of-core buckets, Spark and Dask.

Each splits the candidates by group, runs `polars_rankk.evaluate` on every part with the same
`Policy` (the partition logic is shared, in `partition`), and merges exact summaries.
`spark` and `dask` import their engine lazily; `polars_rankk.spark` and `polars_rankk.dask`
are the documented paths.
"""

from polars_rankk.engines.buckets import BucketedEvaluation, evaluate_in_buckets

__all__ = ["BucketedEvaluation", "evaluate_in_buckets"]
