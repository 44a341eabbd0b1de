"""How far to trust a judge: its grades against people's on the judgements both made (Cohen's
kappa), and the systems' orderings under each set of labels (Kendall's tau, tau_AP).

Kappa follows scikit-learn's ``cohen_kappa_score``: the grades are the classes of the union of
both sets, and the linear and quadratic weights are distances between their positions in that
sorted union. A (group, item) judged twice in one truth counts once, at its highest grade, as
`polars_rankk.evaluate` reads a truth. A system's mean is the library's macro mean (values
summed in ascending order), so it does not depend on row order and two systems tie exactly
when their means are equal. Kendall's tau is tau-b (scipy's ``kendalltau``). tau_AP (Yilmaz,
Aslam & Robertson, SIGIR 2008) weighs a swap near the top more: the judge's ordering is scored
against the people's, each best first; tied means are not ordered by name but every order of
each tie is equally likely, and tau_AP is its expectation over them (in closed form).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core import (
    Policy,
    align_ids,
    evaluate,
    example_row,
    summarize_histogram,
    to_lazy,
    value_histogram,
)
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
        number of (group, item) judgements both made (each once).
    means
        With systems: one row per (system, metric, k): ``judge`` and ``human``, the system's
        macro mean over the groups people judged, under each set of labels.
    orderings
        With systems: one row per (metric, k): ``kendall_tau`` (tau-b), ``tau_ap`` (the
        judge's ordering scored against the people's, averaged over the orders of tied
        means), ``n_systems``, ``n_swapped``, and ``judge_ties`` and ``human_ties``: the pairs
        of systems whose means are exactly equal under each set of labels.
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
    judge_frame, human_frame = align_ids(
        judge_frame, human_frame, [*keys, item], names=("judged_truth", "human_truth")
    )
    shared = judge_frame.join(human_frame, on=[*keys, item], suffix="_human")
    _check_shared(judge_frame, human_frame, shared, keys, item)
    kappa = pl.concat(
        [_kappa(shared, relevance, f"{relevance}_human", weights) for weights in KAPPA_WEIGHTS]
    ).collect()
    if systems is None:
        return JudgeAgreement(kappa, None, None, None)
    if len(systems) < 2:
        raise ValueError(f"systems: two systems at least are compared; got {list(systems)}")
    names = as_list(metrics, "metrics")
    human_groups = human_frame.select(keys).unique()
    per_groups = []
    for name, candidates in systems.items():
        for labels, truth in (("judge", judge_frame), ("human", human_frame)):
            per_group = evaluate(
                candidates, truth.collect(), k=k, metrics=names, group_by=keys, item=item,
                relevance=relevance, policy=policy,
            ).per_group.lazy()  # fmt: skip
            per_groups.append(
                per_group.join(human_groups, on=keys, how="semi")
                .select("metric", "k", "value")
                .with_columns(system=pl.lit(name), labels=pl.lit(labels))
            )
    # The library's macro mean: values summed in ascending order, so a mean is the same
    # last bit however the rows came, and equal means are ties, not noise.
    by = ["system", "labels"]
    table = (
        summarize_histogram(value_histogram(pl.concat(per_groups), by), by)
        .pivot("labels", index=["system", "metric", "k"], values="value")
        .select("system", "metric", "k", "judge", "human")
        .sort("system", "metric", "k")
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
    frame = lazy.select(*keys, item, pl.col(relevance).cast(pl.Float64)).collect()
    copies = frame.group_by([*keys, item]).agg(_copies=pl.len()).filter(pl.col("_copies") > 1)
    if copies.height:
        removed = int(copies["_copies"].sum()) - copies.height
        example = example_row(copies.lazy().sort([*keys, item]), pl.lit(True), [*keys, item])
        warnings.warn(
            f"{argument}: {removed} repeated ({', '.join([*keys, item])}) row(s) removed; each "
            f"judgement counts once, at its highest {relevance!r}, as evaluate reads a truth; "
            f"e.g. {example}",
            UserWarning,
            stacklevel=3,
        )
    return frame.lazy().group_by([*keys, item]).agg(pl.col(relevance).max())


def _check_shared(
    judge: pl.LazyFrame, human: pl.LazyFrame, shared: pl.LazyFrame, keys: list[str], item: str
) -> None:
    """Kappa needs judgements both made: no shared group, or no shared item, is said."""
    if shared.select(pl.len()).collect().item() > 0:
        return
    judge_groups, human_groups = judge.select(keys).unique(), human.select(keys).unique()
    n_shared_groups = judge_groups.join(human_groups, on=keys).select(pl.len()).collect().item()
    first = {
        name: example_row(frame.sort(keys), pl.lit(True), keys)
        for name, frame in (("judged_truth", judge_groups), ("human_truth", human_groups))
    }
    if n_shared_groups == 0:
        raise ValueError(
            f"judged_truth and human_truth share no group ({', '.join(keys)}): "
            f"judged_truth has e.g. {first['judged_truth']}, human_truth e.g. "
            f"{first['human_truth']}; agreement compares the grades both gave the same "
            f"(group, item): pass truths of the same groups (same keys, same ids)"
        )
    raise ValueError(
        f"judged_truth and human_truth share {n_shared_groups} group(s) but no ({item}) "
        f"judged in both: agreement compares the grades both gave the same (group, item); "
        f"check that the {item!r} ids of the two tables are the same ids"
    )


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
    # Each unordered pair once (the name only picks which of the two is written first).
    pairs = means.join(means, on=["metric", "k"], suffix="_other", nulls_equal=True).filter(
        pl.col("system") < pl.col("system_other")
    )
    judge_sign = (pl.col("judge") - pl.col("judge_other")).sign()
    human_sign = (pl.col("human") - pl.col("human_other")).sign()
    n = pl.col("n_systems").cast(pl.Float64)
    pairs_count = n * (n - 1) / 2
    orderings = (
        pairs.group_by("metric", "k")
        .agg(
            product=(judge_sign * human_sign).sum(),
            judge_ties=(judge_sign == 0).sum().cast(pl.UInt32),
            human_ties=(human_sign == 0).sum().cast(pl.UInt32),
            n_swapped=(judge_sign * human_sign < 0).sum().cast(pl.UInt32),
        )
        .join(means.group_by("metric", "k").agg(n_systems=pl.len()), on=["metric", "k"],
              nulls_equal=True)
        .join(_tau_ap(means), on=["metric", "k"], nulls_equal=True)
        .select(
            "metric",
            "k",
            kendall_tau=pl.col("product")
            / ((pairs_count - pl.col("judge_ties")) * (pairs_count - pl.col("human_ties"))).sqrt(),
            tau_ap=2 / (n - 1) * pl.col("share_sum") - 1,
            n_systems="n_systems",
            n_swapped="n_swapped",
            judge_ties="judge_ties",
            human_ties="human_ties",
        )
        .sort("metric", "k")
    )  # fmt: skip
    swaps = (
        pairs.filter(judge_sign * human_sign < 0)
        .with_columns(judge_first=judge_sign > 0)
        .select(
            "metric",
            "k",
            system=pl.when("judge_first").then("system").otherwise("system_other"),
            other=pl.when("judge_first").then("system_other").otherwise("system"),
            judge_difference=(pl.col("judge") - pl.col("judge_other")).abs(),
            human_difference=-(pl.col("human") - pl.col("human_other")).abs(),
        )
        .sort("metric", "k", "system", "other")
    )
    return orderings, swaps


def _tau_ap(means: pl.DataFrame) -> pl.DataFrame:
    """metric, k, share_sum: the sum over systems below the top of the judge's ordering of
    C(i)/(i-1), the share of the systems above that people put above too, in expectation
    over every order of tied means (each equally likely, the two orderings independently).

    A system ``s`` with ``m`` systems strictly above it and ``b - 1`` tied with it (judge's
    means) stands at position ``m + 1 + J``, ``J`` uniform on ``0..b-1``, under a uniform
    ``J``-subset of its ties. Another system is above it in the people's ordering with
    probability ``q``: 1 above, 1/2 tied, 0 below. So its expected term is
    ``(1/b) sum_J (Q + J R) / (m + J)`` over ``m + J > 0``, with ``Q`` the sum of ``q`` over
    the systems strictly above and ``R`` the mean ``q`` over its ties, which is
    ``((Q - m R) H + R c) / b`` with ``H = sum 1/(m + J)`` and ``c`` the terms counted.
    """
    ordered = means.join(means, on=["metric", "k"], suffix="_other", nulls_equal=True).filter(
        pl.col("system") != pl.col("system_other")
    )
    above = pl.col("judge_other") > pl.col("judge")
    tied = pl.col("judge_other") == pl.col("judge")
    q = (
        pl.when(pl.col("human_other") > pl.col("human"))
        .then(1.0)
        .when(pl.col("human_other") == pl.col("human"))
        .then(0.5)
        .otherwise(0.0)
    )
    per_system = ordered.group_by("metric", "k", "system").agg(
        m=above.sum().cast(pl.Int64),
        b=tied.sum().cast(pl.Int64) + 1,
        big_q=q.filter(above).sum(),
        tied_q=q.filter(tied).sum(),
    )
    m, b = pl.col("m"), pl.col("b")
    r = pl.when(b > 1).then(pl.col("tied_q") / (b - 1).cast(pl.Float64)).otherwise(0.0)
    harmonic = (
        pl.int_ranges(pl.max_horizontal(m, 1), m + b)
        .list.eval(1.0 / pl.element().cast(pl.Float64))
        .list.sum()
    )
    counted = (b - (m == 0).cast(pl.Int64)).cast(pl.Float64)
    term = ((pl.col("big_q") - m.cast(pl.Float64) * r) * harmonic + r * counted) / b
    # Summed in ascending order: the same last bit whatever the systems are called.
    return (
        per_system.select("metric", "k", term=term)
        .sort("metric", "k", "term", nulls_last=True)
        .group_by("metric", "k", maintain_order=True)
        .agg(share_sum=pl.col("term").sum())
    )
