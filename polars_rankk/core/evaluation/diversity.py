"""Subtopic (diversity) metrics per group: alpha-nDCG, alpha-DCG, ERR-IA, nERR-IA, P-IA, AP-IA,
S-recall, NRBP and nNRBP, as ndeval computes them (`polars_rankk.core.metrics.families.diversity`).

The truth carries a subtopic column (``evaluate(..., subtopic="subtopic")``): one row per
(group, subtopic, item) judgement. The rules, each ndeval's:

- a judgement is binary: relevant to its subtopic when its grade >= ``relevance_threshold``;
  an item the truth does not judge for a subtopic is not relevant to it;
- a group's subtopics are those with at least one relevant item (S); a group with none scores 0
  (NaN under ``Policy(empty_truth="nan")``; ``"exclude"`` drops it, as every metric);
- an item's gain at a rank is the sum over the subtopics it is relevant to of (1 - alpha)^c,
  c the items above it relevant to that subtopic;
- the ideal ranking of alpha-nDCG, nERR-IA and nNRBP is greedy: at each rank the judged item of
  largest gain given the ranks above, ties to the larger item id (byte order of its text);
- every other metric reads the subtopic-less truth: an item's grade is its largest grade over
  subtopics (ndeval: relevant to the topic when relevant to any subtopic).

Everything is a Polars expression over all groups at once; the greedy ideal is a loop over the
ranks 1..max K, each step one vectorised pass over every group's judged items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES, RANK
from polars_rankk.core.inputs.checks import example_row, require_columns
from polars_rankk.core.inputs.frames import to_lazy
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.plan import Part
from polars_rankk.core.policy import Policy
from polars_rankk.core.types import FrameLike

_SUB = "_rk_subtopic"
_COUNT = "_rk_before"  # earlier items relevant to the same subtopic
_GAIN = "_rk_gain"
_HITS = "_rk_hits"
_NEW = "_rk_new"
_AP = "_rk_ap"
_S = "_rk_subtopics"
_NREL = "_rk_relevant_in_subtopic"
_TEXT = "_rk_item_text"


@dataclass(frozen=True)
class DiversityRequest:
    """The subtopic metrics asked for: canonical names, the cut-offs their names carry, and
    the policy with the fields their parameters set (``alpha=``, ``beta=``)."""

    metrics: tuple[str, ...]
    ks: tuple[int, ...]
    policy: Policy


@dataclass(frozen=True)
class SubtopicJob:
    """What `evaluate` computes from the subtopic judgements: the request and the checked
    judgements (both None when no subtopic metric is asked)."""

    request: DiversityRequest | None
    judged: pl.LazyFrame | None

    @property
    def metrics(self) -> tuple[str, ...]:
        """The subtopic metrics to compute (none without a request)."""
        if self.request is None or self.judged is None:
            return ()
        return self.request.metrics

    def joined(
        self, wide: pl.LazyFrame, ranked: pl.LazyFrame, kept: pl.LazyFrame, spec: Spec
    ) -> tuple[pl.LazyFrame, str]:
        """The wide metric table with the subtopic metrics' columns, and what to add to
        ``diagnostics.path``."""
        assert self.request is not None
        assert self.judged is not None
        values = diversity_values(
            ranked,
            self.judged,
            kept,
            keys=spec.keys,
            item=spec.item,
            ks=spec.ks,
            request=self.request,
            policy=spec.policy,
        )
        said = f"; the subtopic metrics {list(self.metrics)} in pure Polars (not linear terms)"
        return wide.join(values, on=list(spec.keys), how="left"), said


def subtopic_job(
    part: Part,
    truth: FrameLike | None,
    *,
    subtopic: str | None,
    keys: Sequence[str],
    item: str,
    relevance: str,
) -> tuple[FrameLike | None, SubtopicJob]:
    """`evaluate`'s first step for subtopics: the truth the other metrics read
    (`subtopic_truth`) and the job of the plan part's subtopic metrics."""
    request = None
    if part.subtopic_metrics:
        request = DiversityRequest(part.subtopic_metrics, part.subtopic.ks, part.policy)
    truth, judged = subtopic_truth(
        truth, subtopic=subtopic, keys=keys, item=item, relevance=relevance, request=request
    )
    return truth, SubtopicJob(request, judged)


def aligned_ids(spec: Spec, frame: pl.LazyFrame) -> pl.LazyFrame:
    """`frame`'s key and item columns cast to the checked candidates' dtypes (as the ranking
    and the truth hold them), so that it joins and hashes into buckets alike."""
    wanted = spec.candidates.collect_schema()
    present = frame.collect_schema()
    columns = [c for c in (*spec.keys, spec.item) if c in present and c in wanted]
    return frame.with_columns(pl.col(c).cast(wanted[c]) for c in columns)


def subtopic_truth(
    truth: FrameLike | None,
    *,
    subtopic: str | None,
    keys: Sequence[str],
    item: str,
    relevance: str,
    request: DiversityRequest | None,
) -> tuple[FrameLike | None, pl.LazyFrame | None]:
    """The truth every other metric reads (one row per (group, item), its grade the largest
    over subtopics) and the subtopic judgements (keys, subtopic, item, grade), checked.

    A subtopic metric asked without `subtopic` is refused in words.
    """
    if subtopic is None:
        if request is not None:
            raise ValueError(
                f"the subtopic metrics {list(request.metrics)} need the truth's subtopic "
                f"column: name it with subtopic= (e.g. rk.evaluate(..., subtopic='subtopic'); "
                f"rk.read_trec_qrels(path, subtopics=True) reads a TREC diversity qrels file)"
            )
        return truth, None
    if truth is None:
        raise ValueError(f"subtopic={subtopic!r} names a truth column, but no truth is given")
    frame = to_lazy(truth, "truth")
    schema = require_columns(
        frame, "truth", {subtopic: "the subtopic (intent) of a judgement", item: "the item id"}
    )
    if subtopic in keys or subtopic == item:
        raise ValueError(f"subtopic={subtopic!r} is also a group key or the item column")
    if isinstance(schema[item], pl.List):
        raise ValueError(
            f"with subtopic={subtopic!r} the truth is one row per (group, subtopic, item); its "
            f"column {item!r} holds lists ({schema[item]})"
        )
    keys = [key for key in keys if key in schema]  # a truth shared by every system
    example = example_row(frame, pl.col(subtopic).is_null(), [*keys, subtopic, item])
    if example != "(none)":
        raise ValueError(f"truth column {subtopic!r} (the subtopic) has a null, e.g. row {example}")
    graded = relevance in schema
    if graded:
        missing = pl.col(relevance).is_null()
        if schema[relevance].is_float():
            missing = missing | pl.col(relevance).is_nan()
        example = example_row(frame, missing, [*keys, subtopic, item, relevance])
        if example != "(none)":
            raise ValueError(
                f"truth column {relevance!r} (the grade) must be a number in every row; it has "
                f"a null or NaN, e.g. row {example}"
            )
    grade = pl.col(relevance).max() if graded else pl.lit(1.0).max()
    by_item = [*keys, item]
    collapsed = frame.group_by(by_item, maintain_order=True).agg(grade.alias(relevance))
    if not graded:
        collapsed = collapsed.drop(relevance)
    judged = frame.select(
        *keys,
        pl.col(item),
        pl.col(subtopic).alias(_SUB),
        (pl.col(relevance) if graded else pl.lit(1.0)).cast(pl.Float64).alias(_GAIN),
    )
    if isinstance(truth, pl.DataFrame):
        return collapsed.collect(), judged
    return collapsed, judged


def _relevant_pairs(
    judged: pl.LazyFrame, tkeys: list[str], item: str, policy: Policy
) -> pl.LazyFrame:
    """(truth keys, subtopic, item) for each relevant judgement, once (binary, as ndeval)."""
    relevant = pl.col(_GAIN) >= float(policy.relevance_threshold)
    return judged.filter(relevant).select(*tkeys, _SUB, item).unique()


def _ideal_gains(
    pairs: pl.DataFrame, tkeys: list[str], item: str, depth: int, alpha: float
) -> pl.DataFrame:
    """The greedy ideal ranking's gain at each rank 1..depth: truth keys, rank, gain.

    One vectorised step per rank over every group: each unpicked item's gain given the
    subtopics already covered ((1 - alpha)^times covered), the largest (ties to the larger
    item id, as text) taken. Ranks past a group's relevant items gain nothing and are left out.
    """
    keys = tkeys or ["_rk_all"]
    if not tkeys:
        pairs = pairs.with_columns(pl.lit(0).alias("_rk_all"))
    # Integer codes in the order that matters: subtopics as sorted, items by their text (byte
    # order), so that each step groups and joins integers.
    pairs = pairs.select(
        *keys,
        pl.col(_SUB).rank("dense").alias(_SUB),
        pl.col(item).cast(pl.String).rank("dense").alias(_TEXT),
    )
    covered = pairs.select(*keys, _SUB).unique().with_columns(pl.lit(0).alias(_COUNT))
    remaining = pairs
    picked: list[pl.DataFrame] = []
    for rank in range(1, depth + 1):
        if remaining.height == 0:
            break
        # Sorted first, each item's gain sums its subtopics in subtopic order.
        scored = (
            remaining.join(covered, on=[*keys, _SUB], how="left")
            .sort([*keys, _TEXT, _SUB])
            .group_by([*keys, _TEXT], maintain_order=True)
            .agg(_power(1.0 - alpha, pl.col(_COUNT)).sum().alias(_GAIN))
            .filter(pl.col(_GAIN) > 0)
        )
        if scored.height == 0:
            break
        # Equal gains (to 12 decimals: sums of powers of 1 - alpha) go to the larger item id.
        tie = pl.col(_GAIN).round(12)
        best = scored.filter(tie == tie.max().over(keys))
        best = best.filter(pl.col(_TEXT) == pl.col(_TEXT).max().over(keys))
        picked.append(best.select(*keys, pl.lit(rank).alias(RANK), _GAIN))
        chosen = remaining.join(best.select(*keys, _TEXT), on=[*keys, _TEXT], how="semi")
        covered = covered.join(
            chosen.group_by([*keys, _SUB]).agg(pl.len().alias("_rk_step")),
            on=[*keys, _SUB],
            how="left",
        ).select(*keys, _SUB, (pl.col(_COUNT) + pl.col("_rk_step").fill_null(0)).alias(_COUNT))
        remaining = remaining.join(best.select(*keys, _TEXT), on=[*keys, _TEXT], how="anti")
    empty = pairs.head(0).select(*keys, pl.lit(0).alias(RANK), pl.lit(0.0).alias(_GAIN))
    ideal = pl.concat(picked) if picked else empty
    ideal = ideal.with_columns(pl.col(RANK).cast(pl.Int64))
    return ideal.drop("_rk_all") if not tkeys else ideal


def _run_rows(
    ranked: pl.LazyFrame, pairs: pl.LazyFrame, keys: list[str], tkeys: list[str], item: str
) -> pl.LazyFrame:
    """Each ranked (row, subtopic) pair the item is relevant to: keys, rank, subtopic, the
    number of items ranked above relevant to that subtopic, and the subtopic's relevant count."""
    per_subtopic = pairs.group_by([*tkeys, _SUB]).agg(pl.len().cast(pl.Float64).alias(_NREL))
    return (
        ranked.select(*keys, item, RANK)
        .join(pairs, on=[*tkeys, item], how="inner")
        .join(per_subtopic, on=[*tkeys, _SUB], how="left")
        .with_columns(
            (pl.col(RANK).rank("ordinal").over([*keys, _SUB]) - 1).cast(pl.Int64).alias(_COUNT)
        )
    )


def _sum_within(column: str, weight: pl.Expr, k: int | None) -> pl.Expr:
    term = pl.col(column) * weight
    if k is not None:
        term = pl.when(pl.col(RANK) <= k).then(term).otherwise(0.0)
    # A running sum in rank order, as ndeval adds: the same float whatever the row order.
    return term.sort_by(RANK).cum_sum().last()


def _over_subtopics(term: pl.Expr) -> pl.Expr:
    """A sum over one item's subtopics, in subtopic order (the same float whatever the row
    order)."""
    return term.sort_by(_SUB).cum_sum().last()


def diversity_values(
    ranked: pl.LazyFrame,
    judged: pl.LazyFrame,
    groups: pl.LazyFrame,
    *,
    keys: Sequence[str],
    item: str,
    ks: Sequence[int],
    request: DiversityRequest,
    policy: Policy,
) -> pl.LazyFrame:
    """One row per group of `groups` (keys, n_candidates): the wide ``metric@k`` (or
    ``metric``) column of every asked subtopic metric, from the `ranked` rows (keys, item,
    rank) and the subtopic judgements `judged` (`subtopic_truth`)."""
    keys = list(keys)
    tkeys = [key for key in keys if key in judged.collect_schema()]
    # The ids as the ranking holds them (integer widths unified, categoricals as strings).
    wanted = ranked.collect_schema()
    judged = judged.with_columns(pl.col(c).cast(wanted[c]) for c in [*tkeys, item])
    alpha, beta = policy.diversity_alpha, policy.nrbp_beta
    pairs = _relevant_pairs(judged, tkeys, item, policy)
    rows = _run_rows(ranked, pairs, keys, tkeys, item)
    discount = 1.0 / (pl.col(RANK).cast(pl.Float64) + 1.0).log(2.0)
    inverse = 1.0 / pl.col(RANK).cast(pl.Float64)
    per_rank = rows.group_by([*keys, RANK]).agg(
        _over_subtopics(_power(1.0 - alpha, pl.col(_COUNT))).alias(_GAIN),
        pl.len().cast(pl.Float64).alias(_HITS),
        (pl.col(_COUNT) == 0).sum().cast(pl.Float64).alias(_NEW),
        _over_subtopics((pl.col(_COUNT) + 1).cast(pl.Float64) / pl.col(RANK) / pl.col(_NREL)).alias(
            _AP
        ),
    )
    asked = set(request.metrics)
    sums: list[pl.Expr] = []
    for k in ks:
        if asked & {"alpha_ndcg", "alpha_dcg"}:
            sums.append(_sum_within(_GAIN, discount, k).alias(f"_rk_dcg@{k}"))
        if asked & {"err_ia", "nerr_ia"}:
            sums.append(_sum_within(_GAIN, inverse, k).alias(f"_rk_err@{k}"))
        if "p_ia" in asked:
            sums.append(_sum_within(_HITS, pl.lit(1.0), k).alias(f"_rk_hits@{k}"))
        if "st_recall" in asked:
            sums.append(_sum_within(_NEW, pl.lit(1.0), k).alias(f"_rk_new@{k}"))
    if "ap_ia" in asked:
        sums.append(_sum_within(_AP, pl.lit(1.0), None).alias("_rk_ap"))
    if asked & {"nrbp", "nnrbp"}:
        sums.append(_sum_within(_GAIN, _power(beta, pl.col(RANK) - 1), None).alias("_rk_nrbp"))
    table = groups.select(*keys, N_CANDIDATES)
    subtopics = pairs.group_by(tkeys or pl.lit(0)).agg(pl.col(_SUB).n_unique().alias(_S))
    if tkeys:
        table = table.join(subtopics, on=tkeys, how="left")
    else:
        table = table.join(subtopics.select(_S), how="cross")
    table = table.join(per_rank.group_by(keys).agg(sums), on=keys, how="left")
    if asked & {"alpha_ndcg", "nerr_ia", "nnrbp"}:
        table = _with_ideal(table, pairs, tkeys, item, ks, asked, alpha, beta)
    columns = _values(request.metrics, ks, alpha, beta, policy)
    return table.with_columns(pl.col(_S).fill_null(0)).select(*keys, *columns)


def _with_ideal(
    table: pl.LazyFrame,
    pairs: pl.LazyFrame,
    tkeys: list[str],
    item: str,
    ks: Sequence[int],
    asked: set[str],
    alpha: float,
    beta: float,
) -> pl.LazyFrame:
    """`table` with the greedy ideal's alpha-DCG and ERR sums at every K (``_rk_idcg@k``,
    ``_rk_ierr@k``) and its NRBP sum over all its ranks (``_rk_inrbp``, as ndeval ranks every
    judged item). The ideal depends on the truth alone: its judged pairs are collected here,
    once (a truth is small beside the candidates)."""
    collected = pairs.collect()
    # nNRBP reads the whole ideal: as deep as a group's relevant items (the loop stops there).
    depth = max(ks) if "nnrbp" not in asked else max(collected.height, *ks)
    ideal = _ideal_gains(collected, tkeys, item, depth, alpha).lazy()
    discount = 1.0 / (pl.col(RANK).cast(pl.Float64) + 1.0).log(2.0)
    inverse = 1.0 / pl.col(RANK).cast(pl.Float64)
    sums = []
    for k in ks:
        if "alpha_ndcg" in asked:
            sums.append(_sum_within(_GAIN, discount, k).alias(f"_rk_idcg@{k}"))
        if "nerr_ia" in asked:
            sums.append(_sum_within(_GAIN, inverse, k).alias(f"_rk_ierr@{k}"))
    if "nnrbp" in asked:
        sums.append(_sum_within(_GAIN, _power(beta, pl.col(RANK) - 1), None).alias("_rk_inrbp"))
    if tkeys:
        return table.join(ideal.group_by(tkeys).agg(sums), on=tkeys, how="left")
    return table.join(ideal.select(sums), how="cross")


def _values(
    metrics: Sequence[str], ks: Sequence[int], alpha: float, beta: float, policy: Policy
) -> list[pl.Expr]:
    """The value columns from the sums: ndeval's formulas, 0 (or NaN) without subtopics."""
    s = pl.col(_S).cast(pl.Float64)
    empty = math.nan if policy.empty_truth == "nan" else 0.0

    def ratio(numerator: str, denominator: pl.Expr) -> pl.Expr:
        top = pl.col(numerator).fill_null(0.0)
        return pl.when(top > 0).then(top / denominator).otherwise(0.0)

    def finished(value: pl.Expr, k: int | None, name: str) -> pl.Expr:
        value = pl.when(s > 0).then(value).otherwise(empty)
        if k is not None and policy.short_lists == "skip":
            value = pl.when(pl.col(N_CANDIDATES) >= k).then(value)
        return value.cast(pl.Float64).alias(name if k is None else f"{name}@{k}")

    columns = []
    for name in metrics:
        if name == "ap_ia":
            columns.append(finished(ratio("_rk_ap", s), None, name))
        elif name == "nrbp":
            scale = (1.0 - (1.0 - alpha) * beta) / s
            columns.append(finished(ratio("_rk_nrbp", 1.0 / scale), None, name))
        elif name == "nnrbp":  # NRBP's scale (1 - (1-alpha) beta) / S cancels
            columns.append(finished(ratio("_rk_nrbp", pl.col("_rk_inrbp")), None, name))
        for k in ks if REGISTRY[name].has_k else ():
            if name == "alpha_ndcg":
                value = ratio(f"_rk_dcg@{k}", pl.col(f"_rk_idcg@{k}"))
            elif name == "nerr_ia":
                value = ratio(f"_rk_err@{k}", pl.col(f"_rk_ierr@{k}"))
            elif name == "alpha_dcg":
                # ndeval's "ideal ideal" again, discounted; K = 1 undivided.
                ideal = sum((1.0 - alpha) ** r / math.log2(r + 2.0) for r in range(k))
                value = ratio(f"_rk_dcg@{k}", s * ideal if k > 1 else pl.lit(1.0))
            elif name == "err_ia":
                # ndeval's "ideal ideal": every subtopic at every rank; it leaves K = 1 undivided.
                ideal = sum((1.0 - alpha) ** r / (r + 1.0) for r in range(k))
                value = ratio(f"_rk_err@{k}", s * ideal if k > 1 else pl.lit(1.0))
            elif name == "p_ia":
                n = pl.col(N_CANDIDATES).cast(pl.Float64)
                slots = (
                    pl.min_horizontal(n, pl.lit(float(k)))
                    if policy.short_lists == "observed"
                    else pl.lit(float(k))
                )
                value = ratio(f"_rk_hits@{k}", slots * s)
            else:  # st_recall
                value = ratio(f"_rk_new@{k}", s)
            columns.append(finished(value, k, name))
    return columns


def _power(base: float, exponent: pl.Expr) -> pl.Expr:
    """`base` ** `exponent` for a base in [0, 1] and a count or a rank as the exponent, the
    same number whatever the length of the frame: Polars' ``pow`` reads a one-row exponent as
    a scalar and multiplies it out (0.7 ** 6 = 0.11764899999999995) where a longer one calls
    ``pow`` (...96), so a group's NRBP or alpha-nDCG would depend on the groups evaluated
    beside it (and on how Spark or Dask partition them). ``exp`` has one path.

    Examples
    --------
    >>> frames = [pl.DataFrame({"c": [6] * n}) for n in (1, 2)]
    >>> [frame.select(_power(0.7, pl.col("c"))).item(0, 0) for frame in frames]
    [0.11764899999999995, 0.11764899999999995]
    >>> pl.DataFrame({"c": [0, 2]}).select(_power(0.0, pl.col("c"))).to_series().to_list()
    [1.0, 0.0]
    """
    if base <= 0.0:
        return pl.when(exponent == 0).then(1.0).otherwise(0.0)
    return (exponent.cast(pl.Float64) * math.log(base)).exp()
