"""The systems a report is about, evaluated once for its tables and curves: one plan for every
system under one policy, at the tables' K and every K the curves need."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from polars_rankk.core import Evaluation, is_table, to_lazy
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.rank_sums import covers_every_k
from polars_rankk.stats.systems import Systems, evaluate_systems, lazy_systems

__all__ = ["DEFAULT_REPORT_K", "default_report_k", "evaluate_for_report"]


def evaluate_for_report(
    systems: Systems,
    truth: FrameLike | None,
    *,
    k: int | Iterable[int] | None,
    k_max: int | None,
    system: str | None,
    baseline: str | None,
    options: dict[str, Any],
) -> tuple[dict[str, Evaluation], list[int], int | None]:
    """The systems evaluated for a report: the evaluations, the tables' K, and the K the
    curves run to when the evaluations are cumulated sums over every K (else None)."""
    from polars_rankk.core import normalize_ks
    from polars_rankk.core.names.plan import Plan

    if k is None:
        k = default_report_k(systems)
    try:  # any integer scalars, numpy's included
        ks = list(normalize_ks(k))
    except (TypeError, ValueError):
        raise ValueError(f"k must be positive integers; got {k!r}") from None
    top = max(ks) if k_max is None else k_max
    if top < max(ks):
        raise ValueError(f"k_max={k_max} is below the largest k ({max(ks)})")
    # Plans only (any table read once, here): each view then reads what it needs.
    if isinstance(systems, Mapping):
        systems = {n: _planned(v, f"systems[{n!r}]") for n, v in systems.items()}
    else:
        systems = _planned(systems, "systems")
    truth = None if truth is None else to_lazy(truth, "truth")
    # One lazy plan per system: each is ranked once, for its curves and tables together.
    systems = lazy_systems(systems, system)
    # One plan for every system, under one policy: names asking for several are refused in
    # words (the tables and curves compare systems measure by measure).
    plan = Plan.of(options["metrics"], None, options["policy"])
    plan.one_policy  # noqa: B018 (refuses in words)
    rest = {name: value for name, value in options.items() if name not in ("metrics", "policy")}
    # The tables' K and the largest: the curves come from sums over ranks at every K up to
    # it; only a policy that needs per-group values at every K evaluates them all. Every
    # metric is read at every K of the report.
    # Expectations over label outcomes have no sums over ranks: evaluated at every K at once.
    over_labels = rest.get("label_probability") is not None
    chosen = range(1, top + 1) if over_labels else sorted({*ks, top})
    evaluations = evaluate_systems(systems, truth, metrics=plan.at(chosen, every_k=True), **rest)
    every_k = all(covers_every_k(ev) for ev in evaluations.values())
    if not every_k and not over_labels:
        every = plan.at(range(1, top + 1), every_k=True)
        evaluations = evaluate_systems(systems, truth, metrics=every, **rest)
    if not evaluations:
        raise ValueError("no systems to report on")
    if baseline is not None and baseline not in evaluations:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {list(evaluations)}")
    return evaluations, ks, top if every_k else None


#: The report's K when neither `k` nor an evaluation says.
DEFAULT_REPORT_K = (1, 5, 10, 20)


def default_report_k(systems: Systems) -> list[int]:
    """The K of a report called without `k`: those every given evaluation has, else
    `DEFAULT_REPORT_K`.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.reports.evaluated import default_report_k
    >>> cand = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.5, 0.4]})
    >>> res = rk.evaluate(cand, pl.DataFrame({"q": [1], "item": [2]}), k=[5, 10], group_by="q")
    >>> default_report_k(res), default_report_k({"run": cand})
    ([5, 10], [1, 5, 10, 20])
    """
    values = list(systems.values()) if isinstance(systems, Mapping) else [systems]
    given = [value for value in values if isinstance(value, Evaluation)]
    if not given:
        return list(DEFAULT_REPORT_K)
    shared = sorted(set.intersection(*(set(ev.ks) for ev in given)))
    if not shared:
        raise ValueError(
            f"the evaluations share no K ({[sorted(ev.ks) for ev in given]}); pass k=..."
        )
    return shared


def _planned(value: Any, name: str) -> Any:
    """A table as a lazy plan (an evaluation as it is)."""
    return value if isinstance(value, Evaluation) or not is_table(value) else to_lazy(value, name)
