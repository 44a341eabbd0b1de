"""``rankk compare RUN RUN... --truth TRUTH``: several runs, paired differences and tests."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import polars as pl
import typer

from polars_rankk.cli.documents import DocumentOptions, with_document_options
from polars_rankk.cli.evaluate_command import settings
from polars_rankk.cli.inputs import (
    Columns,
    Source,
    group_keys_for,
    parse_runs,
    read_attributes,
    read_source,
    unique_name,
    warn,
)
from polars_rankk.cli.item_tables import ItemFiles, with_item_table_options
from polars_rankk.cli.options import (
    COLUMNS,
    AttributesOption,
    ByOption,
    FormatOption,
    GroupByOption,
    InputFormat,
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
    UiKOption,
    cli_plan_said_later,
    parse_metrics,
    split_names,
    with_policy_options,
)
from polars_rankk.cli.output import (
    Result,
    View,
    fixed,
    metric_label,
    p_text,
    plain,
    write_result,
)
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
from polars_rankk.core import Evaluation, Policy
from polars_rankk.core.evaluation.catalogue import SharedCatalogue
from polars_rankk.core.evaluation.display import shared_catalogue_line
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.names.request import Request

if TYPE_CHECKING:
    from polars_rankk.passages import DocumentRule

RunsArgument = Annotated[
    list[str],
    typer.Argument(
        metavar="RUN",
        help="Two or more runs, each PATH or NAME=PATH (name defaults to the file name "
        "without extension). One file with --system holds several systems.",
        show_default=False,
    ),
]
TruthOption = Annotated[
    Path,
    typer.Option(
        "--truth",
        "-t",
        metavar="TRUTH",
        help="Judged items: Parquet, CSV, TSV or TREC qrels.",
        show_default=False,
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        metavar="NAME", help="The system the others are compared with (default the first)."
    ),
]
SystemOption = Annotated[
    str | None,
    typer.Option(
        "--system",
        metavar="COLUMN",
        help="A column naming each row's system, to split one file into several systems.",
        rich_help_panel=COLUMNS,
    ),
]
#: The spelling before ``--system`` (as ``rankk evaluate`` names it), kept for one release.
SystemColumnOption = Annotated[
    str | None,
    typer.Option("--system-column", metavar="COLUMN", hidden=True),
]

FailIfWorseOption = Annotated[
    str | None,
    typer.Option(
        "--fail-if-worse",
        metavar="METRIC",
        help="Exit with status 1 when a system is reliably worse than the baseline on METRIC "
        "(e.g. ndcg@10): the 95% interval of the paired difference lies beyond --margin.",
    ),
]
MarginOption = Annotated[
    float,
    typer.Option("--margin", metavar="DELTA", min=0.0, help="The loss --fail-if-worse tolerates."),
]

Family = Literal["challengers", "all"]
FamilyOption = Annotated[
    Family,
    typer.Option(
        help="The p-values Holm-corrected together: the challengers of each metric@k "
        "(challengers), or every row of the table (all, stricter).",
    ),
]


@with_policy_options
@with_item_table_options
@with_document_options
def compare(
    runs: RunsArgument,
    truth: TruthOption,
    baseline: BaselineOption = None,
    system: SystemOption = None,
    system_column: SystemColumnOption = None,
    family: FamilyOption = "challengers",
    k: KOption = None,
    metrics: MetricsOption = None,
    group_by: GroupByOption = None,
    item: ItemOption = "item",
    score: ScoreOption = None,
    rank: RankOption = None,
    relevance: RelevanceOption = "relevance",
    input_format: InputFormatOption = "auto",
    output: OutputOption = None,
    output_format: FormatOption = None,
    report: ReportOption = None,
    ui_k: UiKOption = None,
    by: ByOption = None,
    attributes: AttributesOption = None,
    n_resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
    progress: ProgressOption = None,
    fail_if_worse: FailIfWorseOption = None,
    margin: MarginOption = 0.0,
    *,
    items: ItemFiles,
    documents: DocumentOptions,
    policy: Policy,
) -> None:
    """Compare several runs against one TRUTH: means per system, paired differences and tests."""
    from polars_rankk.stats import compare as compare_systems

    # Systems are compared under one policy: names asking for several are refused.
    chosen = gated_metrics(parse_metrics(metrics), fail_if_worse)
    plan, said = cli_plan_said_later(chosen, k, policy, one_policy=True)
    system = system_option(system, system_column)
    ks = list(plan.ks)  # P@5 adds K = 5
    paths = parse_runs(runs)
    keys = group_keys_for(group_by, [*paths.values(), truth], input_format)
    columns = column_names(keys, item, score, rank, relevance)
    with progress_steps(progress) as say:
        systems = read_systems(paths, system, input_format, columns, say)
        reference = choose_baseline(systems, baseline)
        say("reading truth")
        judged = read_truth(truth, input_format, columns)
        extra = read_attributes(attributes, columns)
        sources, judged, rule = documents.apply(list(systems.values()), judged, columns, policy)
        sources, judged, extra = prepare_runs(sources, judged, extra, columns)
        tables = items.read(sources, columns)
        # The report's K-curves read every K up to the largest.
        planned = plan.at(range(1, max(ks) + 1), every_k=True) if report is not None else plan
        evaluations = {
            name: _evaluated(name, source, judged, columns, planned, tables, said, say)
            for name, source in zip(systems, sources, strict=True)
        }
        _share_catalogue(evaluations, items.shared(sources, tables), planned)
        say("comparing")
        per_group = {name: at_cutoffs(value, ks) for name, value in evaluations.items()}
        means = system_means(evaluations, ks)
        comparison = compare_systems(
            per_group,
            baseline=reference,
            n_resamples=n_resamples,
            seed=seed,
            group_keys=keys,
            family=family,
        )
        comparison = with_catalogue_differences(comparison, evaluations, reference, ks)
        if report is not None:
            say("writing the report")
            with naming(report_files(report, extra)):
                write_report(
                    evaluations,
                    report,
                    ks,
                    baseline=reference,
                    ui_k=ui_k,
                    by=split_names(by),
                    attributes=None if extra is None else extra.frame,
                    n_resamples=n_resamples,
                    seed=seed,
                    say=say,
                    documents=rule,
                )
    meta = {
        "truth": str(truth),
        "runs": {name: str(source.path) for name, source in systems.items()},
        "baseline": reference,
        "family": family,
        **settings(columns, ks, policy, rule),
        "means": means.to_dicts(),
    }
    views = [
        means_view(means, f"Mean over groups vs {truth.name}"),
        differences_view(comparison, family),
    ]
    write_result(Result("comparison", comparison, views, meta), output, output_format)
    _say_diagnostics(evaluations, systems)
    if report is not None:
        sys.stderr.write(f"report written to {report}\n")
    apply_gate(comparison, fail_if_worse, margin)


def _evaluated(
    name: str,
    source: Source,
    judged: Source,
    columns: Columns,
    plan: Plan,
    tables: dict[str, Any],
    said: Sequence[warnings.WarningMessage],
    say: Callable[[str], None],
) -> Evaluation:
    """One run evaluated against the truth (`evaluate_run`), the step said first."""
    say(f"evaluating {name}")
    return evaluate_run(source, judged, columns, plan=plan, items=tables, said=said)


def _share_catalogue(
    evaluations: dict[str, Evaluation], shared: SharedCatalogue | None, plan: Plan
) -> None:
    """Record in each run's diagnostics the catalogue every run's catalogue metrics were
    measured against (`ItemFiles.shared`), when any is asked."""
    if shared is not None and any(part.beyond_catalogue for part in plan.parts):
        for evaluation in evaluations.values():
            evaluation.share_catalogue(shared)


def _say_diagnostics(evaluations: dict[str, Evaluation], systems: dict[str, Source]) -> None:
    """Each run's diagnostics on stderr, then the catalogue every run shares (one rule for
    every run, said once)."""
    for name, evaluation in evaluations.items():
        say_diagnostics(evaluation, f"{systems[name].path} ({name})")
    rule = shared_catalogue_line(next(iter(evaluations.values())).diagnostics.counts)
    if rule is not None:
        warn(rule)


def apply_gate(comparison: pl.DataFrame, gate: str | None, margin: float) -> None:
    """``--fail-if-worse``: one line on stderr, and exit status 1 when a system is reliably
    worse than the baseline on the gate's metric."""
    if gate is None:
        return
    from polars_rankk.stats.comparison import gate_verdict

    failed, line = gate_verdict(comparison, gate, margin=margin)
    sys.stderr.write(f"rankk compare: {line}\n")
    if failed:
        raise typer.Exit(1)


def gated_metrics(chosen: Request | None, gate: str | None) -> Request | None:
    """The metrics to evaluate: those asked for (or the defaults) and the gate's."""
    if gate is None:
        return chosen
    from polars_rankk.core.metrics.registry import DEFAULT_METRICS, REGISTRY

    try:
        gated = Request.of([gate.strip()])
    except ValueError as error:
        raise ValueError(f"--fail-if-worse: {error}") from None
    if len(gated.measures) != 1:
        raise ValueError(f"--fail-if-worse {gate!r} names several cut-offs; name one")
    request = gated.measures[0]
    if request.k is None and REGISTRY[request.metric].has_k:
        raise ValueError(f"--fail-if-worse {gate!r} needs a cut-off, e.g. {gate.strip()}@10")
    asked = chosen if chosen is not None else Request.of(list(DEFAULT_METRICS))
    return Request((*asked.asked, *gated.asked), default=False)


def system_option(system: str | None, system_column: str | None) -> str | None:
    """``--system``, or the deprecated ``--system-column`` with a warning naming the new one."""
    if system_column is None:
        return system
    if system is not None:
        raise typer.BadParameter(
            "give --system only (--system-column is its old spelling)", param_hint="--system"
        )
    warn("--system-column is deprecated and goes in the next release; use --system COLUMN")
    return system_column


def read_systems(
    paths: Mapping[str, Path],
    system_column: str | None,
    chosen: InputFormat,
    columns: Columns,
    say: Say,
) -> dict[str, Source]:
    """One source per system: a file each, or the parts of files split by `system_column`."""
    systems: dict[str, Source] = {}
    for name, path in paths.items():
        say(f"reading {name}")
        source = read_source(path, f"run {name!r}", "run", chosen, columns)
        if system_column is None:
            systems[name] = source
            continue
        if system_column not in source.frame.columns:
            raise ValueError(
                f"{source.label} has no column {system_column!r} (--system); its "
                f"columns are {source.frame.columns}"
            )
        parts = source.frame.partition_by(system_column, as_dict=True, maintain_order=True)
        for (label,), part in parts.items():
            systems[unique_name(str(label), systems)] = Source(
                path, f"system {str(label)!r}", part.drop(system_column), source.typed
            )
    if len(systems) < 2:
        raise ValueError("compare needs at least two systems (runs, or --system)")
    return systems


def choose_baseline(systems: Mapping[str, Source], baseline: str | None) -> str:
    """The system the others are compared with: `baseline`, else the first."""
    if baseline is None:
        return next(iter(systems))
    if baseline not in systems:
        raise ValueError(f"--baseline {baseline!r} is not one of {list(systems)}")
    return baseline


def at_cutoffs(evaluation: Evaluation, ks: list[int]) -> pl.LazyFrame:
    """The per-group values at the K asked for (and r_precision, which has no K)."""
    return evaluation.per_group.lazy().filter(cutoff_in(ks))


def cutoff_in(ks: list[int]) -> pl.Expr:
    """Rows at one of `ks`, and the rows of r_precision (no K)."""
    return pl.col("k").is_in(ks) | pl.col("k").is_null()


def system_means(evaluations: Mapping[str, Evaluation], ks: list[int]) -> pl.DataFrame:
    """One row per metric@k, one column per system: the mean over groups (and the
    catalogue-level figures)."""
    long = pl.concat(
        evaluation.summary()
        .filter(cutoff_in(ks))
        .select(pl.lit(name).alias("system"), "metric", "k", "value")
        for name, evaluation in evaluations.items()
    )
    return long.with_columns(metric_label()).pivot(
        on="system", index="metric", values="value", maintain_order=True
    )


def with_catalogue_differences(
    comparison: pl.DataFrame, evaluations: Mapping[str, Evaluation], baseline: str, ks: list[int]
) -> pl.DataFrame:
    """`comparison` and, for the catalogue-level metrics (coverage, gini, ...), one row per
    challenger (`catalogue_differences`)."""
    from polars_rankk.stats.catalogue_resampling import catalogue_differences

    pairs = [(baseline, name) for name in evaluations if name != baseline]
    rows = catalogue_differences(evaluations, pairs, ks)
    return comparison if rows is None else pl.concat([comparison, rows], how="diagonal_relaxed")


def means_view(means: pl.DataFrame, title: str) -> View:
    """The means with four decimals."""
    systems = means.columns[1:]
    cells = means.select(pl.col("metric"), *(fixed(pl.col(name)).alias(name) for name in systems))
    return View(title, cells, right=frozenset(systems))


def differences_view(comparison: pl.DataFrame, family: Family) -> View:
    """Paired differences: metric@k, system, diff, CI, p, adjusted p, how p was computed,
    groups."""
    interval = pl.format(
        "[{}, {}]", fixed(pl.col("ci_low"), signed=True), fixed(pl.col("ci_high"), signed=True)
    )
    method = (
        pl.when(pl.col("p_value_method") == "monte_carlo")
        .then(pl.format("Monte Carlo, B={}", pl.col("n_permutations")))
        .when(pl.col("p_value_method").is_null())
        .then(pl.lit("one figure each: no test"))
        .otherwise(pl.col("p_value_method").str.replace_all("_", " "))
    )
    cells = comparison.select(
        metric_label(),
        plain(pl.col("system")),
        fixed(pl.col("diff"), signed=True).alias("diff"),
        pl.when(pl.col("ci_low").is_null()).then(pl.lit("")).otherwise(interval).alias("CI"),
        p_text(pl.col("p_value_randomization")).alias("p"),
        p_text(pl.col("p_adjusted")).alias("p adj."),
        plain(method).alias("p from"),
        plain(pl.col("n_groups")).alias("groups"),
    )
    baseline = comparison.get_column("baseline")[0] if comparison.height else ""
    adjusted = "within each metric@k" if family == "challengers" else "over all rows"
    return View(
        f"Paired differences vs {baseline} (system − baseline)",
        cells,
        right=frozenset(cells.columns) - {"metric", "system", "p from"},
        note=f"p: paired randomization test; p adj.: Holm-corrected {adjusted}",
    )


def write_report(
    evaluations: Mapping[str, Evaluation],
    path: Path,
    ks: list[int],
    *,
    baseline: str,
    ui_k: int | None,
    by: list[str] | None,
    attributes: pl.DataFrame | None,
    n_resamples: int,
    seed: int,
    say: Say,
    documents: DocumentRule | None = None,
) -> None:
    """The HTML report of the comparison (`documents`: the rule its runs' passages were
    collapsed by, recorded with the policy)."""
    from polars_rankk.reports import render_evaluations

    page = render_evaluations(
        evaluations,
        k=ks,
        by=by,
        attributes=attributes,
        baseline=baseline,
        ui_k=ui_k,
        n_resamples=n_resamples,
        seed=seed,
        title="Ranking comparison",
        progress=say,
        documents=documents,
    )
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as error:
        raise OSError(f"{path}: cannot write the report ({error.strerror})") from None
