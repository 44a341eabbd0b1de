"""`evaluate_counterfactual`: how a new ranking policy would have done on logged interactions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl

from polars_rankk.core.policy import Policy
from polars_rankk.core.types import EngineType
from polars_rankk.counterfactual import checks, estimators, inputs, plan
from polars_rankk.counterfactual.examination import (
    ExaminationInput,
    estimate_examination,
    examination_table,
)
from polars_rankk.counterfactual.new_policy import (
    PREDICTED,
    RANK,
    ClickModel,
    Columns,
    policy_rows,
)
from polars_rankk.counterfactual.result import (
    CounterfactualDiagnostics,
    CounterfactualResult,
    diagnose,
)

__all__ = ["CounterfactualDiagnostics", "CounterfactualResult", "evaluate_counterfactual"]

IMPRESSIONS = plan.LISTS


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
    pscore: str | None = None,
    probability: str | None = None,
    sample: str | None = None,
    reward_model: str | None = None,
    policy: Policy | None = None,
    impression: str | None = None,
    clip: float | None = None,
    n_bootstrap: int = 1000,
    alpha: float = 0.05,
    seed: int | None = 0,
    engine: EngineType = "auto",
) -> CounterfactualResult:
    """Estimate from a click log how a new ranking policy would have done: its expected
    reward@K, the sum over ranks 1..K of the expected reward at each rank.

    The log holds what an old policy showed (``group_by`` keys, ``item``, ``position`` from 1,
    ``reward``: a click 0/1 or a graded reward; optionally ``impression``, one logged list of
    a group, and ``propensity``). The new policy is a ranking (the candidates' ``score``,
    ranked by ``policy``'s tie order as `evaluate` ranks), marginals (``probability=``) or
    draws (``sample=``). Each logged row is re-weighted by the click model (see
    `docs/counterfactual.md`): ``"pbm"`` (examination per position; ``propensity``: the
    probability the item was shown in its impression), ``"item_position"`` (``propensity``:
    probability of the item given its position was shown) or ``"cascade"`` (``propensity``:
    probability of the logged prefix through the row's position).

    Parameters
    ----------
    log, candidates
        The logged interactions and the new policy (eager or lazy; one plan, collected once).
    group_by
        The group key column(s) of both tables (a query, a user).
    reward
        The log's reward column (default ``"click"``).
    k
        The cut-off: the estimand is the expected reward summed over ranks 1..k.
    estimator
        ``"ips"``, ``"snips"``, ``"dr"``, ``"naive"`` (clicks as labels, biased) or a paper's
        name: ``"iips"`` (item-position IPS), ``"rips"`` (cascade IPS), ``"cascade_dr"``; or a
        list of them.
    examination
        Examination per position for ``"pbm"``: a table (``position``, ``examination``), a
        function of the position or a sequence from position 1. None: estimated from the log by
        regression EM (Wang et al., WSDM 2018; clicks 0/1 only) and returned.
    propensity, pscore
        The log's logging-probability column (``pscore`` is Open Bandit Pipeline's name).
    probability
        The candidates' column of the new policy's marginal probability of each (group [,
        impression], item, ``position``): Open Bandit Pipeline's ``action_dist`` as rows, each
        position's probabilities summing to 1. Under ``"pbm"`` and ``"item_position"``.
    sample
        The candidates' column of a draw's id: several rankings per group, the estimate
        their mean. Under every click model (`plackett_luce_samples` draws them).
    reward_model
        For ``"dr"``: a column of the candidates with the predicted reward of the item at its
        rank (at its position, under ``probability=``). None: fitted on the log (a per-item
        mean, times the examination under ``"pbm"``; per item and position otherwise).
    clip
        Cap on the importance weights (biased, lower variance). None: no cap.
    n_bootstrap, alpha, seed
        Bootstrap resamples (of groups, or of the impressions of a log with one group), the
        interval's miscoverage, the seed.
    engine
        The Polars engine that collects the plan (``"streaming"`` for logs larger than memory).

    Returns
    -------
    CounterfactualResult

    Warns
    -----
    CounterfactualWarning
        When part of the new top K was never shown, groups are in one table only, the
        effective sample size is under a tenth of the weighted rows, or no interval can be
        drawn (one group in one logged list).

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
    propensity = _propensity(propensity, pscore)
    _check_options(k, click_model, clip, alpha, propensity, probability, sample)
    wanted = estimators.resolve(estimator, click_model)
    log_frame, new_frame = log.lazy(), candidates.lazy()
    per_impression = (
        probability is not None
        and impression is not None
        and impression in new_frame.collect_schema()
    )
    columns = Columns(
        keys, item, position, reward, score, propensity, impression, probability, sample,
        per_impression,
    )  # fmt: skip
    clicks_only = click_model == "pbm" and examination is None
    inputs.check(
        log_frame, new_frame, columns, click_model, reward_model, k=k, clicks_only=clicks_only
    )
    log_frame, new_frame = inputs.aligned(log_frame, new_frame, columns)
    theta = None
    if click_model == "pbm":
        theta = (
            estimate_examination(log_frame, keys, item, position, reward)
            if examination is None
            # Only a function of the position is asked down to the deepest logged position.
            else examination_table(
                examination, _deepest(log_frame, position, k) if callable(examination) else k
            )
        )
    log_frame = _read_once(log_frame, columns, engine)
    # On the rows read once: a scan of rows in any order decodes the positions for it.
    checks.examined(log_frame, columns.position, theta, k)
    # The new policy's placements (groups x K rows) are read by several parts of the plan:
    # computed once, held in memory.
    placed = policy_rows(new_frame, columns, k, policy or Policy(), reward_model)
    fit = any(base == "dr" for _, base in wanted) and reward_model is None
    held = _held(placed, log_frame, columns, click_model, theta, fit, engine)
    logged = plan.logged_rows(log_frame, columns)
    read = plan.kernel_slot_sums(log_frame, held, columns, click_model, theta, clip)
    # Summed in Polars (not read by the kernel), the slots join on their numbers.
    placements = (held if read is not None else plan.numbered_slots(held, keys)).lazy()
    rows = plan.weighted_rows(logged, placements, columns, click_model, theta, clip)
    groups = _impression_counts(log_frame, columns)
    informed = plan.informing(
        logged, columns, click_model, k, by_impression=columns.per_impression, counts=groups
    )
    sums, counts = pl.collect_all(
        [
            plan.rank_sums(rows, placements, informed, groups, columns,
                           by_impression=False, read=read),
            groups,
        ],
        engine=engine,
    )  # fmt: skip
    orphans = _unlisted(counts, new_frame, placements, columns, engine)
    if sums["__repeated"].any():
        inputs.refuse_repeated(plan.repeated_items(rows, columns).collect(engine=engine), columns)
    sums, logged_sums = _sorted_sums(sums, keys)
    group_matrix = estimators.matrix(logged_sums, keys, k, per_group=True)
    interval_over = "groups"
    resampled: np.ndarray | None = group_matrix
    if group_matrix.shape[0] == 1 and n_bootstrap > 0:
        # The one group the estimate reads (the log may hold groups without candidates).
        one = counts.join(logged_sums.select(keys).unique(), on=keys, how="semi")
        resampled, interval_over = _impression_matrix(
            logged, rows, placements, columns, click_model, k, one, engine
        )
    resampled = _resampled_means(resampled, [base for _, base in wanted], k, n_bootstrap, seed)
    overall = pl.DataFrame(
        [
            estimators.overall_row(group_matrix, resampled, base, name, k, alpha)
            for name, base in wanted
        ]
    )
    per_position = _per_position(logged_sums, group_matrix, wanted, k)
    missing = sums.filter(pl.col(plan.INFORMING).is_null())
    weights = plan.weight_summary(sums)
    diagnostics = diagnose(logged_sums, missing, weights, orphans, keys, clip, interval_over)
    per_group = _per_group(logged_sums, group_matrix, keys, wanted, k)
    return CounterfactualResult(overall, per_group, per_position, theta, diagnostics, k)


def _sorted_sums(sums: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The slots' sums sorted by (keys, rank), and those of the groups the log holds, their
    rows numbered by group (`estimators.sorted_row_index`)."""
    if plan.slot_ordered(sums, keys):
        # The first key flagged sorted, as `sort` leaves it (which the diagnostics' distinct
        # counts read). Not made one chunk: a copy of every column (~30 ms at 500,000 slots)
        # that no reader below needs (they filter, or copy out to NumPy, anyway).
        sums = sums.with_columns(pl.col(keys[0]).set_sorted())
    else:
        sums = sums.sort([*keys, RANK])
    logged = sums.filter(pl.col(plan.INFORMING).is_not_null())
    return sums, logged.with_columns(estimators.sorted_row_index(keys))


def _read_once(log: pl.LazyFrame, columns: Columns, engine: EngineType) -> pl.LazyFrame:
    """The log's columns the estimate reads, read into memory once (the reward model, the
    per-slot sums and the group counts each read them; a Parquet scan decodes them again
    for each), after the input checks (which the scan answers from its statistics). Under
    the streaming engine, for logs larger than memory, the scan is kept."""
    if engine == "streaming":
        return log
    read = [*columns.lists, columns.item, columns.position, columns.reward]
    read += [columns.propensity] if columns.propensity else []
    frame = log.select(list(dict.fromkeys(read))).collect(engine=engine)
    # A log in the order of its one key (as one written group after group often is) flagged
    # so: its groups are then counted without a hash table (`_impression_counts`, ~8 ms in
    # place of ~35 at 5M rows); rows in any other order stop the check at their first pair.
    key = columns.keys[0]
    if len(columns.keys) == 1 and frame[key].is_sorted():
        frame = frame.with_columns(pl.col(key).set_sorted())
    return frame.lazy()


def _held(
    placed: pl.LazyFrame,
    log: pl.LazyFrame,
    columns: Columns,
    click_model: ClickModel,
    theta: pl.DataFrame | None,
    fit: bool,
    engine: EngineType,
) -> pl.DataFrame:
    """The new policy's placements collected, with DR's reward model fitted on `log` where
    `fit`. Where the kernel reads the per-slot sums, the plan keeps the placements' order:
    put in (keys, rank) order here, the sums come out sorted (`_sorted_sums`)."""
    held = placed.collect(engine=engine)
    ordered = plan.kernel_reads(columns, click_model)
    held = plan.in_slot_order(held, columns.keys) if ordered else held
    if fit:
        held = _fitted_reward_model(log, held, columns, click_model, theta, ordered).collect(
            engine=engine
        )
    return held


def _propensity(propensity: str | None, pscore: str | None) -> str | None:
    if propensity is not None and pscore is not None and propensity != pscore:
        raise ValueError(
            f"pscore= is Open Bandit Pipeline's name for propensity=; give one, not both "
            f"(got propensity={propensity!r}, pscore={pscore!r})"
        )
    return propensity if propensity is not None else pscore


def _check_options(
    k: int,
    click_model: str,
    clip: float | None,
    alpha: float,
    propensity: str | None,
    probability: str | None,
    sample: str | None,
) -> None:
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
            "(or pscore=, a column of the log)"
        )
    if probability is not None and sample is not None:
        raise ValueError(
            f"give the new policy as marginals (probability={probability!r}) or as draws "
            f"(sample={sample!r}), not both"
        )
    if probability is not None and click_model == "cascade":
        raise ValueError(
            "click_model='cascade' weighs a logged row by the new policy's whole prefix above "
            "it, which per-position marginals (probability=) do not give; pass draws of the "
            "policy as sample= instead (rk.plackett_luce_samples draws them)"
        )


def _unlisted(
    counts: pl.DataFrame,
    candidates: pl.LazyFrame,
    placements: pl.LazyFrame,
    columns: Columns,
    engine: EngineType,
) -> pl.DataFrame:
    """The log's groups (`counts`) the candidates do not list: every listed group has a
    placement at rank 1, except under marginals (whose probabilities may all be 0 within
    K), read from the candidates."""
    listed = candidates if columns.form == "probability" else placements
    keys = columns.keys
    unlisted = counts.lazy().select(keys).join(listed.select(keys).unique(), on=keys, how="anti")
    return unlisted.collect(engine=engine)


def _impression_counts(log: pl.LazyFrame, columns: Columns) -> pl.LazyFrame:
    """Each group of the log and its number of logged lists (`IMPRESSIONS`)."""
    count = pl.col(columns.impression).n_unique() if columns.impression else pl.lit(1)
    return log.group_by(columns.keys).agg(count.cast(pl.Float64).alias(IMPRESSIONS))


def _impression_matrix(
    logged: pl.LazyFrame,
    rows: pl.LazyFrame,
    placements: pl.LazyFrame,
    columns: Columns,
    click_model: ClickModel,
    k: int,
    counts: pl.DataFrame,
    engine: EngineType,
) -> tuple[np.ndarray | None, str]:
    """The bootstrap matrix over the one group's impressions (the impressions that inform no
    rank as rows of zeros), or None with a warning when the group is one logged list.
    `counts` is that group's row of `_impression_counts`."""
    impressions = int(counts[IMPRESSIONS][0])
    if columns.impression is None or impressions < 2:
        checks.warn(
            "the log holds one group in one logged list, so no interval can be drawn "
            "(resampling needs several groups, or several impressions of the group: pass "
            "impression=)"
        )
        return None, "none"
    informed = plan.informing(logged, columns, click_model, k, by_impression=True)
    groups = counts.lazy().select(columns.keys)
    sums = plan.rank_sums(rows, placements, informed, groups, columns, by_impression=True).collect(
        engine=engine
    )
    matrix = estimators.matrix(sums, columns.lists, k, per_group=False)
    padding = np.zeros((impressions - matrix.shape[0], matrix.shape[1]))
    return np.vstack([matrix, padding]), "impressions"


def _resampled_means(
    matrix: np.ndarray | None, bases: list[str], k: int, n_bootstrap: int, seed: int | None
) -> np.ndarray | None:
    """The bootstrap's resampled means of `matrix` (None: no interval to draw)."""
    if matrix is None or not len(matrix) or n_bootstrap <= 0:
        return None
    return estimators.resampled_means(matrix, bases, k, n_bootstrap, seed)


def _per_position(
    sums: pl.DataFrame, group_matrix: np.ndarray, wanted: list[tuple[str, str]], k: int
) -> pl.DataFrame:
    """Each estimator's expected reward at each rank down to the deepest the log informs."""
    deepest = int(sums[RANK].max() or 0) if sums.height else 0  # type: ignore[arg-type]
    return pl.concat(
        [estimators.per_position(group_matrix, base, name, k) for name, base in wanted]
    ).filter(pl.col("position") <= deepest)


def _per_group(
    sums: pl.DataFrame,
    group_matrix: np.ndarray,
    keys: list[str],
    wanted: list[tuple[str, str]],
    k: int,
) -> pl.DataFrame:
    """Each group's reward@K by each estimator, read off the rows of the group matrix,
    sorted by estimator and keys. `sums` are sorted by the keys and numbered by
    `estimators.sorted_row_index`."""
    # Each group's first row, in the matrix's row order (the keys' order).
    groups = sums.filter(estimators.first_of_each_row()).select(*keys, IMPRESSIONS)
    return pl.concat(
        [
            groups.select(
                pl.lit(name).alias("estimator"),
                *keys,
                pl.Series("reward_at_k", estimators.per_group_rewards(group_matrix, base, k)),
                pl.col(IMPRESSIONS).alias("impressions"),
            )
            for name, base in sorted(wanted)
        ]
    )


def _deepest(log: pl.LazyFrame, position: str, k: int) -> int:
    """The positions a function of the position is asked for: 1 to the deepest logged (or k)."""
    deepest = log.select(pl.col(position).max()).collect().item()
    return max(k, int(deepest or 0))


def _fitted_reward_model(
    log: pl.LazyFrame,
    held: pl.DataFrame,
    columns: Columns,
    model: ClickModel,
    theta: pl.DataFrame | None,
    ordered: bool,
) -> pl.LazyFrame:
    """The placements (held in memory) with the reward model fitted on the log, per item and
    rank, pooled over groups: under the position-based model theta_r * sum(reward) / sum(theta
    of the logged positions); otherwise the item's mean reward where it was shown at that
    position (0 where never). Under the position-based model the kernel reads it where it
    is loaded (`plan.kernel_reward_model`); the Polars below is the reference. `ordered`:
    the placements' row order is kept."""
    if model == "pbm" and theta is not None:
        fitted = plan.kernel_reward_model(log, held, columns, theta)
        if fitted is not None:
            return fitted
    placements = held.lazy()
    kept: Literal["left", "none"] = "left" if ordered else "none"
    reward = pl.col(columns.reward).cast(pl.Float64)
    # Only the placed items' rows are read: an item's model pools its rows over groups.
    items = placements.select(pl.col(columns.item).unique()).collect().to_series()
    rows = log.filter(pl.col(columns.item).is_in(items.implode())).with_columns(
        pl.col(columns.position).cast(pl.Int64)
    )
    if model == "pbm":
        assert theta is not None
        attraction = (
            rows.join(theta.lazy().rename({"position": columns.position}), on=columns.position)
            .group_by(columns.item)
            .agg((reward.sum() / pl.col("examination").sum()).alias("__attraction"))
        )
        return (
            placements.join(attraction, on=columns.item, how="left", maintain_order=kept)
            .join(theta.lazy().rename({"position": RANK}), on=RANK, how="left", maintain_order=kept)
            .with_columns((pl.col("__attraction") * pl.col("examination")).alias(PREDICTED))
            .drop("__attraction", "examination")
        )
    means = rows.group_by(columns.item, columns.position).agg(reward.mean().alias(PREDICTED))
    return placements.join(
        means.rename({columns.position: RANK}),
        on=[columns.item, RANK],
        how="left",
        maintain_order=kept,
    )
