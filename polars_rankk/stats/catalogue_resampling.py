"""The catalogue-level figures in statistics: bootstrap intervals over groups, and the rows of
a comparison (`catalogue_differences`: one figure per system, so one row per pair with both
figures and their difference, no paired test).

Bootstrap intervals over groups for the catalogue-level figures:

Coverage, Gini, entropy and personalization are functions of per-item exposure counts and the
number of lists (`polars_rankk.core.evaluation.catalogue`). A resample of groups drawn with
replacement
gives each group a weight (how often it was drawn); the resampled exposure of an item is the
summed weight of the lists holding it, and the resampled figures follow from those weighted
counts by the same formulas. The weights are `rk.bootstrap`'s: one draw per resample from
``numpy.random.default_rng([seed, hash(stratum)])`` over the evaluation's groups in key order,
so an interval here and a per-group metric's interval from `rk.bootstrap` with the same seed
resample the same groups.

Personalization is a mean over pairs of lists and its interval covers the figure of a larger
population of lists; coverage, entropy and Gini depend on how many lists there are (more lists
reach more items), so theirs describe the variability of the figure at this number of lists,
not a population value (a plug-in entropy is biased low on few lists).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.evaluation.catalogue import CATALOGUE_METRICS
from polars_rankk.core.optional import optional_module
from polars_rankk.stats.resampling import check_options, generator, resample_key, weight_blocks

FloatArray = npt.NDArray[np.float64]


def catalogue_intervals(
    evaluation: Evaluation,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> pl.DataFrame:
    """Percentile bootstrap intervals over groups for ``evaluation.catalogue``.

    Parameters
    ----------
    evaluation
        An `rk.evaluate` result with catalogue-level metrics (``coverage``, ``gini``,
        ``entropy``, ``personalization``).
    confidence
        Two-sided level of the interval.
    n_resamples
        Resamples of groups.
    seed
        As for `rk.bootstrap` (the same seed draws the same group weights); None: fresh
        entropy.

    Returns
    -------
    pl.DataFrame
        ``evaluation.catalogue`` (``metric, k, value``) with ``ci_low, ci_high, n_resamples``
        (named as every interval of the library). A resample with a null figure (e.g.
        personalization of fewer than two drawn lists) is left out of that row's interval.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> recs = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "b"],
    ...                      "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    >>> res = rk.evaluate(recs, k=2, group_by="user", metrics=["coverage", "personalization"])
    >>> ci = rk.catalogue_intervals(res, n_resamples=200, seed=0)
    >>> ci.columns
    ['metric', 'k', 'value', 'ci_low', 'ci_high', 'n_resamples']
    >>> row = ci.row(0, named=True)
    >>> row["metric"], row["value"], row["ci_low"] <= row["value"] <= row["ci_high"]
    ('coverage', 1.0, True)
    """
    sparse = optional_module("scipy.sparse", "resampling the catalogue metrics")

    check_options(n_resamples, confidence, "percentile", seed)
    counts = evaluation.exposures
    if evaluation.catalogue is None or counts is None:
        raise ValueError(
            "catalogue_intervals needs catalogue-level metrics: evaluate with metrics=[..., "
            f"{', '.join(repr(m) for m in CATALOGUE_METRICS)}]"
        )
    observed = evaluation.catalogue
    assert isinstance(observed, pl.DataFrame)  # exposures are kept by eager evaluations
    keys = evaluation.group_keys
    groups = counts.groups.collect().sort(keys, nulls_last=True).with_row_index("_rk_g", offset=0)
    top = counts.top
    # top_rows' columns: the keys, the item, the rank.
    item, rank = top.collect_schema().names()[len(keys) : len(keys) + 2]
    rows = (
        top.group_by([*keys, item])
        .agg(pl.col(rank).min())
        .collect()
        .join(groups, on=keys, how="inner", nulls_equal=True)
    )
    catalogue = counts.catalogue
    size = int(catalogue.size.collect().item())
    inside = np.ones(rows.height, dtype=bool)
    if catalogue.items is not None:
        members = catalogue.items.collect().get_column("item")
        inside = rows.get_column(item).is_in(members.implode()).to_numpy()
    codes = rows.get_column(item).rank("dense").cast(pl.Int64).to_numpy() - 1
    n_items = int(codes.max()) + 1 if codes.size else 0
    group_index = rows.get_column("_rk_g").to_numpy()
    ranks = rows.get_column(rank).to_numpy()
    n_groups = groups.height
    lengths = groups.get_column("n_candidates").to_numpy()
    skip = evaluation.policy.short_lists == "skip"
    metrics = [m for m in CATALOGUE_METRICS if m in set(observed.get_column("metric"))]
    rng = generator(seed, resample_key(()))
    weights = np.concatenate(list(weight_blocks(rng, [n_groups], n_resamples)), axis=0)
    draws: dict[tuple[str, int], FloatArray] = {}
    for k in evaluation.ks:
        shown = ranks <= k
        listed = lengths >= (k if skip else 1)
        if skip:
            shown = shown & listed[group_index]
        matrix = sparse.csr_matrix(
            (np.ones(int(shown.sum())), (group_index[shown], codes[shown])),
            shape=(n_groups, n_items),
        )
        exposure = np.asarray((matrix.T @ weights.T).T)  # resamples × items
        n_lists = weights @ listed.astype(np.float64)
        in_catalogue = np.zeros(n_items, dtype=bool)
        in_catalogue[codes[inside]] = True
        figures = _figures(exposure, in_catalogue, n_lists, size, k)
        for metric in metrics:
            draws[(metric, k)] = figures[metric]
    alpha = (1.0 - confidence) / 2.0
    lower, upper, used = [], [], []
    for metric, k in observed.select("metric", "k").iter_rows():
        values = draws[(metric, k)]
        values = values[np.isfinite(values)]
        used.append(int(values.size))
        lower.append(float(np.quantile(values, alpha)) if values.size else None)
        upper.append(float(np.quantile(values, 1.0 - alpha)) if values.size else None)
    return observed.with_columns(
        pl.Series("ci_low", lower, dtype=pl.Float64),
        pl.Series("ci_high", upper, dtype=pl.Float64),
        pl.Series("n_resamples", used, dtype=pl.Int64),
    )


def _figures(
    exposure: FloatArray,
    in_catalogue: npt.NDArray[np.bool_],
    n_lists: FloatArray,
    size: int,
    k: int,
) -> dict[str, FloatArray]:
    """Each catalogue figure per resample, from weighted exposure counts (resamples × items)."""
    counted = exposure[:, in_catalogue]
    total = counted.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        coverage = (counted > 0).sum(axis=1) / size if size else np.full(len(total), np.nan)
        # Unexposed catalogue items are zeros at the front of the ascending order.
        ordered = np.sort(counted, axis=1)
        position = size - counted.shape[1] + np.arange(1, counted.shape[1] + 1)
        gini = ((2 * position - size - 1) * ordered).sum(axis=1) / (size * total)
        share = counted / total[:, None]
        entropy = -np.where(share > 0, share * np.log2(np.where(share > 0, share, 1.0)), 0.0).sum(
            axis=1
        )
        entropy = np.where(total > 0, entropy, 0.0)
        shared = (exposure * (exposure - 1) / 2).sum(axis=1)
        pairs = n_lists * (n_lists - 1) / 2
        personalization = np.where(n_lists >= 2, 1.0 - shared / (pairs * k), np.nan)
    return {
        "coverage": coverage,
        "gini": np.where(total > 0, gini, np.nan),
        "entropy": entropy,
        "personalization": personalization,
    }


def catalogue_differences(
    evaluations: Mapping[str, object],
    pairs: Sequence[tuple[str, str]],
    ks: Iterable[int] | None = None,
) -> pl.DataFrame | None:
    """For each (baseline, system) pair of evaluations that hold catalogue-level figures:
    ``metric, k, baseline, system, baseline_mean, mean, diff`` at `ks` (None: every K);
    None when there is none.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.stats.catalogue_resampling import catalogue_differences
    >>> truth = pl.DataFrame({"q": [1, 2], "item": [1, 2]})
    >>> runs = {name: pl.DataFrame({"q": [1, 1, 2, 2], "item": items, "score": [2.0, 1, 2, 1]})
    ...         for name, items in (("a", [1, 2, 1, 2]), ("b", [1, 2, 3, 4]))}
    >>> items = pl.DataFrame({"item": [1, 2, 3, 4]})
    >>> found = {name: rk.evaluate(run, truth, k=2, metrics=["coverage"], group_by="q",
    ...                            catalogue=items) for name, run in runs.items()}
    >>> catalogue_differences(found, [("a", "b")]).select("metric", "baseline_mean", "mean")
    shape: (1, 3)
    ┌──────────┬───────────────┬──────┐
    │ metric   ┆ baseline_mean ┆ mean │
    │ ---      ┆ ---           ┆ ---  │
    │ str      ┆ f64           ┆ f64  │
    ╞══════════╪═══════════════╪══════╡
    │ coverage ┆ 0.5           ┆ 1.0  │
    └──────────┴───────────────┴──────┘
    """
    chosen = None if ks is None else list(ks)
    figures: dict[str, pl.LazyFrame] = {}
    for name, evaluation in evaluations.items():
        if isinstance(evaluation, Evaluation) and evaluation.catalogue is not None:
            frame = evaluation.catalogue.lazy().select("metric", "k", "value")
            if chosen is not None:
                frame = frame.filter(pl.col("k").is_null() | pl.col("k").is_in(chosen))
            figures[name] = frame
    rows = [
        figures[name]
        .join(
            figures[baseline].rename({"value": "baseline_mean"}),
            on=["metric", "k"],
            nulls_equal=True,
            maintain_order="left",
        )
        .select(
            "metric",
            "k",
            pl.lit(baseline).alias("baseline"),
            pl.lit(name).alias("system"),
            "baseline_mean",
            pl.col("value").alias("mean"),
            (pl.col("value") - pl.col("baseline_mean")).alias("diff"),
        )
        for baseline, name in pairs
        if baseline in figures and name in figures
    ]
    return pl.concat(pl.collect_all(rows)) if rows else None
