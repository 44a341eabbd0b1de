"""Every spelling this library reads, listed for the docs (`docs/metric_names.md`) and the
tests: what each means and how its cut-off is evaluated."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import polars as pl

from polars_rankk.core.metrics.registry import METRICS, REGISTRY


class AcceptedName(NamedTuple):
    """One accepted spelling (``K`` stands for any cut-off >= 1), the tool that writes it,
    the canonical metric it names and the K it is evaluated at."""

    spelling: str
    tool: str
    metric: str
    k: str


def accepted_names() -> list[AcceptedName]:
    """Every accepted spelling, in registry order: the rows of docs/metric_names.md.

    Examples
    --------
    >>> from polars_rankk.core.names.listing import accepted_names
    >>> [row.spelling for row in accepted_names() if row.metric == "mrr"]
    ['mrr@K', 'mrr', 'RR@K', 'RR', 'MRR@K', 'MRR', 'recip_rank']
    """
    rows: list[AcceptedName] = []
    for metric in METRICS:
        entry = REGISTRY[metric]
        if entry.has_k:
            rows.append(AcceptedName(f"{metric}@K", "canonical", metric, ADDS_K))
        rows.append(AcceptedName(metric, "canonical", metric, _plain_k(entry.has_k)))
        for alias in entry.aliases:
            spelling, tool, cut = alias.spelling, alias.tool, alias.cut
            if cut:
                joint = "_" if tool == "trec_eval" else "@"
                base = "RBP(p=0.9)" if spelling == "RBP" else spelling
                rows.append(AcceptedName(f"{base}{joint}K", tool, metric, ADDS_K))
            plain = WHOLE if entry.has_k and alias.whole_list else _plain_k(entry.has_k)
            rows.append(AcceptedName(spelling, tool, metric, plain))
    return rows


#: How a spelling with a cut-off is evaluated.
ADDS_K = "K (added to the evaluation's K)"
#: How a tool's spelling that means the whole list is evaluated.
WHOLE = "the whole list (no K)"


def _plain_k(has_k: bool) -> str:
    return "the evaluation's K" if has_k else "no K"


#: A cut-off placeholder in a listed spelling (``P@K``, ``ndcg_cut_K``, ``P.K``).
_CUTOFF = re.compile(r"[@_.]K$")


def metric_rank(column: str = "metric") -> pl.Expr:
    """Sort key putting metric names in canonical order (unknown names after them): a
    labelled name sorts with its metric, as typed (``P(rel=2)``, ``alpha_nDCG(alpha=0.3)``)
    or canonical (``rbp(rbp_persistence=0.5)``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.names.listing import metric_rank
    >>> frame = pl.DataFrame({"metric": ["ndcg", "precision", "P(rel=2)", "mine", "P_10"]})
    >>> frame.sort(metric_rank(), maintain_order=True)["metric"].to_list()
    ['precision', 'P(rel=2)', 'P_10', 'ndcg', 'mine']
    """
    exact, cut = _rank_tables(tuple((name, id(entry)) for name, entry in REGISTRY.items()))
    name = pl.col(column).str.replace(r"\(.*$", "")
    return pl.coalesce(
        name.replace_strict(exact, default=None, return_dtype=pl.Int64),
        # A tool's name with its cut-off (``P_10``, ``nDCG@10``) sorts with its metric.
        name.str.replace(r"[@_.][0-9]+$", "").replace_strict(
            cut, default=None, return_dtype=pl.Int64
        ),
        pl.lit(len(REGISTRY), pl.Int64),
    )


@functools.lru_cache(maxsize=4)
def _rank_tables(registry: tuple[tuple[str, int], ...]) -> tuple[dict[str, int], dict[str, int]]:
    """(spelling -> position, spelling without its cut-off -> position) of the registry
    `registry` snapshots: listed once per registry, not on every sort (a metric registered or
    removed at run time makes another snapshot)."""
    index = {name: position for position, (name, _) in enumerate(registry)}
    exact, cut = dict(index), {}
    for row in accepted_names():
        if row.metric in index:
            if _CUTOFF.search(row.spelling):
                cut[_CUTOFF.sub("", row.spelling)] = index[row.metric]
            else:
                exact.setdefault(row.spelling, index[row.metric])
    return exact, cut
