"""The estimators, read off the per-(group, rank) sums of `plan.per_rank_sums`, and their
bootstrap over groups.

For a group with N logged impressions, at each rank r of the new ranking (sums over the
group's logged rows that the new ranking puts at r; q the reward model's prediction at r):

- ``ips``: sum(w c) / N (under ``click_model="item_position"`` this is independent-item IPS,
  Li et al., KDD 2018; under ``"cascade"`` reward-interaction IPS, McInerney et al., KDD 2020);
- ``snips``: sum(w c) / sum(u), self-normalised per rank (as Open Bandit Pipeline's slate
  estimators normalise per position); overall, both sums are averaged over groups first;
- ``dr``: q + (sum(w c) - q sum(u)) / N (under ``"cascade"`` this is cascade-DR, Kiyohara et
  al., WSDM 2022, with the Q-function the reward model's predictions summed down the new
  ranking);
- ``naive``: sum(c) / N, clicks taken as labels wherever they were shown (biased; for contrast).

The reward@K of a group sums its ranks; the overall estimate is the mean over groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl

from polars_rankk.counterfactual.plan import PREDICTED, RANK
from polars_rankk.stats import resampling

Estimator = Literal["ips", "snips", "dr", "naive", "iips", "rips", "cascade_dr"]
#: Each paper's name for an estimator under the click model it is defined for.
ALIASES: dict[str, tuple[str, str]] = {
    "iips": ("ips", "item_position"),
    "rips": ("ips", "cascade"),
    "cascade_dr": ("dr", "cascade"),
}
BASE = ("ips", "snips", "dr", "naive")


def per_rank_estimates(estimator: str, groups: int) -> pl.Expr:
    """The expected reward at each (group, rank) by `estimator` (its base name); `groups`
    counts the groups SNIPS normalises over."""
    n = pl.col("impressions")
    weighted, control = pl.col("weighted_reward"), pl.col("control")
    if estimator == "ips":
        return weighted / n
    if estimator == "snips":
        # A group alone rarely shows the new ranking: its weights are normalised by their
        # mean over all groups at the rank, so the groups' values average to the overall SNIPS.
        normaliser = (control / n).sum().over(RANK) / groups
        return pl.when(normaliser > 0).then(weighted / n / normaliser).otherwise(0.0)
    if estimator == "dr":
        predicted = pl.col(PREDICTED)
        return predicted + (weighted - control * predicted) / n
    return pl.col("reward") / n


def count_groups(sums: pl.DataFrame, keys: list[str]) -> int:
    """The number of groups in the per-(group, rank) table."""
    return int(sums.select(pl.struct(keys).n_unique()).item()) if sums.height else 0


def group_index(sums: pl.DataFrame, keys: list[str]) -> tuple[np.ndarray, int]:
    """Index 0..G-1 of each row's group, and G."""
    index = sums.select(pl.struct(keys).rank("dense").cast(pl.Int64) - 1).to_series()
    values = index.to_numpy()
    return values, int(values.max()) + 1 if len(values) else 0


def bootstrap_columns(
    sums: pl.DataFrame, keys: list[str], estimator: str, k: int
) -> tuple[np.ndarray, int]:
    """The per-group columns whose means the overall estimate is a function of: the group's
    reward@K (one column), or for SNIPS the per-rank weighted rewards and controls over N."""
    index, groups = group_index(sums, keys)
    if estimator != "snips":
        values = sums.select(per_rank_estimates(estimator, groups)).to_series().to_numpy()
        matrix = np.zeros((groups, 1))
        np.add.at(matrix[:, 0], index, values)
        return matrix, groups
    ranks = sums[RANK].to_numpy() - 1
    n = sums["impressions"].to_numpy()
    matrix = np.zeros((groups, 2 * k))
    np.add.at(matrix, (index, ranks), sums["weighted_reward"].to_numpy() / n)
    np.add.at(matrix, (index, k + ranks), sums["control"].to_numpy() / n)
    return matrix, groups


def overall_from_means(means: np.ndarray, estimator: str, k: int) -> np.ndarray:
    """The overall reward@K from column means (rows: resamples)."""
    if estimator != "snips":
        return np.asarray(means[..., 0], dtype=np.float64)
    numerator, denominator = means[..., :k], means[..., k:]
    ratio = np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)
    return np.asarray(ratio.sum(axis=-1), dtype=np.float64)


def overall_row(
    sums: pl.DataFrame,
    keys: list[str],
    estimator: str,
    name: str,
    k: int,
    options: tuple[int, float, int | None],
) -> dict[str, object]:
    """The overall estimate of one estimator with its bootstrap standard error and interval
    (groups resampled with replacement; `stats.resampling` draws the resamples)."""
    n_bootstrap, alpha, seed = options
    matrix, groups = bootstrap_columns(sums, keys, estimator, k)
    estimate = float(overall_from_means(matrix.mean(axis=0), estimator, k)) if groups else 0.0
    lower = upper = error = float("nan")
    if groups > 1 and n_bootstrap > 0:
        rng = resampling.generator(seed, ("counterfactual", name))
        resampled = resampling.resampled_column_sums(matrix, n_bootstrap, rng) / groups
        values = overall_from_means(resampled, estimator, k)
        error = float(np.std(values, ddof=1)) if n_bootstrap > 1 else float("nan")
        empty = np.zeros(0)
        lower, upper = resampling.interval(
            estimate, values, 1 - alpha, "percentile", empty, empty.astype(np.int64)
        )
    return {
        "estimator": name,
        "reward_at_k": estimate,
        "standard_error": error,
        "lower": lower,
        "upper": upper,
        "groups": groups,
    }


def per_position(sums: pl.DataFrame, keys: list[str], estimator: str, name: str) -> pl.DataFrame:
    """The expected reward (clicks) at each rank of the new ranking, over all groups."""
    groups = count_groups(sums, keys)
    return (
        sums.with_columns(per_rank_estimates(estimator, groups).alias("__value"))
        .group_by(RANK)
        .agg((pl.col("__value").sum() / groups).alias("expected_reward"))
        .sort(RANK)
        .select(pl.lit(name).alias("estimator"), pl.col(RANK).alias("position"), "expected_reward")
    )


def resolve(estimators: str | Sequence[str], model: str) -> list[tuple[str, str]]:
    """(name as asked, base estimator) for each estimator; a paper's name must match the
    click model it is defined for."""
    names = [estimators] if isinstance(estimators, str) else list(estimators)
    resolved = []
    for name in names:
        if name in ALIASES:
            base, needs = ALIASES[name]
            if model != needs:
                raise ValueError(
                    f"estimator={name!r} is {base!r} under click_model={needs!r}; "
                    f"got click_model={model!r}"
                )
            resolved.append((name, base))
        elif name in BASE:
            resolved.append((name, name))
        else:
            choices = ", ".join(repr(choice) for choice in (*BASE, *ALIASES))
            raise ValueError(f"estimator must be one of {choices}; got {name!r}")
    return resolved
