"""How far to trust a judge: its grades against people's on the judgements both made (Cohen's
kappa), and the systems' orderings under each set of labels (Kendall's tau, tau_AP).

Kappa follows scikit-learn's ``cohen_kappa_score``: the grades are the classes of the union of
both sets, and the linear and quadratic weights are distances between their positions in that
sorted union. Kendall's tau is tau-b (scipy's ``kendalltau``). tau_AP (Yilmaz, Aslam &
Robertson, SIGIR 2008) weighs a swap near the top more: the judge's ordering is scored against
the people's, each ordering by mean, best first, ties broken by the system's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core import Policy, evaluate, to_lazy
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.per_group import as_list

#: The kappa weightings, by name: the disagreement weight of two grades ``i`` and ``j`` apart.
KAPPA_WEIGHTS = ("unweighted", "linear", "quadratic")


@dataclass(frozen=True)
class JudgeAgreement:
    """The judge against people.

    Attributes
    ----------
    kappa
        One row per weighting (``weights``: `KAPPA_WEIGHTS`): ``kappa`` and ``n_shared``, the
        number of (group, item) judgements both made.
    means
        With systems: one row per (system, metric, k): ``judge`` and ``human``, the system's
        mean over the groups people judged, under each set of labels.
    orderings
        With systems: one row per (metric, k): ``kendall_tau`` (tau-b), ``tau_ap`` (the
        judge's ordering scored against the people's), ``n_systems``, ``n_swapped``.
    swaps
        With systems: the pairs the two orderings put the other way round: ``metric, k,
        system, other`` (``system`` ahead under the judge), ``judge_difference``,
        ``human_difference``.
    """

    kappa: pl.DataFrame
    means: pl.DataFrame | None
    orderings: pl.DataFrame | None
    swaps: pl.DataFrame | None


def judge_agreement(
    judged_truth: FrameLike,
    human_truth: FrameLike,
    *,
    group_by: str | Sequence[str],
    item: str = "item",
    relevance: str = "relevance",
    systems: Mapping[str, FrameLike] | None = None,
    metrics: str | Sequence[str] = "ndcg",
    k: int = 10,
    policy: Policy | None = None,
) -> JudgeAgreement:
    """Agreement of a judge's labels with people's, on grades and on the systems' orderings.

    Parameters
    ----------
    judged_truth, human_truth
        The two truth tables: the `group_by` columns, `item` and `relevance` (grades).
    group_by, item, relevance
        Their columns (as in `polars_rankk.evaluate`).
    systems
        ``{name: candidates}``: each system is evaluated under both truths on the groups
        people judged, and the orderings of the systems' means are compared (two at least).
    metrics, k, policy
        What the systems are compared on (as in `polars_rankk.evaluate`).

    Returns
    -------
    JudgeAgreement

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> judge = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 2, 3, 4], "relevance": [2, 1, 0, 1]})
    >>> human = pl.DataFrame({"q": [1, 1, 2, 2], "item": [1, 2, 3, 4], "relevance": [2, 0, 0, 1]})
    >>> rk.judge_agreement(judge, human, group_by="q").kappa
    shape: (3, 3)
    ┌────────────┬──────────┬──────────┐
    │ weights    ┆ kappa    ┆ n_shared │
    │ ---        ┆ ---      ┆ ---      │
    │ str        ┆ f64      ┆ u32      │
    ╞════════════╪══════════╪══════════╡
    │ unweighted ┆ 0.636364 ┆ 4        │
    │ linear     ┆ 0.714286 ┆ 4        │
    │ quadratic  ┆ 0.8      ┆ 4        │
    └────────────┴──────────┴──────────┘
    """
    keys = as_list(group_by, "group_by")
    judge_frame = _truth(judged_truth, "judged_truth", keys, item, relevance)
    human_frame = _truth(human_truth, "human_truth", keys, item, relevance)
    shared = judge_frame.join(human_frame, on=[*keys, item], suffix="_human")
    kappa = pl.concat(
        [_kappa(shared, relevance, f"{relevance}_human", weights) for weights in KAPPA_WEIGHTS]
    ).collect()
    if systems is None:
        return JudgeAgreement(kappa, None, None, None)
    if len(systems) < 2:
        raise ValueError(f"systems: two systems at least are compared; got {list(systems)}")
    names = as_list(metrics, "metrics")
    human_groups = human_frame.select(keys).unique()
    means = []
    for name, candidates in systems.items():
        for labels, truth in (("judge", judge_frame), ("human", human_frame)):
            per_group = evaluate(
                candidates, truth.collect(), k=k, metrics=names, group_by=keys, item=item,
                relevance=relevance, policy=policy,
            ).per_group.lazy()  # fmt: skip
            means.append(
                per_group.join(human_groups, on=keys)
                .group_by("metric", "k")
                .agg(pl.col("value").mean())
                .with_columns(system=pl.lit(name), labels=pl.lit(labels))
            )
    table = (
        pl.concat(means)
        .collect()
        .pivot("labels", index=["system", "metric", "k"], values="value")
        .select("system", "metric", "k", "judge", "human")
    )
    orderings, swaps = _orderings(table)
    return JudgeAgreement(kappa, table, orderings, swaps)


def _truth(
    frame: FrameLike, argument: str, keys: list[str], item: str, relevance: str
) -> pl.LazyFrame:
    lazy = to_lazy(frame, argument)
    names = lazy.collect_schema().names()
    missing = [column for column in [*keys, item, relevance] if column not in names]
    if missing:
        raise ValueError(f"{argument}: missing column(s) {missing}; columns are {names}")
    return lazy.select(*keys, item, pl.col(relevance).cast(pl.Float64))


def _kappa(shared: pl.LazyFrame, judge: str, human: str, weights: str) -> pl.LazyFrame:
    """Cohen's kappa, ``1 - observed / expected`` weighted disagreement, from the contingency
    table of the shared judgements (grades at their positions in the sorted union)."""
    grades = (
        pl.concat([shared.select(grade=pl.col(judge)), shared.select(grade=pl.col(human))])
        .unique()
        .sort("grade")
        .with_row_index("position")
    )
    positions = shared.join(grades, left_on=judge, right_on="grade").join(
        grades, left_on=human, right_on="grade", suffix="_human"
    )
    total = pl.len().cast(pl.Float64)
    rows = positions.group_by("position").agg(share=total)
    columns = positions.group_by("position_human").agg(share_human=total)
    distance = (pl.col("position").cast(pl.Int64) - pl.col("position_human").cast(pl.Int64)).abs()
    weight = {
        "unweighted": (distance > 0).cast(pl.Float64),
        "linear": distance.cast(pl.Float64),
        "quadratic": distance.cast(pl.Float64) ** 2,
    }[weights]
    observed = positions.select(observed=weight.mean(), n_shared=pl.len())
    expected = rows.join(columns, how="cross").select(
        expected=(weight * pl.col("share") * pl.col("share_human")).sum()
    )
    return observed.join(expected, how="cross").select(
        weights=pl.lit(weights),
        kappa=1 - pl.col("observed") * pl.col("n_shared") ** 2 / pl.col("expected"),
        n_shared=pl.col("n_shared"),
    )


def _orderings(means: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Kendall's tau-b, tau_AP and the swapped pairs from every pair of systems."""
    ordered = means.with_columns(
        judge_position=pl.struct(-pl.col("judge"), "system").rank("ordinal").over("metric", "k"),
        human_position=pl.struct(-pl.col("human"), "system").rank("ordinal").over("metric", "k"),
    )
    pairs = ordered.join(ordered, on=["metric", "k"], suffix="_other", nulls_equal=True).filter(
        pl.col("judge_position") < pl.col("judge_position_other")
    )
    judge_sign = (pl.col("judge") - pl.col("judge_other")).sign()
    human_sign = (pl.col("human") - pl.col("human_other")).sign()
    n = pl.col("n_systems").cast(pl.Float64)
    pairs_count = n * (n - 1) / 2
    # tau_AP: each system below the top, the share of the systems the judge puts above it
    # that people put above it too.
    correct_above = (
        pairs.group_by("metric", "k", "system_other", "judge_position_other")
        .agg(share=(pl.col("human_position") < pl.col("human_position_other")).mean())
        .group_by("metric", "k")
        .agg(share_sum=pl.col("share").sum())
    )
    orderings = (
        pairs.group_by("metric", "k")
        .agg(
            product=(judge_sign * human_sign).sum(),
            judge_ties=(judge_sign == 0).sum(),
            human_ties=(human_sign == 0).sum(),
            n_swapped=(judge_sign * human_sign < 0).sum(),
        )
        .join(ordered.group_by("metric", "k").agg(n_systems=pl.len()), on=["metric", "k"],
              nulls_equal=True)
        .join(correct_above, on=["metric", "k"], nulls_equal=True)
        .select(
            "metric",
            "k",
            kendall_tau=pl.col("product")
            / ((pairs_count - pl.col("judge_ties")) * (pairs_count - pl.col("human_ties"))).sqrt(),
            tau_ap=2 / (n - 1) * pl.col("share_sum") - 1,
            n_systems="n_systems",
            n_swapped="n_swapped",
        )
        .sort("metric", "k")
    )  # fmt: skip
    swaps = (
        pairs.filter(judge_sign * human_sign < 0)
        .select(
            "metric",
            "k",
            "system",
            other="system_other",
            judge_difference=pl.col("judge") - pl.col("judge_other"),
            human_difference=pl.col("human") - pl.col("human_other"),
        )
        .sort("metric", "k", "system", "other")
    )
    return orderings, swaps
