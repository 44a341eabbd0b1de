"""trec_eval (pytrec_eval) on the collapsed run written as a TREC file equals `evaluate` on the
collapsed frame under `Policy.trec_eval()`: the collapse hands `evaluate` a document run that
any tool reads the same way."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.io import write_trec_run
from tests.passages.runs import DOCUMENTS, passage_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

#: trec_eval measure -> (our metric, k): k None for the whole list.
MEASURES = {
    "P_5": ("precision", 5),
    "recall_10": ("recall", 10),
    "ndcg_cut_10": ("ndcg", 10),
    "map": ("average_precision", None),
    "recip_rank": ("mrr", None),
}


def read_run(path: Path) -> dict[str, dict[str, float]]:
    """The TREC file as trec_eval reads it (query Q0 docno rank score tag), independently of
    rk.read_trec_run."""
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query, _, docno, _, score, _ = line.split()
        run.setdefault(query, {})[docno] = float(score)
    return run


@st.composite
def document_qrels(draw: st.DrawFn) -> pl.DataFrame:
    rows = []
    for query in range(3):
        for document in draw(st.sets(st.sampled_from(DOCUMENTS), max_size=4)):
            rows.append((f"q{query}", document, draw(st.sampled_from([0, 1, 2, 3]))))
    return pl.DataFrame(
        rows, schema={"query": pl.String, "item": pl.String, "relevance": pl.Int64}, orient="row"
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    run=passage_runs(),
    qrels=document_qrels(),
    aggregate=st.sampled_from(["max", "mean", "sum", "kmax_avg"]),
    depth=st.sampled_from([None, 3]),
)
def test_trec_eval_on_the_written_collapse_equals_evaluate(
    run: pl.DataFrame, qrels: pl.DataFrame, aggregate: str, depth: int | None, tmp_path: Path
) -> None:
    top = 2 if aggregate == "kmax_avg" else None
    policy = rk.Policy.trec_eval()
    documents = rk.to_documents(run, group_by="query", document="#", aggregate=aggregate,  # type: ignore[arg-type]
                                top=top, depth=depth, policy=policy)  # fmt: skip
    assert isinstance(documents, pl.DataFrame)
    if qrels.is_empty():
        return
    path = tmp_path / "documents.trec"
    if documents.height:
        write_trec_run(documents, path)
        written = read_run(path)
    else:
        written = {}
    judged = {}
    for query, document, grade in qrels.iter_rows():
        judged.setdefault(query, {})[document] = grade
    # trec_eval -c: a judged query the run lacks is scored as an empty ranking.
    written = {query: written.get(query, {}) for query in judged}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, set(MEASURES))
    want = evaluator.evaluate(written)
    ours = rk.evaluate(documents, qrels, group_by="query", policy=policy,
                       metrics=list(MEASURES))  # fmt: skip
    per_group = ours.per_group
    assert isinstance(per_group, pl.DataFrame)
    got = {(q, metric, k): value for q, metric, k, value in per_group.iter_rows()}
    for query, values in want.items():
        for measure, (metric, k) in MEASURES.items():
            value = got[(query, metric, k)]
            # pytrec_eval sums a ranking's gains in its own order: equal to the last bits.
            assert math.isclose(value, values[measure], rel_tol=1e-12, abs_tol=1e-15), (
                query, measure, value, values[measure],
            )  # fmt: skip
