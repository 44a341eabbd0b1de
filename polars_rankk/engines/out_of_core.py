"""Evaluation larger than memory: hash partitions of groups, one pass per partition.

Polars' streaming engine keeps a whole window partition in memory, so a single pass over a
billion rows needs memory for all of them. Splitting the *groups* into hash partitions bounds
that: the inputs are sunk once, partitioned by ``hash(group) % partitions``, and each partition
is read and evaluated on its own. A group's numbers depend only on its own rows, so the result
is the same as one pass; the macro summary is merged exactly from per-partition value
histograms, and the policy drop counts are summed from each partition's ``Evaluation.dropped``.
(A *partition* here is a slice of the groups on disk; a *bucket*, as in `rk.buckets`, is a
stratum of groups by an attribute.)

`evaluate_in_buckets` and ``BucketedEvaluation`` are the names of the previous release, kept
with a `DeprecationWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import polars as pl

from polars_rankk.core import EngineType, dropped_table
from polars_rankk.core.evaluation import aggregate
from polars_rankk.core.evaluation.beyond_accuracy import ItemTables, item_tables
from polars_rankk.core.evaluation.diversity import aligned_ids, subtopic_job
from polars_rankk.core.evaluation.variants import with_catalogue
from polars_rankk.core.inputs.spec import (
    Spec,
    check_inputs,
    to_lazy,
)
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import Policy
from polars_rankk.core.progress import progress_bar
from polars_rankk.core.types import FrameLike
from polars_rankk.engines import key_ranges, reduction, staging
from polars_rankk.engines.partition_evaluation import evaluate_folders
from polars_rankk.passages import DocumentRule, documents_of

_PARTITION = "_rk_partition"


@dataclass
class PartitionedEvaluation:
    """The result of `evaluate_in_partitions`: per-group rows on disk and an exact summary.

    Attributes
    ----------
    per_group
        A lazy scan of the per-group Parquet files (same columns as `Evaluation.per_group`).
    output
        The folder holding them, one file per partition.
    partitions
        How many hash partitions the groups were split into.
    catalogue
        Catalogue-level metrics (``metric, k, value``) from the partitions' summed exposure
        counts, as `Evaluation.catalogue`; None when none was asked for.
    resumed_partitions
        How many partitions were taken from an interrupted run with the same inputs and
        arguments (0 for a run from the start).
    documents
        How the candidates' passages were collapsed to documents (``documents=``:
        `polars_rankk.DocumentRule.describe`); None when they were not.
    """

    per_group: pl.LazyFrame
    output: Path
    partitions: int
    catalogue: pl.DataFrame | None
    resumed_partitions: int
    #: The macro means of every (metric, K) cell (`reduction.summarize_files`), without the
    #: skipped cells, drop counts and catalogue that `summary` adds.
    _means: pl.DataFrame = field(repr=False)
    _dropped: pl.DataFrame = field(repr=False)
    documents: str | None = None
    #: The (metric, K) rows of the summary (`aggregate.summary_cells`).
    _cells: tuple[tuple[str, int], ...] = field(default=(), repr=False)

    @property
    def buckets(self) -> int:
        """Deprecated: `partitions`."""
        warnings.warn(
            "PartitionedEvaluation.buckets is deprecated: use .partitions",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.partitions

    @property
    def resumed_buckets(self) -> int:
        """Deprecated: `resumed_partitions`."""
        warnings.warn(
            "PartitionedEvaluation.resumed_buckets is deprecated: use .resumed_partitions",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.resumed_partitions

    def summary(self) -> pl.DataFrame:
        """Macro means over every partition, as `Evaluation.summary()` gives them (the
        means summarised from the staged value histograms when the run committed)."""
        dropped = self._dropped.group_by("k").agg(pl.all().sum())
        result = aggregate.with_skipped_cells(self._means, self._cells, dropped)
        result = result.join(dropped, on="k", how="left", nulls_equal=True)
        return with_catalogue(result, self.catalogue, None, None)


def _partition_of(keys: Sequence[str], partitions: int) -> pl.Expr:
    key = pl.col(keys[0]) if len(keys) == 1 else pl.struct(list(keys))
    return (key.hash(seed=20260101) % partitions).alias(_PARTITION)


def _no_rows(spec: Spec, keys: list[str]) -> pl.LazyFrame:
    """The per-group table of a run that evaluated no group."""
    schema = {key: spec.candidates.collect_schema()[key] for key in keys}
    return pl.LazyFrame(schema={**schema, "metric": pl.String, "k": pl.Int64, "value": pl.Float64})


def _check_arguments(partitions: object, resume: object) -> None:
    if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
        raise ValueError(f"partitions must be an int >= 1; got {partitions!r}")
    if resume not in (True, False, "contents"):
        raise ValueError(f"resume must be True, False or 'contents'; got {resume!r}")


def _run_key(inputs: dict[str, Any], arguments: dict[str, Any], resume: bool | str) -> str:
    """The run's fingerprint (what a rerun resumes by), or a key no rerun matches."""
    if not resume:
        return staging.unresumable_key()
    loaded = native.status().loaded
    return staging.fingerprint(
        inputs, {**arguments, "native": loaded}, contents=resume == "contents"
    )


def _checked(
    candidates: FrameLike,
    truth: FrameLike | None,
    options: dict[str, Any],
    plan: Plan,
    check_values: bool = True,
) -> tuple[FrameLike, Spec, Plan]:
    """The candidates (with a 0.0 relevance column when only beyond-accuracy metrics are asked
    without truth, as `evaluate` does: every group evaluated, none relevant, the plan then
    scoring groups without truth) and the `Spec` of the whole input, validated once with
    clear errors before anything is written."""
    relevance, part = options["relevance"], plan.one_policy
    if part.beyond and part.ranking_only and truth is None:
        frame = to_lazy(candidates, "candidates")
        if relevance not in frame.collect_schema():
            candidates = frame.with_columns(pl.lit(0.0).alias(relevance))
            plan = plan.with_policy(empty_truth="zero")
    checked = {key: value for key, value in options.items() if key != "metrics"}
    spec = check_inputs(
        candidates, truth, k=plan.ks, metrics=part.checked, policy=plan.one_policy.policy,
        check_values=check_values, **checked,
    )  # fmt: skip
    return candidates, spec, plan


def evaluate_in_partitions(
    candidates: FrameLike,
    truth: FrameLike | None = None,
    *,
    output: str | Path,
    partitions: int = 16,
    k: int | Iterable[int] | None = None,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str | None = None,
    policy: Policy | None = None,
    workdir: str | Path | None = None,
    engine: EngineType = "streaming",
    progress: bool | None = None,
    resume: bool | Literal["contents"] = True,
    popularity: FrameLike | None = None,
    catalogue: FrameLike | None = None,
    item_features: FrameLike | None = None,
    head_share: float = 0.2,
    subtopic: str | None = None,
    memory_limit: int | str | None = None,
    documents: DocumentRule | None = None,
) -> PartitionedEvaluation:
    """Evaluate in partitions of groups, sinking per-group rows to Parquet.

    Memory is bounded by the largest partition rather than the whole input: use it when a
    single `evaluate` pass does not fit. Candidates that are several Parquet files already
    split by their group key (one key column; files whose key ranges do not overlap, each
    within `memory_limit`, as a log written group by group or a sorted table written in parts:
    `engines.key_ranges`, found by one pass over the key column) are not re-partitioned:
    consecutive files up to `memory_limit` are a partition, read while the one before is
    evaluated, with the truth's rows of their key range; their values are checked partition by
    partition. Any other input is validated once, partitioned by ``hash(group keys) %
    partitions``, and each partition read. Each partition is evaluated by the ordinary pipeline
    (with `engine`) and staged as ``part-<partition>.parquet``.

    Nothing appears in `output` until every partition is done: the run works in a staging
    folder beside it (``.<output name>.staging``), then moves the parts into `output`, writes
    an empty ``_SUCCESS`` marker (as Spark does) and removes the staging. A killed run leaves
    `output` without parts and without the marker; called again with the same inputs and
    arguments it resumes, reusing the partitioned inputs and the partitions already done (a
    `ResumedRunWarning` says how many; ``resumed_partitions`` counts them). Staging left by a run
    with other inputs or arguments is removed. An input that reads local files (a
    ``pl.scan_parquet`` plan, say) is fingerprinted by its plan and its files' sizes,
    modification and change times, without reading a row (a file rewritten in place changes its
    change time even when its modification time is set back); an in-memory input by one
    streaming pass hashing every row.

    Parameters
    ----------
    candidates, truth, k, metrics, group_by, item, score, relevance, n_relevant, policy
        As for `evaluate`.
    popularity, catalogue, item_features, head_share
        As for `evaluate`: whole tables given to every partition; the catalogue (by default every
        item of the whole candidates and popularity log) is the whole input's.
    subtopic
        As for `evaluate`: the truth's subtopic column, for the subtopic metrics; the
        judgements are partitioned with their groups.
    documents
        The candidates are passages: collapsed to documents by this `DocumentRule` first
        (`to_documents`, one aggregation per (group, document), before they are partitioned).
    output
        Folder for the per-group Parquet files (created; existing part files and
        ``_SUCCESS`` are removed when the run starts).
    partitions
        Number of hash partitions, for an input not split by key already; memory scales with
        rows / partitions.
    memory_limit
        The memory budget of an input split by key already (bytes, or a size like ``"4GiB"``;
        default 4 GiB): each partition holds at most as many candidate rows as the budget
        allows (`key_ranges.BYTES_PER_ROW` bytes a row), one file at least. The budget
        bounds the run's peak: one partition evaluated while the next is read, then the exact
        summary, computed one (metric, K) cell at a time from the value histograms the
        partitions staged (`reduction.summarize_files`), which holds one cell's distinct
        values, at most one per group (about 130 bytes each: under 4 GiB up to some 30M
        groups). A billion candidate rows of 10M groups peak at about 2.1 GiB under 4 GiB.
    workdir
        Where the partitioned inputs are staged (in a subfolder named by the run's
        fingerprint), kept when given; by default in the staging folder beside `output`,
        removed when the run commits.
    engine
        Polars engine for every pass.
    progress
        Show a bar of partitions done (default: in a notebook or on a terminal, not when piped).
    resume
        Fingerprint the inputs so that a rerun can resume an interrupted run (default):
        files by their metadata, in-memory frames by a streaming hash of every row.
        ``"contents"`` hashes every row of the files too (one streaming pass, about the cost
        of reading them), for files that may change without their size or modification time
        changing. False fingerprints nothing: the run cannot be resumed, and still commits
        its output only when whole.

    Returns
    -------
    PartitionedEvaluation
        ``per_group`` (a lazy scan of `output`) and ``summary()``.

    Examples
    --------
    >>> import tempfile, polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"user": [1, 1, 2, 2, 3], "item": [1, 2, 1, 3, 4],
    ...                            "score": [0.9, 0.1, 0.5, 0.7, 0.3]})
    >>> truth = pl.DataFrame({"user": [1, 2, 3], "item": [2, 3, 9]})
    >>> out = rk.evaluate_in_partitions(candidates, truth, output=tempfile.mkdtemp(),
    ...                                 partitions=2, k=1, metrics="hit_rate", group_by="user")
    >>> out.per_group.sort("user").collect()["value"].to_list()
    [0.0, 1.0, 0.0]
    >>> out.summary().select("metric", "k", "value", "n_groups").row(0)
    ('hit_rate', 1, 0.3333333333333333, 3)
    """
    _check_arguments(partitions, resume)
    subtopic_truth = truth
    keys = [group_by] if isinstance(group_by, str) else list(group_by)
    plan = Plan.of(metrics, k, policy)  # planned once: each partition's evaluate executes it
    part = plan.one_policy  # one policy: names asking for several are refused in words
    if documents is not None:
        candidates = documents_of(candidates, documents, group_by=group_by, item=item,
                                  score=score, policy=part.policy)  # fmt: skip
    columns: dict[str, Any] = {"keys": keys, "item": item, "relevance": relevance}
    truth, subtopics = subtopic_job(part, truth, subtopic=subtopic, **columns)
    options: dict[str, Any] = {
        "group_by": group_by,
        "item": item,
        "score": score,
        "relevance": relevance,
        "n_relevant": n_relevant,
    }
    beyond = {"popularity": popularity, "item_features": item_features, "head_share": head_share}
    budget = key_ranges.memory_bytes(memory_limit)
    ranges = (
        None
        if subtopics.metrics
        else key_ranges.in_key_ranges(candidates, truth, keys, item, budget)
    )
    # An input in key ranges has its values checked partition by partition.
    candidates, spec, plan = _checked(candidates, truth, options, plan, ranges is None)
    options["metrics"] = plan
    tables = item_tables(
        spec,
        needs=[table for name in part.beyond_group for table in REGISTRY[name].requires],
        catalogue=catalogue,
        **beyond,  # type: ignore[arg-type]
    )
    options.update(beyond)
    if subtopics.metrics:
        # Each partition's evaluate reads its groups' judgements with their subtopics.
        options["subtopic"] = subtopic
        options["subtopic_truth"] = aligned_ids(spec, to_lazy(subtopic_truth, "truth"))
    catalogue_metrics = part.beyond_catalogue
    output = Path(output)
    layout: dict[str, object] = {"partitions": partitions}
    if ranges is not None:
        layout = {"partitions": len(ranges), "key_ranges": [r.files for r in ranges]}
    arguments = {**options, **layout, "catalogue_metrics": catalogue_metrics}
    # The names as typed, the cut-offs and the policy key and record the run.
    arguments.update(metrics=plan.request.names, k=plan.ks, policy=plan.policy)
    arguments.pop("subtopic_truth", None)
    arguments["documents"] = None if documents is None else documents.to_dict()
    inputs = {
        "candidates": candidates,
        "truth": subtopic_truth if subtopics.metrics else truth,
        "popularity": popularity,
        "catalogue": catalogue,
        "item_features": item_features,
    }
    key = _run_key(inputs, arguments, resume)
    count = partitions if ranges is None else len(ranges)
    run = staging.StagedRun.start(output, key, count, None if workdir is None else Path(workdir))
    staging.manifest(run, arguments)
    if ranges is None:
        done = _run_partitions(run, spec, options, engine, progress)
    else:
        lazy_truth = None if truth is None else to_lazy(truth, "truth")
        done = key_ranges.run_key_ranges(run, ranges, lazy_truth, spec, options, engine, progress)
    # Every metric the partitions compute per group, as their evaluate reports them.
    accuracy = () if part.ranking_only else tuple(spec.metrics)
    per_group_metrics = (*accuracy, *part.beyond_group, *subtopics.metrics)
    cells = tuple(aggregate.summary_cells(spec, per_group_metrics))
    result = _committed(run, spec, tables, catalogue_metrics, resumed=len(done), cells=cells)
    return result if documents is None else replace(result, documents=documents.describe())


def _committed(
    run: staging.StagedRun,
    spec: Spec,
    tables: ItemTables,
    catalogue_metrics: Sequence[str],
    resumed: int,
    cells: tuple[tuple[str, int], ...] = (),
) -> PartitionedEvaluation:
    """The run's parts moved into its output, and the evaluation read from them and from the
    summary pieces every partition staged."""
    keys = list(spec.keys)
    # Summarised before the commit removes the staged histograms, one cell at a time: merged
    # whole, a billion rows' histograms alone would take gigabytes.
    means = reduction.summarize_files(run.piece_files("histogram"))
    dropped = run.pieces("dropped")
    exposures = [
        (exposure.lazy(), n_lists.lazy())
        for exposure, n_lists in zip(run.pieces("exposure"), run.pieces("n_lists"), strict=True)
    ]
    files = run.commit()
    per_group = pl.scan_parquet(files) if files else _no_rows(spec, keys)
    catalogue_table = reduction.partitions_catalogue(spec, tables, catalogue_metrics, exposures)
    return PartitionedEvaluation(
        per_group=per_group,
        output=run.output,
        partitions=run.partitions,
        catalogue=catalogue_table,
        resumed_partitions=resumed,
        _means=means,
        _dropped=pl.concat(dropped) if dropped else _none_dropped(spec.ks),
        _cells=cells,
    )


def _none_dropped(ks: Sequence[int]) -> pl.DataFrame:
    """The drop counts of an input without groups: none dropped at any K."""
    return dropped_table(
        ks,
        pl.DataFrame({"dropped_empty_truth": [0], "dropped_missing": [0]}),
        pl.DataFrame(schema={"k": pl.Int64, "dropped_short": pl.Int64}),
    )


def _run_partitions(
    run: staging.StagedRun,
    spec: Spec,
    options: dict[str, Any],
    engine: EngineType,
    progress: bool | None,
) -> set[int]:
    """Partition the inputs (unless an interrupted run did) and evaluate every partition not yet
    staged; the partitions the interrupted run had done."""
    sources = _sources(spec)
    if options.get("subtopic_truth") is not None:
        sources["subtopics"] = options["subtopic_truth"]
    if not run.inputs_ready():
        folder = run.reset_inputs()
        for name, frame in sources.items():
            frame.with_columns(_partition_of(spec.keys, run.partitions)).sink_parquet(
                pl.PartitionBy(folder / name, key=_PARTITION, include_key=False),
                mkdir=True,
                engine=engine,
            )
        run.inputs_written()
    done = run.done()
    description = staging.staged_description(done, run.partitions)
    with progress_bar(run.partitions, description, progress) as bar:
        bar.update(len(done))
        for partition in sorted(set(range(run.partitions)) - done):
            parts = {name: run.inputs / name / f"{_PARTITION}={partition}" for name in sources}
            run.save(partition, evaluate_folders(parts, spec, options, engine))
            bar.update(1)
    return done


def _sources(spec: Spec) -> dict[str, pl.LazyFrame]:
    """The tables to partition: the candidates and truth in long form, and the
    groups whose ranked list was empty (which long form has no row for)."""
    sources = {"candidates": spec.candidates}
    if spec.truth is not None:
        sources["truth"] = spec.truth
    if spec.empty_candidate_groups is not None:
        sources["empty_candidates"] = spec.empty_candidate_groups
    if spec.truth is not None and spec.empty_truth_groups is not None:
        sources["empty_truth"] = spec.empty_truth_groups
    return sources


def evaluate_in_buckets(
    candidates: FrameLike,
    truth: FrameLike | None = None,
    *,
    buckets: int = 16,
    **options: Any,
) -> PartitionedEvaluation:
    """Deprecated: `evaluate_in_partitions` (``buckets=`` is its ``partitions=``).

    Examples
    --------
    >>> import tempfile, warnings, polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"user": [1, 2], "item": [1, 2], "score": [0.9, 0.5]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     out = rk.evaluate_in_buckets(candidates, candidates.drop("score"), buckets=2,
    ...                                  output=tempfile.mkdtemp(), k=1, group_by="user")
    >>> out.partitions, str(caught[0].message)
    (2, 'evaluate_in_buckets is deprecated: use evaluate_in_partitions(partitions=...)')
    """
    warnings.warn(
        "evaluate_in_buckets is deprecated: use evaluate_in_partitions(partitions=...)",
        DeprecationWarning,
        stacklevel=2,
    )
    return evaluate_in_partitions(candidates, truth, partitions=buckets, **options)
