"""`rk.to_documents` against transcriptions of the tools whose dialects it reproduces.

- Anserini's MaxP walk (``BaseSearcher.processScoredDocs``, formerly
  ``SearchCollection.generateRunOutput``): the passages in the searcher's order, each cut at
  ``docid.split(delimiter)[0]`` (a Java regular expression; trailing empty strings dropped),
  a document kept at its first (best) passage, and the walk stopped after
  ``-selectMaxPassage.hits`` documents. Pyserini's ``OutputWriter.hits_iterator`` is the same
  walk with Python's literal ``str.split``.
- PyTerrier's ``DePassager.transform`` (``pyterrier/text.py``): the passage id split at
  ``%p``, then ``max`` (``idxmax``), ``first`` (``idxmin`` of the passage number), ``mean``
  and ``kmaxavg`` (``nlargest(K).mean()``) per (qid, document), ranked by ``add_ranks``
  (score descending, ties by the groupby's sorted order).

Each is held to equal documents, scores and order on drawn runs with ties, repeated passages
and passages without the delimiter.
"""

from __future__ import annotations

import math
import re

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.passages.runs import passage_runs

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- Anserini and Pyserini ------------------------------------------------------------------


def java_split_first(docid: str, regex: str) -> str:
    """Java's ``docid.split(regex)[0]``: trailing empty strings are removed (limit 0)."""
    parts = re.split(regex, docid)
    while parts and parts[-1] == "":
        parts.pop()
    return parts[0]


def anserini_max_passage(
    hits: list[tuple[str, float]], delimiter: str, max_hits: int
) -> list[tuple[str, float]]:
    """Anserini's MaxP walk over one query's hits, in the searcher's order."""
    results: list[tuple[str, float]] = []
    docids: set[str] = set()
    rank = 1
    for hit_docid, score in hits:
        docid = java_split_first(hit_docid, delimiter)
        if docid in docids:
            continue
        results.append((docid, score))
        docids.add(docid)
        rank += 1
        if rank > max_hits:
            break
    return results


def pyserini_max_passage(
    hits: list[tuple[str, float]], delimiter: str, max_hits: int
) -> list[tuple[str, float]]:
    """Pyserini's ``hits_iterator`` with ``--max-passage``: a literal delimiter."""
    unique_docs: set[str] = set()
    found = []
    rank = 1
    for hit_docid, score in hits:
        docid = hit_docid.split(delimiter)[0]
        if docid in unique_docs:
            continue
        unique_docs.add(docid)
        found.append((docid, score))
        rank += 1
        if rank > max_hits:
            break
    return found


def searcher_order(run: pl.DataFrame, ties: str, delimiter: str) -> dict[str, list]:
    """Each query's hits as a searcher lists them: score descending. Among equal scores the
    searcher's own order (Lucene's internal docid) decides which document comes first; it is
    given here in the policy's order of documents, the order `to_documents` promises."""
    hits: dict[str, list[tuple[str, float]]] = {}
    for query, passage, score in run.iter_rows():
        hits.setdefault(query, []).append((passage, score))
    ordered = {}
    for query, rows in hits.items():
        by_document = sorted(
            rows,
            key=lambda row: row[0].split(delimiter)[0].encode(),
            reverse=ties == "trec_eval",
        )
        ordered[query] = sorted(by_document, key=lambda row: row[1], reverse=True)
    return ordered


def collapsed(run: pl.DataFrame, **options: object) -> dict[str, list[tuple[str, float]]]:
    documents = rk.to_documents(run, group_by="query", **options)  # type: ignore[arg-type]
    assert isinstance(documents, pl.DataFrame)
    found: dict[str, list[tuple[str, float]]] = {}
    for query, document, score in documents.iter_rows():
        found.setdefault(query, []).append((document, score))
    return found


@SETTINGS
@given(
    run=passage_runs(),
    ties=st.sampled_from(["trec_eval", "item_asc"]),
    hits=st.integers(1, 6),
    duplicates=st.sampled_from(["first", "keep"]),
)
def test_maxp_is_anserinis_and_pyserinis_walk(
    run: pl.DataFrame, ties: str, hits: int, duplicates: str
) -> None:
    policy = rk.Policy(ties=ties, duplicates=duplicates)  # type: ignore[arg-type]
    listed = searcher_order(run, ties, "#")
    anserini = {q: anserini_max_passage(h, "#", hits) for q, h in listed.items()}
    pyserini = {q: pyserini_max_passage(h, "#", hits) for q, h in listed.items()}
    got = collapsed(run, document="#", depth=hits, policy=policy)
    assert got == anserini == pyserini


@SETTINGS
@given(run=passage_runs(delimiter="."), seed=st.randoms(use_true_random=False))
def test_maxp_scores_do_not_depend_on_the_order_of_ties(run: pl.DataFrame, seed) -> None:
    """Anserini's default delimiter, the regex ``\\.``, is the literal dot; whatever order the
    searcher lists tied passages in, every document gets its best passage's score."""
    rows = list(run.iter_rows())
    seed.shuffle(rows)
    hits: dict[str, list[tuple[str, float]]] = {}
    for query, passage, score in sorted(rows, key=lambda row: -row[2]):
        hits.setdefault(query, []).append((passage, score))
    want = {q: dict(anserini_max_passage(h, r"\.", 10**9)) for q, h in hits.items()}
    got = {q: dict(docs) for q, docs in collapsed(run, document=".").items()}
    assert got == want


# --- PyTerrier ------------------------------------------------------------------------------


def pyterrier_depassage(run: pd.DataFrame, agg: str, k: int | None = None) -> pd.DataFrame:
    """``DePassager.transform`` on (qid, docno, score) with PyTerrier's ``%p`` ids, then
    ``add_ranks`` (score descending, ``rank(method="first")`` per qid), sorted by rank."""
    topics_and_res = run.copy()
    topics_and_res[["olddocno", "pid"]] = topics_and_res.docno.str.split("%p", expand=True)
    if agg == "max":
        groups = topics_and_res.groupby(["qid", "olddocno"])
        rtr = topics_and_res.loc[groups["score"].idxmax(), :]
        rtr = rtr.drop(columns=["docno", "pid"]).rename(columns={"olddocno": "docno"})
    elif agg == "first":
        topics_and_res.pid = topics_and_res.pid.astype(int)
        groups = topics_and_res.groupby(["qid", "olddocno"])
        rtr = topics_and_res.loc[groups["pid"].idxmin(),]
        rtr = rtr.drop(columns=["docno", "pid"]).rename(columns={"olddocno": "docno"})
    elif agg == "mean":
        rtr = (
            topics_and_res.groupby(["qid", "olddocno"])["score"]
            .mean()
            .reset_index()
            .rename(columns={"olddocno": "docno"})
        )
    else:
        rtr = (
            topics_and_res.groupby(["qid", "olddocno"])["score"]
            .apply(lambda ser: ser.nlargest(k).mean())
            .reset_index()
            .rename(columns={"olddocno": "docno"})
        )
    rtr = rtr.reset_index(drop=True)
    rtr["rank"] = rtr.groupby("qid", sort=False)["score"].rank(ascending=False, method="first")
    return rtr.sort_values(["qid", "rank"])


def pyterrier_run(run: pl.DataFrame) -> pd.DataFrame:
    return run.rename({"query": "qid", "item": "docno"}).to_pandas()


def both(run: pl.DataFrame, agg: str, k: int | None, **options: object) -> tuple[list, list]:
    """(ours, PyTerrier's) as (qid, document, score) rows in rank order. PyTerrier keeps every
    row (``duplicates="keep"``) and orders tied documents by the groupby's sorted document
    ids (``ties="item_asc"``)."""
    policy = rk.Policy(ties="item_asc", duplicates="keep")
    aggregate = "kmax_avg" if agg == "kmaxavg" else agg
    ours = rk.to_documents(run, group_by="query", document="%p", aggregate=aggregate, top=k,
                           policy=policy, **options)  # type: ignore[arg-type]  # fmt: skip
    assert isinstance(ours, pl.DataFrame)
    theirs = pyterrier_depassage(pyterrier_run(run.select("query", "item", "score")), agg, k)
    return list(ours.iter_rows()), list(theirs[["qid", "docno", "score"]].itertuples(index=False))


def same_rows(ours: list, theirs: list, exact: bool) -> None:
    """Equal documents in equal order; scores equal, or within 1e-12 for the means (pandas and
    Polars sum a group's scores in their own order)."""
    assert [row[:2] for row in ours] == [tuple(row[:2]) for row in theirs]
    for (_, _, a), (_, _, b) in zip(ours, theirs, strict=True):
        assert a == b if exact else math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def with_a_passage(run: pl.DataFrame) -> bool:
    """PyTerrier's ``str.split("%p", expand=True)`` needs one id holding ``%p`` (else it makes
    one column, not two) and none holding it twice (three)."""
    counts = run["item"].str.count_matches("%p", literal=True)
    return bool((counts == 1).any()) and not bool((counts > 1).any())


@SETTINGS
@given(
    run=passage_runs(delimiter="%p"),
    agg=st.sampled_from(["max", "mean", "kmaxavg"]),
    k=st.integers(1, 3),
)
def test_pyterriers_max_mean_and_kmaxavg(run: pl.DataFrame, agg: str, k: int) -> None:
    if not with_a_passage(run):
        return
    ours, theirs = both(run, agg, k if agg == "kmaxavg" else None)
    same_rows(ours, theirs, exact=agg == "max")


@SETTINGS
@given(run=passage_runs(delimiter="%p", repeats=False))
def test_pyterriers_first_passage(run: pl.DataFrame) -> None:
    """FirstP: PyTerrier reads the passage number from the id (every id holds ``%p``); here it
    is a column. A document's passages at one position are refused (test_to_documents.py)."""
    run = run.filter(pl.col("item").str.count_matches("%p", literal=True) == 1)
    if run.is_empty():
        return
    number = pl.col("item").str.split("%p").list.last().cast(pl.Int64)
    run = run.with_columns(number.alias("position"))
    ours, theirs = both(run, "first", None, passage_index="position")
    same_rows(ours, theirs, exact=True)


def test_a_tool_order_that_ties_break_differently_is_the_policys() -> None:
    """Two documents with the same best score: trec_eval's order puts 'b' first, PyTerrier's
    groupby puts 'a' first; each is one policy's."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a#0", "b#0", "a#1"],
                        "score": [1.0, 1.0, 0.5]})  # fmt: skip
    trec = rk.to_documents(run, group_by="query", document="#")
    assert isinstance(trec, pl.DataFrame)
    assert trec["item"].to_list() == ["b", "a"]
    asc = rk.to_documents(run, group_by="query", document="#", policy=rk.Policy(ties="item_asc"))
    assert isinstance(asc, pl.DataFrame)
    assert asc["item"].to_list() == ["a", "b"]


@pytest.mark.parametrize("docid", ["a#", "a##b", "a#b#c", "a"])
def test_the_java_split_transcription_keeps_the_text_before_the_first_delimiter(
    docid: str,
) -> None:
    run = pl.DataFrame({"query": ["q"], "item": [docid], "score": [1.0]})
    documents = rk.to_documents(run, group_by="query", document="#")
    assert isinstance(documents, pl.DataFrame)
    assert (
        documents["item"].item() == java_split_first(docid, "#") == docid.split("#", maxsplit=1)[0]
    )


def test_the_guides_table_of_dialects_is_the_declarations() -> None:
    """docs/passages.md lists each aggregate with its meaning and tools as declared once
    (`polars_rankk.passages.AGGREGATES`)."""
    from pathlib import Path

    from polars_rankk.passages import AGGREGATES

    page = (Path(__file__).resolve().parents[2] / "docs" / "passages.md").read_text()
    rows = {
        line.split("`")[1].strip('"'): line.replace("`", "")
        for line in page.splitlines()
        if line.startswith('| `"')
    }
    assert sorted(rows) == sorted(AGGREGATES)
    for name, dialect in AGGREGATES.items():
        assert dialect.meaning.replace("`", "") in rows[name], name
        assert dialect.tools in rows[name], name
