"""Diagnostics that come with every evaluation: what qualifies the numbers.

See docs/definitions.md for what each count means.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import polars as pl

from polars_rankk.core.columns import GRADE, HAS_CANDIDATES, N_CANDIDATES, N_RELEVANT, SCORE
from polars_rankk.core.evaluation.prepare import Prepared
from polars_rankk.core.evaluation.views import apply_group_policies
from polars_rankk.core.inputs.normalize import align_ids
from polars_rankk.core.inputs.spec import Spec, truncated_grade
from polars_rankk.core.kernel import facts
from polars_rankk.core.policy import Policy


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
        share one score, relevant truth items and how many lie outside the candidate pool;
        for systems measured against one catalogue (`polars_rankk.evaluate_systems`,
        ``rankk compare``), its items (``shared_catalogue_items``) and how many systems share
        it (``systems_sharing_the_catalogue``).
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
    parts
        For an evaluation whose names read other parameters than its policy (``P(rel=2)@5``
        beside ``R@5``): the diagnostics of each other part, by the names its measures carry
        (``"P(rel=2)"``); the counts above are the first part's.

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

    counts: dict[str, float]
    per_k: pl.DataFrame
    relevance_grades: pl.DataFrame
    policy: dict[str, Any] = field(default_factory=dict)
    systems: dict[str, Diagnostics] = field(default_factory=dict)
    system: str | None = None
    path: str = ""
    parts: dict[str, Diagnostics] = field(default_factory=dict)

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


def compute_diagnostics(
    spec: Spec, prepared: Prepared, group_sums: pl.DataFrame | None = None
) -> Diagnostics:
    """Collect every diagnostic of one evaluation in a single multi-query pass; `group_sums`
    is the evaluation's collected one-row-per-group table, when it has one (the pipeline is
    then not run again for the counts read off it)."""
    queries, assemble = diagnostics_plan(spec, prepared, group_sums)
    return assemble(pl.collect_all(queries))


def diagnostics_plan(
    spec: Spec,
    prepared: Prepared,
    group_sums: pl.DataFrame | None = None,
    *,
    sums_later: bool = False,
) -> tuple[list[pl.LazyFrame], Callable[..., Diagnostics]]:
    """The queries behind `compute_diagnostics` (to collect with others in one
    ``collect_all``), and what turns their results, in order, into the diagnostics.

    The ranked list's per-group facts are the kernel's, read in the pass that ranked it
    (`Prepared.facts`), where it ranked; else one per-group aggregation of the ranked list
    (with its relevant truth flagged and its top scores), which never ranks: a tie at K is
    read off the K-th and (K+1)-th highest scores. A second aggregation, of the
    de-duplicated list, counts it before unjudged rows are condensed away. The per-group sums
    are the evaluation's: given collected (`group_sums`), given to the assembler with
    `sums_later` (collected in the same ``collect_all``, so that the pipeline is not planned
    twice), else a query of the plan.
    Every count and per-K table is then computed from these one-row-per-group results.
    """
    keys = list(spec.keys)
    policy = spec.policy
    score = pl.col(spec.score).cast(pl.Float64)
    relevant_truth = prepared.truth.filter(_relevant(spec))
    queries = {
        "raw": spec.candidates.select(
            pl.len().cast(pl.Int64).alias("candidate_rows"),
            (score.is_null() | ~score.is_finite()).sum().cast(pl.Int64).alias("invalid_scores"),
        ),
        "valid": _count(prepared.candidates, "valid_rows"),
        "ranked": _ranked_per_group(spec, prepared, relevant_truth)
        if prepared.facts is None
        else prepared.facts,
        "relevant": _count(relevant_truth, "relevant_in_truth"),
        "grades": prepared.truth.group_by(pl.col(GRADE).alias("grade")).agg(
            pl.len().cast(pl.Int64).alias("rows")
        ),
    }
    if spec.fractional_grades is not None:
        queries["fractional"] = spec.fractional_grades
    if policy.unjudged == "condense" and prepared.deduplicated is not None:
        # The list each group's ranking was made from: de-duplicated, unjudged rows not yet
        # condensed away (a group whose every item was unjudged still had candidates).
        # Without condensing it is the ranked list, whose aggregation counts it too.
        queries["listed"] = _listed_per_group(prepared.deduplicated, keys)
    if group_sums is None and not sums_later:
        queries["sums"] = prepared.group_sums.select(
            *keys, N_CANDIDATES, N_RELEVANT, HAS_CANDIDATES
        )

    def assemble(frames: Sequence[pl.DataFrame], sums: pl.DataFrame | None = None) -> Diagnostics:
        found = dict(zip(queries, frames, strict=True))
        table = next(t for t in (group_sums, sums, found.get("sums")) if t is not None)
        found["sums"] = table
        # The groups the evaluation keeps, before short lists are skipped at a K.
        found["evaluated"] = (
            apply_group_policies(table.lazy(), policy)
            .select(*keys, N_CANDIDATES, N_RELEVANT)
            .collect()
        )
        if "listed" not in found:
            found["listed"] = found["ranked"].select(*keys, facts.LISTED, facts.CONSTANT)
        return Diagnostics(
            counts=_counts(found, keys),
            per_k=_per_k_table(spec, found),
            relevance_grades=found["grades"].sort("grade"),
            policy=policy.to_dict(),
            path=prepared.path,
        )

    return list(queries.values()), assemble


def _relevant(spec: Spec) -> pl.Expr:
    return pl.col(GRADE) >= spec.policy.relevance_threshold


def _count(frame: pl.LazyFrame, name: str) -> pl.LazyFrame:
    """One row, one column `name`: the rows of `frame`."""
    return frame.select(pl.len().cast(pl.Int64).alias(name))


_IN_TRUTH = "_rk_relevant_in_truth"
_TOP = "_rk_top_scores"


def _ranked_per_group(spec: Spec, prepared: Prepared, relevant_truth: pl.LazyFrame) -> pl.LazyFrame:
    """The kernel's facts (`polars_rankk.core.kernel.facts`) from the ranked list in Polars,
    per group (its rank is not read, so not computed): its rows (twice: the listed rows when
    nothing is condensed), whether they share one score, its relevant rows (under
    duplicates="keep" every relevant copy counts, as in recall), the relevant truth items
    among them, and whether its K-th and (K+1)-th highest scores are equal."""
    keys = list(spec.keys)
    ranked = prepared.ranked
    flags = relevant_truth.select(*keys, spec.item, pl.lit(True).alias(_IN_TRUTH))
    flagged = ranked.join(flags, on=[*keys, spec.item], how="left").with_columns(
        pl.col(_IN_TRUTH).fill_null(False)
    )
    # Labelled candidates, or ties that read grades, carry the grade they were ranked with.
    relevant = _relevant(spec) if GRADE in ranked.collect_schema() else pl.col(_IN_TRUTH)
    matched = pl.col(_IN_TRUTH).sum()  # de-duplicated: each item once
    if spec.policy.duplicates == "keep":
        matched = pl.col(spec.item).filter(pl.col(_IN_TRUTH)).n_unique()
    # The items at ranks K and K+1 share a score when the K-th and (K+1)-th highest do.
    top = pl.col(_TOP).list.sort(descending=True)
    ties = [
        (top.list.get(k - 1, null_on_oob=True) == top.list.get(k, null_on_oob=True))
        .fill_null(False)
        .alias(facts.tie_column(k))
        for k in spec.ks
    ]
    return (
        flagged.group_by(keys)
        .agg(
            pl.len().cast(pl.Int64).alias(facts.ROWS),
            pl.len().cast(pl.Int64).alias(facts.LISTED),
            (pl.col(SCORE).min() == pl.col(SCORE).max()).alias(facts.CONSTANT),
            relevant.sum().cast(pl.Int64).alias(facts.POOLED),
            matched.cast(pl.Int64).alias(facts.MATCHED),
            pl.col(SCORE).top_k(spec.k_max + 1).alias(_TOP),
        )
        .with_columns(ties)
        .drop(_TOP)
    )


def _listed_per_group(listed: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per group of the de-duplicated list before condensing: its rows, and whether they all
    share one score."""
    return listed.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias(facts.LISTED),
        (pl.col(SCORE).min() == pl.col(SCORE).max()).alias(facts.CONSTANT),
    )


def _counts(found: dict[str, pl.DataFrame], keys: list[str]) -> dict[str, float]:
    """The scalar counts, in the order `Diagnostics.counts` lists them."""
    raw, listed, ranked, sums = found["raw"], found["listed"], found["ranked"], found["sums"]
    n_raw = raw.item(0, "candidate_rows")
    valid = found["valid"].item()
    n_listed = int(listed.get_column(facts.LISTED).sum())
    n_ranked = int(ranked.get_column(facts.ROWS).sum())
    counts = {
        "candidate_rows": n_raw,
        "invalid_scores": raw.item(0, "invalid_scores"),
        "invalid_score_rows_dropped": n_raw - valid,
        "duplicate_rows_removed": valid - n_listed,
        "unjudged_rows_condensed": n_listed - n_ranked,
        "groups_in_truth": sums.height,
        "groups_with_no_relevant": int((sums.get_column(N_RELEVANT) == 0).sum()),
        "groups_without_candidates": int((~sums.get_column(HAS_CANDIDATES)).sum()),
        "relevant_in_truth": found["relevant"].item(),
        "groups_in_candidates": listed.height,
        "constant_score_groups": listed.select(
            ((pl.col(facts.LISTED) > 1) & pl.col(facts.CONSTANT)).sum()
        ).item(),
        "groups_only_in_candidates": listed.join(sums, on=keys, how="anti").height,
        "groups_evaluated": found["evaluated"].height,
    }
    if "fractional" in found:  # fractional_grades="truncate": the grades read otherwise
        counts["fractional_grades_truncated"] = found["fractional"].item()
    counts["relevant_outside_pool"] = counts["relevant_in_truth"] - int(
        ranked.get_column(facts.MATCHED).sum()
    )
    return {name: int(value or 0) for name, value in counts.items()}


def _per_k_table(spec: Spec, found: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per K: groups shorter than K, ties cut by K, and the recall ceiling."""
    evaluated, ranked = found["evaluated"], found["ranked"]
    ks = pl.DataFrame({"k": list(spec.ks)}, schema={"k": pl.Int64})
    shorter = (
        evaluated.join(ks, how="cross")
        .group_by("k")
        .agg(
            (pl.col(N_CANDIDATES) < pl.col("k")).sum().cast(pl.Int64).alias("groups_shorter_than_k")
        )
    )
    straddling = pl.DataFrame(
        {
            "k": list(spec.ks),
            "tie_blocks_straddling_k": [
                int(ranked.get_column(facts.tie_column(k)).sum()) for k in spec.ks
            ],
        },
        schema={"k": pl.Int64, "tie_blocks_straddling_k": pl.Int64},
    )
    return (
        ks.join(shorter, on="k", how="left")
        .join(straddling, on="k", how="left")
        .join(_recall_ceiling(spec, evaluated, ranked, ks), on="k", how="left")
        .with_columns(
            pl.col("groups_shorter_than_k").fill_null(0),
            pl.col("tie_blocks_straddling_k").fill_null(0),
        )
        .sort("k")
    )


def _recall_ceiling(
    spec: Spec, evaluated: pl.DataFrame, ranked: pl.DataFrame, ks: pl.DataFrame
) -> pl.DataFrame:
    """Per k: the mean, over the groups recall@k is averaged over, of the best recall@k any
    ordering of the group's ranked candidates reaches, min(k, relevant candidates) / R_g."""
    keys = list(spec.keys)
    policy = spec.policy
    rows = evaluated.join(ranked.select(*keys, facts.POOLED), on=keys, how="left").join(
        ks, how="cross"
    )
    if policy.short_lists == "skip":
        rows = rows.filter(pl.col(N_CANDIDATES) >= pl.col("k"))
    if policy.empty_truth == "nan":
        rows = rows.filter(pl.col(N_RELEVANT) > 0)  # NaN values are left out of the mean
    best = pl.min_horizontal(pl.col("k"), pl.col(facts.POOLED).fill_null(0)).cast(pl.Float64)
    recall = (
        pl.when(pl.col(N_RELEVANT) > 0)
        .then(best / pl.col(N_RELEVANT).cast(pl.Float64))
        .otherwise(0.0)
    )
    return rows.group_by("k").agg(recall.sort().mean().alias("recall_ceiling"))


class LabelledEvaluation(Protocol):
    """What the expected diagnostics read of a label-probability evaluation."""

    label_source: Any  # `core.inputs.labels.joint.LabelSource`
    policy: Policy
    ks: list[int]

    @property
    def groups(self) -> pl.DataFrame | pl.LazyFrame | None: ...

    def ranked_items(self) -> pl.LazyFrame | None: ...


def expected_label_diagnostics(found: Diagnostics, evaluation: LabelledEvaluation) -> Diagnostics:
    """`found` (the diagnostics of each item at its highest grade of positive probability)
    with the relevant counts, the groups without a relevant item, the rows per grade and the
    recall ceiling as expectations over `evaluation`'s label outcomes (its label source, ranked
    items and evaluated groups)."""
    # Imported here: the expectations are NumPy, which the command's start-up does not load.
    from polars_rankk.core.inputs.labels.diagnostics import expected_counts

    source, policy, ranked = evaluation.label_source, evaluation.policy, evaluation.ranked_items()
    assert ranked is not None
    assert evaluation.groups is not None
    inputs = source.inputs
    keys, item, relevance = inputs.keys, inputs.item, inputs.relevance
    truth = source.checked_truth()
    if policy.fractional_grades == "truncate":
        truth = truth.with_columns(truncated_grade(pl.col(relevance)).cast(pl.Float64))
    listed, aligned = align_ids(ranked.select(*keys, item), truth.lazy(), [*keys, item])
    listed_table, truth_table, group_table = pl.collect_all(
        [listed, aligned, evaluation.groups.lazy()]
    )
    expected = expected_counts(
        truth_table, listed_table, group_table, keys=keys, item=item, relevance=relevance,
        probability=source.labels.probability, policy=policy, ks=evaluation.ks,
        no_relevant_for_certain=found.counts["groups_with_no_relevant"],
    )  # fmt: skip
    per_k = found.per_k.drop("recall_ceiling").join(expected.recall_ceiling, on="k", how="left")
    return replace(
        found,
        counts={**found.counts, **expected.counts},
        per_k=per_k.select(found.per_k.columns),
        relevance_grades=expected.grades,
    )
