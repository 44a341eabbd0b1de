"""``rankk report RUN... --truth TRUTH``: the self-contained HTML report of one or more runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from polars_rankk.cli.compare_command import BaselineOption, TruthOption
from polars_rankk.cli.documents import DocumentOptions, with_document_options
from polars_rankk.cli.inputs import group_keys_for, parse_runs, read_attributes, read_source
from polars_rankk.cli.item_tables import ItemFiles, with_item_table_options
from polars_rankk.cli.options import (
    REPORT,
    AttributesOption,
    ByOption,
    GroupByOption,
    InputFormatOption,
    ItemOption,
    KOption,
    MetricsOption,
    ProgressOption,
    RankOption,
    RelevanceOption,
    ResamplesOption,
    ScoreOption,
    SeedOption,
    UiKOption,
    cli_plan,
    parse_metrics,
    split_names,
    with_policy_options,
)
from polars_rankk.cli.running import (
    column_names,
    evaluate_run,
    naming,
    prepare_runs,
    progress_steps,
    read_truth,
    report_files,
)
from polars_rankk.core import Evaluation, Policy

RunsArgument = Annotated[
    list[str],
    typer.Argument(
        metavar="RUN",
        help="One run or more, each PATH or NAME=PATH (name defaults to the file name "
        "without extension).",
        show_default=False,
    ),
]
ReportPathOption = Annotated[
    Path,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="The HTML file to write (one file, opens offline).",
        rich_help_panel=REPORT,
    ),
]


@with_policy_options
@with_item_table_options
@with_document_options
def report(
    runs: RunsArgument,
    truth: TruthOption,
    output: ReportPathOption = Path("report.html"),
    baseline: BaselineOption = None,
    k: KOption = "1,5,10,20",
    metrics: MetricsOption = None,
    group_by: GroupByOption = None,
    item: ItemOption = "item",
    score: ScoreOption = None,
    rank: RankOption = None,
    relevance: RelevanceOption = "relevance",
    input_format: InputFormatOption = "auto",
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
    """Write the HTML report of one run or more against TRUTH: summary with intervals,
    K-curves, distributions, strata, paired comparisons, diagnostics and the policy."""
    from polars_rankk.reports.document import render_evaluations

    # The report reads one policy: names asking for several are refused. P@5 adds K = 5.
    plan = cli_plan(parse_metrics(metrics), k, policy, one_policy=True)
    ks = list(plan.ks)
    paths = parse_runs(runs)
    if baseline is not None and baseline not in paths:
        raise ValueError(f"--baseline {baseline!r} is not one of {list(paths)}")
    keys = group_keys_for(group_by, [*paths.values(), truth], input_format)
    columns = column_names(keys, item, score, rank, relevance)
    with progress_steps(progress) as say:
        sources = []
        for name, path in paths.items():
            say(f"reading {name}")
            sources.append(read_source(path, f"run {name!r}", "run", input_format, columns))
        say("reading truth")
        judged = read_truth(truth, input_format, columns)
        extra = read_attributes(attributes, columns)
        sources, judged, rule = documents.apply(sources, judged, columns, policy)
        sources, judged, extra = prepare_runs(sources, judged, extra, columns)
        tables = items.read(sources, columns)
        evaluations: dict[str, Evaluation] = {}
        for name, source in zip(paths, sources, strict=True):
            say(f"evaluating {name}")
            evaluations[name] = evaluate_run(
                source,
                judged,
                columns,
                # The K-curves read every metric at every K up to the largest.
                plan=plan.at(range(1, max(ks) + 1), every_k=True),
                items=tables,
            )
        say("writing the report")
        with naming(report_files(output, extra)):
            page = render_evaluations(
                evaluations,
                k=ks,
                by=split_names(by),
                attributes=None if extra is None else extra.frame,
                baseline=baseline,
                ui_k=ui_k,
                n_resamples=n_resamples,
                seed=seed,
                title="Ranking evaluation: " + ", ".join(evaluations),
                progress=say,
                documents=rule,
            )
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page, encoding="utf-8")
    except OSError as error:
        raise OSError(f"{output}: cannot write the report ({error.strerror})") from None
    sys.stderr.write(f"report written to {output}\n")
