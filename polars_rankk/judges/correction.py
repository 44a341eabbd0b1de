"""Prediction-powered correction of a judge's metric means with a few human labels.

A model judged every group; people judged a subset. The mean of a metric under the judge's
labels is biased when the judge is; the mean under human labels alone is unbiased but noisy.
Prediction-powered inference (Angelopoulos et al., Science 2023) adds to the judge's mean over
the unlabelled groups the mean correction ``human - judge`` measured on the labelled ones; PPI++
(Angelopoulos, Duchi, Zrnic 2023) weighs the judge by a power-tuning ``lambda`` in [0, 1] chosen
from the data to make the interval as short as it can be (``lambda = 0`` is the human mean,
``lambda = 1`` plain PPI). The numbers are those of ``ppi_py``'s ``ppi_mean_pointestimate`` and
``ppi_mean_ci`` (the labelled and unlabelled groups being disjoint).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping
from statistics import NormalDist
from typing import Literal

import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.stats.per_group import Results, per_group_input

Method = Literal["ppi++", "ppi", "classical"]


class JudgeCorrectionWarning(UserWarning):
    """What was done instead of what was asked: `judge_correction`'s human mean where people
    labelled every group; `judge_labelling_plan`'s people-only design where the precision
    asked is out of reach within ``n_max`` groups."""


#: The columns of `judge_correction`'s result, after ``system`` and ``baseline``.
CORRECTION_COLUMNS = (
    "metric",
    "k",
    "estimate",
    "lower",
    "upper",
    "judge_only",
    "judge_lower",
    "judge_upper",
    "human_only",
    "lambda",
    "n_labelled",
    "n_unlabelled",
    "effective_n",
)


def judge_correction(
    judged: Results | Mapping[str, Results],
    human: Results | Mapping[str, Results],
    *,
    alpha: float = 0.05,
    method: Method = "ppi++",
) -> pl.DataFrame:
    """Each metric's mean corrected for the judge's bias by the groups people labelled.

    Parameters
    ----------
    judged
        An evaluation under the judge's labels (all groups), or its per-group frame; or, for
        several systems, an evaluation of them (``evaluate(..., system=)``) or a
        ``{system: evaluation}`` dict.
    human
        The same under human labels, on a subset of the groups (the same systems).
    alpha
        The intervals cover with probability ``1 - alpha`` (normal approximation).
    method
        ``"ppi++"`` (the tuned ``lambda``), ``"ppi"`` (``lambda = 1``) or ``"classical"``
        (``lambda = 0``: the human labels alone). Where people labelled every group the
        estimate is the human mean whatever the method (``lambda`` 0), with a
        `JudgeCorrectionWarning`.

    Returns
    -------
    pl.DataFrame
        One row per (metric, k), the columns `CORRECTION_COLUMNS`. Given dicts of systems,
        led by ``system`` and ``baseline``: one row per system (``baseline`` null), then one
        per pair of systems in the order given (``system`` minus ``baseline``, paired by
        group). The columns: the corrected ``estimate`` and its
        interval; the judge's own mean over all groups and its interval (which does not count
        the judge's bias); the mean of the human labels; the ``lambda`` used; the number of
        labelled and unlabelled groups; and ``effective_n``, the number of human-labelled
        groups a human-only mean would need for the corrected interval's width.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> judged = pl.DataFrame({"q": [1, 2, 3, 4, 5, 6], "metric": "precision", "k": 5,
    ...                        "value": [0.8, 0.6, 0.4, 0.6, 1.0, 0.2]})
    >>> human = pl.DataFrame({"q": [1, 2, 3], "metric": "precision", "k": 5,
    ...                       "value": [0.6, 0.6, 0.2]})
    >>> result = rk.judge_correction(judged, human, method="ppi")
    >>> result.select("metric", "estimate", "judge_only", "human_only", "n_labelled")
    shape: (1, 5)
    ┌───────────┬──────────┬────────────┬────────────┬────────────┐
    │ metric    ┆ estimate ┆ judge_only ┆ human_only ┆ n_labelled │
    │ ---       ┆ ---      ┆ ---        ┆ ---        ┆ ---        │
    │ str       ┆ f64      ┆ f64        ┆ f64        ┆ u32        │
    ╞═══════════╪══════════╪════════════╪════════════╪════════════╡
    │ precision ┆ 0.466667 ┆ 0.6        ┆ 0.466667   ┆ 3          │
    └───────────┴──────────┴────────────┴────────────┴────────────┘
    """
    if method not in ("ppi++", "ppi", "classical"):
        raise ValueError(f"method must be 'ppi++', 'ppi' or 'classical'; got {method!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    judged_systems = _systems(judged, "judged")
    human_systems = _systems(human, "human")
    if set(judged_systems) != set(human_systems):
        raise ValueError(
            f"judged and human must name the same systems; judged has "
            f"{sorted(judged_systems)}, human {sorted(human_systems)}"
        )
    paired: dict[str, tuple[pl.LazyFrame, list[str]]] = {
        name: paired_values(judged_systems[name], human_systems[name], name)
        for name in judged_systems
    }
    z = NormalDist().inv_cdf(1 - alpha / 2)
    parts = [
        corrected(frame, method, z).with_columns(
            system=pl.lit(name, pl.String), baseline=pl.lit(None, pl.String)
        )
        for name, (frame, _) in paired.items()
    ]
    for first, second in itertools.permutations(paired, 2):
        if list(paired).index(first) > list(paired).index(second):
            continue
        (one, keys), (other, _) = paired[first], paired[second]
        difference = (
            one.join(other, on=[*keys, "metric", "k"], nulls_equal=True)
            .select(
                *keys,
                "metric",
                "k",
                judge=pl.col("judge") - pl.col("judge_right"),
                human=pl.col("human") - pl.col("human_right"),
            )
            .sort([*keys, "metric", "k"], nulls_last=True)
        )
        parts.append(
            corrected(difference, method, z).with_columns(
                system=pl.lit(first, pl.String), baseline=pl.lit(second, pl.String)
            )
        )
    columns = ["system", "baseline"] if list(judged_systems) != [""] else []
    # In memory: the streaming engine sums a group in pieces, in an order that varies.
    result = pl.concat(parts).select(*columns, *CORRECTION_COLUMNS).collect(engine="in-memory")
    every = result.filter(pl.col("n_unlabelled") == 0)
    if every.height:
        warnings.warn(
            f"judge_correction: people labelled every group for {every.height} row(s) (e.g. "
            f"{every.row(0, named=True)['metric']!r}): the estimate is the human mean, the "
            f"judge adding nothing (lambda 0, as method='classical')",
            JudgeCorrectionWarning,
            stacklevel=2,
        )
    return result


def _systems(results: Results | Mapping[str, Results], argument: str) -> dict[str, Results]:
    """``{system: results}``: a dict as given, an evaluation of several systems
    (``evaluate(..., system=)``) split by system, one system under the name ``""``."""
    if isinstance(results, Evaluation) and results.system is not None:
        return dict(results.by_system())
    if isinstance(results, Mapping):
        if not results:
            raise ValueError(f"{argument} holds no system")
        return {str(name): value for name, value in results.items()}
    return {"": results}


def paired_values(judged: Results, human: Results, system: str) -> tuple[pl.LazyFrame, list[str]]:
    """(keys, metric, k, judge, human) with ``human`` null on the unlabelled groups; NaN
    values (a metric undefined on a group) leave that group out of that metric."""
    where = f" (system {system!r})" if system else ""
    judge_input = per_group_input(judged, argument="judged")
    human_input = per_group_input(human, argument="human")
    keys = judge_input.group_keys
    if set(human_input.group_keys) != set(keys):
        raise ValueError(
            f"human{where} is keyed by {human_input.group_keys}, judged by {keys}: the same "
            f"group keys are needed"
        )
    on = [*keys, "metric", "k"]
    judge_frame = judge_input.frame.filter(pl.col("value").is_not_nan()).rename({"value": "judge"})
    human_frame = human_input.frame.filter(pl.col("value").is_not_nan()).rename({"value": "human"})
    stray = human_frame.join(judge_input.frame, on=on, how="anti", nulls_equal=True)
    offending = stray.head(1).collect()
    if offending.height:
        raise ValueError(
            f"human{where} has a group (or metric) that judged lacks; every human-labelled "
            f"group must also be judged: e.g. row {offending.row(0, named=True)}"
        )
    missing = judge_frame.select("metric", "k").unique().join(
        human_frame.select("metric", "k").unique(), on=["metric", "k"], how="anti",
        nulls_equal=True,
    ).head(1).collect()  # fmt: skip
    if missing.height:
        raise ValueError(
            f"human{where} has no labelled group for metric {missing.row(0, named=True)} "
            f"that judged holds: the correction needs at least two"
        )
    frame = judge_frame.join(human_frame, on=on, how="left", nulls_equal=True)
    # In a fixed order: the moments are sums, and a join's row order varies between calls.
    return frame.sort(on, nulls_last=True), keys


def corrected(frame: pl.LazyFrame, method: Method, z: float) -> pl.LazyFrame:
    """The PPI estimate per (metric, k) from (metric, k, judge, human) rows, in moments.

    With ``Y`` human and ``F`` judge on the n labelled groups and ``F~`` on the N unlabelled:
    ``lambda = clip(cov(Y, F) / ((1 + n/N) var(F, F~)), 0, 1)`` (population covariance,
    sample variance over all groups, as ``ppi_py``), estimate ``lambda mean(F~) + mean(Y -
    lambda F)``, squared standard error ``lambda^2 var(F~)/N + var(Y - lambda F)/n``
    (population variances)."""
    labelled = pl.col("human").is_not_null()
    human, judge = pl.col("human"), pl.col("judge")
    judge_on_labelled = judge.filter(labelled)
    judge_unlabelled = judge.filter(~labelled)
    moments = frame.group_by("metric", "k").agg(
        n_labelled=labelled.sum(),
        n_unlabelled=(~labelled).sum(),
        human_only=human.mean(),
        human_variance=human.var(ddof=0),
        judge_labelled=judge_on_labelled.mean(),
        judge_labelled_variance=judge_on_labelled.var(ddof=0),
        covariance=(
            (human.filter(labelled) - human.mean()) * (judge_on_labelled - judge_on_labelled.mean())
        ).mean(),
        judge_unlabelled=judge_unlabelled.mean(),
        judge_unlabelled_variance=judge_unlabelled.var(ddof=0),
        judge_only=judge.mean(),
        judge_variance=judge.var(ddof=1),
        judge_variance_population=judge.var(ddof=0),
        n_all=judge.len(),
    )
    n, big_n = pl.col("n_labelled"), pl.col("n_unlabelled")
    if method == "ppi++":
        tuned = pl.col("covariance") / ((1 + n / big_n) * pl.col("judge_variance"))
        # A judge that gives every group one value carries nothing to learn from.
        weight = pl.when(pl.col("judge_variance") > 0).then(tuned.clip(0.0, 1.0)).otherwise(0.0)
    else:
        weight = pl.lit(1.0 if method == "ppi" else 0.0)
    # Every group labelled by people: nothing left for the judge to add, the human mean
    # (ppi_py's classical_mean_ci; `judge_correction` says so).
    judged_only = big_n > 0
    weight = pl.when(judged_only).then(weight).otherwise(0.0)
    lam = pl.col("lambda")
    rectifier_variance = (
        pl.col("human_variance")
        - 2 * lam * pl.col("covariance")
        + lam**2 * pl.col("judge_labelled_variance")
    ).clip(lower_bound=0.0)
    judge_part = pl.when(judged_only).then(lam * pl.col("judge_unlabelled")).otherwise(0.0)
    judge_variance = (
        pl.when(judged_only)
        .then(lam**2 * pl.col("judge_unlabelled_variance") / big_n)
        .otherwise(0.0)
    )
    standard_error = (judge_variance + rectifier_variance / n).sqrt().alias("standard_error")
    judge_error = (pl.col("judge_variance_population") / pl.col("n_all")).sqrt()
    return (
        moments.with_columns(weight.cast(pl.Float64).alias("lambda"))
        .with_columns(
            estimate=judge_part + pl.col("human_only") - lam * pl.col("judge_labelled"),
            standard_error=standard_error,
        )
        .with_columns(
            lower=pl.col("estimate") - z * pl.col("standard_error"),
            upper=pl.col("estimate") + z * pl.col("standard_error"),
            judge_lower=pl.col("judge_only") - z * judge_error,
            judge_upper=pl.col("judge_only") + z * judge_error,
            effective_n=pl.col("human_variance") / pl.col("standard_error") ** 2,
        )
        .sort("metric", "k", nulls_last=False)
    )
