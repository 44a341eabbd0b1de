"""One collapse, one number, every path: a passage run against document truth, collapsed by a
drawn `DocumentRule` under a drawn `Policy`, gives `evaluate(to_documents(...))`'s per-group
values on the lazy streaming path, out of core, on Dask, on Spark and in the command (which
records the rule, as the engines' results and the report do); bad input is refused in words,
naming the column and a row, on each."""

from __future__ import annotations

import json
import math
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.cli import main
from polars_rankk.core.names.listing import metric_rank
from tests.passages.runs import passage_runs

METRICS = ["precision", "recall", "ndcg", "average_precision", "mrr"]
KS = [1, 3]


@st.composite
def cases(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, rk.DocumentRule, rk.Policy]:
    run = draw(passage_runs(max_rows=8))
    # The passage's number in its id, as FirstP's position; NaN scores where handled.
    position = pl.col("item").str.extract(r"#(\d+)").cast(pl.Int64).fill_null(0)
    run = run.with_columns(position.alias("position"))
    policy = rk.Policy(
        ties=draw(st.sampled_from(["trec_eval", "item_asc", "pessimistic", "expected"])),
        duplicates=draw(st.sampled_from(["first", "keep"])),
        invalid_scores=draw(st.sampled_from(["error", "drop", "lowest"])),
        empty_truth=draw(st.sampled_from(["exclude", "zero"])),
    )
    if policy.invalid_scores != "error" and draw(st.booleans()):
        run = run.with_columns(
            score=pl.when(pl.col("score") == 0.0).then(math.nan).otherwise("score")
        )
    aggregate = draw(st.sampled_from(["max", "first", "mean", "sum", "kmax_avg"]))
    if aggregate == "first":
        # Each passage once, at its own position: FirstP refuses a shared one (tested below).
        run = run.unique(["query", "item"], keep="first", maintain_order=True)
        run = run.unique(["query", pl.col("item").str.splitn("#", 2).struct.field("field_0"),
                          "position"], keep="first", maintain_order=True)  # fmt: skip
    rule = rk.DocumentRule(
        "#",
        aggregate=aggregate,  # type: ignore[arg-type]
        top=draw(st.integers(1, 2)) if aggregate == "kmax_avg" else None,
        passage_index="position" if aggregate == "first" else None,
        depth=draw(st.sampled_from([None, 2])),
    )
    documents = draw(st.sets(st.sampled_from(["a", "ab", "a!", "B", "é", "10", "9"]), max_size=4))
    grades = [draw(st.sampled_from([0, 1, 2])) for _ in documents]
    truth = pl.DataFrame(
        {"query": ["q0"] * len(documents), "item": sorted(documents), "relevance": grades},
        schema={"query": pl.String, "item": pl.String, "relevance": pl.Int64},
    )
    return run, truth, rule, policy


def options(policy: rk.Policy) -> dict[str, Any]:
    return {"k": KS, "metrics": METRICS, "group_by": "query", "policy": policy}


def values(frame: pl.DataFrame) -> dict[tuple[Any, ...], float]:
    return {(q, m, k): v for q, m, k, v in frame.select("query", "metric", "k", "value").rows()}


def same(got: dict, want: dict, path: str) -> None:
    assert got.keys() == want.keys(), (path, set(got) ^ set(want))
    for key, value in want.items():
        other = got[key]
        assert (math.isnan(value) and math.isnan(other)) or other == value, (path, key, other)


def reference(run: pl.DataFrame, truth: pl.DataFrame, rule: rk.DocumentRule,
              policy: rk.Policy) -> pl.DataFrame | None:  # fmt: skip
    """evaluate(to_documents(...)): its per-group rows, or None when refused."""
    try:
        documents = rk.to_documents(run, group_by="query", document=rule.document,
                                    aggregate=rule.aggregate, top=rule.top,
                                    passage_index=rule.passage_index, depth=rule.depth,
                                    policy=policy)  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a tie kept at the depth cut, groups dropped
            result = rk.evaluate(documents, truth, **options(policy))
    except ValueError:
        return None
    per_group = result.per_group
    assert isinstance(per_group, pl.DataFrame)
    return per_group


def cli_per_group(run: pl.DataFrame, truth: pl.DataFrame, rule: rk.DocumentRule,
                  policy: rk.Policy, folder: Path) -> tuple[int, str, str]:  # fmt: skip
    run.write_parquet(folder / "run.parquet")
    truth.write_parquet(folder / "truth.parquet")
    args = ["evaluate", folder / "run.parquet", folder / "truth.parquet", "--group-by", "query",
            "-k", "1,3", "--metrics", ",".join(METRICS), "--per-group", "-f", "json",
            "--documents", "#", "--aggregate", rule.aggregate]  # fmt: skip
    for flag, value in (("--top", rule.top), ("--passage-index", rule.passage_index),
                        ("--depth", rule.depth)):  # fmt: skip
        if value is not None:
            args += [flag, value]
    for field in ("ties", "duplicates", "invalid_scores", "empty_truth"):
        args += [f"--{field.replace('_', '-')}", getattr(policy, field)]
    out = folder / "out.json"
    try:
        main([*(str(a) for a in args), "-o", str(out)])
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, out.read_text() if out.exists() else "", ""


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=cases())
def test_every_path_collapses_as_to_documents(
    case: tuple[pl.DataFrame, pl.DataFrame, rk.DocumentRule, rk.Policy],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run, truth, rule, policy = case
    want = reference(run, truth, rule, policy)
    if want is None:
        return  # refused in words (each refusal is held below)
    expected = values(want)

    lazy = rk.evaluate(
        rk.to_documents(
            run.lazy(),
            group_by="query",
            document="#",
            aggregate=rule.aggregate,
            top=rule.top,
            passage_index=rule.passage_index,
            depth=rule.depth,
            policy=policy,
        ),
        truth.lazy(),
        **options(policy),
    ).per_group
    assert isinstance(lazy, pl.LazyFrame)
    same(values(lazy.collect(engine="streaming")), expected, "lazy + streaming")

    out = rk.evaluate_in_partitions(run, truth, output=tempfile.mkdtemp(), partitions=2,
                                    documents=rule, progress=False, resume=False,
                                    **options(policy))  # fmt: skip
    same(values(out.per_group.collect()), expected, "out of core")
    assert out.documents == rule.describe()

    if run.is_empty() or truth.is_empty():
        return  # Dask infers no partitions from an empty table; the command refuses an empty file
    if policy.ties != "input_order":
        dd = pytest.importorskip("dask.dataframe")
        import dask

        from polars_rankk.dask import evaluate_dask

        with dask.config.set(scheduler="synchronous"):
            result = evaluate_dask(
                dd.from_pandas(run.to_pandas(), npartitions=2, sort=False),
                dd.from_pandas(truth.to_pandas(), npartitions=1, sort=False),
                documents=rule, with_dropped=True, **options(policy),
            )  # fmt: skip
            got = pl.from_pandas(result.per_group.compute())
        same(values(got), expected, "dask")
        assert result.documents == rule.describe()

    with tempfile.TemporaryDirectory() as folder:
        code, text, _ = cli_per_group(run, truth, rule, policy, Path(folder))
        capsys.readouterr()
        assert code == 0
        document = json.loads(text)
        rows = pl.DataFrame(document["rows"], schema=want.schema, orient="row")
        same(values(rows), expected, "rankk evaluate --documents")
        assert document["documents"] == rule.to_dict()


# --- Spark ------------------------------------------------------------------------------------

SPARK_RULES = {
    "max-depth": (rk.DocumentRule("#", depth=2), rk.Policy()),
    "kmax-keep": (
        rk.DocumentRule("#", aggregate="kmax_avg", top=2),
        rk.Policy(duplicates="keep", ties="item_asc"),
    ),
    "first-expected": (
        rk.DocumentRule("#", aggregate="first", passage_index="position"),
        rk.Policy(ties="expected"),
    ),
}
SPARK_RUN = pl.DataFrame(
    {
        "query": ["q0"] * 6 + ["q1"] * 3,
        "item": ["a#0", "b#0", "a#1", "c", "b#1", "a#2", "a#0", "d#3", "d#1"],
        "score": [0.5, 0.5, 0.9, 0.1, 0.2, 0.5, 1.0, 0.3, 0.3],
        "position": [0, 0, 1, 0, 1, 2, 0, 3, 1],
    }
)
SPARK_TRUTH = pl.DataFrame({"query": ["q0", "q0", "q1"], "item": ["a", "c", "d"],
                            "relevance": [1, 2, 1]})  # fmt: skip


@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.parametrize("case", list(SPARK_RULES))
def test_spark_collapses_as_to_documents(case: str, request: pytest.FixtureRequest) -> None:
    pytest.importorskip("pyspark")
    from polars_rankk.engines.spark import evaluate_spark
    from tests.engines import test_spark

    spark = request.getfixturevalue("spark_session")
    rule, policy = SPARK_RULES[case]
    want = reference(SPARK_RUN, SPARK_TRUTH, rule, policy)
    assert want is not None
    result = evaluate_spark(test_spark.to_spark(spark, SPARK_RUN),
                            test_spark.to_spark(spark, SPARK_TRUTH, 2), documents=rule,
                            with_dropped=True, **options(policy))  # fmt: skip
    got = test_spark.collect(result.per_group).sort("query", metric_rank(), "k")
    assert got.equals(want)
    assert result.documents == rule.describe()


@pytest.fixture(scope="module")
def spark_session() -> Iterator[Any]:
    """The Spark session of tests/engines/test_spark.py, for this module."""
    pytest.importorskip("pyspark")
    from tests.engines import test_spark

    yield from test_spark.spark.__wrapped__()  # type: ignore[attr-defined]


# --- bad input, refused on every path ----------------------------------------------------------

RUN = pl.DataFrame({"query": ["q", "q"], "item": ["a#0", "b#1"], "score": [0.9, 0.1]})
TRUTH = pl.DataFrame({"query": ["q"], "item": ["a"]})
BAD = {
    "a missing mapping": (
        RUN,
        rk.DocumentRule(pl.DataFrame({"item": ["a#0"], "document": ["a"]})),
        r"column 'item' holds a passage the document mapping lacks; 1 row\(s\), "
        r"e.g. \{'query': 'q', 'item': 'b#1'",
    ),
    "a delimiter on integer ids": (
        RUN.with_columns(item=pl.Series([1, 2])),
        rk.DocumentRule("#"),
        r"column 'item' holds Int64 ids, and a delimiter \('#'\) cuts text.*'item': 1",
    ),
    "first without its column": (
        RUN,
        rk.DocumentRule("#", aggregate="first", passage_index="position"),
        r"has no column 'position' \(expected the passage's position in its document\)",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_refused_in_words_on_every_path(case: str, tmp_path: Path) -> None:
    run, rule, said = BAD[case]
    arguments = {"group_by": "query", "document": rule.document, "aggregate": rule.aggregate,
                 "passage_index": rule.passage_index}  # fmt: skip
    with pytest.raises((ValueError, TypeError), match=said):
        rk.to_documents(run, **arguments)  # type: ignore[arg-type]
    with pytest.raises((ValueError, TypeError), match=said):
        rk.evaluate_in_partitions(run, TRUTH, output=tmp_path / "out", group_by="query", k=1,
                                  documents=rule, progress=False)  # fmt: skip
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask

    # Dask's driver checks the schemas alone: the dtype refusal names the column, not a row.
    with pytest.raises((ValueError, TypeError), match=said.split(".*")[0]):
        evaluate_dask(dd.from_pandas(run.to_pandas(), npartitions=1),
                      dd.from_pandas(TRUTH.to_pandas(), npartitions=1), group_by="query",
                      k=1, documents=rule).compute()  # fmt: skip


def test_first_without_passage_index_is_refused_before_any_path_runs() -> None:
    with pytest.raises(ValueError, match=r"aggregate='first' needs passage_index=\.\.\., the "
                       r"column giving each passage's position"):  # fmt: skip
        rk.DocumentRule("#", aggregate="first")


def test_the_report_of_passages_is_the_report_of_their_documents_with_the_rule() -> None:
    pytest.importorskip("altair")
    import html

    from polars_rankk.reports.document import render_report

    rule = rk.DocumentRule("#", depth=2)
    options = {"group_by": "query", "k": [1, 2], "n_resamples": 20, "progress": False}
    passages = render_report({"A": SPARK_RUN}, SPARK_TRUTH, documents=rule, **options)  # type: ignore[arg-type]
    documents = rk.to_documents(SPARK_RUN, group_by="query", document="#", depth=2)
    plain = render_report({"A": documents}, SPARK_TRUTH, **options)  # type: ignore[arg-type, dict-item]
    row = (
        f'<tr><td class="text">documents</td><td class="text">{html.escape(rule.describe())}'
        f'</td><td class="text">how the candidates&#x27; passages were collapsed to documents '
        f"before ranking</td></tr>"
    )
    assert row in passages
    assert passages.replace(row, "") == plain


def test_a_run_left_empty_by_its_invalid_scores_is_evaluated_without_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One passage of NaN score, dropped: the collapsed run is empty, and the command says
    what it did (no raw error from probing an empty table for matching ids)."""
    run = pl.DataFrame({"query": ["q0"], "item": ["a#0"], "score": [float("nan")]})
    truth = pl.DataFrame({"query": ["q0"], "item": ["a"], "relevance": [1]})
    rule = rk.DocumentRule(document="#", aggregate="max")
    code, _, _ = cli_per_group(run, truth, rule, rk.Policy(invalid_scores="drop"), tmp_path)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "rankk: error" not in err
    assert "collapsed to 0 document rows" in err
