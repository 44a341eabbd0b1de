"""Metric expressions for pre-labelled rows, inside ``group_by().agg()`` or ``.over()``.

`metrics_expression` computes any registered metrics; the one-metric functions
(``rk.ndcg_at_k``, …) and the ``.rankk`` expression namespace are generated from the registry
into `polars_rankk.core.expressions.generated` by ``scripts/expression_api.py``. Each returns a
``pl.Expr`` computing one metric of one group's rows: ``relevance`` (a grade per row), ranked by
``by`` (a score, higher first) or ``rank`` (a rank, lower first). The group is ranked by the same
code as `evaluate` (`polars_rankk.core.metrics.order`) under the same `Policy` — invalid scores,
de-duplication of repeated ``item`` ids, every tie policy including ``"expected"``, R_g (with
``n_relevant``) and the ideal DCG — and the metric is the registry's formula, so the same rows
give exactly the numbers `evaluate` gives for pre-labelled candidates without a truth table.

A group `evaluate` would leave out comes out null: a group with nothing to find (R_g = 0) under
``empty_truth="exclude"``, a list shorter than K under ``short_lists="skip"``. R_g is
``n_relevant``, or counted from ``unretrieved`` and the rows; without either it is the rows'
relevant items, as `evaluate` counts it for pre-labelled candidates without a truth table. The
rows alone cannot tell a group with nothing to find from a list that found nothing, so such a
group is never left out: it scores 0 under ``empty_truth="exclude"`` (the default; a null would
let ``pl.mean`` skip a list that found nothing) and ``"zero"``, and NaN under ``"nan"``, as
`evaluate` scores it (a NaN, unlike a null, is not skipped by ``pl.mean``). Where
`evaluate` raises — an invalid score under ``invalid_scores="error"``, a repeated item under
``duplicates="error"`` — the query raises too, naming the column and the offending value and
item (Polars has no raising expression: the error is Polars' ``InvalidOperationError``
carrying that message). What remains different: a group without candidate rows has no rows,
so it has no expression value (`evaluate` scores it 0 under ``missing_groups="zero"``).

On joined candidate and truth tables, label the rows with `rk.label` first: R_g must count the
relevant items the candidates missed, which only the truth table knows.

With the compiled kernel installed, each expression is one plugin call over every group's rows
(`polars_rankk.core.kernel.per_group`): the kernel ranks each group and sums the metric's
declared terms, and the registry's formula reads those sums; `metrics_expression` computes
several metrics from one call. The pure-Polars ranking (`polars_rankk.core.expressions.group`)
stays the reference (and runs where the kernel is absent or ``POLARS_RANKK_NATIVE=0``). Either
way they rank inside each group, so Polars runs them on its in-memory engine; for very large
tables use `evaluate`, whose pipeline streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from polars_rankk.core.expressions.group import (
    inputs_of,
    kernel_group,
    ranked_group,
    read_fields,
    refusals,
    refused_text_grade,
)
from polars_rankk.core.inputs.spec import normalize_ks
from polars_rankk.core.kernel import per_group as expression_kernel
from polars_rankk.core.metrics.families import compat_q
from polars_rankk.core.metrics.formulas import finished
from polars_rankk.core.metrics.registry import REGISTRY, term_needs
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = ["metrics_expression", "one_metric_expression", "with_parameters"]


def _check_k(k: int) -> int:
    try:
        (value,) = normalize_ks(k)
    except (TypeError, ValueError):
        raise ValueError(f"k must be an int >= 1; got {k!r}") from None
    return value


def _under(fields: dict[str, Any], policy: Policy | None) -> Policy | None:
    """`policy` (or ``Policy()``) with a name's parameters set; `policy` when it has none."""
    return replace(policy or Policy(), **fields) if fields else policy


def with_parameters(metric: str, policy: Policy | None, **values: Any) -> Policy | None:
    """`policy` (or ``Policy()``) with `metric`'s own parameters given by their keys set on
    their Policy fields (``p=0.9`` sets ``rbp_persistence``); None values are left out.

    Raises a ValueError naming the parameter when a value does not read.

    Examples
    --------
    >>> from polars_rankk.core.expressions.expressions import with_parameters
    >>> with_parameters("rbp", None, p=0.9).rbp_persistence
    0.9
    >>> with_parameters("rbp", None, p=None) is None
    True
    """
    declared = {parameter.key: parameter for parameter in REGISTRY[metric].parameters}
    fields = {
        declared[key].field: declared[key].value_of(value)
        for key, value in values.items()
        if value is not None
    }
    return _under(fields, policy)


def one_metric_expression(
    metric: str,
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """One registered metric of each group, as an expression: `metrics_expression` of one name
    (its parameters are documented there).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.metrics_expression("P@2", "rel", by="score", item="item")).item()
    0.5

    See Also
    --------
    register_metric : declare a metric of your own.
    evaluate : every metric at every K for candidate and truth tables.
    """
    from polars_rankk.core.names.parse import parse_metric_name

    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name (str); got {metric!r}")
    request = parse_metric_name(metric)
    # A name's parameters (``RBP(p=0.9)``) set its Policy fields, as `evaluate` reads them.
    policy = _under(request.policy, policy)
    entry = REGISTRY[request.metric]
    if entry.kind == "diversity":
        raise ValueError(
            f"{entry.name} is a subtopic metric: rk.evaluate(..., subtopic=...) computes it from "
            f"the truth's judgements per subtopic, and it has no expression"
        )
    if compat_q.reads_ideal(entry):
        raise ValueError(
            f"{entry.name} reads the ideal ranking rank by rank, which rk.evaluate joins from "
            f"the truth; it has no expression yet: use rk.evaluate(..., metrics=[{entry.name!r}])"
        )
    if not entry.accuracy:
        raise ValueError(
            f"{entry.name} is a {entry.kind.replace('_', '-')} metric: it is computed from the "
            f"top-K items by rk.evaluate, not from relevance, and has no expression"
        )
    cutoff = k if k is not None else request.k
    if entry.has_k and cutoff is None:
        raise ValueError(f"{entry.name} takes a cut-off: pass k=<int>")
    if not entry.has_k and cutoff is not None:
        raise ValueError(f"{entry.name} has no cut-off K; leave k out")
    return _metric(entry.name, relevance, by, cutoff, item, n_relevant, policy, rank, unretrieved)


def metrics_expression(
    metrics: str | Sequence[str],
    relevance: IntoExprColumn,
    *,
    by: IntoExprColumn | None = None,
    k: int | None = None,
    item: IntoExprColumn | None = None,
    n_relevant: IntoExprColumn | None = None,
    policy: Policy | None = None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """Registered metrics of each group as an expression: one name gives its Float64 value
    (null where `evaluate` would have no value for the group), a list of names one struct (a
    field per metric, named ``ndcg@10``...) ranking each group once.

    On the compiled kernel a list is ranked by one plugin call for all of its metrics.
    ``.unnest()`` the struct for one column per metric.

    Without `n_relevant` or `unretrieved` R_g is the rows' relevant count, as `evaluate`
    counts it for pre-labelled candidates: a group whose rows hold none scores NaN under
    ``empty_truth="nan"``, else 0 (never null: the rows cannot say the group has nothing to
    find, and a null would let ``pl.mean`` skip a list that found nothing). Where
    `evaluate` raises on the rows (an invalid score under ``invalid_scores="error"``, a
    repeated item under ``duplicates="error"``) the query raises, naming the column and the
    item. A group without rows has no value (`evaluate` scores it under `missing_groups`).

    Parameters
    ----------
    metrics
        One registered metric — its name or any accepted spelling (``"ndcg"``,
        ``"nDCG@10"``, ``"P_5"``) — or a list of them; a cut-off in a name is used when `k` is
        not given.
    relevance
        Grade of each row (relevant when ``>= policy.relevance_threshold``); a null grade marks
        an unjudged row.
    by
        Score; higher ranks first.
    k
        Cut-off, for a metric with one.
    item
        Item id, needed to break ties under ``ties="trec_eval"`` (default) or ``"item_asc"``.
    n_relevant
        R_g of the group, when the rows do not hold every relevant item (the missed ones
        enter the ideal DCG at the threshold grade); null: a group the truth does not know,
        which has no value. Given, ``empty_truth`` applies to a group with R_g = 0.
    policy
        `Policy` for ties, short lists, threshold, empty truth.
    rank
        Instead of `by`: a rank (1 = best); lower ranks first.
    unretrieved
        The grades (a list, the same on every row of the group) of the group's judged items
        the rows do not hold, as `rk.label` writes them: R_g, the ideal DCG (graded truth) and
        bpref's judged non-relevant count are then the truth's, so every metric equals
        `evaluate` under every policy; null: a group the truth does not know (no value).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 1, 1]})
    >>> df.select(rk.metrics_expression("P@2", "rel", by="score", item="item")).item()
    0.5
    >>> df = pl.DataFrame({"q": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.8, 0.1],
    ...                    "rel": [0, 1, 1]})
    >>> out = df.group_by("q").agg(
    ...     rk.metrics_expression(["P@2", "recall", "ndcg"], "rel", by="score", k=2, item="item")
    ...     .alias("m")
    ... ).unnest("m")
    >>> out.columns
    ['q', 'precision@2', 'recall@2', 'ndcg@2']
    >>> out["precision@2"].item()
    0.5
    """
    from polars_rankk.core.names.parse import parse_metric_name

    if isinstance(metrics, str):
        return one_metric_expression(
            metrics,
            relevance,
            by=by,
            k=k,
            item=item,
            n_relevant=n_relevant,
            policy=policy,
            rank=rank,
            unretrieved=unretrieved,
        )
    if not metrics:
        raise ValueError("metrics must be a metric name or a non-empty list of them")
    chosen: list[tuple[str, int | None]] = []
    requests = [parse_metric_name(metric) for metric in metrics]
    if any(request.policy != requests[0].policy for request in requests):
        raise ValueError(
            f"the names {list(metrics)} read different parameters, so their columns would "
            f"share names: compute each with its own rk.metrics_expression"
        )
    policy = _under(requests[0].policy, policy)
    for metric, request in zip(metrics, requests, strict=True):
        entry = REGISTRY[request.metric]
        if not entry.accuracy:
            # Refused in the words `one_metric_expression` uses.
            one_metric_expression(
                metric, relevance, by=by, k=k, item=item, policy=policy, rank=rank
            )
        cutoff = k if k is not None else request.k
        if entry.has_k and cutoff is None:
            raise ValueError(f"{entry.name} takes a cut-off: pass k=<int>")
        chosen.append((entry.name, None if not entry.has_k else _check_k(cutoff or 0)))
    inputs = inputs_of(relevance, by, rank, item, n_relevant, policy, unretrieved)
    needs = term_needs([name for name, _ in chosen], inputs.policy)
    if not expression_kernel.usable(inputs.policy, needs):
        return pl.struct(
            *(
                _metric(name, relevance, by, cut, item, n_relevant, policy, rank, unretrieved)
                for name, cut in chosen
            )
        )
    ks = sorted({cut for _, cut in chosen if cut is not None})
    group = kernel_group(inputs, needs, ks, read_fields(chosen, inputs.policy))
    assert group.sums is not None
    values: dict[str, pl.Expr] = {}
    for name, cut in chosen:
        declared = REGISTRY[name]
        value = finished(
            declared.value(inputs.policy, cut, group.stats), inputs.policy, cut, group.stats
        )
        values[declared.column(cut)] = value
    # A group the truth does not know has no value (a null struct); one with nothing to find
    # under empty_truth="exclude", null values.
    unknown = pl.field(expression_kernel.KNOWN) == 0
    if inputs.policy.empty_truth == "exclude":
        values = {
            name: pl.when(group.stats.n_relevant == 0).then(pl.lit(None, pl.Float64)).otherwise(v)
            for name, v in values.items()
        }
    return refused_text_grade(
        expression_kernel.computed_struct(group.sums, values, unknown), inputs
    )


def _metric(
    name: str,
    relevance: IntoExprColumn,
    by: IntoExprColumn | None,
    k: int | None,
    item: IntoExprColumn | None,
    n_relevant: IntoExprColumn | None,
    policy: Policy | None,
    rank: IntoExprColumn | None = None,
    unretrieved: IntoExprColumn | None = None,
) -> pl.Expr:
    """One registry metric of one group, null where `evaluate` would have no value for it."""
    cutoff = None if k is None else _check_k(k)
    inputs = inputs_of(relevance, by, rank, item, n_relevant, policy, unretrieved)
    metric = REGISTRY[name]
    group = ranked_group(inputs, name, cutoff)
    value = metric.value(inputs.policy, cutoff, group.stats)
    value = finished(value, inputs.policy, cutoff, group.stats)
    value = pl.when(group.void).then(pl.lit(None, pl.Float64)).otherwise(value)
    if group.sums is not None:
        # The formula reads the struct of sums computed once per group (the kernel's one
        # call, or the pure statistics it reads); the kernel itself refuses an invalid score,
        # naming the column, value and item.
        value = expression_kernel.computed(group.sums, value)
        if group.outer_void is not None:
            value = pl.when(group.outer_void).then(pl.lit(None, pl.Float64)).otherwise(value)
    if group.on_kernel:
        value = refused_text_grade(value, inputs)
    else:
        # Null unless the rows are refused, when the query raises instead.
        value = pl.coalesce(*refusals(inputs), value)
    return value.alias(metric.column(cutoff))
