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
>>> result = evaluate_dask(
...     dd.from_pandas(candidates.to_pandas(), npartitions=2),
...     dd.from_pandas(truth.to_pandas(), npartitions=1),
...     k=2, metrics="ndcg", group_by="user", with_dropped=True,
... )
>>> summarize_dask(result).equals(
...     rk.evaluate(candidates, truth, k=2, metrics="ndcg", group_by="user").summary())
True

Without ``with_dropped=True`` the result is the per-group frame; its summary has the same
columns, with the policy drop counts null (per-group rows cannot tell which groups a policy
dropped).

>>> summarize_dask(result.per_group)["dropped_empty_truth"].to_list()
[None]
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
from polars_rankk.core.types import FrameLike, untyped
from polars_rankk.engines import dask_plan as plan
from polars_rankk.engines import driver, reduction
from polars_rankk.engines import partition as dist
from polars_rankk.engines.distributed import DistributedEvaluation
from polars_rankk.engines.progress import dask_progress
from polars_rankk.passages import DocumentRule

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["DaskEvaluation", "evaluate_dask", "summarize_dask"]


@dataclass(frozen=True)
class DaskEvaluation(DistributedEvaluation):
    """Per-group values and policy drop counts of one Dask evaluation.

    Returned by ``evaluate_dask(..., with_dropped=True)``: `raw` holds the per-group rows and,
    per partition, sentinel rows (null keys, metric ``_rk_dropped_*``) with the groups each
    policy dropped; `per_group` is a view of it and `summary` reads both in one computation.
    """

    raw: dd.DataFrame

    def collected_exposures(self, items: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The exposure rows and the distinct catalogue items (one Dask computation)."""
        rows, distinct = plan.dask_module().compute(self.exposures, items)
        return plan.to_polars(rows), plan.to_polars(distinct.to_frame())

    @property
    def per_group(self) -> dd.DataFrame:
        """Keys, metric, k, value: the columns and rows of ``Evaluation.per_group``."""
        frame: dd.DataFrame = untyped(self.raw).map_partitions(
            plan.without_sentinels, meta=self.raw._meta, enforce_metadata=False
        )
        return frame

    def summary(self, *, quantiles: Sequence[float] = ()) -> pl.DataFrame:
        """``Evaluation.summary()`` in full (the catalogue-level figures asked included);
        see `summarize_dask`."""
        found = summarize_dask(self, quantiles=quantiles)
        return with_catalogue(found, self.catalogue, None, None)


@overload
def evaluate_dask(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None = ...,
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
    npartitions: int | None = ...,
    with_dropped: Literal[False] = ...,
    check_values: bool = ...,
    popularity: FrameLike | None = ...,
    catalogue: FrameLike | None = ...,
    item_features: FrameLike | None = ...,
    head_share: float = ...,
    subtopic: str | None = ...,
    documents: DocumentRule | None = ...,
) -> dd.DataFrame: ...


@overload
def evaluate_dask(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None = ...,
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
    npartitions: int | None = ...,
    with_dropped: Literal[True],
    check_values: bool = ...,
    popularity: FrameLike | None = ...,
    catalogue: FrameLike | None = ...,
    item_features: FrameLike | None = ...,
    head_share: float = ...,
    subtopic: str | None = ...,
    documents: DocumentRule | None = ...,
) -> DaskEvaluation: ...


def evaluate_dask(
    candidates: dd.DataFrame,
    truth: dd.DataFrame | None = None,
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
    npartitions: int | None = None,
    with_dropped: bool = False,
    check_values: bool = True,
    popularity: FrameLike | None = None,
    catalogue: FrameLike | None = None,
    item_features: FrameLike | None = None,
    head_share: float = 0.2,
    subtopic: str | None = None,
    documents: DocumentRule | None = None,
) -> dd.DataFrame | DaskEvaluation:
    """`polars_rankk.evaluate` on dask DataFrames: the same per-group values, bit for bit.

    Schemas are checked when this is called (the errors `evaluate` raises); value checks run
    in the partitions and fail the computation with the core's message. Lazy, like Dask.

    Parameters
    ----------
    candidates, truth
        dask DataFrames with the columns `evaluate` expects: one row per (group, item), or
        ranked lists (an item list per row, parallel score or grade lists, an empty list for
        an empty ranking or truth) as Arrow list columns, converted as `evaluate` converts
        them (Dask turns numpy-object lists into strings).
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
        Also carry the policy drop counts: return a `DaskEvaluation`. Required with
        catalogue-level metrics, whose table is `DaskEvaluation.catalogue`.
    popularity, catalogue, item_features, head_share
        As for `evaluate` (Polars, Dask or Spark frames; small item tables, collected and given
        whole to every partition). Per-group beyond-accuracy metrics are rows of the result;
        catalogue-level ones (coverage, gini, entropy, personalization) are
        `DaskEvaluation.catalogue`, from the partitions' summed exposure counts against the
        whole input's catalogue (default: every item of the candidates and the popularity log).
        They evaluate each partition a second time (a second ``map_partitions`` over the same
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
        type). ``DaskEvaluation.documents`` records it.

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
    plan.check_frame(candidates, "candidates")
    if truth is not None:
        plan.check_frame(truth, "truth")
    # Lists of a pandas frame stay lists (Dask's convert-string would make them strings).
    candidates = plan.with_lists_kept(candidates)
    truth = None if truth is None else plan.with_lists_kept(truth)
    driver.check_partitions(npartitions, "npartitions")
    index = None if documents is None else documents.passage_index
    names = [group_by, item, score, relevance, n_relevant, order_by, subtopic, index]
    long_truth = None if truth is None else plan.polars_schema(truth, dist.used_columns(names))
    evaluation_plan = driver.planned(
        metrics, k, policy, with_dropped=with_dropped, evaluation="DaskEvaluation"
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
        candidates = candidates.assign(**{relevance: 0.0})
        evaluation_plan = driver.zero_truth(evaluation_plan)
    schemas = plan.driver_schemas(candidates, None, names)[0], asked.truth_schema
    try:
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
    except ValueError as error:
        if score in candidates.columns or schemas[0].get(item) != pl.String:
            raise
        raise ValueError(
            f"{error}. If {item!r} held ranked lists, Dask turned them into strings (its "
            f"dataframe.convert-string option converts numpy-object columns): give them as "
            f"Arrow list columns, e.g. dd.from_pandas(frame.to_pandas("
            f"use_pyarrow_extension_array=True)) from Polars"
        ) from None
    spec, job, tables = planned.spec, planned.job, planned.tables
    keys = list(job.keys)
    union, parts = plan.tagged_parts(candidates, truth, spec, job, long_truth)
    partitions = npartitions or max(part.npartitions for part in parts)
    tagged = plan.dask_dataframe_module().concat(parts) if len(parts) > 1 else parts[0]
    shuffled = tagged.shuffle(on=keys, npartitions=partitions)
    raw = plan.evaluated(shuffled, job, union)
    if not with_dropped:
        return raw
    exposures, inputs = None, None
    if job.catalogue_metrics and tables is not None:
        exposures = plan.exposures(shuffled, job, union)
        # The default catalogue is the whole input's: its distinct candidate items.
        # (Rows of empty ranked lists carry no item.)
        items = parts[0][job.item].dropna().drop_duplicates()
        inputs = (spec, tables, job.catalogue_metrics, items)
    return DaskEvaluation.of_job(
        job, raw, exposures, inputs, tuple(summary_cells(spec, job.metrics))
    )


def summarize_dask(
    results: dd.DataFrame | DaskEvaluation,
    *,
    quantiles: Sequence[float] = (),
    progress: bool | None = None,
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
    progress
        Draw Dask's progress bar over the computation (default: in notebooks and terminals,
        not when piped).

    Returns
    -------
    pl.DataFrame
        Every column of ``Evaluation.summary()`` — ``metric, k, value, n_groups, n_nan,
        dropped_empty_truth, dropped_missing, dropped_short`` — then the quantile columns.
        The ``dropped_*`` counts come from a `DaskEvaluation`; for a plain per-group frame
        they are null (unknown), never a made-up 0.

    Examples
    --------
    See the module docstring.
    """
    dask_dataframe = plan.dask_dataframe_module()
    checked = check_quantiles(quantiles)
    if isinstance(results, DaskEvaluation):
        frame, dropped_ks, cells = results.raw, results.ks, results.cells
    elif isinstance(results, dask_dataframe.DataFrame):
        frame, dropped_ks, cells = results, None, ()
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
    with dask_progress(progress):
        partitions = untyped(frame).map_partitions(
            plan.partition_histogram, meta=plan.histogram_meta(), enforce_metadata=False
        )
        histograms = partitions.compute()
    histogram = plan.to_polars(histograms)
    return order_metrics(
        reduction.summarize(histogram, dropped_ks=dropped_ks, quantiles=checked, cells=cells)
    )
