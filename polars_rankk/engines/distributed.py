"""What Spark and Dask evaluations share: the per-group rows with the policies' sentinel rows,
what was evaluated, and the catalogue-level metrics summed from the partitions' exposures.

`polars_rankk.engines.spark.SparkEvaluation` and `polars_rankk.engines.dask.DaskEvaluation`
add how their engine reads the rows back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

import polars as pl

from polars_rankk.core.policy import Policy
from polars_rankk.engines import partition as dist

Evaluated = TypeVar("Evaluated", bound="DistributedEvaluation")


@dataclass(frozen=True)
class DistributedEvaluation:
    """Per-group values and policy drop counts of one distributed evaluation.

    Attributes
    ----------
    raw
        The engine's frame the executors produce: per-group rows and, per partition, sentinel
        rows (null keys, metric ``_rk_dropped_*``) with the groups each policy dropped.
    group_keys, ks, metrics, policy
        What was evaluated, as in `polars_rankk.Evaluation`.
    exposures
        Per partition, its exposure counts (`polars_rankk.engines.partition.KIND`, item, k,
        count); None without catalogue-level metrics.
    documents
        How the candidates' passages were collapsed to documents in every partition
        (``documents=``: `polars_rankk.DocumentRule.describe`); None when they were not.
    """

    raw: Any
    group_keys: list[str]
    ks: list[int]
    metrics: list[str]
    policy: Policy
    exposures: Any = None
    _catalogue: Any = field(default=None, repr=False)
    documents: str | None = None
    #: The (metric, K) rows of the summary (`polars_rankk.core.evaluation.aggregate`'s
    #: `summary_cells`): kept where short lists left out every group.
    cells: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of_job(
        cls: type[Evaluated],
        job: dist.PartitionJob,
        raw: Any,
        exposures: Any,
        catalogue: Any,
        cells: tuple[tuple[str, int], ...] = (),
    ) -> Evaluated:
        """The evaluation of `job`: its `raw` frame, exposures, catalogue inputs and the
        summary's (metric, K) rows."""
        return cls(
            raw=raw,
            group_keys=list(job.keys),
            ks=list(job.ks),
            metrics=list(job.metrics),
            policy=job.policy,
            exposures=exposures,
            _catalogue=catalogue,
            documents=None if job.documents is None else job.documents.describe(),
            cells=cells,
        )

    def collected_exposures(self, items: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The exposure rows and the distinct catalogue items, as Polars frames."""
        raise NotImplementedError

    @cached_property
    def catalogue(self) -> pl.DataFrame | None:
        """Catalogue-level metrics (``metric, k, value``), as ``Evaluation.catalogue``: the
        partitions' exposure counts summed, against the whole input's catalogue. Computed on
        first access; None when none was asked for."""
        if self.exposures is None or self._catalogue is None:
            return None
        spec, tables, metrics, items = self._catalogue
        rows, distinct = self.collected_exposures(items)
        return dist.catalogue_table(spec, tables, metrics, distinct, rows)
