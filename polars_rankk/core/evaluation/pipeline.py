"""`evaluate`: candidates + truth -> an `Evaluation` (per-group metrics, summaries,
diagnostics), in one lazy pass over the candidates."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import polars as pl

from polars_rankk.core.evaluation.beyond_accuracy import (
    ItemTables,
    beyond_values,
    item_tables,
    top_rows,
)
from polars_rankk.core.evaluation.catalogue import Exposures, catalogue_values
from polars_rankk.core.evaluation.diversity import SubtopicJob, subtopic_job
from polars_rankk.core.evaluation.evaluation import Evaluation, assemble
from polars_rankk.core.evaluation.prepare import Prepared, prepare_parts
from polars_rankk.core.evaluation.variants import combined, label
from polars_rankk.core.evaluation.views import (
    apply_group_policies,
    metric_table_of,
)
from polars_rankk.core.inputs.evaluation_inputs import Inputs
from polars_rankk.core.inputs.groups import check_missing_groups, warn_empty
from polars_rankk.core.inputs.labels.joint import LabelSource
from polars_rankk.core.inputs.labels.probability import LabelDraws, evaluated_over_labels
from polars_rankk.core.inputs.normalize import column_name, require_group_by
from polars_rankk.core.inputs.spec import Spec, check_inputs
from polars_rankk.core.kernel.label_moments import fixed_order_moments
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.conventions import ToolNameWarning
from polars_rankk.core.names.plan import Part, Plan
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import EngineType, FrameLike


def _arguments(
    candidates: FrameLike,
    group_by: str | Sequence[str] | None,
    relevance: str,
    policy: Policy | None,
) -> tuple[str | Sequence[str], str, Policy]:
    """`evaluate`'s group keys (required), relevance column name and policy (the default's
    when None), read before the inputs are checked."""
    group_by = require_group_by(group_by, candidates)
    return group_by, column_name(relevance, "relevance"), Policy() if policy is None else policy


def evaluate(
    candidates: FrameLike,
    truth: FrameLike | None = None,
    *,
    k: int | Iterable[int] | None = None,
    metrics: str | Iterable[str] | Plan | None = None,
    group_by: str | Sequence[str] | None = None,
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    n_relevant: str | None = None,
    policy: Policy | None = None,
    engine: EngineType = "auto",
    check_values: bool = True,
    rank: str | None = None,
    popularity: FrameLike | None = None,
    catalogue: FrameLike | None = None,
    item_features: FrameLike | None = None,
    head_share: float = 0.2,
    system: str | None = None,
    subtopic: str | None = None,
    label_probability: str | None = None,
    label_draws: int = 1000,
    label_seed: int = 0,
) -> Evaluation:
    """Evaluate ranked candidates against truth: every metric at every K, per group.

    The beyond-accuracy metrics (``novelty, arp, long_tail_share, intra_list_diversity``
    per group; ``coverage, gini, entropy, personalization`` in ``catalogue``) are asked for
    by name. With only those, `truth` is optional: every candidate group is evaluated.

    Parameters
    ----------
    candidates
        One row per (group, item) scored by the model: the `group_by` columns, `item` and
        `score` (higher ranks first). If it carries a `relevance` column and no `truth` is
        given it is pre-labelled: ranks take their relevance from it. Beside a `truth`, the
        truth decides and the column is ignored (an `IgnoredColumnWarning` names it).
    truth
        One row per judged (group, item), with an optional `relevance` grade (absent: every
        row is relevant with grade 1). The groups evaluated are the groups in `truth`
        (or in `candidates` when there is no truth).
    k
        One cut-off or several (``k=[1, 5, 10]``, ``k=range(1, 101)``); all come from one pass.
        Default: 10 where a name is read at the evaluation's K (``ndcg``, the default metrics);
        names that carry their cut-off (``P@5``, ``R@1000``) or read the whole list (``map``)
        are evaluated at their own alone.
    metrics
        Metric names (default all): ``precision, recall, f1, hit_rate, ndcg,
        average_precision, mrr, r_precision``.
    group_by
        The group key column(s): query, user, session ... Required (None raises a TypeError
        naming the candidates' columns; the TREC readers' tables name it ``query``).
    item, score, relevance
        Column names.
    n_relevant
        With pre-labelled candidates and no truth: a column holding R_g for each group
        (relevant items the list may have missed).
    policy
        Every definitional choice (`Policy`); default ``Policy()``; ``Policy.trec_eval()``
        reproduces trec_eval.
    engine
        Polars engine used to collect eager results.
    check_values
        Scan the inputs once for nulls, invalid scores and negative grades (default). Turn it
        off only for inputs already validated.
    rank
        A rank column (1 = best, lower ranks first) to rank by instead of `score`, e.g. a
        logged position. Ties in it are broken by the policy, as for scores.
    popularity
        For ``novelty``, ``arp`` and ``long_tail_share``: an interaction log (each row of its
        `item` column counts once) or an ``(item, count)`` table (a ``count`` column).
    catalogue
        For the catalogue-level metrics: a table of items (an `item` column); default every
        item seen in the candidates or the popularity log.
    item_features
        For ``intra_list_diversity``: `item` and one feature column, either labels (one or
        several rows per item, or a list of labels) or an embedding (``list[f64]`` or
        ``array``, one row per item), compared by cosine distance.
    head_share
        The share of interactions the head (the most popular items) makes up, for
        ``long_tail_share``.
    system
        A candidates column naming each row's system (run, model): every system is ranked
        and scored on its own in the same pass, the column acting as the outermost group key,
        against the same truth (a truth table without that column serves every system).
        ``per_group``, ``groups``, ``summary()`` and the diagnostics' tables then start with
        this column; ``by_system()`` gives one evaluation per system, which `compare`,
        `report` and `k_curve` read without ranking again. Without it, rows of different
        systems are one ranking: de-duplication keeps each item's highest score across them.
    subtopic
        A truth column naming each judgement's subtopic (intent), for the subtopic metrics
        (``alpha_ndcg, alpha_dcg, err_ia, nerr_ia, p_ia, ap_ia, st_recall, nrbp, nnrbp``;
        ir_measures' ``alpha_nDCG@20``, ``ERR_IA@20``, ``nNRBP`` ...), which equal ndeval.
        Every other metric reads an item's grade as its largest over subtopics.
    label_probability
        A truth column giving the probability that the item has the row's grade (labels
        written by a model): an item's rows sum to at most 1, the rest of its mass being
        grade 0, items independent. Each ``per_group`` value is then the metric's
        expectation over the label outcomes, with ``std`` (its standard deviation over them)
        and ``standard_error`` (of a Monte Carlo mean; 0 when exact). Under a fixed tie
        order, precision, recall, hit rate, RR, AP, nDCG, DCG, RBP and R-precision are exact
        at any number of outcomes (a recursion over the ranks, no outcome evaluated; graded
        nDCG and DCG by counts per gain level). Otherwise a group's outcomes are all
        evaluated, weighted by their probability, when there are at most 4096 (exact for
        every metric); past that
        precision, DCG, RBP and the relevant retrieved count stay exact by linearity, and the
        others draw `label_draws` outcomes, seeded by `label_seed`.
        ``label_methods`` names the method per (metric, k); every view reads the
        expectations (``groups``' ``n_relevant`` is R_g's; ``summary(average="micro")`` is
        refused); the groups a policy drops and the diagnostics are those of each item at
        its highest grade of positive probability. See
        ``docs/judges.md``.
    label_draws, label_seed
        The Monte Carlo draws per group with too many outcomes to enumerate, and their seed.

    Returns
    -------
    Evaluation
        ``per_group`` (one row per group, metric, k), ``summary()``, ``diagnostics``. Lazy
        inputs give a lazy ``per_group`` to collect or sink.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({
    ...     "user": [1, 1, 1, 2, 2],
    ...     "item": ["a", "b", "c", "a", "d"],
    ...     "score": [0.9, 0.5, 0.1, 0.8, 0.7],
    ... })
    >>> truth = pl.DataFrame({"user": [1, 2, 2], "item": ["b", "d", "e"]})
    >>> res = rk.evaluate(candidates, truth, k=[1, 2], metrics=["precision", "ndcg"],
    ...                   group_by="user")
    >>> res.per_group.filter(pl.col("k") == 2)
    shape: (4, 4)
    ┌──────┬───────────┬─────┬──────────┐
    │ user ┆ metric    ┆ k   ┆ value    │
    │ ---  ┆ ---       ┆ --- ┆ ---      │
    │ i64  ┆ str       ┆ i64 ┆ f64      │
    ╞══════╪═══════════╪═════╪══════════╡
    │ 1    ┆ precision ┆ 2   ┆ 0.5      │
    │ 1    ┆ ndcg      ┆ 2   ┆ 0.63093  │
    │ 2    ┆ precision ┆ 2   ┆ 0.5      │
    │ 2    ┆ ndcg      ┆ 2   ┆ 0.386853 │
    └──────┴───────────┴─────┴──────────┘
    """
    group_by, relevance, policy = _arguments(candidates, group_by, relevance, policy)
    inputs = Inputs(
        candidates, truth, group_by=group_by, item=item, score=score, relevance=relevance,
        n_relevant=n_relevant, engine=engine, check_values=check_values, rank=rank,
        popularity=popularity, catalogue=catalogue, item_features=item_features,
        head_share=head_share, system=system, subtopic=subtopic,
    )  # fmt: skip
    if label_probability is not None:
        draws = LabelDraws(label_probability, label_draws, label_seed, fixed_order_moments)
        return _over_labels(Plan.of(metrics, k, policy), inputs, draws)
    if not _eager(inputs):
        return evaluate_plan(Plan.of(metrics, k, policy), inputs)
    return _evaluated_and_said(metrics, k, policy, inputs)


def _over_labels(plan: Plan, inputs: Inputs, draws: LabelDraws) -> Evaluation:
    """`plan` evaluated over the label outcomes (planned once, for every outcome), with
    what it was computed from (for several systems on shared outcomes)."""
    found: Evaluation = evaluated_over_labels(evaluate_plan, plan, inputs, draws)
    found.label_source = LabelSource(plan, inputs, draws, evaluate_plan)
    return found


def _eager(inputs: Inputs) -> bool:
    """Eager tables, whose tool-name warnings are checked on the data (`evaluate` of a lazy
    frame stays a plan: its warnings are said as planned)."""
    return isinstance(inputs.candidates, pl.DataFrame) and (
        inputs.truth is None or isinstance(inputs.truth, pl.DataFrame)
    )


def _evaluated_and_said(
    metrics: str | Iterable[str] | Plan | None,
    k: int | Iterable[int] | None,
    policy: Policy,
    inputs: Inputs,
) -> Evaluation:
    """`evaluate_plan` of the plan, its planning's warnings said after it, a `ToolNameWarning`
    only where the data make the tool's number differ (said then in words that it does): the
    name evaluated again under the fields the warning names as the tool's (from the same plan:
    no name is read again). A warning the check cannot read is said."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = Plan.of(metrics, k, policy)
    result = evaluate_plan(plan, inputs)
    say_where_the_data_differ(caught, plan, inputs)
    return result


def say_where_the_data_differ(
    caught: Sequence[warnings.WarningMessage], plan: Plan, inputs: Inputs
) -> None:
    """Say the warnings `caught` while `plan` was made, once it is evaluated on `inputs`
    (eager tables): a `ToolNameWarning` only where the data make the tool's number
    differ, in words that it does; every other warning as it was."""
    for said in caught:
        warning = said.message
        if not isinstance(warning, ToolNameWarning) or not warning.tool_fields:
            warnings.warn_explicit(warning, said.category, said.filename, said.lineno)
        elif _differs(warning, plan, inputs):
            # What it may do, it does here.
            warnings.warn_explicit(
                warning.checked_on_data(), said.category, said.filename, said.lineno
            )


def _differs(warning: ToolNameWarning, plan: Plan, inputs: Inputs) -> bool:
    """Whether the per-group values of the name `warning` is about differ under its policy
    and under it with the tool's fields, on `inputs` (True where the check cannot tell: the
    warning is then said)."""
    one = None if warning.name is None else plan.alone(warning.name)
    if one is None:
        return True
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for chosen in (one, one.with_policy(**warning.tool_fields)):
            try:
                rows = evaluate_plan(chosen, inputs).per_group
            except (ValueError, TypeError):
                return True
            if not isinstance(rows, pl.DataFrame):
                return True
            by = [column for column in rows.columns if column not in ("metric", "value")]
            values.append(rows.sort(by).get_column("value").fill_nan(None))
    return not values[0].equals(values[1])


def evaluate_plan(plan: Plan, inputs: Inputs) -> Evaluation:
    """`evaluate` of `plan` on `inputs`: each part under its own policy (`Plan.parts`), every
    cut-off of the plan at each, as one `Evaluation` (the first part's, the others its
    variants). Parts whose ordering fields are equal (`Policy.ordering`) share one ranking
    pass: their inputs are checked once, the candidates ranked once (`prepare_parts`) and,
    for eager tables, every part's sums collected together."""
    started = _started(plan, inputs)
    specs = [one.spec for one in started]
    prepared = prepare_parts(specs, [id(one.truth) for one in started])
    collected = _one_pass(started, prepared, inputs.engine)
    return combined(
        [
            label(
                _evaluate_part(one, replace(ready, facts=facts, places=places), (table, top)),
                one.part.labels,
                plan,
            )
            for one, ready, (table, top, facts, places) in zip(
                started, prepared, collected, strict=True
            )
        ]
    )


@dataclass(frozen=True)
class _Started:
    """A part of the plan, its inputs checked (`Spec`), before its ranking pass."""

    part: Part
    spec: Spec
    #: The policy its groups are kept under (`_checked_spec`).
    policy: Policy
    #: The truth it reads (the subtopics' collapsed): parts sharing a ranking share it.
    truth: FrameLike | None
    subtopics: SubtopicJob
    tables: ItemTables


def _started(plan: Plan, inputs: Inputs) -> list[_Started]:
    """Each part's inputs checked, their values scanned once per ordering (the checks read
    only the ordering fields: invalid scores, duplicates) and truth."""
    keys = _keys(inputs.group_by, inputs.system)
    scanned: set[tuple[object, ...]] = set()
    started = []
    for part in plan.parts:
        truth, subtopics = subtopic_job(
            part, inputs.truth, subtopic=inputs.subtopic, keys=keys, item=inputs.item,
            relevance=inputs.relevance,
        )  # fmt: skip
        key = (*part.policy.ordering(), id(truth))
        spec, policy = _checked_spec(plan, part, inputs, truth, key not in scanned)
        scanned.add(key)
        tables = item_tables(
            spec,
            needs=[table for name in part.beyond for table in REGISTRY[name].requires],
            popularity=inputs.popularity,
            catalogue=inputs.catalogue,
            item_features=inputs.item_features,
            head_share=inputs.head_share,
        )
        started.append(_Started(part, spec, policy, truth, subtopics, tables))
    return started


def _evaluate_part(
    started: _Started, prepared: Prepared, sums: tuple[FrameLike, pl.LazyFrame]
) -> Evaluation:
    """One part of the plan from its ranking pass: its names under its policy, at every
    cut-off of the plan (`sums`: its per-group table and top rows, `_one_pass`)."""
    part, spec, subtopics = started.part, started.spec, started.subtopics
    all_groups, top = sums
    kept = apply_group_policies(all_groups.lazy(), started.policy)
    wide = metric_table_of(kept, spec)
    per_group_beyond, catalogue_table, exposures = beyond_values(
        spec, top, kept, part.beyond_group, part.beyond_catalogue, started.tables
    )
    if per_group_beyond is not None:
        wide = wide.join(per_group_beyond, on=list(spec.keys), how="left")
    if subtopics.metrics:
        wide, said = subtopics.joined(wide, prepared.ranked, kept, spec)
        prepared = replace(prepared, path=prepared.path + said)
    if part.beyond or subtopics.metrics:
        # The canonical accuracy names (none when only the ranking was needed).
        accuracy = () if part.ranking_only else spec.metrics
        metric_names = (*accuracy, *part.beyond_group, *subtopics.metrics)
        spec = replace(spec, metrics=metric_names)
    return _assembled(
        spec, prepared, all_groups, kept, wide, catalogue_table, exposures, part.beyond_catalogue
    )


def _checked_spec(
    plan: Plan, part: Part, inputs: Inputs, truth: FrameLike | None, scan: bool
) -> tuple[Spec, Policy]:
    """The part's inputs checked and read into a `Spec` (their values scanned when `scan`,
    else scanned already for a part of the same ordering), and the policy its groups are
    kept under (the ranking only, for a cheap metric reported by none, when no accuracy
    metric is asked)."""
    policy, candidates = part.policy, inputs.candidates
    if part.ranking_only:
        candidates, policy = _ranking_only(candidates, truth, inputs.relevance, policy)
    spec = check_inputs(
        candidates,
        truth,
        k=plan.ks,
        metrics=part.checked,
        group_by=inputs.group_by,
        item=inputs.item,
        score=inputs.score,
        relevance=inputs.relevance,
        n_relevant=inputs.n_relevant,
        policy=policy,
        check_values=inputs.check_values and scan,
        rank=inputs.rank,
        system=inputs.system,
        cells=part.cells,
    )
    spec = replace(
        spec, term_rows=plan.every_k, values_checked=inputs.check_values, places=inputs.places
    )
    if inputs.system is not None and part.beyond_catalogue:
        raise ValueError(
            f"catalogue-level metrics {list(part.beyond_catalogue)} describe one system's lists "
            f"together; with system={inputs.system!r} evaluate them per system against one "
            f"catalogue of every system's items (rk.evaluate_systems(candidates, truth, "
            f"system={inputs.system!r}, ...))"
        )
    check_missing_groups(spec)
    return spec, policy


def _one_pass(
    started: Sequence[_Started], prepared: Sequence[Prepared], engine: EngineType
) -> list[tuple[FrameLike, pl.LazyFrame, pl.LazyFrame | None, pl.LazyFrame | None]]:
    """Each part's per-group table, top rows (for the beyond-accuracy metrics), the kernel's
    per-group facts for its diagnostics (`Prepared.facts`) and its list of places
    (`Prepared.places`): collected in one heavy pass for eager inputs, every part's together
    (Polars computes a ranking the parts share once, and the facts and places with the sums
    they come with), everything after working on one row per group (and on the top K rows);
    lazy otherwise."""
    tops: list[pl.LazyFrame] = [
        top_rows(one.spec, ready.ranked) for one, ready in zip(started, prepared, strict=True)
    ]
    if started[0].spec.is_lazy:
        return [
            (ready.group_sums, top, ready.facts, ready.places)
            for ready, top in zip(prepared, tops, strict=True)
        ]
    beyond = [bool(one.part.beyond) for one in started]
    wanted = [ready.group_sums for ready in prepared]
    wanted += [top for top, needed in zip(tops, beyond, strict=True) if needed]
    wanted += [ready.facts for ready in prepared if ready.facts is not None]
    wanted += [ready.places for ready in prepared if ready.places is not None]
    frames = iter(pl.collect_all(wanted, engine=engine))
    sums = [next(frames) for _ in prepared]
    tops = [
        next(frames).lazy() if needed else top for top, needed in zip(tops, beyond, strict=True)
    ]
    facts = [None if ready.facts is None else next(frames).lazy() for ready in prepared]
    places = [None if ready.places is None else next(frames).lazy() for ready in prepared]
    return list(zip(sums, tops, facts, places, strict=True))


def _ranking_only(
    candidates: FrameLike, truth: FrameLike | None, relevance: str, policy: Policy
) -> tuple[FrameLike, Policy]:
    """Without truth, the candidates with every group evaluated, none relevant."""
    frame = candidates if isinstance(candidates, (pl.DataFrame, pl.LazyFrame)) else None
    if truth is None and frame is not None and relevance not in frame.collect_schema():
        candidates = frame.with_columns(pl.lit(0.0).alias(relevance))
        policy = replace(policy, empty_truth="zero")
    return candidates, policy


def _keys(group_by: str | Sequence[str] | pl.Expr, system: str | None) -> list[str]:
    """Every group key: the system column first, when there is one."""
    named = [group_by] if isinstance(group_by, str | pl.Expr) else list(group_by)
    return [*([system] if system else []), *(column_name(key, "group_by") for key in named)]


def _assembled(
    spec: Spec,
    prepared: Prepared,
    all_groups: FrameLike,
    kept: pl.LazyFrame,
    wide: pl.LazyFrame,
    catalogue_table: pl.LazyFrame | None,
    exposures: Exposures | None,
    beyond_catalogue: Sequence[str],
) -> Evaluation:
    """The `Evaluation`: lazy as planned, or its tables collected in one `collect_all`."""
    if spec.is_lazy:
        return assemble(
            spec, prepared, all_groups, kept, wide, catalogue=catalogue_table, exposures=exposures
        )
    extra = []
    if catalogue_table is not None and exposures is not None:
        extra = [exposures.exposure.lazy(), exposures.n_lists.lazy()]
    wide_df, kept_df, *counted = pl.collect_all([wide, kept, *extra])
    if kept_df.height == 0:
        warn_empty(spec, all_groups)
    catalogue_df = None
    if counted and exposures is not None:
        # Polars does not share a sub-plan between the plans of one collect_all: count the
        # exposures once, then compute the catalogue figures from the collected counts.
        exposures = replace(exposures, exposure=counted[0], n_lists=counted[1])
        catalogue_df = catalogue_values(
            counted[0].lazy(), counted[1].lazy(), exposures.catalogue, beyond_catalogue
        ).collect()
    return assemble(
        spec, prepared, all_groups, kept_df, wide_df, catalogue=catalogue_df, exposures=exposures
    )
