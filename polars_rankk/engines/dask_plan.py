"""The Dask side of `evaluate_dask` and `summarize_dask`: conversions between pandas and
Polars, the tagged union, the per-partition evaluation and histograms.
`polars_rankk.engines.dask` holds the public functions that put them together.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.types import untyped
from polars_rankk.engines import partition as dist
from polars_rankk.engines import reduction
from polars_rankk.engines.ranked_lists import LIST_ID

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

INSTALL = "polars_rankk.dask needs Dask: pip install 'polars-rankk[dask]'"


def dask_dataframe_module() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as error:
        raise ImportError(INSTALL) from error
    return dd


def dask_module() -> Any:
    try:
        import dask
    except ImportError as error:
        raise ImportError(INSTALL) from error
    return dask


def check_frame(frame: object, name: str) -> None:
    dask_dataframe = dask_dataframe_module()
    if not isinstance(frame, dask_dataframe.DataFrame):
        raise TypeError(
            f"{name} must be a dask DataFrame; got {type(frame).__name__}. "
            f"For Polars frames use polars_rankk.evaluate."
        )


def with_lists_kept(frame: dd.DataFrame) -> dd.DataFrame:
    """`frame` with its ranked lists as lists: a frame made by ``dd.from_pandas`` from numpy-
    object list columns, which Dask's ``dataframe.convert-string`` option turns into strings
    (``"['b', 'a']"``), is made again from the same pandas frame without that conversion.
    Any other frame is returned as it is.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from polars_rankk.engines.dask_plan import with_lists_kept
    >>> lists = dd.from_pandas(pd.DataFrame({"user": [1], "item": [["b", "a"]]}), npartitions=1)
    >>> str(lists.dtypes["item"]), list(with_lists_kept(lists).compute()["item"][0])
    ('string', ['b', 'a'])
    """
    expr: Any = getattr(frame, "expr", None)
    if type(expr).__name__ != "FromPandas" or not expr.operand("pyarrow_strings_enabled"):
        return frame
    original = getattr(expr.frame, "_data", None)
    if original is None or not hasattr(original, "columns"):
        return frame
    import numpy as np

    def holds_lists(column: Any) -> bool:
        present = original[column].dropna()
        return len(present) > 0 and isinstance(present.iloc[0], (list, tuple, np.ndarray))

    if not any(holds_lists(c) for c in original.columns if original[c].dtype == object):
        return frame
    from dask.dataframe import dask_expr

    rebuilt: dd.DataFrame = untyped(dask_expr).new_collection(
        expr.substitute_parameters({"pyarrow_strings_enabled": False})
    )
    return rebuilt


def to_polars(frame: pd.DataFrame) -> pl.DataFrame:
    # NaN stays NaN (an invalid score, a NaN grade): what the single-machine path sees.
    return pl.from_pandas(frame, nan_to_null=False)


def to_pandas(frame: pl.DataFrame) -> pd.DataFrame:
    # Arrow-backed columns round-trip every dtype, nulls (k of r_precision) and NaN exactly.
    return frame.to_pandas(use_pyarrow_extension_array=True)


def polars_schema(frame: dd.DataFrame, columns: Iterable[str]) -> dict[str, pl.DataType]:
    """Polars dtypes of the used columns of a dask frame (others: Null placeholders)."""
    wanted = [c for c in frame.columns if c in set(columns)]
    # An object column's meta says nothing of its values (ranked lists as numpy arrays, when
    # Dask's convert-string is off): read them off the first partition's first rows.
    objects = [c for c in wanted if frame[c].dtype == object]
    typed = [c for c in wanted if c not in objects]
    schema: dict[str, pl.DataType] = dict(to_polars(frame._meta_nonempty[typed]).schema)
    if objects:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # fewer rows than asked for
            head = frame[objects].head(5, npartitions=1, compute=True)
        found = to_polars(head).schema if len(head) else {}
        schema.update({c: found.get(c, pl.String()) for c in objects})
    return {c: schema[c] if c in wanted else pl.Null() for c in frame.columns}


def tagged(
    frame: pd.DataFrame,
    *,
    tag: int,
    schema: dict[str, pl.DataType],
    union: dict[str, pl.DataType],
    renames: dict[str, str],
    job: dist.PartitionJob | None = None,
    partition_info: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """One partition of candidates (tag 0) or truth (tag 1) in the union's columns; ranked
    lists (`job` given) in long form, as `evaluate` converts them."""
    polars_frame = to_polars(frame)
    if job is None:
        polars_frame = polars_frame.with_columns(pl.lit(tag, dtype=pl.Int8).alias(dist.TAG))
    else:
        number = 0 if partition_info is None else int(partition_info["number"])
        polars_frame = job.long_rows(polars_frame, tag, first_list=number << 32)
    polars_frame = polars_frame.rename(renames)
    polars_frame = polars_frame.cast(
        {c: dtype for c, dtype in schema.items() if c in polars_frame.columns}
    )
    return to_pandas(
        polars_frame.select(
            pl.col(name) if name in polars_frame.columns else pl.lit(None, dtype=dtype).alias(name)
            for name, dtype in union.items()
        )
    )


def evaluate_partition(
    frame: pd.DataFrame,
    *,
    job: dist.PartitionJob,
    union: dict[str, pl.DataType],
    empty: pd.DataFrame,
) -> pd.DataFrame:
    """map_partitions body: a partition of the tagged union, whole groups -> per_group."""
    if len(frame) == 0:
        return empty
    tagged = to_polars(frame).cast(union)  # type: ignore[arg-type]
    try:
        result = job.evaluate_tagged(tagged)
    except Exception as error:
        dist.add_note(
            error,
            f"polars_rankk.dask: raised by polars_rankk.evaluate on a partition of "
            f"{len(frame)} rows (candidates and truth)",
        )
        raise
    return to_pandas(result)


def partition_histogram(frame: pd.DataFrame) -> pd.DataFrame:
    """(metric, k, value, count) of one partition, NaN as null value."""
    from polars_rankk.core.evaluation.aggregate import value_histogram

    polars_frame = to_polars(frame[["metric", "k", "value"]]).cast(
        {"metric": pl.String, "k": pl.Int64, "value": pl.Float64}
    )
    return to_pandas(value_histogram(polars_frame).collect())


def without_sentinels(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["metric"].isin(list(reduction.SENTINELS))].reset_index(drop=True)


def histogram_meta() -> pd.DataFrame:
    return to_pandas(pl.DataFrame(schema=reduction.HISTOGRAM_SCHEMA))


def driver_schemas(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None,
    names: Sequence[str | Sequence[str] | None],
) -> tuple[dict[str, pl.DataType], dict[str, pl.DataType] | None]:
    """The Polars schemas of both tables for the core's checks on the driver (the columns the
    evaluation does not read are Null placeholders)."""
    used = dist.used_columns(names)
    return polars_schema(candidates, used), None if truth is None else polars_schema(truth, used)


def tagged_parts(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None,
    spec: Spec,
    job: dist.PartitionJob,
    long_truth: dict[str, pl.DataType] | None = None,
) -> tuple[dict[str, pl.DataType], list[dd.DataFrame]]:
    """The tagged union's schema, and each table as frames of that schema, with the core's
    unified id dtypes (so that a group's rows of both tables hash to one partition); the
    subtopic column's dtype is the given truth's (`long_truth`, its schema)."""
    cand_full = dict(spec.candidates.collect_schema())
    cand_schema = {c: cand_full[c] for c in (*job.candidate_columns(), job.score)}
    union: dict[str, pl.DataType] = {dist.TAG: pl.Int8()}
    union.update({c: cand_schema[c] for c in (*job.keys, job.item, job.score)})
    if job.positional:
        union[LIST_ID] = pl.Int64()
    if job.labelled:
        union[dist.LABEL] = cand_schema[job.relevance]
    union.update({c: cand_schema[c] for c in job.extras()})
    cand_renames = {job.relevance: dist.LABEL} if job.labelled else {}
    sides = [
        (candidates, 0, cand_schema, job.candidate_columns(), cand_renames, job.candidate_lists)
    ]
    if truth is not None and spec.truth is not None:
        truth_full = dict(spec.truth.collect_schema())
        if job.subtopic is not None and long_truth is not None:
            truth_full[job.subtopic] = long_truth[job.subtopic]
        truth_schema = {c: truth_full[c] for c in job.truth_columns()}
        renames: dict[str, str] = {}
        if job.truth_graded:
            union[dist.TRUTH_GRADE] = truth_schema[job.relevance]
            renames[job.relevance] = dist.TRUTH_GRADE
        if job.subtopic is not None:
            union[dist.SUBTOPIC] = truth_schema[job.subtopic]
            renames[job.subtopic] = dist.SUBTOPIC
        sides.append((truth, 1, truth_schema, job.truth_columns(), renames, job.truth_lists))
    union_meta = to_pandas(pl.DataFrame(schema=union))
    parts = []
    for frame, tag, side_schema, columns, renames, lists in sides:
        schema = {renames.get(c, c): dtype for c, dtype in side_schema.items()}
        parts.append(
            frame[columns].map_partitions(
                tagged,
                tag=tag,
                schema=schema,
                union=union,
                renames=renames,
                job=job if lists else None,
                meta=union_meta,
                enforce_metadata=False,
            )
        )
    return union, parts


def evaluated(
    shuffled: dd.DataFrame, job: dist.PartitionJob, union: dict[str, pl.DataType]
) -> dd.DataFrame:
    """The per-group rows (and sentinel rows) of every partition of the shuffled union."""
    empty = to_pandas(job.evaluate_tagged(pl.DataFrame(schema=union)))
    raw: dd.DataFrame = untyped(shuffled).map_partitions(
        evaluate_partition,
        job=job,
        union=union,
        empty=empty,
        meta=empty,
        enforce_metadata=False,
    )
    return raw


def exposure_partition(
    frame: pd.DataFrame, *, job: dist.PartitionJob, union: dict[str, pl.DataType]
) -> pd.DataFrame:
    """map_partitions body: a partition of the tagged union -> its exposure counts."""
    return to_pandas(job.exposure_rows(to_polars(frame).cast(union)))  # type: ignore[arg-type]


def exposures(
    shuffled: dd.DataFrame, job: dist.PartitionJob, union: dict[str, pl.DataType]
) -> dd.DataFrame:
    """Every partition's exposure counts (`polars_rankk.engines.partition.KIND` rows)."""
    meta = to_pandas(job.exposure_rows(pl.DataFrame(schema=union)))
    rows: dd.DataFrame = untyped(shuffled).map_partitions(
        exposure_partition, job=job, union=union, meta=meta, enforce_metadata=False
    )
    return rows
