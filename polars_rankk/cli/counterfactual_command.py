"""``rankk counterfactual LOG CANDIDATES``: a new ranking's expected reward@K estimated from a
click log (`polars_rankk.evaluate_counterfactual`)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Any, Literal

import polars as pl
import typer

from polars_rankk.cli.inputs import Columns, group_keys_for, read_source, warn
from polars_rankk.cli.options import (
    COLUMNS,
    FormatOption,
    GroupByOption,
    InputFormatOption,
    ItemOption,
    OutputOption,
    ResamplesOption,
    SeedOption,
    split_names,
)
from polars_rankk.cli.output import Result, frame_view, write_result

LogArgument = Annotated[
    Path,
    typer.Argument(
        metavar="LOG",
        help="What was shown and clicked: group keys, item, position, reward (Parquet, CSV, TSV).",
        show_default=False,
    ),
]
CandidatesArgument = Annotated[
    Path,
    typer.Argument(
        metavar="CANDIDATES",
        help="The new ranking: group keys, item, score (Parquet, CSV, TSV).",
        show_default=False,
    ),
]
ClickModelOption = Annotated[
    Literal["pbm", "cascade", "item_position"],
    typer.Option("--click-model", help="pbm (position-based), cascade or item_position."),
]
EstimatorOption = Annotated[
    str,
    typer.Option(
        "--estimator",
        metavar="NAMES",
        help="Comma-separated: ips, snips, dr, naive, iips, rips, cascade_dr.",
    ),
]
ExaminationOption = Annotated[
    str | None,
    typer.Option(
        "--examination",
        metavar="VALUES|FILE",
        help="pbm: examination per position from 1, comma-separated, or a file with columns "
        "position and examination. Default: estimated from the log by regression EM.",
        show_default=False,
    ),
]


def _column(help_text: str) -> Any:  # typer's OptionInfo
    return typer.Option(metavar="COLUMN", help=help_text, rich_help_panel=COLUMNS)


def counterfactual(
    log: LogArgument,
    candidates: CandidatesArgument,
    group_by: GroupByOption = None,
    k: Annotated[int, typer.Option("--k", help="The cut-off K.")] = 10,
    click_model: ClickModelOption = "pbm",
    estimator: EstimatorOption = "snips",
    examination: ExaminationOption = None,
    item: ItemOption = "item",
    score: Annotated[str, _column("The candidates' score column.")] = "score",
    position: Annotated[str, _column("The log's position column (from 1).")] = "position",
    reward: Annotated[str, _column("The log's reward column (click 0/1 or graded).")] = "click",
    propensity: Annotated[str | None, _column("The log's propensity column.")] = None,
    impression: Annotated[str | None, _column("The log's impression column.")] = None,
    reward_model: Annotated[str | None, _column("The candidates' predicted reward.")] = None,
    clip: Annotated[float | None, typer.Option(help="Cap on the importance weights.")] = None,
    n_resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
    input_format: InputFormatOption = "auto",
    output: OutputOption = None,
    output_format: FormatOption = None,
) -> None:
    """Estimate from a click LOG the expected reward@K of the new ranking in CANDIDATES, per
    estimator, with bootstrap intervals over groups; warnings for unsupported rankings."""
    # Only here: the estimators' bootstrap loads NumPy, which the command's start-up does not.
    from polars_rankk.counterfactual import CounterfactualWarning, evaluate_counterfactual

    keys = group_keys_for(group_by, [log, candidates], input_format)
    columns = Columns(keys, item, score, None, reward)
    logged = read_source(log, "log", "table", input_format, columns)
    ranked = read_source(candidates, "candidates", "table", input_format, columns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CounterfactualWarning)
        result = evaluate_counterfactual(
            logged.frame,
            ranked.frame,
            group_by=keys,
            item=item,
            position=position,
            reward=reward,
            score=score,
            k=k,
            click_model=click_model,
            estimator=split_names(estimator) or ["snips"],
            examination=_examination(examination),
            propensity=propensity,
            reward_model=reward_model,
            impression=impression,
            clip=clip,
            n_bootstrap=n_resamples,
            seed=seed,
        )
    for warning in caught:
        warn(str(warning.message))
    summary = result.overall
    views = [
        frame_view(summary, f"Expected reward@{k} of the new ranking ({click_model})"),
        frame_view(result.per_position, "Expected reward per position"),
    ]
    meta = {"k": k, "click_model": click_model, "diagnostics": vars(result.diagnostics)}
    write_result(Result("counterfactual", summary, views, meta), output, output_format)


def _examination(given: str | None) -> pl.DataFrame | list[float] | None:
    """Comma-separated probabilities, or a table file with position and examination."""
    if given is None:
        return None
    path = Path(given)
    if path.is_file():
        return pl.read_parquet(path) if path.suffix in (".parquet", ".pq") else pl.read_csv(path)
    try:
        return [float(value) for value in given.split(",")]
    except ValueError:
        raise ValueError(
            f"--examination {given!r} is neither a file nor comma-separated probabilities"
        ) from None
