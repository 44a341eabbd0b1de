"""A self-contained HTML report: summary, K-curves, distributions, strata, comparisons.

The page opens offline: Vega, Vega-Lite and Vega-Embed are inlined (from
``vl-convert-python``), charts carry their (aggregated) data, and a Content-Security-Policy
forbids fetching anything. Everything that comes from the user — system names, column names,
group ids, stratum values — is HTML-escaped in tables and travels as JSON data (never as
markup or code) to the charts.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankk.core import (
    METRIC_DEFINITIONS,
    METRICS,
    Evaluation,
    higher_is_better,
    is_table,
    to_lazy,
)
from polars_rankk.core.policy import POLICY_HELP, Policy
from polars_rankk.core.progress import progress_bar
from polars_rankk.core.types import FrameLike
from polars_rankk.reports.html import Cell, Page, escape, html_table, number
from polars_rankk.stats.curves import covers_every_k, curve_of_evaluations
from polars_rankk.stats.distributions import as_list
from polars_rankk.stats.systems import Systems, evaluate_systems, for_systems, lazy_systems

__all__ = ["render_report", "report"]

#: A callback given a short message as each step starts (the CLI's spinner).
Progress = Callable[[str], None]


@contextmanager
def _steps(progress: bool | Progress | None, total: int) -> Iterator[Progress]:
    """What the report calls as each step starts: the caller's callback, or a bar of steps."""
    if callable(progress):
        yield progress
        return
    with progress_bar(total, "report", progress) as bar:

        def say(message: str) -> None:
            describe = getattr(bar, "set_description_str", None)
            if describe is not None:
                describe(f"report: {message}")
            bar.update(1)

        yield say


def _bars(progress: bool | Progress | None) -> bool | None:
    """The `progress` to hand on to compare: bars only when the caller did not bring its own
    display."""
    return False if callable(progress) else progress


def _step_count(n_systems: int, strata: list[str]) -> int:
    return 4 + bool(strata) + (n_systems > 1)


def _headline_k(ks: list[int], ui_k: int | None) -> int:
    if ui_k is not None and ui_k in ks:
        return ui_k
    return ks[len(ks) // 2]


def _summary_section(page: Page, context: _Context) -> None:
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
        values = {r["system"]: r for r in part.iter_rows(named=True)}
        present = [v["value"] for v in values.values() if v["value"] is not None]
        pick = max if higher_is_better(metric) else min
        best = pick(present) if present else None
        cells: list[object] = [Cell(escape(metric if k is None else f"{metric}@{k}"), "text")]
        for name in context.names:
            row = values.get(name)
            if row is None or row["value"] is None:
                cells.append(Cell("–"))
                continue
            ci = ""
            if row.get("ci_low") is not None:
                ci = f' <span class="ci">[{number(row["ci_low"])}, {number(row["ci_high"])}]</span>'
            css = "best" if len(context.names) > 1 and row["value"] == best else ""
            cells.append(Cell(number(row["value"]) + ci, css))
        cells.append(Cell(escape(_definition(metric)), "text"))
        rows.append(cells)
    groups = ", ".join(
        f"{escape(name)}: {number(int(ev.summary(metrics=[ev.metrics[0]])['n_groups'][0]))}"
        for name, ev in context.evaluations.items()
    )
    body = (
        '<p class="note">Mean over groups (macro average) with its '
        f"{context.confidence:.0%} bootstrap confidence interval (resampling groups); the "
        f"best system per row is in bold. Groups evaluated — {groups}.</p>"
        + html_table(["metric", *context.names, "definition"], rows, raw=True)
    )
    page.section("summary", "Summary", body)


def _definition(metric: str) -> str:
    definitions: dict[str, str] = dict(METRIC_DEFINITIONS.items())
    return definitions.get(metric, "")


def render_report(
    systems: Systems,
    truth: FrameLike | None = None,
    *,
    k: int | Iterable[int] = (1, 5, 10, 20),
    k_max: int | None = None,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str] | None = None,
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    policy: Policy | None = None,
    system: str | None = None,
    by: str | Sequence[str] | None = None,
    attributes: FrameLike | Sequence[FrameLike] | None = None,
    baseline: str | None = None,
    ui_k: int | None = None,
    log_k: bool = False,
    title: str = "Ranking evaluation report",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool | Progress | None = None,
) -> str:
    """The report as an HTML string (see `report` for the parameters).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.reports.document import render_report
    >>> cand = pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [0.5, 0.4, 0.9]})
    >>> page = render_report({"<b>A</b>": cand}, pl.DataFrame({"user": [1, 2], "item": [2, 3]}),
    ...                      k=[1, 2], group_by="user", n_resamples=50)
    >>> "&lt;b&gt;A&lt;/b&gt;" in page and "<b>A</b>" not in page
    True
    """
    from polars_rankk.core import normalize_ks

    try:  # any integer scalars, numpy's included
        ks = list(normalize_ks(k))
    except (TypeError, ValueError):
        raise ValueError(f"k must be positive integers; got {k!r}") from None
    top = max(ks) if k_max is None else k_max
    if top < max(ks):
        raise ValueError(f"k_max={k_max} is below the largest k ({max(ks)})")
    strata = as_list(by)
    # Plans only (any table read once, here): each view then reads what it needs.
    if isinstance(systems, Mapping):
        systems = {n: _planned(v, f"systems[{n!r}]") for n, v in systems.items()}
    else:
        systems = _planned(systems, "systems")
    truth = None if truth is None else to_lazy(truth, "truth")
    # One lazy plan per system: each is ranked once, for its curves and tables together.
    systems = lazy_systems(systems, system)
    options: dict[str, Any] = {
        "metrics": metrics, "group_by": group_by, "item": item, "score": score,
        "relevance": relevance, "policy": policy,
    }  # fmt: skip
    # The tables' K and the largest: the curves come from sums over ranks at every K up to
    # it; only a policy that needs per-group values at every K evaluates them all.
    evaluations = evaluate_systems(systems, truth, k=sorted({*ks, top}), **options)
    every_k = all(covers_every_k(ev) for ev in evaluations.values())
    if not every_k:
        evaluations = evaluate_systems(systems, truth, k=range(1, top + 1), **options)
    if not evaluations:
        raise ValueError("no systems to report on")
    if baseline is not None and baseline not in evaluations:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {list(evaluations)}")
    with _steps(progress, _step_count(len(evaluations), strata)) as say:
        return _render(
            evaluations, k=ks, by=strata, attributes=attributes, baseline=baseline, ui_k=ui_k,
            log_k=log_k, title=title, n_resamples=n_resamples, confidence=confidence,
            seed=seed, say=say, bars=_bars(progress), curve_k_max=top if every_k else None,
        )  # fmt: skip


def _planned(value: Any, name: str) -> Any:
    """A table as a lazy plan (an evaluation as it is)."""
    return value if isinstance(value, Evaluation) or not is_table(value) else to_lazy(value, name)


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

    @property
    def bootstrap(self) -> dict[str, Any]:
        return {"n_resamples": self.n_resamples, "confidence": self.confidence, "seed": self.seed}


def render_evaluations(
    evaluations: Mapping[str, Evaluation],
    *,
    k: Iterable[int] | None = None,
    by: str | Sequence[str] | None = None,
    attributes: FrameLike | Sequence[FrameLike] | None = None,
    baseline: str | None = None,
    ui_k: int | None = None,
    log_k: bool = False,
    title: str = "Ranking evaluation report",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool | Progress | None = None,
) -> str:
    """The report of evaluations already made, as an HTML string.

    The K-curves use every K the evaluations have; the tables, distributions, strata and
    comparisons use `k` (default: up to six K spread over the range). The other parameters
    are as in `report`.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.reports.document import render_evaluations
    >>> truth = pl.DataFrame({"q": [1, 2], "item": [2, 3]})
    >>> cand = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "score": [0.5, 0.4, 0.9]})
    >>> res = rk.evaluate(cand, truth, k=range(1, 4), group_by="q")
    >>> page = render_evaluations({"run": res}, k=[1, 3], n_resamples=20)
    >>> page.count('data-rankk-chart="'), "K: 1, 3 (curves 1–3)" in page
    (4, True)
    """
    if not evaluations:
        raise ValueError("no systems to report on")
    with _steps(progress, _step_count(len(evaluations), as_list(by))) as say:
        return _render(
            evaluations, k=k, by=by, attributes=attributes, baseline=baseline, ui_k=ui_k,
            log_k=log_k, title=title, n_resamples=n_resamples, confidence=confidence,
            seed=seed, say=say, bars=_bars(progress), curve_k_max=None,
        )  # fmt: skip


def _render(
    evaluations: Mapping[str, Evaluation],
    *,
    k: Iterable[int] | None,
    by: str | Sequence[str] | None,
    attributes: FrameLike | Sequence[FrameLike] | None,
    baseline: str | None,
    ui_k: int | None,
    log_k: bool,
    title: str,
    n_resamples: int,
    confidence: float,
    seed: int,
    say: Progress,
    bars: bool | None,
    curve_k_max: int | None,
) -> str:
    names = list(evaluations)
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
    )
    page = Page(title)
    say("bootstrapping the summary")
    _summary_section(page, context)
    say("computing K-curves")
    _curves_section(
        page, context, log_k=log_k, ui_k=ui_k, k_max=max(available),
        every_k=curve_k_max is not None,
    )  # fmt: skip
    say("summarising distributions")
    _distribution_section(page, context)
    strata = as_list(by)
    if strata:
        say("stratifying")
        _strata_section(page, context, strata, attributes)
    if len(evaluations) > 1:
        say("comparing systems")
        _comparison_section(page, context, baseline if baseline is not None else names[0], bars)
    say("collecting diagnostics")
    page.section("diagnostics", "Diagnostics", _diagnostics(evaluations, ks))
    page.section("policy", "Policy and definitions", _policy(first))
    subtitle = [
        f"{len(names)} system(s): {escape(', '.join(names))} · groups: "
        f"<code>{escape(', '.join(first.group_keys))}</code> · K: "
        f"{escape(', '.join(str(x) for x in ks))} (curves 1–{max(available)})",
        f"polars-rankk {escape(_version())} · {_dt.date.today().isoformat()}",
    ]
    return page.render(subtitle)


def _curves_section(
    page: Page, context: _Context, *, log_k: bool, ui_k: int | None, k_max: int, every_k: bool
) -> None:
    from polars_rankk import charts

    every = range(1, k_max + 1) if every_k else None
    curve = curve_of_evaluations(context.evaluations, k=every, ci=True, **context.bootstrap)
    body = (
        f'<p class="note">Each metric at every K from 1 to {k_max}, from one evaluation pass '
        f"per system. Bands: {context.confidence:.0%} bootstrap confidence intervals over "
        "groups."
        + (f" The dashed line marks K={ui_k}, the K the product shows." if ui_k else "")
        + "</p>"
        + page.chart(
            charts.plot_k_curve(
                curve,
                systems=context.names,
                log_k=log_k,
                ui_k=ui_k,
                confidence=context.confidence,
            )
        )
    )
    if {"precision", "recall"} <= set(curve.get_column("metric")):
        body += page.chart(charts.plot_precision_recall(curve, systems=context.names))
    page.section("curves", "K-curves", body)


_DISTRIBUTION_COLUMNS = {
    "system": "system",
    "metric": "metric",
    "k": "k",
    "n_groups": "groups",
    "mean": "mean",
    "std": "std",
    "median": "median",
    "quantile_0.1": "10th pct",
    "quantile_0.9": "90th pct",
    "share_zeros": "share of zeros",
    "share_ones": "share of ones",
}


def _distribution_section(page: Page, context: _Context) -> None:
    from polars_rankk import charts
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
    rows = dist.select(list(_DISTRIBUTION_COLUMNS)).iter_rows()
    body = (
        '<p class="note">How the per-group values spread: a mean hides whom a system fails. '
        f"At K={headline}; share of zeros: groups that got nothing right.</p>"
        + page.chart(
            charts.plot_distribution(
                dist.filter(pl.col("k") == headline),
                systems=context.names,
                title=f"Distribution of per-group values at K={headline}",
            )
        )
        + page.chart(
            charts.plot_histogram(
                hist,
                kind="ecdf",
                systems=context.names,
                title=f"Cumulative distribution at K={headline}",
            )
        )
        + html_table(
            list(_DISTRIBUTION_COLUMNS.values()),
            [(r[0], r[1], "–" if r[2] is None else r[2], *r[3:]) for r in rows],
            text_columns=2,
        )
    )
    page.section("distributions", "Distributions", body)


def _strata_section(
    page: Page,
    context: _Context,
    strata: list[str],
    attributes: FrameLike | Sequence[FrameLike] | None,
) -> None:
    from polars_rankk import charts

    headline = context.headline
    table = curve_of_evaluations(
        context.evaluations,
        k=[headline],
        by=strata,
        attributes=attributes,
        ci=True,
        **context.bootstrap,
    )
    counts = table.filter(pl.col("metric") == table.get_column("metric")[0]).select(
        "system", *strata, "n_groups"
    )
    body = (
        f'<p class="note">The mean at K={headline} per stratum of '
        f"{escape(', '.join(strata))}, with {context.confidence:.0%} bootstrap intervals. "
        "A system can win overall and lose on a segment.</p>"
        + page.chart(
            charts.plot_strata(
                table, k=headline, systems=context.names, confidence=context.confidence
            )
        )
        + "<h3>Groups per stratum</h3>"
        + html_table(
            ["system", *strata, "groups"], counts.iter_rows(), text_columns=1 + len(strata)
        )
    )
    page.section("strata", "Strata", body)


_COMPARISON_COLUMNS = {
    "label": "metric",
    "system": "system",
    "n_groups": "groups",
    "baseline_mean": "baseline mean",
    "mean": "mean",
    "diff": "difference",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "p_value_t": "p (t-test)",
    "p_value_randomization": "p (randomization)",
    "p_value_wilcoxon": "p (Wilcoxon)",
    "p_adjusted": "p adjusted",
}


def _comparison_section(
    page: Page, context: _Context, baseline: str, progress: bool | None = None
) -> None:
    from polars_rankk import charts
    from polars_rankk.stats.comparison import compare

    cmp = compare(
        dict(context.chosen),
        baseline=baseline,
        group_keys=context.group_keys,
        progress=progress,
        **context.bootstrap,
    )
    rows = cmp.with_columns(
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("label")
    ).select(list(_COMPARISON_COLUMNS))
    body = (
        f'<p class="note">Paired per-group differences against <b>{escape(baseline)}</b>, '
        f"on the groups both systems have. Intervals: {context.confidence:.0%} bootstrap; "
        "p-values: paired t-test, randomization test and Wilcoxon signed-rank; "
        "p adjusted: Holm-corrected randomization p-value within each metric × K.</p>"
        + page.chart(
            charts.plot_comparison(cmp, systems=context.names, confidence=context.confidence)
        )
        + html_table(list(_COMPARISON_COLUMNS.values()), rows.iter_rows(), text_columns=2)
    )
    page.section("comparison", "Comparison", body)


def _spread(available: list[int]) -> list[int]:
    if len(available) <= 6:
        return available
    preferred = [x for x in (1, 3, 5, 10, 20, 50, 100, 1000) if x in available]
    return sorted(set(preferred[:5]) | {available[-1]})


def _version() -> str:
    from polars_rankk.core.version import package_version

    return package_version()


def _diagnostics(evaluations: Mapping[str, Evaluation], ks: list[int]) -> str:
    names = list(evaluations)
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
        return '<p class="note">No diagnostics available.</p>'
    body = (
        '<p class="note">Counts that qualify the numbers: what was dropped or repaired, and '
        "where the ranking or the truth limits what a metric can say.</p>"
        + html_table(
            ["diagnostic", *names],
            [(label, *(counts[label].get(n) for n in names)) for label in counts],
        )
    )
    if per_k:
        table = (
            pl.concat(per_k, how="vertical_relaxed")
            .pivot(on="system", index=["name", "k"], values="value")
            .sort(["name", "k"])
        )
        body += "<h3>Per K</h3>" + html_table(
            ["diagnostic", "k", *table.columns[2:]],
            ((r[0], r[1], *(_count(v) for v in r[2:])) for r in table.iter_rows()),
        )
    if examples:
        body += "<h3>Example groups with no candidates</h3>" + html_table(
            ["system", "group", "relevant items"], examples, text_columns=2
        )
    return body


def _count(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _policy(evaluation: Evaluation) -> str:
    policy = evaluation.policy.to_dict()
    rows = [(name, repr(value), POLICY_HELP.get(name, "")) for name, value in policy.items()]
    metric_rows = [(name, _definition(name)) for name in METRICS if name in evaluation.metrics]
    columns = ", ".join(evaluation.group_keys)
    return (
        '<p class="note">Every definitional choice behind the numbers '
        "(defined in docs/definitions.md §3). "
        f"Group key(s): <code>{escape(columns)}</code>.</p>"
        + html_table(["policy", "value", "meaning"], rows, text_columns=3)
        + "<h3>Metrics</h3>"
        + html_table(["metric", "definition"], metric_rows, text_columns=2)
    )


def report(
    systems: Systems,
    truth: FrameLike | None = None,
    *,
    path: str | Path = "report.html",
    k: int | Iterable[int] = (1, 5, 10, 20),
    k_max: int | None = None,
    metrics: str | Iterable[str] | None = None,
    group_by: str | Sequence[str] | None = None,
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    policy: Policy | None = None,
    system: str | None = None,
    by: str | Sequence[str] | None = None,
    attributes: FrameLike | Sequence[FrameLike] | None = None,
    baseline: str | None = None,
    ui_k: int | None = None,
    log_k: bool = False,
    title: str = "Ranking evaluation report",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool | Progress | None = None,
) -> Path:
    """Evaluate systems and write one self-contained HTML report (opens offline).

    Sections: summary table (means with bootstrap intervals), K-curves (K = 1…`k_max`) and
    the precision–recall trade-off, distributions of per-group values, strata (with `by`),
    paired comparisons against the baseline (two systems or more), diagnostics, and the
    policy and metric definitions used.

    Parameters
    ----------
    systems
        ``{name: candidates}`` (or `Evaluation` objects), or one candidates table, split by
        its `system` column when given. Any table: Polars, pandas, Arrow, or an object with
        ``__arrow_c_stream__`` (a DuckDB relation).
    truth
        The judged items shared by every system (any table, as above).
    path
        Where to write the page.
    k
        The cut-offs of the tables, distributions and comparisons.
    k_max
        The K-curves run from 1 to this (default ``max(k)``).
    metrics, group_by, item, score, relevance, policy
        As in `polars_rankk.evaluate`.
    system
        With a single candidates frame: the column naming each row's system.
    by, attributes
        Stratum column(s) and the table(s) of group attributes that hold them.
    baseline
        The system the others are compared with (default the first).
    ui_k
        The K the product shows: marked on the K-curves and used for the distribution
        charts (default the middle of `k`).
    log_k
        Logarithmic K axis on the K-curves.
    title
        Page title.
    n_resamples, confidence, seed
        Bootstrap settings (intervals and comparisons).
    progress
        A progress bar of the report's steps (and of the comparison's resamples): True, False,
        or None (default: shown in a notebook or on a terminal, not when stderr is piped). A
        callable is called with a short message as each step starts instead (the CLI shows
        them).

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> from polars_rankk.reports.document import report
    >>> truth = pl.DataFrame({"user": [1, 2], "item": ["b", "c"]})
    >>> cand = pl.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "c", "d"],
    ...                      "score": [0.9, 0.8, 0.7, 0.6]})
    >>> out = report({"A": cand, "B": cand.with_columns(score=-pl.col("score"))}, truth,
    ...              path=pathlib.Path(tempfile.mkdtemp()) / "report.html", k=[1, 2],
    ...              group_by="user", n_resamples=50)
    >>> out.read_text().startswith("<!DOCTYPE html>")
    True
    """
    page = render_report(
        systems,
        truth,
        k=k,
        k_max=k_max,
        metrics=metrics,
        group_by=group_by,
        item=item,
        score=score,
        relevance=relevance,
        policy=policy,
        system=system,
        by=by,
        attributes=attributes,
        baseline=baseline,
        ui_k=ui_k,
        log_k=log_k,
        title=title,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        progress=progress,
    )
    target = Path(path)
    if target.parent and not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target
