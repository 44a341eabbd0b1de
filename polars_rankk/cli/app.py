"""The ``rankk`` command: evaluate and compare rankings from Parquet, CSV or TREC files.

::

    rankk evaluate CANDIDATES TRUTH --k 5,10 --group-by user --report report.html
    rankk compare RUN_A RUN_B --truth qrels.txt --k 10 --baseline RUN_A

Input formats follow the extension — ``.parquet``/``.pq``, ``.csv``, ``.tsv`` — and anything
else is read as TREC (a run for candidates, qrels for truth), unless ``--format`` says
otherwise. Errors are one line on stderr with a non-zero exit status (2 for usage errors).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import polars as pl
import typer
from rich.console import Console

from polars_rankk.cli.inputs import (
    InputFormat,
    OutputFormat,
    align_types,
    attributes_table,
    group_keys_for,
    parse_k,
    parse_runs,
    print_comparison,
    print_summary,
    print_wide,
    read_input,
    split_names,
    unique_name,
    write_output,
)
from polars_rankk.core.inputs import METRICS
from polars_rankk.core.policy import POLICY_HELP, Policy
from polars_rankk.core.types import (
    AveragePrecisionDenominator,
    DuplicatePolicy,
    EmptyTruthPolicy,
    GainPolicy,
    InvalidScorePolicy,
    MissingGroupPolicy,
    PoolPolicy,
    ShortListPolicy,
    TiePolicy,
)

__all__ = ["align_types", "app", "main", "parse_k", "read_input"]


_POLICIES = "Policies"
_COLUMNS = "Columns"
_OUTPUT = "Output"
_REPORT = "Report"

app = typer.Typer(
    name="rankk",
    help="Top-K ranking metrics (precision, recall, nDCG, MAP, MRR …) computed with Polars, "
    "every definitional choice an explicit policy.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class _Steps:
    """A spinner with the current step on stderr, only on an interactive terminal."""

    def __init__(self, console: Console, enabled: bool) -> None:
        self.console = console
        self.enabled = enabled

    @contextmanager
    def running(self) -> Iterator[Callable[[str], None]]:
        if not self.enabled:
            yield lambda _message: None
            return
        with self.console.status("starting …") as status:
            yield lambda message: status.update(f"{message} …")


def _progress_enabled(choice: bool | None, console: Console) -> bool:
    if choice is not None:
        return choice
    return bool(console.is_terminal and sys.stdout.isatty())


def _policy(
    trec_eval: bool,
    fields: dict[str, Any],
) -> Policy:
    given = {name: value for name, value in fields.items() if value is not None}
    return Policy.trec_eval(**given) if trec_eval else Policy(**given)


# Options shared by both commands -------------------------------------------------------------

KOption = Annotated[
    str,
    typer.Option(
        "--k", "-k", help="Cut-offs: a list (5,10,20), a range (1-20 or 1..20), or both (1-5,10)."
    ),
]
MetricsOption = Annotated[
    str | None, typer.Option(help=f"Comma-separated metrics (default all): {', '.join(METRICS)}.")
]
GroupByOption = Annotated[
    str | None,
    typer.Option(
        "--group-by",
        help="Group key column(s), comma-separated (default 'query' for TREC files).",
        rich_help_panel=_COLUMNS,
    ),
]
ItemOption = Annotated[str, typer.Option(help="Item column.", rich_help_panel=_COLUMNS)]
ScoreOption = Annotated[
    str, typer.Option(help="Score column (higher ranks first).", rich_help_panel=_COLUMNS)
]
RelevanceOption = Annotated[
    str,
    typer.Option(
        help="Relevance grade column of the truth (absent: every truth row is relevant).",
        rich_help_panel=_COLUMNS,
    ),
]
FormatOption = Annotated[
    InputFormat,
    typer.Option(
        "--format", help="Input format; auto: by extension (.parquet, .csv, .tsv), else TREC."
    ),
]
TrecEvalOption = Annotated[
    bool,
    typer.Option(
        "--trec-eval",
        help="Start from Policy.trec_eval() (reproduces trec_eval -c); other policy "
        "options override it.",
        rich_help_panel=_POLICIES,
    ),
]


def _policy_option(name: str) -> Any:
    """A ``--policy-field`` option whose help is the policy's line in POLICY_HELP."""
    return typer.Option(
        f"--{name.replace('_', '-')}",
        help=POLICY_HELP[name] + ".",
        rich_help_panel=_POLICIES,
        show_default=False,
    )


ShortLists = Annotated[ShortListPolicy | None, _policy_option("short_lists")]
ApDenominator = Annotated[AveragePrecisionDenominator | None, _policy_option("ap_denominator")]
Duplicates = Annotated[DuplicatePolicy | None, _policy_option("duplicates")]
Ties = Annotated[TiePolicy | None, _policy_option("ties")]
EmptyTruth = Annotated[EmptyTruthPolicy | None, _policy_option("empty_truth")]
MissingGroups = Annotated[MissingGroupPolicy | None, _policy_option("missing_groups")]
Pool = Annotated[PoolPolicy | None, _policy_option("pool")]
Threshold = Annotated[float | None, _policy_option("relevance_threshold")]
Gain = Annotated[GainPolicy | None, _policy_option("gain")]
InvalidScores = Annotated[InvalidScorePolicy | None, _policy_option("invalid_scores")]

OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the table here (format from .csv, .parquet, .json) instead of printing it.",
        rich_help_panel=_OUTPUT,
    ),
]
OutputFormatOption = Annotated[
    OutputFormat | None,
    typer.Option(
        "--output-format",
        help="table (terminal), csv, parquet or json; default: from --output, else table.",
        rich_help_panel=_OUTPUT,
    ),
]
ReportOption = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Also write a self-contained HTML report (opens offline).",
        rich_help_panel=_REPORT,
    ),
]
UiKOption = Annotated[
    int | None,
    typer.Option(
        "--ui-k",
        help="The K your product shows: marked on the report's K-curves.",
        rich_help_panel=_REPORT,
    ),
]
ByOption = Annotated[
    str | None,
    typer.Option(
        "--by",
        help="Stratum column(s) for the report, comma-separated (from --attributes, or a "
        "group key).",
        rich_help_panel=_REPORT,
    ),
]
AttributesOption = Annotated[
    Path | None,
    typer.Option(
        "--attributes",
        help="A table of group attributes (one row per group) holding the --by columns.",
        rich_help_panel=_REPORT,
    ),
]
ResamplesOption = Annotated[
    int,
    typer.Option(
        "--n-resamples",
        help="Bootstrap resamples for confidence intervals.",
        rich_help_panel=_REPORT,
    ),
]
SeedOption = Annotated[
    int, typer.Option(help="Random seed of the bootstrap.", rich_help_panel=_REPORT)
]
ProgressOption = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress",
        help="Show progress on stderr (default: only on a terminal, and not when output is piped).",
        show_default=False,
    ),
]


@app.command()
def evaluate(
    candidates: Annotated[
        Path,
        typer.Argument(
            help="Ranked candidates: Parquet, CSV, TSV or a TREC run.", show_default=False
        ),
    ],
    truth: Annotated[
        Path,
        typer.Argument(help="Judged items: Parquet, CSV, TSV or TREC qrels.", show_default=False),
    ],
    k: KOption = "5,10,20",
    metrics: MetricsOption = None,
    group_by: GroupByOption = None,
    item: ItemOption = "item",
    score: ScoreOption = "score",
    relevance: RelevanceOption = "relevance",
    input_format: FormatOption = "auto",
    trec_eval: TrecEvalOption = False,
    short_lists: ShortLists = None,
    ap_denominator: ApDenominator = None,
    duplicates: Duplicates = None,
    ties: Ties = None,
    empty_truth: EmptyTruth = None,
    missing_groups: MissingGroups = None,
    pool: Pool = None,
    relevance_threshold: Threshold = None,
    gain: Gain = None,
    invalid_scores: InvalidScores = None,
    average: Annotated[
        Literal["macro", "micro"],
        typer.Option(
            help="macro: mean of per-group values; micro: ratio of summed counts (count-based "
            "metrics only).",
            rich_help_panel=_OUTPUT,
        ),
    ] = "macro",
    per_group: Annotated[
        bool,
        typer.Option(
            "--per-group",
            help="Output one row per (group, metric, k) instead of the summary.",
            rich_help_panel=_OUTPUT,
        ),
    ] = False,
    ci: Annotated[
        bool,
        typer.Option(
            "--ci",
            help="Add bootstrap confidence intervals to the summary (resampling groups).",
            rich_help_panel=_OUTPUT,
        ),
    ] = False,
    output: OutputOption = None,
    output_format: OutputFormatOption = None,
    report: ReportOption = None,
    ui_k: UiKOption = None,
    by: ByOption = None,
    attributes: AttributesOption = None,
    n_resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
    progress: ProgressOption = None,
) -> None:
    """Evaluate one ranking (CANDIDATES) against TRUTH and print or save the metrics."""
    import polars_rankk as rk

    console = Console()
    errors = Console(stderr=True)
    ks = parse_k(k)
    keys = group_keys_for(group_by, [candidates, truth], input_format)
    policy = _policy(
        trec_eval,
        {
            "short_lists": short_lists,
            "ap_denominator": ap_denominator,
            "duplicates": duplicates,
            "ties": ties,
            "empty_truth": empty_truth,
            "missing_groups": missing_groups,
            "pool": pool,
            "relevance_threshold": relevance_threshold,
            "gain": gain,
            "invalid_scores": invalid_scores,
        },
    )
    columns = {"group_by": keys, "item": item, "score": score, "relevance": relevance}
    steps = _Steps(errors, _progress_enabled(progress, errors))
    with steps.running() as say:
        say("reading candidates")
        cand = read_input(candidates, "run", input_format, **columns)  # type: ignore[arg-type]
        say("reading truth")
        judged = read_input(truth, "qrels", input_format, **columns)  # type: ignore[arg-type]
        extra = attributes_table(attributes)
        cand, judged, *rest = align_types(
            [cand, judged, *([] if extra is None else [extra])], [*keys, item]
        )
        say("evaluating")
        result = rk.evaluate(
            cand,
            judged,
            k=ks,
            metrics=split_names(metrics),
            group_by=keys,
            item=item,
            score=score,
            relevance=relevance,
            policy=policy,
        )
        say("summarising")
        if per_group:
            table = result.per_group
            assert isinstance(table, pl.DataFrame)
        else:
            table = result.summary(average=average)
            if ci:
                from polars_rankk.stats.resampling import bootstrap

                intervals = bootstrap(result, n_resamples=n_resamples, seed=seed)
                table = table.join(
                    intervals.select("metric", "k", "ci_low", "ci_high"),
                    on=["metric", "k"],
                    how="left",
                    nulls_equal=True,
                )
        if report is not None:
            from polars_rankk.reports.document import report as write_report

            report_ks = [x for x in ks if x <= max(ks)]
            write_report(
                {candidates.stem: result},
                path=report,
                k=report_ks,
                ui_k=ui_k,
                by=split_names(by),
                attributes=rest[0] if rest else None,
                n_resamples=n_resamples,
                seed=seed,
                title=f"Ranking evaluation: {candidates.name}",
                progress=say,
            )
    meta = {
        "candidates": str(candidates),
        "truth": str(truth),
        "group_by": keys,
        "k": ks,
        "average": average,
        "policy": policy.to_dict(),
    }
    write_output(
        table,
        output,
        output_format,
        meta,
        lambda: (
            print_summary(console, table, f"{candidates.name} · {average} mean")
            if not per_group
            else console.print(table)
        ),
    )
    if report is not None:
        errors.print(f"report written to {report}", highlight=False)


@app.command()
def compare(
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Two or more runs, each PATH or NAME=PATH (name defaults to the file name "
            "without extension). One file with --system-column holds several systems.",
            show_default=False,
        ),
    ],
    truth: Annotated[
        Path,
        typer.Option(
            "--truth",
            "-t",
            help="Judged items: Parquet, CSV, TSV or TREC qrels.",
            show_default=False,
        ),
    ],
    baseline: Annotated[
        str | None,
        typer.Option(help="The system the others are compared with (default the first)."),
    ] = None,
    system_column: Annotated[
        str | None,
        typer.Option(
            "--system-column",
            help="A column naming each row's system, to split one file into several systems.",
            rich_help_panel=_COLUMNS,
        ),
    ] = None,
    k: KOption = "5,10,20",
    metrics: MetricsOption = None,
    group_by: GroupByOption = None,
    item: ItemOption = "item",
    score: ScoreOption = "score",
    relevance: RelevanceOption = "relevance",
    input_format: FormatOption = "auto",
    trec_eval: TrecEvalOption = False,
    short_lists: ShortLists = None,
    ap_denominator: ApDenominator = None,
    duplicates: Duplicates = None,
    ties: Ties = None,
    empty_truth: EmptyTruth = None,
    missing_groups: MissingGroups = None,
    pool: Pool = None,
    relevance_threshold: Threshold = None,
    gain: Gain = None,
    invalid_scores: InvalidScores = None,
    output: OutputOption = None,
    output_format: OutputFormatOption = None,
    report: ReportOption = None,
    ui_k: UiKOption = None,
    by: ByOption = None,
    attributes: AttributesOption = None,
    n_resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
    progress: ProgressOption = None,
) -> None:
    """Compare several runs against one TRUTH: means per system, paired differences and tests."""
    from polars_rankk.stats.comparison import compare as compare_systems
    from polars_rankk.stats.curves import evaluate_systems

    console = Console()
    errors = Console(stderr=True)
    ks = parse_k(k)
    paths = parse_runs(runs)
    keys = group_keys_for(group_by, [*paths.values(), truth], input_format)
    policy = _policy(
        trec_eval,
        {
            "short_lists": short_lists,
            "ap_denominator": ap_denominator,
            "duplicates": duplicates,
            "ties": ties,
            "empty_truth": empty_truth,
            "missing_groups": missing_groups,
            "pool": pool,
            "relevance_threshold": relevance_threshold,
            "gain": gain,
            "invalid_scores": invalid_scores,
        },
    )
    columns = {"group_by": keys, "item": item, "score": score, "relevance": relevance}
    steps = _Steps(errors, _progress_enabled(progress, errors))
    with steps.running() as say:
        frames: dict[str, pl.DataFrame] = {}
        for name, path in paths.items():
            say(f"reading {name}")
            frame = read_input(path, "run", input_format, **columns)  # type: ignore[arg-type]
            if system_column is not None:
                if system_column not in frame.columns:
                    raise ValueError(f"{path}: no column {system_column!r} (--system-column)")
                for (label,), part in frame.partition_by(
                    system_column, as_dict=True, maintain_order=True
                ).items():
                    frames[unique_name(str(label), frames)] = part.drop(system_column)
            else:
                frames[name] = frame
        if len(frames) < 2:
            raise ValueError("compare needs at least two systems (runs, or --system-column)")
        if baseline is not None and baseline not in frames:
            raise ValueError(f"--baseline {baseline!r} is not one of {list(frames)}")
        say("reading truth")
        judged = read_input(truth, "qrels", input_format, **columns)  # type: ignore[arg-type]
        extra = attributes_table(attributes)
        system_names = list(frames)
        aligned = align_types(
            [*frames.values(), judged, *([] if extra is None else [extra])], [*keys, item]
        )
        frames = dict(zip(system_names, aligned[: len(system_names)], strict=True))
        judged = aligned[len(system_names)]
        extra = aligned[len(system_names) + 1] if extra is not None else None
        say("evaluating")
        evaluations = evaluate_systems(
            frames,
            judged,
            k=range(1, max(ks) + 1) if report is not None else ks,
            metrics=split_names(metrics),
            group_by=keys,
            item=item,
            score=score,
            relevance=relevance,
            policy=policy,
        )
        chosen = {
            name: ev.per_group.lazy().filter(pl.col("k").is_in(ks) | pl.col("k").is_null())
            for name, ev in evaluations.items()
        }
        say("summarising")
        from polars_rankk.core.aggregate import macro

        summaries = [
            macro(per_group).select(pl.lit(name).alias("system"), pl.all())
            for name, per_group in chosen.items()
        ]
        summary = pl.concat(summaries)
        say("comparing")
        reference = baseline if baseline is not None else next(iter(frames))
        cmp = compare_systems(
            chosen, baseline=reference, n_resamples=n_resamples, seed=seed, group_keys=keys
        )
        if report is not None:
            from polars_rankk.reports.document import render_evaluations

            say("writing the report")
            page = render_evaluations(
                evaluations,
                k=ks,
                by=split_names(by),
                attributes=extra,
                baseline=reference,
                ui_k=ui_k,
                n_resamples=n_resamples,
                seed=seed,
                title="Ranking comparison",
                progress=say,
            )
            report.write_text(page, encoding="utf-8")
    wide = summary.with_columns(
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("metric")
    ).pivot(on="system", index="metric", values="value", maintain_order=True)
    meta = {
        "truth": str(truth),
        "runs": {n: str(p) for n, p in paths.items()},
        "baseline": reference,
        "group_by": keys,
        "k": ks,
        "policy": policy.to_dict(),
    }

    def show() -> None:
        print_wide(console, wide, f"Mean over groups vs {truth.name}")
        print_comparison(console, cmp, reference)

    write_output(cmp, output, output_format, meta, show)
    if report is not None:
        errors.print(f"report written to {report}", highlight=False)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``rankk``: run the command, print errors as one line, set the exit code."""
    command = typer.main.get_command(app)
    try:
        command.main(
            args=list(sys.argv[1:] if argv is None else argv),
            prog_name="rankk",
            standalone_mode=False,
        )
    except typer.Exit as done:
        raise SystemExit(done.exit_code) from None
    except typer.Abort:
        _fail("aborted", 130)
    except typer.exceptions.TyperException as error:
        format_message = getattr(error, "format_message", None)
        message = format_message() if callable(format_message) else str(error)
        _fail(message, int(getattr(error, "exit_code", 2)))
    except (
        ValueError,
        TypeError,
        OSError,
        KeyError,
        ImportError,
        pl.exceptions.PolarsError,
        json.JSONDecodeError,
    ) as error:
        _fail(str(error), 1)
    except KeyboardInterrupt:
        _fail("interrupted", 130)


def _fail(message: str, code: int) -> None:
    line = " ".join(message.split()) or "failed"
    sys.stderr.write(f"rankk: error: {line}\n")
    raise SystemExit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
