"""How much could incomplete judgements move a result? Bounds from relabelling.

A retrieved item the truth does not judge counts as non-relevant in most metrics, so a
system that retrieves many unjudged items may be better than it looks (Buckley & Voorhees,
SIGIR 2004; Zobel, SIGIR 1998). `unjudged_bounds` evaluates every metric twice more at each K,
with the unjudged items a group retrieved within the top K added to the truth:

- ``lower``: as judged non-relevant (grade 0);
- ``upper``: as relevant at the threshold grade (``Policy.relevance_threshold``), so they also
  count in R_g and the ideal DCG, as a judgement would make them.

Both are ordinary evaluations of a relabelled truth (a lazy anti-join and concatenation), so
every metric and every policy works as in `evaluate`. For metrics that only grow when a
retrieved item becomes relevant (precision, recall, F1, hit rate, RR, DCG, ERR, RBP) the
value once the items are judged lies between the two (and ``lower`` is the value itself:
unjudged items already count as non-relevant there). Metrics normalised by what the truth
holds can leave that range, since a judgement also raises R_g or the ideal DCG (AP with a
relevant item at rank 1 and an unjudged one at rank 3 falls from 1 to 5/6 when it is judged
relevant; nDCG and R-precision likewise), and bpref divides by min(R, N), so an added
non-relevant item can raise it; those that read judgements themselves (``judged``,
``rbp_residual``) give the metric under each labelling. The two columns are the metric under
the two labellings, not a guarantee for every metric.

"Within the top K" reads the order `evaluate` ranks (`Evaluation.ranked_items`), with
unjudged items kept in the ranking (as ``unjudged="keep"`` does), so that under
``unjudged="condense"`` too the items the system put in the top K are judged; under
``ties="expected"`` every item of a tie block that reaches into the top K counts. Metrics
without a K (``r_precision``, ``bpref``) use the largest K. Only groups of the truth are
relabelled: no group is added. A truth grade below 0 under ``negative_grades="unjudged"``
is unjudged and relabelled too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import polars as pl

from polars_rankk.core import Evaluation, evaluate, normalize_keys, to_lazy
from polars_rankk.core.inputs.normalize import align_ids
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.per_group import sort_rows

#: The value columns of `UnjudgedBounds.per_group` and `UnjudgedBounds.summary`.
BOUND_COLUMNS: tuple[str, ...] = ("lower", "value", "upper")


@dataclass(frozen=True)
class UnjudgedBounds:
    """What `unjudged_bounds` returns.

    Attributes
    ----------
    per_group
        One row per (group, metric, k): ``lower``, ``value`` (as evaluated), ``upper``,
        ``n_unjudged`` (the unjudged items the group retrieved within the top K).
    summary
        One row per (metric, k): the means of ``lower``, ``value`` and ``upper`` as
        `Evaluation.summary` computes them (each over the groups its evaluation keeps),
        ``width`` = upper − lower, and ``unjudged_share``: the unjudged items within the top
        K over all items there.
    """

    per_group: pl.DataFrame
    summary: pl.DataFrame


def unjudged_items(
    ranked: pl.LazyFrame,
    truth: pl.LazyFrame,
    keys: list[str],
    item: str,
    relevance: str,
    policy: Policy,
) -> pl.LazyFrame:
    """Ranked candidates of the truth's groups with no judgement (no truth row; or only
    negative grades, under ``negative_grades="unjudged"``): keys, item, rank."""
    judged = truth
    if policy.negative_grades == "unjudged" and relevance in truth.collect_schema():
        judged = truth.filter(pl.col(relevance) >= 0)
    groups = truth.select(keys).unique()
    return ranked.join(groups, on=keys, how="semi", nulls_equal=True).join(
        judged.select(*keys, item), on=[*keys, item], how="anti", nulls_equal=True
    )


def relabelled(
    truth: pl.LazyFrame,
    unjudged: pl.LazyFrame,
    keys: list[str],
    item: str,
    relevance: str,
    grade: float,
) -> pl.LazyFrame:
    """`truth` with the `unjudged` items judged at `grade` (their earlier rows, negative
    grades, replaced)."""
    if relevance in truth.collect_schema():
        truth = truth.with_columns(pl.col(relevance).cast(pl.Float64))
    else:  # every truth row is relevant at grade 1
        truth = truth.with_columns(pl.lit(1.0).alias(relevance))
    schema = truth.collect_schema()
    added = unjudged.select(*keys, item).unique().with_columns(pl.lit(grade).alias(relevance))
    added = added.select(
        pl.col(c).cast(schema[c])
        if c in (*keys, item, relevance)
        else pl.lit(None, schema[c]).alias(c)
        for c in schema.names()
    )
    kept = truth.join(added.select(*keys, item), on=[*keys, item], how="anti", nulls_equal=True)
    return pl.concat([kept, added])


def unjudged_bounds(
    candidates: FrameLike,
    truth: FrameLike,
    *,
    k: int | Iterable[int] | None = None,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    rank: str | None = None,
    relevance: str = "relevance",
    policy: Policy | None = None,
) -> UnjudgedBounds:
    """Every metric with the unjudged items retrieved within the top K counted as
    non-relevant (``lower``) and as relevant at the threshold grade (``upper``), per group
    and summarised (see the module docstring).

    Parameters
    ----------
    candidates, truth, k, metrics, group_by, item, score, rank, relevance, policy
        As in `polars_rankk.evaluate`.

    Returns
    -------
    UnjudgedBounds
        ``per_group`` and ``summary`` frames (eager).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> candidates = pl.DataFrame({"q": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                            "score": [0.9, 0.8, 0.7, 0.9, 0.8]})
    >>> truth = pl.DataFrame({"q": [1, 1, 2], "item": [1, 3, 5], "relevance": [1, 0, 1]})
    >>> bounds = rk.unjudged_bounds(candidates, truth, k=2, metrics="precision", group_by="q")
    >>> bounds.summary.select("metric", "k", "lower", "value", "upper", "unjudged_share")
    shape: (1, 6)
    ┌───────────┬─────┬───────┬───────┬───────┬────────────────┐
    │ metric    ┆ k   ┆ lower ┆ value ┆ upper ┆ unjudged_share │
    │ ---       ┆ --- ┆ ---   ┆ ---   ┆ ---   ┆ ---            │
    │ str       ┆ i64 ┆ f64   ┆ f64   ┆ f64   ┆ f64            │
    ╞═══════════╪═════╪═══════╪═══════╪═══════╪════════════════╡
    │ precision ┆ 2   ┆ 0.5   ┆ 0.5   ┆ 1.0   ┆ 0.5            │
    └───────────┴─────┴───────┴───────┴───────┴────────────────┘
    """
    chosen = policy if policy is not None else Policy()
    keys = list(normalize_keys(group_by))
    # What was asked is planned here, once: names carry cut-offs (P@5) and policy fields
    # (P(rel=2)@5: the threshold they set is the grade of the upper labelling).
    plan = Plan.of(metrics, k, chosen)
    request = plan.request
    subtopics = [m for m in request.metrics if REGISTRY[m].kind == "diversity"]
    if subtopics:
        # The bounds relabel (group, item) judgements: a subtopic's have no upper labelling.
        raise ValueError(
            f"unjudged_bounds does not compute the subtopic metrics {subtopics} (it takes no "
            "subtopic column); evaluate them with rk.evaluate(..., subtopic=...)"
        )
    resolved = plan.one_policy.policy
    ks = list(plan.ks)
    # The ids as `evaluate` aligns them (UInt64 ids beyond Int64 beside Int64 ones: Int128),
    # so that the relabelled rows keep every candidate's id.
    _, lazy_truth = align_ids(to_lazy(candidates, "candidates"), to_lazy(truth, "truth"),
                              [*keys, item])  # fmt: skip

    def run(labels: FrameLike, cutoffs: list[int], rules: Policy) -> Evaluation:
        planned = plan.at(cutoffs)
        if rules != chosen:
            planned = planned.with_policy(unjudged=rules.unjudged)
        found = evaluate(
            candidates, labels, metrics=planned, group_by=keys, item=item, score=score,
            rank=rank, relevance=relevance,
        )  # fmt: skip
        return found.collect() if found.is_lazy else found

    plain = run(truth, ks, chosen)
    keep = replace(chosen, unjudged="keep")
    ranking = plain if chosen.unjudged == "keep" else run(truth, ks, keep)
    ranked = ranking.ranked_items()
    if ranked is None:  # pragma: no cover - a sliced evaluation is never built here
        raise ValueError("unjudged_bounds evaluates one system; split several systems first")
    unjudged = unjudged_items(ranked, lazy_truth, keys, item, relevance, resolved).collect().lazy()
    grades = {"lower": 0.0, "upper": float(resolved.relevance_threshold)}
    per_k: dict[str, list[Evaluation]] = {name: [] for name in grades}
    for cutoff in ks:  # one relabelling per K: "within the top K" depends on K
        within = unjudged.filter(pl.col("rank") <= cutoff)
        for name, grade in grades.items():
            labelled = relabelled(lazy_truth, within, keys, item, relevance, grade)
            per_k[name].append(run(labelled, [cutoff], chosen))
    counts = _unjudged_counts(unjudged, keys, ks)
    per_group = _per_group(plain, per_k, ks, keys, counts)
    summary = _summary(plain, per_k, ks, ranked, unjudged, keys)
    return UnjudgedBounds(per_group, summary)


def _at_own_k(frames: list[pl.DataFrame], ks: list[int]) -> pl.DataFrame:
    """Rows of the evaluation at each K for that K, and rows without K from the largest."""
    last = ks[-1]
    return pl.concat(
        frame.filter((pl.col("k") == cutoff) | (pl.col("k").is_null() & (cutoff == last)))
        for frame, cutoff in zip(frames, ks, strict=True)
    )


def _unjudged_counts(unjudged: pl.LazyFrame, keys: list[str], ks: list[int]) -> pl.DataFrame:
    return pl.concat(
        unjudged.filter(pl.col("rank") <= cutoff)
        .group_by(keys)
        .agg(pl.len().cast(pl.Int64).alias("n_unjudged"))
        .with_columns(pl.lit(cutoff, pl.Int64).alias("__within"))
        for cutoff in ks
    ).collect()


def _per_group(
    plain: Evaluation,
    per_k: dict[str, list[Evaluation]],
    ks: list[int],
    keys: list[str],
    counts: pl.DataFrame,
) -> pl.DataFrame:
    on = [*keys, "metric", "k"]
    table = plain.per_group.lazy().collect().select(*on, "value")
    for name, evaluations in per_k.items():
        found = _at_own_k([e.per_group.lazy().collect() for e in evaluations], ks)
        table = table.join(
            found.select(*on, pl.col("value").alias(name)), on=on, how="full", coalesce=True,
            nulls_equal=True,
        )  # fmt: skip
    within = pl.col("k").fill_null(max(ks)).alias("__within")
    table = table.with_columns(within).join(counts, on=[*keys, "__within"], how="left")
    ordered = sort_rows(table.lazy(), keys).collect()
    return ordered.select(*on, *BOUND_COLUMNS, pl.col("n_unjudged").fill_null(0))


def _summary(
    plain: Evaluation,
    per_k: dict[str, list[Evaluation]],
    ks: list[int],
    ranked: pl.LazyFrame,
    unjudged: pl.LazyFrame,
    keys: list[str],
) -> pl.DataFrame:
    on = ["metric", "k"]
    table = plain.summary().select(*on, "value")
    for name, evaluations in per_k.items():
        found = _at_own_k([e.summary() for e in evaluations], ks)
        table = table.join(found.select(*on, pl.col("value").alias(name)), on=on, how="left",
                           nulls_equal=True)  # fmt: skip
    shares = pl.concat(
        pl.concat([
            unjudged.filter(pl.col("rank") <= cutoff).select(pl.len().alias("__u")),
            ranked.filter(pl.col("rank") <= cutoff).select(pl.len().alias("__n")),
        ], how="horizontal").with_columns(pl.lit(cutoff, pl.Int64).alias("__within"))
        for cutoff in ks
    ).collect()  # fmt: skip
    share = (pl.col("__u") / pl.col("__n")).alias("unjudged_share")
    table = table.with_columns(pl.col("k").fill_null(max(ks)).alias("__within")).join(
        shares.select("__within", share), on="__within", how="left"
    )
    return table.select(
        *on, *BOUND_COLUMNS, (pl.col("upper") - pl.col("lower")).alias("width"), "unjudged_share"
    )
