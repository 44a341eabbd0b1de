"""Passage runs drawn for the passages tests: a few documents whose ids sort differently as
text and as numbers, passages cut by a delimiter or not at all (an id without it is its own
document), scores from a handful of values (ties everywhere), and passages repeated."""

from __future__ import annotations

import polars as pl
from hypothesis import strategies as st

#: Document ids whose byte order differs from their look: 'a!' < 'a' < 'a#...' < 'ab'.
DOCUMENTS = ("a", "ab", "a!", "B", "b", "é", "10", "9", "日本")
#: Scores from a handful of values: ties within and across documents.
SCORES = (-1.0, 0.0, 0.5, 0.5, 1.0, 2.0)


@st.composite
def passage_ids(draw: st.DrawFn, delimiter: str = "#") -> str:
    """A passage id: a document, then (mostly) the delimiter and a passage number; sometimes
    the delimiter twice (the document is still the text before the first)."""
    document = draw(st.sampled_from(DOCUMENTS))
    shape = draw(st.sampled_from(["passage", "passage", "passage", "bare", "twice"]))
    number = draw(st.integers(0, 3))
    if shape == "bare":
        return document
    if shape == "twice":
        return f"{document}{delimiter}{number}{delimiter}{number + 1}"
    return f"{document}{delimiter}{number}"


@st.composite
def passage_runs(
    draw: st.DrawFn, delimiter: str = "#", max_rows: int = 14, repeats: bool = True
) -> pl.DataFrame:
    """query, item (a passage id), score: up to three queries, repeated passages when
    `repeats` (the same id twice in a query, with its own score)."""
    rows = []
    for query in range(draw(st.integers(1, 3))):
        ids = draw(st.lists(passage_ids(delimiter), max_size=max_rows))
        if not repeats:
            ids = list(dict.fromkeys(ids))
        rows += [(f"q{query}", passage, draw(st.sampled_from(SCORES))) for passage in ids]
    return pl.DataFrame(
        rows, schema={"query": pl.String, "item": pl.String, "score": pl.Float64}, orient="row"
    )
