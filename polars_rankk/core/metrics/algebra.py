"""Per-rank terms as data: a row's *label* times a *weight* of its rank.

Most per-rank terms are linear in what a row is (relevant, its gain, judged, the first
relevant row, …) given its rank: hits = relevant × 1, DCG = gain / log2(r + 1), reciprocal
rank = first_relevant / r, RBP = rbp_gain × (1 − p) p^(r − 1). Such a term is declared here as
data — a sum of `Piece` s, each a `LABELS` name and a `RankFn` of the rank — and everything
else is derived from that one declaration:

- the deterministic form (each label's value on the row) and the exact expected-ties form (each
  label's expectation over its tie block: linearity makes the sum exact), in
  `polars_rankk.core.metrics.rows.RankedRows.linear`;
- the compiled kernel's computation: the pieces are sent as data with each call
  (`polars_rankk.core.kernel.call.linear_terms`), so a new term of known labels and weights
  needs no Rust change;
- the K-curves' sums over ranks read the same per-group sums.

A function a user registers (``lambda rows: rows.first_relevant * rows.rank``) is *traced*
with `trace`: run on symbolic rows, it yields its `Linear` declaration when it is one, and
None when it reads something else (it then runs as the Polars expression it returns).

Examples
--------
>>> from polars_rankk.core.metrics.algebra import RANK, Piece, discount, trace
>>> dcg = trace(lambda rows: rows.gain / discount(rows.rank))
>>> dcg.pieces == (Piece("gain", discount(RANK), "/"),)
True
>>> sorted(dcg.labels)
['gain']
>>> trace(lambda rows: rows.relevant * rows.relevant) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import polars as pl

#: What a row is, as a linear term reads it. `one` is 1 on every row; `grade` the row's
#: grade (0 for an unjudged row); `gain` its nDCG gain under the policy; `relevant` 1 at or
#: above the relevance threshold; `judged` 1 where it has a judgement; `first_relevant` 1 at
#: the group's first relevant row; `rbp_gain` what RBP counts (`Policy.rbp_grades`);
#: `cwl_gain` the C/W/L measures' gain in [0, 1] (`Policy.cwl_max_grade`).
LABELS = ("one", "relevant", "grade", "gain", "judged", "first_relevant", "rbp_gain", "cwl_gain")
#: Labels that are 0 on every row without a positive grade (nor a judgement, for `judged`).
SPARSE_LABELS = frozenset({"relevant", "gain", "judged", "first_relevant", "rbp_gain", "cwl_gain"})

Op = Literal["+", "-", "*", "/", "pow"]
Number = int | float


@dataclass(frozen=True)
class RankFn:
    """A function of the rank, as a small expression tree.

    A leaf is the rank (``op="r"``) or a constant (``op="c"``); ``log2`` takes one argument;
    ``+ - * / pow`` two. It renders to a Polars expression (`expr`) and to the postfix text the
    kernel evaluates (`postfix`), with the same operations in the same order, so both paths
    round alike.
    """

    op: str
    args: tuple[RankFn, ...] = ()
    value: float = 0.0

    @staticmethod
    def const(value: Number) -> RankFn:
        return RankFn("c", value=float(value))

    def _binary(self, op: Op, other: RankFn | Number, swap: bool = False) -> RankFn:
        right = other if isinstance(other, RankFn) else RankFn.const(other)
        return RankFn(op, (right, self) if swap else (self, right))

    def __add__(self, other: RankFn | Number) -> RankFn:
        return self._binary("+", other)

    def __radd__(self, other: Number) -> RankFn:
        return self._binary("+", other, swap=True)

    def __sub__(self, other: RankFn | Number) -> RankFn:
        return self._binary("-", other)

    def __rsub__(self, other: Number) -> RankFn:
        return self._binary("-", other, swap=True)

    def __mul__(self, other: object) -> RankFn:
        if isinstance(other, (RankFn, int, float)):
            return self._binary("*", other)
        return NotImplemented

    def __rmul__(self, other: Number) -> RankFn:
        return self._binary("*", other, swap=True)

    def __truediv__(self, other: object) -> RankFn:
        if isinstance(other, (RankFn, int, float)):
            return self._binary("/", other)
        return NotImplemented

    def __rtruediv__(self, other: Number) -> RankFn:
        return self._binary("/", other, swap=True)

    def __pow__(self, other: RankFn | Number) -> RankFn:
        return self._binary("pow", other)

    def __rpow__(self, other: Number) -> RankFn:
        return self._binary("pow", other, swap=True)

    def __neg__(self) -> RankFn:
        return RankFn.const(0.0) - self

    def pow(self, exponent: RankFn | Number) -> RankFn:
        """``self ** exponent`` (Polars' spelling)."""
        return self._binary("pow", exponent)

    def log(self, base: float = math.e) -> RankFn:
        """The logarithm: only base 2 is a kernel operation (the DCG discount)."""
        if base != 2:
            raise NotLinearError("only log(2) of the rank is declared")
        return RankFn("log2", (self,))

    def cast(self, dtype: object) -> RankFn:
        """A cast that keeps every value (to Float64, or a 64-bit integer: the rank is an
        integer below 2**53) changes nothing here; any other is not declared."""
        if dtype in _EXACT_RANK_CASTS:
            return self
        raise NotLinearError(f"casting the rank to {dtype} may change it; not declared")

    # Comparisons and truth values are not weights of the rank: Python's `if`, `and`, `==`
    # would turn them into a constant, so tracing refuses them (the Polars path then runs the
    # function on expressions, or refuses it).
    def __eq__(self, other: object) -> bool:
        if isinstance(other, RankFn):
            return (self.op, self.args, self.value) == (other.op, other.args, other.value)
        if isinstance(other, (int, float, Linear)):
            raise NotLinearError("a comparison of the rank is not a declared weight")
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __lt__(self, other: object) -> bool:
        raise NotLinearError("a comparison of the rank is not a declared weight")

    __le__ = __gt__ = __ge__ = __lt__

    def __bool__(self) -> bool:
        raise NotLinearError("the truth value of the rank is not a declared weight")

    def __hash__(self) -> int:
        return hash((self.op, self.args, self.value))

    def expr(self, rank: pl.Expr) -> pl.Expr:
        """The function as a Polars expression of `rank` (any integer or float dtype)."""
        if self.op == "r":
            return rank.cast(pl.Float64)
        if self.op == "c":
            return pl.lit(self.value, dtype=pl.Float64)
        if self.op == "log2":
            return self.args[0].expr(rank).log(2)
        left, right = (arg.expr(rank) for arg in self.args)
        if self.op == "+":
            return left + right
        if self.op == "-":
            return left - right
        if self.op == "*":
            return left * right
        if self.op == "/":
            return left / right
        return left.pow(right)


#: Casts that keep every value of the rank (an integer >= 1), and of a term (a Float64).
_EXACT_RANK_CASTS = (pl.Float64, pl.Int64, pl.UInt64)
_EXACT_TERM_CASTS = (pl.Float64,)

#: The rank itself.
RANK = RankFn("r")


def discount(rank: RankFn) -> RankFn:
    """log2(rank + 1), the DCG discount, as a declared weight."""
    return (rank + 1).log(2)


def geometric(p: float, rank: RankFn = RANK) -> RankFn:
    """RBP's weight (1 − p) p^(rank − 1)."""
    return (1.0 - p) * RankFn.const(p).pow(rank - 1)


@dataclass(frozen=True)
class Piece:
    """``label`` (× or /) ``weight``; no weight: the label itself."""

    label: str
    weight: RankFn | None = None
    op: Literal["*", "/"] = "*"

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"unknown label {self.label!r}; known: {', '.join(LABELS)}")

    def render(self, label: pl.Expr, rank: pl.Expr) -> pl.Expr:
        if self.weight is None:
            return label
        weight = self.weight.expr(rank)
        return label * weight if self.op == "*" else label / weight

    def scaled(self, factor: RankFn) -> Piece:
        if self.weight is None:
            return Piece(self.label, factor, "*")
        if self.op == "*":
            return Piece(self.label, self.weight * factor, "*")
        return Piece(self.label, self.weight / factor, "/")

    def divided(self, divisor: RankFn) -> Piece:
        if self.weight is None:
            return Piece(self.label, divisor, "/")
        if self.op == "/":
            return Piece(self.label, self.weight * divisor, "/")
        return Piece(self.label, self.weight / divisor, "*")


@dataclass(frozen=True)
class Linear:
    """A per-rank term linear in the row's labels: the sum of its pieces, in order."""

    pieces: tuple[Piece, ...]

    @property
    def labels(self) -> frozenset[str]:
        return frozenset(piece.label for piece in self.pieces)

    @property
    def sparse(self) -> bool:
        """Zero on every row without a positive grade (nor a judgement)."""
        return self.labels <= SPARSE_LABELS

    def render(self, label_of: Callable[[str], pl.Expr], rank: pl.Expr) -> pl.Expr:
        """The term's value from each label's expression (deterministic or expected)."""
        total: pl.Expr | None = None
        for piece in self.pieces:
            value = piece.render(label_of(piece.label), rank)
            total = value if total is None else total + value
        return pl.lit(0.0) if total is None else total.cast(pl.Float64)

    # -- tracing: arithmetic of symbolic rows ---------------------------------------------------

    def __add__(self, other: object) -> Linear:
        other = _as_linear(other)
        return Linear(self.pieces + other.pieces)

    __radd__ = __add__

    def __sub__(self, other: object) -> Linear:
        return self + _as_linear(other) * -1.0

    def __rsub__(self, other: object) -> Linear:
        return _as_linear(other) - self

    def __mul__(self, other: object) -> Linear:
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            other = RankFn.const(other)
        if not isinstance(other, RankFn):
            raise NotLinearError("a product of two row quantities is not linear")
        return Linear(tuple(piece.scaled(other) for piece in self.pieces))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Linear:
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            other = RankFn.const(other)
        if not isinstance(other, RankFn):
            raise NotLinearError("a quotient of two row quantities is not linear")
        return Linear(tuple(piece.divided(other) for piece in self.pieces))

    def __neg__(self) -> Linear:
        return self * -1.0

    def cast(self, dtype: object) -> Linear:
        """A cast to Float64 keeps the term (it is a Float64 already); any other may change
        its values (an integer cast truncates a grade) and is not declared."""
        if dtype in _EXACT_TERM_CASTS:
            return self
        raise NotLinearError(f"casting a row quantity to {dtype} may change it; not declared")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Linear):
            return self.pieces == other.pieces
        if isinstance(other, (int, float, RankFn)):
            raise NotLinearError("a comparison of a row quantity is not a declared term")
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __lt__(self, other: object) -> bool:
        raise NotLinearError("a comparison of a row quantity is not a declared term")

    __le__ = __gt__ = __ge__ = __lt__

    def __bool__(self) -> bool:
        raise NotLinearError("the truth value of a row quantity is not a declared term")

    def __hash__(self) -> int:
        return hash(self.pieces)


def label(name: str) -> Linear:
    """The label `name` as a one-piece term."""
    return Linear((Piece(name),))


def _as_linear(value: object) -> Linear:
    if isinstance(value, Linear):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value == 0:
            return Linear(())
        return Linear((Piece("one", RankFn.const(value)),))
    if isinstance(value, RankFn):
        return Linear((Piece("one", value),))
    raise NotLinearError(f"cannot add {type(value).__name__} to a row quantity")


class NotLinearError(Exception):
    """The traced function reads something that is not a label times a weight of the rank."""


class SymbolicRows:
    """Rows as a traced function sees them: labels and the rank as symbols."""

    rank = RANK

    def __getattr__(self, name: str) -> Linear:
        if name in LABELS:
            return label(name)
        raise NotLinearError(f"rows.{name} is not a declared label")


def trace(per_rank: Callable[..., object]) -> Linear | None:
    """`per_rank`'s declaration when it is linear in the labels given the rank, else None."""
    try:
        result = per_rank(SymbolicRows())
    except Exception:  # anything else it reads makes it a plain Polars expression
        return None
    if isinstance(result, RankFn):
        return Linear((Piece("one", result),))
    return result if isinstance(result, Linear) else None
