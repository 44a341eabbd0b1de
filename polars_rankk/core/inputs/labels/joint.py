"""Several systems over the same uncertain labels: the variance of their per-group differences.

Two systems judged by the same model's labels do not vary apart: an item both rank high lifts
both when it turns out relevant. The variance of a per-group difference over the label
outcomes is ``Var(b) + Var(a) - 2 Cov(a, b)``, and the covariance needs both systems evaluated
on the *same* outcome. So the outcomes are built once from the shared truth (`label_outcomes`:
every outcome of a group with at most `MAX_OUTCOMES`, weighted by its probability — exact;
seeded draws otherwise — Monte Carlo) and every system's candidates are evaluated on them in
one pass, the system a column of the candidates; each pair's differences are then reduced per
(group, metric, k) to their variance over the outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.inputs.frames import to_lazy
from polars_rankk.core.inputs.labels.probability import (
    OUTCOME,
    LabelDraws,
    checked_probabilities,
    label_outcomes,
)
from polars_rankk.core.inputs.normalize import align_ids
from polars_rankk.core.names.plan import Plan

#: The system column of the candidates stacked for the joint evaluation.
SYSTEM = "__label_system"


@dataclass(frozen=True)
class LabelSource:
    """What a label-probability evaluation was computed from: its plan, its tables and how
    the labels are read — what evaluating it again on outcomes shared with other systems
    needs (`difference_variances`). `evaluate` is `evaluate_plan` (passed in: the evaluation
    builds on this module)."""

    plan: Plan
    inputs: Inputs
    labels: LabelDraws
    evaluate: Callable[[Plan, Inputs], Any]

    def checked_truth(self) -> pl.DataFrame:
        """The truth's rows the labels are read from, checked, in a fixed order."""
        inputs = self.inputs
        assert inputs.truth is not None
        truth = checked_probabilities(
            to_lazy(inputs.truth, "truth"), inputs.keys, inputs.item, inputs.relevance,
            self.labels.probability,
        )  # fmt: skip
        return truth.sort(pl.all()).collect()


def difference_variances(
    sources: Mapping[str, LabelSource], pairs: Sequence[tuple[str, str]]
) -> pl.DataFrame:
    """Per (group keys…, metric, k) and pair ``(baseline, system)``: ``variance``, the
    variance over the shared label outcomes of ``system - baseline`` (over the outcomes in
    which both evaluate the group), and ``exact`` (every outcome evaluated, or drawn).

    Every source must read the same truth, names and policy (`shared_source` says which
    differ)."""
    first, checked = shared_source(sources)
    inputs, labels = first.inputs, first.labels
    keys, item = inputs.keys, inputs.item
    truth = checked.lazy()
    stacked = pl.concat(
        [
            _candidate_columns(source.inputs).with_columns(pl.lit(name).alias(SYSTEM))
            for name, source in sources.items()
        ],
        how="vertical_relaxed",
    )
    stacked, truth = align_ids(stacked, truth, keys)
    outcome_truth, weights, _ = label_outcomes(
        truth, keys, item, inputs.relevance, labels.probability, draws=labels.draws,
        seed=labels.seed,
    )  # fmt: skip
    replicated = stacked.join(weights.select(*keys, OUTCOME), on=keys)
    candidates, outcome_table, weight_table = pl.collect_all([replicated, outcome_truth, weights])
    joint = replace(
        inputs, candidates=candidates, truth=outcome_table, group_by=[*keys, OUTCOME],
        system=SYSTEM, popularity=None, catalogue=None, item_features=None,
    )  # fmt: skip
    per_outcome = first.evaluate(first.plan, joint).per_group
    values = per_outcome.lazy().select(SYSTEM, *keys, OUTCOME, "metric", "k", "value")
    cell = [*keys, OUTCOME, "metric", "k"]
    found = []
    for baseline, system in pairs:
        a = values.filter(pl.col(SYSTEM) == baseline).drop(SYSTEM)
        b = values.filter(pl.col(SYSTEM) == system).drop(SYSTEM)
        difference = b.join(a, on=cell, nulls_equal=True, suffix="_baseline").select(
            *cell, (pl.col("value") - pl.col("value_baseline")).alias("difference")
        )
        found.append(
            _variance(difference, weight_table.lazy(), keys).with_columns(
                pl.lit(baseline).alias("baseline"), pl.lit(system).alias("system")
            )
        )
    return pl.concat(pl.collect_all(found), how="vertical_relaxed")


def shared_source(sources: Mapping[str, LabelSource]) -> tuple[LabelSource, pl.DataFrame]:
    """The first source and its checked truth, once every other reads the same truth,
    labels, keys, names and policy; a ValueError naming the first system that does not."""
    names = list(sources)
    first = sources[names[0]]
    truth = first.checked_truth()
    for name in names[1:]:
        other = sources[name]
        differs = [
            what
            for what, same in (
                ("the names, K or policy", other.plan == first.plan),
                ("the label probability column or draws", other.labels == first.labels),
                ("the group keys", other.inputs.keys == first.inputs.keys),
                ("the item column", other.inputs.item == first.inputs.item),
                ("the relevance column", other.inputs.relevance == first.inputs.relevance),
            )
            if not same
        ]
        if not differs and not other.checked_truth().equals(truth):
            differs = ["the truth table"]
        if differs:
            raise ValueError(
                f"compare(labels=True): systems {names[0]!r} and {name!r} were not evaluated "
                f"over the same labels ({', '.join(differs)} differ): the label noise of "
                "their difference needs both on the same label outcomes"
            )
    return first, truth


def _candidate_columns(inputs: Inputs) -> pl.LazyFrame:
    """The candidate columns an evaluation reads (a system's other columns may differ)."""
    columns = [*inputs.keys, inputs.item, inputs.score]
    if inputs.rank is not None:
        columns.append(inputs.rank)
    frame = to_lazy(inputs.candidates, "candidates")
    present = frame.collect_schema().names()
    return frame.select(c for c in dict.fromkeys(columns) if c in present)


def _variance(difference: pl.LazyFrame, weights: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Each (group, metric, k)'s weighted variance of the differences over its outcomes."""
    w, d = pl.col("weight"), pl.col("difference")
    # Shifted by one outcome's difference: identical differences give exactly 0.
    shifted = d - d.first()
    mean = (w * shifted).sum() / w.sum()
    return (
        difference.join(weights, on=[*keys, OUTCOME])
        .sort(*keys, OUTCOME)
        .group_by(*keys, "metric", "k", maintain_order=True)
        .agg(
            variance=((w * (shifted - mean) ** 2).sum() / w.sum()).clip(lower_bound=0.0),
            exact=pl.col("exact").all(),
        )
    )
