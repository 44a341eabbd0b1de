"""Measures that are points of one family, each with one expression function taking the point.

trec_eval computes interpolated precision at eleven recall levels (``iprec_at_recall_0.50``)
and precision at ten multiples of R (``Rprec_mult_0.40``): each level is a metric of the
registry, and one function per family takes the level as its parameter
(``rk.iprec_at_recall(recall=0.5)``, ``rk.r_precision_times(multiple=0.4)``). The previous
release's function per level (``rk.iprec_at_recall_0_50``) still works, with a
DeprecationWarning naming the call that replaces it (`polars_rankk.core.expressions.deprecated`).
"""

from __future__ import annotations

import math
import re

from polars_rankk.core.metrics.registry import REGISTRY

__all__ = [
    "DEPRECATED_POINTS",
    "FAMILY_PARAMETERS",
    "family_of",
    "family_point",
    "family_points",
]

#: Each family: its parameter's name and what it means (the generated docstrings say it).
FAMILY_PARAMETERS: dict[str, tuple[str, str]] = {
    "iprec_at_recall": ("recall", "Recall level: one of trec_eval's 0.0, 0.1, ..., 1.0."),
    "r_precision_times": (
        "multiple",
        "Multiple of R the precision is cut at: one of trec_eval's (Rprec_mult) 0.2, 0.4, "
        "..., 2.0.",
    ),
}
_POINT = re.compile(r"^(?P<family>.+)_(?P<units>\d)_(?P<hundredths>\d\d)$")


def family_of(name: str) -> str | None:
    """The family a registry metric is a point of (``iprec_at_recall_0_50`` ->
    ``iprec_at_recall``), or None.

    Examples
    --------
    >>> from polars_rankk.core.expressions.points import family_of
    >>> family_of("iprec_at_recall_0_50"), family_of("precision")
    ('iprec_at_recall', None)
    """
    match = _POINT.match(name)
    return match["family"] if match and match["family"] in FAMILY_PARAMETERS else None


def family_points(family: str) -> dict[float, str]:
    """The family's points computed here: value -> metric name, in registry order.

    Examples
    --------
    >>> from polars_rankk.core.expressions.points import family_points
    >>> list(family_points("r_precision_times"))[:3]
    [0.2, 0.4, 0.6]
    """
    found = {}
    for name in REGISTRY:
        match = _POINT.match(name)
        if match and match["family"] == family:
            found[int(match["units"]) + int(match["hundredths"]) / 100] = name
    return found


def family_point(family: str, parameter: str, value: float) -> str:
    """The metric of `family` at `value` of its `parameter`; a ValueError names the values
    computed, a TypeError a value that is no number.

    Examples
    --------
    >>> from polars_rankk.core.expressions.points import family_point
    >>> family_point("iprec_at_recall", "recall", 0.5)
    'iprec_at_recall_0_50'
    >>> family_point("iprec_at_recall", "recall", 0.55)
    Traceback (most recent call last):
    ...
    ValueError: iprec_at_recall: recall=0.55 is not computed here; choose one of 0.0, 0.1, \
0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{family}: {parameter} must be a number; got {value!r}")
    table = family_points(family)
    found = next((name for point, name in table.items() if math.isclose(point, value)), None)
    if found is None:
        listed = ", ".join(f"{point:g}" if point % 1 else f"{point:.1f}" for point in table)
        raise ValueError(
            f"{family}: {parameter}={value!r} is not computed here; choose one of {listed}"
        )
    return found


#: The previous release's function per point: its name -> (family, parameter, value).
DEPRECATED_POINTS: dict[str, tuple[str, str, float]] = {
    name: (family, FAMILY_PARAMETERS[family][0], point)
    for family in FAMILY_PARAMETERS
    for point, name in family_points(family).items()
}
