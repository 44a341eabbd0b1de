"""The estimators, read off the sums of `plan.rank_sums`, and their bootstrap.

The estimand is the new policy's expected reward@K: the sum over ranks r = 1..K of the
expected reward at rank r. Each rank's value is estimated from the impressions that inform it
(`plan.informing`: under the position-based model every impression, under the item-position
model those that show position r, under the cascade those that show positions 1..r). For a
group with N_r informing impressions at rank r (W the weighted rewards, U the controls, Q the
controls times the reward model's predictions, V the reward model's value of the slot summed
over the informing impressions, C the rewards times the placement probabilities):

- ``ips``: W / N_r (under ``click_model="item_position"`` independent-item IPS, Li et al., KDD
  2018; under ``"cascade"`` reward-interaction IPS, McInerney et al., KDD 2020);
- ``snips``: W / N_r divided by the mean over groups of U / N_r at the rank (so the groups'
  values average to the overall self-normalised estimate sum(W / N_r) / sum(U / N_r));
- ``dr``: (V + W - Q) / N_r (under ``"cascade"`` cascade-DR, Kiyohara et al., WSDM 2022);
- ``naive``: C / N, clicks taken as labels wherever the group's N logged lists showed the
  item (biased; for contrast).

A group's reward@K sums its ranks; the overall estimate is the mean over groups. On one
group with Open Bandit Pipeline's layout (one row per impression), these are obp's IPW,
SNIPW and DR run on each position's rows and summed over positions.

The bootstrap resamples groups, or, when the log holds one group, its impressions. Either way
the estimate is a function of column means: the columns of `MATRIX_BLOCKS`, K wide each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl

from polars_rankk.core.kernel.resample import resampled_column_sums
from polars_rankk.counterfactual.new_policy import RANK
from polars_rankk.counterfactual.plan import INFORMING, LISTS
from polars_rankk.stats import resampling

Estimator = Literal["ips", "snips", "dr", "naive", "iips", "rips", "cascade_dr"]
#: Each paper's name for an estimator under the click model it is defined for.
ALIASES: dict[str, tuple[str, str]] = {
    "iips": ("ips", "item_position"),
    "rips": ("ips", "cascade"),
    "cascade_dr": ("dr", "cascade"),
}
BASE = ("ips", "snips", "dr", "naive")
#: The blocks of a row of the bootstrap matrix (each K columns, one per rank): the weighted
#: rewards, the controls, the reward model's direct value less its weighted predictions, the
#: rewards and the informing impressions; per group already divided by N_r (the rewards by
#: the group's N lists; the last block is then 1), per impression raw.
MATRIX_BLOCKS = ("weighted_reward", "control", "model", "reward", "informing")


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def per_rank_from_means(means: np.ndarray, estimator: str, k: int) -> np.ndarray:
    """Each rank's estimate from the matrix's column means (leading axes: resamples)."""
    weighted, control, model, reward, informing = (
        means[..., block * k : (block + 1) * k] for block in range(len(MATRIX_BLOCKS))
    )
    if estimator == "ips":
        return _ratio(weighted, informing)
    if estimator == "snips":
        return _ratio(weighted, control)
    if estimator == "dr":
        return _ratio(weighted + model, informing)
    return np.asarray(reward, dtype=np.float64)


def reward_at_k(means: np.ndarray, estimator: str, k: int) -> np.ndarray:
    """The reward@K from the matrix's column means (leading axes: resamples)."""
    return np.asarray(per_rank_from_means(means, estimator, k).sum(axis=-1), dtype=np.float64)


def row_index(by: list[str]) -> pl.Expr:
    """The row of `matrix` a row of the sums adds to (``__row``): its value of `by`
    numbered from 0 in sorted order."""
    return (pl.struct(by).rank("dense").cast(pl.Int64) - 1).alias("__row")


def sorted_row_index(by: list[str]) -> pl.Expr:
    """`row_index` read off rows sorted by `by`: the runs of equal values, numbered."""
    return pl.struct(by).rle_id().cast(pl.Int64).alias("__row")


def first_of_each_row() -> pl.Expr:
    """True on the first of each run of ``__row`` (`sorted_row_index`): each group's first
    row of sums sorted by the keys, without a hash of the rows."""
    row = pl.col("__row")
    return row != row.shift(1).fill_null(-1)


def matrix(sums: pl.DataFrame, by: list[str], k: int, *, per_group: bool) -> np.ndarray:
    """The bootstrap matrix: one row per value of `by` (a group, or an impression of the one
    group), the `MATRIX_BLOCKS` per rank. Per group, each block is divided by N_r (0 where no
    impression informs the rank), the rewards by the group's lists (`LISTS`), and the
    informing block is 1."""
    if sums.height == 0:
        return np.zeros((0, len(MATRIX_BLOCKS) * k))
    # The rows' index where the caller numbered them (`sorted_row_index`).
    numbered = sums["__row"] if "__row" in sums.columns else sums.select(row_index(by)).to_series()
    index = numbered.to_numpy()
    rows = int(index.max()) + 1
    ranks = sums[RANK].to_numpy() - 1
    informing = sums[INFORMING].fill_null(0.0).to_numpy()
    divisor = np.where(informing > 0, informing, 1.0) if per_group else np.ones(len(informing))
    blocks = {
        "weighted_reward": sums["weighted_reward"].to_numpy(),
        "control": sums["control"].to_numpy(),
        "model": sums["direct"].to_numpy() - sums["predicted_control"].to_numpy(),
        "reward": sums["reward"].to_numpy(),
        "informing": (informing > 0).astype(np.float64) if per_group else informing,
    }
    out = np.zeros((rows, len(MATRIX_BLOCKS) * k))
    if per_group:
        blocks["reward"] = blocks["reward"] / sums[LISTS].to_numpy()
    # Every row's K ranks in rank order, row after row (a ranking's slots, sorted): each block
    # is its values laid out as rows x K, without scattering them cell by cell.
    laid_out = len(index) == rows * k and bool(
        (ranks.reshape(rows, k) == np.arange(k)).all()
        and (index.reshape(rows, k) == np.arange(rows)[:, None]).all()
    )
    for block, name in enumerate(MATRIX_BLOCKS):
        divided = name not in ("informing", "reward")
        if laid_out:
            cells = out[:, block * k : (block + 1) * k]
            if divided:
                np.divide(blocks[name].reshape(rows, k), divisor.reshape(rows, k), out=cells)
            else:
                cells[:] = blocks[name].reshape(rows, k)
        else:
            # One row of the sums per (row, rank): each cell is written once.
            out[index, block * k + ranks] = blocks[name] / divisor if divided else blocks[name]
    if per_group:
        # A group informs every rank of the mean over groups: IPS, DR and the naive estimate
        # are means of the groups' values (0 where no impression shows the rank).
        out[:, (len(MATRIX_BLOCKS) - 1) * k :] = 1.0
    return out


#: The blocks each estimator reads.
READS = {
    "ips": ("weighted_reward", "informing"),
    "snips": ("weighted_reward", "control"),
    "dr": ("weighted_reward", "model", "informing"),
    "naive": ("reward",),
}


def resampled_means(
    matrix: np.ndarray, bases: Sequence[str], k: int, n_bootstrap: int, seed: int | None
) -> np.ndarray:
    """Column means of `matrix` over `n_bootstrap` resamples of its rows (with replacement),
    one set of resamples shared by every estimator (paired). Only the columns the `bases`
    read and that vary are resampled: a constant column's mean is its value."""
    rows = matrix.shape[0]
    means = np.tile(matrix[0], (n_bootstrap, 1))
    blocks = sorted({MATRIX_BLOCKS.index(name) for base in bases for name in READS[base]})
    columns = np.array([block * k + rank for block in blocks for rank in range(k)])
    varying = columns[matrix[:, columns].min(axis=0) != matrix[:, columns].max(axis=0)]
    if varying.size:
        rng = resampling.generator(seed, ("counterfactual",))
        chosen = np.ascontiguousarray(matrix[:, varying].T)
        # The library's one resampling of groups (`weight_blocks`' draws): by the kernel, or
        # NumPy's weights times the columns (an einsum: a threaded BLAS product stalls on busy
        # cores, and these products are small).
        sums = resampled_column_sums(rng, chosen, n_bootstrap)
        if sums is None:
            sums = np.concatenate(
                resampling.over_weight_blocks(
                    rng, [rows], n_bootstrap, lambda w: np.einsum("bg,cg->bc", w, chosen)
                )
            )
        means[:, varying] = sums / rows
    return means


def overall_row(
    group_matrix: np.ndarray,
    resampled: np.ndarray | None,
    estimator: str,
    name: str,
    k: int,
    alpha: float,
) -> dict[str, object]:
    """The overall estimate of one estimator with its bootstrap standard error and interval,
    from the `resampled_means` (of groups, or of the one group's impressions; None: no
    interval)."""
    groups = group_matrix.shape[0]
    estimate = float(reward_at_k(group_matrix.mean(axis=0), estimator, k)) if groups else 0.0
    lower = upper = error = float("nan")
    if resampled is not None and len(resampled):
        values = reward_at_k(resampled, estimator, k)
        error = float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")
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


def per_group_rewards(group_matrix: np.ndarray, estimator: str, k: int) -> np.ndarray:
    """Each group's reward@K (a row of the group matrix): its ranks' estimates, SNIPS's
    divided by the mean over groups of U / N_r at the rank (so that the groups' values
    average to the overall estimate)."""
    if estimator != "snips" or not group_matrix.shape[0]:
        return reward_at_k(group_matrix, estimator, k)
    control = group_matrix[:, k : 2 * k].mean(axis=0)
    weighted = group_matrix[:, :k]
    return np.asarray(_ratio(weighted, np.broadcast_to(control, weighted.shape)).sum(axis=-1))


def per_position(group_matrix: np.ndarray, estimator: str, name: str, k: int) -> pl.DataFrame:
    """The expected reward (clicks) at each rank of the new policy, over all groups."""
    means = group_matrix.mean(axis=0) if group_matrix.shape[0] else np.zeros(group_matrix.shape[1])
    values = per_rank_from_means(means, estimator, k)
    return pl.DataFrame(
        {
            "estimator": [name] * k,
            "position": list(range(1, k + 1)),
            "expected_reward": values.astype(np.float64),
        },
        schema={"estimator": pl.String, "position": pl.Int64, "expected_reward": pl.Float64},
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
