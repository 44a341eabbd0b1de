"""The C/W/L family: user models that go on from rank i with a chance C(i), as cwl_eval scores.

A C/W/L measure (Moffat, Bailey, Scholer & Thomas, SIGIR 2017 / TOIS 2018; cwl_eval:
Azzopardi, Thomas & Moffat, SIGIR 2019) is a continuation probability C(i) per rank applied
to gains g_i in [0, 1] (`Policy.cwl_max_grade` scales a grade, as ir_measures' ``max_rel``;
unjudged and negative grades gain 0). The chance of examining rank i is
W_i = Π_{j<i} C(j) / Σ_{i ≤ N} Π_{j<i} C(j), over cwl_eval's depth N = 1000 ranks (ranks past
the list, or past the cut-off K, gain 0). Each measure gives three numbers, as cwl_eval reports
them:

- ``<measure>``: the expected rate of gain Σ W_i g_i (cwl_eval's headline number);
- ``<measure>_total_gain``: the expected total gain Σ_i L_i Σ_{j ≤ i} g_j, with L_i the chance
  of stopping at rank i;
- ``<measure>_depth``: the expected depth, 1 / W_1 = Σ_{i ≤ N} Π_{j<i} C(j) (cwl_eval's
  expected items).

Where C depends only on the rank (SDCG, INSQ) the measure is a declared linear term (the C/W/L
gain times a weight of the rank); where it depends on the gains seen so far (INST, NERR, BPM)
its terms are Polars code, once, here. The tail of ranks past the list is summed in closed form
(`polars_rankk.core.metrics.families.cwl_math`).

Examples
--------
>>> from polars_rankk.core.metrics.families.cwl import CWL_METRICS
>>> [metric.name for metric in CWL_METRICS][:3]
['sdcg', 'sdcg_total_gain', 'sdcg_depth']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.columns import INTERNAL_PREFIX, WHOLE_LIST
from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.algebra import RANK, Linear, Piece, RankFn, discount
from polars_rankk.core.metrics.declaration import Alias, Metric, Parameter
from polars_rankk.core.metrics.families.cwl_math import digamma, inverse_square_tail
from polars_rankk.core.metrics.formulas import GroupStats
from polars_rankk.core.metrics.parameters import CWL_MAX_GRADE, CWL_TARGET, RBP_PERSISTENCE
from polars_rankk.core.metrics.rows import RankedRows
from polars_rankk.core.metrics.terms import Term
from polars_rankk.core.policy import Policy

__all__ = ["CWL_DEPTH", "CWL_METRICS", "CWL_TERMS", "Parts"]

#: cwl_eval's depth (its ``max_n``): every ranking is read, or padded with zero gains, to it.
CWL_DEPTH = 1000
_N = float(CWL_DEPTH)


def _column(name: str) -> str:
    return f"{INTERNAL_PREFIX}{name}"


# -- Per-row terms ------------------------------------------------------------------------------


def _target(policy: Policy) -> float:
    return float(policy.cwl_target)


def _insq_weight(policy: Policy, rank: RankFn = RANK) -> RankFn:
    """INSQ's chance of reaching rank r: Π_{j<r} ((j + 2T - 1) / (j + 2T))^2 = (2T / (r - 1 +
    2T))^2."""
    twice = 2.0 * _target(policy)
    return (RankFn.const(twice) / (rank - 1.0 + twice)).pow(2)


def _inside(rows: RankedRows) -> pl.Expr:
    """1.0 within cwl_eval's depth, 0.0 past it."""
    return (rows.rank <= CWL_DEPTH).cast(pl.Float64)


def _gain_so_far(rows: RankedRows) -> pl.Expr:
    return rows.stage("cwl_gain_so_far", rows.cumulative(rows.cwl_gain))


def _reached(rows: RankedRows, name: str, go_on: pl.Expr) -> pl.Expr:
    """Π_{j<i} go_on_j for each row i: a running sum of logarithms, zeros counted apart."""
    stops = rows.stage(f"{name}_row_stop", (go_on == 0).cast(pl.Float64))
    log = rows.stage(f"{name}_row_log", pl.when(go_on == 0).then(0.0).otherwise(go_on.abs().log()))
    log_before = rows.cumulative(log) - log
    stops_before = rows.cumulative(stops) - stops
    return pl.when(stops_before > 0).then(0.0).otherwise(log_before.exp())


def _inst_ratio(rows: RankedRows) -> pl.Expr:
    """INST's (i + 2T - CG_i - 1) / (i + 2T - CG_i); its square is C(i)."""
    room = rows.rank.cast(pl.Float64) + 2.0 * _target(rows.policy) - _gain_so_far(rows)
    return (room - 1.0) / room


def _inst_go_on(rows: RankedRows) -> pl.Expr:
    return _inst_ratio(rows).pow(2)


def _cascade_go_on(rows: RankedRows) -> pl.Expr:
    """1 - g_i: the NERR family's chance of going on, before its weight of the rank."""
    return 1.0 - rows.cwl_gain


#: ``rank_weight(policy, rank)``: the part of a NERR measure's C(i) products that depends on the
#: rank only (Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. 8-11).
_NERR_RANK_WEIGHT: dict[str, Callable[[Policy, pl.Expr], pl.Expr]] = {
    "nerr8": lambda policy, rank: rank * 0.0 + 1.0,
    "nerr9": lambda policy, rank: 1.0 / rank,
    "nerr10": lambda policy, rank: pl.lit(float(policy.rbp_persistence)).pow(rank - 1.0),
    "nerr11": lambda policy, rank: _insq_weight(policy).expr(rank),
}


def _term(name: str, row: Callable[[RankedRows], pl.Expr]) -> Term:
    """A term that is not linear, computed here in Polars; every row counts (not sparse)."""
    return Term(name, _column(name), _column(f"term_{name}"), row, None, sparse=False)


def _weighted(name: str, reached: Callable[[RankedRows], pl.Expr], gain: bool) -> Term:
    """Σ W_i g_i (`gain`) or Σ W_i, W_i the unnormalised chance of reaching rank i."""

    def row(rows: RankedRows) -> pl.Expr:
        weight = reached(rows) * _inside(rows)
        return weight * rows.cwl_gain if gain else weight

    return _term(f"{name}_{'gain' if gain else 'weight'}", row)


def _log_terms(name: str, go_on: Callable[[RankedRows], pl.Expr]) -> tuple[Term, Term]:
    """Σ −log C(j) over the rows with C(j) > 0 (non-negative, as every cumulated term: C(j) <=
    1) and the count of rows with C(j) = 0: at K they give Π_{j ≤ m} C(j), the chance of
    reaching the rank after the last one read."""

    def minus_log(rows: RankedRows) -> pl.Expr:
        value = go_on(rows)
        return pl.when(value == 0).then(0.0).otherwise(-value.abs().log()) * _inside(rows)

    def stops(rows: RankedRows) -> pl.Expr:
        return (go_on(rows) == 0).cast(pl.Float64) * _inside(rows)

    return _term(f"{name}_minus_log", minus_log), _term(f"{name}_stops", stops)


def _nerr_reached(name: str) -> Callable[[RankedRows], pl.Expr]:
    def reached(rows: RankedRows) -> pl.Expr:
        cascade = _reached(rows, "cwl_cascade", _cascade_go_on(rows))
        return cascade * _NERR_RANK_WEIGHT[name](rows.policy, rows.rank.cast(pl.Float64))

    return reached


def _inst_reached(rows: RankedRows) -> pl.Expr:
    return _reached(rows, "cwl_inst", _inst_go_on(rows))


def _bpm_reaches(rows: RankedRows) -> pl.Expr:
    """1 where the gain before the row is below T: BPM's user reaches it (the cost bound is K)."""
    before = _gain_so_far(rows) - rows.cwl_gain
    return (before < _target(rows.policy)).cast(pl.Float64) * _inside(rows)


def _bpm_gain(rows: RankedRows) -> pl.Expr:
    return _bpm_reaches(rows) * rows.cwl_gain


def _fixed(*pieces: Piece) -> Callable[[Policy], Linear]:
    declared = Linear(pieces)
    return lambda policy: declared


def _within_depth(name: str, linear: Callable[[Policy], Linear]) -> Term:
    """A linear term of the rows within cwl_eval's depth (a row past rank N counts 0, as
    cwl_eval truncates every ranking to N). The kernel's weights of the rank have no step, so
    it runs in Polars beside the kernel; its expectation over ties is the linear one, cut."""

    def row(rows: RankedRows) -> pl.Expr:
        return rows.linear(linear(rows.policy)) * _inside(rows)

    return Term(name, _column(name), _column(f"term_{name}"), row, row, sparse=True)


#: SDCG reads K <= N only (`_no_deeper_than_depth`): its linear sum runs on the kernel.
SDCG = Term.of_linear("sdcg", _fixed(Piece("cwl_gain", discount(RANK), "/")))
#: The others are read past N too (at the whole list, ir_measures' INST, or at K > N).
GAIN = _within_depth("cwl_gain", _fixed(Piece("cwl_gain")))
INSQ = _within_depth("insq", lambda policy: Linear((Piece("cwl_gain", _insq_weight(policy)),)))
CASCADE_LOG, CASCADE_STOPS = _log_terms("cwl_cascade", _cascade_go_on)
INST_LOG, INST_STOPS = _log_terms("cwl_inst", _inst_go_on)
BPM_REACHED = _term("bpm_reached", _bpm_reaches)
BPM_GAIN = _term("bpm_gain", _bpm_gain)
_NERR_TERMS = {
    name: (_weighted(name, _nerr_reached(name), True), _weighted(name, _nerr_reached(name), False))
    for name in _NERR_RANK_WEIGHT
}
INST_TERMS = (_weighted("inst", _inst_reached, True), _weighted("inst", _inst_reached, False))

#: The family's per-rank terms, added to the term table on import.
CWL_TERMS = (
    GAIN,
    SDCG,
    INSQ,
    CASCADE_LOG,
    CASCADE_STOPS,
    *(term for pair in _NERR_TERMS.values() for term in pair),
    INST_LOG,
    INST_STOPS,
    *INST_TERMS,
    BPM_REACHED,
    BPM_GAIN,
)
for _declared in CWL_TERMS:
    term_table.add_term(_declared)


# -- From a group's sums to the three numbers ---------------------------------------------------


@dataclass(frozen=True)
class Parts:
    """One group's C/W/L sums at a cut-off: Σ_{i ≤ N} w_i g_i (`gain`), Σ_{i ≤ N} w_i
    (`weight`, the expected depth), w_{N+1} (`beyond`) and the total gain read (`gain_read`),
    with w_i = Π_{j<i} C(j)."""

    gain: pl.Expr
    weight: pl.Expr
    beyond: pl.Expr
    gain_read: pl.Expr

    def rate(self) -> pl.Expr:
        """The expected rate of gain Σ W_i g_i."""
        return pl.when(self.weight > 0).then(self.gain / self.weight).otherwise(0.0)

    def total_gain(self) -> pl.Expr:
        """The expected total gain Σ_i L_i Σ_{j ≤ i} g_j = Σ_i g_i (w_i − w_{N+1})."""
        return self.gain - self.beyond * self.gain_read

    def depth(self) -> pl.Expr:
        """The expected depth 1 / W_1 = Σ_{i ≤ N} w_i."""
        return self.weight


def _depth_of(k: int) -> int:
    """The last rank read: K, at most cwl_eval's depth."""
    return CWL_DEPTH if k == WHOLE_LIST else min(k, CWL_DEPTH)


def _read(stats: GroupStats, k: int) -> pl.Expr:
    """m, the number of ranks read: min(K, n, N) as a float column."""
    cut = stats.n_candidates * 0 + _depth_of(k)
    return pl.min_horizontal(stats.n_candidates, cut).cast(pl.Float64)


def _constant(stats: GroupStats, value: float) -> pl.Expr:
    """A float as a full column (formulas divide by columns, never by scalars)."""
    return stats.n_candidates * 0.0 + value


def _reached_after(stats: GroupStats, k: int, log: Term, stops: Term) -> pl.Expr:
    """Π_{j ≤ m} C(j): the chance of reaching the rank after the last one read."""
    product = (-stats.at(log.column, k)).exp()
    return pl.when(stats.at(stops.column, k) > 0).then(0.0).otherwise(product)


def _no_deeper_than_depth(name: str, k: int) -> None:
    if k > CWL_DEPTH:  # the whole list (WHOLE_LIST) too: it may run past N
        at = " over the whole list" if k == WHOLE_LIST else f"@{k}"
        raise ValueError(f"{name}{at}: cwl_eval reads {CWL_DEPTH} ranks; choose K <= {CWL_DEPTH}")


def _sdcg(policy: Policy, k: int, stats: GroupStats) -> Parts:
    # C(i) = log2(i + 1) / log2(i + 2) below K, 0 at K: w_i = 1 / log2(i + 1) for i <= K.
    _no_deeper_than_depth("sdcg", k)
    weight = math.fsum(1.0 / math.log2(i + 1.0) for i in range(1, k + 1))
    zero = _constant(stats, 0.0)
    return Parts(stats.at(SDCG.column, k), _constant(stats, weight), zero, zero)


def _insq(policy: Policy, k: int, stats: GroupStats) -> Parts:
    # C(i) = ((i + 2T - 1) / (i + 2T))^2 at every rank: w_i = (2T / (i - 1 + 2T))^2.
    twice = 2.0 * _target(policy)
    weight = math.fsum((twice / (i - 1.0 + twice)) ** 2 for i in range(1, CWL_DEPTH + 1))
    beyond = (twice / (_N + twice)) ** 2
    gain = stats.at(INSQ.column, k)
    return Parts(gain, _constant(stats, weight), _constant(stats, beyond), stats.at(GAIN.column, k))


def _inst(policy: Policy, k: int, stats: GroupStats) -> Parts:
    if policy.cwl_target < 0.25:
        # i + 2T - CG_i >= 2T: below T = 1/4, C(i) may exceed 1 (no longer a probability).
        raise ValueError(f"inst needs Policy.cwl_target >= 0.25; got {policy.cwl_target!r}")
    gain_term, weight_term = INST_TERMS
    read = _read(stats, k)
    gain_read = stats.at(GAIN.column, k)
    after = _reached_after(stats, k, INST_LOG, INST_STOPS)
    # Past the list the gain stays G: C(i) = ((i + a - 1) / (i + a))^2 with a = 2T - G.
    sum_tail, beyond = inverse_square_tail(read + 2.0 * _target(policy) - gain_read, read, _N)
    weight = stats.at(weight_term.column, k) + after * sum_tail
    return Parts(stats.at(gain_term.column, k), weight, after * beyond, gain_read)


def _nerr(name: str) -> Callable[[Policy, int, GroupStats], Parts]:
    def parts(policy: Policy, k: int, stats: GroupStats) -> Parts:
        gain_term, weight_term = _NERR_TERMS[name]
        read = _read(stats, k)
        depth = float(_depth_of(k))
        cascade = _reached_after(stats, k, CASCADE_LOG, CASCADE_STOPS)
        # w_{m+1} = cascade × the rank weight at m + 1; past the list only the rank weight moves.
        after = cascade * _NERR_RANK_WEIGHT[name](policy, read + 1.0)
        past_cut = k == WHOLE_LIST or k > CWL_DEPTH  # C(N) is not 0: the user may go on
        if name in ("nerr8", "nerr9"):
            if name == "nerr8":  # w_i = w_{m+1} up to K
                sum_tail, beyond = depth - read, read * 0.0 + 1.0
            else:  # w_i = w_{m+1} (m + 1) / i up to K
                sum_tail = (read + 1.0) * (digamma(read * 0.0 + depth + 1.0) - digamma(read + 1.0))
                beyond = (read + 1.0) / (_N + 1.0)
            beyond = beyond if past_cut else read * 0.0
        elif name == "nerr10":  # w_i = w_{m+1} p^(i - m - 1)
            p = float(policy.rbp_persistence)
            remaining = pl.lit(p).pow(_N - read)
            sum_tail = (1.0 - remaining) / (1.0 - p) if p < 1 else _N - read
            beyond = remaining
        else:  # nerr11: INSQ's weight, a = 2T
            sum_tail, beyond = inverse_square_tail(read + 2.0 * _target(policy), read, _N)
        weight = stats.at(weight_term.column, k) + after * sum_tail
        return Parts(
            stats.at(gain_term.column, k), weight, after * beyond, stats.at(GAIN.column, k)
        )

    return parts


def _bpm(policy: Policy, k: int, stats: GroupStats) -> Parts:
    # C(i) = 1 while the gain so far is below T and i < K: the user reads ranks 1..s, s the
    # first rank whose gain so far reaches T, or K.
    depth = _depth_of(k)
    reached_target = stats.at(GAIN.column, k) >= _target(policy)
    stop = pl.when(reached_target).then(stats.at(BPM_REACHED.column, k)).otherwise(depth)
    gain = stats.at(BPM_GAIN.column, k)
    # Past cwl_eval's depth without reaching T the user never stops: no total gain.
    keeps_going = (~reached_target) if (k == WHOLE_LIST or k > CWL_DEPTH) else pl.lit(False)
    beyond = pl.when(keeps_going).then(1.0).otherwise(0.0) + stats.n_candidates * 0.0
    return Parts(gain, stop.cast(pl.Float64), beyond, gain)


# -- The declarations ---------------------------------------------------------------------------

#: C/W/L: Moffat, Bailey, Scholer & Thomas, TOIS 35(3) 2017; cwl_eval: Azzopardi, Thomas &
#: Moffat, SIGIR 2019 (docs/definitions.md §8.1 gives every reference in full).
_MOFFAT = "cwl_eval: Azzopardi et al., SIGIR 2019"
_NERR = "Azzopardi, Moffat, Thomas & Zuccon, ICTIR 2021, eq. "


@dataclass(frozen=True)
class _Measure:
    """One C/W/L measure: the three metrics it declares share all of this."""

    name: str
    title: str
    continuation: str
    citation: str
    terms: tuple[Term, ...]
    parts: Callable[[Policy, int, GroupStats], Parts]
    #: ir_measures' name and whether it takes a cut-off there.
    ir_measures: str
    cut: bool
    #: The parameters its name carries, in the order ir_measures writes them.
    parameters: tuple[Parameter, ...] = (CWL_MAX_GRADE,)


#: The measures with a target T (INSQ, INST, BPM, NERR11); ir_measures' NERR10 has p = 0.9
#: where its name leaves p out.
_TARGETED, _NERR10 = (
    (CWL_TARGET, CWL_MAX_GRADE),
    (RBP_PERSISTENCE.with_tool_default(0.9), CWL_MAX_GRADE),
)


_MEASURES = (
    _Measure(
        "sdcg",
        "SDCG",
        "C(i) = log2(i + 1) / log2(i + 2) below K, 0 at K: scaled DCG@K",
        "Moffat et al., TOIS 35(3) 2017 (C/W/L SDCG); " + _MOFFAT,
        (SDCG,),
        _sdcg,
        "SDCG",
        True,
    ),
    _Measure(
        "insq",
        "INSQ",
        "C(i) = ((i + 2T - 1) / (i + 2T))^2, T = Policy.cwl_target",
        "Moffat, Scholer & Thomas, ADCS 2012; " + _MOFFAT,
        (INSQ, GAIN),
        _insq,
        "INSQ",
        False,
        _TARGETED,
    ),
    _Measure(
        "inst",
        "INST",
        "C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - the gain up "
        "to i, T = Policy.cwl_target",
        "Moffat, Bailey, Scholer & Thomas, SIGIR 2017; " + _MOFFAT,
        (*INST_TERMS, INST_LOG, INST_STOPS, GAIN),
        _inst,
        "INST",
        False,
        _TARGETED,
    ),
    _Measure(
        "bpm",
        "BPM",
        "C(i) = 1 while the gain up to i is below T (Policy.cwl_target) and i < K, "
        "else 0 (static Bejewelled player)",
        "Zhang et al., SIGIR 2017 (BPM); " + _MOFFAT,
        (BPM_REACHED, BPM_GAIN, GAIN),
        _bpm,
        "BPM",
        True,
        _TARGETED,
    ),
    *(
        _Measure(
            name,
            name.upper(),
            continuation,
            _NERR + equation,
            (*_NERR_TERMS[name], CASCADE_LOG, CASCADE_STOPS, GAIN),
            _nerr(name),
            name.upper(),
            cut,
            parameters,
        )
        for name, continuation, equation, cut, parameters in (
            ("nerr8", "C(i) = 1 - g_i below K, 0 at K", "8", True, (CWL_MAX_GRADE,)),
            ("nerr9", "C(i) = i / (i + 1) (1 - g_i) below K, 0 at K", "9", True, (CWL_MAX_GRADE,)),
            ("nerr10", "C(i) = p (1 - g_i), p = Policy.rbp_persistence", "10", False, _NERR10),
            (
                "nerr11",
                "C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i), T = Policy.cwl_target",
                "11",
                False,
                _TARGETED,
            ),
        )
    ),
)

#: What each of a measure's three metrics reads from its parts.
_OUTPUTS: tuple[tuple[str, str, str, Callable[[Parts], pl.Expr]], ...] = (
    ("", "", "expected rate of gain Σ W_i g_i", Parts.rate),
    ("_total_gain", " total gain", "expected total gain Σ L_i Σ_{j ≤ i} g_j", Parts.total_gain),
    ("_depth", " depth", "expected depth 1 / W_1 (cwl_eval's expected items)", Parts.depth),
)


def _formula(
    parts: Callable[[Policy, int, GroupStats], Parts], read: Callable[[Parts], pl.Expr]
) -> Callable[[Policy, int | None, GroupStats], pl.Expr]:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        assert k is not None  # checked by Metric.value
        return read(parts(policy, k, stats))

    return formula


def _declare(measure: _Measure) -> tuple[Metric, ...]:
    metrics = []
    for suffix, title, what, read in _OUTPUTS:
        tool_name = measure.ir_measures + ("@{k}" if measure.cut else "")
        metrics.append(
            Metric(
                name=measure.name + suffix,
                title=f"{measure.title}{title}@K",
                definition=f"C/W/L {measure.title}, {what}: {measure.continuation}; gains "
                "min(max(g, 0), M) / M (M = Policy.cwl_max_grade), ranks past K gain 0, depth "
                f"{CWL_DEPTH} as cwl_eval",
                citation=measure.citation,
                terms=tuple(term.column for term in measure.terms),
                formula=_formula(measure.parts, read),
                parameters=measure.parameters,
                ir_measures=tool_name if not suffix else None,
                aliases=(
                    ()
                    if suffix
                    else (Alias(measure.ir_measures, "ir_measures", measure.cut, not measure.cut),)
                ),
            )
        )
    return tuple(metrics)


#: The family's metrics, in the registry's order.
CWL_METRICS: tuple[Metric, ...] = tuple(
    metric for measure in _MEASURES for metric in _declare(measure)
)
