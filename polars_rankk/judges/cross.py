"""Cross-prediction-powered correction: the judge was tuned on part of the human labels.

A judge fitted (prompt-tuned, fine-tuned, calibrated) on labelled groups is no longer
independent of them, and plain PPI's correction, measured on those same groups, is biased.
Cross-PPI (Zrnic & Candes, PNAS 2024) splits the labelled groups into folds, tunes one judge
per fold on the other folds, and reads each labelled group with the judge that did not see it;
an unlabelled group is read with the mean of every fold's judge. The estimate is then plain
PPI's (``lambda = 1``) on those values, as ``ppi_py``'s ``crossppi_mean_pointestimate`` and
``crossppi_mean_ci``.
"""

from __future__ import annotations

from collections.abc import Mapping
from statistics import NormalDist

import polars as pl

from polars_rankk.core import align_ids, to_lazy
from polars_rankk.core.types import FrameLike
from polars_rankk.judges.correction import CORRECTION_COLUMNS, corrected
from polars_rankk.stats.per_group import Results, per_group_input


def judge_cross_correction(
    judges: Mapping[str, Results],
    human: Results,
    folds: FrameLike,
    *,
    fold: str = "fold",
    alpha: float = 0.05,
) -> pl.DataFrame:
    """Each metric's mean corrected by human labels some of which tuned the judge (cross-PPI).

    Parameters
    ----------
    judges
        ``{fold: evaluation}``: one evaluation (or per-group frame) per fold's judge, each over
        every group, under the labels of the judge tuned without that fold's groups.
    human
        The evaluation under human labels, on the labelled groups.
    folds
        The group keys of every human-labelled group and, in column `fold`, the fold it
        belongs to (a key of `judges`): its value is read from that fold's judge.
    alpha
        The intervals cover with probability ``1 - alpha`` (normal approximation).

    Returns
    -------
    pl.DataFrame
        One row per (metric, k), the columns of `judge_correction` (`CORRECTION_COLUMNS`):
        the estimate and its interval; ``judge_only``, the mean of the judges' values (each
        labelled group's from its fold's judge, the others averaged over the folds);
        ``lambda`` 1. The numbers equal ``ppi_py``'s ``crossppi_mean_pointestimate`` and
        ``crossppi_mean_ci``.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> judges = {f: pl.DataFrame({"q": range(6), "metric": "ndcg", "k": 10, "value": v})
    ...           for f, v in [("a", [0.8, 0.6, 0.4, 0.6, 1.0, 0.2]),
    ...                        ("b", [0.7, 0.5, 0.5, 0.7, 0.8, 0.4])]}
    >>> human = pl.DataFrame({"q": [0, 1, 2, 3], "metric": "ndcg", "k": 10,
    ...                       "value": [0.6, 0.6, 0.2, 0.5]})
    >>> folds = pl.DataFrame({"q": [0, 1, 2, 3], "fold": ["a", "a", "b", "b"]})
    >>> round(rk.judge_cross_correction(judges, human, folds)["estimate"].item(), 4)
    0.425
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    if not isinstance(judges, Mapping) or len(judges) < 2:
        raise ValueError("judges must map each fold to its judge's evaluation, two folds or more")
    inputs = {
        str(name): per_group_input(r, argument=f"judges[{name!r}]") for name, r in judges.items()
    }
    human_input = per_group_input(human, argument="human")
    keys = human_input.group_keys
    for name, one in inputs.items():
        if set(one.group_keys) != set(keys):
            raise ValueError(
                f"judges[{name!r}] is keyed by {one.group_keys}, human by {keys}: the same "
                f"group keys are needed"
            )
    cell = ["metric", "k"]
    values = pl.concat(
        [
            one.frame.filter(pl.col("value").is_not_nan()).select(
                *keys, *cell, pl.col("value").alias("judge"), pl.lit(name).alias(fold)
            )
            for name, one in inputs.items()
        ]
    )
    people = human_input.frame.filter(pl.col("value").is_not_nan()).rename({"value": "human"})
    given = to_lazy(folds, "folds")
    absent = [c for c in (*keys, fold) if c not in given.collect_schema()]
    if absent:
        raise ValueError(f"folds needs columns {[*keys, fold]}; it lacks {absent}")
    # The keys in one dtype, as `evaluate` aligns ids (the joins below would raise else).
    people, given = align_ids(people, given, keys, names=("human", "folds"))
    assigned = _checked_folds(given, people, keys, fold, list(inputs))
    labelled = people.join(assigned, on=keys).join(values, on=[*keys, *cell, fold])
    missing = people.join(labelled, on=[*keys, *cell], how="anti", nulls_equal=True)
    offending = missing.head(1).collect()
    if offending.height:
        raise ValueError(
            f"human has a labelled group (or metric) that its fold's judge lacks: e.g. row "
            f"{offending.row(0, named=True)}"
        )
    unlabelled = (
        values.join(people.select(keys).unique(), on=keys, how="anti", nulls_equal=True)
        .group_by(*keys, *cell)
        .agg(pl.col("judge").mean(), pl.len().alias("_judges"))
    )
    short = unlabelled.filter(pl.col("_judges") < len(inputs)).head(1).collect()
    if short.height:
        lacking = len(inputs) - short["_judges"].item()
        raise ValueError(
            f"every fold's judge must give every unlabelled group a value; {lacking} lack "
            f"e.g. {short.drop('_judges').row(0, named=True)}"
        )
    frame = pl.concat(
        [
            labelled.select(*keys, *cell, "judge", "human"),
            unlabelled.select(*keys, *cell, "judge", pl.lit(None, pl.Float64).alias("human")),
        ]
    ).sort([*keys, *cell], nulls_last=True)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    found = corrected(frame, "ppi", z).select(CORRECTION_COLUMNS)
    return found.collect(engine="in-memory")  # in memory: sums in a fixed order


def _checked_folds(
    folds: pl.LazyFrame, people: pl.LazyFrame, keys: list[str], fold: str, names: list[str]
) -> pl.LazyFrame:
    """(keys, fold): one fold, a key of `judges`, for every human-labelled group."""
    assigned = folds.select(*keys, pl.col(fold).cast(pl.String)).unique()
    repeated = assigned.filter(pl.len().over(keys) > 1).head(1).collect()
    if repeated.height:
        raise ValueError(f"folds gives a group two folds: e.g. {repeated.row(0, named=True)}")
    unknown = assigned.filter(~pl.col(fold).is_in(names)).head(1).collect()
    if unknown.height:
        raise ValueError(
            f"folds names a fold that judges lacks ({names}): e.g. {unknown.row(0, named=True)}"
        )
    unassigned = people.join(assigned, on=keys, how="anti").head(1).collect()
    if unassigned.height:
        raise ValueError(
            f"every human-labelled group needs its fold in folds: e.g. "
            f"{unassigned.row(0, named=True)}"
        )
    return assigned
