"""Several systems evaluated under one policy against the same truth, and per-system tables
stacked under a ``system`` column.

Systems come as ``{name: candidates or Evaluation}``, as one candidates frame with a column
naming each row's system, or as one evaluation of several systems
(``evaluate(..., system=COLUMN)``), whose per-system slices are used without ranking again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import polars as pl

from polars_rankk.core import EngineType, Evaluation, evaluate, is_table, to_lazy
from polars_rankk.core.evaluation.catalogue import SharedCatalogue, shared_catalogue
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

__all__ = ["SystemInput", "Systems", "evaluate_systems", "for_systems", "lazy_systems"]

#: A system: candidates to evaluate, or an evaluation already made.
SystemInput: TypeAlias = pl.DataFrame | pl.LazyFrame | Evaluation
#: Several systems by name, or one (named ``"system"``, or split by a ``system=`` column).
Systems: TypeAlias = Mapping[str, SystemInput] | SystemInput

_DEFAULT_NAME = "system"


def _split_by_column(frame: FrameLike, column: str) -> dict[str, FrameLike]:
    schema = frame.lazy().collect_schema()
    if column not in schema:
        raise ValueError(
            f"system={column!r} is not a column of the candidates; columns are {schema.names()}"
        )
    names = (
        frame.lazy()
        .select(pl.col(column).unique(maintain_order=True).cast(pl.String))
        .collect()
        .to_series()
    )
    if names.null_count():
        raise ValueError(f"the system column {column!r} has null values")
    return {
        name: frame.filter(pl.col(column).cast(pl.String) == name).drop(column)
        for name in names.to_list()
    }


def _as_mapping(systems: Systems, system: str | None) -> dict[str, SystemInput]:
    if isinstance(systems, Mapping):
        if system is not None:
            raise ValueError("system= splits one candidates frame; pass a frame, not a mapping")
        # Tables of other libraries (pandas, Arrow, Arrow C streams) are read once, here.
        mapping = {
            name: value
            if isinstance(value, (pl.DataFrame, pl.LazyFrame, Evaluation)) or not is_table(value)
            else to_lazy(value, f"systems[{name!r}]")
            for name, value in systems.items()
        }
    elif not isinstance(systems, (pl.DataFrame, pl.LazyFrame, Evaluation)) and is_table(systems):
        return _as_mapping(to_lazy(systems, "systems"), system)
    elif isinstance(systems, (pl.DataFrame, pl.LazyFrame)) and system is not None:
        mapping = dict(_split_by_column(systems, system))
    elif isinstance(systems, Evaluation) and systems.system is not None:
        # Several systems evaluated in one pass: their slices, never ranked again.
        mapping = dict(systems.by_system())
    elif isinstance(systems, (pl.DataFrame, pl.LazyFrame, Evaluation)):
        mapping = {_DEFAULT_NAME: systems}
    else:
        raise TypeError(
            "systems must be a mapping {name: candidates or Evaluation}, a candidates table "
            "(polars, pandas, pyarrow, or any object with __arrow_c_stream__) or an Evaluation; "
            f"got {type(systems).__name__}"
        )
    if not mapping:
        raise ValueError("systems is empty: pass at least one system")
    for name, value in mapping.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"system names must be non-empty strings; got {name!r}")
        if not isinstance(value, (pl.DataFrame, pl.LazyFrame, Evaluation)):
            raise TypeError(
                f"system {name!r} must be a Polars frame of candidates or an Evaluation; "
                f"got {type(value).__name__}"
            )
    return mapping


def evaluate_systems(
    systems: Systems,
    truth: FrameLike | None = None,
    *,
    k: int | Iterable[int] | None = None,
    metrics: str | Iterable[str] | Plan | None = None,
    group_by: str | Sequence[str] | None = None,
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    policy: Policy | None = None,
    system: str | None = None,
    engine: EngineType = "auto",
    popularity: FrameLike | None = None,
    catalogue: FrameLike | None = None,
    item_features: FrameLike | None = None,
    head_share: float = 0.2,
    label_probability: str | None = None,
    label_draws: int = 1000,
    label_seed: int = 0,
) -> dict[str, Evaluation]:
    """Evaluate several systems against the same truth, under one policy.

    Parameters
    ----------
    systems
        ``{name: candidates}`` (frames; `Evaluation` values are kept as they are), one
        candidates frame (named ``"system"``), or one frame split by its `system` column.
    truth
        The judged items, shared by every system (see `polars_rankk.evaluate`).
    k, metrics, group_by, item, score, relevance, policy, engine
        As in `polars_rankk.evaluate`, applied to every system.
    system
        A column of a single candidates frame that names the system of each row: the frame
        is evaluated once, every system in the same pass (``evaluate(..., system=...)``),
        then split (`Evaluation.by_system`, systems in the sorted order of their names).
    popularity, item_features, head_share
        As in `polars_rankk.evaluate`, for the beyond-accuracy metrics of every system.
    catalogue
        The items the catalogue-level metrics (coverage, gini, entropy) are measured
        against, the same for every system. Default: one catalogue shared by every system,
        the items of all their candidates and of `popularity` (as ``rankk compare`` does),
        so that a system exposing more items is not measured against a larger catalogue.
    label_probability, label_draws, label_seed
        As in `polars_rankk.evaluate`: every system's values are expectations over the same
        uncertain labels (each system evaluated on its own, also under `system`);
        ``compare(..., labels=True)`` then counts the label noise of their differences.

    Returns
    -------
    dict[str, Evaluation]
        One evaluation per system, in the order given.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.systems import evaluate_systems
    >>> candidates = pl.DataFrame({"model": ["A", "A", "B", "B"], "user": [1, 1, 1, 1],
    ...                            "item": [1, 2, 1, 2], "score": [0.9, 0.1, 0.1, 0.9]})
    >>> truth = pl.DataFrame({"user": [1], "item": [2]})
    >>> results = evaluate_systems(candidates, truth, k=1, metrics="hit_rate",
    ...                            group_by="user", system="model")
    >>> {name: res.summary()["value"][0] for name, res in results.items()}
    {'A': 0.0, 'B': 1.0}
    """
    plan = Plan.of(metrics, k, policy)  # read once: its warnings said once
    by_catalogue = any(part.beyond_catalogue for part in plan.parts)
    options: dict[str, Any] = {
        "k": k, "metrics": plan, "group_by": group_by, "item": item, "score": score,
        "relevance": relevance, "policy": policy, "engine": engine, "popularity": popularity,
        "item_features": item_features, "head_share": head_share,
        "label_probability": label_probability, "label_draws": label_draws,
        "label_seed": label_seed,
    }  # fmt: skip
    whole = isinstance(systems, (pl.DataFrame, pl.LazyFrame)) and system is not None
    if whole and group_by is None:
        raise ValueError("group_by is required to evaluate the candidates")
    if whole and not by_catalogue and label_probability is None:
        # Every system in one pass (catalogue-level figures are one system's: asked, each
        # system is evaluated on its own below).
        return evaluate(systems, truth, system=system, **options).by_system()  # type: ignore[arg-type]
    mapping = _as_mapping(systems, system)
    if whole:
        mapping = dict(sorted(mapping.items()))  # as by_system orders them
    shared = None
    if by_catalogue and catalogue is None:
        frames = [value for value in mapping.values() if not isinstance(value, Evaluation)]
        catalogue = shared_catalogue(frames, popularity, item)
        shared = SharedCatalogue(len(frames), catalogue)
    evaluations: dict[str, Evaluation] = {}
    for name, value in mapping.items():
        if isinstance(value, Evaluation):
            evaluations[name] = value
            continue
        if group_by is None:
            raise ValueError(f"group_by is required to evaluate the candidates of {name!r}")
        evaluations[name] = evaluate(value, truth, catalogue=catalogue, **options)
        if shared is not None:
            evaluations[name].share_catalogue(shared)  # the rule, said in its diagnostics
    return evaluations


def lazy_systems(systems: Systems, system: str | None) -> dict[str, SystemInput]:
    """Candidates as lazy frames: evaluate then builds plans, and the curve runs only what it
    reads (an eager frame would be evaluated at every K first)."""
    mapping = _as_mapping(systems, system)
    return {
        name: value.lazy() if isinstance(value, pl.DataFrame) else value
        for name, value in mapping.items()
    }


def for_systems(
    evaluations: Mapping[str, Any],
    function: Callable[..., pl.DataFrame | pl.LazyFrame],
    /,
    **options: Any,
) -> pl.DataFrame:
    """Apply a per-evaluation summary to several systems and stack the results.

    Parameters
    ----------
    evaluations
        ``{name: evaluation}`` (e.g. from `evaluate_systems`).
    function
        Called as ``function(evaluation, **options)``: `polars_rankk.distribution`,
        ``histogram``, `polars_rankk.bootstrap` …
    **options
        Passed on to `function`.

    Returns
    -------
    pl.DataFrame
        The results, each with a leading ``system`` column, in the order given.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> truth = pl.DataFrame({"q": [1], "item": [2]})
    >>> runs = {name: rk.evaluate(pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": s}),
    ...                           truth, k=1, metrics="hit_rate", group_by="q")
    ...         for name, s in {"A": [2.0, 1.0], "B": [1.0, 2.0]}.items()}
    >>> rk.for_systems(runs, rk.distribution, quantiles=[0.5]).select("system", "metric", "mean")
    shape: (2, 3)
    ┌────────┬──────────┬──────┐
    │ system ┆ metric   ┆ mean │
    │ ---    ┆ ---      ┆ ---  │
    │ str    ┆ str      ┆ f64  │
    ╞════════╪══════════╪══════╡
    │ A      ┆ hit_rate ┆ 0.0  │
    │ B      ┆ hit_rate ┆ 1.0  │
    └────────┴──────────┴──────┘
    """
    parts = []
    for name, evaluation in evaluations.items():
        result = function(evaluation, **options)
        frame = result.collect() if isinstance(result, pl.LazyFrame) else result
        if "system" in frame.columns:
            raise ValueError(f"the result for {name!r} already has a 'system' column")
        parts.append(frame.select(pl.lit(name, dtype=pl.String).alias("system"), pl.all()))
    if not parts:
        raise ValueError("no evaluations given")
    return pl.concat(parts, how="vertical_relaxed")


def over_labels(evaluations: Mapping[str, Evaluation]) -> bool:
    """Whether the systems' values are expectations over uncertain labels (all of them, or
    none: a ValueError names one of each otherwise)."""
    over = {name: ev.label_methods is not None for name, ev in evaluations.items()}
    if len(set(over.values())) > 1:
        some = next(name for name, found in over.items() if found)
        other = next(name for name, found in over.items() if not found)
        raise ValueError(
            f"systems are compared under the same labels: {some!r} was evaluated over label "
            f"probabilities (label_probability) and {other!r} was not"
        )
    return all(over.values()) and bool(over)
