"""Write polars_rankk/core/expressions/generated.py: one expression function per built-in accuracy
metric and the ``.rankk`` expression namespace, from the metric registry; and those functions'
rows of docs/api-by-task.md (after the ``rk.metrics_expression`` row, in registry order).

Both are written out (not made at run time) so that type checkers, autocompletion and the API
docs see every function and method with its signature and docstring; both come from one
parameter list here, so a method takes exactly the arguments of its function. The examples'
outputs are computed by running them. Run ``.venv/bin/python scripts/expression_api.py`` after
changing the registry (``--check`` exits 1 when either file is out of date;
``tests/core/test_expression_api.py`` runs that check).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "polars_rankk" / "core" / "expressions" / "generated.py"
API_BY_TASK = ROOT / "docs" / "api-by-task.md"
#: The row the metric functions' rows follow on docs/api-by-task.md.
ANCHOR_ROW = "| [`rk.metrics_expression`]"

#: Every argument after `relevance`, in order: (name, annotation, default or None if required,
#: its description). `k` is left out for a metric without a cut-off.
ARGUMENTS = (
    ("by", "IntoExprColumn | None", "None", "Score; higher ranks first."),
    ("k", "int", None, "Cut-off."),
    (
        "item",
        "IntoExprColumn | None",
        "None",
        'Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.',
    ),
    (
        "n_relevant",
        "IntoExprColumn | None",
        "None",
        "R_g of the group, when the rows do not hold every relevant item. Without it (and "
        "without `unretrieved`) a group whose rows hold no relevant item scores NaN under "
        '``empty_truth="nan"``, else 0, as a list that found nothing; with it, '
        "``empty_truth`` applies to a group with R_g = 0.",
    ),
    ("policy", "Policy | None", "None", "`Policy` for ties, short lists, threshold, empty truth."),
    ("rank", "IntoExprColumn | None", "None", "Instead of `by`: a rank (1 = best); lower first."),
    (
        "unretrieved",
        "IntoExprColumn | None",
        "None",
        "The grades (a list, the same on every row of the group) of the group's judged items "
        "the rows do not hold, as `rk.label` writes them: R_g, the ideal DCG and the judged "
        "non-relevant count are then the truth's, so the value equals `evaluate`'s; null for "
        "a group the truth does not know (no value).",
    ),
)

EXAMPLE_FRAME = (
    'pl.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],\n'
    '...                    "score": [0.9, 0.8, 0.1, 0.5, 0.4], "rel": [0, 2, None, 1, 0]})'
)

HEADER = '''\
"""One expression function per built-in accuracy metric, and the ``.rankk`` expression namespace.

Generated from the metric registry by scripts/expression_api.py; do not edit by hand. Each
function is `polars_rankk.core.expressions.expressions.metrics_expression` of one metric,
and each method of the namespace forwards to its function with the same arguments, the
relevance column as ``self``. A metric registered at run time (`polars_rankk.register_metric`)
is computed by ``rk.metrics_expression(name, ...)`` and ``pl.col(...).rankk.metric(name, ...)``.
A family of metrics that are points of one parameter (trec_eval's iprec_at_recall levels) has
one function taking the point (``rk.iprec_at_recall(recall=0.5)``:
`polars_rankk.core.expressions.points`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from polars_rankk.core.expressions.expressions import metrics_expression, with_parameters
from polars_rankk.core.expressions.points import DEPRECATED_POINTS, family_point
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

'''


def _own(name: str | None) -> list[tuple[str, str, str | None, str]]:
    """Metric `name`'s own parameters (its registry entry's), as keyword arguments after `k`:
    None sets nothing (the policy's value)."""
    if name is None:
        return []
    from polars_rankk.core.metrics.registry import REGISTRY

    return [
        (
            parameter.key,
            f"{parameter.annotation} | None",
            "None",
            f"{parameter.description[0].upper()}{parameter.description[1:]} (``{parameter.key}``"
            f" in its name; sets ``Policy.{parameter.field}``, default: the policy's).",
        )
        for parameter in REGISTRY[name].parameters
    ]


def _arguments(has_k: bool, name: str | None = None) -> list[tuple[str, str, str | None, str]]:
    arguments = [argument for argument in ARGUMENTS if has_k or argument[0] != "k"]
    at = 2 if has_k else 1
    return [*arguments[:at], *_own(name), *arguments[at:]]


def _signature(has_k: bool, first: str, name: str | None = None) -> str:
    parts = [first, "*"]
    for argument, annotation, default, _ in _arguments(has_k, name):
        parts.append(f"{argument}: {annotation}" + ("" if default is None else f" = {default}"))
    return "".join(f"    {part},\n" for part in parts)


def _forwarded(has_k: bool, indent: str, name: str | None = None) -> str:
    return "".join(f"{indent}{argument}={argument},\n" for argument, *_ in _arguments(has_k, name))


def _policy_of(name: str, indent: str) -> str:
    """The `policy` argument a metric function hands on (a line at `indent`): its own
    parameters set on `policy`, wrapped as ruff formats it."""
    own = [argument for argument, *_ in _own(name)]
    if not own:
        return f"{indent}policy=policy,\n"
    given = ", ".join(["policy", *(f"{argument}={argument}" for argument in own)])
    line = f'{indent}policy=with_parameters("{name}", {given}),\n'
    if len(line) <= 101:
        return line
    return f'{indent}policy=with_parameters(\n{indent}    "{name}", {given}\n{indent}),\n'


def _example(name: str, function: str, has_k: bool) -> str:
    from polars_rankk.core.expressions.expressions import metrics_expression

    frame = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2],
            "item": [1, 2, 3, 4, 5],
            "score": [0.9, 0.8, 0.1, 0.5, 0.4],
            "rel": [0, 2, None, 1, 0],
        }
    )
    cut = ", k=2" if has_k else ""
    call = f'rk.{function}("rel", by="score"{cut}, item="item")'
    # The same expression as the call written in the docstring.
    expression = metrics_expression(name, "rel", by="score", k=2 if has_k else None, item="item")
    with pl.Config(tbl_rows=10, tbl_cols=10, fmt_float="mixed"):
        shown = repr(frame.group_by("user").agg(expression).sort("user"))
    return (
        ">>> import polars as pl, polars_rankk as rk\n"
        f">>> df = {EXAMPLE_FRAME}\n"
        f'>>> df.group_by("user").agg(\n...     {call}\n... ).sort("user")\n'
        f"{shown}"
    )


def _summary(name: str) -> str:
    """The first line of a metric function's docstring (unwrapped)."""
    from polars_rankk.core.metrics.registry import REGISTRY

    metric = REGISTRY[name]
    return f"{metric.title} of each group: {metric.definition.rstrip('.')}."


def _function(name: str) -> str:
    from polars_rankk.core.metrics.registry import REGISTRY

    metric = REGISTRY[name]
    function, has_k = metric.function_name, metric.has_k
    summary = textwrap.fill(_summary(name), width=92)
    lines = [summary, "", f"Reference: {metric.citation}."]
    if not metric.supports_expected_ties:
        lines += [
            "",
            '``Policy(ties="expected")`` raises a ValueError: it has no exact expectation',
            "over tie orderings here.",
        ]
    lines += [
        "",
        'An invalid score (``invalid_scores="error"``) or a repeated item',
        '(``duplicates="error"``) makes the query raise, naming the column and the item.',
        "A group without rows has no value (`evaluate` scores it 0 under",
        '``missing_groups="zero"``).',
    ]
    lines += ["", "Parameters", "----------", "relevance"]
    lines.append(
        "    Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged."
    )
    for argument, _, _, description in _arguments(has_k, name):
        # Indented 4 more below, so 92 here keeps the lines within 100.
        lines += [argument, *textwrap.wrap(description, 92, initial_indent=" " * 4,
                                           subsequent_indent=" " * 4)]  # fmt: skip
    lines += ["", "Examples", "--------", *_example(name, function, has_k).splitlines()]
    lines += [
        "",
        "See Also",
        "--------",
        "metrics_expression : any registered metrics by name.",
        "evaluate : every metric at every K for candidate and truth tables.",
    ]
    body = textwrap.indent("\n".join(lines), "    ").replace("    \n", "\n")
    indent = " " * 8
    forwarded = _forwarded(has_k, indent).replace(
        f"{indent}policy=policy,\n", _policy_of(name, indent)
    )
    return (
        f"def {function}(\n{_signature(has_k, 'relevance: IntoExprColumn', name)}) -> pl.Expr:\n"
        f'    """{body.lstrip()}\n    """\n'
        f"    return metrics_expression(\n"
        f'        "{name}",\n'
        f"        relevance,\n"
        f"{forwarded}"
        f"    )\n"
    )


#: One line saying what each family's function computes (its points' titles name a level).
FAMILY_SUMMARY = {
    "iprec_at_recall": "Interpolated precision at a recall level of each group: the best "
    "precision at a rank holding at least lround(recall R) relevant items, 0 if none (trec_eval "
    "iprec_at_recall).",
    "r_precision_times": "Precision at a multiple of R of each group: hits within c / c at rank "
    "c = (long) (multiple R + 0.9), 0 when c is 0 (trec_eval Rprec_mult).",
}
#: The point each family's example is computed at.
FAMILY_EXAMPLE = {"iprec_at_recall": 0.5, "r_precision_times": 1.0}


def _family_function(family: str) -> str:
    from polars_rankk.core.expressions.points import FAMILY_PARAMETERS, family_point
    from polars_rankk.core.metrics.registry import REGISTRY

    parameter, description = FAMILY_PARAMETERS[family]
    value = FAMILY_EXAMPLE[family]
    first = REGISTRY[family_point(family, parameter, value)]
    lines = [textwrap.fill(FAMILY_SUMMARY[family], width=92), ""]
    lines += [f"Reference: {first.citation}.", ""]
    lines += [
        "The points computed are trec_eval's; another raises a ValueError naming them.",
        "",
        'An invalid score (``invalid_scores="error"``) or a repeated item',
        '(``duplicates="error"``) makes the query raise, naming the column and the item.',
    ]
    lines += ["", "Parameters", "----------", "relevance"]
    lines.append(
        "    Grade of each row (relevant when ``>= policy.relevance_threshold``); null: unjudged."
    )
    lines += [parameter, *textwrap.wrap(description, 92, initial_indent=" " * 4,
                                        subsequent_indent=" " * 4)]  # fmt: skip
    for argument, _, _, text in _arguments(False):
        lines += [argument, *textwrap.wrap(text, 92, initial_indent=" " * 4,
                                           subsequent_indent=" " * 4)]  # fmt: skip
    example = _example(first.name, family, False).replace(
        f'rk.{family}("rel", by=', f'rk.{family}("rel", {parameter}={value}, by='
    )
    lines += ["", "Examples", "--------", *example.splitlines()]
    lines += ["", "See Also", "--------", "metrics_expression : any registered metrics by name."]
    body = textwrap.indent("\n".join(lines), "    ").replace("    \n", "\n")
    signature = _signature(False, "relevance: IntoExprColumn").replace(
        "    *,\n", f"    *,\n    {parameter}: float,\n", 1
    )
    return (
        f"def {family}(\n{signature}) -> pl.Expr:\n"
        f'    """{body.lstrip()}\n    """\n'
        f"    return metrics_expression(\n"
        f'        family_point("{family}", "{parameter}", {parameter}),\n'
        f"        relevance,\n"
        f"{_forwarded(False, ' ' * 8)}"
        f"    )\n"
    )


def _family_method(family: str) -> str:
    from polars_rankk.core.expressions.points import FAMILY_PARAMETERS

    parameter = FAMILY_PARAMETERS[family][0]
    signature = textwrap.indent(_signature(False, "self"), "    ").replace(
        "        *,\n", f"        *,\n        {parameter}: float,\n", 1
    )
    return (
        f"    def {family}(\n{signature}    ) -> pl.Expr:\n"
        f'        """See `polars_rankk.{family}`."""\n'
        f"        return {family}(\n"
        f"            self._expr,\n"
        f"            {parameter}={parameter},\n"
        f"{_forwarded(False, ' ' * 12)}"
        f"        )\n"
    )


def _method(name: str) -> str:
    from polars_rankk.core.metrics.registry import REGISTRY

    metric = REGISTRY[name]
    function, has_k = metric.function_name, metric.has_k
    signature = textwrap.indent(_signature(has_k, "self", name), "    ")
    return (
        f"    def {function}(\n{signature}    ) -> pl.Expr:\n"
        f'        """See `polars_rankk.{function}`."""\n'
        f"        return {function}(\n"
        f"            self._expr,\n"
        f"{_forwarded(has_k, ' ' * 12, name)}"
        f"        )\n"
    )


NAMESPACE = '''\
@pl.api.register_expr_namespace("rankk")
class RankkExpr:
    """Metric expressions with the relevance column as ``self``: one method per function.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(pl.col("rel").rankk.precision_at_k(by="score", k=2, item="item")).item()
    0.5
    >>> df.select(pl.col("rel").rankk.metric("P@2", by="score", item="item")).item()
    0.5
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def metric(
        self,
        metric: str,
        *,
        by: IntoExprColumn | None = None,
        k: int | None = None,
        item: IntoExprColumn | None = None,
        n_relevant: IntoExprColumn | None = None,
        policy: Policy | None = None,
        rank: IntoExprColumn | None = None,
        unretrieved: IntoExprColumn | None = None,
    ) -> pl.Expr:
        """See `polars_rankk.metrics_expression`: any registered metric by name."""
        return metrics_expression(
            metric,
            self._expr,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )

    def __getattr__(self, name: str) -> Callable[..., pl.Expr]:
        """The previous release's method per point (``iprec_at_recall_0_50``), deprecated: its
        family's method at that point (``iprec_at_recall(recall=0.5)``)."""
        if name not in DEPRECATED_POINTS:
            raise AttributeError(f"'.rankk' has no method {name!r}")
        family, parameter, value = DEPRECATED_POINTS[name]

        def method(**arguments: Any) -> pl.Expr:
            warnings.warn(
                f".rankk.{name} is deprecated: use .rankk.{family}({parameter}={value:g})",
                DeprecationWarning,
                stacklevel=2,
            )
            family_method: Callable[..., pl.Expr] = getattr(self, family)
            return family_method(**{parameter: value}, **arguments)

        return method

'''


def _names() -> list[str]:
    """The registry's built-in accuracy metrics, in registry order (but those reading the
    ideal ranking rank by rank, which only `rk.evaluate` joins from the truth)."""
    from polars_rankk.core.metrics.families.compat_q import reads_ideal
    from polars_rankk.core.metrics.registry import REGISTRY

    return [
        name
        for name, metric in REGISTRY.items()
        if metric.accuracy and metric.origin == "built-in" and not reads_ideal(metric)
    ]


def _entries() -> list[tuple[str, str]]:
    """Each function generated, in registry order: ("metric", name) for a metric, ("family",
    family) for a family of points (at its first point)."""
    from polars_rankk.core.expressions.points import family_of

    entries: list[tuple[str, str]] = []
    for name in _names():
        family = family_of(name)
        entry = ("metric", name) if family is None else ("family", family)
        if entry not in entries:
            entries.append(entry)
    return entries


def _function_name(entry: tuple[str, str]) -> str:
    from polars_rankk.core.metrics.registry import REGISTRY

    kind, name = entry
    return name if kind == "family" else REGISTRY[name].function_name


def render_api_by_task(page: str) -> str:
    """docs/api-by-task.md with its metric function rows written from the registry: every row
    of a generated function removed, then one per metric after the `ANCHOR_ROW`."""
    from polars_rankk.core.metrics.registry import REGISTRY

    entries = _entries()
    functions = {REGISTRY[name].function_name for name in _names()}
    functions |= {_function_name(entry) for entry in entries}
    lines = [
        line
        for line in page.splitlines()
        if not any(line.startswith(f"| [`rk.{function}`]") for function in functions)
    ]
    anchor = next(i for i, line in enumerate(lines) if line.startswith(ANCHOR_ROW))
    rows = []
    for kind, name in entries:
        function = _function_name((kind, name))
        link = f"[`rk.{function}`](api/core.md#polars_rankk.{function})"
        summary = FAMILY_SUMMARY[name] if kind == "family" else _summary(name)
        rows.append(f"| {link} | {summary} |")
    return "\n".join([*lines[: anchor + 1], *rows, *lines[anchor + 1 :]]) + "\n"


def render() -> str:
    """The module's text, from the registry's built-in accuracy metrics."""

    entries = _entries()
    # Natural order (nerr8 before nerr10), as ruff's isort-style sort of __all__.
    functions = sorted(
        (_function_name(entry) for entry in entries),
        key=lambda text: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)],
    )
    listing = "".join(f'    "{function}",\n' for function in functions)
    # The export list is the metric functions (the package re-exports it); RankkExpr is the
    # namespace's class, imported by name where it is registered.
    parts = [HEADER, f"__all__ = [\n{listing}]\n\n"]
    parts += [
        f"\n{_family_function(name) if kind == 'family' else _function(name)}\n"
        for kind, name in entries
    ]
    parts.append("\n" + NAMESPACE)
    parts += [
        f"{_family_method(name) if kind == 'family' else _method(name)}\n" for kind, name in entries
    ]
    return "".join(parts).rstrip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args()
    outputs = {TARGET: render(), API_BY_TASK: render_api_by_task(API_BY_TASK.read_text())}
    if args.check:
        stale = [path for path, text in outputs.items() if path.read_text() != text]
        for path in stale:
            print(f"{path} is out of date; run scripts/expression_api.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
