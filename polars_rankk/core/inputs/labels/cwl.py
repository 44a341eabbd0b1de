"""The C/W/L measures over label outcomes without enumerating them, along a fixed ranking where
each group's items gain one C/W/L gain g or none (g the gain of its one relevant grade).

The item at rank j is relevant with probability ``q_j``, independently; every value below is
a function of which ranks hold a relevant item, read to m = min(n, K) ranks:

- SDCG and INSQ weigh rank j by a weight of the rank alone (their expected depth is a
  constant): each value is a sum of independent terms a_j x_j, or that constant;
- BPM's user reads until the gain gathered reaches T: the c*-th relevant item (c* the first
  count whose gain, added up as the evaluation adds it, reaches T) stops them at its rank s,
  with chance P(c_{s-1} = c* - 1) q_s (the prefix law of the count c); a list that never
  reaches T is read to K with c relevant items, with chance P(c_m = c);
- the NERR measures where g = 1 (a relevant item ends the cascade): every value is a
  function of the first relevant rank f, with chance q_f Π_{i<f} (1 - q_i), or of its
  absence.

So each value's law has at most K + c* atoms: E[V] and E[V^2] are sums over them, exact. The
outcome with no relevant item (R = 0: none ranked and none past the ranks read, the others'
Poisson-binomial law) is left out under ``empty_truth="exclude"``, counts under ``"zero"``
(these measures do not divide by R: a list without gain still has an expected depth) and makes
the value NaN under ``"nan"``. INST (whose continuation reads the gain gathered so far: its
rate of gain is a ratio of two path sums) and the NERR measures with 0 < g < 1 have no such
law; `cells.recursive_cells` leaves them to the enumeration (or Monte Carlo past it).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import polars as pl

from polars_rankk.core.inputs.labels.laws import poisson_binomial, summed_in_order
from polars_rankk.core.policy import Policy

#: cwl_eval's depth (`polars_rankk.core.metrics.families.cwl.CWL_DEPTH`), read past no K here.
_DEPTH = 1000
_MEASURES = ("sdcg", "insq", "bpm", "nerr8", "nerr9", "nerr10", "nerr11")
_OUTPUTS = ("", "_total_gain", "_depth")
#: The metrics whose expected total gain and depth the walk over the count computes
#: (`path_moments`): INST's and, where a relevant item's gain is below 1, the NERR measures'.
BY_COUNT = frozenset(
    measure + output
    for measure in ("inst", "nerr8", "nerr9", "nerr10", "nerr11")
    for output in ("_total_gain", "_depth")
)
#: The C/W/L metrics computed here, each at a cut-off K <= cwl_eval's depth (INST's rate of
#: gain, a ratio of two sums along the path, is not).
CWL_EXACT = frozenset(m + o for m in _MEASURES for o in _OUTPUTS) | BY_COUNT
#: Those read from the first relevant rank only where a relevant item ends the cascade (g = 1).
CASCADE = frozenset({"nerr8", "nerr9", "nerr10", "nerr11"})

#: One cell's atoms: per group, the chance of each atom with R > 0, its value, and the
#: value of the outcome with no relevant item (groups x atoms, groups x atoms, groups).
Atoms = tuple[np.ndarray, np.ndarray, np.ndarray]


def cwl_gain(grade: np.ndarray, policy: Policy) -> np.ndarray:
    """min(max(grade, 0), M) / M, M = `Policy.cwl_max_grade`: as `RankedRows.cwl_gain`."""
    top = float(policy.cwl_max_grade)
    clipped: np.ndarray = np.clip(grade, 0.0, top) / top
    return clipped


def cwl_moments(
    cells: list[tuple[str, int]],
    ranked_q: np.ndarray,
    rest_q: np.ndarray,
    n_candidates: np.ndarray,
    gain: np.ndarray,
    policy: Policy,
) -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """(metric, k, mean, std) per group of each C/W/L cell. `ranked_q`: groups x width, the
    relevance chance at each rank (0 past a list's end; width at least every K); `rest_q`:
    the other items that count in R; `gain`: each group's C/W/L gain of its relevant grade."""
    groups = ranked_q.shape[0]
    rest_none = poisson_binomial(rest_q)[:, 0] if rest_q.shape[1] else np.ones(groups)
    found = []
    for metric, k in cells:
        q = ranked_q[:, :k]
        # P(no relevant item past the K ranks read): with none within them, R = 0.
        none_after = rest_none * np.prod(1 - ranked_q[:, k:], axis=1)
        read = np.minimum(n_candidates, float(k))
        measure = metric.split("_")[0]
        output = metric[len(measure) :]
        if measure in ("sdcg", "insq"):
            mean, spread = _linear(measure, output, k, q, none_after, gain, policy)
        elif measure == "inst" or (metric in BY_COUNT and (gain < 1).any()):
            first, second = path_moments(measure, output, k, q, read, gain, policy)
            # The count c = 0: no relevant item ranked, R = 0 unless one is past the ranks.
            kept = np.hstack([none_after[:, None] * 0 + 1 - none_after[:, None],
                              np.ones_like(first[:, 1:])])  # fmt: skip
            e1, e2 = summed_in_order(first * kept), summed_in_order(second * kept)
            zero1, zero2 = first[:, 0] * none_after, second[:, 0] * none_after
            none = np.prod(1 - q, axis=1) * none_after
            mean, spread = _finished(e1, e2, zero1, zero2, none, policy)
        else:
            atoms = (_bpm if measure == "bpm" else _cascade)(
                measure, output, k, q, read, gain, policy
            )
            mean, spread = _over_atoms(atoms, q, none_after, policy)
        found.append((metric, k, mean, spread))
    return found


def _finished(
    e1: np.ndarray, e2: np.ndarray, zero1: np.ndarray, zero2: np.ndarray, none: np.ndarray,
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(mean, std) from E[V; R > 0], E[V^2; R > 0], E[V; R = 0], E[V^2; R = 0] and P(R = 0), as
    the empty-truth policy reads the outcome without a relevant item."""
    if policy.empty_truth == "exclude":
        kept = np.where(none < 1, 1 - none, np.nan)
        first, second = e1 / kept, e2 / kept
    else:
        first, second = e1 + zero1, e2 + zero2
        if policy.empty_truth == "nan":
            first = np.where(none > 0, np.nan, first)
    variance = second - first * first
    # As `laws.conditioned`: a variance within rounding of E[V^2] is 0.
    variance = np.where(variance <= 64 * np.finfo(np.float64).eps * second, 0.0, variance)
    return first, np.sqrt(variance)


def _linear(
    measure: str, output: str, k: int, q: np.ndarray, none_after: np.ndarray, gain: np.ndarray,
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """SDCG's and INSQ's cells: Σ a_j x_j (rate and total gain) or a constant (depth)."""
    rank = np.arange(1, _DEPTH + 1, dtype=np.float64)
    if measure == "sdcg":
        weight = 1.0 / np.log2(rank[:k] + 1.0)
        depth, beyond = math.fsum(1.0 / math.log2(i + 1.0) for i in range(1, k + 1)), 0.0
    else:
        twice = 2.0 * float(policy.cwl_target)
        weight = (twice / (rank - 1.0 + twice)) ** 2
        depth = math.fsum((twice / (i - 1.0 + twice)) ** 2 for i in range(1, _DEPTH + 1))
        beyond, weight = (twice / (_DEPTH + twice)) ** 2, weight[:k]
    none = np.prod(1 - q, axis=1) * none_after
    if output == "_depth":
        constant = np.full(q.shape[0], depth)
        kept = 1 - none
        return _finished(
            constant * kept, constant**2 * kept, constant * none, constant**2 * none, none, policy
        )
    per_rank = weight / depth if output == "" else weight - beyond
    a = gain[:, None] * per_rank[None, : q.shape[1]]
    e1 = summed_in_order(a * q)
    e2 = summed_in_order(a * a * q * (1 - q)) + e1 * e1
    zero = np.zeros_like(e1)  # no relevant item: no gain
    return _finished(e1, e2, zero, zero, none, policy)


def _over_atoms(
    atoms: Atoms, q: np.ndarray, none_after: np.ndarray, policy: Policy
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, std) of a value given by its atoms: chances (R > 0) and values, and the value of
    the outcome with no relevant ranked item (which has R = 0 with chance `none_after`)."""
    chance, value, empty = atoms
    none_ranked = np.prod(1 - q, axis=1)
    none = none_ranked * none_after
    # The outcome with no relevant item ranked but one past the ranks read has R > 0.
    kept_empty = none_ranked * (1 - none_after)
    e1 = summed_in_order(chance * value) + kept_empty * empty
    e2 = summed_in_order(chance * value * value) + kept_empty * empty * empty
    return _finished(e1, e2, none * empty, none * empty * empty, none, policy)


def _prefix_laws(q: np.ndarray, width: int) -> list[np.ndarray]:
    """The law of the count of relevant items in the first i ranks, i = 0 .. K (groups x
    (`width` + 1), counts past `width` dropped: no value reads them)."""
    groups = q.shape[0]
    law = np.zeros((groups, width + 1))
    law[:, 0] = 1.0
    laws = [law.copy()]
    for rank in range(q.shape[1]):
        p = q[:, rank : rank + 1]
        law[:, 1:] = law[:, 1:] * (1 - p) + law[:, :-1] * p
        law[:, :1] *= 1 - p
        laws.append(law.copy())
    return laws


def _bpm(
    measure: str, output: str, k: int, q: np.ndarray, read: np.ndarray, gain: np.ndarray,
    policy: Policy,
) -> Atoms:  # fmt: skip
    """BPM's atoms: stopped at rank s by the c*-th relevant item (K atoms), or read to K with
    c < c* relevant items (c* atoms; c = 0 with R > 0 as the empty one)."""
    target = float(policy.cwl_target)
    groups = q.shape[0]
    # The gain gathered after c relevant items, added up one row after another as the
    # evaluation's running sum adds it (rows of no gain add 0.0).
    running = np.cumsum(np.repeat(gain[:, None], k, axis=1), axis=1)
    gathered = np.hstack([np.zeros((groups, 1)), running])  # groups x (counts 0 .. k)
    reached = gathered >= target  # groups x (counts 0 .. k)
    stopping = np.where(reached.any(axis=1), reached.argmax(axis=1), k + 1)  # c*, or never
    laws = _prefix_laws(q, k + 1)
    rows = np.arange(groups)
    stop_rank = np.arange(1, k + 1, dtype=np.float64)
    before = np.stack([laws[s - 1][rows, np.maximum(stopping - 1, 0)] for s in range(1, k + 1)], 1)
    stop_chance = np.where((stopping >= 1)[:, None], before * q, 0.0)
    stop_gain = gathered[rows, np.minimum(stopping, k)][:, None]
    counts = np.arange(k + 2)
    short = counts[None, :] < stopping[:, None]  # read to K without reaching T
    end_chance = np.where(short, laws[k], 0.0)
    end_gain = np.take_along_axis(gathered, np.minimum(counts, k)[None, :].repeat(groups, 0), 1)
    end_chance[:, 0] = 0.0  # c = 0: the empty atom
    if output == "_depth":
        stopped, ended, empty = (
            np.broadcast_to(stop_rank, (groups, k)),
            np.full((groups, k + 2), float(k)),
            np.full(groups, float(k)),
        )
    elif output == "":
        stopped, ended, empty = stop_gain / stop_rank, end_gain / float(k), np.zeros(groups)
    else:
        stopped, ended = np.broadcast_to(stop_gain, (groups, k)), end_gain
        empty = np.zeros(groups)
    return (np.hstack([stop_chance, end_chance]), np.hstack([stopped, ended]), empty)


def _rank_weights(measure: str, ranks: np.ndarray, policy: Policy) -> np.ndarray:
    """The NERR measure's weight of rank i, beside its cascade (`cwl._NERR_RANK_WEIGHT`)."""
    if measure == "nerr8":
        return np.ones_like(ranks)
    if measure == "nerr9":
        return 1.0 / ranks
    if measure == "nerr10":
        return float(policy.rbp_persistence) ** (ranks - 1.0)
    twice = 2.0 * float(policy.cwl_target)
    weights: np.ndarray = (twice / (ranks - 1.0 + twice)) ** 2
    return weights


def _tail(measure: str, read: np.ndarray, k: int, policy: Policy) -> np.ndarray:
    """Σ over the ranks past the m read (to K, or to cwl_eval's depth where C(K) is not 0) of
    w_i / w_{m+1}, as `cwl._nerr` sums it (the same Polars expressions)."""
    from polars_rankk.core.metrics.families.cwl_math import digamma, inverse_square_tail

    m = pl.col("m")
    tails: dict[str, Callable[[], pl.Expr]] = {
        "nerr8": lambda: float(k) - m,
        "nerr9": lambda: (m + 1.0) * (digamma(m * 0.0 + k + 1.0) - digamma(m + 1.0)),
        "nerr10": lambda: _geometric_tail(m, float(policy.rbp_persistence)),
        "nerr11": lambda: inverse_square_tail(m + 2.0 * float(policy.cwl_target), m, float(_DEPTH))[
            0
        ],
    }
    frame = pl.DataFrame({"m": pl.Series(read, dtype=pl.Float64)})
    return frame.select(tails[measure]().alias("tail"))["tail"].to_numpy()


def _geometric_tail(m: pl.Expr, p: float) -> pl.Expr:
    remaining = pl.lit(p).pow(float(_DEPTH) - m)
    return (1.0 - remaining) / (1.0 - p) if p < 1 else float(_DEPTH) - m


def _cascade(
    measure: str, output: str, k: int, q: np.ndarray, read: np.ndarray, gain: np.ndarray,
    policy: Policy,
) -> Atoms:  # fmt: skip
    """A NERR measure's atoms where g = 1 (`gain`, checked by `cells.recursive_cells`): the
    first relevant rank f (K atoms; the user stops there, nothing past it weighs), or none (the
    empty atom: the list read, then its tail)."""
    groups = q.shape[0]
    ranks = np.arange(1, k + 2, dtype=np.float64)
    rho = _rank_weights(measure, ranks, policy)
    before = np.cumprod(np.hstack([np.ones((groups, 1)), 1 - q[:, :-1]]), axis=1)
    first = q * before
    reached = np.cumsum(rho[:k])  # Σ_{i <= f} w_i
    if output == "_depth":
        at_first = np.broadcast_to(reached, (groups, k))
        summed = np.concatenate([[0.0], reached])[read.astype(np.int64)]
        empty = summed + rho[read.astype(np.int64)] * _tail(measure, read, k, policy)
    elif output == "":
        at_first = np.broadcast_to(rho[:k] / reached, (groups, k))
        empty = np.zeros(groups)
    else:
        at_first = np.broadcast_to(rho[:k], (groups, k))
        empty = np.zeros(groups)
    return first, at_first, empty


def path_moments(
    measure: str, output: str, k: int, q: np.ndarray, read: np.ndarray, gain: np.ndarray,
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """E[V; c] and E[V^2; c] per group and count c of relevant items in the first K ranks (V
    the total gain or the depth): a walk down the ranks with c as state, carrying for each c
    the first two moments of the weight w of the next rank (Π C(j) before it: INST's C reads
    the gain gathered, a function of c; the NERR measures' the cascade), of the gain read
    A = Σ w_j g_j and of the weight read S = Σ w_j, and their products. Every update is
    polynomial in them, so the moments stay exact; the value at the end is linear in A, S and
    w given c (the gain gathered G, the tail past the list), so its moments follow."""
    groups, ranks = q.shape
    width = int((q > 0).sum(axis=1).max(initial=0)) + 1  # the counts reachable
    running = np.cumsum(np.repeat(gain[:, None], width, axis=1), axis=1)
    gathered = np.hstack([np.zeros((groups, 1)), running])[:, :width]  # G after c items
    state = {name: np.zeros((groups, width)) for name in _CARRIED}
    state["mass"][:, 0] = state["w1"][:, 0] = state["w2"][:, 0] = 1.0
    rho = _rank_weights(measure, np.arange(1, ranks + 2, dtype=np.float64), policy)
    for rank in range(1, ranks + 1):
        p = q[:, rank - 1 : rank]
        active = (read >= rank)[:, None]
        if measure == "inst":
            room = rank + 2.0 * float(policy.cwl_target) - gathered
            # C(rank) at each count after it (room >= 2T > 0 at every count reachable by then).
            reachable = np.maximum(room, 2.0 * float(policy.cwl_target))
            go_on = ((reachable - 1.0) / reachable) ** 2
            stay, up = go_on, np.hstack([go_on[:, 1:], go_on[:, -1:]])
        else:
            ratio = rho[rank] / rho[rank - 1] if rho[rank - 1] > 0 else 0.0
            stay, up = np.full((groups, width), ratio), np.full((groups, width), ratio)
            up = up * (1.0 - gain[:, None])
        stay, up = np.where(active, stay, 1.0), np.where(active, up, 1.0)
        state = _step(state, p, active * 1.0, gain[:, None], stay, up)
    return _end_values(measure, output, k, state, read, gathered, policy)


_CARRIED = ("mass", "w1", "w2", "a1", "a2", "aw", "s1", "s2", "sw")


def _step(
    state: dict[str, np.ndarray], p: np.ndarray, active: np.ndarray, gain: np.ndarray,
    stay: np.ndarray, up: np.ndarray,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The carried moments after one rank: its item is relevant with chance `p` (the count
    moves up, A gains w g), or not; S gains w where the rank is in the list (`active`); w is
    multiplied by C (`stay`, `up`: at the count after the rank)."""
    mass, w1, w2 = state["mass"], state["w1"], state["w2"]
    a1, a2, aw, s1, s2, sw = (state[name] for name in ("a1", "a2", "aw", "s1", "s2", "sw"))
    branches = []
    for chance, gained, factor in ((1 - p, 0.0, stay), (p, gain * active, up)):
        moved = {
            "mass": mass,
            "w1": factor * w1,
            "w2": factor * factor * w2,
            "a1": a1 + gained * w1,
            "a2": a2 + 2 * gained * aw + gained * gained * w2,
            "aw": factor * (aw + gained * w2),
            "s1": s1 + active * w1,
            "s2": s2 + 2 * active * sw + active * active * w2,
            "sw": factor * (sw + active * w2),
        }
        branches.append({name: value * chance for name, value in moved.items()})
    stayed, rose = branches
    return {name: stayed[name] + np.hstack([np.zeros_like(rose[name][:, :1]),
                                            rose[name][:, :-1]])
            for name in _CARRIED}  # fmt: skip


def _end_values(
    measure: str, output: str, k: int, state: dict[str, np.ndarray], read: np.ndarray,
    gathered: np.ndarray, policy: Policy,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """E[V; c] and E[V^2; c] from the carried moments: the depth S + w tail, the total gain
    A - w beyond G (`cwl.Parts`), tail and beyond per group and count as `cwl` reads them."""
    from polars_rankk.core.metrics.families.cwl_math import inverse_square_tail

    m, gathered_gain = pl.col("m"), pl.col("g")
    twice = 2.0 * float(policy.cwl_target)
    shape = gathered.shape
    frame = pl.DataFrame({"m": np.repeat(read, shape[1]), "g": gathered.ravel()})
    if measure == "inst":  # past the list, C(i) = ((i + a - 1) / (i + a))^2 with a = 2T - G
        tail, beyond = inverse_square_tail(m + twice - gathered_gain, m, float(_DEPTH))
    elif measure == "nerr11":
        tail, beyond = inverse_square_tail(m + twice, m, float(_DEPTH))
    else:  # nerr8 and nerr9 stop at K <= cwl_eval's depth: nothing is left beyond it
        tail = pl.lit(0.0)
        p = float(policy.rbp_persistence)
        beyond = pl.lit(p).pow(float(_DEPTH) - m) if measure == "nerr10" else m * 0.0
    read_out = frame.select(tail.alias("tail"), (beyond * gathered_gain).alias("lost"))
    tails = read_out["tail"].to_numpy().reshape(shape)
    if measure != "inst":
        tails = np.repeat(_tail(measure, read, k, policy)[:, None], shape[1], axis=1)
    lost = read_out["lost"].to_numpy().reshape(shape)
    # A count past the ranks read is never reached (its tail may not even be finite: INST's
    # a = 2T - G would reach 0): it adds nothing.
    reachable = np.arange(shape[1])[None, :] <= read[:, None]
    tails, lost = np.where(reachable, tails, 0.0), np.where(reachable, lost, 0.0)
    if output == "_depth":
        first = state["s1"] + tails * state["w1"]
        second = state["s2"] + 2 * tails * state["sw"] + tails * tails * state["w2"]
    else:
        first = state["a1"] - lost * state["w1"]
        second = state["a2"] - 2 * lost * state["aw"] + lost * lost * state["w2"]
    return first, second
