"""How ir_measures' smaller providers name a measure (pyndeval's subtopic measures, compat's
Compat), and the pieces every written name is made of (``rel=N``, ``@K``): the writer's
helpers (`polars_rankk.core.names.write`)."""

from __future__ import annotations

from polars_rankk.core.policy import Policy


class Reason(str):
    """Why a tool's name would mean another number, with the Policy fields that reproduce the
    tool's number (`tool_fields`, empty where the reason names none: a flag, a setting the tool
    lacks). The fields travel as data, so a check on the data reads them, not the words."""

    tool_fields: dict[str, object]

    def __new__(cls, text: str, **tool_fields: object) -> Reason:
        reason = super().__new__(cls, text + _said(tool_fields))
        reason.tool_fields = tool_fields
        return reason


def _said(tool_fields: dict[str, object]) -> str:
    """The tool's fields as the reason's words end: `` (Policy.ties='item_asc')`` or
    `` (Policy(ties='item_asc', short_lists='observed'))``."""
    spelled = [f"{field}={value!r}" for field, value in tool_fields.items()]
    if not spelled:
        return ""
    return f" (Policy.{spelled[0]})" if len(spelled) == 1 else f" (Policy({', '.join(spelled)}))"


def tool_fields(reason: str | None) -> dict[str, object]:
    """The Policy fields that reproduce the tool's number, as `reason` carries them."""
    return dict(reason.tool_fields) if isinstance(reason, Reason) else {}


def number(value: float) -> str:
    return f"{value:g}"


def is_integer(value: float) -> bool:
    return float(value).is_integer()


def pyndeval(
    metric: str, base: str, k: int | None, policy: Policy
) -> tuple[str | None, str | None]:
    """A subtopic metric as ir_measures' pyndeval provider names it, or why it cannot be."""
    if policy.ties != "item_asc":
        return None, Reason(
            "ir_measures' pyndeval provider ranks tied scores by docid ascending", ties="item_asc"
        )
    if policy.empty_truth != "zero" or policy.short_lists != "fixed":
        return None, "ndeval scores a topic without a relevant subtopic 0 and cuts at a fixed K"
    parameters: list[str] = []
    if policy.diversity_alpha != 0.5 and metric in ("alpha_ndcg", "alpha_dcg", "nrbp", "nnrbp"):
        parameters.append(f"alpha={number(policy.diversity_alpha)}")
    elif policy.diversity_alpha != 0.5:
        return None, f"ir_measures' {base} keeps ndeval's alpha = 0.5"
    if metric in ("nrbp", "nnrbp") and policy.nrbp_beta != 0.5:
        parameters.append(f"beta={number(policy.nrbp_beta)}")
    if policy.unjudged == "condense":
        if metric in ("st_recall", "nrbp", "nnrbp"):
            return None, f"ir_measures' {base} has no judged_only"
        parameters.append("judged_only=True")
    reason = threshold(policy, parameters)
    return (None, reason) if reason else (spelled(base, parameters, k), None)


def compat(base: str, policy: Policy) -> tuple[str | None, str | None]:
    """Compat as ir_measures' compat provider names it, or why it cannot be."""
    if policy.ties != "item_asc":
        return None, Reason(
            "ir_measures' compat provider ranks tied scores by docid ascending", ties="item_asc"
        )
    if policy.empty_truth != "zero" or policy.unjudged == "condense":
        return None, Reason(
            "ir_measures' Compat scores a query without a relevant item 0 and reads unjudged items",
            empty_truth="zero",
            unjudged="keep",
        )
    if policy.relevance_threshold != 1:
        return None, "ir_measures' Compat counts every grade > 0 as relevant (threshold 1)"
    parameters = []
    if policy.compat_persistence != Policy().compat_persistence:
        parameters.append(f"p={number(policy.compat_persistence)}")
    return spelled(base, parameters, None), None


def threshold(policy: Policy, parameters: list[str], *, always: bool = False) -> str | None:
    """Add ``rel=N`` (or say why it cannot be written)."""
    threshold = policy.relevance_threshold
    if threshold == 1 and not always:
        return None
    if not is_integer(threshold):
        return (
            f"ir_measures' rel= takes an integer grade; Policy.relevance_threshold="
            f"{number(threshold)} is not one"
        )
    parameters.append(f"rel={int(threshold)}")
    return None


def spelled(base: str, parameters: list[str], k: int | None) -> str:
    name = f"{base}({','.join(parameters)})" if parameters else base
    return name if k is None else f"{name}@{k}"
