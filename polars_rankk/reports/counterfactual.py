"""The report's section of counterfactual estimates: what each ranking would have earned
from logged interactions (`polars_rankk.evaluate_counterfactual`), with the diagnostics that
say how far to trust them.

Added when `polars_rankk.report` is given ``counterfactual={system: result}``.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from polars_rankk.counterfactual import CounterfactualResult
from polars_rankk.reports.html import Page, html_table

_COLUMNS = {
    "system": "system",
    "estimator": "estimator",
    "reward_at_k": "reward@K",
    "lower": "lower",
    "upper": "upper",
    "groups": "groups",
    "largest_weight": "largest weight",
    "effective_sample_size": "effective sample size",
    "unsupported_share": "top K never logged",
}


def checked_results(results: object) -> dict[str, CounterfactualResult]:
    """`results` as ``{system: CounterfactualResult}``, or a TypeError naming what is wrong."""
    if isinstance(results, CounterfactualResult):
        return {"system": results}
    if not isinstance(results, Mapping) or not results:
        raise TypeError(
            "counterfactual= takes {system: rk.evaluate_counterfactual(...)} (or one result); "
            f"got {type(results).__name__}"
        )
    for name, result in results.items():
        if not isinstance(result, CounterfactualResult):
            raise TypeError(
                f"counterfactual={{{name!r}: ...}} must be a result of "
                f"rk.evaluate_counterfactual; got {type(result).__name__}"
            )
    return {str(name): result for name, result in results.items()}


def estimates_table(results: Mapping[str, CounterfactualResult]) -> pl.DataFrame:
    """One row per (system, estimator): the estimate, its interval and the diagnostics.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.reports.counterfactual import estimates_table
    >>> log = pl.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 3],
    ...                     "position": [1, 2, 1, 2], "click": [1, 0, 0, 1]})
    >>> new = pl.DataFrame({"user": [1, 1, 2, 2], "item": [2, 1, 3, 1],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> result = rk.evaluate_counterfactual(log, new, group_by="user", k=2,
    ...                                     examination=[1.0, 0.5], n_bootstrap=20)
    >>> estimates_table({"new": result}).select("system", "estimator", "groups").row(0)
    ('new', 'snips', 2)
    """
    rows = []
    for name, result in results.items():
        diagnostics = result.diagnostics
        rows.append(
            result.overall.select(
                pl.lit(name, dtype=pl.String).alias("system"),
                "estimator",
                "reward_at_k",
                "lower",
                "upper",
                "groups",
                pl.lit(diagnostics.largest_weight, dtype=pl.Float64).alias("largest_weight"),
                pl.lit(diagnostics.effective_sample_size, dtype=pl.Float64).alias(
                    "effective_sample_size"
                ),
                pl.lit(diagnostics.unsupported_share, dtype=pl.Float64).alias("unsupported_share"),
            )
        )
    return pl.concat(rows, how="vertical_relaxed")


def counterfactual_section(page: Page, results: Mapping[str, CounterfactualResult]) -> None:
    """The section: the chart of the estimates and their table."""
    from polars_rankk.charts import plot_counterfactual

    table = estimates_table(results)
    body = (
        '<p class="note">What each ranking would have earned from the logged interactions '
        "(expected reward in its top K), by estimator, with bootstrap intervals over groups. "
        "The naive estimate scores logged clicks as labels and is biased toward the logging "
        "ranker's positions; a large weight, a small effective sample size or a large share "
        "of the top K never logged makes the others uncertain.</p>"
        + page.chart(plot_counterfactual({name: r.overall for name, r in results.items()}))
        + html_table(
            list(_COLUMNS.values()), table.select(list(_COLUMNS)).iter_rows(), text_columns=2
        )
    )
    page.section("counterfactual", "Estimates from logged interactions", body)
