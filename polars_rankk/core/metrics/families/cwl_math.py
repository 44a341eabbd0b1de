"""Closed forms the C/W/L measures' tails need, as Polars expressions.

cwl_eval pads every ranking with zero gains to its depth of 1000 ranks; past the last rank a
measure reads, its continuation probabilities depend on the rank alone, so the weight left
in that tail is a sum of a known sequence: a geometric one (RBP-like), 1/i (NERR9's) or
1/(i + a)^2 (INST's and INSQ's), read from the digamma and trigamma functions.

Examples
--------
>>> import polars as pl
>>> from polars_rankk.core.metrics.families.cwl_math import trigamma
>>> frame = pl.DataFrame({"x": [1.0]})
>>> round(frame.select(trigamma(pl.col("x")).alias("psi1"))["psi1"][0], 12)  # pi^2 / 6
1.644934066848
"""

from __future__ import annotations

import polars as pl

__all__ = ["digamma", "inverse_square_tail", "trigamma"]

#: Terms summed exactly before the asymptotic series (its error is then below 1e-14).
_SHIFT = 10


def trigamma(x: pl.Expr) -> pl.Expr:
    """ψ1(x) = Σ_{j ≥ 0} 1 / (x + j)^2 for x > 0: the first `_SHIFT` terms exactly, the rest
    by the asymptotic series at x + `_SHIFT` (Abramowitz & Stegun 6.4.12).

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({"x": [0.5, 2.0]})  # pi^2 / 2 and pi^2 / 6 - 1
    >>> [round(v, 12) for v in frame.select(trigamma(pl.col("x")).alias("y"))["y"]]
    [4.934802200545, 0.644934066848]
    """
    head = pl.sum_horizontal([1.0 / (x + j).pow(2) for j in range(_SHIFT)])
    y = x + float(_SHIFT)
    inverse = 1.0 / y
    inverse2 = inverse * inverse
    series = inverse + inverse2 / 2.0
    # B_2 / y^3 + B_4 / y^5 + ... + B_14 / y^15 (Bernoulli numbers): the next term is below
    # 1e-16 at y >= 10.
    bernoulli: pl.Expr | float = 7.0 / 6.0
    for coefficient in (-691.0 / 2730.0, 5.0 / 66.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0):
        bernoulli = coefficient + inverse2 * bernoulli
    series = series + inverse * inverse2 * (1.0 / 6.0 + inverse2 * bernoulli)
    return head + series


def digamma(x: pl.Expr) -> pl.Expr:
    """ψ(x) for x > 0 (ψ(n + 1) = H_n − γ): the recurrence to x + `_SHIFT`, then the
    asymptotic series (Abramowitz & Stegun 6.3.18).

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({"x": [1.0, 4.0]})  # -γ and H_3 - γ
    >>> [round(v, 12) for v in frame.select(digamma(pl.col("x")).alias("y"))["y"]]
    [-0.577215664902, 1.256117668432]
    """
    head = pl.sum_horizontal([1.0 / (x + j) for j in range(_SHIFT)])
    y = x + float(_SHIFT)
    inverse2 = 1.0 / (y * y)
    # B_2n / (2n y^2n) for n = 1..7, alternating: the next term is below 1e-16 at y >= 10.
    bernoulli: pl.Expr | float = 1.0 / 12.0
    for coefficient in (691.0 / 32760.0, 1.0 / 132.0, 1.0 / 240.0, 1.0 / 252.0, 1.0 / 120.0):
        bernoulli = coefficient - inverse2 * bernoulli
    series = y.log() - 0.5 / y - inverse2 * (1.0 / 12.0 - inverse2 * bernoulli)
    return series - head


def inverse_square_tail(start: pl.Expr, read: pl.Expr, depth: float) -> tuple[pl.Expr, pl.Expr]:
    """Past the last rank read m, w_i = w_{m+1} (m + a)^2 / (i - 1 + a)^2 (C(i) = ((i + a - 1)
    / (i + a))^2 telescopes): Σ_{m < i ≤ N} of it over w_{m+1}, and w_{N+1} over w_{m+1}, for
    `start` = m + a and N = `depth`.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({"m": [0.0]})
    >>> m = pl.col("m")
    >>> tail, beyond = inverse_square_tail(m + 2.0, m, 3.0)  # a = 2: 1 + 4/9 + 4/16, 4/25
    >>> [round(v, 12) for v in frame.select(tail.alias("t"), beyond.alias("b")).row(0)]
    [1.694444444444, 0.16]
    """
    offset = start - read  # a
    sum_tail = start.pow(2) * (trigamma(start) - trigamma(offset + depth))
    return sum_tail, (start / (offset + depth)).pow(2)
