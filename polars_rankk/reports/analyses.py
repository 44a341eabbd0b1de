"""The report's optional analyses: risk against the baseline, groups needed, unjudged bounds.

Each is off unless asked for (`polars_rankk.report`'s ``risk_alpha``, ``groups_needed``,
``unjudged_bounds``). Risk and groups needed read the per-group values and the comparison the
report already computed; the unjudged bounds evaluate every system twice more per K, so they
need the candidates and the truth (`render_report`, not `render_evaluations`).

Not public: see `polars_rankk.report`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.types import FrameLike
from polars_rankk.reports.content import ReportContent
from polars_rankk.reports.html import Page, escape, html_table
from polars_rankk.stats.bounds import UnjudgedBounds, unjudged_bounds
from polars_rankk.stats.power import comparison_power
from polars_rankk.stats.risk_sensitive import risk, risk_distribution
from polars_rankk.stats.systems import Systems, lazy_systems


@dataclass(frozen=True)
class Analyses:
    """Which optional sections to add, and the bounds computed for them."""

    risk_alpha: float | None = None
    groups_needed: bool = False
    bounds: Mapping[str, UnjudgedBounds] | None = None
    judges: pl.DataFrame | None = None
    #: {system: CounterfactualResult} (typed loosely: the counterfactual part loads lazily).
    counterfactual: Mapping[str, Any] | None = None


def report_bounds(
    systems: Systems,
    truth: FrameLike | None,
    *,
    system: str | None,
    k: int | Iterable[int],
    options: Mapping[str, Any],
) -> dict[str, UnjudgedBounds]:
    """`unjudged_bounds` of every system of the report, at the report's K."""
    if truth is None:
        raise ValueError("unjudged_bounds=True needs the truth")
    found = {}
    for name, candidates in lazy_systems(systems, system).items():
        if isinstance(candidates, Evaluation):
            raise ValueError(
                f"unjudged_bounds=True evaluates candidates again; system {name!r} is an "
                "Evaluation: pass its candidates"
            )
        found[name] = unjudged_bounds(candidates, truth, k=k, **options)
    return found


def add_sections(page: Page, content: ReportContent, analyses: Analyses) -> None:
    """The sections asked for, in order: risk, groups needed, unjudged bounds."""
    if analyses.risk_alpha is not None and content.comparison is not None:
        _risk_section(page, content, analyses.risk_alpha)
    if analyses.groups_needed and content.comparison is not None:
        _power_section(page, content)
    if analyses.bounds:
        _bounds_section(page, content, analyses.bounds)
    if analyses.judges is not None:
        from polars_rankk.reports.judges import judges_section

        judges_section(page, analyses.judges)
    if analyses.counterfactual:
        from polars_rankk.reports.counterfactual import counterfactual_section

        counterfactual_section(page, analyses.counterfactual)


def _label() -> pl.Expr:
    return (
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("label")
    )


_RISK_COLUMNS = {
    "label": "metric", "system": "system", "n_groups": "groups", "wins": "wins",
    "losses": "losses", "urisk": "URisk", "trisk": "TRisk", "p_value": "p (TRisk)",
    "geo_risk": "GeoRisk", "baseline_geo_risk": "baseline GeoRisk",
}  # fmt: skip


def _risk_section(page: Page, content: ReportContent, alpha: float) -> None:
    from polars_rankk.charts import plot_risk

    assert content.comparison is not None
    baseline = content.comparison.baseline
    ordered = {baseline: content.per_group[baseline]} | dict(content.per_group)
    table = risk(ordered, baseline, alpha=alpha, group_keys=content.group_keys)
    headline = content.headline
    at_headline = pl.col("k").is_null() | (pl.col("k") == headline)
    distribution = risk_distribution(
        {name: frame.filter(at_headline) for name, frame in ordered.items()},
        baseline, alpha=alpha, group_keys=content.group_keys,
    )  # fmt: skip
    body = (
        f'<p class="note">Risk-sensitive comparison with <b>{escape(baseline)}</b> (α = '
        f"{alpha:g}: a loss weighs {1 + alpha:g} times a win). URisk: mean of the per-group "
        "differences, losses weighted; TRisk: URisk over its standard error (below −2: a "
        "significant risk); GeoRisk: the system's mean combined with its per-group standing "
        "among it and the baseline (Dinçer, Macdonald &amp; Ounis 2014, 2016). Chart at "
        f"K={headline}.</p>"
        + page.chart(plot_risk(distribution))
        + html_table(
            list(_RISK_COLUMNS.values()),
            table.with_columns(_label()).select(list(_RISK_COLUMNS)).iter_rows(),
            text_columns=2,
        )
    )
    page.section("risk", "Risk", body)


_POWER_COLUMNS = {
    "label": "metric", "system": "system", "n_groups": "groups", "effect_size": "effect (d_z)",
    "p_value_t": "p (t-test)", "power_as_run": "power as run", "groups_needed": "groups needed",
}  # fmt: skip


def _power_section(page: Page, content: ReportContent) -> None:
    assert content.comparison is not None
    table = comparison_power(content.comparison.table).with_columns(_label())
    body = (
        '<p class="note">The paired t-test\'s power at α = 0.05 for the observed effect '
        "(Cohen's d_z = mean difference / its standard deviation), with the groups compared, "
        "and the groups it would need for a power of 0.8, as statsmodels' TTestPower computes "
        "it. They treat the observed effect as the true one.</p>"
        + html_table(
            list(_POWER_COLUMNS.values()),
            table.select(list(_POWER_COLUMNS)).iter_rows(),
            text_columns=2,
        )
    )
    page.section("groups-needed", "Groups needed", body)


_BOUND_COLUMNS = {
    "system": "system", "label": "metric", "lower": "unjudged as non-relevant",
    "value": "value", "upper": "unjudged as relevant", "width": "width",
    "unjudged_share": "unjudged in top K",
}  # fmt: skip


def _bounds_section(
    page: Page, content: ReportContent, bounds: Mapping[str, UnjudgedBounds]
) -> None:
    rows = pl.concat(
        found.summary.with_columns(pl.lit(name).alias("system")) for name, found in bounds.items()
    ).with_columns(_label())
    body = (
        '<p class="note">Each metric with the unjudged items a system retrieved within the '
        "top K judged non-relevant, and judged relevant at the relevance threshold: how far "
        "missing judgements could move the result.</p>"
        + html_table(
            list(_BOUND_COLUMNS.values()),
            rows.select(list(_BOUND_COLUMNS)).iter_rows(),
            text_columns=2,
        )
    )
    page.section("unjudged", "Unjudged bounds", body)
