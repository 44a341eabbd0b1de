"""How a metric's formula reads on sums over ranks: the shape K-curves derive from it.

A K-curve needs every metric's macro mean at every K up to the largest. A group's value at K
is its formula on its cumulated terms at K, its list length n and R_g. Two shapes of formula
let a curve be summed from sparse per-rank events instead of groups × K values:

* *event-valued*: the value depends on K only through the cumulated terms (recall, nDCG, MRR,
  a user's DCG-like sum...). It changes only at a rank where a term the formula reads (or the
  ideal DCG) changes, so the formula is evaluated there, per group, and its changes summed.
* *linear*: the value is ``a + Σ_t c_t · S_t``, S_t the cumulated terms, with coefficients that
  depend on K and on the group only through R_g and n (precision, F-beta, AP over min(K, R),
  an SDCG whose normaliser depends on K...). Groups with the same (R_g, n) share the
  coefficients, so their term sums are summed per class, and the formula, evaluated once per
  (class, K) on unit sums, weighs them.

Which shape a formula has is found by evaluating it on probe values (`summed_form`), never
declared: a new metric takes the fast path when its formula has one of the shapes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import polars as pl

from polars_rankk.core.columns import IDEAL_DCG, PRECISION_SUM
from polars_rankk.core.metrics.formulas import GroupStats
from polars_rankk.core.metrics.terms import TERMS
from polars_rankk.core.policy import Policy

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "IDEAL",
    "PROBE_K",
    "SummedForm",
    "carried",
    "linear_weights",
    "probe_stats",
    "summed_form",
]

#: ``formula(policy, k, stats)``, as `polars_rankk.core.metrics.declaration.Formula`.
FormulaOf = Callable[[Policy, int | None, GroupStats], pl.Expr]
#: The probe frame's column for the ideal DCG at K (its rows are the ideal ranking's).
IDEAL = "_rk_probe_ideal"
#: A column no probe frame has: a formula reading a count K-curves do not carry fails on it.
_ABSENT = "_rk_probe_absent"
_KS = (1, 3, 8)
_RELEVANT = (1.0, 2.0, 5.0)
_LENGTHS = (2.0, 6.0, 20.0)
#: K as a column is checked at these K (around cwl_eval's depth too), the formula being called
#: with each of `_STAND_INS` as its Python ``k``: a value that reads that ``k`` differs.
_COLUMN_KS = (1, 2, 3, 8, 19, 20, 21, 999, 1000, 1001, 4096)
_STAND_INS = (1, 5000)
#: The probe frame's column for K when the formula reads it as a column.
PROBE_K = "_rk_probe_k"


def carried(column: str) -> bool:
    """Whether the ranking rows (`polars_rankk.Evaluation.ranking_rows`) carry a term's own row
    values on every path: a linear term, or the precision sum. The compiled kernel's rows
    (``row_terms`` in native/src/kernel.rs) hold no other: ERR's and bpref's are not rows."""
    term = TERMS.get(column)
    return term is not None and (term.linear is not None or column == PRECISION_SUM)


@dataclass(frozen=True)
class SummedForm:
    """The shape of a formula on sums over ranks (see the module docstring).

    Attributes
    ----------
    events
        Event-valued: the value depends on K only through the cumulated terms.
    linear
        Linear in the cumulated terms, its coefficients functions of K, R_g and n.
    reads_ideal
        Whether it reads the ideal DCG (only an event-valued formula may).
    reads_relevant, reads_length
        Whether its value (or a coefficient) changes with R_g, with n.
    k_column
        Whether it reads K only through `polars_rankk.core.metrics.formulas.cutoff`: evaluated
        once with K as a column (`GroupStats.cutoff`), it gives its value at every K.
    """

    events: bool
    linear: bool
    reads_ideal: bool
    reads_relevant: bool
    reads_length: bool
    k_column: bool = False


def probe_stats(
    at: Callable[[str, int], pl.Expr],
    n_candidates: str = "n",
    n_relevant: str = "r",
    cutoff: str | None = None,
) -> GroupStats:
    """Statistics read from columns of a frame: `at` for the cumulated terms, `n_candidates`
    and `n_relevant` for the counts, `cutoff` (if given) for K; the counts only a whole list
    has are absent."""
    return GroupStats(
        at=at,
        n_candidates=pl.col(n_candidates),
        n_relevant=pl.col(n_relevant),
        hits_at_r=pl.col(_ABSENT),
        whole=lambda stat: pl.col(_ABSENT),
        cutoff=None if cutoff is None else pl.col(cutoff),
    )


def _probe_rows(terms: Sequence[str]) -> pl.DataFrame:
    """Every (R, n) probe with term sums 0, S1, S2, S1 + S2 and 2.5 S1 (positive, distinct)."""
    import numpy as np  # not at import: the command starts without NumPy

    width = len(terms) + 1  # the ideal DCG is probed as one more sum
    first = np.linspace(0.5, 1.5, width) + np.arange(width) * 0.37
    second = np.linspace(2.0, 0.75, width) + np.arange(width) * 0.11
    vectors = [np.zeros(width), first, second, first + second, 2.5 * first]
    rows = [
        (r, n, v, *vector)
        for r, n in itertools.product(_RELEVANT, _LENGTHS)
        for v, vector in enumerate(vectors)
    ]
    return pl.DataFrame(rows, schema=["r", "n", "vector", *terms, IDEAL], orient="row")


@lru_cache(maxsize=512)
def summed_form(formula: FormulaOf, terms: tuple[str, ...], policy: Policy) -> SummedForm | None:
    """The shape of `formula` (reading the cumulated `terms`) under `policy`, found on probe
    values; None when it has neither shape or reads what sums over ranks do not carry (a
    count over the whole list, hits within R_g, a term it does not declare, a term whose rows
    are not `carried`).

    Examples
    --------
    >>> from polars_rankk.core.metrics.registry import REGISTRY
    >>> from polars_rankk.core.policy import Policy
    >>> def form(name):
    ...     metric = REGISTRY[name]
    ...     return summed_form(metric.formula, metric.terms, Policy())
    >>> form("ndcg").events, form("ndcg").linear
    (True, False)
    >>> form("precision").events, form("precision").linear, form("precision").reads_relevant
    (False, True, False)
    >>> form("f1").reads_relevant
    True
    """
    if not all(carried(term) for term in terms):
        return None
    frame = _probe_rows(terms)

    def at(stat: str, k: int) -> pl.Expr:
        if stat == IDEAL_DCG:
            return pl.col(IDEAL)
        return pl.col(stat) if stat in terms else pl.col(_ABSENT)

    try:
        values = frame.select(
            *(formula(policy, k, probe_stats(at)).cast(pl.Float64).alias(str(k)) for k in _KS)
        ).to_numpy()
    except pl.exceptions.PolarsError:
        return None
    # (R, n, probe vector, K)
    shaped = values.reshape(len(_RELEVANT), len(_LENGTHS), 5, len(_KS))
    reads_ideal = _reads_ideal(formula, policy, terms)
    events = _close(shaped, shaped[..., :1])
    base = shaped[:, :, :1, :]
    first, second, both, scaled = (shaped[:, :, i : i + 1, :] - base for i in (1, 2, 3, 4))
    linear = _close(both, first + second) and _close(scaled, 2.5 * first)
    if not events and (not linear or reads_ideal):
        return None
    return SummedForm(
        events=events,
        linear=linear and not reads_ideal,
        reads_ideal=reads_ideal,
        reads_relevant=not _close(shaped, shaped[:1]),
        reads_length=not _close(shaped, shaped[:, :1]),
        k_column=_reads_k_as_column(formula, policy, frame, at),
    )


def _reads_k_as_column(
    formula: FormulaOf, policy: Policy, frame: pl.DataFrame, at: Callable[[str, int], pl.Expr]
) -> bool:
    """Whether `formula` on (probe, K) rows with K as a column equals it at each K (whatever
    Python ``k`` it is called with); False when it fails on a column."""
    import numpy as np

    rows = frame.join(pl.DataFrame({PROBE_K: list(_COLUMN_KS)}), how="cross")
    stats = probe_stats(at, cutoff=PROBE_K)
    try:  # (a formula may refuse a K, as cwl_eval's past its depth)
        by_k = frame.select(
            *(
                formula(policy, k, probe_stats(at)).cast(pl.Float64).alias(str(k))
                for k in _COLUMN_KS
            )
        ).to_numpy()
        columns = rows.select(
            *(formula(policy, k, stats).cast(pl.Float64).alias(str(k)) for k in _STAND_INS)
        ).to_numpy()
    except (TypeError, ValueError, pl.exceptions.PolarsError):
        return False
    expected = np.repeat(by_k.reshape(-1)[:, None], len(_STAND_INS), axis=1)
    return bool(np.array_equal(columns, expected, equal_nan=True))


def _reads_ideal(formula: FormulaOf, policy: Policy, terms: tuple[str, ...]) -> bool:
    """Whether the formula reads the ideal DCG at all."""
    read: list[str] = []

    def at(stat: str, k: int) -> pl.Expr:
        read.append(stat)
        return pl.col(stat)

    formula(policy, _KS[0], probe_stats(at))
    return IDEAL_DCG in read


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal to rounding (NaN where both are NaN)."""
    import numpy as np

    return bool(np.allclose(a, np.broadcast_to(b, a.shape), rtol=1e-9, atol=1e-12, equal_nan=True))


def _unit_sums(probe: str | None) -> Callable[[str, int], pl.Expr]:
    """Term sums that are 1 for `probe`, 0 for every other term (all 0 for None)."""

    def at(stat: str, k: int) -> pl.Expr:
        return pl.col("_rk_one") if stat == probe else pl.col("_rk_zero")

    return at


def linear_weights(
    formula: FormulaOf, form: SummedForm, policy: Policy, classes: pl.DataFrame,
    terms: Sequence[str], k_max: int,
) -> np.ndarray:  # fmt: skip
    """A linear formula's weights per class of groups (rows of `classes`: their ``r`` and
    ``n``), per column of a K-curve's class block (the constant, then each of `terms`) and per
    K = 1…`k_max`: the formula on unit sums, once per probe — on (class, K) rows with K as a
    column where it reads K so (`SummedForm.k_column`), else one expression per probe and K
    (an SDCG's normaliser is a Python sum over the ranks up to K)."""
    import numpy as np

    probes = [None, *terms]
    if form.k_column:
        frame = classes.join(pl.DataFrame({PROBE_K: np.arange(1, k_max + 1)}), how="cross")
        frame = frame.with_columns(_rk_zero=pl.lit(0.0), _rk_one=pl.lit(1.0))
        expressions = [
            formula(policy, k_max, probe_stats(_unit_sums(probe), cutoff=PROBE_K))
            .cast(pl.Float64)
            .alias(str(probe))
            for probe in probes
        ]
        values = frame.select(expressions).to_numpy()  # (class, K) × probe
        shaped = values.reshape(classes.height, k_max, len(probes)).transpose(0, 2, 1)
    else:
        frame = classes.with_columns(_rk_zero=pl.lit(0.0), _rk_one=pl.lit(1.0))
        expressions = [
            formula(policy, k, probe_stats(_unit_sums(probe))).cast(pl.Float64)
            .alias(f"{probe}@{k}")
            for probe in probes
            for k in range(1, k_max + 1)
        ]  # fmt: skip
        values = frame.select(expressions).to_numpy()
        shaped = values.reshape(classes.height, len(probes), k_max)
    weights = np.array(shaped, dtype=np.float64)
    weights[:, 1:, :] -= weights[:, :1, :]  # values on unit sums -> the terms' coefficients
    return np.ascontiguousarray(weights)
