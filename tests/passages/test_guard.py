"""The guard: a passage run evaluated against document truth (or the reverse) warns on every
call, naming the delimiter, instead of scoring 0 in silence."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.inputs import passage_guard

RUN = pl.DataFrame(
    {
        "query": ["q1"] * 3 + ["q2"] * 2,
        "item": ["msmarco_v2.1_doc_29_677149#3_1156405", "msmarco_v2.1_doc_29_677149#0_1",
                 "msmarco_v2.1_doc_7_1#2_9", "msmarco_v2.1_doc_8_2#0_0", "other#1"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.5],
    }
)  # fmt: skip
DOCUMENT_TRUTH = pl.DataFrame(
    {"query": ["q1", "q2"], "item": ["msmarco_v2.1_doc_29_677149", "msmarco_v2.1_doc_8_2"]}
)


def evaluate(candidates: pl.DataFrame, truth: pl.DataFrame, **options: object) -> rk.Evaluation:
    return rk.evaluate(candidates, truth, k=3, group_by="query", metrics="recall", **options)  # type: ignore[arg-type]


def test_a_passage_run_on_document_truth_warns_on_every_call() -> None:
    said = (
        r"evaluate: 0 of the 5 distinct candidate ids read \(first 10,000 rows\) equal a truth "
        r"id, but 3 of them cut at their first '#' do \(e.g. 'msmarco_v2.1_doc_29_677149#0_1' "
        r"-> 'msmarco_v2.1_doc_29_677149'\).*rk.to_documents with document='#' \(on the "
        r"command line, --documents '#'\)"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # Python's own filter: once per place, unless told
        for _ in range(3):
            result = evaluate(RUN, DOCUMENT_TRUTH)
    found = [w for w in caught if issubclass(w.category, rk.PassageIdWarning)]
    assert len(found) == 3
    assert found[0].filename == __file__  # the user's line, not the package's
    with pytest.warns(rk.PassageIdWarning, match=said):
        evaluate(RUN, DOCUMENT_TRUTH)
    assert result.summary()["value"].item() == 0.0
    # Collapsed, the same run finds both documents.
    documents = rk.to_documents(RUN, group_by="query", document="#")
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.PassageIdWarning)
        assert evaluate(documents, DOCUMENT_TRUTH).summary()["value"].item() == 1.0  # type: ignore[arg-type]


def test_a_document_run_on_passage_truth_warns_and_points_to_truth_to_documents() -> None:
    truth = pl.DataFrame({"query": ["q1", "q2"], "item": ["d1%p0", "d2%p3"]})
    run = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["d1", "d9", "d2"],
                        "score": [1.0, 0.5, 0.2]})  # fmt: skip
    said = r"2 of them are truth ids cut at their first '%p'.*rk.truth_to_documents with "
    said += r"document='%p'"
    with pytest.warns(rk.PassageIdWarning, match=said):
        evaluate(run, truth)


def test_no_warning_when_ids_match_or_are_not_text_or_values_are_not_checked() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.PassageIdWarning)
        # Passage truth for a passage run: the ids match.
        evaluate(RUN, RUN.select("query", "item"))
        # Integer ids carry no delimiter.
        ints = pl.DataFrame({"query": [1, 1], "item": [10, 11], "score": [1.0, 0.5]})
        evaluate(ints, pl.DataFrame({"query": [1], "item": [1]}))
        # check_values=False: the inputs were checked before.
        evaluate(RUN, DOCUMENT_TRUTH, check_values=False)


def test_the_threshold_is_almost_no_exact_match() -> None:
    """One exact match among the 5 candidate ids read (20%) is not "almost none"."""
    truth = pl.concat([DOCUMENT_TRUTH, pl.DataFrame({"query": ["q1"], "item": ["other#1"]})])
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.PassageIdWarning)
        evaluate(RUN, truth)
    assert passage_guard.EXACT_SHARE == 0.01
    assert passage_guard.PREFIX_SHARE == 0.05


def test_the_guard_reads_the_first_rows_of_the_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passages first, judged documents after: half the ids match, but the rows read do not."""
    monkeypatch.setattr(passage_guard, "SAMPLE_ROWS", 4)
    run = pl.DataFrame({
        "query": ["q"] * 8,
        "item": ["a#0", "b#0", "c#0", "d#0", "e", "f", "g", "h"],
        "score": [1.0] * 8,
    })  # fmt: skip
    truth = pl.DataFrame({"query": ["q"] * 8, "item": list("abcdefgh")})
    with pytest.warns(rk.PassageIdWarning, match=r"0 of the 4 distinct candidate ids read "
                      r"\(first 4 rows\)"):  # fmt: skip
        evaluate(run, truth)
