"""What the Spark and Dask back ends do on the driver before any job runs: the asked metrics
split (accuracy, per-group beyond-accuracy, catalogue-level), the inputs' schemas checked with
`evaluate`'s errors, the item tables collected and validated, and the executors' job planned.

Each engine reads its frames' schemas and adds its own touches (Dask's note on stringified
lists, Spark's time zone); `plan_on_driver` is the rest, shared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import polars as pl

from polars_rankk.core import Policy
from polars_rankk.core.evaluation.beyond_accuracy import ItemTables, item_tables
from polars_rankk.core.evaluation.diversity import subtopic_job
from polars_rankk.core.inputs.spec import Spec, to_lazy
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.plan import Part, Plan
from polars_rankk.engines.partition import (
    PartitionJob,
    check_on_driver,
    empty_frame,
    partition_job,
)
from polars_rankk.engines.ranked_lists import list_fields
from polars_rankk.passages import DocumentRule, documents_schema


def check_partitions(value: int | None, option: str) -> None:
    """Refuse a partition count that is not an int >= 1 (None: the engine's default)."""
    if value is not None and (isinstance(value, bool) or value < 1):
        raise ValueError(f"{option} must be an int >= 1; got {value!r}")


def planned(
    metrics: str | Iterable[str] | None,
    k: int | Iterable[int] | None,
    policy: Policy | None,
    *,
    with_dropped: bool,
    evaluation: str,
) -> Plan:
    """The one plan of an engine call (`Plan`): an engine evaluates one policy, so names
    asking for several are refused in words; catalogue-level metrics need
    ``with_dropped=True`` (their table is `evaluation`'s ``catalogue``)."""
    plan = Plan.of(metrics, k, policy)
    part = plan.one_policy
    if part.beyond_catalogue and not with_dropped:
        raise ValueError(
            f"catalogue-level metrics {list(part.beyond_catalogue)} are a table of their own: "
            f"pass with_dropped=True and read {evaluation}.catalogue"
        )
    return plan


def needs_relevance(plan: Plan, has_truth: bool, columns: Iterable[str], relevance: str) -> bool:
    """As `evaluate`: only beyond-accuracy metrics and no truth: every group counts, none
    relevant (the engine adds a 0.0 relevance column and scores groups without truth,
    `zero_truth`)."""
    part = plan.one_policy
    only_beyond = bool(part.beyond) and part.ranking_only
    return only_beyond and not has_truth and relevance not in set(columns)


def zero_truth(plan: Plan) -> Plan:
    """The plan of an evaluation without truth (every group evaluated, none relevant)."""
    return plan.with_policy(empty_truth="zero")


def small_table(frame: object, name: str) -> pl.DataFrame | None:
    """An item table as a Polars frame to ship to every partition: Polars frames as they are,
    Spark and Dask frames collected (item tables are small)."""
    if frame is None:
        return None
    if hasattr(frame, "toArrow"):  # a Spark DataFrame
        table = pl.from_arrow(frame.toArrow())
        assert isinstance(table, pl.DataFrame)
        return table
    if hasattr(frame, "compute") and hasattr(frame, "map_partitions"):  # a Dask DataFrame
        return pl.from_pandas(frame.compute(), nan_to_null=False)
    lazy = to_lazy(frame, name)
    return lazy.collect()


def with_beyond(
    job: PartitionJob,
    part: Part,
    spec: Spec,
    *,
    popularity: pl.DataFrame | None,
    catalogue: pl.DataFrame | None,
    item_features: pl.DataFrame | None,
    head_share: float,
) -> tuple[PartitionJob, ItemTables | None]:
    """The job with the beyond-accuracy metrics and tables, which are validated here, on the
    driver, with `evaluate`'s errors; and the validated tables (None without beyond metrics)."""
    if not part.beyond:
        return job, None
    tables = item_tables(
        spec,
        needs=[table for name in part.beyond_group for table in REGISTRY[name].requires],
        popularity=popularity,
        catalogue=catalogue,
        item_features=item_features,
        head_share=head_share,
    )
    accuracy = () if part.ranking_only else tuple(spec.metrics)
    job = replace(
        job,
        metrics=(*accuracy, *part.beyond_group),
        popularity=popularity,
        item_features=item_features,
        head_share=head_share,
        catalogue_metrics=part.beyond_catalogue,
    )
    return job, tables


@dataclass(frozen=True)
class Subtopics:
    """What `evaluate`'s subtopic step (`subtopic_job`) makes of the truth, on the driver:
    the schema of the truth the other metrics read (one row per (group, item)), the subtopic
    metrics' canonical names and the subtopic column (None: not given)."""

    truth_schema: dict[str, pl.DataType] | None
    names: tuple[str, ...]
    subtopic: str | None


def subtopics(
    plan: Plan,
    truth_schema: dict[str, pl.DataType] | None,
    *,
    subtopic: str | None,
    group_by: str | Sequence[str],
    item: str,
    relevance: str,
) -> Subtopics:
    """`evaluate`'s subtopic step on an empty truth of `truth_schema` (the long-form truth's):
    its errors (a subtopic metric without ``subtopic=``, a missing subtopic column, ranked
    lists...) raised here, with its words; the value checks (a null subtopic, a NaN grade) run
    in each partition's `evaluate`."""
    keys = [group_by] if isinstance(group_by, str) else list(group_by)
    truth = None if truth_schema is None else empty_frame(truth_schema)
    collapsed, job = subtopic_job(
        plan.one_policy, truth, subtopic=subtopic, keys=keys, item=item, relevance=relevance
    )
    schema = None if collapsed is None else dict(to_lazy(collapsed, "truth").collect_schema())
    return Subtopics(schema, job.metrics, subtopic)


def with_subtopics(job: PartitionJob, part: Part, asked: Subtopics) -> PartitionJob:
    """The job reading the truth's subtopic column, the subtopic metrics among its metrics."""
    if asked.subtopic is None:
        return job
    metrics = job.metrics
    if asked.names and part.ranking_only and not part.beyond:
        metrics = ()  # only the ranking was needed (`evaluate` reports no accuracy metric)
    return replace(job, subtopic=asked.subtopic, metrics=(*metrics, *asked.names))


@dataclass(frozen=True)
class DriverPlan:
    """The checked inputs, the executors' job and the validated item tables (None without
    beyond-accuracy metrics)."""

    spec: Spec
    job: PartitionJob
    tables: ItemTables | None


def plan_on_driver(
    schemas: tuple[dict[str, pl.DataType], dict[str, pl.DataType] | None],
    plan: Plan,
    *,
    group_by: str | Sequence[str],
    item: str,
    score: str,
    relevance: str,
    n_relevant: str | None,
    order_by: str | None,
    with_dropped: bool,
    check_values: bool,
    popularity: object,
    catalogue: object,
    item_features: object,
    head_share: float,
    subtopics: Subtopics | None = None,
    documents: DocumentRule | None = None,
) -> DriverPlan:
    """Check the inputs' (candidates, truth) `schemas` as `evaluate` would, and plan the job
    of `plan` (one policy: `planned`): ranked-list columns found, beyond-accuracy metrics and
    their item tables added, the subtopic column and metrics (`subtopics`: the truth schema
    in `schemas` is then the one `subtopics` gives, the truth the other metrics read), and
    the passages' collapse to documents (`documents`)."""
    part = plan.one_policy
    if documents is not None:
        check_documents(schemas[0], documents, group_by=group_by, item=item, score=score)
    spec = check_on_driver(
        *schemas,
        k=plan.ks,
        metrics=part.checked,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        policy=part.policy,
        order_by=order_by,
    )
    job = partition_job(spec, plan, order_by, with_dropped=with_dropped, check_values=check_values)
    lists, truth_lists, positional = list_fields(*schemas, job.item, job.score)
    job = replace(job, candidate_lists=lists, truth_lists=truth_lists, positional=positional)
    job, tables = with_beyond(
        job,
        part,
        spec,
        popularity=small_table(popularity, "popularity"),
        catalogue=small_table(catalogue, "catalogue"),
        item_features=small_table(item_features, "item_features"),
        head_share=head_share,
    )
    if subtopics is not None:
        job = with_subtopics(job, part, subtopics)
    if documents is not None:
        if job.candidate_lists:
            raise ValueError(
                "documents= collapses one row per passage: give the candidates in long form "
                "(one row per group and passage), not as ranked lists"
            )
        job = replace(job, documents=documents)
    return DriverPlan(spec, job, tables)


def check_documents(
    schema: dict[str, pl.DataType],
    rule: DocumentRule,
    *,
    group_by: str | Sequence[str],
    item: str,
    score: str,
) -> None:
    """An engine collapses passages in each partition, where passages and documents travel in
    one id column: the rule's columns are checked here, and it must keep the id's dtype."""
    found = documents_schema(schema, rule, group_by=group_by, item=item, score=score)
    if found[item] != schema[item]:
        raise TypeError(
            f"documents= gives documents of dtype {found[item]} for passages of dtype "
            f"{schema[item]} (column {item!r}); an engine ships both in one column: map "
            f"passages to documents of the passages' dtype"
        )
