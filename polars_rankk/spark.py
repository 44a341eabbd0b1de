"""`polars_rankk.spark`: `evaluate` on Spark DataFrames (the documented import path).

The implementation lives in `polars_rankk.engines.spark`.
"""

from polars_rankk.engines.spark import SparkEvaluation, evaluate_spark, summarize_spark

__all__ = ["SparkEvaluation", "evaluate_spark", "summarize_spark"]
