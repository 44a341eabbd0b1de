"""What the HTML report says, computed: per-section frames and small records, no markup.

`polars_rankk.reports.document` renders this content to one offline page.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_rankk.core import (
    METRIC_DEFINITIONS,
    METRICS,
    Evaluation,
    higher_is_better,
)
from polars_rankk.core.policy import POLICY_HELP
from polars_rankk.core.progress import progress_bar
from polars_rankk.core.types import FrameLike
from polars_rankk.stats.curves import curve_of_evaluations
from polars_rankk.stats.per_group import as_list
from polars_rankk.stats.systems import for_systems, over_labels

__all__ = [
    "Comparison",
    "Curves",
    "Diagnostics",
    "Distributions",
    "PolicyText",
    "Progress",
    "ReportContent",
    "Strata",
    "SummaryRow",
    "build_content",
    "report_steps",
]

#: A callback given a short message as each step starts (the CLI's spinner).
Progress = Callable[[str], None]


@contextmanager
def report_steps(
    progress: bool | Progress | None, n_systems: int, strata: list[str]
) -> Iterator[Progress]:
    """What the report calls as each step starts: the caller's callback, or a bar of steps."""
    if callable(progress):
        yield progress
        return
    total = 4 + bool(strata) + (n_systems > 1)
    with progress_bar(total, "report", progress) as bar:

        def say(message: str) -> None:
            describe = getattr(bar, "set_description_str", None)
            if describe is not None:
                describe(f"report: {message}")
            bar.update(1)

        yield say


@dataclass(frozen=True)
class SummaryRow:
    """One metric at one K: each system's mean with its interval (None: no value)."""

    metric: str
    k: int | None
    values: dict[str, tuple[float, float | None, float | None] | None]
    best: float | None
    definition: str


@dataclass(frozen=True)
class Curves:
    """Each metric at every K (`curve`, as `curve_of_evaluations` gives it) up to `k_max`."""

    curve: pl.DataFrame
    k_max: int


@dataclass(frozen=True)
class Distributions:
    """How the per-group values spread at the headline K: summary and histogram."""

    distribution: pl.DataFrame
    histogram: pl.DataFrame


@dataclass(frozen=True)
class Strata:
    """The means per stratum at the headline K, and the number of groups in each."""

    columns: list[str]
    table: pl.DataFrame
    counts: pl.DataFrame


@dataclass(frozen=True)
class Comparison:
    """Paired comparisons of every system with the baseline (`compare`'s table)."""

    baseline: str
    table: pl.DataFrame


@dataclass(frozen=True)
class Diagnostics:
    """Each diagnostic per system, the per-K ones, and example groups with no candidates."""

    counts: dict[str, dict[str, object]]
    per_k_systems: list[str]
    per_k: list[tuple[object, ...]]
    examples: list[tuple[object, ...]]


@dataclass(frozen=True)
class PolicyText:
    """The policy behind the numbers and the definitions of the metrics reported."""

    group_keys: list[str]
    policy: list[tuple[str, str, str]]
    metrics: list[tuple[str, str]]


@dataclass(frozen=True)
class ReportContent:
    """Everything the report shows, section by section."""

    names: list[str]
    group_keys: list[str]
    ks: list[int]
    headline: int
    confidence: float
    n_groups: dict[str, int]
    summary: list[SummaryRow]
    curves: Curves
    distributions: Distributions
    strata: Strata | None
    comparison: Comparison | None
    diagnostics: Diagnostics | None
    policy: PolicyText
    version: str
    date: str
    #: Each system's per-group values at the report's K (for the optional analyses).
    per_group: dict[str, pl.DataFrame]
    #: The values are expectations over uncertain labels, and every interval resamples them.
    labels: bool = False


@dataclass
class _Context:
    """What every section needs: the evaluations, the chosen K, the bootstrap settings."""

    evaluations: Mapping[str, Evaluation]
    names: list[str]
    ks: list[int]
    headline: int
    chosen: dict[str, pl.LazyFrame]
    group_keys: list[str]
    confidence: float
    n_resamples: int
    seed: int
    labels: bool

    @property
    def bootstrap(self) -> dict[str, Any]:
        """The resampling settings every interval reads (the label outcomes' too)."""
        return {
            "n_resamples": self.n_resamples, "confidence": self.confidence, "seed": self.seed,
            "labels": self.labels,
        }  # fmt: skip


def build_content(
    evaluations: Mapping[str, Evaluation],
    *,
    k: Iterable[int] | None,
    by: str | Sequence[str] | None,
    attributes: FrameLike | Sequence[FrameLike] | None,
    baseline: str | None,
    ui_k: int | None,
    n_resamples: int,
    confidence: float,
    seed: int,
    say: Progress,
    bars: bool | None,
    curve_k_max: int | None,
) -> ReportContent:
    """Compute every section of the report (`say` is told as each step starts)."""
    names = list(evaluations)
    if not any(ev.metrics for ev in evaluations.values()):
        # Its sections are means, curves and comparisons over groups: nothing to draw.
        raise ValueError(
            "the report draws per-group metrics (means, K-curves, paired tests); catalogue-level "
            "ones (coverage, gini, entropy, personalization) are one figure per system: ask "
            "for a per-group metric too, or read them from rankk compare / Evaluation.catalogue"
        )
    if baseline is not None and baseline not in evaluations:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
    available = sorted(set().union(*(set(ev.ks) for ev in evaluations.values())))
    ks = sorted(set(k)) if k is not None else _spread(available)
    missing = [x for x in ks if any(x not in ev.ks for ev in evaluations.values())]
    if missing:
        raise ValueError(f"k {missing} were not evaluated for every system")
    # Each system's pipeline runs once, all side by side; every view then reads the result.
    say("evaluating")
    evaluations = dict(
        zip(names, Evaluation.collect_together(list(evaluations.values())), strict=True)
    )
    first = next(iter(evaluations.values()))
    labels = over_labels(evaluations)
    # The tables' K of every system in one run; every section then reads these frames.
    chosen = pl.collect_all(
        [
            ev.per_group.lazy().filter(pl.col("k").is_in(ks) | pl.col("k").is_null())
            for ev in evaluations.values()
        ]
    )
    context = _Context(
        evaluations=evaluations,
        names=names,
        ks=ks,
        headline=_headline_k(ks, ui_k),
        chosen={name: frame.lazy() for name, frame in zip(names, chosen, strict=True)},
        group_keys=list(first.group_keys),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        labels=labels,
    )
    say("bootstrapping the summary")
    summary = _summary(context)
    say("computing K-curves")
    every = range(1, max(available) + 1) if curve_k_max is not None else None
    curve = curve_of_evaluations(context.evaluations, k=every, ci=True, **context.bootstrap)
    say("summarising distributions")
    distributions = _distributions(context)
    strata = as_list(by)
    stratified = None
    if strata:
        say("stratifying")
        stratified = _strata(context, strata, attributes)
    comparison = None
    if len(evaluations) > 1:
        say("comparing systems")
        comparison = _comparison(context, baseline if baseline is not None else names[0], bars)
    say("collecting diagnostics")
    return ReportContent(
        names=names,
        group_keys=list(first.group_keys),
        ks=ks,
        headline=context.headline,
        confidence=confidence,
        n_groups={
            name: int(ev.summary(metrics=[ev.metrics[0]])["n_groups"][0])
            for name, ev in evaluations.items()
        },
        summary=summary,
        curves=Curves(curve, max(available)),
        distributions=distributions,
        strata=stratified,
        comparison=comparison,
        diagnostics=_diagnostics(evaluations, ks),
        policy=_policy(first),
        version=_version(),
        date=_dt.date.today().isoformat(),
        per_group=dict(zip(names, chosen, strict=True)),
        labels=labels,
    )


def _headline_k(ks: list[int], ui_k: int | None) -> int:
    if ui_k is not None and ui_k in ks:
        return ui_k
    return ks[len(ks) // 2]


def _spread(available: list[int]) -> list[int]:
    if len(available) <= 6:
        return available
    preferred = [x for x in (1, 3, 5, 10, 20, 50, 100, 1000) if x in available]
    return sorted(set(preferred[:5]) | {available[-1]})


def _version() -> str:
    from polars_rankk.core.version import package_version

    return package_version()


def _definition(metric: str) -> str:
    """The one-line definition of a metric ('' when it has none)."""
    definitions: dict[str, str] = dict(METRIC_DEFINITIONS.items())
    return definitions.get(metric, "")


def _summary(context: _Context) -> list[SummaryRow]:
    from polars_rankk.stats.resampling import bootstrap

    intervals = pl.concat(
        [
            bootstrap(frame, group_keys=context.group_keys, **context.bootstrap).select(
                pl.lit(name, dtype=pl.String).alias("system"), pl.all()
            )
            for name, frame in context.chosen.items()
        ],
        how="vertical_relaxed",
    )
    order = {m: i for i, m in enumerate(METRICS)}
    keys = (
        intervals.select("metric", "k")
        .unique()
        .sort([pl.col("metric").replace_strict(order, default=99), "k"], nulls_last=True)
    )
    rows = []
    for metric, k in keys.iter_rows():
        part = intervals.filter((pl.col("metric") == metric) & pl.col("k").eq_missing(k))
        found = {r["system"]: r for r in part.iter_rows(named=True)}
        present = [v["value"] for v in found.values() if v["value"] is not None]
        pick = max if higher_is_better(metric) else min
        values: dict[str, tuple[float, float | None, float | None] | None] = {}
        for name in context.names:
            row = found.get(name)
            values[name] = (
                None
                if row is None or row["value"] is None
                else (row["value"], row.get("ci_low"), row.get("ci_high"))
            )
        rows.append(
            SummaryRow(metric, k, values, pick(present) if present else None, _definition(metric))
        )
    return rows


def _distributions(context: _Context) -> Distributions:
    from polars_rankk.stats.distributions import distribution, histogram

    headline = context.headline
    at_headline = {n: f.filter(pl.col("k") == headline) for n, f in context.chosen.items()}
    dist = for_systems(
        {
            n: f.filter((pl.col("k") == headline) | pl.col("k").is_null())
            for n, f in context.chosen.items()
        },
        distribution,
        group_keys=context.group_keys,
    )
    hist = for_systems(at_headline, histogram, bins=20, group_keys=context.group_keys)
    return Distributions(dist, hist)


def _strata(
    context: _Context, strata: list[str], attributes: FrameLike | Sequence[FrameLike] | None
) -> Strata:
    table = curve_of_evaluations(
        context.evaluations,
        k=[context.headline],
        by=strata,
        attributes=attributes,
        ci=True,
        **context.bootstrap,
    )
    counts = table.filter(pl.col("metric") == table.get_column("metric")[0]).select(
        "system", *strata, "n_groups"
    )
    return Strata(strata, table, counts)


def _comparison(context: _Context, baseline: str, progress: bool | None) -> Comparison:
    from polars_rankk.stats.comparison import compare

    if context.labels:
        # The label noise of a difference needs both systems on the same label outcomes:
        # compare reads the evaluations (at every K they have), the table the report's K.
        table = compare(
            dict(context.evaluations), baseline=baseline, progress=progress, **context.bootstrap
        ).filter(pl.col("k").is_in(context.ks) | pl.col("k").is_null())
        return Comparison(baseline, table)
    table = compare(
        dict(context.chosen),
        baseline=baseline,
        group_keys=context.group_keys,
        progress=progress,
        **context.bootstrap,
    )
    return Comparison(baseline, table)


def _diagnostics(evaluations: Mapping[str, Evaluation], ks: list[int]) -> Diagnostics | None:
    counts: dict[str, dict[str, object]] = {}
    per_k: list[pl.DataFrame] = []
    examples: list[tuple[object, ...]] = []
    for name, ev in evaluations.items():
        try:
            frame = ev.diagnostics.to_frame()
        except (ImportError, AttributeError):  # an engine without diagnostics
            continue
        for row in frame.filter(pl.col("k").is_null()).iter_rows(named=True):
            counts.setdefault(row["name"], {})[name] = _count(row["value"])
        per_k.append(
            frame.filter(pl.col("k").is_in(ks)).with_columns(
                pl.lit(name, dtype=pl.String).alias("system")
            )
        )
        groups = ev.groups.lazy().filter(pl.col("n_candidates") == 0).head(5).collect()
        for row in groups.iter_rows(named=True):
            key = ", ".join(f"{c}={row[c]}" for c in ev.group_keys)
            examples.append((name, key, row["n_relevant"]))
    if not counts:
        return None
    table = (
        pl.concat(per_k, how="vertical_relaxed")
        .pivot(on="system", index=["name", "k"], values="value")
        .sort(["name", "k"])
    )
    rows = [(r[0], r[1], *(_count(v) for v in r[2:])) for r in table.iter_rows()]
    return Diagnostics(counts, table.columns[2:], rows, examples)


def _count(value: object) -> object:
    """A whole float as an integer (counts read better without '.0')."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _policy(evaluation: Evaluation) -> PolicyText:
    policy = evaluation.policy.to_dict()
    rows = [(name, repr(value), POLICY_HELP.get(name, "")) for name, value in policy.items()]
    metric_rows = [(name, _definition(name)) for name in METRICS if name in evaluation.metrics]
    return PolicyText(list(evaluation.group_keys), rows, metric_rows)
