"""Distributed evaluation on Apache Spark, with exactly the numbers of the single-machine path.

Candidates and truth are unioned into one tagged table, hash-repartitioned by the group keys
(every row of a group lands in one partition), and each whole partition is evaluated by the
library's own Polars engine inside ``DataFrame.mapInArrow`` — one Python call per partition,
never one per group. A group's numbers depend only on its rows, so ``per_group`` equals
``polars_rankk.evaluate(...).per_group`` bit for bit; `summarize_spark` reduces a value
histogram built by Spark with the single-machine summariser, so the means are bit-identical too.

Requires PySpark >= 4.0 (``pip install 'polars-rankk[spark]'``) and polars-rankk installed on
the executors. Classic and Spark Connect DataFrames are both accepted.

>>> from polars_rankk.engines.spark import evaluate_spark, summarize_spark
>>> per_group = evaluate_spark(candidates_sdf, truth_sdf, k=[5, 10],
...                            group_by="user")  # doctest: +SKIP
>>> summarize_spark(per_group)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

import polars as pl

from polars_rankk.core import check_quantiles
from polars_rankk.core.evaluation.aggregate import order_metrics, summary_cells
from polars_rankk.core.evaluation.variants import with_catalogue
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike
from polars_rankk.engines import driver, reduction
from polars_rankk.engines import partition as dist
from polars_rankk.engines import spark_plan as plan
from polars_rankk.engines.distributed import DistributedEvaluation
from polars_rankk.engines.progress import spark_progress
from polars_rankk.passages import DocumentRule

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["SparkEvaluation", "evaluate_spark", "summarize_spark"]


@dataclass(frozen=True)
class SparkEvaluation(DistributedEvaluation):
    """Per-group values and policy drop counts of one distributed evaluation.

    Returned by ``evaluate_spark(..., with_dropped=True)``. `raw` holds the per-group rows and,
    per partition, a few sentinel rows (null keys, metric ``_rk_dropped_*``) carrying how many
    groups each policy dropped; `per_group` and `dropped` are views of it, and `summary` reads
    both in one Spark job.

    Attributes
    ----------
    raw
        The Spark DataFrame the executors produce.
    group_keys, ks, metrics, policy
        What was evaluated, as in `polars_rankk.Evaluation`.
    """

    raw: DataFrame

    def collected_exposures(self, items: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The exposure rows and the distinct catalogue items (two Spark jobs)."""
        assert self.exposures is not None
        rows = pl.from_arrow(self.exposures.toArrow())
        distinct = pl.from_arrow(items.toArrow())
        assert isinstance(rows, pl.DataFrame)
        assert isinstance(distinct, pl.DataFrame)
        return rows, distinct

    @property
    def per_group(self) -> DataFrame:
        """Keys, metric, k, value: the columns and rows of ``Evaluation.per_group``."""
        from pyspark.sql import functions as sf

        return self.raw.where(~sf.col("metric").isin(*reduction.SENTINELS))

    @property
    def dropped(self) -> DataFrame:
        """k, dropped_empty_truth, dropped_missing, dropped_short: the groups each policy
        dropped at each k (k null: r_precision); a k where none was dropped has no row."""
        from pyspark.sql import functions as sf

        sentinels = self.raw.where(sf.col("metric").isin(*reduction.SENTINELS))
        return (
            sentinels.groupBy("k")
            .pivot("metric", list(reduction.SENTINELS))
            .agg(sf.sum("value").cast("long"))
            .select(
                "k",
                *(
                    sf.coalesce(sf.col(name), sf.lit(0).cast("long")).alias(column)
                    for name, column in zip(
                        reduction.SENTINELS, reduction.DROPPED_COLUMNS, strict=True
                    )
                ),
            )
        )

    def persist(self) -> SparkEvaluation:
        """Persist `raw` (Spark's default storage level), so that several actions on
        `per_group`, `dropped` and `summary` evaluate once; returns self."""
        self.raw.persist()
        return self

    def unpersist(self) -> SparkEvaluation:
        """Undo `persist`; returns self."""
        self.raw.unpersist()
        return self

    def summary(
        self,
        *,
        quantiles: Sequence[float] = (),
        max_distinct: int = 1_000_000,
        approximate: bool = False,
        accuracy: int = 10_000,
    ) -> pl.DataFrame:
        """``Evaluation.summary()`` in full (the catalogue-level figures asked included);
        see `summarize_spark`."""
        found = summarize_spark(
            self,
            quantiles=quantiles,
            max_distinct=max_distinct,
            approximate=approximate,
            accuracy=accuracy,
        )
        return with_catalogue(found, self.catalogue, None, None)


@overload
def evaluate_spark(
    candidates: DataFrame,
    truth: DataFrame | None = ...,
    *,
    k: int | Iterable[int] | None = ...,
    metrics: str | Iterable[str] | None = ...,
    group_by: str | Sequence[str],
    item: str = ...,
    score: str = ...,
    relevance: str = ...,
    n_relevant: str | None = ...,
    policy: Policy | None = ...,
    order_by: str | None = ...,
    num_partitions: int | None = ...,
    max_rows_per_chunk: int | None = ...,
    with_dropped: Literal[False] = ...,
    check_values: bool = ...,
    popularity: FrameLike | None = ...,
    catalogue: FrameLike | None = ...,
    item_features: FrameLike | None = ...,
    head_share: float = ...,
    subtopic: str | None = ...,
    documents: DocumentRule | None = ...,
) -> DataFrame: ...


@overload
def evaluate_spark(
    candidates: DataFrame,
    truth: DataFrame | None = ...,
    *,
    k: int | Iterable[int] | None = ...,
    metrics: str | Iterable[str] | None = ...,
    group_by: str | Sequence[str],
    item: str = ...,
    score: str = ...,
    relevance: str = ...,
    n_relevant: str | None = ...,
    policy: Policy | None = ...,
    order_by: str | None = ...,
    num_partitions: int | None = ...,
    max_rows_per_chunk: int | None = ...,
    with_dropped: Literal[True],
    check_values: bool = ...,
    popularity: FrameLike | None = ...,
    catalogue: FrameLike | None = ...,
    item_features: FrameLike | None = ...,
    head_share: float = ...,
    subtopic: str | None = ...,
    documents: DocumentRule | None = ...,
) -> SparkEvaluation: ...


def evaluate_spark(
    candidates: DataFrame,
    truth: DataFrame | None = None,
    *,
    k: int | Iterable[int] | None = None,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str | None = None,
    policy: Policy | None = None,
    order_by: str | None = None,
    num_partitions: int | None = None,
    max_rows_per_chunk: int | None = None,
    with_dropped: bool = False,
    check_values: bool = True,
    popularity: FrameLike | None = None,
    catalogue: FrameLike | None = None,
    item_features: FrameLike | None = None,
    head_share: float = 0.2,
    subtopic: str | None = None,
    documents: DocumentRule | None = None,
) -> DataFrame | SparkEvaluation:
    """`polars_rankk.evaluate` on Spark DataFrames: the same per-group values, bit for bit.

    The schemas are checked on the driver (the errors `evaluate` raises for missing columns,
    wrong dtypes, mismatched id types, bad k or metric names). Value checks (null keys, invalid
    scores, NaN grades, duplicates under ``duplicates="error"``) run in the executors and fail
    the Spark job with the core's message. Nothing runs until an action.

    Parameters
    ----------
    candidates, truth
        Spark DataFrames (classic or Spark Connect) with the columns `evaluate` expects: one
        row per (group, item), or ranked lists (array columns: an item array per row, parallel
        score or grade arrays, an empty array for an empty ranking or truth), converted in the
        executors as `evaluate` converts them.
    k, metrics, group_by, item, score, relevance, n_relevant, policy, check_values
        As in `polars_rankk.evaluate`.
    order_by
        Required by ``Policy(ties="input_order")``, refused otherwise: a candidates column
        giving each row's position (unique within a group). A shuffle does not keep row order;
        the result equals ``evaluate(candidates.sort(order_by), ...)`` on one machine.
    num_partitions
        Partitions of the shuffle by group (default ``spark.sql.shuffle.partitions``). More
        partitions, less memory per task.
    max_rows_per_chunk
        Bounded memory for skewed or huge partitions: sort each partition by the group keys
        and evaluate it in chunks of about this many rows (whole groups; a trailing group is
        carried over to the next chunk). Default: evaluate each partition at once.
    with_dropped
        Also carry the policy drop counts (``dropped_*`` of ``Evaluation.summary()``): return a
        `SparkEvaluation` instead of a DataFrame. Required with catalogue-level metrics,
        whose table is `SparkEvaluation.catalogue`.
    popularity, catalogue, item_features, head_share
        As for `evaluate` (Polars or Spark frames; small item tables, collected to the driver
        and given whole to every partition). Per-group beyond-accuracy metrics are rows of the
        result; catalogue-level ones (coverage, gini, entropy, personalization) are
        `SparkEvaluation.catalogue`, from the partitions' summed exposure counts against the
        whole input's catalogue (default: every item of the candidates and the popularity log).
        They evaluate each partition a second time (a second ``mapInArrow`` over the same
        shuffle).
    subtopic
        A truth column naming each judgement's subtopic (intent), for the subtopic metrics
        (``alpha_ndcg, alpha_dcg, err_ia, nerr_ia, p_ia, ap_ia, st_recall, nrbp, nnrbp``;
        ir_measures' ``alpha_nDCG@20``, ``ERR_IA@20``, ``nNRBP`` ...), which equal ndeval.
        Every other metric reads an item's grade as its largest over subtopics. As for
        `evaluate`: the truth is one row per (group, subtopic, item) judgement, shipped with
        its group's candidates.
    documents
        The candidates are passages (chunks): each partition collapses its groups' passages
        to documents by this `polars_rankk.DocumentRule` before ranking them, as
        `polars_rankk.to_documents` does on one machine (the rule must keep the id column's
        type). ``SparkEvaluation.documents`` records it.

    Returns
    -------
    pyspark.sql.DataFrame or SparkEvaluation
        The per-group rows — the group keys (their Spark types; integer ids of different widths
        become ``long``), ``metric`` string, ``k`` long (null for r_precision), ``value``
        double — in no particular order; or, with ``with_dropped=True``, a `SparkEvaluation`.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.engines.spark import evaluate_spark, summarize_spark
    >>> candidates = spark.createDataFrame(
    ...     [(1, "a", 0.9), (1, "b", 0.5), (2, "c", 0.7)], "user long, item string, score double"
    ... )  # doctest: +SKIP
    >>> truth = spark.createDataFrame([(1, "b", 1), (2, "c", 2)],
    ...                               "user long, item string, relevance long")  # doctest: +SKIP
    >>> per_group = evaluate_spark(candidates, truth, k=[1, 2], metrics="ndcg",
    ...                            group_by="user", policy=rk.Policy())  # doctest: +SKIP
    >>> per_group.orderBy("user", "k").show()  # doctest: +SKIP
    +----+------+---+------------------+
    |user|metric|  k|             value|
    +----+------+---+------------------+
    |   1|  ndcg|  1|               0.0|
    |   1|  ndcg|  2|0.6309297535714574|
    |   2|  ndcg|  1|               1.0|
    |   2|  ndcg|  2|               1.0|
    +----+------+---+------------------+
    <BLANKLINE>
    >>> summarize_spark(per_group).select("metric", "k", "value", "n_groups")  # doctest: +SKIP
    shape: (2, 4)
    ┌────────┬─────┬──────────┬──────────┐
    │ metric ┆ k   ┆ value    ┆ n_groups │
    │ ---    ┆ --- ┆ ---      ┆ ---      │
    │ str    ┆ i64 ┆ f64      ┆ i64      │
    ╞════════╪═════╪══════════╪══════════╡
    │ ndcg   ┆ 1   ┆ 0.5      ┆ 2        │
    │ ndcg   ┆ 2   ┆ 0.815465 ┆ 2        │
    └────────┴─────┴──────────┴──────────┘
    """
    plan.check_frame(candidates, "candidates")
    plan.local_workers_python(candidates)
    if truth is not None:
        plan.check_frame(truth, "truth")
    driver.check_partitions(num_partitions, "num_partitions")
    driver.check_partitions(max_rows_per_chunk, "max_rows_per_chunk")
    timezone = plan.session_timezone(candidates)
    index = None if documents is None else documents.passage_index
    names = [group_by, item, score, relevance, n_relevant, order_by, subtopic, index]
    long_truth = plan.driver_schemas(candidates, truth, names, timezone)[1]
    evaluation_plan = driver.planned(
        metrics, k, policy, with_dropped=with_dropped, evaluation="SparkEvaluation"
    )
    asked = driver.subtopics(
        evaluation_plan,
        long_truth,
        subtopic=subtopic,
        group_by=group_by,
        item=item,
        relevance=relevance,
    )
    if driver.needs_relevance(evaluation_plan, truth is not None, candidates.columns, relevance):
        from pyspark.sql import functions as sf

        candidates = candidates.withColumn(relevance, sf.lit(0.0))
        evaluation_plan = driver.zero_truth(evaluation_plan)
    schemas = plan.driver_schemas(candidates, None, names, timezone)[0], asked.truth_schema
    planned = driver.plan_on_driver(
        schemas,
        evaluation_plan,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        order_by=order_by,
        with_dropped=with_dropped,
        check_values=check_values,
        popularity=popularity,
        catalogue=catalogue,
        item_features=item_features,
        head_share=head_share,
        subtopics=asked,
        documents=documents,
    )
    spec, job = planned.spec, planned.job
    if job.candidate_lists:
        candidates = plan.long_lists(candidates, job, 0, timezone)
    if truth is not None and job.truth_lists:
        truth = plan.long_lists(truth, job, 1, timezone)
    fields = {field.name: field.dataType for field in candidates.schema.fields}
    id_types = {
        c: plan.spark_type(dtype, fields[c]) for c, dtype in dist.common_id_dtypes(spec).items()
    }
    union = plan.by_group(
        plan.tagged_union(candidates, truth, job, id_types),
        job.keys,
        num_partitions,
        max_rows_per_chunk,
    )
    raw = plan.evaluated(union, job, id_types, max_rows_per_chunk, timezone)
    if not with_dropped:
        return raw
    chunking = (max_rows_per_chunk, timezone)
    return _with_dropped(raw, candidates, union, planned, id_types, chunking)


def _with_dropped(
    raw: DataFrame,
    candidates: DataFrame,
    union: DataFrame,
    planned: driver.DriverPlan,
    id_types: dict[str, Any],
    chunking: tuple[int | None, str],
) -> SparkEvaluation:
    """The evaluation with its drop counts, and the catalogue-level metrics' exposures."""
    spec, job, tables = planned.spec, planned.job, planned.tables
    exposures, inputs = None, None
    if job.catalogue_metrics and tables is not None:
        exposures = plan.exposures(union, job, id_types, *chunking)
        # The default catalogue is the whole input's: its distinct candidate items.
        items = (
            candidates.select(plan.column(job.item).cast(id_types[job.item]).alias(job.item))
            .where(plan.column(job.item).isNotNull())  # rows of empty ranked lists: no item
            .distinct()
        )
        inputs = (spec, tables, job.catalogue_metrics, items)
    return SparkEvaluation.of_job(
        job, raw, exposures, inputs, tuple(summary_cells(spec, job.metrics))
    )


def summarize_spark(
    results: DataFrame | SparkEvaluation,
    *,
    quantiles: Sequence[float] = (),
    max_distinct: int = 1_000_000,
    approximate: bool = False,
    accuracy: int = 10_000,
    progress: bool | None = None,
) -> pl.DataFrame:
    """The macro summary of per-group values in Spark, bit-identical to ``res.summary()``.

    Spark builds the value histogram — (metric, k, value) -> count, NaN apart — and the
    driver reduces it with the single-machine summariser, so the mean does not depend on the
    partitioning. One Spark job (two when a metric exceeds `max_distinct`).

    Parameters
    ----------
    results
        The per-group DataFrame of `evaluate_spark` (or any DataFrame with ``metric``, ``k``,
        ``value``), or a `SparkEvaluation` (``evaluate_spark(..., with_dropped=True)``).
    quantiles
        Probabilities in [0, 1]: adds ``quantile_<p>`` columns, equal to Polars'
        ``quantile(p, "linear")`` of the values (as `polars_rankk.distribution` computes them).
    max_distinct
        A (metric, k) with more distinct values than this is not collected to the driver: its
        mean is an exact decimal sum in Spark divided once (order-independent, but may differ
        from the single-machine float sum in the last bit), its quantiles Spark's exact
        ``percentile``.
    approximate
        Use Spark's ``percentile_approx`` (with `accuracy`) instead of ``percentile`` for those
        high-cardinality metrics.
    accuracy
        ``percentile_approx`` accuracy.
    progress
        Draw a bar of Spark tasks done (default: in notebooks and terminals, not when piped).

    Returns
    -------
    pl.DataFrame
        Every column of ``Evaluation.summary()`` — ``metric, k, value, n_groups, n_nan,
        dropped_empty_truth, dropped_missing, dropped_short`` — then the quantile columns.
        The ``dropped_*`` counts come from a `SparkEvaluation`
        (``evaluate_spark(..., with_dropped=True)``); a plain per-group DataFrame cannot tell
        which groups a policy dropped, so there they are null (unknown), never a made-up 0.

    Examples
    --------
    >>> from polars_rankk.engines.spark import evaluate_spark, summarize_spark
    >>> result = evaluate_spark(candidates, truth, k=10, group_by="user",
    ...                         with_dropped=True)  # doctest: +SKIP
    >>> summarize_spark(result, quantiles=[0.5])  # doctest: +SKIP
    """
    plan.pyspark_module()
    from pyspark.sql import DataFrame, Window
    from pyspark.sql import functions as sf

    checked = check_quantiles(quantiles)
    if isinstance(max_distinct, bool) or max_distinct < 1:
        raise ValueError(f"max_distinct must be an int >= 1; got {max_distinct!r}")
    if isinstance(results, SparkEvaluation):
        frame, dropped_ks, cells = results.raw, results.ks, results.cells
    elif isinstance(results, DataFrame):
        frame, dropped_ks, cells = results, None, ()
        missing = [c for c in ("metric", "k", "value") if c not in frame.columns]
        if missing:
            raise ValueError(
                f"summarize_spark needs the per-group columns metric, k, value; missing "
                f"{missing} among {frame.columns}"
            )
    else:
        raise TypeError(
            "summarize_spark takes the DataFrame or the SparkEvaluation evaluate_spark returns; "
            f"got {type(results).__name__}"
        )

    value = sf.when(sf.isnan("value"), sf.lit(None).cast("double")).otherwise(sf.col("value"))
    histogram = (
        frame.select(
            sf.col("metric").cast("string").alias("metric"),
            sf.col("k").cast("long").alias("k"),
            value.cast("double").alias("value"),
        )
        .groupBy("metric", "k", "value")
        .agg(sf.count(sf.lit(1)).alias("count"))
    )
    pair = Window.partitionBy("metric", "k")
    histogram = (
        histogram.withColumn("_rk_distinct", sf.count(sf.lit(1)).over(pair))
        .withColumn("_rk_first", sf.row_number().over(pair.orderBy("value")))
        # A high-cardinality pair sends one marker row, not its histogram.
        .where((sf.col("_rk_distinct") <= max_distinct) | (sf.col("_rk_first") == 1))
    )
    with spark_progress(frame.sparkSession, progress):
        collected = pl.from_arrow(histogram.toArrow())
        assert isinstance(collected, pl.DataFrame)
        small = pl.col("_rk_distinct") <= max_distinct
        large = collected.filter(~small).select("metric", "k").unique()
        fallback = None
        if large.height:
            fallback = plan.high_cardinality(frame, large, checked, approximate, accuracy)
    kept = collected.filter(small)
    summary = reduction.summarize(
        kept, dropped_ks=dropped_ks, quantiles=checked, fallback=fallback, cells=cells
    )
    return order_metrics(summary)
