"""How far a conclusion survives a wrong click model: the examination (or logging propensity)
misspecification at which the best of several new policies changes.

The estimates lean on the click model's numbers: the examination probabilities under the
position-based model (measured, or estimated by EM), the logging propensities under the
others. A sweep raises them to a power eta (eta = 1: as given; the severity parameter of
Joachims et al., WSDM 2017, who model examination as (1/k)^eta), re-estimates every policy at
each eta, and reports where the winner at eta = 1 stops winning: "the winner flips at
eta = 0.94" says a 6% flatter examination curve than assumed would change the decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_rankk.counterfactual.evaluation import evaluate_counterfactual
from polars_rankk.counterfactual.examination import examination_table

#: A new policy to compare: its candidates, or its candidates and options of its own.
Policy = pl.DataFrame | pl.LazyFrame | tuple[pl.DataFrame | pl.LazyFrame, Mapping[str, Any]]
#: The default sweep: eta from 0.5 to 1.5 in steps of 0.05.
ETAS = tuple(round(0.5 + 0.05 * step, 2) for step in range(21))


@dataclass(frozen=True)
class SensitivityResult:
    """The sweep: ``table`` (one row per eta and policy: ``reward_at_k`` with its
    interval, and whether the policy is the ``best`` at that eta), the ``winner`` at eta = 1
    and ``flips`` (the eta on each side of 1 nearest to it at which another policy overtakes
    the winner, interpolated between the grid's points; no row where none does)."""

    table: pl.DataFrame
    winner: str
    flips: pl.DataFrame
    estimator: str
    misspecified: str

    def summary(self) -> pl.DataFrame:
        """The flips: ``side`` (below or above 1), ``eta``, ``winner`` and ``overtaken_by``."""
        return self.flips


def counterfactual_sensitivity(
    log: pl.DataFrame | pl.LazyFrame,
    policies: Mapping[str, Policy],
    *,
    etas: Sequence[float] = ETAS,
    estimator: str = "snips",
    **options: Any,
) -> SensitivityResult:
    """Re-estimate several new policies with the click model's numbers raised to a power eta,
    and find where the best of them changes.

    Under ``click_model="pbm"`` the examination probabilities are raised to eta (those given
    by ``examination=``, or EM's, estimated once); under ``"item_position"`` and ``"cascade"``
    the logging propensities are.

    Parameters
    ----------
    log
        The click log (as for `evaluate_counterfactual`).
    policies
        ``{name: candidates}``: each new policy in any form `evaluate_counterfactual` reads;
        ``{name: (candidates, {option: value})}`` for options of that policy alone (e.g.
        ``{"probability": "probability"}`` for marginals beside rankings).
    etas
        The powers to sweep (1 is added if missing: the estimate as specified).
    estimator
        The estimator compared.
    **options
        Passed to `evaluate_counterfactual` (``group_by``, ``k``, ``click_model``, ...).

    Returns
    -------
    SensitivityResult

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> shown = pl.DataFrame({"session": range(10), "item": ["a", "b"] * 5, "position": 1})
    >>> swapped = shown.with_columns(pl.col("item").replace({"a": "b", "b": "a"}), position=2)
    >>> log = pl.concat([shown, swapped]).with_columns(
    ...     query=pl.lit("q"),
    ...     click=(((pl.col("item") == "a") & (pl.col("position") == 1))
    ...            | ((pl.col("item") == "b") & (pl.col("position") == 2)
    ...               & (pl.col("session") < 4))).cast(pl.Int64))
    >>> a_first = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0]})
    >>> b_first = a_first.with_columns(pl.Series("score", [1.0, 2.0]))
    >>> result = rk.counterfactual_sensitivity(log, {"a first": a_first, "b first": b_first},
    ...     group_by="query", impression="session", k=1, examination=[1.0, 0.5],
    ...     estimator="ips", etas=[0.5, 1.0, 1.5], n_bootstrap=0)
    >>> result.winner
    'a first'
    >>> result.flips.with_columns(pl.col("eta").round(2))
    shape: (1, 4)
    ┌───────┬─────┬─────────┬──────────────┐
    │ side  ┆ eta ┆ winner  ┆ overtaken_by │
    │ ---   ┆ --- ┆ ---     ┆ ---          │
    │ str   ┆ f64 ┆ str     ┆ str          │
    ╞═══════╪═════╪═════════╪══════════════╡
    │ above ┆ 1.3 ┆ a first ┆ b first      │
    └───────┴─────┴─────────┴──────────────┘
    """
    if not policies:
        raise ValueError("counterfactual_sensitivity compares policies: give at least one")
    grid = sorted({float(eta) for eta in etas} | {1.0})
    if grid[0] < 0:
        raise ValueError(f"etas must be non-negative; got {grid[0]!r}")
    model = options.get("click_model", "pbm")
    propensity = options.get("propensity") or options.get("pscore")
    frame = log.lazy()
    theta = None
    if model == "pbm":
        theta = _examination(frame, policies, estimator, options)
    rows = []
    for eta in grid:
        settings = dict(options)
        logged = frame
        if theta is not None:
            settings["examination"] = theta.with_columns(pl.col("examination") ** eta)
        elif propensity is not None:
            logged = frame.with_columns(pl.col(propensity).cast(pl.Float64) ** eta)
        for name, given in policies.items():
            candidates, own = given if isinstance(given, tuple) else (given, {})
            summary = evaluate_counterfactual(
                logged, candidates, estimator=estimator, **{**settings, **own}
            ).summary()
            row = summary.row(0, named=True)
            values = {key: row[key] for key in ("reward_at_k", "lower", "upper")}
            rows.append({"eta": eta, "policy": name, **values})
    table = pl.DataFrame(rows).with_columns(
        (pl.col("reward_at_k") == pl.col("reward_at_k").max().over("eta")).alias("best")
    )
    winner = str(
        table.filter(pl.col("eta") == 1.0).sort("reward_at_k", descending=True)["policy"][0]
    )
    misspecified = "examination" if theta is not None else "propensity"
    return SensitivityResult(table, winner, _flips(table, winner), estimator, misspecified)


def _examination(
    log: pl.LazyFrame,
    policies: Mapping[str, Policy],
    estimator: str,
    options: dict[str, Any],
) -> pl.DataFrame:
    """The examination table at eta = 1: as given, or EM's (estimated once, on the log)."""
    given = options.pop("examination", None)
    if given is not None:
        deepest = int(
            log.select(pl.col(options.get("position", "position")).max()).collect().item()
        )
        return examination_table(given, max(deepest, int(options.get("k", 10))))
    first = next(iter(policies.values()))
    candidates, own = first if isinstance(first, tuple) else (first, {})
    settings = {**options, **own, "n_bootstrap": 0}
    result = evaluate_counterfactual(log, candidates, estimator=estimator, **settings)
    assert result.examination is not None
    return result.examination


def _flips(table: pl.DataFrame, winner: str) -> pl.DataFrame:
    """Where, moving away from eta = 1 in each direction, another policy first overtakes the
    winner: eta interpolated linearly between the grid points around the crossing."""
    wide = table.pivot("policy", index="eta", values="reward_at_k").sort("eta")
    etas = wide["eta"].to_numpy()
    others = [name for name in wide.columns if name not in ("eta", winner)]
    lead = wide[winner].to_numpy()[:, None] - wide.select(others).to_numpy()
    start = int(np.searchsorted(etas, 1.0))
    flips = []
    for side, steps in (("below", range(start, 0, -1)), ("above", range(start, len(etas) - 1))):
        for at in steps:
            step = -1 if side == "below" else 1
            near, far = at, at + step
            losing = np.flatnonzero(lead[far] < 0)
            if not losing.size:
                continue
            # The first rival to cross: the one whose lead hits zero closest to `near`.
            fraction = lead[near, losing] / (lead[near, losing] - lead[far, losing])
            first = int(np.argmin(fraction))
            eta = etas[near] + fraction[first] * (etas[far] - etas[near])
            flips.append(
                {
                    "side": side,
                    "eta": float(eta),
                    "winner": winner,
                    "overtaken_by": others[int(losing[first])],
                }
            )
            break
    schema = {"side": pl.String, "eta": pl.Float64, "winner": pl.String, "overtaken_by": pl.String}
    return pl.DataFrame(flips, schema=schema)
