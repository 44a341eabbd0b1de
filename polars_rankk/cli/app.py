"""The ``rankk`` command: evaluate, compare and report rankings from Parquet, CSV or TREC files.

::

    rankk evaluate CANDIDATES TRUTH --k 5,10 --group-by user
    rankk compare RUN_A RUN_B --truth qrels.txt --k 10 --baseline RUN_A
    rankk report RUN_A RUN_B --truth truth.parquet --group-by user --output report.html
    rankk counterfactual LOG CANDIDATES --group-by query --k 10 --estimator snips

Input formats follow the extension — ``.parquet``/``.pq``, ``.csv``, ``.tsv`` — and anything
else is read as TREC (a run for candidates, qrels for truth), unless ``--input-format`` says
otherwise. Output is a table on a terminal and CSV through a pipe, unless ``--format`` says
otherwise. Errors are one line on stderr with a non-zero exit status (2 for usage errors).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Annotated, Any

import polars as pl
import typer

from polars_rankk.cli.compare_command import compare
from polars_rankk.cli.counterfactual_command import counterfactual
from polars_rankk.cli.evaluate_command import evaluate
from polars_rankk.cli.inputs import warn
from polars_rankk.cli.report_command import report
from polars_rankk.cli.wording import in_cli_terms
from polars_rankk.core.metrics.registration import load_metric_entry_points
from polars_rankk.core.version import package_version

__all__ = ["application", "main"]

#: One short example per command, under ``rankk --help`` (``\b``: printed as written).
EXAMPLES = """\b
Examples:
  rankk evaluate run.parquet truth.parquet --group-by user --k 5,10
  rankk compare A=a.parquet B=b.parquet --truth truth.parquet --group-by user --k 10
  rankk report a.parquet b.parquet --truth truth.parquet --group-by user -o report.html
  rankk counterfactual log.parquet new.parquet --group-by query --k 10 --estimator ips,dr

Each command's options: rankk COMMAND --help. Beyond accuracy: --popularity FILE,
--item-features FILE and --catalogue FILE with --metrics novelty,coverage,...
"""

#: The typer application: the ``evaluate`` and ``compare`` commands and the global options.
application = typer.Typer(
    name="rankk",
    help="Top-K ranking metrics (precision, recall, nDCG, MAP, MRR …) computed with Polars, "
    "every definitional choice an explicit policy.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=EXAMPLES,
)


class _Command(typer.core.TyperCommand):
    """Usage lines that name the arguments plainly: ``CANDIDATES TRUTH``, ``RUN...``."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:  # typer's own click Context
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            for piece in param.get_usage_pieces(ctx):
                plain = re.sub(r"^\{(.*)\}((?:\.\.\.)?)$", r"\1\2", piece)
                # (Typer before 0.29 leaves the dots off an argument of several values.)
                several = getattr(param, "nargs", 1) != 1 and not plain.endswith("...")
                pieces.append(plain + "..." if several else plain)
        return pieces


application.command("evaluate", cls=_Command)(evaluate)
application.command("compare", cls=_Command)(compare)
application.command("report", cls=_Command)(report)
application.command("counterfactual", cls=_Command)(counterfactual)


def _show_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"rankk (polars-rankk) {package_version()}\n")
        raise typer.Exit()


def _load_metric_modules(modules: list[str] | None) -> list[str] | None:
    """Import each ``--metric-module``: a module that calls ``rk.register_metric``."""
    for module in modules or ():
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise typer.BadParameter(
                f"cannot import {module!r} ({error}); it must be importable from the current "
                f"directory or the Python path",
                param_hint="--metric-module",
            ) from None
    return modules


@application.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help="Print the version and exit.",
            callback=_show_version,
            is_eager=True,
        ),
    ] = False,
    metric_module: Annotated[
        list[str] | None,
        typer.Option(
            "--metric-module",
            metavar="MODULE",
            help="Import MODULE first (repeatable): a module that declares metrics with "
            "polars_rankk.register_metric, which --metrics may then name. Installed packages "
            "can declare theirs under the 'polars_rankk.metrics' entry point group instead.",
            callback=_load_metric_modules,
            is_eager=True,
        ),
    ] = None,
) -> None:
    """Top-K ranking metrics (precision, recall, nDCG, MAP, MRR …) computed with Polars,
    every definitional choice an explicit policy."""


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``rankk``: run the command, print errors as one line, set the exit code.

    Examples
    --------
    >>> from polars_rankk.cli import main
    >>> main(["--version"])
    rankk (polars-rankk) ...
    """
    command = typer.main.get_command(application)
    said: set[str] = set()

    def say_once(message: Warning | str, *_: object, **__: object) -> None:
        # A warning said twice (typing a name, then writing it back) is one line.
        if str(message) not in said:
            said.add(str(message))
            warn(str(message))

    with warnings.catch_warnings():
        # Every warning of the library is one line in option terms, as the command's own.
        warnings.showwarning = say_once
        _run(command, argv)


def _run(command: Any, argv: Sequence[str] | None) -> None:
    try:
        load_metric_entry_points()
        code = command.main(
            args=list(sys.argv[1:] if argv is None else argv),
            prog_name="rankk",
            standalone_mode=False,
        )
        if isinstance(code, int) and code != 0:  # a typer.Exit(code) inside a command
            raise SystemExit(code)
    except typer.Exit as done:
        raise SystemExit(done.exit_code) from None
    except typer.Abort:
        _fail("aborted", 130)
    except typer.exceptions.TyperException as error:
        format_message = getattr(error, "format_message", None)
        message = format_message() if callable(format_message) else str(error)
        code = int(getattr(error, "exit_code", 2))
        if type(error).__name__ == "NoArgsIsHelpError":  # a bare `rankk`: the help, as it is
            sys.stdout.write(message + "\n")
            raise SystemExit(code) from None
        _fail(message, code)
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
    line = in_cli_terms(" ".join(message.split())) or "failed"
    sys.stderr.write(f"rankk: error: {line}\n")
    raise SystemExit(code)
