"""The comparison rows of the catalogue-level figures (coverage, Gini, entropy...): one figure
per system over every list, so one row per pair with both figures and their difference, and no
paired test (its interval and p-values are null). `rk.compare` and ``rankk compare`` add them
beside the per-group metrics' rows, so that every metric asked appears in a comparison."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from polars_rankk.core import Evaluation

__all__ = ["catalogue_differences"]


def catalogue_differences(
    evaluations: Mapping[str, object],
    pairs: Sequence[tuple[str, str]],
    ks: Iterable[int] | None = None,
) -> pl.DataFrame | None:
    """For each (baseline, system) pair of evaluations that hold catalogue-level figures:
    ``metric, k, baseline, system, baseline_mean, mean, diff`` at `ks` (None: every K);
    None when there is none.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.stats.catalogue_differences import catalogue_differences
    >>> truth = pl.DataFrame({"q": [1, 2], "item": [1, 2]})
    >>> runs = {name: pl.DataFrame({"q": [1, 1, 2, 2], "item": items, "score": [2.0, 1, 2, 1]})
    ...         for name, items in (("a", [1, 2, 1, 2]), ("b", [1, 2, 3, 4]))}
    >>> items = pl.DataFrame({"item": [1, 2, 3, 4]})
    >>> found = {name: rk.evaluate(run, truth, k=2, metrics=["coverage"], group_by="q",
    ...                            catalogue=items) for name, run in runs.items()}
    >>> catalogue_differences(found, [("a", "b")]).select("metric", "baseline_mean", "mean")
    shape: (1, 3)
    ┌──────────┬───────────────┬──────┐
    │ metric   ┆ baseline_mean ┆ mean │
    │ ---      ┆ ---           ┆ ---  │
    │ str      ┆ f64           ┆ f64  │
    ╞══════════╪═══════════════╪══════╡
    │ coverage ┆ 0.5           ┆ 1.0  │
    └──────────┴───────────────┴──────┘
    """
    chosen = None if ks is None else list(ks)
    figures: dict[str, pl.LazyFrame] = {}
    for name, evaluation in evaluations.items():
        if isinstance(evaluation, Evaluation) and evaluation.catalogue is not None:
            frame = evaluation.catalogue.lazy().select("metric", "k", "value")
            if chosen is not None:
                frame = frame.filter(pl.col("k").is_null() | pl.col("k").is_in(chosen))
            figures[name] = frame
    rows = [
        figures[name]
        .join(
            figures[baseline].rename({"value": "baseline_mean"}),
            on=["metric", "k"],
            nulls_equal=True,
            maintain_order="left",
        )
        .select(
            "metric",
            "k",
            pl.lit(baseline).alias("baseline"),
            pl.lit(name).alias("system"),
            "baseline_mean",
            pl.col("value").alias("mean"),
            (pl.col("value") - pl.col("baseline_mean")).alias("diff"),
        )
        for baseline, name in pairs
        if baseline in figures and name in figures
    ]
    return pl.concat(pl.collect_all(rows)) if rows else None
