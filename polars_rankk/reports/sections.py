"""The sections of the HTML report's page: summary, K-curves, distributions, strata,
comparison, diagnostics and policy, each drawn from the report's content."""

from __future__ import annotations

import polars as pl

from polars_rankk.reports.analyses import Analyses, add_sections
from polars_rankk.reports.content import ReportContent
from polars_rankk.reports.html import Cell, Page, escape, html_table, number

__all__ = ["render_page"]


def render_page(
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
        f"best system per row is in bold. Groups evaluated — {groups}.{_labels_note(content)}"
        "</p>" + html_table(["metric", *content.names, "definition"], rows, raw=True)
    )
    page.section("summary", "Summary", body)


def _curves_section(page: Page, content: ReportContent, *, log_k: bool, ui_k: int | None) -> None:
    from polars_rankk.charts import plot_k_curve, plot_precision_recall

    curve, k_max = content.curves.curve, content.curves.k_max
    body = (
        f'<p class="note">Each metric at every K from 1 to {k_max}, from one evaluation pass '
        f"per system. Bands: {content.confidence:.0%} bootstrap confidence intervals over "
        "groups."
        + (f" The dashed line marks K={ui_k}, the K the product shows." if ui_k else "")
        + "</p>"
        + page.chart(
            plot_k_curve(
                curve,
                systems=content.names,
                log_k=log_k,
                ui_k=ui_k,
                confidence=content.confidence,
            )
        )
    )
    if {"precision", "recall"} <= set(curve.get_column("metric")):
        body += page.chart(plot_precision_recall(curve, systems=content.names))
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
    from polars_rankk.charts import plot_distribution, plot_histogram

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
            plot_distribution(
                dist.filter(pl.col("k") == headline),
                systems=content.names,
                title=f"Distribution of per-group values at K={headline}",
            )
        )
        + page.chart(
            plot_histogram(
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
    from polars_rankk.charts import plot_strata

    assert content.strata is not None
    headline, strata = content.headline, content.strata.columns
    body = (
        f'<p class="note">The mean at K={headline} per stratum of '
        f"{escape(', '.join(strata))}, with {content.confidence:.0%} bootstrap intervals. "
        "A system can win overall and lose on a segment.</p>"
        + page.chart(
            plot_strata(
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
    from polars_rankk.charts import plot_comparison

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
        "p adjusted: Holm-corrected randomization p-value within each metric × K."
        f"{_labels_note(content)}</p>"
        + page.chart(plot_comparison(cmp, systems=content.names, confidence=content.confidence))
        + html_table(list(_COMPARISON_COLUMNS.values()), rows.iter_rows(), text_columns=2)
    )
    page.section("comparison", "Comparison", body)


def _labels_note(content: ReportContent) -> str:
    """What the numbers are when the labels were probabilities (empty otherwise)."""
    if not content.labels:
        return ""
    return (
        " The labels are probabilities (a judge's): each value is its expectation over the "
        "label outcomes, and every interval resamples the labels as well as the groups (a "
        "difference's from both systems on the same outcomes); the diagnostics count each "
        "item at its highest grade of positive probability."
    )


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
