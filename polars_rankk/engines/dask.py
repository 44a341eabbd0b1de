"""Distributed evaluation on Dask, with exactly the numbers of the single-machine path.

Candidates and truth are concatenated into one tagged frame, shuffled by the group keys
(``shuffle(on=...)``: every row of a group lands in one partition), and each partition is
evaluated by the library's own Polars engine in one ``map_partitions`` call — one Python call
per partition, never one per group. Per-group values
equal ``polars_rankk.evaluate(...).per_group`` bit for bit; `summarize_dask` reduces value
histograms with the single-machine summariser, so the means are bit-identical too.

Requires ``pip install 'polars-rankk[dask]'`` (``dask[dataframe]``) and, on a cluster,
polars-rankk on the workers.

>>> import dask.dataframe as dd, polars as pl, polars_rankk as rk
>>> from polars_rankk.engines.dask import evaluate_dask, summarize_dask
>>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"],
...                            "score": [0.9, 0.5, 0.7]})
>>> truth = pl.DataFrame({"user": [1, 2], "item": ["b", "c"], "relevance": [1, 2]})
>>> per_group = evaluate_dask(
...     dd.from_pandas(candidates.to_pandas(), npartitions=2),
...     dd.from_pandas(truth.to_pandas(), npartitions=1),
...     k=2, metrics="ndcg", group_by="user",
... )
>>> summarize_dask(per_group).equals(
...     rk.evaluate(candidates, truth, k=2, metrics="ndcg", group_by="user")
...     .summary().select("metric", "k", "value", "n_groups", "n_nan"))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

import polars as pl

from polars_rankk.core.aggregate import order_metrics
from polars_rankk.core.policy import Policy
from polars_rankk.engines import partition as dist

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

__all__ = ["DaskEvaluation", "evaluate_dask", "summarize_dask"]

_INSTALL = "polars_rankk.dask needs Dask: pip install 'polars-rankk[dask]'"


def _dask_dataframe() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as error:
        raise ImportError(_INSTALL) from error
    return dd


def _check_frame(frame: object, name: str) -> None:
    dask_dataframe = _dask_dataframe()
    if not isinstance(frame, dask_dataframe.DataFrame):
        raise TypeError(
            f"{name} must be a dask DataFrame; got {type(frame).__name__}. "
            f"For Polars frames use polars_rankk.evaluate."
        )


def _to_polars(frame: pd.DataFrame) -> pl.DataFrame:
    # NaN stays NaN (an invalid score, a NaN grade): what the single-machine path sees.
    return pl.from_pandas(frame, nan_to_null=False)


def _to_pandas(frame: pl.DataFrame) -> pd.DataFrame:
    # Arrow-backed columns round-trip every dtype, nulls (k of r_precision) and NaN exactly.
    return frame.to_pandas(use_pyarrow_extension_array=True)


def _polars_schema(frame: dd.DataFrame, columns: Iterable[str]) -> dict[str, pl.DataType]:
    """Polars dtypes of the used columns of a dask frame (others: Null placeholders)."""
    wanted = [c for c in frame.columns if c in set(columns)]
    sample = _to_polars(frame._meta_nonempty[wanted])
    return {c: sample.schema[c] if c in wanted else pl.Null() for c in frame.columns}


def _tagged(
    frame: pd.DataFrame, *, tag: int, schema: dict[str, pl.DataType], union: dict[str, pl.DataType]
) -> pd.DataFrame:
    """One partition of candidates (tag 0) or truth (tag 1) in the union's columns."""
    polars_frame = _to_polars(frame).cast(schema)  # type: ignore[arg-type]
    polars_frame = polars_frame.with_columns(pl.lit(tag, dtype=pl.Int8).alias(dist.TAG))
    return _to_pandas(
        polars_frame.select(
            pl.col(name) if name in polars_frame.columns else pl.lit(None, dtype=dtype).alias(name)
            for name, dtype in union.items()
        )
    )


def _evaluate_partition(
    frame: pd.DataFrame,
    *,
    job: dist.PartitionJob,
    union: dict[str, pl.DataType],
    empty: pd.DataFrame,
) -> pd.DataFrame:
    """map_partitions body: a partition of the tagged union, whole groups -> per_group."""
    if len(frame) == 0:
        return empty
    tagged = _to_polars(frame).cast(union)  # type: ignore[arg-type]
    try:
        result = job.evaluate_tagged(tagged)
    except Exception as error:
        dist.add_note(
            error,
            f"polars_rankk.dask: raised by polars_rankk.evaluate on a partition of "
            f"{len(frame)} rows (candidates and truth)",
        )
        raise
    return _to_pandas(result)


def _partition_histogram(frame: pd.DataFrame) -> pd.DataFrame:
    """(metric, k, value, count) of one partition, NaN as null value."""
    from polars_rankk.core.aggregate import value_histogram

    polars_frame = _to_polars(frame[["metric", "k", "value"]]).cast(
        {"metric": pl.String, "k": pl.Int64, "value": pl.Float64}
    )
    return _to_pandas(value_histogram(polars_frame).collect())


def _without_sentinels(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["metric"].isin(list(dist.SENTINELS))].reset_index(drop=True)


def _histogram_meta() -> pd.DataFrame:
    return _to_pandas(pl.DataFrame(schema=dist.HISTOGRAM_SCHEMA))


@dataclass(frozen=True)
class DaskEvaluation:
    """Per-group values and policy drop counts of one Dask evaluation.

    Returned by ``evaluate_dask(..., with_dropped=True)``: `raw` holds the per-group rows and,
    per partition, sentinel rows (null keys, metric ``_rk_dropped_*``) with the groups each
    policy dropped; `per_group` is a view of it and `summary` reads both in one computation.
    """

    raw: dd.DataFrame
    group_keys: list[str]
    ks: list[int]
    metrics: list[str]
    policy: Policy

    @property
    def per_group(self) -> dd.DataFrame:
        """Keys, metric, k, value: the columns and rows of ``Evaluation.per_group``."""
        frame: dd.DataFrame = self.raw.map_partitions(  # type: ignore[no-untyped-call]
            _without_sentinels, meta=self.raw._meta, enforce_metadata=False
        )
        return frame

    def summary(self, *, quantiles: Sequence[float] = ()) -> pl.DataFrame:
        """``Evaluation.summary()`` in full; see `summarize_dask`."""
        return summarize_dask(self, quantiles=quantiles)


@overload
def evaluate_dask(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None = ...,
    *,
    k: int | Iterable[int] = ...,
    metrics: str | Iterable[str] | None = ...,
    group_by: str | Sequence[str],
    item: str = ...,
    score: str = ...,
    relevance: str = ...,
    n_relevant: str | None = ...,
    policy: Policy | None = ...,
    order_by: str | None = ...,
    npartitions: int | None = ...,
    with_dropped: Literal[False] = ...,
    check_values: bool = ...,
) -> dd.DataFrame: ...


@overload
def evaluate_dask(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None = ...,
    *,
    k: int | Iterable[int] = ...,
    metrics: str | Iterable[str] | None = ...,
    group_by: str | Sequence[str],
    item: str = ...,
    score: str = ...,
    relevance: str = ...,
    n_relevant: str | None = ...,
    policy: Policy | None = ...,
    order_by: str | None = ...,
    npartitions: int | None = ...,
    with_dropped: Literal[True],
    check_values: bool = ...,
) -> DaskEvaluation: ...


def evaluate_dask(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None = None,
    *,
    k: int | Iterable[int] = 10,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str],
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str | None = None,
    policy: Policy | None = None,
    order_by: str | None = None,
    npartitions: int | None = None,
    with_dropped: bool = False,
    check_values: bool = True,
) -> dd.DataFrame | DaskEvaluation:
    """`polars_rankk.evaluate` on dask DataFrames: the same per-group values, bit for bit.

    Schemas are checked when this is called (the errors `evaluate` raises); value checks run
    in the partitions and fail the computation with the core's message. Lazy, like Dask.

    Parameters
    ----------
    candidates, truth
        dask DataFrames with the columns `evaluate` expects.
    k, metrics, group_by, item, score, relevance, n_relevant, policy, check_values
        As in `polars_rankk.evaluate`.
    order_by
        Required by ``Policy(ties="input_order")``, refused otherwise: a candidates column
        with each row's position (unique within a group); the result equals
        ``evaluate(candidates.sort(order_by), ...)`` on one machine.
    npartitions
        Partitions of the shuffle by group (default: the larger input's). Each partition is
        evaluated in memory at once: more partitions, less memory per task.
    with_dropped
        Also carry the policy drop counts: return a `DaskEvaluation`.

    Returns
    -------
    dask.dataframe.DataFrame or DaskEvaluation
        The per-group rows — keys, ``metric``, ``k`` (null for r_precision), ``value`` — with
        Arrow-backed pandas dtypes (``pl.from_pandas(per_group.compute())`` gives back the
        Polars dtypes), in no particular order.

    Examples
    --------
    >>> import dask.dataframe as dd, polars as pl
    >>> from polars_rankk.engines.dask import evaluate_dask
    >>> candidates = dd.from_pandas(pl.DataFrame({
    ...     "user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.5, 0.7]}).to_pandas(),
    ...     npartitions=2)
    >>> truth = dd.from_pandas(pl.DataFrame({"user": [1, 2], "item": [11, 12]}).to_pandas(),
    ...                        npartitions=1)
    >>> per_group = evaluate_dask(candidates, truth, k=1, metrics="hit_rate", group_by="user")
    >>> pl.from_pandas(per_group.compute()).sort("user")
    shape: (2, 4)
    ┌──────┬──────────┬─────┬───────┐
    │ user ┆ metric   ┆ k   ┆ value │
    │ ---  ┆ ---      ┆ --- ┆ ---   │
    │ i64  ┆ str      ┆ i64 ┆ f64   │
    ╞══════╪══════════╪═════╪═══════╡
    │ 1    ┆ hit_rate ┆ 1   ┆ 0.0   │
    │ 2    ┆ hit_rate ┆ 1   ┆ 1.0   │
    └──────┴──────────┴─────┴───────┘
    """
    _check_frame(candidates, "candidates")
    if truth is not None:
        _check_frame(truth, "truth")
    if npartitions is not None and (isinstance(npartitions, bool) or npartitions < 1):
        raise ValueError(f"npartitions must be an int >= 1; got {npartitions!r}")
    used = {
        *([group_by] if isinstance(group_by, str) else group_by),
        item,
        score,
        relevance,
        *(c for c in (n_relevant, order_by) if c is not None),
    }
    spec = dist.check_on_driver(
        _polars_schema(candidates, used),
        None if truth is None else _polars_schema(truth, used),
        k=k,
        metrics=metrics,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        n_relevant=n_relevant,
        policy=policy,
        order_by=order_by,
    )
    job = dist.partition_job(spec, order_by, with_dropped=with_dropped, check_values=check_values)
    keys = list(job.keys)
    dask_dataframe = _dask_dataframe()
    # The tagged union: candidates and truth in one frame, with the core's unified id dtypes
    # (so that a group's rows of both tables hash to one partition).
    cand_schema = dict(spec.candidates.collect_schema())
    cand_schema = {c: cand_schema[c] for c in job.candidate_columns()}
    union: dict[str, pl.DataType] = {dist.TAG: pl.Int8()}
    union.update({c: cand_schema[c] for c in (*keys, job.item, job.score)})
    if job.labelled:
        union[dist.LABEL] = cand_schema[job.relevance]
    union.update({c: cand_schema[c] for c in (job.n_relevant, job.order_by) if c is not None})
    cand_renames = {job.relevance: dist.LABEL} if job.labelled else {}
    sides = [(candidates, 0, cand_schema, job.candidate_columns(), cand_renames)]
    if truth is not None and spec.truth is not None:
        truth_full = dict(spec.truth.collect_schema())
        truth_schema = {c: truth_full[c] for c in job.truth_columns()}
        renames: dict[str, str] = {}
        if job.truth_graded:
            union[dist.TRUTH_GRADE] = truth_schema[job.relevance]
            renames = {job.relevance: dist.TRUTH_GRADE}
        sides.append((truth, 1, truth_schema, job.truth_columns(), renames))
    union_meta = _to_pandas(pl.DataFrame(schema=union))
    parts = []
    for frame, tag, side_schema, columns, renames in sides:
        selected = frame[columns]
        schema = {renames.get(c, c): dtype for c, dtype in side_schema.items()}
        if renames:
            selected = selected.rename(columns=renames)
        parts.append(
            selected.map_partitions(
                _tagged,
                tag=tag,
                schema=schema,
                union=union,
                meta=union_meta,
                enforce_metadata=False,
            )
        )
    partitions = npartitions or max(part.npartitions for part in parts)
    tagged = dask_dataframe.concat(parts) if len(parts) > 1 else parts[0]
    tagged = tagged.shuffle(on=keys, npartitions=partitions)
    empty = _to_pandas(job.evaluate_tagged(pl.DataFrame(schema=union)))
    raw: dd.DataFrame = tagged.map_partitions(
        _evaluate_partition,
        job=job,
        union=union,
        empty=empty,
        meta=empty,
        enforce_metadata=False,
    )
    if not with_dropped:
        return raw
    return DaskEvaluation(
        raw=raw, group_keys=keys, ks=list(job.ks), metrics=list(job.metrics), policy=job.policy
    )


def summarize_dask(
    results: dd.DataFrame | DaskEvaluation, *, quantiles: Sequence[float] = ()
) -> pl.DataFrame:
    """The macro summary of per-group values in Dask, bit-identical to ``res.summary()``.

    Each partition builds its value histogram; the driver adds the counts and reduces them
    with the single-machine summariser.

    Parameters
    ----------
    results
        The per-group frame of `evaluate_dask` (any dask frame with ``metric``, ``k``,
        ``value``), or a `DaskEvaluation` (``evaluate_dask(..., with_dropped=True)``).
    quantiles
        Probabilities in [0, 1]: adds ``quantile_<p>`` columns equal to Polars'
        ``quantile(p, "linear")`` of the values (as `polars_rankk.distribution` computes them).

    Returns
    -------
    pl.DataFrame
        ``metric, k, value, n_groups, n_nan`` — for a `DaskEvaluation` also the
        ``dropped_*`` columns, i.e. every column of ``Evaluation.summary()`` — then the
        quantile columns.

    Examples
    --------
    See the module docstring.
    """
    dask_dataframe = _dask_dataframe()
    checked = dist.check_quantiles(quantiles)
    if isinstance(results, DaskEvaluation):
        frame, dropped_ks = results.raw, results.ks
    elif isinstance(results, dask_dataframe.DataFrame):
        frame, dropped_ks = results, None
        missing = [c for c in ("metric", "k", "value") if c not in frame.columns]
        if missing:
            raise ValueError(
                f"summarize_dask needs the per-group columns metric, k, value; missing "
                f"{missing} among {list(frame.columns)}"
            )
    else:
        raise TypeError(
            "summarize_dask takes the frame or the DaskEvaluation evaluate_dask returns; "
            f"got {type(results).__name__}"
        )
    histograms = frame.map_partitions(  # type: ignore[no-untyped-call]
        _partition_histogram, meta=_histogram_meta(), enforce_metadata=False
    ).compute()
    histogram = _to_polars(histograms)
    return order_metrics(dist.summarize(histogram, dropped_ks=dropped_ks, quantiles=checked))
