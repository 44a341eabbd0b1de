"""Catalogue-level metrics at each K, from per-item exposure counts.

An item's exposure at K is the number of evaluated lists whose top K holds it. Every
catalogue-level metric is a function of these counts, the number of lists and the catalogue,
so that exposures computed on buckets or partitions merge by summation and give exactly the
numbers of one machine (`merge_exposures`, then `catalogue_values`). Counts are integers, and
the one floating-point sum (entropy) runs in item order, so the result does not depend on how
the rows were split.

- ``coverage@K``: the share of the catalogue in at least one top-K list.
- ``gini@K``: the Gini index of the catalogue's exposure counts, unexposed items included:
  Σ_j (2j − M − 1) c_(j) / (M Σ c), counts sorted ascending, M the catalogue size.
- ``entropy@K``: the Shannon entropy (bits) of the exposure shares over the catalogue.
- ``personalization@K``: 1 − the mean over pairs of lists of |L_u ∩ L_v| / K, from
  Σ_i c_i (c_i − 1) / 2 shared pairs over C(U, 2) pairs of lists (U lists, at least two).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES, RANK
from polars_rankk.core.inputs.spec import Spec, to_lazy
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.types import FrameLike

if TYPE_CHECKING:
    from polars_rankk.core.evaluation.diagnostics import Diagnostics

#: Catalogue-level metrics, in registry order (the order of the output).
CATALOGUE_METRICS: tuple[str, ...] = tuple(
    name for name, m in REGISTRY.items() if m.level == "catalogue"
)

_ITEM = "item"
_SIZE = "_rk_size"
EXPOSURE = "exposure"
N_LISTS = "n_lists"


def exposures(
    spec: Spec, ranked: pl.LazyFrame, groups: pl.LazyFrame
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Per (item, k): how many lists of `groups` hold the item in their top k; and per k the
    number of lists (groups with a candidate; under ``short_lists="skip"`` at least k)."""
    keys, item = list(spec.keys), spec.item
    ks = pl.LazyFrame({"k": list(spec.ks)}, schema={"k": pl.Int64})
    lists = groups.select(*keys, N_CANDIDATES).filter(pl.col(N_CANDIDATES) > 0)
    top = ranked.filter(pl.col(RANK) <= spec.k_max).select(*keys, item, RANK)
    if spec.policy.duplicates == "keep":
        # A list holding an item twice exposes it once.
        top = top.group_by([*keys, item]).agg(pl.col(RANK).min())
    top = top.join(lists, on=keys, how="inner")
    per_rank = top.group_by(
        pl.col(item).alias(_ITEM), RANK, pl.col(N_CANDIDATES).alias("_rk_n")
    ).agg(pl.len().alias(EXPOSURE))
    shown = pl.col(RANK) <= pl.col("k")
    if spec.policy.short_lists == "skip":
        shown = shown & (pl.col("_rk_n") >= pl.col("k"))
    exposure = (
        per_rank.join(ks, how="cross")
        .filter(shown)
        .group_by(_ITEM, "k")
        .agg(pl.col(EXPOSURE).sum().cast(pl.Int64))
    )
    counted = pl.col(N_CANDIDATES) >= 1
    if spec.policy.short_lists == "skip":
        counted = pl.col(N_CANDIDATES) >= pl.col("k")
    n_lists = (
        ks.join(lists.select(N_CANDIDATES), how="cross")
        .group_by("k")
        .agg(counted.sum().cast(pl.Int64).alias(N_LISTS))
    )
    n_lists = ks.join(n_lists, on="k", how="left").with_columns(pl.col(N_LISTS).fill_null(0))
    return exposure, n_lists


def merge_exposures(
    parts: Sequence[tuple[pl.LazyFrame, pl.LazyFrame]],
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Exposures and list counts of disjoint sets of groups, summed (buckets, partitions)."""
    exposure = (
        pl.concat([part[0] for part in parts], how="vertical")
        .group_by(_ITEM, "k")
        .agg(pl.col(EXPOSURE).sum())
    )
    n_lists = (
        pl.concat([part[1] for part in parts], how="vertical")
        .group_by("k")
        .agg(pl.col(N_LISTS).sum())
    )
    return exposure, n_lists


@dataclass(frozen=True)
class Catalogue:
    """The catalogue the exposures are counted against."""

    #: The given catalogue's items (column ``item``); None: every item of the candidates and
    #: the popularity log, which holds every exposed item, so nothing needs leaving out.
    items: pl.LazyFrame | None
    #: One row, ``_rk_size``: the number of items in the catalogue.
    size: pl.LazyFrame


@dataclass(frozen=True)
class Exposures:
    """What the catalogue-level figures of an evaluation are computed from."""

    #: ``item, k, exposure``: how many lists hold the item in their top k.
    exposure: pl.LazyFrame | pl.DataFrame
    #: ``k, n_lists``: how many lists count at k.
    n_lists: pl.LazyFrame | pl.DataFrame
    #: The catalogue the counts are measured against.
    catalogue: Catalogue
    #: The ranked rows within the largest K (keys, item, rank) of every group, and the groups
    #: (keys, n_candidates): to recount exposures under group weights (bootstrap intervals).
    top: pl.LazyFrame
    groups: pl.LazyFrame


def shared_catalogue(
    candidates: Sequence[FrameLike], popularity: FrameLike | None, item: str
) -> pl.LazyFrame:
    """One catalogue for every system compared: the items of all their candidates and of the
    popularity log. Each system's own items would make a system that shows more items look
    less covering (its denominator grows with what it exposes).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.evaluation.catalogue import shared_catalogue
    >>> a, b = pl.DataFrame({"item": [1, 2]}), pl.DataFrame({"item": [2, 3]})
    >>> sorted(shared_catalogue([a, b], None, "item").collect()["item"])
    [1, 2, 3]
    """
    frames = [*candidates, *([] if popularity is None else [popularity])]
    items = [to_lazy(frame, "candidates").select(item) for frame in frames]
    return pl.concat(items, how="vertical_relaxed").unique()


@dataclass(frozen=True)
class SharedCatalogue:
    """One catalogue every system compared is measured against (`shared_catalogue`): how many
    systems share it and its items, said in each system's diagnostics."""

    systems: int
    items: pl.LazyFrame

    def added_to(self, diagnostics: Diagnostics) -> Diagnostics:
        """`diagnostics` with the rule among its counts: the shared catalogue's items
        (``shared_catalogue_items``) and the systems sharing it."""
        size = int(self.items.select(pl.len()).collect().item())
        shared = {"shared_catalogue_items": size, "systems_sharing_the_catalogue": self.systems}
        return replace(diagnostics, counts={**diagnostics.counts, **shared})


def catalogue_items(
    spec: Spec, catalogue: pl.LazyFrame | None, popularity: pl.LazyFrame | None
) -> Catalogue:
    """The catalogue: the given table, or every item of the candidates and the popularity
    log."""
    item = spec.item
    if catalogue is not None:
        items = catalogue.select(pl.col(item).alias(_ITEM)).unique()
        return Catalogue(items, items.select(pl.len().cast(pl.Int64).alias(_SIZE)))
    seen = [spec.candidates.select(pl.col(item).alias(_ITEM))]
    if popularity is not None:
        seen.append(popularity.select(pl.col(item).alias(_ITEM)))
    size = pl.concat(seen, how="vertical").select(
        pl.col(_ITEM).drop_nulls().n_unique().cast(pl.Int64).alias(_SIZE)
    )
    return Catalogue(None, size)


def catalogue_values(
    exposure: pl.LazyFrame,
    n_lists: pl.LazyFrame,
    catalogue: Catalogue,
    metrics: Sequence[str],
) -> pl.LazyFrame:
    """``metric, k, value`` for each catalogue-level metric and K (see the module notes)."""
    size = catalogue.size
    inside = exposure
    if catalogue.items is not None:
        inside = exposure.join(catalogue.items, on=_ITEM, how="semi")
    # Ascending position among the catalogue: the unexposed items come first.
    position = (
        pl.col(_SIZE)
        - pl.len().over("k")
        + pl.col(EXPOSURE).rank("ordinal").over("k").cast(pl.Int64)
    )
    # All sums of counts are integers (exact); only the entropy sums floats, in item order.
    share = pl.col(EXPOSURE) / pl.col(EXPOSURE).sum().over("k")
    stats = (
        inside.join(size, how="cross")
        .with_columns(
            ((2 * position - pl.col(_SIZE) - 1) * pl.col(EXPOSURE)).alias("_rk_gini"),
            (-share * share.log(2.0)).alias("_rk_entropy"),
        )
        .group_by("k")
        .agg(
            pl.len().cast(pl.Int64).alias("_rk_covered"),
            pl.col(EXPOSURE).sum().alias("_rk_total"),
            pl.col("_rk_gini").sum(),
            # A running sum is sequential: the same bits however the rows were chunked.
            pl.col("_rk_entropy").sort_by(pl.col(_ITEM)).cum_sum().last(),
        )
    )
    shared = exposure.group_by("k").agg(
        (pl.col(EXPOSURE) * (pl.col(EXPOSURE) - 1) // 2).sum().alias("_rk_shared")
    )
    table = (
        n_lists.join(size, how="cross")
        .join(stats, on="k", how="left")
        .join(shared, on="k", how="left")
        .with_columns(
            pl.col("_rk_covered", "_rk_total", "_rk_gini", "_rk_shared").fill_null(0),
            pl.col("_rk_entropy").fill_null(0.0),
        )
    )
    size_f = pl.col(_SIZE).cast(pl.Float64)
    pairs = (pl.col(N_LISTS) * (pl.col(N_LISTS) - 1) // 2).cast(pl.Float64)
    values = {
        "coverage": pl.when(pl.col(_SIZE) > 0).then(pl.col("_rk_covered") / size_f),
        "gini": pl.when(pl.col("_rk_total") > 0).then(
            pl.col("_rk_gini").cast(pl.Float64) / (size_f * pl.col("_rk_total").cast(pl.Float64))
        ),
        "entropy": pl.col("_rk_entropy") + 0.0,
        "personalization": pl.when(pl.col(N_LISTS) >= 2).then(
            1.0 - pl.col("_rk_shared").cast(pl.Float64) / (pairs * pl.col("k").cast(pl.Float64))
        ),
    }
    chosen = [name for name in CATALOGUE_METRICS if name in metrics]
    if not chosen:
        return pl.LazyFrame(schema={"metric": pl.String, "k": pl.Int64, "value": pl.Float64})
    # One wide row per k, unpivoted: the plan above runs once for every metric.
    order = {name: index for index, name in enumerate(CATALOGUE_METRICS)}
    return (
        table.select("k", *(values[name].cast(pl.Float64).alias(name) for name in chosen))
        .unpivot(index="k", variable_name="metric", value_name="value")
        .with_columns(pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort("_o", "k")
        .select("metric", "k", "value")
    )
