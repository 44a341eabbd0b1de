"""`polars_rankk.dask`: `evaluate` on Dask DataFrames (the documented import path).

The implementation lives in `polars_rankk.engines.dask`.
"""

from polars_rankk.engines.dask import DaskEvaluation, evaluate_dask, summarize_dask

__all__ = ["DaskEvaluation", "evaluate_dask", "summarize_dask"]
