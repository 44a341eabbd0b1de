"""`evaluate_counterfactual`: how a new ranking would have done on logged interactions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import polars as pl

from polars_rankk.core.evaluation.evaluation import EngineType
from polars_rankk.core.policy import Policy
from polars_rankk.counterfactual import checks, estimators, plan
from polars_rankk.counterfactual.examination import (
    ExaminationInput,
    estimate_examination,
    examination_table,
)
from polars_rankk.counterfactual.plan import PREDICTED, RANK, ClickModel, Columns

#: Below this share of the weighted rows, the effective sample size says the weights explode.
LOW_EFFECTIVE_SHARE = 0.1


@dataclass(frozen=True)
class CounterfactualDiagnostics:
    """How much the log supports the estimate.

    ``largest_weight`` and ``effective_sample_size`` ((sum w)^2 / sum w^2 over the rows with a
    non-zero weight, of ``weighted_rows``) describe the importance weights; ``unsupported_share``
    is the share of the new rankings' top-K (group, rank) slots no logged row informs (an item
    never shown, never at that position, or a prefix never shown, by click model), counted as
    reward 0; ``clip`` is the weight cap used (None: none).
    """

    largest_weight: float
    effective_sample_size: float
    weighted_rows: int
    unsupported_share: float
    clip: float | None
    groups: int
    impressions: float
    log_groups_without_candidates: int
    candidate_groups_without_log: int


@dataclass(frozen=True)
class CounterfactualResult:
    """The estimated reward@K of a new ranking: ``overall`` (one row per estimator, with a
    bootstrap standard error and interval over groups), ``per_group``, ``per_position`` (the
    expected reward, i.e. clicks, at each rank), the ``examination`` probabilities used (None
    unless the click model is position-based) and ``diagnostics``."""

    overall: pl.DataFrame
    per_group: pl.DataFrame
    per_position: pl.DataFrame
    examination: pl.DataFrame | None
    diagnostics: CounterfactualDiagnostics
    k: int = field(default=10)


def evaluate_counterfactual(
    log: pl.DataFrame | pl.LazyFrame,
    candidates: pl.DataFrame | pl.LazyFrame,
    *,
    group_by: str | Sequence[str],
    item: str = "item",
    position: str = "position",
    reward: str = "click",
    score: str = "score",
    k: int = 10,
    click_model: ClickModel = "pbm",
    estimator: str | Sequence[str] = "snips",
    examination: ExaminationInput | None = None,
    propensity: str | None = None,
    reward_model: str | None = None,
    policy: Policy | None = None,
    impression: str | None = None,
    clip: float | None = None,
    n_bootstrap: int = 1000,
    alpha: float = 0.05,
    seed: int | None = 0,
    engine: EngineType = "auto",
) -> CounterfactualResult:
    """Estimate from a click log how a new ranking would have done: its expected reward@K.

    The log holds what an old ranker showed (``group_by`` keys, ``item``, ``position`` from 1,
    ``reward``: a click 0/1 or a graded reward; optionally ``impression``, one logged list of a
    group, and ``propensity``); the candidates hold the new ranking (keys, item, ``score``),
    ranked by ``policy``'s tie order as `evaluate` ranks. Each logged row is re-weighted by the
    click model (see `docs/counterfactual.md`): ``"pbm"`` (examination per position; the
    ``propensity`` column, if any, is the probability the item was shown at all), ``"cascade"``
    (``propensity``: probability of the logged prefix through the row's position) or
    ``"item_position"`` (``propensity``: probability of the item at that position).

    Parameters
    ----------
    log, candidates
        The logged interactions and the new ranking (eager or lazy; one plan, collected once).
    group_by
        The group key column(s) of both tables (a query, a user).
    k
        The cut-off: the estimand is the expected reward summed over ranks 1..k.
    estimator
        ``"ips"``, ``"snips"``, ``"dr"``, ``"naive"`` (clicks as labels, biased) or a paper's
        name: ``"iips"`` (item-position IPS), ``"rips"`` (cascade IPS), ``"cascade_dr"``; or a
        list of them.
    examination
        Examination per position for ``"pbm"``: a table (``position``, ``examination``), a
        function of the position or a sequence from position 1. None: estimated from the log by
        regression EM (Wang et al., WSDM 2018) and returned.
    reward_model
        For ``"dr"``: a column of the candidates with the predicted reward of the item at its
        new rank. None: the per-item mean fitted on the log.
    clip
        Cap on the importance weights (biased, lower variance). None: no cap.
    n_bootstrap, alpha, seed
        Bootstrap resamples of groups, the interval's miscoverage, the seed.
    engine
        The Polars engine that collects the plan (``"streaming"`` for logs larger than memory).

    Returns
    -------
    CounterfactualResult

    Warns
    -----
    CounterfactualWarning
        When part of the new top K was never shown, groups are in one table only, or the
        effective sample size is under a tenth of the weighted rows.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankk as rk
    >>> log = pl.DataFrame({"query": ["q"] * 4, "session": [1, 1, 2, 2],
    ...     "item": ["a", "b", "b", "a"], "position": [1, 2, 1, 2], "click": [1, 0, 1, 1]})
    >>> new = pl.DataFrame({"query": ["q", "q"], "item": ["b", "a"], "score": [2.0, 1.0]})
    >>> result = rk.evaluate_counterfactual(log, new, group_by="query", impression="session",
    ...     k=2, estimator="ips", examination=[1.0, 0.5])
    >>> result.per_position
    shape: (2, 3)
    ┌───────────┬──────────┬─────────────────┐
    │ estimator ┆ position ┆ expected_reward │
    │ ---       ┆ ---      ┆ ---             │
    │ str       ┆ i64      ┆ f64             │
    ╞═══════════╪══════════╪═════════════════╡
    │ ips       ┆ 1        ┆ 0.5             │
    │ ips       ┆ 2        ┆ 0.75            │
    └───────────┴──────────┴─────────────────┘
    """
    keys = [group_by] if isinstance(group_by, str) else list(group_by)
    columns = Columns(keys, item, position, reward, score, propensity, impression)
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    if click_model not in ("pbm", "cascade", "item_position"):
        raise ValueError(
            f"click_model must be 'pbm', 'cascade' or 'item_position'; got {click_model!r}"
        )
    if clip is not None and not clip > 0:
        raise ValueError(f"clip must be positive or None; got {clip!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    if click_model != "pbm" and propensity is None:
        raise ValueError(
            f"click_model={click_model!r} needs the logging propensities: pass propensity= "
            "(a column of the log)"
        )
    wanted = estimators.resolve(estimator, click_model)
    log_frame, new_frame = log.lazy(), candidates.lazy()
    _check(log_frame, new_frame, columns, reward_model, cascade=click_model == "cascade")
    theta = None
    if click_model == "pbm":
        theta = (
            estimate_examination(log_frame, keys, item, position, reward)
            if examination is None
            else examination_table(examination, _deepest(log_frame, position, k))
        )
        _check_examined(log_frame, columns, theta, k)
    top = plan.new_top(new_frame, columns, k, policy or Policy(), reward_model)
    rows = plan.weighted_rows(log_frame, top, columns, click_model, theta, clip)
    if any(base == "dr" for _, base in wanted) and reward_model is None:
        top = _per_item_mean(log_frame, top, columns, click_model, theta)
    sums, summary, orphans = pl.collect_all(
        [
            plan.per_rank_sums(rows, log_frame, top, columns),
            plan.weight_summary(rows),
            log_frame.select(keys)
            .unique()
            .join(new_frame.select(keys).unique(), on=keys, how="anti"),
        ],
        engine=engine,
    )
    return _result(
        sums, summary, orphans, columns, wanted, k, theta, clip, (n_bootstrap, alpha, seed)
    )


def _check(
    log: pl.LazyFrame,
    candidates: pl.LazyFrame,
    columns: Columns,
    reward_model: str | None,
    *,
    cascade: bool = False,
) -> None:
    optional = [name for name in (columns.propensity, columns.impression) if name]
    checks.require_columns(
        log, "log", [*columns.keys, columns.item, columns.position, columns.reward, *optional]
    )
    checks.require_columns(
        candidates,
        "candidates",
        [*columns.keys, columns.item, columns.score, *([reward_model] if reward_model else [])],
    )
    checks.require_integer(log, "log", columns.position)
    checks.require_numeric(log, "log", columns.reward, "a click 0/1 or a graded reward")
    value_checks = [
        (
            log,
            "log",
            columns.position,
            pl.col(columns.position).fill_null(0) < 1,
            "positions 1, 2, ... (no nulls)",
        ),
        (
            log,
            "log",
            columns.reward,
            pl.col(columns.reward).is_null(),
            "a reward on every row (no nulls)",
        ),
    ]
    if columns.propensity:
        checks.require_numeric(log, "log", columns.propensity, "a probability in (0, 1]")
        p = pl.col(columns.propensity).cast(pl.Float64)
        bad = ~((p > 0) & (p <= 1)).fill_null(False)
        value_checks.append((log, "log", columns.propensity, bad, "a probability in (0, 1]"))
    if cascade:
        # A prefix is read position by position: one row per position of each logged list.
        lists = [*columns.keys, *([columns.impression] if columns.impression else [])]
        repeated = pl.len().over([*lists, columns.position]) > 1
        value_checks.append(
            (log, "log", columns.position, repeated, "one row per position of each logged list")
        )
    if reward_model:
        checks.require_numeric(candidates, "candidates", reward_model, "a predicted reward")
    checks.check_values(value_checks)


def _deepest(log: pl.LazyFrame, position: str, k: int) -> int:
    """The positions a function of the position is asked for: 1 to the deepest logged (or k)."""
    deepest = log.select(pl.col(position).max()).collect().item()
    return max(k, int(deepest or 0))


def _check_examined(log: pl.LazyFrame, columns: Columns, theta: pl.DataFrame, k: int) -> None:
    """Every logged position and every rank 1..k needs an examination probability."""
    known = theta["position"]
    missing = [rank for rank in range(1, k + 1) if rank not in set(known.to_list())]
    if missing:
        raise ValueError(f"the examination table has no position {missing[0]} (it needs 1..{k})")
    checks.check_values(
        [
            (
                log,
                "log",
                columns.position,
                ~pl.col(columns.position).is_in(known.implode()),
                f"a position the examination table lists (1..{known.len()})",
            )
        ]
    )


def _per_item_mean(
    log: pl.LazyFrame,
    top: pl.LazyFrame,
    columns: Columns,
    model: ClickModel,
    theta: pl.DataFrame | None,
) -> pl.LazyFrame:
    """The new top K with the reward model fitted on the log, per item and new rank, pooled
    over groups: under the position-based model theta_r * sum(reward) / sum(theta of the
    logged positions); otherwise the item's mean reward where it was shown at that position
    (0 where never)."""
    reward = pl.col(columns.reward).cast(pl.Float64)
    rows = log.with_columns(pl.col(columns.position).cast(pl.Int64))
    if model == "pbm":
        assert theta is not None
        attraction = (
            rows.join(theta.lazy().rename({"position": columns.position}), on=columns.position)
            .group_by(columns.item)
            .agg((reward.sum() / pl.col("examination").sum()).alias("__attraction"))
        )
        return (
            top.join(attraction, on=columns.item, how="left")
            .join(theta.lazy().rename({"position": RANK}), on=RANK, how="left")
            .with_columns((pl.col("__attraction") * pl.col("examination")).alias(PREDICTED))
            .drop("__attraction", "examination")
        )
    means = rows.group_by(columns.item, columns.position).agg(reward.mean().alias(PREDICTED))
    return top.join(means.rename({columns.position: RANK}), on=[columns.item, RANK], how="left")


def _result(
    sums: pl.DataFrame,
    summary: pl.DataFrame,
    orphans: pl.DataFrame,
    columns: Columns,
    wanted: list[tuple[str, str]],
    k: int,
    theta: pl.DataFrame | None,
    clip: float | None,
    options: tuple[int, float, int | None],
) -> CounterfactualResult:
    keys = columns.keys
    # Groups in a fixed order, so that a seed draws the same bootstrap resamples every time.
    sums = sums.sort([*keys, RANK])
    if PREDICTED in sums.columns:
        sums = sums.with_columns(pl.col(PREDICTED).cast(pl.Float64).fill_null(0.0))
    missing = sums.filter(pl.col("impressions").is_null())
    logged = sums.filter(pl.col("impressions").is_not_null())
    overall = pl.DataFrame(
        [estimators.overall_row(logged, keys, base, name, k, options) for name, base in wanted]
    )
    groups = estimators.count_groups(logged, keys)
    per_group = pl.concat(
        [
            logged.with_columns(estimators.per_rank_estimates(base, groups).alias("__value"))
            .group_by(keys)
            .agg(
                pl.col("__value").sum().alias("reward_at_k"),
                pl.col("impressions").first(),
            )
            .select(pl.lit(name).alias("estimator"), *keys, "reward_at_k", "impressions")
            for name, base in wanted
        ]
    ).sort(["estimator", *keys])
    per_position = pl.concat(
        [estimators.per_position(logged, keys, base, name) for name, base in wanted]
    )
    diagnostics = _diagnostics(logged, missing, summary, orphans, keys, clip)
    return CounterfactualResult(overall, per_group, per_position, theta, diagnostics, k)


def _diagnostics(
    logged: pl.DataFrame,
    missing: pl.DataFrame,
    summary: pl.DataFrame,
    orphans: pl.DataFrame,
    keys: list[str],
    clip: float | None,
) -> CounterfactualDiagnostics:
    unsupported = logged.filter(pl.col("control") == 0)
    weights = summary.row(0, named=True)
    groups = logged.select(pl.struct(keys).n_unique()).item() if logged.height else 0
    impressions = logged.unique(keys)["impressions"].sum() if logged.height else 0.0
    result = CounterfactualDiagnostics(
        largest_weight=float(weights["largest_weight"]),
        effective_sample_size=float(weights["effective_sample_size"] or 0.0),
        weighted_rows=int(weights["weighted_rows"]),
        unsupported_share=unsupported.height / logged.height if logged.height else 0.0,
        clip=clip,
        groups=int(groups),
        impressions=float(impressions),
        log_groups_without_candidates=orphans.height,
        candidate_groups_without_log=missing.select(pl.struct(keys).n_unique()).item(),
    )
    if unsupported.height:
        example = unsupported.drop("weighted_reward", "control", "reward").row(0, named=True)
        checks.warn(
            f"{result.unsupported_share:.1%} of the new rankings' top-K slots were never shown "
            f"in the log (e.g. {example}); they count as reward 0"
        )
    if orphans.height:
        checks.warn(
            f"{orphans.height} group(s) of the log have no candidates "
            f"(e.g. {orphans.row(0, named=True)}); they are not estimated"
        )
    if result.candidate_groups_without_log:
        checks.warn(
            f"{result.candidate_groups_without_log} group(s) of the candidates are not in the "
            f"log (e.g. {missing.select(keys).row(0, named=True)}); they are not estimated"
        )
    if (
        result.weighted_rows
        and result.effective_sample_size < LOW_EFFECTIVE_SHARE * result.weighted_rows
    ):
        checks.warn(
            f"the importance weights explode: effective sample size "
            f"{result.effective_sample_size:.1f} of {result.weighted_rows} weighted rows "
            f"(largest weight {result.largest_weight:.3g}); consider clip="
        )
    return result
