"""Examination probabilities of the position-based model: given by the user, or estimated from
the log by regression EM (Wang et al., WSDM 2018).

Only ratios of examination probabilities enter the position-based weights, so an estimate is
returned relative to position 1 (examination 1 at the top).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

#: What a user may pass as examination probabilities.
ExaminationInput = pl.DataFrame | Callable[[int], float] | Sequence[float]

POSITION = "position"
EXAMINATION = "examination"


def examination_table(given: ExaminationInput, positions: int) -> pl.DataFrame:
    """A (position, examination) table for positions 1..`positions` from the user's input.

    A table must have the columns ``position`` and ``examination``; a function is called with
    each position; a sequence lists the probabilities from position 1 on.
    """
    if isinstance(given, pl.DataFrame):
        missing = [name for name in (POSITION, EXAMINATION) if name not in given.columns]
        if missing:
            raise ValueError(
                f"the examination table has no column {missing[0]!r} "
                f"(it needs 'position' and 'examination'; its columns: {', '.join(given.columns)})"
            )
        table = given.select(pl.col(POSITION).cast(pl.Int64), pl.col(EXAMINATION).cast(pl.Float64))
    elif callable(given):
        table = pl.DataFrame(
            {
                POSITION: list(range(1, positions + 1)),
                EXAMINATION: [float(given(p)) for p in range(1, positions + 1)],
            }
        )
    else:
        values = [float(value) for value in given]
        table = pl.DataFrame({POSITION: list(range(1, len(values) + 1)), EXAMINATION: values})
    bad = table.filter(~(pl.col(EXAMINATION) > 0) | ~(pl.col(EXAMINATION) <= 1)).head(1)
    if bad.height:
        raise ValueError(
            "the examination table's column 'examination' must be in (0, 1]; "
            f"got row {bad.row(0, named=True)}"
        )
    repeated = table.filter(pl.col(POSITION).is_duplicated()).head(1)
    if repeated.height:
        raise ValueError(
            "the examination table must list each position once; position "
            f"{repeated[POSITION][0]} is listed more than once"
        )
    return table.sort(POSITION)


def estimate_examination(
    log: pl.LazyFrame,
    keys: list[str],
    item: str,
    position: str,
    reward: str,
    *,
    iterations: int = 100,
) -> pl.DataFrame:
    """Examination per position by EM under the position-based model (Wang et al., WSDM 2018).

    A click is examination and relevance: P(click at k on d in g) = theta_k * gamma_(g,d). EM
    alternates the posterior of (examined, relevant) for each unclicked impression with the
    maximising theta (a mean per position) and gamma (a mean per group and item: the
    "regression" of the paper with the group and item as the only feature). It is identified
    when the log shows the same item of a group at several positions (a randomised logger or
    swaps). The log is first reduced to (group, item, position) counts; each iteration is one
    vectorised pass over that table.
    """
    counts = (
        log.group_by([*keys, item, position])
        .agg(pl.col(reward).cast(pl.Float64).sum().alias("clicks"), pl.len().alias("shown"))
        .with_columns(pl.col(position).cast(pl.Int64))
        .collect()
    )
    theta = counts.select(pl.col(position).unique().sort()).with_columns(
        (1.0 / pl.col(position)).alias("theta")
    )
    gamma = counts.select([*keys, item]).unique().with_columns(pl.lit(0.5).alias("gamma"))
    for _ in range(iterations):
        joined = counts.join(theta, on=position).join(gamma, on=[*keys, item])
        unclicked = pl.col("shown") - pl.col("clicks")
        miss = 1 - pl.col("theta") * pl.col("gamma")
        # Posterior of examined (and of relevant) for an impression without a click.
        examined = pl.col("theta") * (1 - pl.col("gamma")) / miss
        relevant = (1 - pl.col("theta")) * pl.col("gamma") / miss
        posterior = joined.with_columns(
            (pl.col("clicks") + unclicked * examined.fill_nan(0.0)).alias("examined"),
            (pl.col("clicks") + unclicked * relevant.fill_nan(0.0)).alias("relevant"),
        )
        theta = posterior.group_by(position).agg(
            (pl.col("examined").sum() / pl.col("shown").sum()).clip(1e-6, 1.0).alias("theta")
        )
        gamma = posterior.group_by([*keys, item]).agg(
            (pl.col("relevant").sum() / pl.col("shown").sum()).clip(1e-6, 1 - 1e-6).alias("gamma")
        )
    theta = theta.sort(position)
    top = theta["theta"][0]
    return theta.select(
        pl.col(position).alias(POSITION), (pl.col("theta") / top).clip(1e-6, 1.0).alias(EXAMINATION)
    )
