"""`rk.to_documents`: each way of naming a document, each aggregate, the policy's fields, lazy
in and lazy out, and every refusal naming the column and a row."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.passages.runs import passage_runs

RUN = pl.DataFrame(
    {
        "query": ["q1"] * 5 + ["q2"] * 2,
        "item": ["d1#0", "d2#0", "d1#1", "d3", "d1#2", "d1#0", "d4#0"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.1, 0.2, 0.3],
        "position": [0, 0, 1, 0, 2, 0, 0],
    }
)


def rows(frame: object) -> list[tuple]:
    assert isinstance(frame, pl.DataFrame)
    return list(frame.iter_rows())


@pytest.mark.parametrize(
    ("aggregate", "options", "q1"),
    [
        ("max", {}, [("d1", 0.9), ("d2", 0.8), ("d3", 0.6)]),
        ("first", {"passage_index": "position"}, [("d1", 0.9), ("d2", 0.8), ("d3", 0.6)]),
        ("mean", {}, [("d2", 0.8), ("d3", 0.6), ("d1", (0.9 + 0.7 + 0.1) / 3)]),
        ("sum", {}, [("d1", 0.9 + 0.7 + 0.1), ("d2", 0.8), ("d3", 0.6)]),
        ("kmax_avg", {"top": 2}, [("d1", (0.9 + 0.7) / 2), ("d2", 0.8), ("d3", 0.6)]),
    ],
)
def test_each_aggregate(aggregate: str, options: dict, q1: list) -> None:
    got = rk.to_documents(RUN, group_by="query", document="#", aggregate=aggregate, **options)  # type: ignore[arg-type]
    found = [(d, s) for q, d, s in rows(got) if q == "q1"]
    # In rank order: score descending, ties by document id descending (trec_eval's order).
    q1 = sorted(sorted(q1, reverse=True), key=lambda row: -row[1])
    assert [d for d, _ in found] == [d for d, _ in q1]
    for (_, a), (_, b) in zip(found, q1, strict=True):
        assert math.isclose(a, b, rel_tol=1e-15)


def test_first_takes_the_lowest_position_present() -> None:
    # d1's passage 0 is dropped as an invalid score: its first passage present is passage 1.
    run = RUN.with_columns(score=pl.when(pl.col("item") == "d1#0").then(None).otherwise("score"))
    policy = rk.Policy(invalid_scores="drop")
    got = rk.to_documents(run, group_by="query", document="#", aggregate="first",
                          passage_index="position", policy=policy)  # fmt: skip
    assert ("q1", "d1", 0.7) in rows(got)
    assert ("q2", "d1", 0.2) not in rows(got)


def test_kmax_avg_of_fewer_passages_than_top_averages_them_all() -> None:
    got = rk.to_documents(RUN, group_by="query", document="#", aggregate="kmax_avg", top=10)
    assert {d: s for q, d, s in rows(got) if q == "q1"}["d1"] == pytest.approx(1.7 / 3)


def test_lazy_in_lazy_out_and_the_same_rows() -> None:
    lazy = rk.to_documents(RUN.lazy(), group_by="query", document="#", depth=2)
    assert isinstance(lazy, pl.LazyFrame)
    eager = rk.to_documents(RUN, group_by="query", document="#", depth=2)
    assert lazy.collect().equals(eager)  # type: ignore[union-attr]
    assert rows(eager) == [("q1", "d1", 0.9), ("q1", "d2", 0.8), ("q2", "d4", 0.3),
                           ("q2", "d1", 0.2)]  # fmt: skip


def test_a_pandas_run_gives_a_polars_frame() -> None:
    got = rk.to_documents(RUN.to_pandas(), group_by="query", document="#")
    assert isinstance(got, pl.DataFrame)
    assert got.height == 5


def test_a_mapping_table_eager_or_lazy_and_an_expression() -> None:
    mapping = pl.DataFrame(
        {"item": RUN["item"].unique().sort(), "document": ["A", "A", "A", "B", "C", "D"]}
    )
    assert mapping.filter(pl.col("item") == "d3")["document"].item() == "C"
    for table in (mapping, mapping.lazy()):
        got = rk.to_documents(RUN, group_by="query", document=table)
        assert [d for q, d, _ in rows(got) if q == "q1"] == ["A", "B", "C"]
    expression = pl.col("item").str.slice(0, 2).str.to_uppercase()
    got = rk.to_documents(RUN, group_by="query", document=expression)
    assert [d for q, d, _ in rows(got) if q == "q1"] == ["D1", "D2", "D3"]


def test_integer_passage_ids_with_a_mapping_of_another_integer_width() -> None:
    run = pl.DataFrame({"q": [1, 1, 1], "item": [10, 11, 12], "score": [0.1, 0.9, 0.5]})
    mapping = pl.DataFrame({"item": pl.Series([10, 11, 12], dtype=pl.UInt32),
                            "document": [7, 7, 8]})  # fmt: skip
    assert rows(rk.to_documents(run, group_by="q", document=mapping)) == [(1, 7, 0.9), (1, 8, 0.5)]


def test_several_group_keys() -> None:
    run = RUN.with_columns(pl.col("query").alias("user"), pl.lit(1).alias("day"))
    got = rk.to_documents(run.drop("query"), group_by=["user", "day"], document="#")
    assert isinstance(got, pl.DataFrame)
    assert got.columns == ["user", "day", "item", "score"]
    assert got.height == 5


def test_other_column_names() -> None:
    run = RUN.rename({"item": "passage", "score": "sim", "query": "qid"})
    got = rk.to_documents(run, group_by="qid", document="#", item="passage", score="sim")
    assert isinstance(got, pl.DataFrame)
    assert got.columns == ["qid", "passage", "sim"]


# --- the policy ----------------------------------------------------------------------------


def test_a_repeated_passage_is_counted_as_evaluate_counts_a_repeated_item() -> None:
    run = pl.DataFrame({"q": [1, 1, 1], "item": ["a#0", "a#0", "a#1"], "score": [1.0, 3.0, 2.0]})
    best = rk.to_documents(run, group_by="q", document="#", aggregate="sum")
    assert rows(best) == [(1, "a", 5.0)]  # the passage's best copy, 3.0, and 2.0
    every = rk.to_documents(run, group_by="q", document="#", aggregate="sum",
                            policy=rk.Policy(duplicates="keep"))  # fmt: skip
    assert rows(every) == [(1, "a", 6.0)]
    with pytest.raises(ValueError, match=r"run: \(group, 'item'\) pairs repeat .*duplicates="
                       r"'error'.*2 row\(s\), e.g. \{'q': 1, 'item': 'a#0'"):  # fmt: skip
        rk.to_documents(run, group_by="q", document="#", policy=rk.Policy(duplicates="error"))


@pytest.mark.parametrize("bad", [None, math.nan, math.inf])
def test_an_invalid_score_is_refused_dropped_or_ranked_last(bad: float | None) -> None:
    run = pl.DataFrame({"q": [1, 1, 1], "item": ["a#0", "a#1", "b#0"], "score": [bad, 0.5, 0.7]})
    said = r"run: column 'score' must hold finite numbers .* e.g. \{'q': 1, 'item': 'a#0'"
    with pytest.raises(ValueError, match=said):
        rk.to_documents(run, group_by="q", document="#")
    dropped = rk.to_documents(run, group_by="q", document="#", aggregate="mean",
                              policy=rk.Policy(invalid_scores="drop"))  # fmt: skip
    assert rows(dropped) == [(1, "b", 0.7), (1, "a", 0.5)]
    lowest = rk.to_documents(run, group_by="q", document="#", aggregate="mean",
                             policy=rk.Policy(invalid_scores="lowest"))  # fmt: skip
    assert rows(lowest) == [(1, "b", 0.7), (1, "a", -math.inf)]


def test_input_order_orders_tied_documents_by_their_first_passage() -> None:
    run = pl.DataFrame({"q": [1, 1, 1], "item": ["z#0", "a#0", "m"], "score": [1.0, 1.0, 1.0]})
    got = rk.to_documents(run, group_by="q", document="#", depth=2,
                          policy=rk.Policy(ties="input_order"))  # fmt: skip
    assert [d for _, d, _ in rows(got)] == ["z", "a"]
    # ... which evaluate reads as the input order of the collapsed run.
    truth = pl.DataFrame({"q": [1], "item": ["a"]})
    res = rk.evaluate(got, truth, k=1, group_by="q", metrics="hit_rate",
                      policy=rk.Policy(ties="input_order"))  # fmt: skip
    assert res.summary()["value"].item() == 0.0


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "expected"])
def test_a_depth_cut_through_a_tie_that_reads_relevance_keeps_the_tie(ties: str) -> None:
    run = pl.DataFrame({"q": [1] * 4, "item": ["a#0", "b#0", "c#0", "d#0"],
                        "score": [2.0, 1.0, 1.0, 0.5]})  # fmt: skip
    with pytest.warns(rk.DepthTieWarning, match=r"depth=2 cuts a tie .* kept whole \(3"):
        got = rk.to_documents(run, group_by="q", document="#", depth=2,
                              policy=rk.Policy(ties=ties))  # type: ignore[arg-type]  # fmt: skip
    assert [d for _, d, _ in rows(got)] == ["a", "b", "c"]


# --- refusals ------------------------------------------------------------------------------


def test_a_passage_the_mapping_lacks_is_refused_naming_the_column_and_the_row() -> None:
    mapping = pl.DataFrame({"item": ["d1#0", "d2#0"], "document": ["A", "B"]})
    said = (
        r"run: column 'item' holds a passage the document mapping lacks; 4 row\(s\), "
        r"e.g. \{'query': 'q1', 'item': 'd1#1', 'document': None, 'score': 0.7\}"
    )
    with pytest.raises(ValueError, match=said):
        rk.to_documents(RUN, group_by="query", document=mapping)


def test_a_passage_mapped_to_two_documents_is_refused() -> None:
    mapping = pl.DataFrame({"item": ["d1#0", "d1#0"], "document": ["A", "B"]})
    said = r"document mapping holds a passage mapped to two documents .*'item': 'd1#0'"
    with pytest.raises(ValueError, match=said):
        rk.to_documents(RUN, group_by="query", document=mapping)


def test_a_mapping_without_its_columns_is_refused() -> None:
    with pytest.raises(ValueError, match=r"the document mapping has no column 'document'"):
        rk.to_documents(RUN, group_by="query", document=pl.DataFrame({"item": ["d1#0"]}))


def test_first_without_passage_index_is_refused() -> None:
    with pytest.raises(ValueError, match=r"aggregate='first' needs passage_index=\.\.\."):
        rk.to_documents(RUN, group_by="query", document="#", aggregate="first")
    with pytest.raises(ValueError, match=r"run has no column 'slot' \(expected the passage's "
                       r"position in its document\)"):  # fmt: skip
        rk.to_documents(RUN, group_by="query", document="#", aggregate="first",
                        passage_index="slot")  # fmt: skip


def test_first_refuses_a_null_or_shared_position() -> None:
    shared = RUN.with_columns(position=pl.lit(0))
    said = (
        r"run: column 'position' must tell a document's passages apart .* e.g. \{'query': 'q1', "
        r"'item': 'd1#0', 'document': 'd1', 'score': 0.9, 'position': 0\}"
    )
    with pytest.raises(ValueError, match=said):
        rk.to_documents(shared, group_by="query", document="#", aggregate="first",
                        passage_index="position")  # fmt: skip
    null = RUN.with_columns(position=pl.when(pl.col("item") == "d3").then(None).otherwise(0))
    with pytest.raises(ValueError, match=r"column 'position' must not be null.*'item': 'd3'"):
        rk.to_documents(null, group_by="query", document="#", aggregate="first",
                        passage_index="position")  # fmt: skip


def test_a_delimiter_on_ids_that_are_not_text_is_refused() -> None:
    run = pl.DataFrame({"q": [1], "item": [17], "score": [1.0]})
    said = (
        r"run column 'item' holds Int64 ids, and a delimiter \('#'\) cuts text: give a mapping "
        r"table .* e.g. row \{'q': 1, 'item': 17\}"
    )
    with pytest.raises(TypeError, match=said):
        rk.to_documents(run, group_by="q", document="#")


def test_an_empty_document_id_is_refused() -> None:
    run = pl.DataFrame({"q": [1, 1], "item": ["a#0", "#3"], "score": [1.0, 0.5]})
    said = r"column 'item' gives an empty document id \(its passage id starts with '#'\).*'#3'"
    with pytest.raises(ValueError, match=said):
        rk.to_documents(run, group_by="q", document="#")
    with pytest.raises(ValueError, match=r"document='' is an empty delimiter"):
        rk.to_documents(run, group_by="q", document="")


@pytest.mark.parametrize(
    ("options", "error", "said"),
    [
        ({"aggregate": "kmax_avg"}, ValueError, "needs top=..."),
        ({"aggregate": "kmax_avg", "top": 0}, ValueError, "top must be an int >= 1; got 0"),
        ({"top": 2}, ValueError, "top=2 is read by aggregate='kmax_avg' only"),
        ({"passage_index": "position"}, ValueError, "read by aggregate='first' only"),
        ({"aggregate": "median"}, ValueError, "aggregate must be one of 'max', 'first'"),
        ({"depth": 0}, ValueError, "depth must be an int >= 1; got 0"),
        ({"depth": True}, TypeError, "depth must be an int >= 1; got True"),
        ({"document": 3}, TypeError, "document must be a delimiter"),
    ],
)
def test_arguments_are_refused_in_words(options: dict, error: type, said: str) -> None:
    arguments = {"group_by": "query", "document": "#", **options}
    with pytest.raises(error, match=re.escape(said)):
        rk.to_documents(RUN, **arguments)


def test_a_null_group_key_is_refused() -> None:
    run = RUN.with_columns(query=pl.when(pl.col("item") == "d3").then(None).otherwise("query"))
    with pytest.raises(ValueError, match=r"column 'query' \(a group key\) must not be null"):
        rk.to_documents(run, group_by="query", document="#")


def test_the_rule_describes_itself_for_the_record() -> None:
    rule = rk.DocumentRule("#", aggregate="kmax_avg", top=3, depth=100)
    assert rule.describe() == (
        "document = the passage id up to the first '#'; score = kmax_avg: the mean of its 3 "
        "highest passage scores (of all when it has fewer); the best 100 documents of each group"
    )
    assert rule.to_dict() == {"document": "#", "aggregate": "kmax_avg", "top": 3,
                              "passage_index": None, "depth": 100}  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    run=passage_runs(),
    depth=st.sampled_from([None, 1, 2, 5]),
    ties=st.sampled_from(["trec_eval", "item_asc"]),
    invalid=st.sampled_from(["drop", "error"]),
)
def test_the_kernels_maxp_equals_the_polars_collapse(
    run: pl.DataFrame, depth: int | None, ties: str, invalid: str
) -> None:
    """MaxP by a delimiter on the compiled kernel (each id read up to the delimiter in place)
    gives the rows, order and scores of the pure-Polars collapse, on ties, repeated
    passages and ids without the delimiter."""
    from polars_rankk.core.kernel import loader
    from polars_rankk.passages import collapse

    if not loader.status().loaded:
        pytest.skip("the compiled kernel is not loaded")
    policy = rk.Policy(ties=ties, invalid_scores=invalid)  # type: ignore[arg-type]
    options = {"group_by": "query", "document": "#", "depth": depth, "policy": policy}
    rule = rk.DocumentRule("#", depth=depth)
    rows = collapse.passage_rows(run.lazy(), rule, keys=["query"], item="item", score="score",
                                 policy=policy)  # fmt: skip
    named = {"keys": ["query"], "item": "item", "score": "score"}
    assert collapse.kernel_documents(run.lazy(), rule, **named, policy=policy) is not None  # type: ignore[arg-type]
    on_kernel = rk.to_documents(run, **options)
    pure = collapse.ranked_documents(rows, rule, keys=["query"], item="item", score="score",
                                     policy=policy).collect()  # fmt: skip
    assert on_kernel.equals(pure)


@settings(max_examples=40, deadline=None)
@given(
    run=passage_runs(),
    seed=st.integers(0, 2**16),
    depth=st.sampled_from([None, 1, 3]),
    ties=st.sampled_from(["trec_eval", "item_asc"]),
)
def test_the_kernels_maxp_of_rows_in_random_order_equals_the_polars_collapse(
    run: pl.DataFrame, seed: int, depth: int | None, ties: str
) -> None:
    """Rows in random order (a group's rows cut by another's) are grouped before the kernel
    reads them; the documents, their order and the groups' order are the reference's."""
    shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
    policy = rk.Policy(ties=ties)  # type: ignore[arg-type]
    options = {"group_by": "query", "document": "#", "depth": depth, "policy": policy}
    assert rk.to_documents(shuffled, **options).equals(_polars_collapse(shuffled, depth, policy))


def _polars_collapse(run: pl.DataFrame, depth: int | None, policy: rk.Policy) -> pl.DataFrame:
    from polars_rankk.passages import collapse

    rule = rk.DocumentRule("#", depth=depth)
    named = {"keys": ["query"], "item": "item", "score": "score"}
    rows = collapse.passage_rows(run.lazy(), rule, **named, policy=policy)  # type: ignore[arg-type]
    return collapse.ranked_documents(rows, rule, **named, policy=policy).collect()  # type: ignore[arg-type]


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("name", ["d", "msmarco_v2.1_doc_with_a_long_name_"])
def test_a_long_run_grouped_or_in_random_order_equals_the_polars_collapse(
    shuffled: bool, name: str
) -> None:
    """Thousands of rows: grouped rows are read run by run, rows in random order grouped
    first (a run per row, past the first few thousand rows); both give the reference, on
    document ids held inline and on ids longer than the kernel keeps beside their hash."""
    queries, per_query = 40, 250
    row = pl.int_range(queries * per_query)
    run = pl.select(
        query=(row // per_query).cast(pl.Int32),
        item=pl.format(name + "{}#{}", (row * 7919) % 997 % (per_query // 3), row % 5),
        score=((row * 104729) % 89).cast(pl.Float64) / 8,
    )
    if shuffled:
        run = run.sample(fraction=1.0, shuffle=True, seed=7)
    for ties in ("trec_eval", "item_asc"):
        policy = rk.Policy(ties=ties)  # type: ignore[arg-type]
        found = rk.to_documents(run, group_by="query", document="#", policy=policy)
        assert found.equals(_polars_collapse(run, None, policy))


def test_rows_in_random_order_under_two_group_keys_equal_the_polars_collapse() -> None:
    """Rows in random order under two key columns take the kernel's general grouping (one
    key column takes the compact records); both give the reference."""
    from polars_rankk.passages import collapse

    row = pl.int_range(6000)
    run = pl.select(
        query=(row // 300).cast(pl.Int64),
        day=(row // 150 % 2).cast(pl.Int64),
        item=pl.format("d{}#{}", (row * 7919) % 997 % 60, row % 5),
        score=((row * 104729) % 89).cast(pl.Float64) / 8,
    ).sample(fraction=1.0, shuffle=True, seed=11)
    rule, policy = rk.DocumentRule("#"), rk.Policy()
    named = {"keys": ["query", "day"], "item": "item", "score": "score", "policy": policy}
    rows = collapse.passage_rows(run.lazy(), rule, **named)  # type: ignore[arg-type]
    expected = collapse.ranked_documents(rows, rule, **named).collect()  # type: ignore[arg-type]
    assert rk.to_documents(run, group_by=["query", "day"], document="#").equals(expected)


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize(
    ("column", "bad", "said"),
    [
        ("query", None, r"column 'query' \(a group key\) must not be null"),
        ("item", None, r"column 'item' has a null passage id"),
        ("item", "#9", r"column 'item' gives an empty document id \(its passage id starts with"),
        ("score", None, r"column 'score' must hold finite numbers"),
        ("score", math.nan, r"column 'score' must hold finite numbers"),
        ("score", -math.inf, r"column 'score' must hold finite numbers"),
    ],
)
def test_bad_values_are_refused_by_the_kernels_own_scan_naming_the_first_row(
    column: str, bad: object, said: str, shuffled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In memory the kernel checks the values in its scan (the separate Polars scan never
    runs): the error names the table, the column, the expectation, how many rows fail and
    the first of them, as the Polars scan words it."""
    from polars_rankk.core.kernel import loader
    from polars_rankk.passages import collapse

    if not loader.status().loaded:
        pytest.skip("the compiled kernel is not loaded")
    monkeypatch.setattr(collapse, "refuse_first", _not_called)
    run = pl.DataFrame(
        {
            "query": [1, 1, 2, 2, 2, 3],
            "item": ["a#0", "b#0", "a#1", "c#0", "d#0", "e#0"],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
            "n": [0, 1, 2, 3, 4, 5],
        }
    )
    spoilt = pl.when(pl.col("n").is_in([2, 4])).then(pl.lit(bad)).otherwise(pl.col(column))
    run = run.with_columns(spoilt.cast(run.schema[column]).alias(column))
    first = run.row(2, named=True)
    if shuffled:
        run = run.sample(fraction=1.0, shuffle=True, seed=3)
        first = run.filter(pl.col("n").is_in([2, 4])).row(0, named=True)
    with pytest.raises(ValueError, match=rf"^run: {said}.*; 2 row\(s\), e\.g\. \{{") as refused:
        rk.to_documents(run.drop("n"), group_by="query", document="#")
    shown = str(refused.value).split("e.g. ", 1)[1]
    assert f"'item': {first['item']!r}" in shown
    assert f"'query': {first['query']!r}" in shown


def test_negative_zero_ties_zero_on_the_kernel_as_in_the_polars_collapse() -> None:
    run = pl.DataFrame(
        {"query": [1] * 4, "item": ["b#0", "a#0", "c#0", "b#1"], "score": [-0.0, 0.0, -0.0, 0.0]}
    )
    for ties in ("trec_eval", "item_asc"):
        policy = rk.Policy(ties=ties)  # type: ignore[arg-type]
        found = rk.to_documents(run, group_by="query", document="#", policy=policy)
        assert found.equals(_polars_collapse(run, None, policy))
        assert str(found["score"].to_list()) == "[0.0, 0.0, 0.0]"


def _not_called(*_: object) -> None:
    raise AssertionError("the Polars scan of the values ran")
