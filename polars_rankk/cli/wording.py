"""Messages in the command's own terms: options instead of Python arguments, counts in words.

The library's errors speak Python (``Policy(duplicates='first')``, ``popularity=...``); the
command prints them with the options that do the same (``--duplicates first``,
``--popularity FILE``).
"""

from __future__ import annotations

import dataclasses
import re

from polars_rankk.core import Policy
from polars_rankk.core.evaluation.display import counted

#: Policy fields: each is the option ``--field-name`` (see `polars_rankk.cli.options`).
POLICY_FIELDS = frozenset(field.name for field in dataclasses.fields(Policy))
#: Arguments of `polars_rankk.evaluate` that are options of the command, with their value.
ARGUMENTS = {
    "popularity": "FILE",
    "item_features": "FILE",
    "catalogue": "FILE",
    "attributes": "FILE",
    "head_share": "SHARE",
    "group_by": "COLUMNS",
    "metrics": "NAMES",
    "k": "CUTOFFS",
}
#: Arguments of `Evaluation.summary` that are options of the command, with the choices the
#: command offers (a Python choice it lacks is left out of the advice).
CHOICES = {"average": ("macro", "micro")}
_QUOTED = r"""(?:'[^']*'|"[^"]*")"""
_POLICY = re.compile(rf"Policy\((\w+)=({_QUOTED}(?:\s+or\s+{_QUOTED})*)\)")
_SETTING = re.compile(rf"(?<![\w.\-])(\w+)=({_QUOTED}(?:\s+or\s+{_QUOTED})*)")
_ARGUMENT = re.compile(r"(?<![\w.\-])(\w+)=\.\.\.")
_FIELD = re.compile(r"\bPolicy\.(\w+)(?:=(\S+?))?(?=[\s;:,)]|$)")


def option(name: str) -> str:
    """``--option-name`` of a Python name.

    Examples
    --------
    >>> from polars_rankk.cli.wording import option
    >>> option("invalid_scores")
    '--invalid-scores'
    """
    return "--" + name.replace("_", "-")


def _unquoted(values: str) -> str:
    return re.sub(_QUOTED, lambda m: m.group(0)[1:-1], values)


def in_cli_terms(message: str) -> str:
    """`message` with Python spellings of policies and arguments written as options.

    Examples
    --------
    >>> from polars_rankk.cli.wording import in_cli_terms
    >>> in_cli_terms("Policy(duplicates='error') forbids it; use duplicates='first'")
    '--duplicates error forbids it; use --duplicates first'
    >>> in_cli_terms("scores; Policy(invalid_scores='drop' or 'lowest') handles them")
    'scores; --invalid-scores drop or lowest handles them'
    >>> in_cli_terms("metrics ['novelty'] need popularity=...: an interaction log")
    "metrics ['novelty'] need --popularity FILE: an interaction log"
    >>> in_cli_terms("Policy.trec_eval() reproduces trec_eval")
    '--trec-eval reproduces trec_eval'
    >>> in_cli_terms("Policy.relevance_threshold must be > 0; got 0.0")
    '--relevance-threshold must be > 0; got 0.0'
    >>> in_cli_terms("none is; use average='macro' or 'weighted'")
    'none is; use --average macro'
    """

    def policy(match: re.Match[str]) -> str:
        return f"{option(match.group(1))} {_unquoted(match.group(2))}"

    def setting(match: re.Match[str]) -> str:
        name = match.group(1)
        inside_a_call = match.start() > 0 and match.string[match.start() - 1] == "("
        if name in CHOICES and not inside_a_call:
            offered = [v for v in re.findall(_QUOTED, match.group(2)) if v[1:-1] in CHOICES[name]]
            return f"{option(name)} {' or '.join(v[1:-1] for v in offered)}"
        if name not in POLICY_FIELDS:
            return match.group(0)
        return f"{option(name)} {_unquoted(match.group(2))}"

    def field(match: re.Match[str]) -> str:
        if match.group(1) not in POLICY_FIELDS:
            return match.group(0)
        value = "" if match.group(2) is None else f" {_unquoted(match.group(2))}"
        return f"{option(match.group(1))}{value}"

    def argument(match: re.Match[str]) -> str:
        if match.group(1) not in ARGUMENTS:
            return match.group(0)
        return f"{option(match.group(1))} {ARGUMENTS[match.group(1)]}"

    message = message.replace("Policy.trec_eval()", "--trec-eval")
    message = _POLICY.sub(policy, message)
    message = _FIELD.sub(field, message)
    message = _SETTING.sub(setting, message)
    return _ARGUMENT.sub(argument, message)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,000 rows``: a number and its noun, singular when one.

    Examples
    --------
    >>> from polars_rankk.cli.wording import count
    >>> count(1, "row"), count(12000, "row"), count(2, "query", "queries")
    ('1 row', '12,000 rows', '2 queries')
    """
    return counted(n, noun, plural)
