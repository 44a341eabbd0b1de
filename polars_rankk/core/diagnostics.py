"""Diagnostics that come with every evaluation (SPEC §7): what qualifies the numbers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_rankk.core.inputs import Spec
from polars_rankk.core.prepare import (
    GRADE,
    HAS_CANDIDATES,
    N_CANDIDATES,
    N_RELEVANT,
    RANK,
    SCORE,
    Prepared,
)


@dataclass(frozen=True)
class Diagnostics:
    """Counts that qualify an evaluation's numbers.

    Attributes
    ----------
    counts
        Scalar counts by name: candidate rows, duplicate rows removed, invalid scores
        handled, groups in truth / in candidates / only in candidates (never evaluated),
        groups evaluated, groups with no relevant item, groups in truth without candidates,
        groups whose candidates all share one score, relevant truth items and how many lie
        outside the candidate pool.
    per_k
        One row per K: ``groups_shorter_than_k``, ``tie_blocks_straddling_k`` (groups whose
        items at ranks K and K+1 share a score, so K cuts a tie), ``recall_ceiling`` (mean
        over evaluated groups with relevant items of min(K, pooled relevant) / R — the best
        recall any ordering of the candidates could reach).
    relevance_grades
        Truth grades seen and how many (group, item) rows carry each.
    policy
        The policy the evaluation used, as a dict.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"q": [1, 1, 1], "item": [1, 1, 2], "score": [0.5, 0.4, 0.5]})
    >>> res = rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [3]}), k=[1, 5],
    ...                   group_by="q")
    >>> d = res.diagnostics
    >>> d.counts["duplicate_rows_removed"], d.counts["relevant_outside_pool"]
    (1, 1)
    >>> d.per_k.select("k", "groups_shorter_than_k", "tie_blocks_straddling_k")
    shape: (2, 3)
    ┌─────┬───────────────────────┬─────────────────────────┐
    │ k   ┆ groups_shorter_than_k ┆ tie_blocks_straddling_k │
    │ --- ┆ ---                   ┆ ---                     │
    │ i64 ┆ i64                   ┆ i64                     │
    ╞═════╪═══════════════════════╪═════════════════════════╡
    │ 1   ┆ 0                     ┆ 1                       │
    │ 5   ┆ 1                     ┆ 0                       │
    └─────┴───────────────────────┴─────────────────────────┘
    """

    counts: dict[str, int]
    per_k: pl.DataFrame
    relevance_grades: pl.DataFrame
    policy: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pl.DataFrame:
        """All diagnostics as one tidy table: ``name, k, value`` (k null when not per K)."""
        scalars = pl.DataFrame(
            {
                "name": list(self.counts),
                "k": [None] * len(self.counts),
                "value": [float(v) for v in self.counts.values()],
            },
            schema={"name": pl.String, "k": pl.Int64, "value": pl.Float64},
        )
        per_k = self.per_k.unpivot(index="k", variable_name="name", value_name="value").select(
            "name", "k", pl.col("value").cast(pl.Float64)
        )
        grades = self.relevance_grades.select(
            pl.format("rows_with_grade_{}", pl.col("grade")).alias("name"),
            pl.lit(None, dtype=pl.Int64).alias("k"),
            pl.col("rows").cast(pl.Float64).alias("value"),
        )
        return pl.concat([scalars, per_k, grades], how="vertical")

    def __repr__(self) -> str:
        lines = ["Diagnostics("]
        lines += [f"  {name}: {value}" for name, value in self.counts.items()]
        lines.append(f"  per_k:\n{self.per_k}")
        lines.append(f"  relevance_grades: {dict(self.relevance_grades.iter_rows())}")
        lines.append(")")
        return "\n".join(lines)


def compute_diagnostics(spec: Spec, prepared: Prepared) -> Diagnostics:
    """Collect every diagnostic of one evaluation in a single multi-query pass."""
    policy = spec.policy
    keys = list(spec.keys)
    ks = pl.LazyFrame({"k": spec.ks}, schema={"k": pl.Int64})
    groups = prepared.groups
    evaluated = groups
    if policy.empty_truth == "exclude":
        evaluated = evaluated.filter(pl.col(N_RELEVANT) > 0)
    if policy.missing_groups == "exclude":
        evaluated = evaluated.filter(pl.col(HAS_CANDIDATES))

    raw_rows = spec.candidates.select(pl.len().cast(pl.Int64).alias("candidate_rows"))
    invalid = pl.col(spec.score).cast(pl.Float64)
    invalid_rows = spec.candidates.select(
        (invalid.is_null() | ~invalid.is_finite()).sum().cast(pl.Int64).alias("invalid_scores")
    )
    kept_rows = prepared.candidates.select(pl.len().cast(pl.Int64).alias("valid_rows"))
    ranked_rows = prepared.ranked.select(pl.len().cast(pl.Int64).alias("ranked_rows"))
    per_group_scores = prepared.ranked.group_by(keys).agg(
        pl.len().alias("_n"),
        (pl.col(SCORE).min() == pl.col(SCORE).max()).alias("_constant"),
    )
    group_counts = groups.select(
        pl.len().cast(pl.Int64).alias("groups_in_truth"),
        (pl.col(N_RELEVANT) == 0).sum().cast(pl.Int64).alias("groups_with_no_relevant"),
        (~pl.col(HAS_CANDIDATES)).sum().cast(pl.Int64).alias("groups_without_candidates"),
    )
    candidate_groups = per_group_scores.select(
        pl.len().cast(pl.Int64).alias("groups_in_candidates"),
        ((pl.col("_n") > 1) & pl.col("_constant"))
        .sum()
        .cast(pl.Int64)
        .alias("constant_score_groups"),
    )
    candidates_only = (
        per_group_scores.select(keys)
        .join(groups.select(keys), on=keys, how="anti")
        .select(pl.len().cast(pl.Int64).alias("groups_only_in_candidates"))
    )
    evaluated_count = evaluated.select(pl.len().cast(pl.Int64).alias("groups_evaluated"))

    relevant_truth = prepared.truth.filter(pl.col(GRADE) >= policy.relevance_threshold)
    relevant_count = relevant_truth.select(pl.len().cast(pl.Int64).alias("relevant_in_truth"))
    total_per_group = relevant_truth.group_by(keys).agg(pl.len().cast(pl.Int64).alias("_total"))
    pool = prepared.ranked.select([*keys, spec.item]).unique()
    pooled = relevant_truth.join(pool, on=[*keys, spec.item], how="semi")
    pooled_per_group = pooled.group_by(keys).agg(pl.len().cast(pl.Int64).alias("_pooled"))
    outside = relevant_truth.join(pool, on=[*keys, spec.item], how="anti").select(
        pl.len().cast(pl.Int64).alias("relevant_outside_pool")
    )

    shorter = (
        evaluated.join(ks, how="cross")
        .group_by("k")
        .agg(
            (pl.col(N_CANDIDATES) < pl.col("k")).sum().cast(pl.Int64).alias("groups_shorter_than_k")
        )
    )
    next_score = pl.col(SCORE).shift(-1).over(keys, order_by=RANK)
    straddling = (
        prepared.ranked.with_columns(next_score.alias("_next"))
        .filter(pl.col(RANK).is_in(list(spec.ks)) & (pl.col("_next") == pl.col(SCORE)))
        .group_by(pl.col(RANK).alias("k"))
        .agg(pl.len().cast(pl.Int64).alias("tie_blocks_straddling_k"))
    )
    ceiling = (
        evaluated.join(total_per_group, on=keys, how="inner")
        .join(pooled_per_group, on=keys, how="left")
        .join(ks, how="cross")
        .group_by("k")
        .agg(
            (
                pl.min_horizontal(pl.col("k"), pl.col("_pooled").fill_null(0)).cast(pl.Float64)
                / pl.col("_total").cast(pl.Float64)
            )
            .sort()
            .mean()
            .alias("recall_ceiling")
        )
    )
    grades = prepared.truth.group_by(pl.col(GRADE).alias("grade")).agg(
        pl.len().cast(pl.Int64).alias("rows")
    )

    frames = pl.collect_all(
        [
            raw_rows,
            invalid_rows,
            kept_rows,
            ranked_rows,
            group_counts,
            relevant_count,
            candidate_groups,
            candidates_only,
            evaluated_count,
            outside,
            shorter,
            straddling,
            ceiling,
            grades,
        ]
    )
    (raw, bad, kept, ranked, gcounts, nrel, cgroups, only, n_eval, out, short, tie, ceil, grade) = (
        frames
    )
    counts: dict[str, int] = {}
    counts["candidate_rows"] = raw.item()
    counts["invalid_scores"] = bad.item()
    counts["invalid_score_rows_dropped"] = raw.item() - kept.item()
    counts["duplicate_rows_removed"] = kept.item() - ranked.item()
    for frame in (gcounts, nrel, cgroups, only, n_eval, out):
        counts.update({name: int(value) for name, value in frame.row(0, named=True).items()})
    counts = {name: int(value or 0) for name, value in counts.items()}

    per_k = (
        pl.DataFrame({"k": list(spec.ks)}, schema={"k": pl.Int64})
        .join(short, on="k", how="left")
        .join(tie, on="k", how="left")
        .join(ceil, on="k", how="left")
        .with_columns(
            pl.col("groups_shorter_than_k").fill_null(0),
            pl.col("tie_blocks_straddling_k").fill_null(0),
        )
        .sort("k")
    )
    return Diagnostics(
        counts=counts,
        per_k=per_k,
        relevance_grades=grade.sort("grade"),
        policy=policy.to_dict(),
    )
