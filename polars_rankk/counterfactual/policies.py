"""Stochastic ranking policies from scores, in the two forms `evaluate_counterfactual` reads:
a Plackett-Luce (softmax) policy's exact marginals (``probability=``) or seeded draws
(``sample=``), and the empirical marginals of any draws.

Plackett-Luce at temperature T draws a ranking item by item, each with probability
proportional to exp(score / T) among the items not yet placed (Plackett 1975, Luce 1959); its
draws are the ranking by score / T plus independent standard Gumbel noise (the Gumbel-max
trick), which is how `plackett_luce_samples` draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from polars_rankk.core.policy import Policy
from polars_rankk.counterfactual.new_policy import RANK, Columns, ranked_top

#: The most (prefix, item) rows an exact marginal computation may build, summed over groups.
EXACT_LIMIT = 20_000_000


def _keys(group_by: str | Sequence[str]) -> list[str]:
    return [group_by] if isinstance(group_by, str) else list(group_by)


def _check_temperature(temperature: float) -> None:
    if not temperature > 0:
        raise ValueError(f"temperature must be positive; got {temperature!r}")


def plackett_luce_marginals(
    candidates: pl.DataFrame | pl.LazyFrame,
    *,
    group_by: str | Sequence[str],
    k: int,
    item: str = "item",
    score: str = "score",
    temperature: float = 1.0,
) -> pl.DataFrame:
    """The exact probability of each item at each position 1..`k` under a Plackett-Luce
    (softmax) policy on the scores: the ``probability=`` form of `evaluate_counterfactual`.

    Enumerates the ordered prefixes of each group (n (n-1) ... (n-k+2) of them for n items),
    so it is exact where that is cheap; beyond `EXACT_LIMIT` rows it refuses and points to
    `plackett_luce_samples` and `marginals_from_samples`.

    Parameters
    ----------
    candidates
        Group keys, ``item`` and ``score`` (one row per item of a group).
    group_by
        The group key column(s).
    k
        The deepest position.
    item, score
        The item and score columns.
    temperature
        T > 0: the softmax is over score / T (small T: close to the ranking by score).

    Returns
    -------
    polars.DataFrame
        Keys, item, ``position`` (from 1) and ``probability``; each position's probabilities
        sum to 1 in a group with at least `k` items.

    Examples
    --------
    >>> import math
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> scores = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
    ...                        "score": [math.log(3), math.log(2), 0.0]})
    >>> rk.plackett_luce_marginals(scores, group_by="query", k=2).sort("position", "item")
    shape: (6, 4)
    ┌───────┬──────┬──────────┬─────────────┐
    │ query ┆ item ┆ position ┆ probability │
    │ ---   ┆ ---  ┆ ---      ┆ ---         │
    │ str   ┆ str  ┆ i64      ┆ f64         │
    ╞═══════╪══════╪══════════╪═════════════╡
    │ q     ┆ a    ┆ 1        ┆ 0.5         │
    │ q     ┆ b    ┆ 1        ┆ 0.333333    │
    │ q     ┆ c    ┆ 1        ┆ 0.166667    │
    │ q     ┆ a    ┆ 2        ┆ 0.35        │
    │ q     ┆ b    ┆ 2        ┆ 0.4         │
    │ q     ┆ c    ┆ 2        ┆ 0.25        │
    └───────┴──────┴──────────┴─────────────┘
    """
    keys = _keys(group_by)
    _check_temperature(temperature)
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    frame = candidates.lazy().select(*keys, item, pl.col(score).cast(pl.Float64))
    sizes = frame.group_by(keys).agg(pl.len().alias("n")).collect()["n"].cast(pl.Int64).to_list()
    rows = sum(float(np.prod(np.arange(n, max(n - k, 0), -1, dtype=np.float64))) for n in sizes)
    if rows > EXACT_LIMIT:
        raise ValueError(
            f"exact Plackett-Luce marginals at k={k} enumerate {rows:.3g} prefix rows (limit "
            f"{EXACT_LIMIT:,}); draw rankings with rk.plackett_luce_samples and pass them as "
            "sample=, or their marginals (rk.marginals_from_samples) as probability="
        )
    scaled = pl.col(score) / temperature
    # Weights relative to the group's best score, so that exp() neither overflows nor
    # underflows for the items that matter.
    items = (
        frame.with_columns((scaled - scaled.max().over(keys)).exp().alias("__w"))
        .select(*keys, item, "__w")
        .collect()
    )
    total = items.group_by(keys).agg(pl.col("__w").sum().alias("__rest"))
    prefixes = total.with_columns(
        pl.lit(1.0).alias("__p"), pl.lit([], dtype=pl.List(items[item].dtype)).alias("__prefix")
    )
    placed = []
    for position in range(1, k + 1):
        step = prefixes.join(items, on=keys, how="inner").filter(
            ~pl.col(item).is_in(pl.col("__prefix"))
        )
        step = step.with_columns((pl.col("__p") * pl.col("__w") / pl.col("__rest")).alias("__p"))
        placed.append(
            step.group_by([*keys, item])
            .agg(pl.col("__p").sum().alias("probability"))
            .with_columns(pl.lit(position, dtype=pl.Int64).alias("position"))
        )
        if position < k:
            prefixes = step.select(
                *keys,
                (pl.col("__rest") - pl.col("__w")).alias("__rest"),
                "__p",
                pl.concat_list("__prefix", item).alias("__prefix"),
            )
    return pl.concat(placed).select(*keys, item, "position", "probability")


def plackett_luce_samples(
    candidates: pl.DataFrame | pl.LazyFrame,
    *,
    group_by: str | Sequence[str],
    samples: int,
    item: str = "item",
    score: str = "score",
    temperature: float = 1.0,
    seed: int = 0,
    sample: str = "sample",
) -> pl.DataFrame:
    """`samples` seeded draws of a Plackett-Luce (softmax) policy on the scores, as rankings:
    the ``sample=`` form of `evaluate_counterfactual`.

    Each draw is the ranking by score / T plus independent standard Gumbel noise (the
    Gumbel-max trick): the candidates repeated once per draw, their ``score`` replaced by the
    perturbed score.

    Parameters
    ----------
    candidates
        Group keys, ``item`` and ``score``.
    group_by
        The group key column(s).
    samples
        The number of draws per group.
    item, score
        The item and score columns.
    temperature
        T > 0: the softmax is over score / T.
    seed
        The seed of the draws.
    sample
        The name of the draw's id column (0..samples-1).

    Returns
    -------
    polars.DataFrame
        Keys, ``sample``, item and ``score`` (the draw's perturbed score: higher first).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> scores = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
    ...                        "score": [2.0, 1.0, 0.0]})
    >>> draws = rk.plackett_luce_samples(scores, group_by="query", samples=4, seed=1)
    >>> draws.shape, draws["sample"].unique().sort().to_list()
    ((12, 4), [0, 1, 2, 3])
    """
    keys = _keys(group_by)
    _check_temperature(temperature)
    if not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive integer; got {samples!r}")
    frame = candidates.lazy().select(*keys, item, pl.col(score).cast(pl.Float64)).collect()
    draws = pl.DataFrame({sample: np.arange(samples)}).join(frame, how="cross")
    noise = np.random.default_rng(seed).gumbel(size=draws.height)
    return draws.select(
        *keys,
        sample,
        item,
        (pl.col(score) / temperature + pl.Series(noise)).alias(score),
    )


def marginals_from_samples(
    samples: pl.DataFrame | pl.LazyFrame,
    *,
    group_by: str | Sequence[str],
    k: int,
    sample: str = "sample",
    item: str = "item",
    score: str = "score",
    policy: Policy | None = None,
) -> pl.DataFrame:
    """The empirical marginals of drawn rankings: the share of a group's draws placing each
    item at each position 1..`k` (each draw ranked as `evaluate_counterfactual` ranks it).

    Under the position-based and item-position models, ``probability=`` with these marginals
    gives the estimates of ``sample=`` with the draws (SNIPS included: under ``sample=`` the
    weights are averaged over the draws before normalising).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> draws = pl.DataFrame({"query": ["q"] * 4, "sample": [0, 0, 1, 1],
    ...                       "item": ["a", "b", "a", "b"], "score": [2.0, 1.0, 0.0, 1.0]})
    >>> rk.marginals_from_samples(draws, group_by="query", k=1)
    shape: (2, 4)
    ┌───────┬──────┬──────────┬─────────────┐
    │ query ┆ item ┆ position ┆ probability │
    │ ---   ┆ ---  ┆ ---      ┆ ---         │
    │ str   ┆ str  ┆ i64      ┆ f64         │
    ╞═══════╪══════╪══════════╪═════════════╡
    │ q     ┆ a    ┆ 1        ┆ 0.5         │
    │ q     ┆ b    ┆ 1        ┆ 0.5         │
    └───────┴──────┴──────────┴─────────────┘
    """
    keys = _keys(group_by)
    frame = samples.lazy()
    columns = Columns(keys, item, "position", "reward", score, None, None)
    top = ranked_top(frame, [*keys, sample], columns, k, policy or Policy(), None)
    draws = frame.group_by(keys).agg(pl.col(sample).n_unique().alias("__draws"))
    return (
        top.group_by([*keys, item, RANK])
        .agg(pl.len().alias("__count"))
        .join(draws, on=keys)
        .select(
            *keys,
            item,
            pl.col(RANK).alias("position"),
            (pl.col("__count") / pl.col("__draws")).alias("probability"),
        )
        .sort([*keys, "position", item])
        .collect()
    )
