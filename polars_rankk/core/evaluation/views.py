"""Views of an evaluation built from its one-row-per-group pass: the groups each policy keeps,
the wide metric table (one column per ``metric@k``), the long per-group table, drop counts.

`evaluate` builds them lazily; `Evaluation.collect` builds them from the collected pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankk.core.columns import HAS_CANDIDATES, N_CANDIDATES, N_RELEVANT, WHOLE_LIST
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.metrics.formulas import finished
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.listing import metric_rank
from polars_rankk.core.policy import Policy


def dropped_table(ks: Sequence[int], counts: pl.DataFrame, short: pl.DataFrame) -> pl.DataFrame:
    """Per k (and null k): the overall drop counts, and the short-list drops at that k."""
    frame = pl.DataFrame({"k": [*ks, None]}, schema={"k": pl.Int64})
    return (
        frame.join(counts, how="cross")
        .join(short, on="k", how="left", nulls_equal=True)
        .with_columns(pl.col("dropped_short").fill_null(0))
    )


def apply_group_policies(groups: pl.LazyFrame, policy: Policy) -> pl.LazyFrame:
    """Drop the groups that empty_truth='exclude' and missing_groups='exclude' leave out."""
    if policy.empty_truth == "exclude":
        groups = groups.filter(pl.col(N_RELEVANT) > 0)
    if policy.missing_groups == "exclude":
        groups = groups.filter(pl.col(HAS_CANDIDATES))
    return groups


def views_of(all_groups: pl.DataFrame, spec: Spec) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The kept groups and the wide metric table, from the collected one-row-per-group pass."""
    kept = apply_group_policies(all_groups.lazy(), spec.policy).collect()
    return kept, metric_table_of(kept.lazy(), spec).collect()


def metric_column(metric: str, k: int | None) -> str:
    """Name of the wide column holding `metric` at `k` (``r_precision`` has no k)."""
    return metric if k is None else f"{metric}@{k}"


def metric_table_of(groups: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """One row per group, one column per metric@k (null where short_lists='skip' drops it).

    Metrics are computed on the one-row-per-group table, where every division is between
    full columns (see `metrics.cutoff`).
    """
    policy = spec.policy
    columns = [
        finished(REGISTRY[name].value(policy, read_at(name, k)), policy, k).alias(
            metric_column(name, k)
        )
        for name, k in metric_cutoffs(spec)
    ]
    return groups.select(*spec.keys, N_CANDIDATES, N_RELEVANT, *columns)


def metric_cutoffs(spec: Spec) -> list[tuple[str, int | None]]:
    """(metric, K) of every value: K None for a metric without a cut-off and for one named
    over the whole list (trec_eval's ``map``)."""
    return [(name, k) for name in spec.metrics for k in _cutoffs_of(name, spec)]


def _cutoffs_of(name: str, spec: Spec) -> list[int | None]:
    # Beyond-accuracy metrics all take a cut-off.
    if name in REGISTRY and not REGISTRY[name].has_k:
        found: list[int | None] = [None]
    else:
        # A name of the whole list alone has no K, unless the cells read it at some (a curve).
        found = [] if name in spec.whole_list_only and spec.cells is None else list(spec.ks)
        found = [*found, None] if name in spec.whole_list else found
    return reported(name, found, spec)


def reported(name: str, ks: Sequence[int | None], spec: Spec) -> list[int | None]:
    """Those of `ks` at which `name` is reported: the cells the names ask for
    (`Spec.cells`: ``P@5`` at 5 alone), or every K."""
    if spec.cells is None:
        return list(ks)
    return [k for k in ks if (name, k) in spec.cells]


def read_at(name: str, k: int | None) -> int | None:
    """The cut-off a metric's sums are read at: the whole list for a K metric's row without
    one."""
    return WHOLE_LIST if k is None and name in REGISTRY and REGISTRY[name].has_k else k


def long_table(wide: pl.LazyFrame, spec: Spec) -> pl.LazyFrame:
    """The wide metric@k columns as one long table: keys, metric, k, value."""
    keys = list(spec.keys)
    pairs = metric_cutoffs(spec)
    lookup = pl.LazyFrame(
        {
            "_name": [metric_column(name, k) for name, k in pairs],
            "metric": [name for name, _ in pairs],
            "k": [k for _, k in pairs],
        },
        schema={"_name": pl.String, "metric": pl.String, "k": pl.Int64},
    )
    return (
        wide.select(*keys, *(metric_column(name, k) for name, k in pairs))
        .unpivot(index=keys, variable_name="_name", value_name="value")
        # Null: short_lists="skip" dropped the group at that k.
        .filter(pl.col("value").is_not_null())
        .join(lookup, on="_name", how="inner")
        .select(*keys, "metric", "k", "value")
    )


def sorted_per_group(per_group: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return per_group.sort([*keys, metric_rank(), "k"], nulls_last=True)


def per_group_rows(wide: pl.DataFrame, spec: Spec) -> pl.DataFrame:
    """The eager ``per_group`` from the wide metric table, built in its sorted order
    (group, canonical metric, k) rather than unpivoted, joined and sorted: at K = 1..100
    that costs about what the output weighs instead of several copies of it. Polars only (no
    NumPy: the command line's evaluation never imports it)."""
    keys = list(spec.keys)
    pairs = metric_cutoffs(spec)
    cells = pl.DataFrame(
        {"metric": [m for m, _ in pairs], "k": [k for _, k in pairs]},
        schema={"metric": pl.String, "k": pl.Int64},
    ).sort(metric_rank(), "k", nulls_last=True, maintain_order=True)
    names = [metric_column(m, k) for m, k in cells.iter_rows()]
    ordered = wide.select(*keys, *names).sort(keys, nulls_last=True)
    n_groups, n_cells = ordered.height, len(names)
    if not names:  # only catalogue-level metrics were asked for
        return pl.concat(
            [ordered.select(keys).clear(), cells, pl.DataFrame(schema={"value": pl.Float64})],
            how="horizontal",
        )
    # Row-major values (a group's cells in a row), one temporary at a time: the peak stays
    # near the output's own size.
    cells_of_groups = ordered.select(pl.concat_arr(pl.col(names).cast(pl.Float64)))
    values = cells_of_groups.to_series().reshape((-1,)).alias("value").to_frame()
    del cells_of_groups
    row = pl.int_range(n_groups * n_cells, dtype=pl.Int64)
    heads = ordered.select(pl.col(keys).gather(row // n_cells))
    labels = cells.select(pl.all().gather(row % n_cells))
    rows = pl.concat([heads, labels, values], how="horizontal")
    if values.get_column("value").null_count():
        # Null: short_lists="skip" dropped the group at that k (NaN values stay).
        rows = rows.filter(pl.col("value").is_not_null())
    return rows
