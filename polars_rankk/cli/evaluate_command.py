"""``rankk evaluate CANDIDATES TRUTH``: one ranking against its truth."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import polars as pl
import typer

from polars_rankk.cli.documents import DocumentOptions, with_document_options
from polars_rankk.cli.inputs import Columns, group_keys_for, read_attributes, read_source
from polars_rankk.cli.item_tables import ItemFiles, with_item_table_options
from polars_rankk.cli.options import (
    OUTPUT,
    AttributesOption,
    ByOption,
    FormatOption,
    GroupByOption,
    InputFormatOption,
    ItemOption,
    KOption,
    MetricsOption,
    OutputOption,
    ProgressOption,
    RankOption,
    RelevanceOption,
    ReportOption,
    ResamplesOption,
    ScoreOption,
    SeedOption,
    SubtopicOption,
    SystemOption,
    UiKOption,
    cli_plan_said_later,
    parse_metrics,
    split_names,
    with_policy_options,
)
from polars_rankk.cli.output import Result, View, fixed, frame_view, plain, write_result
from polars_rankk.cli.running import (
    Say,
    column_names,
    evaluate_run,
    naming,
    prepare_runs,
    progress_steps,
    read_truth,
    report_files,
    say_diagnostics,
)
from polars_rankk.cli.wording import count
from polars_rankk.core import Evaluation, Policy
from polars_rankk.core.names.request import Request

if TYPE_CHECKING:
    from polars_rankk.passages import DocumentRule

Average = Literal["macro", "micro"]
Names = Literal["canonical", "trec_eval", "ir_measures"]

CandidatesArgument = Annotated[
    Path,
    typer.Argument(
        metavar="CANDIDATES",
        help="Ranked candidates: Parquet, CSV, TSV or a TREC run.",
        show_default=False,
    ),
]
TruthArgument = Annotated[
    Path,
    typer.Argument(
        metavar="TRUTH", help="Judged items: Parquet, CSV, TSV or TREC qrels.", show_default=False
    ),
]
AverageOption = Annotated[
    Average,
    typer.Option(
        help="macro: mean of per-group values; micro: ratio of summed counts (count-based "
        "metrics only).",
        rich_help_panel=OUTPUT,
    ),
]
PerGroupOption = Annotated[
    bool,
    typer.Option(
        "--per-group",
        help="Output every row, one per (group, metric, k), instead of the summary.",
        rich_help_panel=OUTPUT,
    ),
]
NamesOption = Annotated[
    Names,
    typer.Option(
        "--names",
        help="How the summary names each metric: canonical (metric and k columns, whatever "
        "spelling --metrics used), or trec_eval's / ir_measures' spelling with K folded in "
        "(P_10, map; P@10, AP), where that tool computes the same number under the policy "
        "(else the canonical name, with a warning).",
        rich_help_panel=OUTPUT,
    ),
]
IntervalsOption = Annotated[
    bool,
    typer.Option(
        "--ci",
        help="Add bootstrap confidence intervals to the summary (resampling groups).",
        rich_help_panel=OUTPUT,
    ),
]


@with_policy_options
@with_item_table_options
@with_document_options
def evaluate(
    candidates: CandidatesArgument,
    truth: TruthArgument,
    k: KOption = None,
    metrics: MetricsOption = None,
    group_by: GroupByOption = None,
    system: SystemOption = None,
    item: ItemOption = "item",
    score: ScoreOption = None,
    rank: RankOption = None,
    relevance: RelevanceOption = "relevance",
    subtopic: SubtopicOption = None,
    input_format: InputFormatOption = "auto",
    average: AverageOption = "macro",
    per_group: PerGroupOption = False,
    names: NamesOption = "canonical",
    ci: IntervalsOption = False,
    output: OutputOption = None,
    output_format: FormatOption = None,
    report: ReportOption = None,
    ui_k: UiKOption = None,
    by: ByOption = None,
    attributes: AttributesOption = None,
    n_resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
    progress: ProgressOption = None,
    *,
    items: ItemFiles,
    documents: DocumentOptions,
    policy: Policy,
) -> None:
    """Evaluate one ranking (CANDIDATES) against TRUTH and print or save the metrics."""
    chosen = parse_metrics(metrics)
    if system is not None:
        refuse_catalogue_per_system(chosen)
    plan, said = cli_plan_said_later(chosen, k, policy)  # P@5 adds K = 5
    ks = list(plan.ks)
    keys = group_keys_for(group_by, [candidates, truth], input_format)
    columns = replace(column_names(keys, item, score, rank, relevance), subtopic=subtopic)
    with progress_steps(progress) as say:
        say("reading candidates")
        run = read_source(candidates, "CANDIDATES", "run", input_format, columns)
        say("reading truth")
        judged = read_truth(truth, input_format, columns)
        extra = read_attributes(attributes, columns)
        (run,), judged, rule = documents.apply([run], judged, columns, policy)
        (run,), judged, extra = prepare_runs([run], judged, extra, columns, system=system)
        say("evaluating")
        tables = items.read([run], columns)
        evaluation = evaluate_run(
            run,
            judged,
            columns,
            plan=plan,
            items=tables,
            system=system,
            said=said,
        )
        say("summarising")
        if per_group:
            result = per_group_result(evaluation, candidates)
        else:
            table = summary_table(
                evaluation, average, ci=ci, n_resamples=n_resamples, seed=seed, names=names
            )
            result = summary_result(table, f"{candidates.name} · {average} mean")
        if report is not None:
            with naming(report_files(report, extra)):
                write_report(
                    evaluation,
                    report,
                    candidates,
                    ks,
                    ui_k=ui_k,
                    by=split_names(by),
                    attributes=None if extra is None else extra.frame,
                    n_resamples=n_resamples,
                    seed=seed,
                    say=say,
                    documents=rule,
                )
    meta = {
        "candidates": str(candidates),
        "truth": str(truth),
        **settings(columns, ks, policy, rule),
        "system": system,
        "average": None if per_group else average,
        "names": None if per_group else names,
    }
    write_result(Result(result.what, result.frame, result.views, meta), output, output_format)
    say_diagnostics(evaluation, candidates)
    if report is not None:
        sys.stderr.write(f"report written to {report}\n")


def refuse_catalogue_per_system(metrics: Request | None) -> None:
    """Catalogue-level metrics describe one system's lists together: with ``--system`` the
    command that evaluates each system on its own is ``rankk compare``."""
    from polars_rankk.core.metrics.registry import METRICS, REGISTRY

    asked = {m.metric for m in metrics.measures} if metrics is not None else set()
    catalogue = [name for name in METRICS if name in asked and REGISTRY[name].kind == "catalogue"]
    if catalogue:
        raise ValueError(
            f"--metrics {','.join(catalogue)}: catalogue-level metrics describe one system's "
            f"lists together, so --system cannot pool them; compare the systems instead "
            f"(rankk compare FILE --system COLUMN --truth TRUTH ...), which gives each "
            f"system its own"
        )


def settings(
    columns: Columns, ks: list[int], policy: Policy, documents: DocumentRule | None = None
) -> dict[str, object]:
    """The choices recorded with a JSON result (`documents`: the rule the runs' passages
    were collapsed by)."""
    order = {"rank": columns.rank} if columns.rank is not None else {"score": columns.order}
    return {
        "group_by": columns.keys,
        "item": columns.item,
        **order,
        "relevance": columns.relevance,
        "k": ks,
        "policy": policy.to_dict(),
        "documents": None if documents is None else documents.to_dict(),
    }


def summary_table(
    evaluation: Evaluation,
    average: Average,
    *,
    ci: bool,
    n_resamples: int,
    seed: int,
    names: Names = "canonical",
) -> pl.DataFrame:
    """The summary, with bootstrap intervals when asked, then the catalogue-level figures
    (coverage, gini, entropy, personalization: one value each, no groups); its metrics named
    as `names` asks (`Evaluation.summary`)."""
    if names != "canonical":
        table = evaluation.summary(average=average, names=names)
        if not ci:
            return table
        # The intervals are found by canonical (metric, k); the rows keep one order.
        canonical = summary_table(evaluation, average, ci=ci, n_resamples=n_resamples, seed=seed)
        return table.with_columns(canonical.select("ci_low", "ci_high"))
    table = evaluation.summary(average=average)
    if not ci:
        return table
    from polars_rankk.stats import bootstrap
    from polars_rankk.stats.systems import for_systems

    keys = ["metric", "k"]
    if evaluation.system is None:
        intervals = bootstrap(evaluation, n_resamples=n_resamples, seed=seed)
    else:
        keys.insert(0, evaluation.system)
        intervals = for_systems(
            evaluation.by_system(), bootstrap, n_resamples=n_resamples, seed=seed
        ).rename({"system": evaluation.system})
    return table.join(
        intervals.select(*keys, "ci_low", "ci_high"),
        on=keys,
        how="left",
        nulls_equal=True,
        maintain_order="left",
    )


def summary_result(table: pl.DataFrame, title: str) -> Result:
    """The summary as data and as a table for people (metric, k, value, CI, groups)."""
    leading = table.columns[: table.columns.index("metric")]
    cells = [
        *(plain(pl.col(c)) for c in leading),
        plain(pl.col("metric")),
        plain(pl.col("k")),
        fixed(pl.col("value")),
    ]
    if "ci_low" in table.columns:
        interval = pl.format("[{}, {}]", fixed(pl.col("ci_low")), fixed(pl.col("ci_high")))
        cells.append(pl.when(pl.col("ci_low").is_null()).then(pl.lit("")).otherwise(interval))
    ci_name = ["CI"] if "ci_low" in table.columns else []
    names = [*leading, "metric", "k", "value", *ci_name, "groups"]
    cells.append(plain(pl.col("n_groups")))
    view = View(
        title,
        table.select(cell.alias(name) for cell, name in zip(cells, names, strict=True)),
        right=frozenset(names) - {"metric", *leading},
    )
    return Result("summary", table, [view], {})


def per_group_result(evaluation: Evaluation, candidates: Path) -> Result:
    """Every per-group row, in full."""
    table = evaluation.per_group
    assert isinstance(table, pl.DataFrame)  # evaluate_run's inputs are eager
    title = f"{candidates.name} · per group ({count(table.height, 'row')})"
    return Result("per-group table", table, [frame_view(table, title)], {})


def write_report(
    evaluation: Evaluation,
    path: Path,
    candidates: Path,
    ks: list[int],
    *,
    ui_k: int | None,
    by: list[str] | None,
    attributes: pl.DataFrame | None,
    n_resamples: int,
    seed: int,
    say: Say,
    documents: DocumentRule | None = None,
) -> None:
    """The HTML report of this evaluation (`documents`: the rule its passages were collapsed
    by, recorded with the policy)."""
    from polars_rankk.reports import report

    report(
        {candidates.stem: evaluation} if evaluation.system is None else evaluation,
        path=path,
        k=ks,
        ui_k=ui_k,
        by=by,
        attributes=attributes,
        n_resamples=n_resamples,
        seed=seed,
        title=f"Ranking evaluation: {candidates.name}",
        progress=say,
        documents=documents,
    )
