"""K-sensitivity curves: every metric at K = 1…K_max, per system (and stratum), with CIs.

A K-curve comes from one evaluation per system — `evaluate` computes every K from the same
sorted, cumulated pass — then one mean per (system, stratum…, metric, k) and, optionally, a
bootstrap interval over groups (`polars_rankk.bootstrap`). The result is a small
tidy table, the input of `polars_rankk.charts.plot_k_curve` and friends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from polars_rankk.core import Evaluation, to_lazy
from polars_rankk.core.evaluation.aggregate import order_metrics
from polars_rankk.core.inputs.spec import normalize_metrics
from polars_rankk.core.metrics.registry import DEFAULT_METRICS, REGISTRY
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.names.request import Request
from polars_rankk.core.policy import Policy
from polars_rankk.core.progress import track
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.per_group import as_list
from polars_rankk.stats.systems import Systems, evaluate_systems, lazy_systems, over_labels

__all__ = ["CURVE_COLUMNS", "curve_of_evaluations", "k_curve"]

#: Columns of a K-curve besides the stratum columns (which come after ``system``).
CURVE_COLUMNS: tuple[str, ...] = (
    "system",
    "metric",
    "k",
    "value",
    "ci_low",
    "ci_high",
    "n_groups",
)


def _means(per_group: pl.LazyFrame, strata: list[str]) -> pl.DataFrame:
    """Mean per (stratum…, metric, k) from a value histogram summed in sorted order.

    Without strata this is exactly `Evaluation.summary()` (same histogram, same order).
    """
    cols = [*strata, "metric", "k"]
    value = pl.when(pl.col("value").is_nan()).then(None).otherwise(pl.col("value"))
    hist = (
        per_group.select(*cols, value.alias("value"))
        .group_by([*cols, "value"])
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .collect()
        .sort([*cols, "value"], nulls_last=True)
    )
    valid = pl.col("value").is_not_null()
    summary = hist.group_by(cols, maintain_order=True).agg(
        (pl.col("value") * pl.col("count")).filter(valid).sum().alias("_total"),
        pl.col("count").filter(valid).sum().cast(pl.Int64).alias("n_groups"),
    )
    return summary.select(
        *cols,
        pl.when(pl.col("n_groups") > 0)
        .then(pl.col("_total") / pl.col("n_groups").cast(pl.Float64))
        .otherwise(None)
        .alias("value"),
        "n_groups",
    )


def _check_strata(strata: list[str]) -> None:
    clashes = [c for c in strata if c in CURVE_COLUMNS]
    if clashes:
        raise ValueError(
            f"stratum columns cannot be named {clashes}: the curve uses {list(CURVE_COLUMNS)}"
        )
    if len(set(strata)) != len(strata):
        raise ValueError(f"stratum columns are repeated: {strata}")


def _curve_of(
    evaluation: Evaluation,
    *,
    strata: list[str],
    attributes: FrameLike | Sequence[FrameLike] | None,
    ci: bool,
    n_resamples: int,
    confidence: float,
    seed: int,
    metrics: list[str] | None,
    ks: list[int] | None,
    labels: bool = False,
) -> pl.DataFrame:
    # (None for expectations over label outcomes, the evaluations `labels` reads: their
    # curve comes from their per-group values.)
    fast = _curve_from_ranks(
        evaluation,
        strata=strata,
        attributes=attributes,
        ci=ci,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        metrics=metrics,
        ks=ks,
    )
    if fast is not None:
        return fast
    per_group = evaluation.per_group.lazy().filter(pl.col("k").is_not_null())
    if ks is not None:
        per_group = per_group.filter(pl.col("k").is_in(ks))
    if metrics is not None:
        per_group = per_group.filter(pl.col("metric").is_in(metrics))
    if strata:
        from polars_rankk.stats.per_group import with_strata

        groups = evaluation.groups.lazy()
        per_group = with_strata(per_group, evaluation.group_keys, strata, attributes, groups)
    means = _means(per_group, strata)
    keys = [*strata, "metric", "k"]
    if ci:
        from polars_rankk.stats.resampling import bootstrap

        spread = ["std"] if labels else []
        intervals = bootstrap(
            per_group.select(*evaluation.group_keys, *strata, "metric", "k", "value", *spread),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            by=strata or None,
            group_keys=evaluation.group_keys,
            labels=labels,
        ).select(*keys, "ci_low", "ci_high")
        means = means.join(intervals, on=keys, how="left", nulls_equal=True)
    else:
        means = means.with_columns(
            pl.lit(None, dtype=pl.Float64).alias("ci_low"),
            pl.lit(None, dtype=pl.Float64).alias("ci_high"),
        )
    return means


def _curve_from_ranks(
    evaluation: Evaluation,
    *,
    strata: list[str],
    attributes: FrameLike | Sequence[FrameLike] | None,
    ci: bool,
    n_resamples: int,
    confidence: float,
    seed: int,
    metrics: list[str] | None,
    ks: list[int] | None,
) -> pl.DataFrame | None:
    """The curve from sums over ranks (`sums_over_ranks`); None when a policy needs per-group
    rows.

    Intervals use the resampling of `polars_rankk.bootstrap` (one draw of group weights per
    stratum, shared by every metric and K), so they equal its intervals for the same seed.
    """
    import numpy as np

    from polars_rankk.stats.rank_sums import means, resampled_means, stratum_slices, sums_over_ranks
    from polars_rankk.stats.resampling import check_options, generator, resample_key

    chosen = [
        m for m in evaluation.metrics if REGISTRY[m].has_k and (metrics is None or m in metrics)
    ]
    if not chosen or not all(REGISTRY[m].rank_summed for m in chosen):
        # The other metrics' curves read the per-group values (as does a curve of no metric:
        # an evaluation of catalogue-level metrics only, whose curve has no row).
        return None
    groups = evaluation.groups.lazy()
    if strata:
        from polars_rankk.stats.per_group import with_strata

        groups = with_strata(groups, evaluation.group_keys, strata, attributes, groups)
    sums = sums_over_ranks(evaluation, strata, groups, chosen)
    if sums is None:
        return None
    # The rank sums hold every K up to the largest evaluated, not only the evaluated ones.
    wanted = (
        list(evaluation.ks)
        if ks is None
        else sorted({k for k in ks if 1 <= k <= max(evaluation.ks)})
    )
    columns = np.array(wanted, dtype=np.int64) - 1
    if ci:
        check_options(n_resamples, confidence, "percentile", seed)
    tails = [(1 - confidence) / 2, 1 - (1 - confidence) / 2]
    parts = []
    slices = dict(stratum_slices(sums))
    for key, numerators, counts in means(sums, chosen):
        count = counts[columns].round().astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            # No group counts at K: no mean (a running sum of deltas may not cancel to 0).
            value = np.where(count > 0, numerators[:, columns] / count, np.nan)
        low = np.full(value.shape, np.nan)
        high = np.full(value.shape, np.nan)
        if ci:
            rng = generator(seed, resample_key(key))
            resampled = resampled_means(sums, chosen, slices[key], rng, n_resamples)
            resampled = resampled[:, :, columns]
            enough = np.broadcast_to(count >= 2, value.shape)
            if enough.any():
                # Without a missing mean the plain quantile is the same, and much faster.
                quantile = np.nanquantile if np.isnan(resampled).any() else np.quantile
                bounds = quantile(resampled, tails, axis=0)
                low = np.where(enough, bounds[0], np.nan)
                high = np.where(enough, bounds[1], np.nan)
        frame = pl.DataFrame(
            {
                "metric": np.repeat(chosen, len(wanted)),
                "k": np.tile(np.array(wanted, dtype=np.int64), len(chosen)),
                "value": value.ravel(),
                "ci_low": low.ravel(),
                "ci_high": high.ravel(),
                "n_groups": np.tile(count, len(chosen)),
            },
            schema={"metric": pl.String, "k": pl.Int64, "value": pl.Float64,
                    "ci_low": pl.Float64, "ci_high": pl.Float64, "n_groups": pl.Int64},
        )  # fmt: skip
        frame = frame.with_columns(pl.col("value", "ci_low", "ci_high").fill_nan(None))
        stratum = [
            pl.lit(value, dtype=sums.groups.schema[name]).alias(name)
            for name, value in zip(strata, key, strict=True)
        ]
        parts.append(frame.select(*stratum, pl.all()))
    if not parts:
        schema = {name: sums.groups.schema[name] for name in strata}
        return pl.DataFrame(schema=schema | {"metric": pl.String, "k": pl.Int64,
                            "value": pl.Float64, "n_groups": pl.Int64,
                            "ci_low": pl.Float64, "ci_high": pl.Float64})  # fmt: skip
    return pl.concat(parts).select(*strata, "metric", "k", "value", "n_groups", "ci_low", "ci_high")


def k_curve(
    systems: Systems,
    truth: FrameLike | None = None,
    *,
    k_max: int = 20,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str] | None = None,
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    policy: Policy | None = None,
    system: str | None = None,
    by: str | Sequence[str] | None = None,
    attributes: FrameLike | Sequence[FrameLike] | None = None,
    ci: bool = True,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool | None = None,
    label_probability: str | None = None,
    label_draws: int = 1000,
    label_seed: int = 0,
) -> pl.DataFrame:
    """Every metric at K = 1…`k_max` for each system: the K-sensitivity curve, as a tidy table.

    Each system is evaluated once with ``k=range(1, k_max + 1)`` (all K from the same pass),
    then averaged over groups (macro mean, as `Evaluation.summary`) per system, stratum,
    metric and K; the interval is a percentile bootstrap over groups.

    Parameters
    ----------
    systems
        ``{name: candidates}``; values may also be `Evaluation` objects, used as they are (their
        own K values). A single candidates frame is one system named ``"system"``, or several
        when `system` names a column that tells them apart.
    truth
        The judged items shared by every system.
    k_max
        The largest K; the curve has K = 1…k_max.
    metrics
        Metric names (default every metric with a K; ``r_precision`` has none).
    group_by, item, score, relevance, policy
        As in `polars_rankk.evaluate`.
    system
        With a single candidates frame: the column naming each row's system.
    by
        Stratum column(s) — group keys, columns of `attributes`, or ``n_candidates`` /
        ``n_relevant`` — for one curve per stratum value.
    attributes
        Table(s) of group attributes (one row per group) holding the `by` columns.
    ci
        Add bootstrap confidence intervals (``ci_low``, ``ci_high``); null when False.
    n_resamples, confidence, seed
        Bootstrap settings (see `polars_rankk.bootstrap`).
    progress
        Show a progress bar of the systems done (with their resamples); None (default) shows
        it in a notebook or on a terminal, not when stderr is piped.
    label_probability, label_draws, label_seed
        As in `polars_rankk.evaluate`: each point an expectation over the label outcomes (a
        judge's probabilities), its interval resampling the labels too (``bootstrap(labels=
        True)``); so are evaluations given over label probabilities (not a mix).

    Returns
    -------
    pl.DataFrame
        ``system, <strata…>, metric, k, value, ci_low, ci_high, n_groups``: one row per
        (system, stratum…, metric, k), systems in the order given, metrics in the library's
        order. ``value`` is null where a stratum has no group with a value.

    See Also
    --------
    polars_rankk.charts.plot_k_curve : draw it.
    polars_rankk.charts.plot_precision_recall : precision against recall across K.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.curves import k_curve
    >>> truth = pl.DataFrame({"user": [1, 2], "item": ["b", "c"]})
    >>> cand_a = pl.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "c", "d"],
    ...                        "score": [0.9, 0.8, 0.7, 0.6]})
    >>> cand_b = cand_a.with_columns(score=-pl.col("score"))
    >>> curve = k_curve({"A": cand_a, "B": cand_b}, truth, k_max=2, metrics="hit_rate",
    ...                 group_by="user", ci=False)
    >>> curve.select("system", "metric", "k", "value", "n_groups")
    shape: (4, 5)
    ┌────────┬──────────┬─────┬───────┬──────────┐
    │ system ┆ metric   ┆ k   ┆ value ┆ n_groups │
    │ ---    ┆ ---      ┆ --- ┆ ---   ┆ ---      │
    │ str    ┆ str      ┆ i64 ┆ f64   ┆ i64      │
    ╞════════╪══════════╪═════╪═══════╪══════════╡
    │ A      ┆ hit_rate ┆ 1   ┆ 0.5   ┆ 2        │
    │ A      ┆ hit_rate ┆ 2   ┆ 1.0   ┆ 2        │
    │ B      ┆ hit_rate ┆ 1   ┆ 0.5   ┆ 2        │
    │ B      ┆ hit_rate ┆ 2   ┆ 1.0   ┆ 2        │
    └────────┴──────────┴─────┴───────┴──────────┘
    """
    from polars_rankk.core import normalize_k

    try:  # any integer scalar, numpy's included
        k_max = normalize_k(k_max, "k_max")
    except (TypeError, ValueError):
        raise ValueError(f"k_max must be a positive integer; got {k_max!r}") from None
    # What was asked is planned here, once; the evaluations below execute the plan.
    plan = Plan.of(metrics, [k_max], policy)
    part = plan.one_policy  # a curve reads one policy: names asking for several are refused
    chosen = None if metrics is None else _refused_curve_less(plan.request)
    strata = as_list(by)
    _check_strata(strata)
    every_k = list(range(1, k_max + 1))
    # Metrics the sums over ranks give need the evaluation at K_max only: every smaller K is
    # read off the same ranking's term rows. Any other metric reads per-group values at each K.
    named = DEFAULT_METRICS if chosen is None else chosen.metrics
    summed = all(REGISTRY[m].rank_summed for m in named if REGISTRY[m].has_k)
    from_sums = summed and part.policy.ties != "expected" and label_probability is None

    def evaluated(ks: list[int]) -> Mapping[str, Evaluation]:
        return evaluate_systems(
            lazy_systems(systems, system),
            None if truth is None else to_lazy(truth, "truth"),
            metrics=plan.at(ks, every_k=True),  # a curve reads every metric at every K
            group_by=group_by,
            item=item, score=score, relevance=relevance,
            label_probability=label_probability, label_draws=label_draws, label_seed=label_seed,
        )  # fmt: skip

    from polars_rankk.stats.rank_sums import covers_every_k

    evaluations = evaluated([k_max] if from_sums else every_k)
    if from_sums and not all(covers_every_k(e, chosen) for e in evaluations.values()):
        evaluations = evaluated(every_k)  # (one system of several: its rows are not kept)
    return curve_of_evaluations(
        evaluations,
        metrics=chosen,
        k=every_k,
        by=strata,
        attributes=attributes,
        ci=ci,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        progress=progress,
        labels=over_labels(evaluations),
    )


def _refused_curve_less(chosen: Request) -> Request:
    """`chosen`, metrics a K-curve cannot draw refused in words: those without K, the
    subtopic and catalogue-level metrics, and geometric means."""
    without_k = [m for m in chosen.metrics if not REGISTRY[m].has_k]
    if without_k:
        raise ValueError(
            f"{', '.join(without_k)} has no K (r_precision is precision at R, bpref reads "
            "the whole list), so it has no K-curve; leave it out of metrics"
        )
    subtopics = [m for m in chosen.metrics if REGISTRY[m].kind == "diversity"]
    if subtopics:
        raise ValueError(
            f"k_curve does not compute the subtopic metrics {subtopics} (it takes no "
            "subtopic column): evaluate them with rk.evaluate(..., k=range(1, k_max + 1), "
            "subtopic=...) and draw that evaluation with rk.curve_of_evaluations"
        )
    catalogue = [m for m in chosen.metrics if REGISTRY[m].kind == "catalogue"]
    if catalogue:
        # One figure per system's lists, not a mean over groups: a curve would drop them.
        raise ValueError(
            f"{', '.join(catalogue)} is one figure for all of a system's lists, not a mean "
            "over groups, so k_curve does not draw it; read it at every K from "
            "rk.evaluate(candidates, k=range(1, k_max + 1), metrics=..., "
            "catalogue=<the items of every system>).catalogue"
        )
    geometric = [m for m in chosen.metrics if REGISTRY[m].aggregate != "mean"]
    if geometric:
        # A curve point is a mean over groups; these summaries are geometric means.
        raise ValueError(
            f"{', '.join(geometric)} is summarised by a geometric mean over groups, which "
            "a K-curve (means over groups) does not draw; curve average_precision or bpref"
        )
    return chosen


def curve_of_evaluations(
    evaluations: Mapping[str, Evaluation],
    *,
    metrics: Iterable[str] | None = None,
    k: Iterable[int] | None = None,
    by: str | Sequence[str] | None = None,
    attributes: FrameLike | Sequence[FrameLike] | None = None,
    ci: bool = True,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool | None = None,
    labels: bool = False,
) -> pl.DataFrame:
    """The K-curve table of evaluations already made (their K values, every K metric).

    `k` chooses the K of the table: any K up to the largest evaluated when the curve comes
    from sums over ranks (`covers_every_k`), else some of the evaluated K. `labels` (with
    `ci`) resamples the label outcomes as well as the groups, for evaluations whose values
    are expectations over uncertain labels (``evaluate(..., label_probability=...)``), as
    ``bootstrap(labels=True)`` does. The other parameters are as in `k_curve`.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.stats.curves import curve_of_evaluations
    >>> res = rk.evaluate(pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]}),
    ...                   pl.DataFrame({"q": [1], "item": [2]}), k=[1, 2],
    ...                   metrics=["precision", "r_precision"], group_by="q")
    >>> curve_of_evaluations({"run": res}, ci=False)["value"].to_list()
    [0.0, 0.5]
    """
    strata = as_list(by)
    _check_strata(strata)
    chosen = (
        None if metrics is None else [m for m in normalize_metrics(metrics) if REGISTRY[m].has_k]
    )
    for name, evaluation in evaluations.items():
        if not isinstance(evaluation, Evaluation):
            raise TypeError(f"{name!r}: expected an Evaluation; got {type(evaluation).__name__}")
        if labels and evaluation.label_methods is None:
            raise ValueError(
                f"{name!r}: labels=True resamples the label outcomes of an evaluation over "
                f"uncertain labels (evaluate(..., label_probability=...)); this one has none"
            )
    parts = []
    label = "k_curve: systems" + (f" ({n_resamples} resamples each)" if ci else "")
    for name, evaluation in track(evaluations.items(), label, progress, len(evaluations)):
        clashes = [c for c in evaluation.group_keys if c in CURVE_COLUMNS and c not in strata]
        if clashes:
            raise ValueError(f"group keys cannot be named {clashes} in a curve")
        curve = _curve_of(
            evaluation,
            strata=strata,
            attributes=attributes,
            ci=ci,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            metrics=chosen,
            ks=None if k is None else list(k),
            labels=labels and ci,
        )
        parts.append(curve.with_columns(pl.lit(name, dtype=pl.String).alias("system")))
    if not parts:
        raise ValueError("no evaluations given")
    table = pl.concat(parts, how="vertical_relaxed")
    order = {name: index for index, name in enumerate(evaluations)}
    table = table.with_columns(
        pl.col("system").replace_strict(order, return_dtype=pl.Int64).alias("_system_order")
    )
    table = order_metrics(table.sort(["_system_order", *strata], nulls_last=True))
    table = table.sort(["_system_order", *strata], nulls_last=True, maintain_order=True)
    return table.select(
        "system",
        *strata,
        "metric",
        "k",
        "value",
        "ci_low",
        "ci_high",
        "n_groups",
    )
