"""trec_eval's own regression files (tests/data/trec_eval) and how to read them.

Each entry of :data:`TREC_EVAL_RUNS` says which trec_eval command printed an ``out.*`` file
and how polars-rankk expresses that command (see tests/data/trec_eval/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

DATA = Path(__file__).parent / "data" / "trec_eval"

#: The cut-offs of trec_eval's ``P``, ``recall``, ``ndcg_cut`` and ``map_cut`` measures.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: The cut-offs of trec_eval's ``success`` measure.
SUCCESS_CUTOFFS = (1, 5, 10)
#: A cut-off longer than any run list: ``recip_rank`` without ``-M`` looks at every rank.
UNCUT = 10_000

#: trec_eval measure name pattern -> polars-rankk metric name.
K_MEASURES = {
    "P": "precision",
    "recall": "recall",
    "ndcg_cut": "ndcg",
    "map_cut": "average_precision",
    "success": "hit_rate",
}


@dataclass(frozen=True)
class TrecEvalRun:
    out: str
    run: str
    qrels: str
    command: str
    #: ``-l``: the relevance level (threshold) of the binary measures.
    relevance_level: int = 1
    #: ``-M``: only the first M results (after sorting) of each query are used.
    max_results: int | None = None

    @property
    def id(self) -> str:
        return self.out


TREC_EVAL_RUNS = (
    TrecEvalRun("out.test.aq", "results.test", "qrels.test", "-m all_trec -q"),
    TrecEvalRun("out.test.aqc", "results.trunc", "qrels.test", "-m all_trec -q -c"),
    TrecEvalRun(
        "out.test.aqcM", "results.trunc", "qrels.test", "-m all_trec -q -c -M100", max_results=100
    ),
    TrecEvalRun(
        "out.test.aql",
        "results.test",
        "qrels.rel_level",
        "-m all_trec -mrelstring.20 -q -l2",
        relevance_level=2,
    ),
)


def parse_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """``{(measure, query_or_"all"): value_text}`` from a ``measure<TAB>query<TAB>value`` file."""
    out: dict[tuple[str, str], str] = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path.name} line {number}: expected 3 tab-separated fields")
        measure, query, value = (f.strip() for f in fields)
        if (measure, query) in out:
            raise ValueError(f"{path.name} line {number}: {measure} {query} repeats")
        out[measure, query] = value
    return out


def expected_values(out: dict[tuple[str, str], str]) -> dict[tuple[str, str, int | None], float]:
    """The trec_eval measures polars-rankk computes, as ``{(query, metric, k): value}``.

    ``recip_rank`` is returned under ``("mrr", UNCUT)``: trec_eval's reciprocal rank looks at
    every returned rank (``-M`` having already cut the list where given).
    """
    values: dict[tuple[str, str, int | None], float] = {}
    for (measure, query), text in out.items():
        if measure == "recip_rank":
            values[query, "mrr", UNCUT] = float(text)
        elif measure == "Rprec":
            values[query, "r_precision", None] = float(text)
        else:
            name, _, cut = measure.rpartition("_")
            if name in K_MEASURES and cut.isdigit():
                values[query, K_MEASURES[name], int(cut)] = float(text)
    return values


def top_m(run: pl.LazyFrame, m: int) -> pl.LazyFrame:
    """trec_eval ``-M m``: the first ``m`` results of each query in trec_eval's order
    (score descending, ties by item id descending in byte order)."""
    return run.sort(
        ["query", "score", pl.col("item").cast(pl.Binary)],
        descending=[False, True, True],
        maintain_order=True,
    ).filter(pl.int_range(pl.len()).over("query") < m)
