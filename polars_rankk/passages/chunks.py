"""Chunk diagnostics: how each group's top passages spread over documents, and where each
relevant document first shows up in the passage ranking.

A RAG pipeline hands its top K chunks to a model: K chunks of one document are one source,
not K. These tables say how many documents the top K hold, how much of it the largest one
takes, and the rank of each relevant document's first passage (its rank as a document under
MaxP, before the documents ranked above it are counted once).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core import (
    FrameLike,
    Policy,
    align_ids,
    normalize_keys,
    normalize_ks,
    require_columns,
    to_lazy,
)
from polars_rankk.core.columns import RANK, ROW, SCORE
from polars_rankk.core.inputs.normalize import column_name
from polars_rankk.core.metrics import order as ranking
from polars_rankk.core.metrics.order import RELEVANCE_AWARE_TIES
from polars_rankk.passages.collapse import check_passages, passage_rows, valid_scores
from polars_rankk.passages.ids import DOCUMENT
from polars_rankk.passages.rule import DocumentRule

#: A passage's count among a group's top K, per document.
_COUNT = "_rk_count"


@dataclass(frozen=True)
class ChunkDiagnostics:
    """How the top passages of each group spread over documents.

    Attributes
    ----------
    per_group
        One row per (group, k): ``passages_in_top_k`` (min(k, passages ranked)),
        ``documents_in_top_k`` (the distinct documents among them), ``top_k_documents``
        (those documents, in the order of their first passage),
        ``largest_document_share`` (the share of them held by one document) and
        ``largest_document`` (that document; of several, the one ranked first).
    relevant_documents
        With a truth table: one row per (group, relevant document): ``first_passage_rank``
        (the rank of its best-ranked passage; null when none was retrieved) and
        ``passages_retrieved``. None without truth.
    ks
        The cut-offs.
    """

    per_group: FrameLike
    relevant_documents: FrameLike | None
    ks: tuple[int, ...]

    def summary(self) -> pl.DataFrame:
        """Per k: the groups, the mean ``documents_in_top_k`` and ``largest_document_share``
        over them, and (with truth) ``relevant_found_within_k``, the share of relevant
        documents whose first passage ranks within k.

        Examples
        --------
        >>> import polars as pl, polars_rankk as rk
        >>> run = pl.DataFrame({"q": [1, 1, 1], "item": ["a#0", "a#1", "b#0"],
        ...                     "score": [0.9, 0.8, 0.7]})
        >>> rk.chunk_diagnostics(run, group_by="q", document="#", k=[1, 3]).summary()
        shape: (2, 4)
        ┌─────┬────────┬─────────────────────────┬─────────────────────────────┐
        │ k   ┆ groups ┆ mean_documents_in_top_k ┆ mean_largest_document_share │
        │ --- ┆ ---    ┆ ---                     ┆ ---                         │
        │ i64 ┆ u32    ┆ f64                     ┆ f64                         │
        ╞═════╪════════╪═════════════════════════╪═════════════════════════════╡
        │ 1   ┆ 1      ┆ 1.0                     ┆ 1.0                         │
        │ 3   ┆ 1      ┆ 2.0                     ┆ 0.666667                    │
        └─────┴────────┴─────────────────────────┴─────────────────────────────┘
        """
        per_group = self.per_group.lazy()
        table = (
            per_group.group_by("k")
            .agg(
                pl.len().alias("groups"),
                pl.col("documents_in_top_k").mean().alias("mean_documents_in_top_k"),
                pl.col("largest_document_share").mean().alias("mean_largest_document_share"),
            )
            .sort("k")
        )
        if self.relevant_documents is not None:
            ranks = self.relevant_documents.lazy().select("first_passage_rank")
            found = pl.LazyFrame({"k": list(self.ks)}, schema={"k": pl.Int64}).join(
                ranks, how="cross"
            )
            found = found.group_by("k").agg(
                (pl.col("first_passage_rank") <= pl.col("k")).fill_null(False).mean()
                .alias("relevant_found_within_k")
            )  # fmt: skip
            table = table.join(found, on="k", how="left").sort("k")
        return table.collect()


def chunk_diagnostics(
    run: FrameLike,
    truth: FrameLike | None = None,
    *,
    group_by: str | Sequence[str],
    document: object,
    k: int | Iterable[int] = 10,
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    policy: Policy | None = None,
    check_values: bool = True,
) -> ChunkDiagnostics:
    """How each group's top K passages spread over documents, and where each relevant
    document's first passage ranks.

    Parameters
    ----------
    run
        The passage run: one row per (group, passage) with `item` and `score`; lazy in, lazy
        tables out.
    truth
        Document judgements (one row per (group, document), `item` the document id, with an
        optional `relevance` grade): a document is relevant when its grade reaches the
        policy's ``relevance_threshold`` (every row, without a grade column).
    group_by, document, item, score
        As for `to_documents`.
    k
        One cut-off or several.
    relevance
        The truth's grade column.
    policy
        Invalid scores and repeated passages are handled, and passages with equal scores
        ordered, as `evaluate` does under it (a tie order that reads relevance orders the
        passages by id ascending here, their relevance being the documents').
    check_values
        Check the run's values first, as `to_documents` does.

    Returns
    -------
    ChunkDiagnostics
        ``per_group`` and ``relevant_documents`` tables, and ``summary()``.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> run = pl.DataFrame({"q": [1, 1, 1, 1], "item": ["a#0", "a#1", "a#2", "b#0"],
    ...                     "score": [0.9, 0.8, 0.7, 0.6]})
    >>> truth = pl.DataFrame({"q": [1, 1], "item": ["b", "c"]})
    >>> found = rk.chunk_diagnostics(run, truth, group_by="q", document="#", k=3)
    >>> found.per_group.select("k", "documents_in_top_k", "largest_document_share",
    ...                        "largest_document")
    shape: (1, 4)
    ┌─────┬────────────────────┬────────────────────────┬──────────────────┐
    │ k   ┆ documents_in_top_k ┆ largest_document_share ┆ largest_document │
    │ --- ┆ ---                ┆ ---                    ┆ ---              │
    │ i64 ┆ u32                ┆ f64                    ┆ str              │
    ╞═════╪════════════════════╪════════════════════════╪══════════════════╡
    │ 3   ┆ 1                  ┆ 1.0                    ┆ a                │
    └─────┴────────────────────┴────────────────────────┴──────────────────┘
    >>> found.relevant_documents
    shape: (2, 4)
    ┌─────┬──────┬────────────────────┬────────────────────┐
    │ q   ┆ item ┆ first_passage_rank ┆ passages_retrieved │
    │ --- ┆ ---  ┆ ---                ┆ ---                │
    │ i64 ┆ str  ┆ i64                ┆ u32                │
    ╞═════╪══════╪════════════════════╪════════════════════╡
    │ 1   ┆ b    ┆ 4                  ┆ 1                  │
    │ 1   ┆ c    ┆ null               ┆ 0                  │
    └─────┴──────┴────────────────────┴────────────────────┘
    """
    policy = Policy() if policy is None else policy
    keys = list(normalize_keys(group_by))
    item, score = column_name(item, "item"), column_name(score, "score")
    ks = normalize_ks(k)
    rule = DocumentRule(document)
    rows = passage_rows(to_lazy(run, "run"), rule, keys=keys, item=item, score=score,
                        policy=policy)  # fmt: skip
    if check_values:
        check_passages(rows, rule, keys=keys, item=item, score=score, policy=policy)
    ranked = _ranked_passages(rows, keys, item, policy)
    per_group = pl.concat([_top_k(ranked, keys, depth) for depth in ks]).sort([*keys, "k"])
    relevant = None
    if truth is not None:
        relevant = _relevant_documents(ranked, truth, keys, item, relevance, policy)
    if isinstance(run, pl.LazyFrame):
        return ChunkDiagnostics(per_group, relevant, ks)
    collected = pl.collect_all([per_group, *([relevant] if relevant is not None else [])])
    return ChunkDiagnostics(collected[0], collected[1] if relevant is not None else None, ks)


def _ranked_passages(
    rows: pl.LazyFrame, keys: list[str], item: str, policy: Policy
) -> pl.LazyFrame:
    """keys, item, `DOCUMENT` and `RANK`: the passages ranked as `evaluate` ranks items."""
    rows = valid_scores(rows, policy)
    if policy.duplicates == "first":
        best = pl.struct(-pl.col(SCORE), *([pl.col(ROW)] if policy.ties == "input_order" else []))
        kept = [pl.col(DOCUMENT).min_by(best)]
        if policy.ties == "input_order":
            kept.append(pl.col(ROW).min_by(best))
        rows = rows.group_by([*keys, item]).agg(pl.col(SCORE).max(), *kept)
    row = pl.col(ROW) if policy.ties == "input_order" else None
    if policy.ties in RELEVANCE_AWARE_TIES:
        order, descending = [-pl.col(SCORE), pl.col(item)], False
    else:
        order, descending = ranking.tie_order(policy, pl.col(SCORE), pl.col(item), None, row)
    rank = ranking.rank_of(order, descending, [pl.col(key) for key in keys])
    return rows.select(*keys, item, DOCUMENT, rank.alias(RANK))


def _top_k(ranked: pl.LazyFrame, keys: list[str], k: int) -> pl.LazyFrame:
    """One row per group: how its top `k` passages spread over documents."""
    counts = (
        ranked.filter(pl.col(RANK) <= k)
        .group_by([*keys, DOCUMENT])
        .agg(pl.len().alias(_COUNT), pl.col(RANK).min())
    )
    return counts.group_by(keys).agg(
        pl.lit(k, dtype=pl.Int64).alias("k"),
        pl.col(_COUNT).sum().alias("passages_in_top_k"),
        pl.len().alias("documents_in_top_k"),
        pl.col(DOCUMENT).sort_by(RANK).alias("top_k_documents"),
        (pl.col(_COUNT).max() / pl.col(_COUNT).sum()).alias("largest_document_share"),
        pl.col(DOCUMENT)
        .sort_by(_COUNT, RANK, descending=[True, False])
        .first()
        .alias("largest_document"),
    )


def _relevant_documents(
    ranked: pl.LazyFrame,
    truth: FrameLike,
    keys: list[str],
    item: str,
    relevance: str,
    policy: Policy,
) -> pl.LazyFrame:
    """One row per (group, relevant document) of the truth: its first passage's rank."""
    judged = to_lazy(truth, "truth")
    schema = require_columns(judged, "truth", dict.fromkeys([*keys, item], "a column"))
    if relevance in schema:
        judged = judged.filter(pl.col(relevance) >= policy.relevance_threshold)
    documents = judged.select(*keys, item).unique()
    first = ranked.group_by([*keys, DOCUMENT]).agg(
        pl.col(RANK).min().alias("first_passage_rank"), pl.len().alias("passages_retrieved")
    )
    first = first.rename({DOCUMENT: item})
    documents, first = align_ids(documents, first, [*keys, item], names=("truth", "run"))
    return (
        documents.join(first, on=[*keys, item], how="left")
        .with_columns(pl.col("passages_retrieved").fill_null(0))
        .sort([*keys, item])
    )
