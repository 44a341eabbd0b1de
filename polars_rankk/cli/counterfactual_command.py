"""``rankk counterfactual LOG CANDIDATES``: a new ranking's expected reward@K estimated from a
click log (`polars_rankk.evaluate_counterfactual`)."""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
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
        help="What was shown and clicked: group keys, item, position, the reward column "
        "(Parquet, CSV, TSV).",
        show_default=False,
    ),
]
CandidatesArgument = Annotated[
    Path,
    typer.Argument(
        metavar="CANDIDATES",
        help="The new policy: group keys, item and score (a ranking), position and "
        "probability (--probability), or score and draw id (--sample) (Parquet, CSV, TSV).",
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
    position: Annotated[
        str, _column("The log's position column (from 1; Open Bandit Pipeline's from 0: add 1).")
    ] = "position",
    reward: Annotated[
        str, _column("The log's reward column: a click 0/1 or a graded reward.")
    ] = "click",
    propensity: Annotated[
        str | None,
        _column("The log's logging-probability column (Open Bandit Pipeline's pscore)."),
    ] = None,
    pscore: Annotated[str | None, _column("Open Bandit Pipeline's name for --propensity.")] = None,
    impression: Annotated[
        str | None, _column("The log's impression column: one logged list of a group.")
    ] = None,
    probability: Annotated[
        str | None,
        _column(
            "The new policy as marginals: the candidates' probability of each (group, item, "
            "position), each position's summing to 1 (Open Bandit Pipeline's action_dist)."
        ),
    ] = None,
    sample: Annotated[
        str | None,
        _column("The new policy as draws: the candidates' draw id, one ranking per draw."),
    ] = None,
    reward_model: Annotated[str | None, _column("The candidates' predicted reward.")] = None,
    clip: Annotated[float | None, typer.Option(help="Cap on the importance weights.")] = None,
    n_resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
    input_format: InputFormatOption = "auto",
    output: OutputOption = None,
    output_format: FormatOption = None,
) -> None:
    """Estimate from a click LOG the expected reward@K of the new policy in CANDIDATES (a
    ranking by score, marginals with --probability, or draws with --sample), per estimator,
    with bootstrap intervals over groups (over impressions for one group); warnings for
    unsupported rankings."""
    # Only here: the estimators' bootstrap loads NumPy, which the command's start-up does not.
    from polars_rankk.counterfactual import CounterfactualWarning, evaluate_counterfactual

    keys = group_keys_for(group_by, [log, candidates], input_format)
    columns = Columns(keys, item, score, None, reward)
    logged = read_source(log, "log", "table", input_format, columns)
    ranked = read_source(candidates, "candidates", "table", input_format, columns)
    with warnings.catch_warnings(record=True) as caught, _option_names():
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
            pscore=pscore,
            probability=probability,
            sample=sample,
            reward_model=reward_model,
            impression=impression,
            clip=clip,
            n_bootstrap=n_resamples,
            seed=seed,
        )
    for warning in caught:
        warn(str(warning.message))
    summary = result.summary()
    views = [
        frame_view(summary, f"Expected reward@{k} of the new ranking ({click_model})"),
        frame_view(result.per_position, "Expected reward per position"),
    ]
    meta = {"k": k, "click_model": click_model, "diagnostics": vars(result.diagnostics)}
    write_result(Result("counterfactual", summary, views, meta), output, output_format)


@contextlib.contextmanager
def _option_names() -> Iterator[None]:
    """The library's errors with its arguments named as this command's options
    (``reward=`` as ``--reward``)."""
    try:
        yield
    except ValueError as error:
        text = re.sub(
            r"\b([a-z_]+)=(?=[\s;),]|$)",
            lambda match: "--" + match.group(1).replace("_", "-"),
            str(error),
        )
        raise ValueError(text) from None


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
