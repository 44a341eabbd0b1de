"""What both commands do: progress on stderr, the column names, and evaluating one run with
errors that name its files."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from polars_rankk.cli.inputs import (
    Columns,
    Source,
    check_candidates,
    check_truth,
    read_source,
    reconcile_ids,
    refuse_pooled_systems,
    warn,
    warn_unmatched,
    warn_unused_grades,
)
from polars_rankk.cli.options import InputFormat
from polars_rankk.core import Evaluation, evaluate
from polars_rankk.core.evaluation.pipeline import say_where_the_data_differ
from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.inputs.spec import IgnoredColumnWarning
from polars_rankk.core.names.plan import Plan

Say = Callable[[str], None]


@contextmanager
def progress_steps(choice: bool | None) -> Iterator[Say]:
    """A spinner with the current step on stderr; by default only when both stdout and
    stderr are terminals, so that a pipe or a log never receives escape codes."""
    enabled = choice if choice is not None else sys.stdout.isatty() and sys.stderr.isatty()
    if not enabled:
        yield lambda _message: None
        return
    from rich.console import Console

    with Console(stderr=True).status("starting …") as status:
        yield lambda message: status.update(f"{message} …")


def column_names(
    group_keys: list[str], item: str, score: str | None, rank: str | None, relevance: str
) -> Columns:
    """The columns, refusing ``--score`` together with ``--rank``."""
    if score is not None and rank is not None:
        raise typer.BadParameter(
            "give --score (higher first) or --rank (lower first), not both",
            param_hint="--rank",
        )
    return Columns(
        keys=group_keys,
        item=item,
        score=score if rank is None else None,
        rank=rank,
        relevance=relevance,
    )


def read_truth(path: Path, chosen: InputFormat, columns: Columns) -> Source:
    """The truth file, checked for its key and item columns."""
    truth = read_source(path, "TRUTH", "qrels", chosen, columns)
    check_truth(truth, columns)
    return truth


def prepare_runs(
    runs: Sequence[Source],
    truth: Source,
    attributes: Source | None,
    columns: Columns,
    *,
    system: str | None = None,
    system_option: str = "--system",
) -> tuple[list[Source], Source, Source | None]:
    """Check every run against the truth, align id types across the files, warn when a run
    and the truth share no id, and refuse to pool systems that `system` does not name."""
    for run in runs:
        check_candidates(run, truth, columns)
        if system is None:
            refuse_pooled_systems(run, columns, system_option)
        elif system not in run.frame.columns:
            raise ValueError(
                f"{run.label} has no column {system!r} ({system_option}); its columns are "
                f"{run.frame.columns}"
            )
    warn_unused_grades(truth, columns, runs)
    ids = [*columns.keys, columns.item]
    extra = [] if attributes is None else [attributes]
    aligned = reconcile_ids([*runs, truth, *extra], ids)
    runs, truth = aligned[: len(runs)], aligned[len(runs)]
    for run in runs:
        warn_unmatched(run, truth, columns)
    return runs, truth, (aligned[-1] if attributes is not None else None)


def evaluate_run(
    run: Source,
    truth: Source,
    columns: Columns,
    *,
    plan: Plan,
    items: Mapping[str, Any] | None = None,
    system: str | None = None,
    said: Sequence[warnings.WarningMessage] = (),
) -> Evaluation:
    """`polars_rankk.evaluate` of the command's `plan` on two files (and the item tables of
    the beyond-accuracy metrics, `items`); an error says which files it is about. The
    warnings `said` (caught while the plan was made) are said once the result is in: a
    tool-name warning only where these files make the tool's number differ."""
    with naming(f"candidates: {run.path}; truth: {truth.path}"), warnings.catch_warnings():
        # The command has said what the library would warn about, in its own words.
        warnings.simplefilter("ignore", IgnoredColumnWarning)
        # How the files are read: the same for the evaluation and for the check of `said`.
        reading: dict[str, Any] = {
            "group_by": columns.keys,
            "item": columns.item,
            "score": columns.score or "score",
            "rank": columns.rank,
            "relevance": columns.relevance,
            "system": system,
            "subtopic": columns.subtopic,
            **(items or {}),
        }
        # Lazy, then collected: the per-group sums and the diagnostics the command prints come
        # from one collect_all, whose queries share their common sub-plans and run side by side.
        lazy = evaluate(run.frame.lazy(), truth.frame.lazy(), metrics=plan, **reading)
        found = lazy.collect()
        if said:
            inputs = Inputs(run.frame, truth.frame, **reading)
            say_where_the_data_differ(said, plan, inputs)
        return found


def say_diagnostics(evaluation: Evaluation, where: str | Path) -> None:
    """What the evaluation did to the inputs, on stderr, one line each: duplicates removed,
    groups each policy dropped, groups only in the candidates, relevant items never
    retrieved."""
    from polars_rankk.core.evaluation.display import actions_of

    for found in actions_of(evaluation):
        warn(f"{where}: {found}")


@contextmanager
def naming(where: str) -> Iterator[None]:
    """Add `where` (the files involved) to a ValueError or TypeError raised inside, since the
    library's errors speak of its arguments (``candidates``, ``attributes``), not of files."""
    try:
        yield
    except (ValueError, TypeError) as error:
        kind = ValueError if isinstance(error, ValueError) else TypeError
        raise kind(f"{error} [{where}]") from None


def report_files(report: Path, attributes: Source | None) -> str:
    """The files a report involves, for `naming`."""
    return f"report: {report}" + ("" if attributes is None else f"; attributes: {attributes.path}")
