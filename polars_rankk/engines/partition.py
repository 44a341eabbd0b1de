"""What the Spark and Dask back ends share on the way in: the driver's checks, and one partition
evaluated by the core engine.

The distributed engines only move rows: every group's candidate and truth rows are sent to one
partition (hash partitioning by the group keys), and each partition — or each chunk of a
partition sorted by the group keys — is evaluated by `polars_rankk.evaluate`. A group's numbers
depend only on its own rows, so the per-group values are the single-machine values, bit for bit.
Policy drop counts (``dropped_*`` of ``Evaluation.summary()``) cannot be read off per-group rows;
when asked for, each partition emits them as *sentinel* rows (metric ``_rk_dropped_*``, null
keys, the count as value) beside its per-group rows. The way out — the exact reduction on the
driver — is `polars_rankk.engines.reduction`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import polars as pl

from polars_rankk.core import Evaluation, Policy, evaluate
from polars_rankk.core.evaluation.beyond_accuracy import ItemTables
from polars_rankk.core.evaluation.catalogue import (
    catalogue_items,
    catalogue_values,
    merge_exposures,
)
from polars_rankk.core.inputs.spec import EmptyResultWarning, Spec, check_inputs
from polars_rankk.core.metrics.registration import declared_at_run_time, ensure_registered
from polars_rankk.core.metrics.registry import Metric
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.names.request import Request
from polars_rankk.engines import ranked_lists
from polars_rankk.engines.ranked_lists import (
    check_one_list,
    long_rows,
    with_empty_lists,
)
from polars_rankk.engines.reduction import SENTINEL_PREFIX
from polars_rankk.passages import DocumentRule, documents_of

#: Tag column of the union of candidates and truth: 0 candidate row, 1 truth row; with ranked
#: list inputs also 2 (3), a group whose candidate (truth) list is empty, keys only.
TAG = ranked_lists.TAG
#: The candidates' own relevance labels (pre-labelled candidates), in the tagged union.
LABEL = "_rk_label"
#: The truth table's relevance grades, in the tagged union.
TRUTH_GRADE = "_rk_truth_grade"
#: The truth's subtopic column (``evaluate(..., subtopic=...)``), in the tagged union.
SUBTOPIC = "_rk_truth_subtopic"
#: Exposure output: 0 an (item, k, exposure) row, 1 a (k, number of lists) row (item null).
KIND = "_rk_kind"
EXPOSURE_ITEM = "item"


def add_note(error: BaseException, note: str) -> None:
    """Attach `note` to an exception raised in an executor (Python >= 3.11; else nothing)."""
    adder = getattr(error, "add_note", None)
    if adder is not None:
        adder(note)


@dataclass(frozen=True)
class PartitionJob:
    """Everything an executor needs to evaluate one partition (plain, picklable values)."""

    keys: tuple[str, ...]
    item: str
    score: str
    relevance: str
    n_relevant: str | None
    order_by: str | None
    labelled: bool
    has_truth: bool
    truth_graded: bool
    ks: tuple[int, ...]
    metrics: tuple[str, ...]
    policy: Policy
    with_dropped: bool
    check_values: bool
    #: Beyond accuracy: the item tables, whole (small), shipped to every partition.
    popularity: pl.DataFrame | None = None
    item_features: pl.DataFrame | None = None
    head_share: float = 0.2
    #: Catalogue-level metrics (their exposure counts come from `exposure_rows`).
    catalogue_metrics: tuple[str, ...] = ()
    #: Metrics registered at run time on the driver, shipped with the job so that an executor
    #: process registers them too.
    declared: tuple[Metric, ...] = ()
    #: Ranked-list inputs (`evaluate`'s list columns): the engine ships them in long form, one
    #: row per item, with the groups whose list is empty as rows of their own (`TAG` 2, 3).
    candidate_lists: bool = False
    truth_lists: bool = False
    #: Candidate lists without a score list: the list order is the ranking.
    positional: bool = False
    #: The truth's subtopic column (`evaluate`'s ``subtopic=``): the truth is shipped in long
    #: form, one row per (group, subtopic, item), and each partition's `evaluate` reads it
    #: (the subtopic metrics' canonical names are among `metrics`).
    subtopic: str | None = None
    #: What every partition computes, planned once on the driver (`metrics`, `ks` and
    #: `policy` above are what it reports).
    plan: Plan | None = None
    #: The candidates are passages, collapsed to documents in each partition before they are
    #: ranked (a partition holds whole groups, so the collapse is the whole input's).
    documents: DocumentRule | None = None

    # -- inputs -------------------------------------------------------------------------------

    def extras(self) -> list[str]:
        """The candidates' columns beside keys, item, score and label: R_g, the row order,
        the passage's position in its document."""
        index = None if self.documents is None else self.documents.passage_index
        return [c for c in (self.n_relevant, self.order_by, index) if c is not None]

    def candidate_columns(self) -> list[str]:
        """The candidate columns the evaluation reads, in the user's names."""
        columns = [*self.keys, self.item, *([] if self.positional else [self.score])]
        if self.labelled:
            columns.append(self.relevance)
        return columns + self.extras()

    def truth_columns(self) -> list[str]:
        """The truth columns the evaluation reads, in the user's names."""
        return [
            *self.keys,
            self.item,
            *([self.relevance] if self.truth_graded else []),
            *([self.subtopic] if self.subtopic is not None else []),
        ]

    def split_tagged(self, frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame | None]:
        """Candidates and truth out of the tagged union (`TAG`, `LABEL`, `TRUTH_GRADE`,
        `SUBTOPIC`)."""
        candidates = frame.filter(pl.col(TAG) == 0).select(
            *self.keys,
            self.item,
            self.score,
            *([pl.col(LABEL).alias(self.relevance)] if self.labelled else []),
            *self.extras(),
        )
        if self.candidate_lists:
            if self.positional:
                check_one_list(frame, self.keys)
            empty = frame.filter(pl.col(TAG) == 2).select(self.keys)
            candidates = with_empty_lists(candidates, empty, [self.item, self.score])
        if not self.has_truth:
            return candidates, None
        truth = frame.filter(pl.col(TAG) == 1).select(
            *self.keys,
            self.item,
            *([pl.col(TRUTH_GRADE).alias(self.relevance)] if self.truth_graded else []),
            *([pl.col(SUBTOPIC).alias(self.subtopic)] if self.subtopic is not None else []),
        )
        if self.truth_lists:
            empty = frame.filter(pl.col(TAG) == 3).select(self.keys)
            truth = with_empty_lists(truth, empty, [self.item])
        return candidates, truth

    def long_rows(self, frame: pl.DataFrame, side: int, first_list: int = 0) -> pl.DataFrame:
        """One input partition of ranked lists as the tagged union's rows (`long_rows`)."""
        parallel = [self.relevance]
        if side == 0:
            parallel = [self.score, self.relevance, *([self.n_relevant] if self.n_relevant else [])]
        return long_rows(
            frame,
            side=side,
            keys=self.keys,
            item=self.item,
            score=self.score,
            parallel=parallel,
            positional=side == 0 and self.positional,
            check_values=self.check_values,
            first_list=first_list,
        )

    # -- evaluation ---------------------------------------------------------------------------

    def evaluate(self, candidates: pl.DataFrame, truth: pl.DataFrame | None) -> pl.DataFrame:
        """Per-group rows of these groups (plus sentinel drop-count rows if asked for).

        Columns: the keys, ``metric``, ``k``, ``value`` — `Evaluation.per_group`'s.
        """
        result = self._evaluation(candidates, truth)
        per_group = result.per_group
        assert isinstance(per_group, pl.DataFrame)
        if not self.with_dropped:
            return per_group
        # Evaluated eagerly, so reading the drop counts evaluates nothing again.
        sentinels = (
            result.dropped.unpivot(index="k", variable_name="metric", value_name="value")
            .filter(pl.col("value").is_not_null() & (pl.col("value") != 0))
            .select(
                *(pl.lit(None, dtype=per_group.schema[key]).alias(key) for key in self.keys),
                (pl.lit(SENTINEL_PREFIX) + pl.col("metric")).alias("metric"),
                pl.col("k").cast(pl.Int64),
                pl.col("value").cast(pl.Float64),
            )
        )
        return pl.concat([per_group, sentinels], how="vertical")

    def _evaluation(self, candidates: pl.DataFrame, truth: pl.DataFrame | None) -> Evaluation:
        ensure_registered(self.declared)
        if self.order_by is not None:
            # ties="input_order": the row order is the order column's, within every group.
            candidates = candidates.sort(self.order_by, maintain_order=True).drop(self.order_by)
        if self.documents is not None:
            collapsed = documents_of(
                candidates, self.documents, group_by=self.keys, item=self.item,
                score=self.score, policy=self.policy, check_values=self.check_values,
            )  # fmt: skip
            assert isinstance(collapsed, pl.DataFrame)
            candidates = collapsed
        with warnings.catch_warnings():
            # A partition whose groups a policy drops is no news: the summary says it.
            warnings.simplefilter("ignore", EmptyResultWarning)
            return self._evaluate(candidates, truth)

    def _evaluate(self, candidates: pl.DataFrame, truth: pl.DataFrame | None) -> Evaluation:
        assert self.plan is not None  # set by `partition_job`
        return evaluate(
            candidates,
            truth,
            metrics=self.plan,
            group_by=self.keys,
            item=self.item,
            score=self.score,
            relevance=self.relevance,
            n_relevant=self.n_relevant,
            check_values=self.check_values,
            popularity=self.popularity,
            item_features=self.item_features,
            head_share=self.head_share,
            subtopic=self.subtopic,
        )

    def evaluate_tagged(self, frame: pl.DataFrame) -> pl.DataFrame:
        """`evaluate` on a slice of the tagged union."""
        candidates, truth = self.split_tagged(frame)
        return self.evaluate(candidates, truth)

    def exposure_rows(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The exposure counts of the groups of a slice of the tagged union: `KIND`, item,
        k, count (see `KIND`); they add up over partitions (`catalogue_table`)."""
        candidates, truth = self.split_tagged(frame)
        exposures = self._evaluation(candidates, truth).exposures
        item = candidates.schema[self.item]
        schema: dict[str, pl.DataType] = {
            KIND: pl.Int8(),
            EXPOSURE_ITEM: item,
            "k": pl.Int64(),
            "count": pl.Int64(),
        }
        if exposures is None:
            return pl.DataFrame(schema=schema)
        exposure = exposures.exposure.lazy().select(
            pl.lit(0, dtype=pl.Int8).alias(KIND),
            pl.col("item").cast(item).alias(EXPOSURE_ITEM),
            pl.col("k").cast(pl.Int64),
            pl.col("exposure").cast(pl.Int64).alias("count"),
        )
        lists = exposures.n_lists.lazy().select(
            pl.lit(1, dtype=pl.Int8).alias(KIND),
            pl.lit(None, dtype=item).alias(EXPOSURE_ITEM),
            pl.col("k").cast(pl.Int64),
            pl.col("n_lists").cast(pl.Int64).alias("count"),
        )
        return pl.concat([exposure, lists]).collect().cast(schema)  # type: ignore[arg-type]


def whole_groups(
    frames: Iterable[pl.DataFrame], keys: Sequence[str], max_rows: int
) -> Iterator[pl.DataFrame]:
    """Re-chunk a stream of frames *sorted by `keys`* into chunks of whole groups.

    A chunk is emitted once at least `max_rows` rows are buffered; the trailing group of the
    buffer (which may continue in the next frame) is carried over. A group larger than
    `max_rows` is never split: memory is bounded by ``max(max_rows, largest group)`` plus one
    input frame.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows_per_chunk must be >= 1; got {max_rows}")
    buffer: list[pl.DataFrame] = []
    rows = 0
    for frame in frames:
        if frame.height == 0:
            continue
        buffer.append(frame)
        rows += frame.height
        if rows < max_rows:
            continue
        chunk = pl.concat(buffer, how="vertical", rechunk=True)
        last = chunk.row(chunk.height - 1, named=True)
        in_last = pl.all_horizontal(
            pl.col(key).eq_missing(pl.lit(last[key], dtype=chunk.schema[key])) for key in keys
        )
        # Sorted by the keys, so the trailing group is a suffix of the chunk.
        tail = int(chunk.select(in_last.sum()).item())
        if tail == chunk.height:
            buffer, rows = [chunk], chunk.height  # one group so far: keep reading
            continue
        yield chunk.slice(0, chunk.height - tail)
        carried = chunk.slice(chunk.height - tail)
        buffer, rows = [carried], carried.height
    if rows:
        yield pl.concat(buffer, how="vertical", rechunk=True)


# -- driver side ----------------------------------------------------------------------------


def used_columns(names: Iterable[str | Sequence[str] | None]) -> set[str]:
    """The column names among `names` (group keys as one name or several; None skipped)."""
    used: set[str] = set()
    for name in names:
        if isinstance(name, str):
            used.add(name)
        elif name is not None:
            used.update(name)
    return used


def empty_frame(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with `schema`."""
    return pl.DataFrame(schema=schema)


def check_on_driver(
    candidates_schema: dict[str, pl.DataType],
    truth_schema: dict[str, pl.DataType] | None,
    *,
    k: int | Iterable[int],
    metrics: Request | None,
    group_by: str | Sequence[str],
    item: str,
    score: str,
    relevance: str,
    n_relevant: str | None,
    policy: Policy | None,
    order_by: str | None,
) -> Spec:
    """The core's schema checks on empty frames of the inputs' schemas, before any job runs.

    Raises the same errors `evaluate` raises for missing columns, wrong dtypes, ids whose types
    differ between the tables, bad k, unknown metrics and group keys that clash with output
    columns; plus the distributed rules for `order_by`.
    """
    policy = Policy() if policy is None else policy
    spec = check_inputs(
        empty_frame(candidates_schema),
        None if truth_schema is None else empty_frame(truth_schema),
        k=k,
        metrics=metrics,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        policy=policy,
        check_values=False,
    )
    # check_inputs applies the output-name rule; the tagged union's own columns carry the
    # internal prefix it reserves.
    if policy.ties == "input_order" and order_by is None:
        raise ValueError(
            "Policy(ties='input_order') breaks ties by the candidates' row order, which a "
            "distributed shuffle does not keep: pass order_by=<column> holding each row's "
            "position (unique within a group, e.g. the row number of the file it came from)"
        )
    if order_by is not None:
        if policy.ties != "input_order":
            raise ValueError(
                f"order_by is only used by Policy(ties='input_order'); the policy has "
                f"ties={policy.ties!r}"
            )
        used = {*spec.keys, spec.item, spec.score, spec.relevance, n_relevant}
        if order_by in used:
            raise ValueError(f"order_by={order_by!r} must be a column of its own")
        if order_by not in candidates_schema:
            raise ValueError(
                f"candidates has no column {order_by!r} (order_by, the input order); its "
                f"columns are {list(candidates_schema)}"
            )
        dtype = candidates_schema[order_by]
        if not (dtype.is_numeric() or dtype.is_temporal()):
            raise TypeError(
                f"candidates column {order_by!r} (order_by) must be numeric or temporal; "
                f"it has dtype {dtype}"
            )
    return spec


def partition_job(
    spec: Spec, plan: Plan, order_by: str | None, *, with_dropped: bool, check_values: bool
) -> PartitionJob:
    """The executors' job for a validated `spec` of `plan`."""
    if spec.whole_list:
        raise ValueError(
            f"names without a cut-off that mean the whole list ({', '.join(spec.whole_list)}: "
            "trec_eval's map, recip_rank, ir_measures' AP, RR, nDCG) are evaluated by "
            "evaluate and evaluate_in_partitions, not by the distributed engines yet; give them "
            "a cut-off at least the longest list (AP@1000)"
        )
    return PartitionJob(
        keys=spec.keys,
        item=spec.item,
        score=spec.score,
        relevance=spec.relevance,
        n_relevant=spec.n_relevant,
        order_by=order_by,
        labelled=spec.labelled,
        has_truth=spec.truth is not None,
        truth_graded=spec.truth_graded,
        ks=spec.ks,
        metrics=tuple(spec.metrics),
        policy=spec.policy,
        with_dropped=with_dropped,
        check_values=check_values,
        declared=declared_at_run_time(spec.metrics),
        plan=plan,
    )


def catalogue_table(
    spec: Spec,
    tables: ItemTables,
    metrics: Sequence[str],
    items: pl.DataFrame,
    rows: pl.DataFrame,
) -> pl.DataFrame:
    """``Evaluation.catalogue`` from the partitions' summed exposure rows (`exposure_rows`) and
    the whole input's distinct candidate items (`items`, the item column): the default
    catalogue is every item of the candidates and the popularity log."""
    item = spec.candidates.collect_schema()[spec.item]
    whole = replace(spec, candidates=items.lazy().select(pl.col(spec.item).cast(item)))
    catalogue = catalogue_items(whole, tables.catalogue, tables.popularity)
    exposure = (
        rows.lazy()
        .filter(pl.col(KIND) == 0)
        .select(
            pl.col(EXPOSURE_ITEM).cast(item).alias("item"),
            pl.col("k").cast(pl.Int64),
            pl.col("count").cast(pl.Int64).alias("exposure"),
        )
    )
    n_lists = (
        rows.lazy()
        .filter(pl.col(KIND) == 1)
        .select(pl.col("k").cast(pl.Int64), pl.col("count").cast(pl.Int64).alias("n_lists"))
    )
    # Every k counted, even with no partition (no lists): zero lists.
    none = pl.LazyFrame(
        {"k": list(spec.ks), "n_lists": [0] * len(spec.ks)},
        schema={"k": pl.Int64, "n_lists": pl.Int64},
    )
    counts = merge_exposures([(exposure, n_lists), (exposure.head(0), none)])
    return catalogue_values(*counts, catalogue, metrics).collect()


def common_id_dtypes(spec: Spec) -> dict[str, pl.DataType]:
    """Per id column (keys, item): the dtype both tables are cast to before the shuffle.

    `check_inputs` unifies integer ids of different widths to Int64 and string-like ids to
    String; the shuffle must hash one type, so the engine casts before repartitioning.
    """
    schema = spec.candidates.collect_schema()
    return {column: schema[column] for column in (*spec.keys, spec.item)}
