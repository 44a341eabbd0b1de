"""The metric names an evaluation is asked for, split by kind: accuracy (the ranking's sums),
per-group beyond-accuracy and catalogue-level metrics, and the cut-offs the names carry."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from polars_rankk.core.evaluation import catalogue as catalogue_level
from polars_rankk.core.evaluation.beyond_accuracy import GROUP_METRICS
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.parse import parse_metric_name


def split_metrics(
    metrics: str | Iterable[str] | None,
) -> tuple[list[str] | None, tuple[str, ...], tuple[str, ...]]:
    """The asked metric names as (accuracy, per-group beyond-accuracy, catalogue-level), the
    last two in registry order; unknown names stay with the accuracy ones, to be reported."""
    if metrics is None:
        return None, (), ()
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    _refuse_subtopic_metrics(names)
    accuracy, beyond = [], set()
    for name in names:
        metric = _beyond_name(name)
        if metric is None:
            accuracy.append(name)
        else:
            beyond.add(metric)
    group = tuple(n for n in GROUP_METRICS if n in beyond)
    catalogue = tuple(n for n in catalogue_level.CATALOGUE_METRICS if n in beyond)
    return accuracy, group, catalogue


def _refuse_subtopic_metrics(names: Sequence[str]) -> None:
    """Subtopic metrics reach here only on a path that cannot carry a subtopic column
    (`evaluate`, `evaluate_in_partitions`, `evaluate_spark` and `evaluate_dask` take them out
    first): refused in words."""
    asked = []
    for name in names:
        try:
            metric = parse_metric_name(name).metric
        except ValueError:
            continue
        if REGISTRY[metric].kind == "diversity":
            asked.append(name)
    if asked:
        raise ValueError(
            f"the subtopic metrics {asked} need a truth's subtopic column, which this path does "
            f"not carry: compute them with rk.evaluate(..., subtopic=...), "
            f"rk.evaluate_in_partitions(..., subtopic=...), evaluate_spark or evaluate_dask "
            f"(..., subtopic=...) or rankk evaluate --subtopic"
        )


def _beyond_name(name: str) -> str | None:
    """The canonical beyond-accuracy metric `name` spells, or None (accuracy or unknown)."""
    try:
        request = parse_metric_name(name)
    except ValueError:
        return None
    if REGISTRY[request.metric].kind not in ("beyond_accuracy", "catalogue"):
        return None
    return request.metric


def named_cutoffs(metrics: str | Iterable[str] | None) -> tuple[int, ...]:
    """The cut-offs beyond-accuracy names carry (``novelty@5`` -> 5), to add to K."""
    if metrics is None:
        return ()
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    ks = set()
    for name in names:
        if _beyond_name(name) is not None:
            k = parse_metric_name(name).k
            if k is not None:
                ks.add(k)
    return tuple(sorted(ks))
