"""The report's section on a judge's labels: each system's mean under the judge's labels
beside its correction by human labels (`polars_rankk.judge_correction`), both intervals.

Added when `polars_rankk.report` is given ``human_truth`` beside the (judge's) truth.

Not public: see `polars_rankk.report`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.types import FrameLike
from polars_rankk.judges import judge_correction
from polars_rankk.reports.html import Page, html_table
from polars_rankk.stats.systems import Systems, lazy_systems

_COLUMNS = {
    "system": "system", "label": "metric", "judge_only": "judge only", "estimate": "corrected",
    "lower": "corrected, low", "upper": "corrected, high", "n_labelled": "human-labelled",
    "n_unlabelled": "judge only groups", "effective_n": "worth (human labels)",
}  # fmt: skip


def report_correction(
    systems: Systems,
    evaluations: Mapping[str, Evaluation],
    human_truth: FrameLike,
    *,
    system: str | None,
    k: Iterable[int],
    options: Mapping[str, Any],
) -> pl.DataFrame:
    """`judge_correction` of every system at the report's K: the report's evaluations under
    the judge's labels, every system evaluated again under `human_truth`."""
    from polars_rankk.core import evaluate

    ks = list(k)
    judged, human = {}, {}
    for name, candidates in lazy_systems(systems, system).items():
        if isinstance(candidates, Evaluation):
            raise ValueError(
                f"human_truth evaluates candidates again; system {name!r} is an Evaluation: "
                "pass its candidates"
            )
        people = evaluate(candidates, human_truth, k=ks, **options)
        human[name] = people.per_group.lazy()
        asked = people.per_group.lazy().select("metric", "k").unique()
        judged[name] = (
            evaluations[name].per_group.lazy().join(asked, on=["metric", "k"], nulls_equal=True)
        )
    return judge_correction(judged, human)


def judges_section(page: Page, correction: pl.DataFrame) -> None:
    from polars_rankk.charts import plot_judge_correction

    rows = correction.filter(pl.col("baseline").is_null()).with_columns(
        label=pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
    )
    body = (
        "<p class=\"note\">Each system's mean under the judge's labels (its interval counts the "
        "groups' noise only) and corrected by the groups people labelled (prediction-powered "
        'inference, PPI++; its interval counts the judge\'s bias too). "Worth": the number of '
        "human-labelled groups a human-only mean would need for the corrected interval's "
        "width.</p>"
        + page.chart(plot_judge_correction(correction))
        + html_table(
            list(_COLUMNS.values()), rows.select(list(_COLUMNS)).iter_rows(), text_columns=2
        )
    )
    page.section("judges", "Judge and human labels", body)
