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
from typing import TYPE_CHECKING, Any

from polars_rankk.core import Evaluation
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike
from polars_rankk.reports.analyses import Analyses, report_bounds
from polars_rankk.reports.content import Progress, build_content, report_steps
from polars_rankk.reports.evaluated import evaluate_for_report
from polars_rankk.reports.judges import report_correction
from polars_rankk.reports.passages import collapsed_systems, with_documents
from polars_rankk.reports.sections import render_page
from polars_rankk.stats.per_group import as_list
from polars_rankk.stats.systems import Systems

if TYPE_CHECKING:
    from polars_rankk.counterfactual import CounterfactualResult
    from polars_rankk.passages import DocumentRule

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
    human_truth: FrameLike | None = None,
    counterfactual: Mapping[str, CounterfactualResult] | CounterfactualResult | None = None,
    documents: DocumentRule | None = None,
    label_probability: str | None = None,
    label_draws: int = 1000,
    label_seed: int = 0,
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
    options: dict[str, Any] = {
        "metrics": metrics, "group_by": group_by, "item": item, "score": score,
        "relevance": relevance, "policy": policy,
    }  # fmt: skip
    if label_probability is not None:
        options.update(
            label_probability=label_probability, label_draws=label_draws, label_seed=label_seed
        )
    systems = collapsed_systems(systems, documents, system=system, group_by=group_by, item=item,
                                score=score, policy=policy)  # fmt: skip
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
        correction = None
        if human_truth is not None:
            say("correcting the judge's labels")
            correction = report_correction(
                systems, evaluations, human_truth, system=system, k=content.ks,
                options={**options, "group_by": content.group_keys},
            )  # fmt: skip
    estimates = None
    if counterfactual is not None:
        from polars_rankk.reports.counterfactual import checked_results

        estimates = checked_results(counterfactual)
    analyses = Analyses(risk_alpha, groups_needed, bounds, correction, estimates)
    content = with_documents(content, documents)
    return render_page(content, title=title, log_k=log_k, ui_k=ui_k, analyses=analyses)


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
    documents: DocumentRule | None = None,
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
    content = with_documents(content, documents)
    return render_page(content, title=title, log_k=log_k, ui_k=ui_k, analyses=analyses)


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
    human_truth: FrameLike | None = None,
    counterfactual: Mapping[str, CounterfactualResult] | CounterfactualResult | None = None,
    documents: DocumentRule | None = None,
    label_probability: str | None = None,
    label_draws: int = 1000,
    label_seed: int = 0,
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
    human_truth
        Human labels on some of the groups, `truth` being a judge's (a model's): adds a
        section with each system's mean under the judge's labels beside its correction by the
        human labels (`polars_rankk.judge_correction`, `polars_rankk.plot_judge_correction`).
        Evaluates every system once more.
    counterfactual
        What each ranking would have earned from logged interactions,
        ``{system: rk.evaluate_counterfactual(log, candidates, ...)}`` (or one result): adds a
        section with the estimates, their intervals and the diagnostics that qualify them
        (`polars_rankk.plot_counterfactual`).
    documents
        The candidates are passages (chunks): each system's are collapsed to documents by
        this `polars_rankk.DocumentRule` before it is evaluated (`polars_rankk.to_documents`;
        evaluations given are kept, as made of documents by it). The rule is recorded in the
        policy section.
    label_probability, label_draws, label_seed
        The truth's labels are probabilities (a judge's; see `polars_rankk.evaluate`): every
        value is its expectation over the label outcomes, and every interval — the summary's,
        the K-curves', the strata's and the comparison's (both systems on the same label
        outcomes, `polars_rankk.compare` with ``labels=True``) — resamples the labels as well
        as the groups. Evaluations given must all be made so, or none.

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
        human_truth=human_truth,
        counterfactual=counterfactual,
        documents=documents,
        label_probability=label_probability,
        label_draws=label_draws,
        label_seed=label_seed,
    )
    target = Path(path)
    if target.parent and not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target
