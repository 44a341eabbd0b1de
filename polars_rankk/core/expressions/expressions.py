"""Metric expressions for pre-labelled rows, inside ``group_by().agg()`` or ``.over()``.

`metric_expression` computes any registered metric; the one-metric functions
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

With the compiled kernel installed, each expression is one plugin call per group
(`polars_rankk.core.kernel.per_group`): the kernel ranks the group and sums the metric's
declared terms, and the registry's formula reads those sums; `metrics_expression` computes
several metrics from one call. The pure-Polars expressions below stay the reference (and run
where the kernel is absent or ``POLARS_RANKK_NATIVE=0``). Either way they rank inside each
group, so Polars runs them on its in-memory engine; for very large tables use `evaluate`, whose
pipeline streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import polars as pl

from polars_rankk.core.columns import HITS, IDEAL_DCG
from polars_rankk.core.inputs.spec import normalize_ks
from polars_rankk.core.kernel import per_group as expression_kernel
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.formulas import GroupStats, finished
from polars_rankk.core.metrics.registry import REGISTRY, term_needs
from polars_rankk.core.metrics.terms import RankedRows, TermNeeds, row_terms
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

__all__ = ["metric_expression", "metrics_expression"]

#: The whole group: the expression is evaluated per group by ``agg`` or ``over``.
_GROUP: list[pl.Expr] = [pl.lit(0)]


def _expr(value: IntoExprColumn) -> pl.Expr:
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Series):
        return pl.lit(value)
    raise TypeError(f"expected a column name, expression or Series; got {type(value).__name__}")


def _name(expr: pl.Expr, option: str) -> str:
    """The column an expression reads, for messages; the option's name when it has none."""
    name = expr.meta.output_name(raise_if_undetermined=False)
    return name if name else f"{option}=..."


def _refused(bad: pl.Expr, message: pl.Expr) -> pl.Expr:
    """Null, or an error carrying `message` at the first row where `bad`, when the query runs.

    Polars has no expression that raises; a strict cast of the message to a number does, with
    the message in the error (``InvalidOperationError``), and costs nothing where no row is bad.
    """
    return message.filter(bad).first().cast(pl.Int8, strict=True).cast(pl.Float64)


def _refusals(inputs: _Inputs) -> list[pl.Expr]:
    """Where `evaluate` raises on the rows, the query raises: an invalid score under
    ``invalid_scores="error"``, a repeated item under ``duplicates="error"``."""
    policy, item = inputs.policy, inputs.item
    row = pl.int_range(pl.len(), dtype=pl.Int64)
    where = (
        pl.format(" at row {} of its group", row)
        if item is None
        else pl.format(" at row {} of its group (item {})", row, item)
    )
    refusals = []
    if policy.invalid_scores == "error":
        bad = ~ranking.is_valid_score(inputs.score)
        value = inputs.given_score.cast(pl.Float64).cast(pl.String).fill_null("null")
        said = (
            f"column {inputs.score_name!r} must hold finite numbers (null, NaN and inf are "
            f"invalid scores; Policy(invalid_scores='drop' or 'lowest') handles them); it holds "
        )
        refusals.append(_refused(bad, pl.concat_str(pl.lit(said), value, where)))
    if item is not None and policy.duplicates == "error":
        name = _name(item, "item")
        said = (
            f"column {name!r} repeats an item in a group and Policy(duplicates='error') forbids "
            f"it (use duplicates='first' to keep the highest-scored copy):"
        )
        refusals.append(_refused(item.is_duplicated(), pl.concat_str(pl.lit(said), where)))
    return refusals


def _check_k(k: int) -> int:
    try:
        (value,) = normalize_ks(k)
    except (TypeError, ValueError):
        raise ValueError(f"k must be an int >= 1; got {k!r}") from None
    return value


@dataclass(frozen=True)
class _Inputs:
    """One group's rows as the user gave them."""

    grade: pl.Expr
    #: The grade as given (negative grades kept), which relevance-aware tie orders read.
    order_grade: pl.Expr
    score: pl.Expr
    #: The ranking column as given, and its name, for the error on an invalid score.
    given_score: pl.Expr
    score_name: str
    item: pl.Expr | None
    n_relevant: pl.Expr | None
    policy: Policy
    #: The grades of the group's judged items the rows do not hold (`rk.label` writes them).
    unretrieved: pl.Expr | None = None


def _inputs(
    relevance: IntoExprColumn,
    by: IntoExprColumn | None,
    rank: IntoExprColumn | None,
    item: IntoExprColumn | None,
    n_relevant: IntoExprColumn | None,
    policy: Policy | None,
    unretrieved: IntoExprColumn | None = None,
) -> _Inputs:
    policy = Policy() if policy is None else policy
    if n_relevant is None and unretrieved is None and policy.empty_truth == "exclude":
        # R_g is the rows' relevant count, as `evaluate` counts it for pre-labelled candidates,
        # but the rows cannot tell a group with nothing to find from a list that found nothing:
        # leaving it out (null) would let pl.mean skip the list that found nothing. It scores
        # 0 instead; "zero" and "nan" apply as they say (a NaN is seen by pl.mean, not skipped).
        policy = replace(policy, empty_truth="zero")
    if (by is None) == (rank is None):
        raise ValueError(
            "give the ranking as by=<score column> (higher first) or rank=<rank column> "
            "(lower first), exactly one of them"
        )
    if policy.ties in ("trec_eval", "item_asc") and item is None:
        raise ValueError(
            f"ties={policy.ties!r} breaks ties by item id: pass item=<column>, "
            f"or use Policy(ties='input_order')"
        )
    ranking_column = by if rank is None else rank
    assert ranking_column is not None
    given = _expr(relevance).cast(pl.Float64)
    grade = given
    if policy.negative_grades == "unjudged":
        # trec_eval: a negative grade is no judgement, like a null one.
        grade = pl.when(given >= 0).then(given)
    given_score = _expr(ranking_column)
    return _Inputs(
        grade=grade,
        order_grade=given,
        score=ranking.score_value(given_score, lower_is_better=rank is not None),
        given_score=given_score,
        score_name=_name(given_score, "by" if rank is None else "rank"),
        item=None if item is None else _expr(item),
        n_relevant=None if n_relevant is None else _expr(n_relevant).cast(pl.Int64),
        policy=policy,
        unretrieved=None if unretrieved is None else _expr(unretrieved).cast(pl.List(pl.Float64)),
    )


@dataclass(frozen=True)
class _Group:
    """One group ranked as `evaluate` ranks it: its statistics, and when it has no value."""

    stats: GroupStats
    #: True where `evaluate` would leave the group out whatever the cut-off.
    void: pl.Expr
    #: On the kernel: the struct of sums `stats` reads as fields (the value is computed on it).
    sums: pl.Expr | None = None
    #: On the kernel: True where the group has no value, read outside the struct.
    outer_void: pl.Expr | None = None


def _ranked_rows(inputs: _Inputs) -> tuple[pl.Expr, pl.Expr]:
    """The group's ranked rows, in rank order: (score, grade). A null grade marks an unjudged
    row: it stays null here (``unjudged="condense"`` removes it). Rows on which `evaluate`
    raises are refused by `_refusals`.

    Positional operations (filter, sort, first of each item) rather than windows keep this
    usable inside ``group_by().agg()``.
    """
    policy = inputs.policy
    score, grade, item = inputs.score, inputs.grade, inputs.item
    # Relevance-aware tie orders read the grade as `evaluate` ranks it: as given, and an
    # unjudged row (null) at the grade `evaluate` fills in.
    order_grade = inputs.order_grade.fill_null(ranking.unjudged_grade(policy))
    row = pl.int_range(pl.len(), dtype=pl.Int64)
    valid = ranking.is_valid_score(score)
    if policy.invalid_scores == "lowest":
        score = ranking.lowest_if_invalid(score)
    if item is not None and policy.duplicates == "first":
        # An item's label is the highest among its copies still ranked.
        copies = [*_GROUP, item, valid if policy.invalid_scores == "drop" else True]
        grade = grade.max().over(copies)
        order_grade = order_grade.max().over(copies)
    if policy.unjudged == "condense":
        # Sakai's condensed list: unjudged rows (null grade, on every copy) leave before
        # ranking.
        judged = grade.is_not_null()
        score, grade, order_grade, row, valid = (
            c.filter(judged) for c in (score, grade, order_grade, row, valid)
        )
        item = None if item is None else item.filter(judged)
    if policy.invalid_scores == "drop":
        score, grade, order_grade, row = (c.filter(valid) for c in (score, grade, order_grade, row))
        item = None if item is None else item.filter(valid)
    if item is not None and policy.duplicates == "first":
        # The highest-scored copy stands for the item (the earliest, on equal scores).
        by_copy = [item, -score, row]
        best = item.sort_by(by_copy).is_first_distinct()
        score, grade, order_grade, row, item = (
            column.sort_by(by_copy).filter(best)
            for column in (score, grade, order_grade, row, item)
        )
    keep_row = policy.ties == "input_order" or policy.duplicates == "keep" or item is None
    order, descending = ranking.tie_order(
        policy, score, item, order_grade, row if keep_row else None
    )
    return score.sort_by(order, descending=descending), grade.sort_by(order, descending=descending)


def _ranked_group(inputs: _Inputs, metric: str, k: int | None = None) -> _Group:
    policy = inputs.policy
    needs = term_needs([metric], policy)
    if expression_kernel.usable(policy, needs):
        return _kernel_group(inputs, needs, [] if k is None else [k])
    score, grade = _ranked_rows(inputs)
    window = ranking.Sorted(score)
    n_relevant, ideal_gains, n_nonrelevant = _truth(inputs)
    rows = RankedRows(
        window,
        grade.fill_null(ranking.unjudged_grade(policy)),
        policy,
        judged=grade.is_not_null(),
        n_relevant=n_relevant,
        n_nonrelevant=n_nonrelevant,
    )
    terms = row_terms(rows, needs.columns)
    cumulated = {stat: window.cumulative(term) for stat, term in terms.items()}

    ideal = ranking.ideal_cumulative(ideal_gains)
    ideal_rank = pl.int_range(1, ideal.len() + 1, dtype=pl.Int64)

    def at(stat: str, k: int) -> pl.Expr:
        if stat == IDEAL_DCG:
            return ranking.read_at(ideal, ideal_rank, k)
        return ranking.read_at(cumulated[stat], window.rank, k)

    hits_at_r = (
        ranking.read_at(cumulated[HITS], window.rank, n_relevant).cast(pl.Float64)
        if needs.hits_at_r
        else pl.lit(0.0)
    )
    stats = GroupStats(
        at=at,
        n_candidates=score.len().cast(pl.Int64),
        n_relevant=n_relevant,
        hits_at_r=hits_at_r,
        whole=lambda stat: cumulated[stat].max().fill_null(0.0),
    )
    void = (n_relevant == 0) if policy.empty_truth == "exclude" else pl.lit(False)
    return _Group(stats=stats, void=void | _unknown(inputs))


def _unknown(inputs: _Inputs) -> pl.Expr:
    """True for a group the truth does not know (null R_g, or null unretrieved grades from
    `rk.label`): it is not evaluated, as `evaluate` evaluates the truth's groups."""
    unknown = pl.lit(False)
    for known in (inputs.n_relevant, inputs.unretrieved):
        if known is not None:
            unknown = unknown | known.is_null().all()
    return unknown


def _kernel_group(inputs: _Inputs, needs: TermNeeds, ks: list[int]) -> _Group:
    """The group ranked by the compiled kernel: the same statistics, one plugin call."""
    sums = expression_kernel.group_stats(
        item=inputs.item,
        score=inputs.score,
        score_name=inputs.score_name,
        grade=inputs.order_grade,
        n_relevant=inputs.n_relevant,
        unretrieved=inputs.unretrieved,
        policy=inputs.policy,
        needs=needs,
        ks=ks,
    )
    stats = expression_kernel.FIELDS
    # An invalid score under invalid_scores="error" is the kernel's error, naming the column.
    void = (stats.n_relevant == 0) if inputs.policy.empty_truth == "exclude" else pl.lit(False)
    return _Group(stats=stats, void=void, sums=sums, outer_void=_unknown(inputs))


def _truth(inputs: _Inputs) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """R_g, the gains of the ideal ranking and the number of judged non-relevant items: each
    item's highest label (rows with invalid scores included: the item was relevant; not
    under ``pool="restrict"`` with ``unretrieved``, where they left the truth's pool), plus
    the judged items the rows missed: with their grades from ``unretrieved``, else the
    relevant items ``n_relevant`` says the rows missed, at the threshold grade."""
    policy = inputs.policy
    grade = inputs.grade
    restricted = policy.pool == "restrict" and policy.invalid_scores == "drop"
    # The truth (from `rk.label`) restricted to the ranked items, as `evaluate` restricts it:
    # a row whose score is dropped is not in the pool.
    pooled = (
        ranking.is_valid_score(inputs.score)
        if inputs.unretrieved is not None and restricted
        else pl.lit(True)
    )
    if inputs.item is not None:
        copies = [*_GROUP, inputs.item, pooled]
        first_copy = pl.int_range(pl.len()).over(copies) == 0
        grade = grade.max().over(copies).filter(first_copy & pooled)
    else:
        grade = grade.filter(pooled)
    if inputs.unretrieved is not None:
        # The judged items the rows miss, with their own grades: R_g, the ideal DCG and the
        # judged non-relevant count are then the truth's, exactly.
        grade = grade.drop_nulls().append(inputs.unretrieved.drop_nulls().first().explode())
        grade = grade.drop_nulls()
    labelled = (grade >= policy.relevance_threshold).sum().cast(pl.Int64)
    nonrelevant = (grade < policy.relevance_threshold).sum().cast(pl.Int64)
    gains = ranking.gain_of(grade.drop_nulls(), policy)
    if inputs.n_relevant is None or inputs.unretrieved is not None:
        return labelled, gains, nonrelevant
    # A null R_g (a group the truth does not know) voids the group; its padding is empty.
    missing = (inputs.n_relevant.max() - labelled).clip(lower_bound=0).fill_null(0)
    missing_gain = ranking.gain_of(pl.lit(float(policy.relevance_threshold)), policy)
    return labelled + missing, gains.append(pl.repeat(missing_gain, missing)), nonrelevant


def metric_expression(
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
    """Any registered metric of each group, as an expression (null where `evaluate` would have
    no value for the group).

    Without `n_relevant` or `unretrieved` R_g is the rows' relevant count, as `evaluate`
    counts it for pre-labelled candidates: a group whose rows hold none scores NaN under
    ``empty_truth="nan"``, else 0 (never null: the rows cannot say the group has nothing to
    find, and a null would let ``pl.mean`` skip a list that found nothing). Where
    `evaluate` raises on the rows (an invalid score under ``invalid_scores="error"``, a
    repeated item under ``duplicates="error"``) the query raises, naming the column and the
    item. A group without rows has no value (`evaluate` scores it under `missing_groups`).

    Parameters
    ----------
    metric
        A registered metric: its name or any accepted spelling (``"ndcg"``, ``"nDCG@10"``,
        ``"P_5"``); a cut-off in the name is used when `k` is not given.
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
    >>> df.select(rk.metric_expression("P@2", "rel", by="score", item="item")).item()
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
    if request.policy:
        raise ValueError(
            f"metric {metric!r} carries parameters ({request.policy}); pass them as "
            f"policy=rk.Policy(...) instead"
        )
    entry = REGISTRY[request.metric]
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
    metrics: Sequence[str],
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
    """Several registered metrics of each group as one struct expression (a field per metric,
    named as `metric_expression` names it), ranking each group once.

    Each field equals `metric_expression` of that metric; on the compiled kernel the group is
    ranked by one plugin call for all of them (`metric_expression` calls it once per metric).
    ``.unnest()`` the struct for one column per metric.

    Parameters
    ----------
    metrics
        Registered metric names (any accepted spelling; a cut-off in a name is used where `k`
        is not given).
    relevance, by, k, item, n_relevant, policy, rank, unretrieved
        As for `metric_expression`.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
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

    if isinstance(metrics, str) or not metrics:
        raise ValueError("metrics must be a non-empty list of metric names")
    chosen: list[tuple[str, int | None]] = []
    for metric in metrics:
        request = parse_metric_name(metric)
        entry = REGISTRY[request.metric]
        if request.policy or not entry.accuracy:
            # Refused in the words `metric_expression` uses.
            metric_expression(metric, relevance, by=by, k=k, item=item, policy=policy, rank=rank)
        cutoff = k if k is not None else request.k
        if entry.has_k and cutoff is None:
            raise ValueError(f"{entry.name} takes a cut-off: pass k=<int>")
        chosen.append((entry.name, None if not entry.has_k else _check_k(cutoff or 0)))
    inputs = _inputs(relevance, by, rank, item, n_relevant, policy, unretrieved)
    needs = term_needs([name for name, _ in chosen], inputs.policy)
    if not expression_kernel.usable(inputs.policy, needs):
        return pl.struct(
            *(
                _metric(name, relevance, by, cut, item, n_relevant, policy, rank, unretrieved)
                for name, cut in chosen
            )
        )
    ks = sorted({cut for _, cut in chosen if cut is not None})
    group = _kernel_group(inputs, needs, ks)
    assert group.sums is not None
    assert group.outer_void is not None
    values: dict[str, pl.Expr] = {}
    for name, cut in chosen:
        declared = REGISTRY[name]
        value = finished(
            declared.value(inputs.policy, cut, group.stats), inputs.policy, cut, group.stats
        )
        values[declared.column(cut)] = (
            pl.when(group.void).then(pl.lit(None, pl.Float64)).otherwise(value)
        )
    struct = expression_kernel.computed_struct(group.sums, values)
    return pl.when(group.outer_void).then(pl.lit(None)).otherwise(struct)


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
    inputs = _inputs(relevance, by, rank, item, n_relevant, policy, unretrieved)
    metric = REGISTRY[name]
    group = _ranked_group(inputs, name, cutoff)
    value = metric.value(inputs.policy, cutoff, group.stats)
    value = finished(value, inputs.policy, cutoff, group.stats)
    value = pl.when(group.void).then(pl.lit(None, pl.Float64)).otherwise(value)
    if group.sums is not None and group.outer_void is not None:
        # On the kernel, the formula reads the struct of sums the group's one call returned;
        # the kernel itself refuses an invalid score, naming the column, value and item.
        value = expression_kernel.computed(group.sums, value)
        value = pl.when(group.outer_void).then(pl.lit(None, pl.Float64)).otherwise(value)
    else:
        refusals = _refusals(inputs)
        if refusals:
            # Null unless the rows are refused, when the query raises instead.
            value = pl.coalesce(*refusals, value)
    return value.alias(metric.column(cutoff))
