"""The options both commands share, the policy options built from `Policy`, and their parsers."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import typing
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from polars_rankk.core import METRICS, POLICY_HELP, Policy
from polars_rankk.core.metrics.registry import DEFAULT_METRICS
from polars_rankk.core.names.parse import split_metric_list
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.names.request import Request
from polars_rankk.core.policy import parse_gains

InputFormat = Literal["auto", "parquet", "csv", "tsv", "trec"]
OutputFormat = Literal["table", "csv", "json", "markdown", "parquet"]

POLICIES = "Policies"
COLUMNS = "Columns"
OUTPUT = "Output"
REPORT = "Report"


def parse_k(text: str) -> list[int]:
    """Parse ``--k``: a list (``5,10,20``), a range (``1-20`` or ``1..20``), or both.

    Examples
    --------
    >>> from polars_rankk.cli.options import parse_k
    >>> parse_k("1-3,10")
    [1, 2, 3, 10]
    >>> parse_k("10, 5")
    [5, 10]
    >>> parse_k("0")
    Traceback (most recent call last):
    ...
    ValueError: --k takes positive integers, lists (5,10) and ranges (1-20); got '0'
    """
    values: set[int] = set()
    for part in text.split(","):
        piece = part.strip()
        match = re.fullmatch(r"(\d+)\s*(?:-|\.\.)\s*(\d+)", piece)
        if match:
            low, high = int(match.group(1)), int(match.group(2))
            if low < 1 or high < low:
                raise ValueError(f"--k range {piece!r} must be 1 <= low <= high")
            values.update(range(low, high + 1))
        elif piece.isdigit() and int(piece) >= 1:
            values.add(int(piece))
        else:
            raise ValueError(
                f"--k takes positive integers, lists (5,10) and ranges (1-20); got {text!r}"
            )
    return sorted(values)


def split_names(text: str | None) -> list[str] | None:
    """Comma-separated names as a list (``None`` when none are given).

    Examples
    --------
    >>> from polars_rankk.cli.options import split_names
    >>> split_names("user, day")
    ['user', 'day']
    >>> split_names(None) is None
    True
    """
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    return names or None


def parse_metrics(text: str | Request | None) -> Request | None:
    """Parse ``--metrics`` into the request every step of the command reads: canonical names
    and the ir_measures / trec_eval spellings the core accepts (``P@5``,
    ``nDCG(judged_only=True)@10``, ``ndcg_cut_10``: docs/metric_names.md), kept as typed beside
    their cut-offs and parameters (``None``: the default metrics). Commas inside a name stay in
    it (``RBP(p=0.9,rel=1)@3``, ``P.5,10``). A request already parsed is returned as it is.

    Examples
    --------
    >>> from polars_rankk.cli.options import parse_metrics
    >>> list(parse_metrics("ndcg,recall"))
    ['ndcg', 'recall']
    >>> list(parse_metrics("P@5, ndcg_cut_10,Bpref"))
    ['P@5', 'ndcg_cut_10', 'Bpref']
    >>> list(parse_metrics("P.5,10,nDCG(gains={0:1,1:4}),RBP(p=0.9,rel=1)@3"))
    ['P.5,10', 'nDCG(gains={0:1,1:4})', 'RBP(p=0.9,rel=1)@3']
    >>> parse_metrics("accuracy")
    Traceback (most recent call last):
    ...
    ValueError: --metrics: unknown metric 'accuracy'; choose among precision, recall, ...
    """
    if text is None or isinstance(text, Request):
        return text
    names = split_metric_list(text)
    if not names:
        return None
    unknown, asked = [], []
    for name in names:
        try:
            asked.append(Request.of([name]).asked[0])
        except ValueError as error:
            if not str(error).startswith("unknown metric name"):
                raise ValueError(f"--metrics: {error}") from None
            unknown.append(name)
    if unknown:
        listed = ", ".join(repr(name) for name in unknown)
        raise ValueError(
            f"--metrics: unknown metric {listed}; choose among {', '.join(METRICS)} "
            "(or their ir_measures / trec_eval names, e.g. P@5, ndcg_cut_10: "
            "docs/metric_names.md)"
        )
    return Request(tuple(asked), default=False)


#: The cut-offs ``--k`` defaults to, where a name is read at K.
DEFAULT_CUTOFFS = (5, 10, 20)


def cli_plan(
    request: Request | None, k: str | None, policy: Policy, *, one_policy: bool = False
) -> Plan:
    """The command's one plan (`Plan`): ``--metrics`` as parsed, ``--k`` (default 5, 10, 20,
    added only where a name is read at K: `polars_rankk.core.names.cutoffs`) and every
    cut-off a name carries, under `policy`. With `one_policy` (a command that compares or
    reports under one policy), names asking for several are refused in words.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.cli.options import cli_plan, parse_metrics
    >>> policy = rk.Policy()
    >>> cli_plan(parse_metrics("P@5,map"), None, policy).ks
    (5,)
    >>> cli_plan(parse_metrics("P@5,ndcg"), None, policy).ks
    (5, 10, 20)
    >>> cli_plan(parse_metrics("R@1000"), "10", policy).ks, cli_plan(None, None, policy).ks
    ((10, 1000), (5, 10, 20))
    """
    cutoffs = None if k is None else parse_k(k)
    plan = Plan.of(request, cutoffs, policy, default_k=DEFAULT_CUTOFFS)
    if one_policy:
        plan.one_policy  # noqa: B018 (refuses several policies in words)
    return plan


def cli_plan_said_later(
    request: Request | None, k: str | None, policy: Policy, *, one_policy: bool = False
) -> tuple[Plan, list[warnings.WarningMessage]]:
    """`cli_plan`, and the warnings its planning raised, kept to be said once the files are
    evaluated (a tool-name warning then only where the files make the tool's number differ:
    `polars_rankk.cli.running.evaluate_run`)."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        plan = cli_plan(request, k, policy, one_policy=one_policy)
    return plan, said


# Options shared by both commands -------------------------------------------------------------

KOption = Annotated[
    str | None,
    typer.Option(
        "--k",
        "-k",
        metavar="CUTOFFS",
        help="Cut-offs: a list (5,10,20), a range (1-20 or 1..20), or both (1-5,10). Default "
        "5,10,20, added only when a metric name is read at K (ndcg, P): names that carry "
        "their own cut-off (P@5, R@1000) or read the whole list (map, RR) are evaluated alone.",
    ),
]
MetricsOption = Annotated[
    str | None,
    typer.Option(
        metavar="NAMES",
        help=f"Comma-separated metrics (default {', '.join(DEFAULT_METRICS)}); any of "
        f"{', '.join(METRICS)}, or their ir_measures / trec_eval names (P@5, nDCG@10, "
        "ndcg_cut_10, Bpref, RBP(p=0.9)@10): a name's cut-off is added to --k.",
    ),
]
GroupByOption = Annotated[
    str | None,
    typer.Option(
        "--group-by",
        metavar="COLUMNS",
        help="Group key column(s), comma-separated (default 'query' for TREC files).",
        rich_help_panel=COLUMNS,
    ),
]
SystemOption = Annotated[
    str | None,
    typer.Option(
        "--system",
        metavar="COLUMN",
        help="A candidates column naming each row's system: every system is evaluated on "
        "its own, in one pass, and the output has this column first.",
        rich_help_panel=COLUMNS,
    ),
]
ItemOption = Annotated[
    str, typer.Option(metavar="COLUMN", help="Item column.", rich_help_panel=COLUMNS)
]
ScoreOption = Annotated[
    str | None,
    typer.Option(
        metavar="COLUMN",
        help="Score column, higher ranks first (default 'score').",
        rich_help_panel=COLUMNS,
        show_default=False,
    ),
]
RankOption = Annotated[
    str | None,
    typer.Option(
        metavar="COLUMN",
        help="Rank column, lower ranks first (1 is the top): the alternative to --score.",
        rich_help_panel=COLUMNS,
        show_default=False,
    ),
]
SubtopicOption = Annotated[
    str | None,
    typer.Option(
        "--subtopic",
        metavar="COLUMN",
        help="The truth's subtopic column, for the subtopic (diversity) metrics such as "
        "alpha_nDCG@20; TREC qrels are then read as diversity qrels (query subtopic doc grade).",
        rich_help_panel=COLUMNS,
    ),
]
RelevanceOption = Annotated[
    str,
    typer.Option(
        metavar="COLUMN",
        help="Relevance grade column of the truth (absent: every truth row is relevant).",
        rich_help_panel=COLUMNS,
    ),
]
InputFormatOption = Annotated[
    InputFormat,
    typer.Option(
        "--input-format",
        help="Input format; auto: by extension (.parquet, .csv, .tsv), else TREC.",
    ),
]
TrecEvalOption = Annotated[
    bool,
    typer.Option(
        "--trec-eval",
        help="Start from Policy.trec_eval() (reproduces trec_eval -c); other policy "
        "options override it.",
        rich_help_panel=POLICIES,
    ),
]
OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the table to FILE (format from .csv, .json, .md, .parquet) instead of stdout.",
        rich_help_panel=OUTPUT,
    ),
]
FormatOption = Annotated[
    OutputFormat | None,
    typer.Option(
        "--format",
        "--output-format",
        "-f",
        help="table, csv, json, markdown or parquet (parquet needs --output). Default: from "
        "--output's extension, else table on a terminal and csv when piped.",
        rich_help_panel=OUTPUT,
        show_default=False,
    ),
]
ReportOption = Annotated[
    Path | None,
    typer.Option(
        "--report",
        metavar="FILE",
        help="Also write a self-contained HTML report (opens offline).",
        rich_help_panel=REPORT,
    ),
]
UiKOption = Annotated[
    int | None,
    typer.Option(
        "--ui-k",
        help="The K your product shows: marked on the report's K-curves.",
        rich_help_panel=REPORT,
    ),
]
ByOption = Annotated[
    str | None,
    typer.Option(
        "--by",
        metavar="COLUMNS",
        help="Stratum column(s) for the report, comma-separated (from --attributes, or a "
        "group key).",
        rich_help_panel=REPORT,
    ),
]
AttributesOption = Annotated[
    Path | None,
    typer.Option(
        "--attributes",
        metavar="FILE",
        help="A table of group attributes (one row per group) holding the --by columns.",
        rich_help_panel=REPORT,
    ),
]
ResamplesOption = Annotated[
    int,
    typer.Option(
        "--n-resamples",
        help="Bootstrap resamples for confidence intervals.",
        rich_help_panel=REPORT,
    ),
]
SeedOption = Annotated[
    int, typer.Option(help="Random seed of the bootstrap.", rich_help_panel=REPORT)
]
ProgressOption = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress",
        help="Show progress on stderr (default: only on a terminal, and not when output is piped).",
        show_default=False,
    ),
]


# Policy options, one per `Policy` field ------------------------------------------------------

POLICY_FIELDS: tuple[dataclasses.Field[Any], ...] = dataclasses.fields(Policy)


def policy_parameters() -> list[inspect.Parameter]:
    """One ``--field-name`` option per `Policy` field: its type (the Literal choices or a
    number), its help line from `POLICY_HELP`, and no default (the policy's own applies)."""
    hints = typing.get_type_hints(Policy)
    parameters = []
    for field in POLICY_FIELDS:
        option = typer.Option(
            f"--{field.name.replace('_', '-')}",
            help=POLICY_HELP[field.name] + ".",
            rich_help_panel=POLICIES,
            show_default=False,
        )
        parameters.append(
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[policy_option_type(hints[field.name]) | None, option],
            )
        )
    return parameters


def policy_option_type(hint: Any) -> Any:
    """The type typer reads for a policy field: `Policy.gains` is typed as text
    (``--gains 0:1,1:4``), the others as declared."""
    return str if hint == Policy.__annotations__.get("gains") or "Mapping" in str(hint) else hint


def given_options(chosen: dict[str, Any]) -> dict[str, Any]:
    """The policy options given (``None``: not given), ``--gains`` read as a gain map."""
    given = {name: value for name, value in chosen.items() if value is not None}
    if isinstance(given.get("gains"), str):
        try:
            given["gains"] = parse_gains(given["gains"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"--gains: {error}") from None
    return given


def build_policy(trec_eval: bool, chosen: dict[str, Any]) -> Policy:
    """The policy from ``--trec-eval`` and the policy options given (``None``: not given).

    Examples
    --------
    >>> from polars_rankk.cli.options import build_policy
    >>> build_policy(True, {"ties": "pessimistic", "gain": None}).ties
    'pessimistic'
    """
    given = given_options(chosen)
    return Policy.trec_eval(**given) if trec_eval else Policy(**given)


def option_value(value: Any) -> str:
    """A policy value as its option takes it: ``condense``, ``2``, ``0:1,1:4``.

    Examples
    --------
    >>> from polars_rankk.cli.options import option_value
    >>> option_value("condense"), option_value(2.0), option_value({0: 1.0, 1: 4.0})
    ('condense', '2', '0:1,1:4')
    """
    if isinstance(value, dict):
        return ",".join(f"{option_value(g)}:{option_value(v)}" for g, v in value.items())
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


#: Whether the running command reads TREC qrels as trec_eval reads them, fractional grades
#: truncated to integers: ``--trec-eval`` without ``--fractional-grades keep``.
TRUNCATES_TREC_GRADES: ContextVar[bool] = ContextVar("truncates_trec_grades", default=False)


def with_policy_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give `command` the ``--trec-eval`` flag and one option per `Policy` field.

    `command` takes a ``policy: Policy`` parameter; the wrapper's signature (what typer reads)
    replaces it with the policy options, and builds the `Policy` from them.
    """
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "policy"]
    trec_eval = inspect.Parameter(
        "trec_eval", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=TrecEvalOption
    )
    names = [field.name for field in POLICY_FIELDS]

    @functools.wraps(command)
    def wrapper(**options: Any) -> None:
        chosen = {name: options.pop(name) for name in names}
        if "metrics" in options:
            # --metrics is parsed here, once: the command reads the request.
            options["metrics"] = parse_metrics(options["metrics"])
        preset = bool(options.pop("trec_eval"))
        policy = build_policy(preset, chosen)
        token = TRUNCATES_TREC_GRADES.set(preset and policy.fractional_grades == "truncate")
        try:
            command(**options, policy=policy)
        finally:
            TRUNCATES_TREC_GRADES.reset(token)

    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*kept, trec_eval, *policy_parameters()]
    )
    return wrapper
