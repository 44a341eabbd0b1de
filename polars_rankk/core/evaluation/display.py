"""An evaluation at a glance: its summary grid, policy, qualifiers and actions, as text and
HTML. The tables themselves are `polars_rankk.core.evaluation.grid` (re-exported here)."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Protocol

import polars as pl

from polars_rankk.core.evaluation.diagnostics import Diagnostics
from polars_rankk.core.evaluation.grid import (
    LATEX_ESCAPES,
    Cell,
    Grid,
    counted,
    escape,
    evaluation_grid,
    html_table,
    latex_escape,
    number,
    summary_grid,
    to_html,
    to_latex,
    to_markdown,
    to_text,
)
from polars_rankk.core.policy import Policy

__all__ = [
    "LATEX_ESCAPES",
    "Cell",
    "Displayed",
    "Grid",
    "Shown",
    "counted",
    "escape",
    "evaluation_grid",
    "evaluation_html",
    "evaluation_text",
    "html_table",
    "latex_escape",
    "number",
    "summary_grid",
    "to_html",
    "to_latex",
    "to_markdown",
    "to_text",
]


class Shown(Protocol):
    """What the displays read of an evaluation (`polars_rankk.Evaluation` has it all), so
    that presentation depends on the computation's results, never on its module."""

    group_keys: list[str]
    ks: list[int]
    metrics: list[str]
    policy: Policy
    is_lazy: bool
    system: str | None

    @property
    def diagnostics(self) -> Diagnostics: ...

    @property
    def dropped(self) -> pl.DataFrame: ...

    def summary(self) -> pl.DataFrame: ...

    def by_system(self) -> Mapping[str, Shown]: ...


class Displayed:
    """An evaluation's displays: its ``repr``, notebook HTML, Markdown and LaTeX tables (a
    mixin of `polars_rankk.Evaluation`, which has all `Shown` reads)."""

    def __repr__(self: Shown) -> str:
        """The summary at a glance (metrics × K, macro means) and any diagnostics warnings."""
        return evaluation_text(self)

    def _repr_html_(self: Shown) -> str:
        """The notebook display: `__repr__` as an HTML table."""
        return evaluation_html(self)

    def to_markdown(self: Shown, digits: int = 4) -> str:
        """The macro summary as a Markdown table: one row per metric, one column per K (for
        several systems, one row per system, one column per ``metric@K``).

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [2]}),
        ...                   k=[1, 2], metrics=["precision", "hit_rate"], group_by="q")
        >>> print(res.to_markdown(digits=2))
        | metric | @1 | @2 |
        |:---|---:|---:|
        | precision | 0.00 | 0.50 |
        | hit_rate | 0.00 | 1.00 |
        """
        return to_markdown(evaluation_grid(self.summary(), self.system), digits)

    def to_latex(
        self: Shown, digits: int = 4, caption: str | None = None, label: str | None = None
    ) -> str:
        """The macro summary as a LaTeX table (booktabs): one row per metric, one column per K
        (for several systems, one row per system, one column per ``metric@K``).

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        >>> res = rk.evaluate(candidates, pl.DataFrame({"q": [1], "item": [2]}),
        ...                   k=2, metrics="hit_rate", group_by="q")
        >>> print(res.to_latex(digits=2).splitlines()[4])
        metric & @2 \\\\
        """
        return to_latex(evaluation_grid(self.summary(), self.system), digits, caption, label)


def policy_text(evaluation: Shown) -> str:
    """The policy fields that differ from the defaults (``default`` when none does)."""
    defaults = Policy().to_dict()
    changed = {k: v for k, v in evaluation.policy.to_dict().items() if defaults.get(k) != v}
    return ", ".join(f"{k}={v!r}" for k, v in changed.items()) or "default"


def warnings_of(evaluation: Shown) -> list[str]:
    """What qualifies the numbers, from the diagnostics and the groups dropped; for several
    systems, each system's, prefixed with its name."""
    return actions_of(evaluation) + _qualifiers(evaluation)


def _each_system(evaluation: Shown, found: Callable[[Shown], list[str]]) -> list[str]:
    assert evaluation.system is not None
    return [
        f"{evaluation.system} {name!r}: {line}"
        for name, one in evaluation.by_system().items()
        for line in found(one)
    ]


def actions_of(evaluation: Shown) -> list[str]:
    """What the evaluation did to its inputs: groups each policy dropped, rows removed,
    groups left out, relevant items never retrieved."""
    if evaluation.system is not None:
        return _each_system(evaluation, actions_of)
    counts = evaluation.diagnostics.counts
    found: list[str] = []
    dropped = evaluation.dropped
    reasons = {
        "dropped_empty_truth": "no relevant item in truth (empty_truth='exclude')",
        "dropped_missing": "no candidates (missing_groups='exclude')",
    }
    for column, reason in reasons.items():
        n = dropped.get_column(column).cast(pl.Int64).max()
        if isinstance(n, int) and n:
            found.append(f"{counted(n, 'group')} dropped: {reason}")
    short = dropped.filter(pl.col("dropped_short") > 0)
    if short.height:
        ks = ", ".join(str(k) for k in short.get_column("k").to_list())
        found.append(f"groups shorter than K dropped at K={ks} (short_lists='skip')")
    # Each count's noun, and what follows it.
    simple = {
        "groups_only_in_candidates": ("group", "in candidates but not in truth, not evaluated"),
        "duplicate_rows_removed": ("duplicate candidate row", "removed"),
        "unjudged_rows_condensed": ("unjudged candidate row", "removed (unjudged='condense')"),
        "invalid_score_rows_dropped": ("candidate row", "with an invalid score dropped"),
        "constant_score_groups": ("group", "whose candidates all share one score"),
        "relevant_outside_pool": ("relevant item", "never among the candidates"),
    }
    for name, (noun, text) in simple.items():
        if counts.get(name, 0):
            found.append(f"{counted(counts[name], noun)} {text}")
    return found


def _qualifiers(evaluation: Shown) -> list[str]:
    """What qualifies the numbers without changing the inputs: the recall ceiling, tie cuts."""
    if evaluation.system is not None:
        return _each_system(evaluation, _qualifiers)
    per_k, counts = evaluation.diagnostics.per_k, evaluation.diagnostics.counts
    found: list[str] = []
    if "recall_ceiling" in per_k.columns:
        # At the largest K: below 1 there, relevant items lie outside the candidates.
        top = per_k.sort("k").tail(1).filter(pl.col("recall_ceiling") < 1 - 1e-12)
        for k, ceiling in top.select("k", "recall_ceiling").rows():
            found.append(
                f"recall ceiling {ceiling:.3f} at K={k}: the best any ordering could reach"
            )
    if "tie_blocks_straddling_k" in per_k.columns:
        ties = per_k.filter(pl.col("tie_blocks_straddling_k") > 0)
        if ties.height:
            pairs = ", ".join(
                f"{n} at K={k}" for k, n in ties.select("k", "tie_blocks_straddling_k").rows()
            )
            found.append(
                f"groups where K cuts a tie in scores: {pairs} (ties={evaluation.policy.ties!r})"
            )
    shared = shared_catalogue_line(counts)
    if shared is not None:
        found.append(shared)
    return found


def shared_catalogue_line(counts: dict[str, float]) -> str | None:
    """The rule of systems compared on their catalogue metrics, from the diagnostics' counts:
    one catalogue shared by every system; None when the evaluation measured its own.

    Examples
    --------
    >>> from polars_rankk.core.evaluation.display import shared_catalogue_line
    >>> shared_catalogue_line({"shared_catalogue_items": 6, "systems_sharing_the_catalogue": 2})
    'catalogue metrics (coverage, gini, entropy) measured against one catalogue of 6 items, \
shared by the 2 systems compared'
    """
    if not counts.get("systems_sharing_the_catalogue"):
        return None
    return (
        f"catalogue metrics (coverage, gini, entropy) measured against one catalogue of "
        f"{counted(counts['shared_catalogue_items'], 'item')}, shared by the "
        f"{counts['systems_sharing_the_catalogue']} systems compared"
    )


def heading(evaluation: Shown) -> str:
    groups = evaluation.diagnostics.counts.get("groups_evaluated")
    evaluated = f"{groups:,} groups" if groups is not None else "groups"
    if evaluation.system is not None:
        names = ", ".join(evaluation.by_system())
        evaluated += f" of the systems in {evaluation.system!r} ({names})"
    return (
        f"Evaluation of {evaluated} by {evaluation.group_keys}, K={evaluation.ks}; "
        f"policy: {policy_text(evaluation)}"
    )


def evaluation_text(evaluation: Shown) -> str:
    """The plain ``repr``: heading, metrics × K (macro means) and warnings."""
    if evaluation.is_lazy:
        return (
            f"Evaluation(lazy; group_by={evaluation.group_keys}, k={evaluation.ks}, "
            f"metrics={evaluation.metrics}; policy: {policy_text(evaluation)})\n"
            "call .summary() or .collect() to compute"
        )
    lines = [heading(evaluation)]
    for title, summary in _summaries(evaluation):
        lines += ["", *([title] if title else []), to_text(summary_grid(summary))]
    found = warnings_of(evaluation)
    if found:
        lines += ["", "Warnings:", *(f"  - {w}" for w in found)]
    return "\n".join(lines)


def evaluation_html(evaluation: Shown) -> str:
    """The notebook display: heading, metrics × K and warnings, as HTML."""
    if evaluation.is_lazy:
        return f"<pre>{html.escape(evaluation_text(evaluation))}</pre>"
    parts = [f"<p><b>{html.escape(heading(evaluation))}</b></p>"]
    for title, summary in _summaries(evaluation):
        if title:
            parts.append(f"<p>{html.escape(title)}</p>")
        parts.append(to_html(summary_grid(summary)))
    found = warnings_of(evaluation)
    if found:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in found)
        parts.append(f"<p>Warnings:</p><ul>{items}</ul>")
    return f"<div class='rankk-evaluation'>{''.join(parts)}</div>"


def _summaries(evaluation: Shown) -> list[tuple[str, pl.DataFrame]]:
    """The macro summary, or one per system under its name."""
    if evaluation.system is None:
        return [("", evaluation.summary())]
    return [
        (f"{evaluation.system} {name!r}:", one.summary())
        for name, one in evaluation.by_system().items()
    ]
