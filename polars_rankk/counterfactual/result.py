"""What a counterfactual evaluation returns: the estimates, the views of them and the
diagnostics that qualify them (each said as a `CounterfactualWarning` where it matters)."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from polars_rankk.counterfactual import checks, estimators

#: Below this share of the weighted rows, the effective sample size says the weights explode.
LOW_EFFECTIVE_SHARE = 0.1


@dataclass(frozen=True)
class CounterfactualDiagnostics:
    """How much the log supports the estimate.

    ``largest_weight`` and ``effective_sample_size`` ((sum w)^2 / sum w^2 over the rows with a
    non-zero weight, of ``weighted_rows``) describe the importance weights; ``unsupported_share``
    is the share of the new policy's (group, rank) slots no logged row informs (an item never
    shown, never at that position, or a prefix never shown, by click model), counted as
    reward 0; ``clip`` is the weight cap used (None: none); ``interval_over`` says what the
    bootstrap resampled (``"groups"``, ``"impressions"`` of the one group, or ``"none"``).
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
    interval_over: str = "groups"


@dataclass(frozen=True)
class CounterfactualResult:
    """The estimated reward@K of a new policy: `summary()` (one row per estimator, with a
    bootstrap standard error and interval; also ``overall``), ``per_group``, ``per_position``
    (the expected reward, i.e. clicks, at each rank), the ``examination`` probabilities used
    (None unless the click model is position-based) and ``diagnostics``."""

    estimates: pl.DataFrame
    per_group: pl.DataFrame
    per_position: pl.DataFrame
    examination: pl.DataFrame | None
    diagnostics: CounterfactualDiagnostics
    k: int = field(default=10)

    def summary(self) -> pl.DataFrame:
        """One row per estimator: ``reward_at_k``, ``standard_error``, the ``lower`` and
        ``upper`` bounds of the interval and the number of ``groups``."""
        return self.estimates

    @property
    def overall(self) -> pl.DataFrame:
        """`summary()` by its earlier name."""
        return self.estimates


def diagnose(
    logged: pl.DataFrame,
    missing: pl.DataFrame,
    weights: dict[str, float],
    orphans: pl.DataFrame,
    keys: list[str],
    clip: float | None,
    interval_over: str,
) -> CounterfactualDiagnostics:
    """The diagnostics of the per-(group, rank) sums, each worth a warning said. `logged`
    are the sums of the groups the log holds, sorted by the keys, their rows numbered by
    group (``__row``, `estimators.sorted_row_index`)."""
    unsupported = logged.filter(pl.col("control") == 0)
    # The groups counted off their numbers, not by a hash of their keys.
    groups = int(logged["__row"].max()) + 1 if logged.height else 0  # type: ignore[arg-type]
    firsts = logged.filter(estimators.first_of_each_row())
    impressions = firsts["__log_impressions"].sum() if logged.height else 0.0
    result = CounterfactualDiagnostics(
        largest_weight=float(weights["largest_weight"]),
        effective_sample_size=float(weights["effective_sample_size"]),
        weighted_rows=int(weights["weighted_rows"]),
        unsupported_share=unsupported.height / logged.height if logged.height else 0.0,
        clip=clip,
        groups=int(groups),
        impressions=float(impressions),
        log_groups_without_candidates=orphans.height,
        candidate_groups_without_log=missing.select(pl.struct(keys).n_unique()).item(),
        interval_over=interval_over,
    )
    if unsupported.height:
        example = unsupported.select(*keys, "new_rank").row(0, named=True)
        checks.warn(
            f"{result.unsupported_share:.1%} of the new policy's top-K slots were never shown "
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
