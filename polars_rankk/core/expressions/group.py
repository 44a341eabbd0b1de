"""One group's rows as a metric expression sees them, ranked as `evaluate` ranks them.

`inputs_of` reads the user's arguments into `Inputs`; `ranked_group` ranks the group — on the
compiled kernel (`kernel_group`, one plugin call: `polars_rankk.core.kernel.per_group`) or in
pure Polars (`ranked_rows` and `truth`, the reference) — into the `GroupStats` the registry's
formulas read. `polars_rankk.core.expressions.expressions` builds the public expressions on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl
import polars.selectors as cs

from polars_rankk.core.columns import HITS, IDEAL_DCG, stat_column
from polars_rankk.core.kernel import per_group as expression_kernel
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.formulas import COLUMNS, GroupStats, finished
from polars_rankk.core.metrics.registry import DEFAULT_METRICS, REGISTRY, term_needs
from polars_rankk.core.metrics.terms import RankedRows, TermNeeds, row_terms
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import IntoExprColumn

#: The whole group: the expression is evaluated per group by ``agg`` or ``over``.
_GROUP: list[pl.Expr] = [pl.lit(0)]


def as_expr(value: IntoExprColumn) -> pl.Expr:
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Series):
        return pl.lit(value)
    raise TypeError(f"expected a column name, expression or Series; got {type(value).__name__}")


def name_of(expr: pl.Expr, option: str) -> str:
    """The column an expression reads, for messages; the option's name when it has none."""
    name = expr.meta.output_name(raise_if_undetermined=False)
    return name if name else f"{option}=..."


def refused(bad: pl.Expr, message: pl.Expr) -> pl.Expr:
    """Null, or an error carrying `message` at the first row where `bad`, when the query runs.

    Polars has no expression that raises; a strict cast of the message to a number does, with
    the message in the error (``InvalidOperationError``), and costs nothing where no row is bad.
    """
    return message.filter(bad).first().cast(pl.Int8, strict=True).cast(pl.Float64)


def _is(column: pl.Expr, selector: cs.Selector) -> pl.Expr:
    """True when `column`'s dtype (resolved with the query's schema) is one `selector` picks."""
    return pl.dtype_of(column).matches(selector)


def grade_numbers(column: pl.Expr) -> pl.Expr:
    """A grade column read as Float64 without a strict cast, whose error (Polars' own) would
    come before `text_grade_refusal`'s: text that is no number reads as null, a Categorical or
    Enum as its codes (which Polars refuses to cast; the query is refused before they count)."""
    return (
        pl.when(_is(column, cs.categorical() | cs.enum()))
        .then(column.to_physical().cast(pl.Float64))
        .otherwise(column.cast(pl.Float64, strict=False))
    )


def text_grade_refusal(relevance: pl.Expr, item: pl.Expr | None) -> pl.Expr:
    """Null, or the query's error when the grade column holds text (String, Categorical or
    Enum), in the words `evaluate` refuses it with."""
    top = relevance.max()
    is_text = _is(relevance, cs.string() | cs.categorical() | cs.enum())
    text = top.is_not_null() & is_text
    name = name_of(relevance, "relevance")
    row = (relevance == top).arg_max()
    where = (
        pl.format(" at row {} of its group", row)
        if item is None
        else pl.format(" (item {})", item.gather(row))
    )
    dtype = (
        pl.when(_is(relevance, cs.enum()))
        .then(pl.lit("Enum"))
        .when(_is(relevance, cs.categorical()))
        .then(pl.lit("Categorical"))
        .otherwise(pl.lit("String"))
    )
    said = pl.format(f"column {name!r} must be numeric (a grade); it has dtype {{}}", dtype)
    message = pl.concat_str(said, pl.format(", e.g. the grade '{}'", top.cast(pl.String)), where)
    # Polars prunes a branch whose condition is a constant when it plans the query: a numeric
    # column's check is then nothing, where building the message for every group cost a third
    # of an expression's time.
    return pl.when(is_text).then(refused(text, message))


def refused_text_grade(value: pl.Expr, inputs: Inputs) -> pl.Expr:
    """`value`, or the query's error when the grade column holds text (on every path: the
    kernel reads such a column's numbers silently)."""
    return value if inputs.text_grade is None else pl.when(inputs.text_grade.is_null()).then(value)


def refusals(inputs: Inputs) -> list[pl.Expr]:
    """Where `evaluate` raises on the rows, the query raises: an invalid score under
    ``invalid_scores="error"``, a repeated item under ``duplicates="error"``, a grade column
    of text."""
    policy, item = inputs.policy, inputs.item
    row = pl.int_range(pl.len(), dtype=pl.Int64)
    where = (
        pl.format(" at row {} of its group", row)
        if item is None
        else pl.format(" at row {} of its group (item {})", row, item)
    )
    found = [] if inputs.text_grade is None else [inputs.text_grade]
    if policy.invalid_scores == "error":
        bad = ~ranking.is_valid_score(inputs.score)
        value = inputs.given_score.cast(pl.Float64).cast(pl.String).fill_null("null")
        said = (
            f"column {inputs.score_name!r} must hold finite numbers (null, NaN and inf are "
            f"invalid scores; Policy(invalid_scores='drop' or 'lowest') handles them); it holds "
        )
        found.append(refused(bad, pl.concat_str(pl.lit(said), value, where)))
    if item is not None and policy.duplicates == "error":
        name = name_of(item, "item")
        said = (
            f"column {name!r} repeats an item in a group and Policy(duplicates='error') forbids "
            f"it (use duplicates='first' to keep the highest-scored copy):"
        )
        found.append(refused(item.is_duplicated(), pl.concat_str(pl.lit(said), where)))
    return found


@dataclass(frozen=True)
class Inputs:
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
    #: The grades of the group's judged items the rows do not hold (`rk.label` writes them),
    #: as given (negative grades kept, as in `grade`'s `order_grade`).
    unretrieved: pl.Expr | None = None
    #: Null, or the error refusing a grade column of text (`text_grade_refusal`).
    text_grade: pl.Expr | None = None
    #: `score` as the compiled kernel reads it: -0.0 not folded into 0.0 here (the kernel
    #: folds it as it reads), which spares each expression a pass and a copy of its rows.
    kernel_score: pl.Expr | None = None


def inputs_of(
    relevance: IntoExprColumn,
    by: IntoExprColumn | None,
    rank: IntoExprColumn | None,
    item: IntoExprColumn | None,
    n_relevant: IntoExprColumn | None,
    policy: Policy | None,
    unretrieved: IntoExprColumn | None = None,
) -> Inputs:
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
    column = as_expr(relevance)
    item_column = None if item is None else as_expr(item)
    given = grade_numbers(column)
    if policy.fractional_grades == "truncate":  # as trec_eval reads a grade (atol)
        given = given.cast(pl.Int64, strict=False).cast(pl.Float64)
    grade = given
    if policy.negative_grades == "unjudged":
        # trec_eval: a negative grade is no judgement, like a null one.
        grade = pl.when(given >= 0).then(given)
    given_score = as_expr(ranking_column)
    missed = None if unretrieved is None else as_expr(unretrieved).cast(pl.List(pl.Float64))
    if missed is not None and policy.fractional_grades == "truncate":
        missed = missed.list.eval(pl.element().cast(pl.Int64, strict=False).cast(pl.Float64))
    kernel_score = given_score.cast(pl.Float64)
    return Inputs(
        grade=grade,
        order_grade=given,
        score=ranking.score_value(given_score, lower_is_better=rank is not None),
        kernel_score=kernel_score if rank is None else -kernel_score,
        given_score=given_score,
        score_name=name_of(given_score, "by" if rank is None else "rank"),
        item=item_column,
        n_relevant=None if n_relevant is None else as_expr(n_relevant).cast(pl.Int64),
        policy=policy,
        unretrieved=missed,
        text_grade=text_grade_refusal(column, item_column),
    )


@dataclass(frozen=True)
class Group:
    """One group ranked as `evaluate` ranks it: its statistics, and when it has no value."""

    stats: GroupStats
    #: True where `evaluate` would leave the group out whatever the cut-off.
    void: pl.Expr
    #: The struct of sums `stats` reads as fields (the value is computed on it).
    sums: pl.Expr | None = None
    #: True where the group has no value, read outside the struct (None: `void` says it).
    outer_void: pl.Expr | None = None
    #: Ranked by the compiled kernel (which refuses invalid rows itself).
    on_kernel: bool = False


def ranked_rows(inputs: Inputs) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """The group's ranked rows, in rank order: (score, grade, pooled). A null grade marks an
    unjudged row: it stays null here (``unjudged="condense"`` removes it); pooled marks the
    unjudged rows labelled with a negative grade (under ``negative_grades="unjudged"``: in the
    pool, not judged, as infAP counts them). Rows on which `evaluate` raises are refused by
    `refusals`.

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
    unjudged_negative = pl.lit(policy.negative_grades == "unjudged")
    pooled = grade.is_null() & unjudged_negative & order_grade.is_finite() & (order_grade < 0)
    score, grade, pooled = (c.sort_by(order, descending=descending) for c in (score, grade, pooled))
    return score, grade, pooled


#: The fields of the ranked rows' struct.
_RANKED = ("_rk_score", "_rk_grade", "_rk_pooled")


def ranked_group(inputs: Inputs, metric: str, k: int | None = None) -> Group:
    policy = inputs.policy
    needs = term_needs([metric], policy)
    if expression_kernel.usable(policy, needs):
        own = read_fields([(metric, k)], policy)
        shared = _shared(metric, k, policy)
        if shared is not None:
            common_needs, common_reads = shared
            assert k is not None
            return kernel_group(inputs, common_needs, [k], common_reads, returned=own)
        return kernel_group(inputs, needs, [] if k is None else [k], own)
    # The ranked rows once, as a struct: the terms below read them as fields (leaves), where
    # each read would otherwise copy the whole ranking expression.
    ranked = pl.struct(*(c.alias(n) for c, n in zip(ranked_rows(inputs), _RANKED, strict=True)))
    score, grade, pooled = (pl.field(name) for name in _RANKED)
    window = ranking.Sorted(score)
    n_relevant, ideal_gains, n_nonrelevant = truth(inputs)
    rows = RankedRows(
        window,
        grade.fill_null(ranking.unjudged_grade(policy)),
        policy,
        judged=grade.is_not_null(),
        n_relevant=n_relevant,
        n_nonrelevant=n_nonrelevant,
        pooled_unjudged=pooled,
    )
    terms = row_terms(rows, needs.columns)
    cumulated = {stat: window.cumulative(term) for stat, term in terms.items()}

    ideal = ranking.ideal_cumulative(ideal_gains)
    ideal_rank = pl.int_range(1, ideal.len() + 1, dtype=pl.Int64)

    fall = ranking.falls(policy)

    def at(stat: str, k: int) -> pl.Expr:
        if stat == IDEAL_DCG:
            return ranking.read_at(ideal, ideal_rank, k)
        return ranking.read_at(cumulated[stat], window.rank, k, may_fall=fall)

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
        whole=lambda stat: ranking.read_whole(cumulated[stat], window.rank, may_fall=fall),
    )
    void = (n_relevant == 0) if policy.empty_truth == "exclude" else pl.lit(False)
    fields, sums = _read_once(stats, metric, k, policy, ranked)
    return Group(stats=fields, void=pl.lit(False), sums=sums, outer_void=void | unknown(inputs))


def _read_once(
    stats: GroupStats, metric: str, k: int | None, policy: Policy, ranked: pl.Expr
) -> tuple[GroupStats, pl.Expr]:
    """The statistics `metric` reads, each computed once into a struct, and `GroupStats`
    reading that struct's fields (as the kernel's are read).

    A formula reads a statistic many times (the C/W/L tails read the ranks read some twenty
    times, inside digamma and trigamma), and a statistic reads the ranked rows several
    times: each read would copy the whole expression below it, and an INST expression grew
    to millions of characters (seconds per group). The statistics of the ranking are
    computed on `ranked` (the ranked rows as a struct, read by field); those of the truth
    (R_g, the ideal DCG) outside it, as they do not read the ranked rows.
    """
    of_ranking: dict[str, pl.Expr] = {}
    of_truth: dict[str, pl.Expr] = {}

    def field(name: str, expr: pl.Expr, of: dict[str, pl.Expr] = of_ranking) -> pl.Expr:
        of.setdefault(name, expr)
        return pl.field(name)

    def at(stat: str, cut: int) -> pl.Expr:
        read = of_truth if stat == IDEAL_DCG else of_ranking
        return field(f"at:{stat_column(stat, cut)}", stats.at(stat, cut), read)

    fields = GroupStats(
        at=at,
        n_candidates=field("n_candidates", stats.n_candidates),
        n_relevant=field("n_relevant", stats.n_relevant, of_truth),
        hits_at_r=field("hits_at_r", stats.hits_at_r),
        whole=lambda stat: field(f"whole:{stat}", stats.whole(stat)),
    )
    finished(REGISTRY[metric].value(policy, k, fields), policy, k, fields)  # records the reads
    sums = pl.struct(*(expr.alias(name) for name, expr in of_ranking.items()))
    # get(0), not first() (both null where no row is ranked): Polars' slice pushdown moves
    # a first() into the ranked rows, and the sums were computed on one row (Polars 2.1,
    # lazy queries).
    sums = (
        ranked.struct.with_fields(sums.alias("_rk_sums"))
        .struct.field("_rk_sums")
        .get(0, null_on_oob=True)
    )
    # No ranked row (all dropped or condensed): every statistic of the ranking is 0, as
    # `ranking.read_at` reads an empty ranking, where the struct has no row to read.
    sums = sums.fill_null(pl.struct(*(pl.lit(0).alias(name) for name in of_ranking)))
    if of_truth:
        sums = sums.struct.with_fields(*(expr.alias(name) for name, expr in of_truth.items()))
    return fields, sums


def unknown(inputs: Inputs) -> pl.Expr:
    """True for a group the truth does not know (null R_g, or null unretrieved grades from
    `rk.label`): it is not evaluated, as `evaluate` evaluates the truth's groups."""
    unknown = pl.lit(False)
    for known in (inputs.n_relevant, inputs.unretrieved):
        if known is not None:
            unknown = unknown | known.is_null().all()
    return unknown


def read_fields(metrics: list[tuple[str, int | None]], policy: Policy) -> frozenset[str]:
    """The statistics the formulas of `metrics` (name, cut-off) read, by name: the kernel
    returns only these (each field it returns is one more array per group to hand back)."""
    read: set[str] = set()
    for name, k in metrics:
        value = REGISTRY[name].value(policy, k, COLUMNS)
        read.update(finished(value, policy, k).meta.root_names())
    return frozenset(read)


def _shared(metric: str, k: int | None, policy: Policy) -> tuple[TermNeeds, frozenset[str]] | None:
    """The statistics the default metrics with a cut-off read at `k`, and their terms, when
    `metric` is one of them: each such expression asks the kernel for all of them, so that
    several in one ``agg()`` make the same call and share its ranking."""
    common = [name for name in DEFAULT_METRICS if REGISTRY[name].has_k]
    if k is None or metric not in common:
        return None
    needs = term_needs(common, policy)
    if not expression_kernel.usable(policy, needs):
        return None
    return needs, read_fields([(name, k) for name in common], policy)


def kernel_group(
    inputs: Inputs,
    needs: TermNeeds,
    ks: list[int],
    reads: frozenset[str] | None = None,
    returned: frozenset[str] | None = None,
) -> Group:
    """The group ranked by the compiled kernel: the same statistics, one plugin call
    (computing only the statistics in `reads`, when given, and R_g and the list's length;
    returning only those in `returned`, when given)."""
    sums = expression_kernel.group_stats(
        item=inputs.item,
        score=inputs.score if inputs.kernel_score is None else inputs.kernel_score,
        score_name=inputs.score_name,
        grade=inputs.order_grade,
        n_relevant=inputs.n_relevant,
        unretrieved=inputs.unretrieved,
        policy=inputs.policy,
        needs=needs,
        ks=ks,
        reads=reads,
        returned=returned,
    )
    stats = expression_kernel.FIELDS
    # An invalid score under invalid_scores="error" is the kernel's error, naming the column.
    # A group the truth does not know has no value; the kernel says which (read inside the
    # struct, so that the plugin runs once).
    void = pl.field(expression_kernel.KNOWN) == 0
    if inputs.policy.empty_truth == "exclude":
        void = void | (stats.n_relevant == 0)
    return Group(stats=stats, void=void, sums=sums, outer_void=None, on_kernel=True)


def truth(inputs: Inputs) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
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
        missed = inputs.unretrieved.drop_nulls().first().explode()
        if policy.negative_grades == "unjudged":
            # The missed items' negative grades are no judgement either (bpref's judged
            # non-relevant count, trec_eval's, leaves them out): nulls, dropped below.
            missed = pl.when(missed >= 0).then(missed)
        grade = grade.drop_nulls().append(missed).drop_nulls()
    labelled = (grade >= policy.relevance_threshold).sum().cast(pl.Int64)
    nonrelevant = (grade < policy.relevance_threshold).sum().cast(pl.Int64)
    gains = ranking.gain_of(grade.drop_nulls(), policy)
    if inputs.n_relevant is None or inputs.unretrieved is not None:
        return labelled, gains, nonrelevant
    # A null R_g (a group the truth does not know) voids the group; its padding is empty.
    missing = (inputs.n_relevant.max() - labelled).clip(lower_bound=0).fill_null(0)
    missing_gain = ranking.gain_of(pl.lit(float(policy.relevance_threshold)), policy)
    return labelled + missing, gains.append(pl.repeat(missing_gain, missing)), nonrelevant
