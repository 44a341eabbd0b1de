"""K-curves from sums over ranks: every K at the cost of the graded rows, not groups × K.

Each metric's macro mean at K is a sum over groups of a per-group value v_g(K), divided by the
number of groups that count at K. Which sums give it is derived from the metric's formula
(`polars_rankk.core.metrics.summed`), never written here:

* an *event-valued* formula (nDCG, MRR, AP over R, recall...) changes only at the ranks where a
  term it reads, or the ideal DCG, changes: the formula is evaluated there, per group, on the
  running sums of its terms, and each change is an *event* ``(column, K, delta)``;
* a *linear* formula (precision, F-beta, AP over min(K, R), an SDCG; recall beside precision)
  is ``a + Σ c_t S_t`` with coefficients of K, R_g and n: each class of groups with the same
  (R_g, n) sums its terms' row values as events, and the formula, evaluated once per (class,
  K) on unit sums, weighs the class's running sums.

A column's sum at K is the running sum of its deltas up to K; ``short_lists="skip"`` removes a
group at K = n + 1 (its deltas so far taken back). The same sparse events give every resample
at once: with resample weights ``W`` (resamples × groups), the resampled sums are ``W @ D``
(D: groups × events), then the same running sums and the same weighing. The compiled kernel
draws the same ``W`` and adds the same products without an array of draws or weights
(`polars_rankk.core.kernel.resample`).

Order of summation: an event-valued group value uses the same cumulated terms and formula as
`evaluate`; the sum over groups adds the deltas in (group, column, K) order, then runs over K.
Means agree with ``evaluate(k=K).summary()`` exactly where the sums are integers (hit rate,
group counts) and to 1e-12 elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankk.core import Evaluation
from polars_rankk.core.columns import IDEAL_DCG
from polars_rankk.core.inputs.spec import normalize_metrics
from polars_rankk.core.kernel.resample import resampled_event_sums
from polars_rankk.core.metrics.rank_events import event_rows
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.metrics.summed import (
    IDEAL,
    SummedForm,
    linear_weights,
    probe_stats,
    summed_form,
)
from polars_rankk.core.metrics.terms import ordered
from polars_rankk.core.optional import optional_module
from polars_rankk.core.policy import Policy
from polars_rankk.stats.resampling import over_weight_blocks

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Column 0 counts the groups that count at K; the event-valued metrics' columns follow, then
#: the linear metrics' class block (per class: its group count, then each term's sum).
COUNT = 0


@dataclass
class RankSums:
    """Sparse per-group events of one evaluation, ready to sum (see the module docstring)."""

    groups: pl.DataFrame  # strata…, keys, n_candidates, n_relevant; sorted, row = group index
    strata: list[str]
    group: IntArray  # event -> group index
    column: IntArray  # event -> column * k_max + (k - 1)
    delta: FloatArray
    k_max: int
    n_columns: int
    #: Event-valued metrics: the column holding the sum of their values.
    columns: dict[str, int] = field(default_factory=dict)
    #: Linear metrics: their weights of the class block, classes × (1 + terms) × K.
    weights: dict[str, FloatArray] = field(default_factory=dict)
    block: int = 1  # the class block's first column


def sums_over_ranks(
    evaluation: Evaluation,
    strata: Sequence[str] = (),
    groups: pl.LazyFrame | None = None,
    metrics: Sequence[str] | None = None,
) -> RankSums | None:
    """Events of `evaluation`'s `metrics` (default: all with a cut-off) at K = 1…max K; None
    when its policy needs the per-group path or a formula has neither shape.

    `groups` is the evaluation's groups table with the `strata` columns attached.
    """
    policy = evaluation.policy
    chosen = [m for m in (evaluation.metrics if metrics is None else metrics) if REGISTRY[m].has_k]
    forms = {m: _form(m, policy) for m in chosen}
    if any(form is None for form in forms.values()):
        return None
    terms = ordered({term for m in chosen for term in REGISTRY[m].terms})
    rows = evaluation.ranking_rows(terms) if terms else evaluation.ranking_rows()
    if rows is None:
        return None
    graded, ideal = rows
    keys = list(evaluation.group_keys)
    table = evaluation.groups.lazy() if groups is None else groups
    own = [key for key in keys if key not in strata]  # a stratum may be a group key
    # The group's counts may be strata themselves (by="n_candidates"): each column once.
    read = dict.fromkeys([*strata, *own, "n_candidates", "n_relevant"])
    table = table.select(*read).sort([*strata, *own], nulls_last=True)
    from_kernel = evaluation.ranking_events(terms)
    collected = pl.collect_all([table, *(from_kernel or (graded, ideal))])
    group_table = collected[0].with_row_index("_g")
    k_max = max(evaluation.ks)
    nan_empty = policy.empty_truth == "nan"
    sizes = group_table.select(
        "_g",
        pl.col("n_candidates").alias("n"),
        pl.col("n_relevant").alias("r"),
        (~(pl.col("n_relevant") == 0) | pl.lit(not nan_empty)).alias("valid"),
    )
    valid = sizes.filter("valid")
    index = group_table.select(*keys, "_g")
    running, rows_g = event_rows(terms, index, collected[1:], from_kernel is None, valid, ideal)
    skip = policy.short_lists == "skip"
    pieces = [_event(valid, COUNT, pl.lit(1), pl.lit(1.0))]
    if skip:
        pieces.append(_event(valid, COUNT, pl.col("n") + 1, pl.lit(-1.0)))
    sums = RankSums(group_table.drop("_g"), list(strata), *_empty_events(), k_max, 1)
    linear = _in_class_block(chosen, forms)
    valued = [m for m in chosen if m not in linear]
    if valued:
        sums.columns.update({m: column for column, m in enumerate(valued, 1)})
        events = _value_events(sums.columns, policy, running, valid, k_max)
        pieces.append(_truncated(events, sizes, skip))
    sums.block = 1 + len(sums.columns)
    if linear:
        pieces.extend(_linear_events(sums, linear, forms, policy, rows_g, valid, skip))
    sums.n_columns = max(sums.n_columns, sums.block)
    frame = pl.concat(pieces).filter(
        (pl.col("k") >= 1) & (pl.col("k") <= k_max) & (pl.col("d") != 0.0)
    )
    group = frame["_g"].to_numpy()
    # In ascending group order, each group's events in the order they came: the order the sums
    # over groups add them in (each column and K: its groups in ascending order).
    order = _by_group(group)
    sums.group = group[order]
    sums.column = (frame["c"].to_numpy() * k_max + frame["k"].to_numpy() - 1)[order]
    sums.delta = frame["d"].to_numpy()[order]
    return sums


def _by_group(group: IntArray) -> IntArray:
    """The stable order of `group`'s values, as ``np.argsort(group, kind="stable")`` gives it,
    found by sorting its runs (each piece of events lists a group's events side by side), not
    its elements: a few runs a group, against a dozen events."""
    if not group.size:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, group.size])
    by_group = _stable_order(group[starts])
    starts, lengths = starts[by_group], lengths[by_group]
    moved = starts - np.r_[0, np.cumsum(lengths)[:-1]]
    order: IntArray = np.arange(group.size) + np.repeat(moved, lengths)
    return order


def _stable_order(keys: IntArray) -> IntArray:
    """``np.argsort(keys, kind="stable")`` of group indices (0 <= key < 2**32) by NumPy's
    radix sort, which it runs on 16-bit keys only: by the low half, then, where a key has a
    high half, stably by it (a tenth of the time of its merge sort of 64-bit keys)."""
    order: IntArray = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if keys.size and int(keys.max()) >= 1 << 16:
        high = (keys >> 16).astype(np.uint16)
        order = order[np.argsort(high[order], kind="stable")]
    return order


def _form(name: str, policy: Policy) -> SummedForm | None:
    metric = REGISTRY[name]
    if metric.formula is None:
        return None
    return summed_form(metric.formula, metric.terms, policy)


def _in_class_block(chosen: list[str], forms: dict[str, SummedForm | None]) -> list[str]:
    """The metrics the class block sums: the linear formulas that are not event-valued, and
    those that are whose terms it sums anyway (recall beside precision): no event of their own."""
    shapes = {m: form for m, form in forms.items() if form is not None}
    linear = {m for m, form in shapes.items() if not form.events}
    summed = {term for m in linear for term in REGISTRY[m].terms}
    shares = {m for m, f in shapes.items() if f.linear and set(REGISTRY[m].terms) <= summed}
    return [m for m in chosen if m in linear | shares]


def _empty_events() -> tuple[IntArray, IntArray, FloatArray]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)


def _event(frame: pl.DataFrame, column: int | pl.Expr, k: pl.Expr, delta: pl.Expr) -> pl.DataFrame:
    """Events (group, column, K, delta) of the rows of `frame`."""
    col = column if isinstance(column, pl.Expr) else pl.lit(column, dtype=pl.Int64)
    return frame.select(
        pl.col("_g").cast(pl.Int64), col.cast(pl.Int64).alias("c"), k.cast(pl.Int64).alias("k"),
        delta.cast(pl.Float64).alias("d"),
    )  # fmt: skip


def _value_events(
    columns: dict[str, int],
    policy: Policy,
    running: pl.DataFrame,
    valid: pl.DataFrame,
    k_max: int,
) -> pl.DataFrame:
    """The event-valued metrics' values per group at every event row of `running` (each rank
    where a term one of them reads, or the ideal DCG, changes, from rank 1 on): ``_g, k, n``
    and one column per metric (named by its column number), sorted by group and K. A metric's
    value at a rank where none of its own terms changed is the same formula on the same sums:
    its delta there is 0.
    """
    group = running.get_column("_g").to_numpy()
    frame = running.with_columns(**{name: _per_group(valid, name)[group] for name in ("n", "r")})

    def at_k(stat: str, k: int) -> pl.Expr:
        return pl.col(IDEAL) if stat == IDEAL_DCG else pl.col(stat)

    values = []
    for name, column in columns.items():
        formula = REGISTRY[name].formula
        assert formula is not None
        value = formula(policy, k_max, probe_stats(at_k))
        values.append(value.cast(pl.Float64).alias(str(column)))
    return frame.select("_g", "k", "n", *values)


def _per_group(groups: pl.DataFrame, column: str) -> IntArray:
    """`column` of `groups` at each group index (``_g``)."""
    values = np.zeros(int(groups.height and groups["_g"].cast(pl.Int64).max()) + 1, np.int64)
    values[groups["_g"].to_numpy()] = groups[column].to_numpy()
    return values


def _truncated(events: pl.DataFrame, sizes: pl.DataFrame, skip: bool) -> pl.DataFrame:
    """Value events as deltas (one row per group, column and K); under skip only K <= n, and
    the value leaves at K = n + 1. A null value has no delta, nor has the row after it."""
    if skip:
        events = events.filter(pl.col("k") <= pl.col("n"))
    names = [c for c in events.columns if c not in ("_g", "k", "n")]
    # Sorted by group: a group's first row follows another group's last (or none).
    same = pl.col("_g") == pl.col("_g").shift(1)
    pieces = []
    for name in names:
        value = pl.col(name).cast(pl.Float64)
        before = value.shift(1)
        delta = value - pl.when(same).then(before).otherwise(0.0)
        # A zero delta adds nothing (the events keep none).
        kept = value.is_not_null() & ~(same & before.is_null()).fill_null(False) & (delta != 0.0)
        pieces.append(
            events.lazy()
            .select("_g", pl.lit(int(name), dtype=pl.Int64).alias("c"), "k", delta.alias("d"), kept)
            .filter(pl.col(name))
            .drop(name)
        )
    if not pieces:
        return _frame(np.zeros(0, np.int64), *_empty_events())
    frame = pl.concat(pl.collect_all(pieces)).cast({"_g": pl.Int64, "k": pl.Int64})
    if not skip:
        return frame
    # Each (group, column)'s deltas so far (added in K order), taken back at K = n + 1.
    pair = (frame["_g"] * (len(names) + 2) + frame["c"]).to_numpy()
    n_of = _per_group(sizes, "n")
    pairs, at = np.unique(pair, return_inverse=True)
    totals: FloatArray = np.asarray(
        np.bincount(at, weights=frame["d"].to_numpy(), minlength=pairs.size), dtype=np.float64
    )
    removed: IntArray = pairs // (len(names) + 2)
    column: IntArray = pairs % (len(names) + 2)
    return pl.concat([frame, _frame(removed, column, n_of[removed] + 1, -totals)])


def _frame(group: IntArray, column: IntArray, k: IntArray, delta: FloatArray) -> pl.DataFrame:
    """Events (group, column, K, delta) as a frame, as `_event` gives them."""
    return pl.DataFrame(
        {"_g": group, "c": column, "k": k, "d": delta},
        schema={"_g": pl.Int64, "c": pl.Int64, "k": pl.Int64, "d": pl.Float64},
    )


def _linear_events(
    sums: RankSums,
    names: list[str],
    forms: dict[str, SummedForm | None],
    policy: Policy,
    rows: pl.DataFrame,
    valid: pl.DataFrame,
    skip: bool,
) -> list[pl.DataFrame]:
    """The class block's events (per class of groups: its count, its terms' row values) and,
    into `sums.weights`, each linear metric's weights of the block."""
    terms = list(ordered({term for name in names for term in REGISTRY[name].terms}))
    width = 1 + len(terms)
    by = [
        *(["r"] if any(f is not None and f.reads_relevant for f in forms.values()) else []),
        *(["n_class"] if any(f is not None and f.reads_length for f in forms.values()) else []),
    ]
    groups = valid.with_columns(
        pl.min_horizontal(pl.col("n"), pl.lit(sums.k_max + 1)).alias("n_class")
    )
    classes = (
        groups.select(by).unique().sort(by).with_row_index("_q")
        if by
        else pl.DataFrame({"_q": [0]}, schema={"_q": pl.UInt32})
    )
    groups = (
        groups.join(classes, on=by, maintain_order="left")
        if by
        else groups.with_columns(_q=pl.lit(0, pl.UInt32))
    )
    start = pl.lit(sums.block, dtype=pl.Int64) + pl.col("_q").cast(pl.Int64) * width
    pieces = [_event(groups, start, pl.lit(1), pl.lit(1.0))]
    if skip:
        pieces.append(_event(groups, start, pl.col("n") + 1, pl.lit(-1.0)))
    # Each row's class and length by its group's index (the rows' groups are all valid).
    at = _per_group(groups.with_row_index("_at"), "_at")[rows["_g"].to_numpy()]
    rows_q = rows.with_columns(
        pl.Series("_q", groups["_q"].to_numpy()[at]), pl.Series("n", groups["n"].to_numpy()[at])
    )
    for offset, term in enumerate(terms, 1):
        with_term = rows_q.filter(pl.col(term) != 0)
        pieces.append(_event(with_term, start + offset, pl.col("rank"), pl.col(term)))
        if skip:
            totals = with_term.group_by("_g", "_q", "n").agg(pl.col(term).sum())
            pieces.append(_event(totals, start + offset, pl.col("n") + 1, -pl.col(term)))
    frame = classes.with_columns(
        r=pl.col("r").cast(pl.Float64) if "r" in by else pl.lit(1.0),
        n=pl.col("n_class").cast(pl.Float64) if "n_class" in by else pl.lit(sums.k_max + 1.0),
    )
    for name in names:
        form, formula = forms[name], REGISTRY[name].formula
        assert form is not None
        assert formula is not None
        sums.weights[name] = linear_weights(formula, form, policy, frame, terms, sums.k_max)
    sums.n_columns = sums.block + classes.height * width
    return pieces


def _transform(
    sums: FloatArray, sizes: RankSums, metrics: Sequence[str]
) -> tuple[FloatArray, FloatArray]:
    """Running sums (… × columns × K) -> per-metric numerators (… × metrics × K) and counts."""
    block = sums[..., sizes.block :, :]
    out = []
    for name in metrics:
        if name in sizes.columns:
            out.append(sums[..., sizes.columns[name], :])
            continue
        weights = sizes.weights[name]
        shaped = block.reshape(*block.shape[:-2], *weights.shape)
        out.append(np.einsum("...qwk,qwk->...k", shaped, weights))
    return np.stack(out, axis=-2), sums[..., COUNT, :]


def _running(flat: FloatArray, sizes: RankSums) -> FloatArray:
    shaped = flat.reshape(*flat.shape[:-1], sizes.n_columns, sizes.k_max)
    return np.cumsum(shaped, axis=-1)


def stratum_slices(sums: RankSums) -> list[tuple[tuple[object, ...], slice]]:
    """Each stratum's key values and its contiguous rows of groups."""
    if not sums.strata:
        return [((), slice(0, sums.groups.height))]
    runs = (
        sums.groups.with_row_index("_i")
        .group_by(sums.strata, maintain_order=True)
        .agg(pl.col("_i").min().alias("start"), pl.len().alias("size"))
    )
    return [
        (tuple(row[c] for c in sums.strata), slice(row["start"], row["start"] + row["size"]))
        for row in runs.iter_rows(named=True)
    ]


def means(
    sums: RankSums, metrics: Sequence[str]
) -> list[tuple[tuple[object, ...], FloatArray, FloatArray]]:
    """Per stratum: (key, sums metrics × K, counts K)."""
    out = []
    width = sums.n_columns * sums.k_max
    for key, rows in stratum_slices(sums):
        inside = (sums.group >= rows.start) & (sums.group < rows.stop)
        flat: FloatArray = np.asarray(
            np.bincount(sums.column[inside], weights=sums.delta[inside], minlength=width),
            dtype=np.float64,
        )
        numerators, counts = _transform(_running(flat, sums), sums, metrics)
        out.append((key, numerators, counts))
    return out


def covers_every_k(evaluation: Evaluation, metrics: Iterable[str] | None = None) -> bool:
    """Whether `curve_of_evaluations` can give this evaluation's curve at every K up to its
    largest, not only at the evaluated K: the curve then comes from sums over ranks, which
    every policy allows except ``ties="expected"`` and an ``n_relevant`` column (and no
    expectation over label outcomes: its ranks are one labelling's).

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> from polars_rankk.stats.rank_sums import covers_every_k
    >>> res = rk.evaluate(pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]}),
    ...                   pl.DataFrame({"q": [1], "item": [2]}), k=[1, 2], group_by="q")
    >>> covers_every_k(res)
    True
    """
    chosen = evaluation.metrics if metrics is None else normalize_metrics(metrics)
    if evaluation.label_methods is not None:
        return False  # its ranks' sums are one labelling's, not the expectations
    if any(m not in REGISTRY for m in chosen):
        return False
    with_k = [REGISTRY[m] for m in chosen if REGISTRY[m].has_k]
    return all(m.rank_summed for m in with_k) and evaluation.ranking_rows() is not None


def resampled_means(
    sums: RankSums, metrics: Sequence[str], rows: slice, rng: np.random.Generator, n_resamples: int
) -> FloatArray:
    """Resampled means (B × metrics × K) of the stratum whose groups are `rows`."""
    inside = (sums.group >= rows.start) & (sums.group < rows.stop)
    size = rows.stop - rows.start
    group, column, delta = sums.group[inside] - rows.start, sums.column[inside], sums.delta[inside]

    def of_sums(flat: FloatArray) -> FloatArray:
        numerators, counts = _transform(_running(flat, sums), sums, metrics)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts[:, None, :] > 0.5, numerators / counts[:, None, :], np.nan)

    # The kernel draws the same weights and adds the same products, with no array of weights.
    width = sums.n_columns * sums.k_max
    drawn = resampled_event_sums(rng, size, group, column, delta, width, n_resamples)
    if drawn is not None:
        return of_sums(drawn)
    sparse = optional_module("scipy.sparse", "K-curve intervals")
    matrix = sparse.csr_matrix((delta, (group, column)), shape=(size, width))

    def block_means(weights: FloatArray) -> FloatArray:
        # resamples × columns: each event once per resample
        return of_sums(np.asarray(weights @ matrix))

    return np.concatenate(over_weight_blocks(rng, [size], n_resamples, block_means), axis=0)
