"""`rk.truth_to_documents` and `rk.chunk_diagnostics`, each against a brute-force reference
written from its definition on drawn runs and judgements."""

from __future__ import annotations

import math
from collections import Counter

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.passages.runs import passage_ids, passage_runs

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def passage_qrels(draw: st.DrawFn) -> pl.DataFrame:
    """query, item (a passage id), relevance: passages judged twice included."""
    rows = []
    for query in range(draw(st.integers(1, 3))):
        for passage in draw(st.lists(passage_ids(), max_size=8)):
            rows.append((f"q{query}", passage, draw(st.sampled_from([-1, 0, 1, 2, 3]))))
    return pl.DataFrame(
        rows, schema={"query": pl.String, "item": pl.String, "relevance": pl.Int64}, orient="row"
    )


def document_grades(qrels: pl.DataFrame, aggregate: str, grades: dict) -> dict:
    """The definition: each passage at its highest grade (remapped), then the document's
    grades folded by `aggregate`."""
    best: dict[tuple[str, str], float] = {}
    for query, passage, judged in qrels.iter_rows():
        grade = grades.get(judged, judged)
        best[(query, passage)] = max(best.get((query, passage), -math.inf), grade)
    by_document: dict[tuple[str, str], list[float]] = {}
    for (query, passage), grade in best.items():
        by_document.setdefault((query, passage.split("#")[0]), []).append(grade)
    fold = {"max": max, "min": min, "mean": lambda g: sum(g) / len(g)}[aggregate]
    return {key: fold(values) for key, values in by_document.items()}


@SETTINGS
@given(
    qrels=passage_qrels(),
    aggregate=st.sampled_from(["max", "min", "mean"]),
    grades=st.sampled_from([{}, {1: 0}, {1: 0, 3: 2}]),
)
def test_truth_to_documents_is_its_definition(qrels: pl.DataFrame, aggregate: str,
                                              grades: dict) -> None:  # fmt: skip
    got = rk.truth_to_documents(qrels, group_by="query", document="#", aggregate=aggregate,  # type: ignore[arg-type]
                                grades=grades or None)  # fmt: skip
    assert isinstance(got, pl.DataFrame)
    found = {(q, d): g for q, d, g in got.iter_rows()}
    want = document_grades(qrels, aggregate, grades)
    assert found.keys() == want.keys()
    for key, value in want.items():
        assert math.isclose(found[key], value, rel_tol=1e-15), key
    assert got.select("query", "item").rows() == sorted(found)


def test_truth_without_grades_lists_each_document_once() -> None:
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a#0", "a#1", "b"]})
    got = rk.truth_to_documents(qrels.lazy(), group_by="query", document="#")
    assert isinstance(got, pl.LazyFrame)
    assert got.collect().rows() == [("q", "a"), ("q", "b")]
    with pytest.raises(ValueError, match=r"grades=\{1: 0\} remaps the truth's 'relevance' column"):
        rk.truth_to_documents(qrels, group_by="query", document="#", grades={1: 0})


def test_truth_refuses_invalid_grades_and_unmapped_passages() -> None:
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a#0", "b#0"], "relevance": [1.0, None]})
    with pytest.raises(ValueError, match=r"truth: column 'relevance' \(a relevance grade\) must "
                       r"not be null; 1 row\(s\), e.g. \{'query': 'q', 'item': 'b#0'"):  # fmt: skip
        rk.truth_to_documents(qrels, group_by="query", document="#")
    mapping = pl.DataFrame({"item": ["a#0"], "document": ["A"]})
    with pytest.raises(ValueError, match=r"truth: column 'item' holds a passage the document "
                       r"mapping lacks.*'item': 'b#0'"):  # fmt: skip
        rk.truth_to_documents(qrels.fill_null(0), group_by="query", document=mapping)


def test_the_dl_passage_grade_related_is_not_a_relevant_document() -> None:
    """TREC DL: a passage's 1 is *related* (not relevant), a document's 1 is relevant."""
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a#0", "a#1", "b#0"],
                          "relevance": [1, 2, 1]})  # fmt: skip
    plain = rk.truth_to_documents(qrels, group_by="query", document="#")
    remapped = rk.truth_to_documents(qrels, group_by="query", document="#", grades={1: 0})
    assert isinstance(plain, pl.DataFrame)
    assert isinstance(remapped, pl.DataFrame)
    assert plain.rows() == [("q", "a", 2), ("q", "b", 1)]
    assert remapped.rows() == [("q", "a", 2), ("q", "b", 0)]


# --- chunk diagnostics ---------------------------------------------------------------------


def passage_ranking(run: pl.DataFrame) -> dict[str, list[str]]:
    """Each query's passages ranked as evaluate ranks items by default: a repeated passage at
    its best score, score descending, ties by id descending in byte order."""
    best: dict[tuple[str, str], float] = {}
    for query, passage, score in run.iter_rows():
        best[(query, passage)] = max(best.get((query, passage), -math.inf), score)
    ranked: dict[str, list[str]] = {}
    for (query, passage), _ in sorted(best.items(), key=lambda kv: kv[0][1].encode(),
                                      reverse=True):  # fmt: skip
        ranked.setdefault(query, []).append(passage)
    return {q: sorted(p, key=lambda passage: -best[(q, passage)]) for q, p in ranked.items()}


@SETTINGS
@given(run=passage_runs(), ks=st.sampled_from([(1,), (3,), (1, 2, 5)]))
def test_chunk_diagnostics_are_their_definition(run: pl.DataFrame, ks: tuple[int, ...]) -> None:
    truth = pl.DataFrame({"query": ["q0", "q0", "q1"], "item": ["a", "é", "10"],
                          "relevance": [1, 2, 0]})  # fmt: skip
    found = rk.chunk_diagnostics(run, truth, group_by="query", document="#", k=ks)
    per_group = found.per_group
    assert isinstance(per_group, pl.DataFrame)
    got = {(row["query"], row["k"]): row for row in per_group.iter_rows(named=True)}
    ranked = passage_ranking(run)
    for query, passages in ranked.items():
        for k in ks:
            top = [passage.split("#")[0] for passage in passages[:k]]
            counts = Counter(top)
            row = got[(query, k)]
            assert row["passages_in_top_k"] == len(top)
            assert row["documents_in_top_k"] == len(counts)
            assert row["top_k_documents"] == list(dict.fromkeys(top))
            assert row["largest_document_share"] == max(counts.values()) / len(top)
            most = max(counts.values())
            first_of_most = next(d for d in top if counts[d] == most)
            assert row["largest_document"] == first_of_most
    assert len(got) == len(ranked) * len(ks)
    relevant = found.relevant_documents
    assert isinstance(relevant, pl.DataFrame)
    for query, document, rank, retrieved in relevant.iter_rows():
        documents = [p.split("#")[0] for p in ranked.get(query, [])]
        want = documents.index(document) + 1 if document in documents else None
        assert (rank, retrieved) == (want, documents.count(document))
    assert sorted(relevant.select("query", "item").rows()) == [("q0", "a"), ("q0", "é")]


def test_the_summary_reads_the_share_of_relevant_documents_found() -> None:
    run = pl.DataFrame({"q": [1, 1, 1, 2], "item": ["a#0", "a#1", "b#0", "c#0"],
                        "score": [0.9, 0.8, 0.7, 0.5]})  # fmt: skip
    truth = pl.DataFrame({"q": [1, 1, 2], "item": ["b", "z", "c"]})
    summary = rk.chunk_diagnostics(run, truth, group_by="q", document="#", k=[1, 3]).summary()
    assert summary.rows() == [(1, 2, 1.0, 1.0, 1 / 3), (3, 2, 1.5, (2 / 3 + 1) / 2, 2 / 3)]


def test_chunk_diagnostics_lazy_in_lazy_out() -> None:
    run = pl.LazyFrame({"q": [1], "item": ["a#0"], "score": [1.0]})
    found = rk.chunk_diagnostics(run, group_by="q", document="#", k=2)
    assert isinstance(found.per_group, pl.LazyFrame)
    assert found.relevant_documents is None
    assert found.summary()["mean_documents_in_top_k"].to_list() == [1.0]
