"""How ir_measures' smaller providers name a measure (pyndeval's subtopic measures, compat's
Compat), and the pieces every written name is made of (``rel=N``, ``@K``): the writer's
helpers (`polars_rankk.core.names.write`)."""

from __future__ import annotations

from polars_rankk.core.policy import Policy


def number(value: float) -> str:
    return f"{value:g}"


def is_integer(value: float) -> bool:
    return float(value).is_integer()


def pyndeval(
    metric: str, base: str, k: int | None, policy: Policy
) -> tuple[str | None, str | None]:
    """A subtopic metric as ir_measures' pyndeval provider names it, or why it cannot be."""
    if policy.ties != "item_asc":
        return None, "ir_measures' pyndeval provider ranks tied scores by docid ascending " + (
            "(Policy.ties='item_asc')"
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
        return None, "ir_measures' compat provider ranks tied scores by docid ascending " + (
            "(Policy.ties='item_asc')"
        )
    if policy.empty_truth != "zero" or policy.unjudged == "condense":
        return None, "ir_measures' Compat scores a query without a relevant item 0 and reads " + (
            "unjudged items (Policy(empty_truth='zero', unjudged='keep'))"
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
