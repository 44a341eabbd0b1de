"""Tools' conventions on the names typed: a tool's spelling read under a policy where that tool
computes another number is said (`ToolNameWarning`), naming the policy that reproduces it."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from polars_rankk.core.metrics.registry import METRICS, REGISTRY
from polars_rankk.core.names.parse import _IR_MEASURES, spellings
from polars_rankk.core.names.request import Request
from polars_rankk.core.names.write import written_name
from polars_rankk.core.policy import Policy


class ToolNameWarning(UserWarning):
    """A tool's metric name was typed, and under the evaluation's policy that tool computes
    another number: the warning names the policy that reproduces it."""


def _ir_measures_syntax(text: str) -> bool:
    """Whether `text` is spelled as ir_measures spells a measure (``RR@10``, ``Judged@5``,
    ``RBP(p=0.9,rel=1)``), not as a canonical, trec_eval or ranx name."""
    found = _IR_MEASURES.match(text.strip())
    if found is None or found["level"] is not None or found["base"] in METRICS:
        return False
    return any(
        tool == "ir_measures" and spelling == found["base"] for spelling, _, tool, _ in spellings()
    )


def warn_tool_conventions(metrics: str | Iterable[str] | None, policy: Policy) -> None:
    """Warn for each ir_measures name typed whose number ir_measures computes otherwise under
    `policy` (a tie order, a denominator...): the reason `written_name` gives for not writing
    that name back, which names the policy that reproduces the tool.

    Examples
    --------
    >>> import warnings, polars_rankk as rk
    >>> from polars_rankk.core.names.conventions import warn_tool_conventions
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_tool_conventions(["RR@10", "nDCG@10"], rk.Policy())
    >>> [str(w.message)[:60] for w in caught]
    ["metric 'RR@10' is ir_measures' name, but under this policy i"]
    """
    for name, measures in Request.of(metrics).asked:
        if not _ir_measures_syntax(name):
            continue
        for request in measures:
            if request.k is None and not request.whole_list and REGISTRY[request.metric].has_k:
                continue  # evaluated at the evaluation's K, each K alike
            _, reason = written_name(request.metric, request.k, policy, "ir_measures")
            if reason is not None:
                warnings.warn(
                    f"metric {name!r} is ir_measures' name, but under this policy ir_measures "
                    f"computes another number: {reason}. The value here follows the policy",
                    ToolNameWarning,
                    stacklevel=4,
                )
