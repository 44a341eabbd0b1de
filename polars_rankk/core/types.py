"""Literal aliases for every policy value, shared by the API, the CLI and the docs."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import polars as pl

#: The Polars engine a collected evaluation runs on.
EngineType = Literal["auto", "in-memory", "streaming"]
ShortListPolicy = Literal["fixed", "observed", "skip"]
AveragePrecisionDenominator = Literal["relevant", "min_k_relevant"]
DuplicatePolicy = Literal["first", "error", "keep"]
TiePolicy = Literal["trec_eval", "item_asc", "input_order", "pessimistic", "optimistic", "expected"]
EmptyTruthPolicy = Literal["exclude", "zero", "nan"]
MissingGroupPolicy = Literal["zero", "exclude", "error"]
PoolPolicy = Literal["all", "restrict"]
GainPolicy = Literal["linear", "exponential", "binary"]
InvalidScorePolicy = Literal["error", "drop", "lowest"]
UnjudgedPolicy = Literal["keep", "condense"]
NegativeGradePolicy = Literal["nonrelevant", "unjudged"]
RbpGradePolicy = Literal["binary", "graded"]
NonrelevantGainPolicy = Literal["grade", "zero"]
FractionalGradePolicy = Literal["keep", "truncate"]
#: How a document's score is made of its passages' scores (`polars_rankk.to_documents`).
PassageAggregate = Literal["max", "first", "mean", "sum", "kmax_avg"]
#: How a document's grade is made of its passages' grades (`polars_rankk.truth_to_documents`).
PassageGradeAggregate = Literal["max", "min", "mean"]
GainMap: TypeAlias = tuple[tuple[float, float], ...]
"""Grade -> gain pairs, sorted by grade (`Policy.gains`)."""
Average = Literal["macro", "micro", "weighted"]

MetricName: TypeAlias = str
"""A canonical metric name: a key of `polars_rankk.core.metrics.registry.REGISTRY`."""

FrameLike: TypeAlias = pl.DataFrame | pl.LazyFrame
IntoExprColumn: TypeAlias = str | pl.Expr | pl.Series


def untyped(value: object) -> Any:
    """`value` typed as Any: for an optional library whose functions are untyped when it is
    installed and unknown when it is not, one spelling that type-checks either way."""
    return value
