"""A self-contained HTML report: summary, K-curves, distributions, strata, comparisons.

The page opens offline: Vega, Vega-Lite and Vega-Embed are inlined (from
``vl-convert-python``), charts carry their (aggregated) data, and a Content-Security-Policy
forbids fetching anything. Everything that comes from the user — system names, column names,
group ids, stratum values — is HTML-escaped in tables and travels as JSON data (never as
markup or code) to the charts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike
from polars_rankk.reports.analyses import Analyses, add_sections, report_bounds
from polars_rankk.reports.content import (
    Progress,
    ReportContent,
    build_content,
    evaluate_for_report,
    report_steps,
)
from polars_rankk.reports.html import Cell, Page, escape, html_table, number
from polars_rankk.stats.distributions import as_list
from polars_rankk.stats.systems import Systems

__all__ = ["render_evaluations", "render_report", "report"]


def _bars(progress: bool | Progress | None) -> bool | None:
    """The `progress` to hand on to compare: bars only when the caller did not bring its own
    display."""
    return False if callable(progress) else progress


def render_report(
    systems: Systems,
    truth: FrameLike | None = None,
    *,
    k: int | Iterable[int] | None = None,
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
    risk_alpha: float | None = None,
    groups_needed: bool = False,
    unjudged_bounds: bool = False,
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
    options = {
        "metrics": metrics, "group_by": group_by, "item": item, "score": score,
        "relevance": relevance, "policy": policy,
    }  # fmt: skip
    evaluations, ks, curve_k_max = evaluate_for_report(
        systems, truth, k=k, k_max=k_max, system=system, baseline=baseline, options=options
    )
    with report_steps(progress, len(evaluations), as_list(by)) as say:
        content = build_content(
            evaluations, k=ks, by=by, attributes=attributes, baseline=baseline, ui_k=ui_k,
            n_resamples=n_resamples, confidence=confidence, seed=seed, say=say,
            bars=_bars(progress), curve_k_max=curve_k_max,
        )  # fmt: skip
        bounds = None
        if unjudged_bounds:
            say("bounding unjudged items")
            bounding = {**options, "group_by": content.group_keys}
            bounds = report_bounds(systems, truth, system=system, k=content.ks, options=bounding)
    analyses = Analyses(risk_alpha, groups_needed, bounds)
    return _render(content, title=title, log_k=log_k, ui_k=ui_k, analyses=analyses)


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
    risk_alpha: float | None = None,
    groups_needed: bool = False,
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
    with report_steps(progress, len(evaluations), as_list(by)) as say:
        content = build_content(
            evaluations, k=k, by=by, attributes=attributes, baseline=baseline, ui_k=ui_k,
            n_resamples=n_resamples, confidence=confidence, seed=seed, say=say,
            bars=_bars(progress), curve_k_max=None,
        )  # fmt: skip
    analyses = Analyses(risk_alpha, groups_needed)
    return _render(content, title=title, log_k=log_k, ui_k=ui_k, analyses=analyses)


def _render(
    content: ReportContent, *, title: str, log_k: bool, ui_k: int | None, analyses: Analyses
) -> str:
    """The page of the report's content."""
    page = Page(title)
    _summary_section(page, content)
    _curves_section(page, content, log_k=log_k, ui_k=ui_k)
    _distribution_section(page, content)
    if content.strata is not None:
        _strata_section(page, content)
    if content.comparison is not None:
        _comparison_section(page, content)
    add_sections(page, content, analyses)
    page.section("diagnostics", "Diagnostics", _diagnostics(content))
    page.section("policy", "Policy and definitions", _policy(content))
    subtitle = [
        f"{len(content.names)} system(s): {escape(', '.join(content.names))} · groups: "
        f"<code>{escape(', '.join(content.group_keys))}</code> · K: "
        f"{escape(', '.join(str(x) for x in content.ks))} (curves 1–{content.curves.k_max})",
        f"polars-rankk {escape(content.version)} · {content.date}",
    ]
    return page.render(subtitle)


def _summary_section(page: Page, content: ReportContent) -> None:
    several = len(content.names) > 1
    rows = []
    for summary in content.summary:
        label = summary.metric if summary.k is None else f"{summary.metric}@{summary.k}"
        cells: list[object] = [Cell(escape(label), "text")]
        for name in content.names:
            found = summary.values.get(name)
            if found is None:
                cells.append(Cell("–"))
                continue
            value, low, high = found
            ci = ""
            if low is not None:
                ci = f' <span class="ci">[{number(low)}, {number(high)}]</span>'
            css = "best" if several and value == summary.best else ""
            cells.append(Cell(number(value) + ci, css))
        cells.append(Cell(escape(summary.definition), "text"))
        rows.append(cells)
    groups = ", ".join(f"{escape(name)}: {number(n)}" for name, n in content.n_groups.items())
    body = (
        '<p class="note">Mean over groups (macro average) with its '
        f"{content.confidence:.0%} bootstrap confidence interval (resampling groups); the "
        f"best system per row is in bold. Groups evaluated — {groups}.</p>"
        + html_table(["metric", *content.names, "definition"], rows, raw=True)
    )
    page.section("summary", "Summary", body)


def _curves_section(page: Page, content: ReportContent, *, log_k: bool, ui_k: int | None) -> None:
    from polars_rankk import charts

    curve, k_max = content.curves.curve, content.curves.k_max
    body = (
        f'<p class="note">Each metric at every K from 1 to {k_max}, from one evaluation pass '
        f"per system. Bands: {content.confidence:.0%} bootstrap confidence intervals over "
        "groups."
        + (f" The dashed line marks K={ui_k}, the K the product shows." if ui_k else "")
        + "</p>"
        + page.chart(
            charts.plot_k_curve(
                curve,
                systems=content.names,
                log_k=log_k,
                ui_k=ui_k,
                confidence=content.confidence,
            )
        )
    )
    if {"precision", "recall"} <= set(curve.get_column("metric")):
        body += page.chart(charts.plot_precision_recall(curve, systems=content.names))
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


def _distribution_section(page: Page, content: ReportContent) -> None:
    from polars_rankk import charts

    headline = content.headline
    dist, hist = content.distributions.distribution, content.distributions.histogram
    if dist.filter((pl.col("k") == headline) & (pl.col("n_groups") > 0)).height == 0:
        # Every group was dropped at this K (short_lists="skip" and lists shorter than K).
        note = (
            f'<p class="note">No group has a value at K={headline} (under '
            f"short_lists='skip' a list shorter than K has none), so there is no "
            f"distribution to show.</p>"
        )
        page.section("distributions", "Distributions", note)
        return
    rows = dist.select(list(_DISTRIBUTION_COLUMNS)).iter_rows()
    body = (
        '<p class="note">How the per-group values spread: a mean hides whom a system fails. '
        f"At K={headline}; share of zeros: groups that got nothing right.</p>"
        + page.chart(
            charts.plot_distribution(
                dist.filter(pl.col("k") == headline),
                systems=content.names,
                title=f"Distribution of per-group values at K={headline}",
            )
        )
        + page.chart(
            charts.plot_histogram(
                hist,
                kind="ecdf",
                systems=content.names,
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


def _strata_section(page: Page, content: ReportContent) -> None:
    from polars_rankk import charts

    assert content.strata is not None
    headline, strata = content.headline, content.strata.columns
    body = (
        f'<p class="note">The mean at K={headline} per stratum of '
        f"{escape(', '.join(strata))}, with {content.confidence:.0%} bootstrap intervals. "
        "A system can win overall and lose on a segment.</p>"
        + page.chart(
            charts.plot_strata(
                content.strata.table,
                k=headline,
                systems=content.names,
                confidence=content.confidence,
            )
        )
        + "<h3>Groups per stratum</h3>"
        + html_table(
            ["system", *strata, "groups"],
            content.strata.counts.iter_rows(),
            text_columns=1 + len(strata),
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


def _comparison_section(page: Page, content: ReportContent) -> None:
    from polars_rankk import charts

    assert content.comparison is not None
    baseline, cmp = content.comparison.baseline, content.comparison.table
    rows = cmp.with_columns(
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("label")
    ).select(list(_COMPARISON_COLUMNS))
    body = (
        f'<p class="note">Paired per-group differences against <b>{escape(baseline)}</b>, '
        f"on the groups both systems have. Intervals: {content.confidence:.0%} bootstrap; "
        "p-values: paired t-test, randomization test and Wilcoxon signed-rank; "
        "p adjusted: Holm-corrected randomization p-value within each metric × K.</p>"
        + page.chart(
            charts.plot_comparison(cmp, systems=content.names, confidence=content.confidence)
        )
        + html_table(list(_COMPARISON_COLUMNS.values()), rows.iter_rows(), text_columns=2)
    )
    page.section("comparison", "Comparison", body)


def _diagnostics(content: ReportContent) -> str:
    diagnostics, names = content.diagnostics, content.names
    if diagnostics is None:
        return '<p class="note">No diagnostics available.</p>'
    counts = diagnostics.counts
    body = (
        '<p class="note">Counts that qualify the numbers: what was dropped or repaired, and '
        "where the ranking or the truth limits what a metric can say.</p>"
        + html_table(
            ["diagnostic", *names],
            [(label, *(counts[label].get(n) for n in names)) for label in counts],
        )
        + "<h3>Per K</h3>"
        + html_table(["diagnostic", "k", *diagnostics.per_k_systems], diagnostics.per_k)
    )
    if diagnostics.examples:
        body += "<h3>Example groups with no candidates</h3>" + html_table(
            ["system", "group", "relevant items"], diagnostics.examples, text_columns=2
        )
    return body


def _policy(content: ReportContent) -> str:
    policy = content.policy
    return (
        '<p class="note">Every definitional choice behind the numbers '
        "(defined in docs/definitions.md §3). "
        f"Group key(s): <code>{escape(', '.join(policy.group_keys))}</code>.</p>"
        + html_table(["policy", "value", "meaning"], policy.policy, text_columns=3)
        + "<h3>Metrics</h3>"
        + html_table(["metric", "definition"], policy.metrics, text_columns=2)
    )


def report(
    systems: Systems,
    truth: FrameLike | None = None,
    *,
    path: str | Path = "report.html",
    k: int | Iterable[int] | None = None,
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
    risk_alpha: float | None = None,
    groups_needed: bool = False,
    unjudged_bounds: bool = False,
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
        The cut-offs of the tables, distributions and comparisons. Default: the K every
        given evaluation has (an `Evaluation` in `systems`), else 1, 5, 10 and 20.
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
    risk_alpha
        Add a risk section (two systems or more): URisk, TRisk and GeoRisk against the
        baseline with this α, and the chart of per-group wins and losses
        (`polars_rankk.risk`, `polars_rankk.plot_risk`). Off by default.
    groups_needed
        Add the power of each comparison as run and the groups a paired t-test would need
        for a power of 0.8 (`polars_rankk.comparison_power`). Off by default.
    unjudged_bounds
        Add each metric with the unjudged items in the top K judged non-relevant and
        relevant (`polars_rankk.unjudged_bounds`; evaluates every system twice more per K).
        Off by default.

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
        risk_alpha=risk_alpha,
        groups_needed=groups_needed,
        unjudged_bounds=unjudged_bounds,
    )
    target = Path(path)
    if target.parent and not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target
