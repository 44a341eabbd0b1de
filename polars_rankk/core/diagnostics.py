"""Diagnostics that come with every evaluation: what qualifies the numbers.

See docs/definitions.md for what each count means.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_rankk.core.columns import GRADE, HAS_CANDIDATES, N_CANDIDATES, N_RELEVANT, RANK, SCORE
from polars_rankk.core.inputs import Spec
from polars_rankk.core.prepare import Prepared
from polars_rankk.core.views import apply_group_policies


@dataclass(frozen=True)
class Diagnostics:
    """Counts that qualify an evaluation's numbers.

    Attributes
    ----------
    counts
        Scalar counts by name: candidate rows, duplicate rows removed, unjudged rows
        condensed away (``unjudged="condense"``), invalid scores handled, groups in truth /
        in candidates / only in candidates (never evaluated), groups evaluated, groups with
        no relevant item, groups in truth without candidates, groups whose candidates all
        share one score, relevant truth items and how many lie outside the candidate pool.
    per_k
        One row per K: ``groups_shorter_than_k``, ``tie_blocks_straddling_k`` (groups whose
        items at ranks K and K+1 share a score, so K cuts a tie), ``recall_ceiling`` (the
        best recall@K any ordering of the candidates could reach, under the same policy:
        min(K, relevant candidates) / R_g with R_g as evaluated — restricted under
        ``pool="restrict"`` —, averaged over the groups recall@K is averaged over: without
        those ``short_lists="skip"`` drops at K, with groups that have no relevant item at 0
        under ``empty_truth="zero"`` and left out under ``"nan"``).
    relevance_grades
        Truth grades seen and how many (group, item) rows carry each.
    policy
        The policy the evaluation used, as a dict.
    systems, system
        For an evaluation of several systems (``evaluate(..., system=COLUMN)``): each
        system's own diagnostics by name, and the column naming them. ``counts`` then sums
        the systems' counts, and ``per_k``, ``relevance_grades`` and `to_frame` have the
        system column first.
    path
        Which path computed the per-group sums: the native kernel, or pure Polars and why
        (``native kernel: not used (...)``).

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
    systems: dict[str, Diagnostics] = field(default_factory=dict)
    system: str | None = None
    path: str = ""

    def to_frame(self) -> pl.DataFrame:
        """All diagnostics as one tidy table: ``name, k, value`` (k null when not per K),
        after the system column for several systems."""
        if self.system is not None:
            system = self.system
            return pl.concat(
                [
                    one.to_frame().select(pl.lit(name, dtype=pl.String).alias(system), pl.all())
                    for name, one in self.systems.items()
                ]
            )
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
        if self.system is None:
            grades: dict[Any, Any] = dict(self.relevance_grades.iter_rows())
        else:
            # One {grade: rows} per system, by name.
            grades = {
                name: dict(one.relevance_grades.iter_rows()) for name, one in self.systems.items()
            }
        lines.append(f"  relevance_grades: {grades}")
        if self.path:
            lines.append(f"  path: {self.path}")
        lines.append(")")
        return "\n".join(lines)


def compute_diagnostics(spec: Spec, prepared: Prepared) -> Diagnostics:
    """Collect every diagnostic of one evaluation in a single multi-query pass."""
    queries, assemble = diagnostics_plan(spec, prepared)
    return assemble(pl.collect_all(queries))


def diagnostics_plan(
    spec: Spec, prepared: Prepared
) -> tuple[list[pl.LazyFrame], Callable[[Sequence[pl.DataFrame]], Diagnostics]]:
    """The queries behind `compute_diagnostics` (to collect with others in one
    ``collect_all``), and what turns their results, in order, into the diagnostics."""
    # The groups the evaluation keeps, before short lists are skipped at a K.
    evaluated = apply_group_policies(prepared.group_sums, spec.policy)
    counts = _count_queries(spec, prepared, evaluated)
    per_k = _per_k_queries(spec, prepared, evaluated)
    grades = prepared.truth.group_by(pl.col(GRADE).alias("grade")).agg(
        pl.len().cast(pl.Int64).alias("rows")
    )

    def assemble(frames: Sequence[pl.DataFrame]) -> Diagnostics:
        scalars = dict(zip(counts, frames[: len(counts)], strict=True))
        return Diagnostics(
            counts=_counts(scalars),
            per_k=_per_k_table(spec.ks, list(frames[len(counts) : -1])),
            relevance_grades=frames[-1].sort("grade"),
            policy=spec.policy.to_dict(),
            path=prepared.path,
        )

    return [*counts.values(), *per_k, grades], assemble


def _relevant(spec: Spec) -> pl.Expr:
    return pl.col(GRADE) >= spec.policy.relevance_threshold


def _count(frame: pl.LazyFrame, name: str, condition: pl.Expr | None = None) -> pl.LazyFrame:
    """One row, one column `name`: the rows of `frame` (where `condition` holds)."""
    count = pl.len() if condition is None else condition.sum()
    return frame.select(count.cast(pl.Int64).alias(name))


def _count_queries(
    spec: Spec, prepared: Prepared, evaluated: pl.LazyFrame
) -> dict[str, pl.LazyFrame]:
    """Queries of one row each, by the name their counts are read under."""
    keys = list(spec.keys)
    score = pl.col(spec.score).cast(pl.Float64)
    invalid = score.is_null() | ~score.is_finite()
    # The list each group's ranking was made from: de-duplicated, unjudged rows not yet
    # condensed away (a group whose every item was unjudged still had candidates).
    listed = prepared.ranked if prepared.deduplicated is None else prepared.deduplicated
    per_group_scores = listed.group_by(keys).agg(
        pl.len().alias("_n"),
        (pl.col(SCORE).min() == pl.col(SCORE).max()).alias("_constant"),
    )
    relevant_truth = prepared.truth.filter(_relevant(spec))
    pool = prepared.ranked.select([*keys, spec.item]).unique()
    outside = relevant_truth.join(pool, on=[*keys, spec.item], how="anti")
    only_candidates = per_group_scores.select(keys).join(
        prepared.group_sums.select(keys), on=keys, how="anti"
    )
    return {
        "candidate_rows": _count(spec.candidates, "candidate_rows"),
        "invalid_scores": _count(spec.candidates, "invalid_scores", invalid),
        "valid_rows": _count(prepared.candidates, "valid_rows"),
        "ranked_rows": _count(prepared.ranked, "ranked_rows"),
        "listed_rows": _count(listed, "listed_rows"),
        "groups": prepared.group_sums.select(
            pl.len().cast(pl.Int64).alias("groups_in_truth"),
            (pl.col(N_RELEVANT) == 0).sum().cast(pl.Int64).alias("groups_with_no_relevant"),
            (~pl.col(HAS_CANDIDATES)).sum().cast(pl.Int64).alias("groups_without_candidates"),
        ),
        "relevant": _count(relevant_truth, "relevant_in_truth"),
        "candidate_groups": per_group_scores.select(
            pl.len().cast(pl.Int64).alias("groups_in_candidates"),
            ((pl.col("_n") > 1) & pl.col("_constant"))
            .sum()
            .cast(pl.Int64)
            .alias("constant_score_groups"),
        ),
        "only_candidates": _count(only_candidates, "groups_only_in_candidates"),
        "evaluated": _count(evaluated, "groups_evaluated"),
        "outside": _count(outside, "relevant_outside_pool"),
    }


def _counts(frames: dict[str, pl.DataFrame]) -> dict[str, int]:
    """The scalar counts, in the order `Diagnostics.counts` lists them."""
    raw, valid, listed, ranked = (
        frames[name].item()
        for name in ("candidate_rows", "valid_rows", "listed_rows", "ranked_rows")
    )
    counts = {
        "candidate_rows": raw,
        "invalid_scores": frames["invalid_scores"].item(),
        "invalid_score_rows_dropped": raw - valid,
        "duplicate_rows_removed": valid - listed,
        "unjudged_rows_condensed": listed - ranked,
    }
    for name in ("groups", "relevant", "candidate_groups", "only_candidates", "evaluated"):
        counts.update(frames[name].row(0, named=True))
    counts.update(frames["outside"].row(0, named=True))
    return {name: int(value or 0) for name, value in counts.items()}


def _per_k_queries(spec: Spec, prepared: Prepared, evaluated: pl.LazyFrame) -> list[pl.LazyFrame]:
    """Groups shorter than K, ties cut by K, and the recall ceiling: one table each, by k."""
    keys = list(spec.keys)
    ks = pl.LazyFrame({"k": spec.ks}, schema={"k": pl.Int64})
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
    return [shorter, straddling, _recall_ceiling(spec, prepared, evaluated, ks)]


def _recall_ceiling(
    spec: Spec, prepared: Prepared, evaluated: pl.LazyFrame, ks: pl.LazyFrame
) -> pl.LazyFrame:
    """Per k: the mean, over the groups recall@k is averaged over, of the best recall@k any
    ordering of the group's ranked candidates reaches, min(k, relevant candidates) / R_g."""
    keys = list(spec.keys)
    policy = spec.policy
    ranked = prepared.ranked
    if GRADE in ranked.collect_schema():  # labelled candidates, or ties that read grades
        relevant_rows = ranked.filter(_relevant(spec))
    else:
        relevant_truth = prepared.truth.filter(_relevant(spec))
        relevant_rows = ranked.join(relevant_truth, on=[*keys, spec.item], how="semi")
    # Rows, not items: under duplicates="keep" every relevant copy is a hit, as in recall.
    pooled = relevant_rows.group_by(keys).agg(pl.len().cast(pl.Int64).alias("_pooled"))
    rows = (
        evaluated.select(*keys, N_CANDIDATES, N_RELEVANT)
        .join(pooled, on=keys, how="left")
        .join(ks, how="cross")
    )
    if policy.short_lists == "skip":
        rows = rows.filter(pl.col(N_CANDIDATES) >= pl.col("k"))
    if policy.empty_truth == "nan":
        rows = rows.filter(pl.col(N_RELEVANT) > 0)  # NaN values are left out of the mean
    best = pl.min_horizontal(pl.col("k"), pl.col("_pooled").fill_null(0)).cast(pl.Float64)
    recall = (
        pl.when(pl.col(N_RELEVANT) > 0)
        .then(best / pl.col(N_RELEVANT).cast(pl.Float64))
        .otherwise(0.0)
    )
    return rows.group_by("k").agg(recall.sort().mean().alias("recall_ceiling"))


def _per_k_table(ks: Sequence[int], frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    shorter, straddling, ceiling = frames
    return (
        pl.DataFrame({"k": list(ks)}, schema={"k": pl.Int64})
        .join(shorter, on="k", how="left")
        .join(straddling, on="k", how="left")
        .join(ceiling, on="k", how="left")
        .with_columns(
            pl.col("groups_shorter_than_k").fill_null(0),
            pl.col("tie_blocks_straddling_k").fill_null(0),
        )
        .sort("k")
    )
