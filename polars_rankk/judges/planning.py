"""How many groups people should label: the judge's worth measured on a pilot, turned into the
cheapest (or, for a budget, the most precise) pair of human-labelled and judge-only groups.

The pilot is the groups both the judge and people labelled. Its PPI correlation ``rho`` (the
correlation of the human and judge values, at most ``1 - 1/n``) says how much of a human label
the judge's value is worth: a prediction-powered mean over ``n`` labelled and ``N`` judge-only
groups has the standard error of a human-only mean over ``effective_n = n (n + N) / (n + (1 -
rho^2) N)`` groups (Broska, Howes & van Loon 2024). For a target interval width the human-only
mean needs ``n0 = (2 z sd / width)^2`` groups; the pair reaching that ``effective_n`` at the
least cost, or the best ``effective_n`` within a budget, is ``ppi_py``'s ``ppi_mean_power``,
transcribed here (a human-only design wins where the judge is not worth its cost).
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist
from typing import TypedDict

import polars as pl

from polars_rankk.judges.correction import JudgeCorrectionWarning, paired_values
from polars_rankk.stats.per_group import Results

#: The columns of `judge_labelling_plan`'s result.
PLAN_COLUMNS = (
    "metric",
    "k",
    "pilot_groups",
    "human_sd",
    "ppi_corr",
    "n_labelled",
    "n_judge_only",
    "cost",
    "effective_n",
    "human_only_n",
)


class Pair(TypedDict):
    """A design: ``n`` groups labelled by people (and judged), ``N`` judged only."""

    n: int
    N: int
    cost: float
    effective_n: int


def judge_labelling_plan(
    judged: Results,
    human: Results,
    *,
    width: float | None = None,
    effective_n: int | None = None,
    budget: float | None = None,
    cost_human: float = 1.0,
    cost_judge: float = 0.01,
    alpha: float = 0.05,
    n_max: int | None = None,
) -> pl.DataFrame:
    """How many groups to have people label, per (metric, K), from a pilot.

    Parameters
    ----------
    judged, human
        A pilot: an evaluation (or per-group frame) under the judge's labels and one under
        human labels; the groups both hold measure the judge's worth.
    width
        The interval width wanted (``upper - lower`` at ``1 - alpha``): the plan reaches the
        standard error of a human-only mean of that width. Or give `effective_n` (that many
        human-only groups' precision), or a `budget` (the most precise design it buys).
    cost_human, cost_judge
        The cost of one group labelled by people, and of one judged by the model (more than
        0: a free judge would be asked for infinitely many groups).
    alpha
        For `width`: the interval covers with probability ``1 - alpha``.
    n_max
        At most this many groups in all (``n + N``): the groups there are to evaluate.

    Returns
    -------
    pl.DataFrame
        One row per (metric, k), the columns `PLAN_COLUMNS`: the pilot's size, the human
        values' standard deviation and the PPI correlation; the design (``n_labelled``
        groups labelled by people, ``n_judge_only`` judged only), its ``cost`` and
        ``effective_n``; and ``human_only_n``, the human-labelled groups a human-only mean
        needs for the same precision. The numbers are ``ppi_py``'s ``ppi_mean_power``.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> judged = pl.DataFrame({"q": range(8), "metric": "ndcg", "k": 10,
    ...                        "value": [0.9, 0.7, 0.4, 0.8, 0.3, 0.6, 0.2, 0.5]})
    >>> human = pl.DataFrame({"q": range(8), "metric": "ndcg", "k": 10,
    ...                       "value": [0.8, 0.7, 0.3, 0.9, 0.2, 0.5, 0.3, 0.4]})
    >>> plan = rk.judge_labelling_plan(judged, human, effective_n=400)
    >>> plan.select("n_labelled", "n_judge_only", "human_only_n").row(0)
    (111, 1890, 400)
    """
    chosen = [option for option in (width, effective_n, budget) if option is not None]
    if len(chosen) != 1:
        raise ValueError("give exactly one of width=, effective_n= or budget=")
    if not (cost_human > 0 and cost_judge > 0):
        raise ValueError(
            f"cost_human and cost_judge must be positive; got {cost_human!r}, {cost_judge!r}"
        )
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    frame, _ = paired_values(judged, human, "")
    pilot = (
        frame.filter(pl.col("human").is_not_null())
        .group_by("metric", "k")
        .agg(
            pilot_groups=pl.len(),
            human_sd=pl.col("human").std(ddof=0),
            correlation=pl.cov("human", "judge", ddof=0)
            / (pl.col("human").std(ddof=0) * pl.col("judge").std(ddof=0)),
        )
        .sort("metric", "k", nulls_last=False)
        .collect(engine="in-memory")
    )
    z = NormalDist().inv_cdf(1 - alpha / 2)
    rows = []
    for row in pilot.iter_rows(named=True):  # one per (metric, k), not per group
        n_pilot = row["pilot_groups"]
        if n_pilot < 2 or not row["human_sd"] or row["correlation"] is None:
            raise ValueError(
                f"the pilot for {row['metric']!r} at k={row['k']} needs at least two groups "
                f"whose human and judge values vary; it has {n_pilot}"
            )
        rho = min(float(row["correlation"]), 1 - 1 / n_pilot)
        target = None
        if width is not None:
            target = (2 * z * row["human_sd"] / width) ** 2
        elif effective_n is not None:
            target = float(effective_n)
        pair = _design(rho, cost_human, cost_judge, target=target, budget=budget, n_max=n_max)
        rows.append(
            {
                "metric": row["metric"],
                "k": row["k"],
                "pilot_groups": n_pilot,
                "human_sd": row["human_sd"],
                "ppi_corr": rho,
                "n_labelled": pair["n"],
                "n_judge_only": pair["N"],
                "cost": float(pair["cost"]),
                "effective_n": pair["effective_n"],
                "human_only_n": math.ceil(target) if target is not None else pair["effective_n"],
            }
        )
    schema = {"metric": pl.String, "k": pl.Int64, "pilot_groups": pl.Int64, "human_sd": pl.Float64,
              "ppi_corr": pl.Float64, "n_labelled": pl.Int64, "n_judge_only": pl.Int64,
              "cost": pl.Float64, "effective_n": pl.Int64, "human_only_n": pl.Int64}  # fmt: skip
    return pl.DataFrame(rows, schema=schema).select(PLAN_COLUMNS)


def _design(
    rho: float,
    cost_human: float,
    cost_judge: float,
    *,
    target: float | None,
    budget: float | None,
    n_max: int | None,
) -> Pair:
    """ppi_py's ``ppi_power`` (no cost per unlabelled row): the cheapest pair reaching the
    human-only precision of `target` groups, or the most precise pair within `budget`."""
    rho_sq = rho**2
    gamma = cost_judge / cost_human
    ppi_cost = cost_human * (
        1 - rho_sq + gamma * rho_sq + 2 * math.sqrt(gamma * rho_sq * (1 - rho_sq))
    )
    classical_cost = cost_human
    n0 = budget / ppi_cost if budget is not None else float(target or 0.0)
    pair = _optimal_pair(n0, rho, gamma, cost_human, cost_judge)
    if classical_cost < ppi_cost or pair["N"] < 0:
        n = round(budget / classical_cost) if budget is not None else round(n0)
        pair = {"n": n, "N": 0, "cost": n * classical_cost, "effective_n": n}
    if n_max is None or pair["n"] + pair["N"] <= n_max:
        return pair
    if budget is not None:
        if n_max * cost_human <= budget:
            return {"n": n_max, "N": 0, "cost": n_max * cost_human, "effective_n": n_max}
        n = round(budget / cost_human - n_max * gamma)
    else:
        if n0 > n_max:
            warnings.warn(
                f"judge_labelling_plan: the precision of {math.ceil(n0)} human-labelled groups "
                f"is out of reach with at most n_max={n_max} groups: all {n_max} labelled by "
                f"people is the closest",
                JudgeCorrectionWarning,
                stacklevel=3,
            )
            return {"n": n_max, "N": 0, "cost": n_max * classical_cost, "effective_n": n_max}
        n = round(n0 * n_max * (1 - rho_sq) / (n_max - rho_sq * n0))
    big_n = n_max - n
    return {
        "n": n,
        "N": big_n,
        "cost": n * (cost_human + cost_judge) + big_n * cost_judge,
        "effective_n": _effective_n(n, big_n, rho_sq),
    }


def _optimal_pair(
    n0: float, rho: float, gamma: float, cost_human: float, cost_judge: float
) -> Pair:
    """The pair with the standard error of a human-only mean over `n0` groups, at least cost."""
    rho_sq = rho**2
    n = n0 * (1 - rho_sq + math.sqrt(gamma * rho_sq * (1 - rho_sq)))
    # n - (1 - rho^2) n0 is n0 sqrt(gamma rho^2 (1 - rho^2)): 0 for a judge uncorrelated with
    # the people, and for one whose correlation is a rounding error (|rho| ~ 1e-17) as well.
    gain = n - (1 - rho_sq) * n0
    big_n = n * (n0 - n) / gain if gain > 0 else 0.0
    n, big_n = round(n), round(big_n)
    return {
        "n": n,
        "N": big_n,
        "cost": n * cost_human + (n + big_n) * cost_judge,
        "effective_n": _effective_n(n, big_n, rho_sq),
    }


def _effective_n(n: int, big_n: int, rho_sq: float) -> int:
    """The human-only groups whose mean is as precise as PPI's over `n` labelled and `big_n`
    judge-only groups (Broska, Howes & van Loon 2024)."""
    return round(n * (n + big_n) / (n + (1 - rho_sq) * big_n))
