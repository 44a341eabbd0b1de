"""The metrics an evaluation is asked for, split by kind: accuracy (the ranking's sums),
per-group beyond-accuracy and catalogue-level metrics, and the cut-offs the names carry."""

from __future__ import annotations

from polars_rankk.core.evaluation import catalogue as catalogue_level
from polars_rankk.core.evaluation.beyond_accuracy import GROUP_METRICS
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.parse import MetricRequest
from polars_rankk.core.names.request import Request


def _is_beyond(measure: MetricRequest) -> bool:
    return REGISTRY[measure.metric].kind in ("beyond_accuracy", "catalogue")


def split_metrics(request: Request) -> tuple[Request | None, tuple[str, ...], tuple[str, ...]]:
    """The asked metrics as (accuracy, per-group beyond-accuracy, catalogue-level), the last
    two in registry order; None for the accuracy ones means the default metrics.

    Examples
    --------
    >>> from polars_rankk.core.names.request import Request
    >>> from polars_rankk.core.evaluation.asked import split_metrics
    >>> accuracy, group, catalogue = split_metrics(Request.of(["P@5", "novelty", "coverage"]))
    >>> list(accuracy), group, catalogue
    (['P@5'], ('novelty',), ('coverage',))
    """
    if request.default:
        return None, (), ()
    _refuse_subtopic_metrics(request)
    beyond = {m.metric for m in request.measures if _is_beyond(m)}
    accuracy = request.select(lambda m: not _is_beyond(m))
    group = tuple(n for n in GROUP_METRICS if n in beyond)
    catalogue = tuple(n for n in catalogue_level.CATALOGUE_METRICS if n in beyond)
    return accuracy, group, catalogue


def _refuse_subtopic_metrics(request: Request) -> None:
    """Subtopic metrics reach here only on a path that cannot carry a subtopic column
    (`evaluate`, `evaluate_in_partitions`, `evaluate_spark` and `evaluate_dask` take them out
    first): refused in words."""
    asked = [
        asked.name
        for asked in request.asked
        if any(REGISTRY[m.metric].kind == "diversity" for m in asked.measures)
    ]
    if asked:
        raise ValueError(
            f"the subtopic metrics {asked} need a truth's subtopic column, which this path does "
            f"not carry: compute them with rk.evaluate(..., subtopic=...), "
            f"rk.evaluate_in_partitions(..., subtopic=...), evaluate_spark or evaluate_dask "
            f"(..., subtopic=...) or rankk evaluate --subtopic"
        )


def named_cutoffs(request: Request) -> tuple[int, ...]:
    """The cut-offs beyond-accuracy names carry (``novelty@5`` -> 5), to add to K."""
    return request.select(_is_beyond).ks if not request.default else ()
