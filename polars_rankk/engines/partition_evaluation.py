"""One partition of `evaluate_in_partitions`, evaluated: its tables (read from the partitioned
inputs' folders, or handed over as frames) evaluated by the ordinary pipeline into its per-group
rows and the pieces of the run's summary."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankk.core import EngineType, evaluate
from polars_rankk.core.evaluation import aggregate
from polars_rankk.core.inputs.spec import EmptyResultWarning, Spec
from polars_rankk.core.kernel import facts as kernel_facts
from polars_rankk.engines import staging
from polars_rankk.engines.ranked_lists import with_empty_lists


def evaluate_folders(
    parts: dict[str, Path], spec: Spec, options: dict[str, Any], engine: EngineType
) -> staging.PartitionResult | None:
    """One partition, read and evaluated eagerly: a partition is the unit that fits in memory, and
    its per-group rows and drop counts then come from one heavy pass. None: no group."""
    frames = {
        name: _read_or_empty(
            folder,
            options["subtopic_truth"] if name == "subtopics" else _like(name, spec),
            engine,
        )
        for name, folder in parts.items()
    }
    return evaluate_frames(frames, spec, options, engine, check_values=False)


def evaluate_frames(
    frames: dict[str, pl.DataFrame],
    spec: Spec,
    options: dict[str, Any],
    engine: EngineType,
    check_values: bool,
) -> staging.PartitionResult | None:
    """One partition's tables evaluated: its per-group rows and summary pieces (None: no
    group). `check_values`: the values were not checked before partitioning."""
    if not any(frame.height for frame in frames.values()):
        return None
    candidates = frames["candidates"]
    truth = frames.get("truth")
    if "empty_candidates" in frames or "empty_truth" in frames:
        candidates, truth = _as_lists(frames, spec)
    options = {key: value for key, value in options.items() if key != "subtopic_truth"}
    if "subtopics" in frames:
        truth = frames["subtopics"]  # the judgements by subtopic, in long form
    # A partition's diagnostics are never read: its kernel pass leaves their facts out.
    with warnings.catch_warnings(), kernel_facts.without_facts():
        # A partition whose groups a policy drops is no news: the whole run's summary says it.
        warnings.simplefilter("ignore", EmptyResultWarning)
        result = evaluate(candidates, truth, check_values=check_values, engine=engine, **options)
    rows = result.per_group
    assert isinstance(rows, pl.DataFrame)
    exposures = result.exposures
    return staging.PartitionResult(
        rows=rows,
        # In (metric, K) order, so that the summary reading one cell at a time skips the
        # staged file's row groups of the others (`reduction.summarize_files`).
        histogram=aggregate.value_histogram(rows).sort("metric", "k").collect(),
        dropped=result.dropped,
        exposure=None if exposures is None else exposures.exposure.lazy().collect(),
        n_lists=None if exposures is None else exposures.n_lists.lazy().collect(),
    )


def _like(name: str, spec: Spec) -> pl.LazyFrame:
    like = {
        "candidates": spec.candidates,
        "truth": spec.truth,
        "empty_candidates": spec.empty_candidate_groups,
        "empty_truth": spec.empty_truth_groups,
    }[name]
    assert like is not None
    return like


def _as_lists(
    frames: dict[str, pl.DataFrame], spec: Spec
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """A partition's tables back in ranked-list form, so that `evaluate` sees the groups whose
    list was empty as it saw them in the whole input: each long row a one-item list (with its
    score), each empty group an empty list."""
    candidates = with_empty_lists(
        frames["candidates"], frames.get("empty_candidates"), [spec.item, spec.score]
    )
    truth = frames.get("truth")
    if truth is not None:
        truth = with_empty_lists(truth, frames.get("empty_truth"), [spec.item])
    return candidates, truth


def _read_or_empty(folder: Path, like: pl.LazyFrame, engine: EngineType) -> pl.DataFrame:
    files = sorted(folder.glob("*.parquet"))
    if files:
        return pl.scan_parquet(files).collect(engine=engine)
    return pl.DataFrame(schema=like.collect_schema())
