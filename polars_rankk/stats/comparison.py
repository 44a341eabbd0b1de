"""Paired comparison of systems evaluated on the same groups (docs/definitions.md §5).

Two systems with the same mean can fail different groups; a paired analysis looks at the
per-group differences. `compare` aligns the per-group values of two or more systems, then for
every metric × K (and stratum) reports each mean, the mean difference with a bootstrap interval,
three paired tests — Student's t (`scipy.stats.ttest_rel`), the randomization (sign-flip)
test of Fisher as used in IR by Smucker et al. (CIKM 2007), and Wilcoxon's signed-rank test
(`scipy.stats.wilcoxon`) — an effect size, win/tie/loss counts, and p-values adjusted for
multiple comparisons (Holm, or Benjamini–Hochberg) within each metric × K, or across every row.

Every test runs over all (metric, K) columns of a stratum at once (`polars_rankk.stats.paired`):
one draw of bootstrap weights over groups and one draw of random signs serve every column.

A regression gate (`reliably_worse`, `gate_verdict`) asks whether a new system is reliably
worse than the baseline on one metric. "Reliably worse" reads the interval of the paired mean
difference that `compare` reports (``ci_low``, ``ci_high``, system − baseline): for a metric
where higher is better the system is reliably worse when the whole interval lies below
``−margin`` (``ci_high < −margin``); where lower is better, when it lies above ``margin``. A
difference whose interval reaches into the margin, or that has no interval (fewer than 2
groups), does not fail the gate: the data do not show a regression larger than the margin.
``rankk compare … --fail-if-worse ndcg@10 --margin 0.005`` exits with status 1 when some system
is reliably worse, for CI pipelines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

import polars as pl

from polars_rankk.core import Evaluation, higher_is_better, is_table, to_lazy
from polars_rankk.core.inputs.labels.joint import difference_variances
from polars_rankk.core.names.parse import parse_metric_name
from polars_rankk.core.progress import progress_bar
from polars_rankk.stats.catalogue_resampling import catalogue_differences
from polars_rankk.stats.paired import Options, arrange, compare_stratum, finish
from polars_rankk.stats.pairing import label_sources_of, with_label_variances
from polars_rankk.stats.per_group import (
    Attributes,
    PerGroup,
    Results,
    as_list,
    per_group_input,
    with_strata,
)
from polars_rankk.stats.resampling import IntervalMethod, check_options
from polars_rankk.stats.significance import RandomizationMethod

GroupPolicy = Literal["intersect", "error", "zero"]
Family = Literal["challengers", "all"]
PairedTest = Literal["t", "randomization", "wilcoxon"]
Correction = Literal["holm", "bh"]


def compare(
    systems: Mapping[str, Results] | Evaluation,
    baseline: str | None = None,
    *,
    by: str | Sequence[str] | None = None,
    attributes: Attributes = None,
    groups: GroupPolicy = "intersect",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    method: IntervalMethod = "percentile",
    n_permutations: int = 10_000,
    randomization: RandomizationMethod = "auto",
    test: PairedTest = "randomization",
    correction: Correction | None = "holm",
    family: Family = "challengers",
    seed: int | None = 0,
    group_keys: Sequence[str] | None = None,
    progress: bool | None = None,
    labels: bool = False,
) -> pl.DataFrame:
    """Compare two or more systems on the same groups: differences, intervals, paired tests.

    Differences are ``system - baseline`` per group. Every row of the output is one comparison
    of one metric × K (in one stratum).

    Parameters
    ----------
    systems
        ``{name: evaluation or per-group frame}``, all with the same group keys, or one
        evaluation of several systems (``evaluate(..., system=COLUMN)``). A per-group
        frame may be any table (Polars, pandas, Arrow, an Arrow C stream). Lazy evaluations
        are collected together, each pipeline run once.
    baseline
        Compare every other system with this one; ``None`` compares all pairs (in the order of
        ``systems``, the earlier one as baseline).
    by
        Stratum column(s) for separate comparisons. Looked up on the per-group frames, the
        ``attributes`` tables, then the baseline's (or first system's) ``groups`` table. A
        group key may be one: ``by="user"`` of (user, session) groups compares each user's
        sessions.
    attributes
        Table(s) of group attributes holding ``by`` columns.
    groups
        Groups not evaluated by every system (per metric × K): ``"intersect"`` uses only groups
        every system has; ``"zero"`` scores a system 0 on the groups it lacks (as trec_eval
        ``-c`` does for missing queries); ``"error"`` raises. The counts are reported. A
        metric × K that a system did not compute at all (no row in any group) is not filled
        with zeros: under ``"intersect"`` and ``"zero"`` the comparisons with that system
        are left out there (a ``UserWarning`` names them, and they enter no correction), and
        the other systems are compared without it; ``"error"`` raises.
    n_resamples, confidence, method
        Bootstrap interval of the mean difference, resampling groups (see `bootstrap`).
    n_permutations, randomization
        Randomization test: arrangements drawn, and how. "auto" enumerates exactly when there
        are at most 2**20 sign arrangements (counted over the distinct ``|d|``); else it
        samples ``n_permutations`` arrangements when groups × ``n_permutations`` is at most
        2e7 — one draw of signs per stratum, shared by every metric × K and pair, p-value
        ``(b + 1) / (B + 1)`` — else uses the saddlepoint approximation (see
        `randomization_test`).
    test
        The test whose p-values are adjusted into ``p_adjusted``. Randomization by default
        (Smucker et al. 2007 recommend it for IR metrics).
    correction
        ``"holm"`` (family-wise error), ``"bh"`` (Benjamini–Hochberg false discovery rate), or
        ``None`` (``p_adjusted`` is then the unadjusted p-value). Rows without a p-value are
        left out of the family.
    family
        The rows adjusted together: ``"challengers"`` (default) the pairs of one metric × K
        (and stratum) — with a baseline, its challengers on that metric × K; ``"all"`` every
        row: every metric, K, stratum and pair (stricter, as in earlier versions).
    seed
        Reproducibility of the bootstrap and randomization draws: each stratum draws its
        group weights from a generator seeded by ``(seed, stratum…)`` (the one `bootstrap`
        uses) and its random signs from another, and every metric × K and pair reads the
        same draws (so a row moves when groups are added, not when metrics are).
        ``None``: fresh entropy.
    group_keys
        The group key columns of per-group frames.
    progress
        Show a progress bar of the resamples done (per stratum); None (default) shows it in a
        notebook or on a terminal, not when stderr is piped.
    labels
        For systems evaluated over uncertain labels (``evaluate(..., label_probability=...)``
        of each, against the same truth, names and policy): the interval covers the
        difference under the labels that are true as well as over the groups. Both systems
        are evaluated again on the same label outcomes (every outcome of a group with at most
        4,096, weighted by its probability; ``label_draws`` seeded draws otherwise), because
        their label noise is shared — an item both rank high lifts both — and each group's
        difference gets its variance over them; every group a resample draws then also draws
        its difference's deviation over the labels (normal, as ``bootstrap(labels=True)``
        does). Adds ``label_std_error``, the standard error of the mean difference from the
        labels alone. The means, the differences and the tests read the expectations (the
        tests' null is about the groups, not the labels). Without, the interval covers only
        the groups' variation.

    Returns
    -------
    pl.DataFrame
        Always eager. One row per (stratum…, metric, k, pair), sorted, with ``baseline``,
        ``system``; ``n_groups`` (compared), ``n_groups_union`` (in any system),
        ``n_nan`` (left out: a NaN value in some system), ``n_missing_baseline``,
        ``n_missing_system`` (union groups absent from that system: dropped under
        "intersect", scored 0 under "zero"); ``baseline_mean``, ``mean``, ``diff`` (mean
        difference), ``ci_low``, ``ci_high``; ``effect_size`` (Cohen's d_z: mean difference /
        standard deviation of the differences, ddof=1; NaN when that deviation is 0, where a
        deviation within 1e-12 of the largest absolute value compared counts as 0: float
        rounding, as in ``[.2, .3, .4] - [.1, .2, .3]``, is not a spread);
        ``wins``, ``ties``, ``losses`` (groups where the system is above, equal to, below the
        baseline); ``p_value_t`` (`scipy.stats.ttest_rel`), ``p_value_randomization``,
        ``p_value_wilcoxon`` (`scipy.stats.wilcoxon`, its defaults: zero differences dropped);
        ``p_adjusted``; ``randomization_method`` ("exact", "monte_carlo" or "saddlepoint");
        ``test`` (the test adjusted into ``p_adjusted``) and ``p_value_method`` (how its
        p-value was computed: "exact" enumeration, "monte_carlo" with ``n_permutations``
        arrangements, "saddlepoint", "t_distribution", or "normal" for Wilcoxon's large-sample
        approximation); ``n_permutations`` (B, on Monte Carlo rows only); ``family_size`` (the
        p-values adjusted together). When every difference is 0 all three p-values are 1;
        when the differences have no spread (as above) but a non-zero mean, the t-test p-value
        is NaN (the statistic is undefined); with fewer than 2 groups the interval is null and
        the t-test NaN.

    See Also
    --------
    bootstrap : intervals for one system's means.
    randomization_test : the randomization test on its own.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> a = pl.DataFrame({"user": range(6), "metric": "ndcg", "k": 10,
    ...                   "value": [0.2, 0.5, 0.1, 0.4, 0.3, 0.6]})
    >>> b = a.with_columns(pl.col("value") + pl.Series([0.1, 0.2, 0.0, 0.3, 0.1, 0.2]))
    >>> out = rk.compare({"A": a, "B": b}, baseline="A", seed=0)
    >>> out.select("system", "diff", "wins", "ties", "p_value_randomization")
    shape: (1, 5)
    ┌────────┬──────┬──────┬──────┬───────────────────────┐
    │ system ┆ diff ┆ wins ┆ ties ┆ p_value_randomization │
    │ ---    ┆ ---  ┆ ---  ┆ ---  ┆ ---                   │
    │ str    ┆ f64  ┆ i64  ┆ i64  ┆ f64                   │
    ╞════════╪══════╪══════╪══════╪═══════════════════════╡
    │ B      ┆ 0.15 ┆ 5    ┆ 1    ┆ 0.0625                │
    └────────┴──────┴──────┴──────┴───────────────────────┘
    """
    if isinstance(systems, Evaluation):
        # Several systems from one pass: their slices, never ranked again.
        if systems.system is None:
            raise ValueError(
                "compare needs several systems: a mapping {name: evaluation}, or one "
                "evaluation of several (evaluate(..., system=COLUMN))"
            )
        systems = dict(systems.by_system())
    check_options(n_resamples, confidence, method, seed)
    names = _check_systems(systems, baseline, groups, test, correction, n_permutations)
    if family not in ("challengers", "all"):
        raise ValueError(f"family must be 'challengers' or 'all'; got {family!r}")
    if randomization not in ("auto", "exact", "monte_carlo", "saddlepoint"):
        raise ValueError(
            "randomization must be 'auto', 'exact', 'monte_carlo' or 'saddlepoint'; got "
            f"{randomization!r}"
        )
    pairs = (
        [(baseline, name) for name in names if name != baseline]
        if baseline is not None
        else list(combinations(names, 2))
    )
    ready = _ready(systems)
    check_same_policy(ready)
    label_sources = label_sources_of(ready, names) if labels else None
    sources = [per_group_input(ready[n], group_keys, argument=f"systems[{n!r}]") for n in names]
    keys = _common_keys(sources, names)
    columns = [f"__value_{i}" for i in range(len(names))]
    strata = as_list(by, "by")
    anchor = sources[names.index(baseline) if baseline is not None else 0]
    wide = with_strata(_aligned(sources, names, keys, columns).lazy(), keys, strata, attributes,
                       anchor.groups).collect()  # fmt: skip
    label_columns: list[str] = []
    if label_sources is not None:
        variances = difference_variances(label_sources, pairs)
        wide, label_columns = with_label_variances(wide, variances, pairs, keys)
    layout = arrange(wide, keys, strata, columns, names, groups, label_columns)
    index = {name: i for i, name in enumerate(names)}
    numbered = [(index[a], index[b]) for a, b in pairs]
    options = Options(n_resamples, confidence, method, n_permutations, randomization, test, seed)
    total = len(layout.strata) * n_resamples
    with progress_bar(total, "compare: resamples", progress) as bar:
        found = [compare_stratum(part, numbered, options, bar) for part in layout.strata]
    rows = pl.concat(found) if found else None
    compared = finish(layout, pairs, names, rows, test, correction, family)
    # The catalogue-level figures asked (one per system, no paired test) beside them.
    figures = catalogue_differences(systems, pairs)
    if figures is None:
        return compared
    return pl.concat([compared, figures], how="diagonal_relaxed")


def _check_systems(
    systems: Mapping[str, Results],
    baseline: str | None,
    groups: str,
    test: str,
    correction: str | None,
    n_permutations: int,
) -> list[str]:
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError("systems must be a mapping {name: evaluation} of at least two systems")
    names = list(systems)
    if any(not isinstance(name, str) for name in names):
        raise TypeError(f"system names must be strings; got {names}")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
    for option, value, allowed in (
        ("groups", groups, ("intersect", "error", "zero")),
        ("test", test, ("t", "randomization", "wilcoxon")),
        ("correction", correction, ("holm", "bh", None)),
    ):
        if value not in allowed:
            raise ValueError(f"{option} must be one of {allowed}; got {value!r}")
    if not isinstance(n_permutations, int) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer; got {n_permutations!r}")
    return names


def check_same_policy(systems: Mapping[str, Results]) -> None:
    """A ValueError naming the fields that differ when the evaluations among `systems` were
    made under different policies: their numbers answer different questions.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.stats.comparison import check_same_policy
    >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    >>> truth = pl.DataFrame({"q": [1], "item": [2], "relevance": [2]})
    >>> runs = {name: rk.evaluate(candidates, truth, k=2, group_by="q", metrics="ndcg",
    ...                           policy=rk.Policy(gain=gain))
    ...         for name, gain in {"A": "linear", "B": "exponential"}.items()}
    >>> check_same_policy(runs)
    Traceback (most recent call last):
    ...
    ValueError: compare: the systems were evaluated under different policies ...
    """
    policies = {
        name: value.policy.to_dict()
        for name, value in systems.items()
        if isinstance(value, Evaluation)
    }
    if len(policies) < 2:
        return
    (first, reference), *others = policies.items()
    for name, policy in others:
        fields = [field for field in reference if reference[field] != policy.get(field)]
        if fields:
            differ = ", ".join(
                f"{field}={reference[field]!r} for {first!r} but {policy[field]!r} for {name!r}"
                for field in fields
            )
            raise ValueError(
                f"compare: the systems were evaluated under different policies ({differ}), "
                f"so their per-group numbers measure different things; evaluate every system "
                f"under one Policy (evaluate(..., system=COLUMN) does), or pass their "
                f"per_group tables to compare them anyway"
            )


def _ready(systems: Mapping[str, Results]) -> dict[str, Results]:
    """Tables of other libraries read into Polars; lazy evaluations collected in one
    ``collect_all``, so that each system's pipeline runs once."""
    ready: dict[str, Results] = {
        name: to_lazy(value, f"systems[{name!r}]").collect()
        if not isinstance(value, (pl.DataFrame, pl.LazyFrame, Evaluation)) and is_table(value)
        else value
        for name, value in systems.items()
    }
    lazy = {n: v for n, v in ready.items() if isinstance(v, Evaluation) and v.is_lazy}
    found = Evaluation.collect_together(list(lazy.values()), diagnostics=False)
    ready.update(zip(lazy, found, strict=True))
    return ready


def _common_keys(sources: list[PerGroup], names: list[str]) -> list[str]:
    keys = sources[0].group_keys
    first = sources[0].frame.collect_schema()
    for name, source in zip(names[1:], sources[1:], strict=True):
        if sorted(source.group_keys) != sorted(keys):
            raise ValueError(
                f"systems must share group keys: {names[0]!r} has {keys}, {name!r} has "
                f"{source.group_keys}"
            )
        schema = source.frame.collect_schema()
        for key in keys:
            if schema[key] != first[key]:
                raise TypeError(
                    f"group key {key!r} is {first[key]} in {names[0]!r} but {schema[key]} in "
                    f"{name!r}"
                )
    return keys


def _aligned(
    sources: list[PerGroup], names: list[str], keys: list[str], columns: list[str]
) -> pl.DataFrame:
    """One row per (group, metric, k) in any system; one value column per system (null where
    a system lacks the row). Systems listing the same rows in the same order (as `evaluate`
    does for eager inputs) are stacked side by side; otherwise each metric × K is joined on
    the group keys alone, which is much cheaper than joining on (keys, metric, k)."""
    on = [*keys, "metric", "k"]
    frames = pl.collect_all(
        [
            s.frame.select(*on, pl.col("value").alias(c))
            for s, c in zip(sources, columns, strict=True)
        ]
    )
    first = frames[0]
    if all(f.height == first.height for f in frames) and all(
        first.select(on).equals(f.select(on)) for f in frames[1:]
    ):
        return first.with_columns(
            f.get_column(c) for f, c in zip(frames[1:], columns[1:], strict=True)
        )
    split = [f.partition_by("metric", "k", as_dict=True) for f in frames]
    joined = []
    for part in dict.fromkeys(key for pieces in split for key in pieces):
        wide: pl.LazyFrame | None = None
        for name, frame, pieces in zip(names, frames, split, strict=True):
            piece = pieces.get(part, frame.clear()).drop("metric", "k")
            if piece.select(keys).is_duplicated().any():
                example = piece.filter(piece.select(keys).is_duplicated()).row(0, named=True)
                raise ValueError(
                    f"systems[{name!r}] has more than one row for a (group, metric, k): "
                    f"{example | {'metric': part[0], 'k': part[1]}}"
                )
            wide = piece.lazy() if wide is None else wide.join(
                piece.lazy(), on=keys, how="full", coalesce=True, nulls_equal=True
            )  # fmt: skip
        assert wide is not None
        joined.append(
            wide.select(
                *keys,
                pl.lit(part[0], pl.String).alias("metric"),
                pl.lit(part[1], pl.Int64).alias("k"),
                *columns,
            )
        )
    return pl.concat(pl.collect_all(joined))


# --- the regression gate ------------------------------------------------------------------


def reliably_worse(comparison: pl.DataFrame, metric: str, *, margin: float = 0.0) -> pl.DataFrame:
    """The rows of a `compare` table where the system is reliably worse than its baseline on
    `metric` (a name in any accepted spelling, with its cut-off: ``"ndcg@10"``, ``"P_5"``).

    Raises a ValueError when the comparison has no row for that metric and cut-off, or when
    `margin` is negative.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.comparison import reliably_worse
    >>> table = pl.DataFrame({"metric": ["ndcg", "ndcg"], "k": [10, 10], "baseline": "A",
    ...                       "system": ["B", "C"], "diff": [-0.03, -0.004],
    ...                       "ci_low": [-0.05, -0.02], "ci_high": [-0.01, 0.01]})
    >>> reliably_worse(table, "nDCG@10", margin=0.005)["system"].to_list()
    ['B']
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise ValueError(f"margin must be a number >= 0; got {margin!r}")
    request = parse_metric_name(metric)
    k = pl.col("k").is_null() if request.k is None else pl.col("k") == request.k
    rows = comparison.filter((pl.col("metric") == request.metric) & k)
    if not rows.height:
        present = comparison.select(
            pl.when(pl.col("k").is_null())
            .then(pl.col("metric"))
            .otherwise(pl.format("{}@{}", "metric", "k"))
            .unique(maintain_order=True)
        ).to_series()
        raise ValueError(
            f"the comparison has no {metric!r} (metric {request.metric!r}, k={request.k}); it "
            f"has {present.to_list()}"
        )
    if higher_is_better(request.metric):
        worse = pl.col("ci_high") < -margin
    else:
        worse = pl.col("ci_low") > margin
    return rows.filter(worse.fill_null(False))


def gate_verdict(
    comparison: pl.DataFrame, metric: str, *, margin: float = 0.0, confidence: float = 0.95
) -> tuple[bool, str]:
    """Whether some system is reliably worse on `metric` (see `reliably_worse`), and one line
    that says which, or that none is.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.comparison import gate_verdict
    >>> table = pl.DataFrame({"metric": ["ndcg"], "k": [10], "baseline": "A", "system": ["B"],
    ...                       "diff": [-0.03], "ci_low": [-0.05], "ci_high": [-0.01]})
    >>> failed, line = gate_verdict(table, "ndcg@10", margin=0.005)
    >>> failed, line.split(": ")[0]
    (True, 'B is reliably worse than A on ndcg@10')
    >>> line.split(": ")[1]
    'diff -0.0300, 95% interval [-0.0500, -0.0100] lies below -0.005'
    """
    worse = reliably_worse(comparison, metric, margin=margin)
    level = f"{confidence * 100:g}%"
    if not worse.height:
        baselines = ", ".join(comparison["baseline"].unique(maintain_order=True).to_list())
        return (
            False,
            f"no system is reliably worse than {baselines} on {metric} (margin {margin:g})",
        )
    higher = higher_is_better(parse_metric_name(metric).metric)
    side = f"below {0.0 - margin:g}" if higher else f"above {margin:g}"
    parts = [
        f"{row['system']} is reliably worse than {row['baseline']} on {metric}: diff "
        f"{row['diff']:+.4f}, {level} interval [{row['ci_low']:+.4f}, {row['ci_high']:+.4f}] "
        f"lies {side}"
        for row in worse.iter_rows(named=True)
    ]
    return True, "; ".join(parts)
