"""Beyond-accuracy metrics per group: novelty, popularity, long tail, intra-list diversity.

They read the ranking `evaluate` already prepared (`Prepared.ranked`: each candidate's rank
after invalid-score handling and de-duplication) and item tables the user gives: an item
popularity (an interaction log, or an ``(item, count)`` table) and item features (labels or an
embedding). Each is a running sum of a per-row term in rank order within the group, read at
every K, so a group's value depends only on its own rows — never on row order, partitioning or
the engine. What each metric means is written in `polars_rankk.core.metrics.registry` and
``docs/definitions.md``; catalogue-level metrics are in `polars_rankk.core.evaluation.catalogue`.

"Mean over the top K" divides by the same denominator as precision (`Policy.short_lists`):
K under ``"fixed"`` (missing slots add 0), min(K, n) under ``"observed"``; ``"skip"`` leaves
groups shorter than K out. Intra-list diversity divides by the number of pairs of that many
items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES, RANK
from polars_rankk.core.evaluation import catalogue as catalogue_level
from polars_rankk.core.inputs.spec import Spec, align_ids, example_row, require_columns, to_lazy
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.types import FrameLike

#: Per-group beyond-accuracy metrics, in registry order.
GROUP_METRICS: tuple[str, ...] = tuple(
    name for name, m in REGISTRY.items() if m.kind == "beyond_accuracy"
)

COUNT = "_rk_popularity"
_SELF_INFORMATION = "_rk_self_information"
_TAIL = "_rk_tail"
_LABEL = "_rk_label"
_WEIGHT = "_rk_weight"
_DIMENSION = "_rk_dimension_{}"
_VECTOR = "_rk_vector"
_UNIT = "_rk_unit"
_BLOCK = "_rk_block"
_ROWS = "_rk_rows"
_SCALE = "_rk_scale"
_SIMILARITY = "_rk_similarity"
_TERMS = {
    "novelty": _SELF_INFORMATION,
    "arp": COUNT,
    "long_tail_share": _TAIL,
}


@dataclass(frozen=True)
class ItemTables:
    """The validated item tables, with the item column cast to the candidates' dtype."""

    #: item, count (Float64), self-information and tail flag; None when not given.
    popularity: pl.LazyFrame | None
    #: item (unique); None: every item of the candidates or the popularity log.
    catalogue: pl.LazyFrame | None
    #: labels: item, label, weight (1/sqrt(labels of the item)); embedding: item and the
    #: vector (an Array of `dimensions` floats).
    features: pl.LazyFrame | None
    feature_kind: Literal["labels", "embedding"] | None
    dimensions: int
    head_share: float


def _aligned(spec: Spec, table: pl.LazyFrame, name: str) -> pl.LazyFrame:
    """The table's item column cast to the candidates' item dtype (or a clear TypeError)."""
    item = spec.item
    align_ids(spec.candidates, table, [item], names=("candidates", name))
    wanted = spec.candidates.collect_schema()[item]
    if table.collect_schema()[item] != wanted:
        table = table.with_columns(pl.col(item).cast(wanted))
    return table


def _popularity(spec: Spec, popularity: FrameLike, head_share: float) -> pl.LazyFrame:
    """item, count, self-information (-log2 of its share of interactions) and tail flag."""
    item = spec.item
    frame = to_lazy(popularity, "popularity")
    schema = require_columns(frame, "popularity", {item: "the item id"})
    if "count" in schema:
        if not schema["count"].is_numeric():
            raise TypeError(
                f"popularity column 'count' must be numeric (interactions per item); it has "
                f"dtype {schema['count']}, e.g. row {example_row(frame, pl.lit(True), [item])}"
            )
        bad = pl.col("count").is_null() | ~pl.col("count").cast(pl.Float64).is_finite()
        bad = bad | (pl.col("count") < 0)
        example = example_row(frame, bad, [item, "count"])
        if example != "(none)":
            raise ValueError(
                f"popularity column 'count' must be a finite count >= 0, e.g. row {example}"
            )
        counts = frame.group_by(item).agg(pl.col("count").cast(pl.Float64).sum().alias(COUNT))
    else:
        counts = frame.group_by(item).agg(pl.len().cast(pl.Float64).alias(COUNT))
    counts = _aligned(spec, counts.filter(pl.col(item).is_not_null()), "popularity")
    total = pl.col(COUNT).sum()
    # Head: the items more popular than the ones whose interactions, summed from the most
    # popular down, first reach `head_share` of all. Tied items fall on the same side.
    levels = (
        counts.group_by(COUNT)
        .agg(pl.col(COUNT).sum().alias("_rk_level"))
        .with_columns(
            (pl.col("_rk_level").cum_sum().over(order_by=COUNT, descending=True))
            .sub(pl.col("_rk_level"))
            .alias("_rk_above"),
            pl.col("_rk_level").sum().alias("_rk_total"),
        )
        .select(
            COUNT,
            ((pl.col("_rk_above") >= head_share * pl.col("_rk_total")) | (pl.col(COUNT) == 0))
            .cast(pl.Float64)
            .alias(_TAIL),
        )
    )
    return counts.join(levels, on=COUNT, how="left").with_columns(
        # An item the log never saw counts as seen once, so that its novelty stays finite.
        (-(pl.max_horizontal(pl.col(COUNT), pl.lit(1.0)) / total).log(2.0)).alias(_SELF_INFORMATION)
    )


def _features(
    spec: Spec, item_features: FrameLike
) -> tuple[pl.LazyFrame, Literal["labels", "embedding"], int]:
    item = spec.item
    frame = to_lazy(item_features, "item_features")
    schema = require_columns(frame, "item_features", {item: "the item id"})
    others = [column for column in schema if column != item]
    if len(others) != 1:
        raise ValueError(
            f"item_features must have the item column {item!r} and one feature column "
            f"(labels, or an embedding list[f64]/array); it has {list(schema)}"
        )
    feature = others[0]
    dtype = schema[feature]
    inner = dtype.inner if isinstance(dtype, (pl.List, pl.Array)) else None
    if inner is not None and inner.is_float():
        width = _embedding_width(frame, item, feature, dtype)
        # Cast and normalised after the join, on the top-K rows only.
        table = frame.select(item, pl.col(feature).alias(_VECTOR))
        return _aligned(spec, table, "item_features"), "embedding", width
    labels = frame.select(item, pl.col(feature).alias(_LABEL))
    if isinstance(dtype, pl.List):
        labels = labels.explode(_LABEL)
    elif inner is not None:
        raise TypeError(
            f"item_features column {feature!r} must hold labels or an embedding; it has dtype "
            f"{dtype}"
        )
    labels = labels.filter(pl.col(_LABEL).is_not_null()).unique()
    # Labels act as a multi-hot vector: cosine similarity |A ∩ B| / sqrt(|A| |B|).
    weight = (1.0 / pl.len().over(item).cast(pl.Float64).sqrt()).alias(_WEIGHT)
    table = labels.with_columns(weight)
    return _aligned(spec, table, "item_features"), "labels", 0


def _embedding_width(frame: pl.LazyFrame, item: str, feature: str, dtype: pl.DataType) -> int:
    """The one vector length of an embedding column (one scan, which also finds repeated
    items), or a ValueError naming the offending rows."""
    length = pl.col(feature).list.len() if isinstance(dtype, pl.List) else pl.col(feature).arr.len()
    facts = (
        frame.select(
            length.min().alias("shortest"),
            length.max().alias("longest"),
            pl.col(feature).null_count().alias("missing"),
            pl.len().alias("rows"),
            pl.col(item).n_unique().alias("items"),
        )
        .collect()
        .row(0, named=True)
    )
    if facts["missing"] or facts["shortest"] != facts["longest"]:
        odd = pl.col(feature).is_null() | (length != facts["longest"])
        raise ValueError(
            f"item_features column {feature!r} is an embedding: every item needs a vector of "
            f"one length; lengths run from {facts['shortest']} to {facts['longest']}, e.g. row "
            f"{example_row(frame, odd, [item])}"
        )
    if facts["items"] != facts["rows"]:
        repeated = frame.group_by(item).len().filter(pl.col("len") > 1)
        raise ValueError(
            f"item_features has several embeddings for one item, e.g. "
            f"{example_row(repeated, pl.lit(True), [item])}; give one row per item"
        )
    if facts["rows"] and not facts["longest"]:
        raise ValueError(f"item_features column {feature!r} holds empty vectors; give an embedding")
    # An empty table leaves every item without features (distance 1 to all others).
    return int(facts["longest"] or 1)


#: What each item table holds, for the error that asks for it.
ITEM_TABLES = {
    "popularity": "an interaction log (each row of its item column counts) or an "
    "(item, count) table",
    "item_features": "the item column and one feature column (labels, or an embedding)",
}


def item_tables(
    spec: Spec,
    *,
    needs: Sequence[str],
    popularity: FrameLike | None,
    catalogue: FrameLike | None,
    item_features: FrameLike | None,
    head_share: float,
) -> ItemTables:
    """Validate the item tables the asked metrics need (`needs`: their names)."""
    if not 0.0 < head_share < 1.0:
        raise ValueError(f"head_share must be in (0, 1); got {head_share!r}")
    for table, name in (("popularity", popularity), ("item_features", item_features)):
        if table in needs and name is None:
            metrics = [m for m in GROUP_METRICS if table in REGISTRY[m].requires]
            raise ValueError(f"metrics {metrics} need {table}=...: {ITEM_TABLES[table]}")
    if needs and spec.policy.ties == "expected":
        raise ValueError(
            "beyond-accuracy metrics need one ranked order; Policy(ties='expected') has none: "
            "choose another ties policy"
        )
    pop = None if popularity is None else _popularity(spec, popularity, head_share)
    catalogue_lf = None
    if catalogue is not None:
        catalogue_lf = to_lazy(catalogue, "catalogue")
        require_columns(catalogue_lf, "catalogue", {spec.item: "the item id"})
        catalogue_lf = _aligned(spec, catalogue_lf.select(spec.item).unique(), "catalogue")
    features, kind, width = None, None, 0
    if item_features is not None:
        features, kind, width = _features(spec, item_features)
    return ItemTables(pop, catalogue_lf, features, kind, width, head_share)


def cutoff_count(spec: Spec, k: int) -> pl.Expr:
    """How many items a mean over the top K divides by: K, or min(K, n) when observed."""
    n = pl.col(N_CANDIDATES).cast(pl.Float64)
    if spec.policy.short_lists == "observed":
        return pl.min_horizontal(n, pl.lit(float(k)))
    return n * 0.0 + k


def _embedding_distance_sums(
    spec: Spec, top: pl.LazyFrame, tables: ItemTables, lengths: pl.LazyFrame
) -> pl.LazyFrame:
    """Per group, the summed pairwise cosine distance within each top K (``_rk_sum_...@k``).

    The pairs' summed similarity is (|S_K|^2 - n_K) / 2, S_K the sum of the top K unit
    vectors and n_K how many of them are non-zero. The coordinates are summed as integers
    (rounded to 2^-bits, bits from `_scale` of the group's list length, `lengths`: the
    most numbers a sum can hold whatever K), so the sums are exact whatever the order or
    partitioning of the rows, and no running sum per coordinate is needed.
    """
    keys, item = list(spec.keys), spec.item
    assert tables.features is not None
    scale = pl.col(_SCALE)
    dims = [_DIMENSION.format(d) for d in range(tables.dimensions)]
    vector = pl.col(_VECTOR)
    norm = (vector * vector).arr.sum().sqrt()
    # Only the top-K rows are joined and normalised; an item without features, or with a
    # zero vector, is at distance 1 from every other item.
    rows = (
        top.join(lengths.select(*keys, _scale(pl.col(N_CANDIDATES))), on=keys, how="left")
        .join(tables.features, on=item, how="left")
        .with_columns(pl.col(_VECTOR).cast(pl.Array(pl.Float64, tables.dimensions)))
        .with_columns(
            pl.when(norm > 0).then(vector / norm).alias(_VECTOR),
            (norm > 0).fill_null(False).cast(pl.Int64).alias(_UNIT),
            # Block m: the rows counted from the m-th K on (the smallest K >= rank).
            pl.sum_horizontal([(pl.col(RANK) > k).cast(pl.Int64) for k in spec.ks]).alias(_BLOCK),
        )
        .select(
            *keys,
            _BLOCK,
            _UNIT,
            _SCALE,
            pl.lit(1, dtype=pl.Int64).alias(_ROWS),
            *(
                (pl.col(_VECTOR).arr.get(d).fill_null(0.0) * scale)
                .round()
                .cast(pl.Int64)
                .alias(name)
                for d, name in enumerate(dims)
            ),
        )
    )
    counted = [_ROWS, _UNIT, *dims]
    blocks = rows.group_by([*keys, _BLOCK]).agg(pl.col(counted).sum(), pl.col(_SCALE).first())
    if len(spec.ks) > 1:
        # Every block of every group, so that the running sums can be read at each K.
        every = (
            blocks.select(keys)
            .unique()
            .join(
                pl.LazyFrame({_BLOCK: range(len(spec.ks))}, schema={_BLOCK: pl.Int64}), how="cross"
            )
        )
        blocks = (
            every.join(blocks, on=[*keys, _BLOCK], how="left")
            .with_columns(pl.col(counted).fill_null(0), pl.col(_SCALE).max().over(keys))
            .with_columns(pl.col(counted).cum_sum().over(keys, order_by=_BLOCK))
        )
    squared = pl.sum_horizontal([(pl.col(d).cast(pl.Float64) / scale).pow(2) for d in dims])
    similarity = (squared - pl.col(_UNIT).cast(pl.Float64)) / 2.0
    n = pl.col(_ROWS).cast(pl.Float64)
    distance = (n * (n - 1.0) / 2.0 - similarity).alias("_rk_distance")
    per_block = blocks.select(*keys, _BLOCK, distance)
    return per_block.group_by(keys).agg(
        pl.col("_rk_distance")
        .filter(pl.col(_BLOCK) == m)
        .first()
        .alias(f"_rk_sum_intra_list_diversity@{k}")
        for m, k in enumerate(spec.ks)
    )


def _scale(length: pl.Expr) -> pl.Expr:
    """2^bits for integer sums of at most `length` numbers in [-1, 1]: bits = 52 (a double's
    resolution near 1) while length 2^bits stays below 2^62. The bit length of n >= 1 is
    floor(log2 n) + 1 (a power of two is exact in floating point; just below one, it can
    only come out one larger, a coarser but still exact step)."""
    bit_length = length.clip(lower_bound=1).cast(pl.Float64).log(2).floor() + 1.0
    return pl.lit(2.0).pow(pl.min_horizontal(pl.lit(52.0), 62.0 - bit_length)).alias(_SCALE)


def _similarity_terms(spec: Spec, top: pl.LazyFrame, tables: ItemTables) -> pl.LazyFrame:
    """Each row's summed similarity (labels) with the items ranked above it in its group."""
    keys, item = list(spec.keys), spec.item
    assert tables.features is not None
    labelled = top.select(*keys, item, RANK).join(tables.features, on=item, how="inner")
    # Per label, the weights of the earlier items carrying it.
    partition = [*(pl.col(key) for key in keys), pl.col(_LABEL)]
    preceding = ranking.cumulative(pl.col(_WEIGHT), partition, pl.col(RANK)) - pl.col(_WEIGHT)
    per_row = (
        labelled.with_columns((pl.col(_WEIGHT) * preceding).alias(_SIMILARITY))
        .group_by([*keys, RANK])
        .agg(pl.col(_SIMILARITY).sort_by(pl.col(_LABEL).cast(pl.String)).sum())
    )
    return top.join(per_row, on=[*keys, RANK], how="left").with_columns(
        pl.col(_SIMILARITY).fill_null(0.0)
    )


def group_values(
    spec: Spec,
    top: pl.LazyFrame,
    groups: pl.LazyFrame,
    metrics: Sequence[str],
    tables: ItemTables,
) -> pl.LazyFrame:
    """One row per group of `groups` (keys, n_candidates): a ``metric@k`` column for each
    asked beyond-accuracy metric and K, null where ``short_lists="skip"`` drops the group."""
    keys, item = list(spec.keys), spec.item
    partition = [pl.col(key) for key in keys]
    sums: dict[str, pl.Expr] = {}
    if tables.popularity is not None and any(m in _TERMS for m in metrics):
        # An item the log never saw counts as seen once, so that its novelty stays finite.
        unseen = tables.popularity.select(
            (-(1.0 / pl.col(COUNT).sum()).log(2.0)).alias("_rk_unseen")
        )
        top = (
            top.join(
                tables.popularity.select(item, COUNT, _SELF_INFORMATION, _TAIL), on=item, how="left"
            )
            .join(unseen, how="cross")
            .with_columns(
                pl.col(COUNT).fill_null(0.0),
                pl.col(_TAIL).fill_null(1.0),
                pl.col(_SELF_INFORMATION).fill_null(pl.col("_rk_unseen")),
            )
        )
        for metric in metrics:
            if metric in _TERMS:
                sums[metric] = pl.col(_TERMS[metric])
    embedding = "intra_list_diversity" in metrics and tables.feature_kind == "embedding"
    if "intra_list_diversity" in metrics and not embedding:
        top = _similarity_terms(spec, top, tables)
        # Distance to the earlier items: (rank - 1) pairs, less their summed similarity.
        sums["intra_list_diversity"] = (pl.col(RANK) - 1).cast(pl.Float64) - pl.col(_SIMILARITY)
    top = top.with_columns(
        ranking.cumulative(term, partition, pl.col(RANK)).alias(f"_rk_sum_{metric}")
        for metric, term in sums.items()
    )

    def read(metric: str, k: int) -> pl.Expr:
        within = pl.when(pl.col(RANK) <= k).then(pl.col(f"_rk_sum_{metric}"))
        if metric in _TERMS:
            # Sums of non-negative terms never decrease: the last within K is the largest.
            return within.max()
        # Sums of signed terms are read at the last rank within K.
        return within.sort_by(RANK).drop_nulls().last()

    table = groups.select(*keys, N_CANDIDATES)
    if sums:
        per_group = top.group_by(keys).agg(
            read(metric, k).alias(f"_rk_sum_{metric}@{k}") for metric in sums for k in spec.ks
        )
        table = table.join(per_group, on=keys, how="left")
    if embedding:
        distances = _embedding_distance_sums(spec, top, tables, table.select(*keys, N_CANDIDATES))
        table = table.join(distances, on=keys, how="left")
    columns = []
    for metric in metrics:
        for k in spec.ks:
            total = pl.col(f"_rk_sum_{metric}@{k}").fill_null(0.0)
            count = cutoff_count(spec, k)
            if metric == "intra_list_diversity":
                count = count * (count - 1.0) / 2.0
            value = pl.when(count > 0).then(total / count).otherwise(0.0)
            if spec.policy.short_lists == "skip":
                value = pl.when(pl.col(N_CANDIDATES) >= k).then(value)
            columns.append(value.cast(pl.Float64).alias(f"{metric}@{k}"))
    return table.select(*keys, *columns)


def beyond_values(
    spec: Spec,
    top: pl.LazyFrame,
    groups: pl.LazyFrame,
    group_metrics: Sequence[str],
    catalogue_metrics: Sequence[str],
    tables: ItemTables,
) -> tuple[pl.LazyFrame | None, pl.LazyFrame | None, catalogue_level.Exposures | None]:
    """The per-group ``metric@k`` columns, the catalogue table (``metric, k, value``) and
    the exposure counts it was computed from (`catalogue.exposures`) of the evaluated
    `groups`, from `top` (`top_rows`)."""
    per_group = None
    if group_metrics:
        per_group = group_values(spec, top, groups, group_metrics, tables)
    table, counts = None, None
    if catalogue_metrics:
        exposure, n_lists = catalogue_level.exposures(spec, top, groups)
        items = catalogue_level.catalogue_items(spec, tables.catalogue, tables.popularity)
        table = catalogue_level.catalogue_values(exposure, n_lists, items, catalogue_metrics)
        listed = groups.select(*spec.keys, N_CANDIDATES)
        counts = catalogue_level.Exposures(exposure, n_lists, items, top, listed)
    return per_group, table, counts


def top_rows(spec: Spec, ranked: pl.LazyFrame) -> pl.LazyFrame:
    """The ranked rows within the largest K: keys, item, rank."""
    return ranked.filter(pl.col(RANK) <= spec.k_max).select(*spec.keys, spec.item, RANK)
