"""A report of passage runs: each system's passages collapsed to documents before it is
evaluated (`polars_rankk.to_documents`), and the rule recorded beside the policy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from polars_rankk.core import Evaluation, Policy
from polars_rankk.passages import DocumentRule, documents_of
from polars_rankk.reports.content import ReportContent
from polars_rankk.stats.systems import Systems

#: The policy table's line for the rule.
DOCUMENTS_HELP = "how the candidates' passages were collapsed to documents before ranking"


def collapsed_systems(
    systems: Systems,
    documents: DocumentRule | None,
    *,
    system: str | None,
    group_by: str | Sequence[str] | None,
    item: str,
    score: str,
    policy: Policy | None,
) -> Systems:
    """Each system's candidates collapsed by `documents` (evaluations are kept: they were made
    of documents already, the rule recording how)."""
    if documents is None or isinstance(systems, Evaluation):
        return systems
    if hasattr(systems, "values") and all(isinstance(one, Evaluation) for one in systems.values()):
        return systems
    if group_by is None:
        raise TypeError("documents= collapses each group's passages: give group_by=...")
    keys = [group_by] if isinstance(group_by, str) else list(group_by)
    options = {"item": item, "score": score, "policy": policy}
    if not hasattr(systems, "items"):
        # One frame naming each row's system: the system is a group key of the collapse.
        return documents_of(systems, documents, group_by=[*([system] if system else []), *keys],
                            **options)  # type: ignore[arg-type]  # fmt: skip
    return {
        name: one
        if isinstance(one, Evaluation)
        else documents_of(one, documents, group_by=keys, **options)  # type: ignore[arg-type]
        for name, one in systems.items()  # type: ignore[union-attr]
    }


def with_documents(content: ReportContent, documents: DocumentRule | None) -> ReportContent:
    """The report's policy table with the rule's line (the content as it is without one)."""
    if documents is None:
        return content
    line = ("documents", documents.describe(), DOCUMENTS_HELP)
    return replace(content, policy=replace(content.policy, policy=[*content.policy.policy, line]))
