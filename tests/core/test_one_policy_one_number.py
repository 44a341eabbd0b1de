"""One Policy, one number, every path: each path equals `evaluate` or refuses in words.

For generated candidates and truth (ties, repeated items, invalid scores, short lists, empty
truth, unjudged rows, graded and negative grades) and a drawn `Policy`, the same metrics are
computed through every path a user can take, and each is held equal to the eager
``rk.evaluate(...).per_group`` (or its summary): the lazy pipeline on the streaming engine,
`rk.label` + `rk.metrics_expression` per group, `evaluate_in_partitions`, `k_curve` at every K,
`compare`'s per-group differences and the Markdown table. `make test` runs this file on the
kernel and again with ``POLARS_RANKK_NATIVE=0`` (pure Polars); the kernel-vs-pure equality of
the sums is `tests/core/test_native.py`'s, the curves' at every K `test_one_declaration.py`'s.
New paths join here.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.policy import _CHOICES
from tests.support.examples import examples

METRICS = [
    *("precision", "recall", "ndcg", "average_precision", "mrr", "hit_rate", "f1", "rbp", "err"),
    "sdcg",
]
KS = [1, 3]
SCORES = (0.0, 0.5, 0.5, 1.0, 2.0, None, math.nan)


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates, truth = [], []
    for user in range(draw(st.integers(1, 5))):
        for _ in range(draw(st.sampled_from([0, 1, 2, 4, 6]))):
            candidates.append((user, draw(st.integers(0, 6)), draw(st.sampled_from(SCORES))))
        for item in draw(st.sets(st.integers(0, 8), max_size=4)):
            # Fractional grades too: trec_eval truncates them (fractional_grades="truncate").
            truth.append((user, item, draw(st.sampled_from([-1, 0, 1, 2, 3, 0.5, 1.7, -1.5]))))
    return (
        pl.DataFrame(
            candidates,
            schema={"user": pl.Int64, "item": pl.Int64, "score": pl.Float64},
            orient="row",
        ),
        pl.DataFrame(
            truth,
            schema={"user": pl.Int64, "item": pl.Int64, "relevance": pl.Float64},
            orient="row",
        ),
    )


#: What the property tests draw for each Policy field: every value of a choice field (read
#: from `Policy`'s own list, so a new value is drawn at once) and a few of each number.
DRAWN: dict[str, st.SearchStrategy[object]] = {
    **{name: st.sampled_from(values) for name, values in _CHOICES.items()},
    "relevance_threshold": st.sampled_from([1, 2, 0.5]),
    "rbp_persistence": st.sampled_from([0.8, 0.5]),
    "err_max_grade": st.sampled_from([4, 3]),
    "f_beta": st.sampled_from([1, 2]),
    "gains": st.sampled_from([None, {0: 1, 1: 4}, {-1: 0.5, 2: 3}]),
    "cwl_target": st.sampled_from([1, 2.5]),
    "cwl_max_grade": st.sampled_from([1, 3]),
    "diversity_alpha": st.sampled_from([0.5, 0.9]),
    "nrbp_beta": st.sampled_from([0.5, 0.8]),
    "q_beta": st.sampled_from([1, 0, 2.5]),
    "compat_persistence": st.sampled_from([0.95, 0.8]),
}


def policies() -> st.SearchStrategy[rk.Policy]:
    """A `Policy` with every field drawn (`DRAWN`)."""
    return st.builds(rk.Policy, **DRAWN)  # type: ignore[arg-type]


def test_the_property_tests_draw_every_policy_field() -> None:
    """A field `Policy` gains is drawn here, or this fails: every path is held equal under
    every field."""
    fields = [field.name for field in dataclasses.fields(rk.Policy)]
    assert sorted(DRAWN) == sorted(fields), set(fields) ^ set(DRAWN)


def _evaluate(candidates: object, truth: object, policy: rk.Policy) -> rk.Evaluation:
    return rk.evaluate(candidates, truth, k=KS, group_by="user", metrics=METRICS, policy=policy)  # type: ignore[arg-type]


def _values(frame: pl.DataFrame) -> dict[tuple[object, ...], float | None]:
    return {
        (row["user"], row["metric"], row["k"]): row["value"] for row in frame.iter_rows(named=True)
    }


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _equal(
    got: dict[tuple[object, ...], float | None],
    want: dict[tuple[object, ...], float | None],
    path: str,
) -> None:
    assert got.keys() == want.keys(), (path, sorted(set(got) ^ set(want), key=str)[:5])
    for key, value in want.items():
        assert _same(got[key], value), (path, key, got[key], value)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=tables(), policy=policies())
def test_every_path_gives_evaluates_numbers_or_refuses_in_words(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy, tmp_path: Path
) -> None:
    candidates, truth = data
    try:
        reference = _evaluate(candidates, truth, policy)
        per_group = reference.per_group
    except ValueError:
        # A refusal is in words, and every path refuses alike.
        with pytest.raises(ValueError, match=r"\w+"):
            _evaluate(candidates.lazy(), truth.lazy(), policy).per_group.collect()  # type: ignore[union-attr]
        return
    assert isinstance(per_group, pl.DataFrame)
    want = _values(per_group)

    # The lazy pipeline, collected on the streaming engine.
    lazy = _evaluate(candidates.lazy(), truth.lazy(), policy).per_group
    assert isinstance(lazy, pl.LazyFrame)
    _equal(_values(lazy.collect(engine="streaming")), want, "lazy + streaming")

    # rk.label + one struct of metrics per group (the groups with candidates).
    labelled = rk.label(candidates, truth, group_by="user", policy=policy)
    assert isinstance(labelled, pl.DataFrame)
    if labelled.height:
        expressions = {}
        for k in KS:
            metrics = rk.metrics_expression(
                METRICS, "relevance", by="score", k=k, item="item",
                unretrieved="unretrieved", policy=policy,
            )  # fmt: skip
            expressions[f"at_{k}"] = metrics
        got_rows = labelled.group_by("user").agg(
            **expressions  # type: ignore[arg-type]
        )
        with_candidates = set(labelled["user"].to_list())
        got = {}
        for row in got_rows.iter_rows(named=True):
            for k in KS:
                for metric in METRICS:
                    value = (row[f"at_{k}"] or {}).get(f"{metric}@{k}")
                    got[(row["user"], metric, k)] = value
        expected = {key: v for key, v in want.items() if key[0] in with_candidates}
        # evaluate leaves out groups its policies drop; the expression gives them null.
        got = {key: v for key, v in got.items() if key in expected or v is not None}
        _equal(got, expected, "label + metrics_expression")

        # The labelled rows alone (no truth, no unretrieved): the expressions equal evaluate
        # of those rows as pre-labelled candidates (R_g from the rows), empty_truth="nan"
        # included; a group with nothing relevant among them is never left out (0 under
        # "exclude", as "zero": the rows cannot say it had nothing to find).
        # evaluate takes no null label (an expression reads it as unjudged): graded 0 here.
        rows = labelled.select("user", "item", "score", pl.col("relevance").fill_null(0))
        kept = policy.replace(empty_truth="zero") if policy.empty_truth == "exclude" else policy
        try:
            alone = _values(
                rk.evaluate(rows, k=KS, group_by="user", metrics=METRICS, policy=kept).per_group  # type: ignore[arg-type]
            )
        except ValueError:
            alone = None  # refused in words (e.g. every row of a group unjudged)
        if alone is not None:
            got_rows = rows.group_by("user").agg(
                **{f"at_{k}": rk.metrics_expression(METRICS, "relevance", by="score", k=k,
                                                    item="item", policy=policy)
                   for k in KS}  # type: ignore[arg-type]
            )  # fmt: skip
            got = {
                (row["user"], metric, k): (row[f"at_{k}"] or {}).get(f"{metric}@{k}")
                for row in got_rows.iter_rows(named=True)
                for k in KS
                for metric in METRICS
            }
            got = {key: v for key, v in got.items() if key in alone or v is not None}
            _equal(got, alone, "labelled rows + metrics_expression")

    # evaluate_in_partitions: the same summary.
    buckets = rk.evaluate_in_partitions(
        candidates, truth, output=tmp_path / "out", partitions=2, k=KS, metrics=METRICS,
        group_by="user", policy=policy, progress=False, resume=False,
    )  # fmt: skip
    summary = reference.summary().sort("metric", "k")
    bucketed = buckets.summary().sort("metric", "k")
    assert bucketed["n_groups"].to_list() == summary["n_groups"].to_list()
    for a, b in zip(bucketed["value"].to_list(), summary["value"].to_list(), strict=True):
        assert _same(a, b), ("buckets", a, b)

    # compare's per-group differences: a system against itself differs by 0 on every group.
    if per_group.height:
        table = rk.compare({"a": reference, "b": reference}, baseline="a", n_resamples=20)
        finite = table.filter(pl.col("diff").is_not_nan())
        assert (finite["diff"].abs() <= 1e-12).all()

    # The Markdown table prints the summary's means.
    markdown = reference.to_markdown()
    for row in summary.filter(pl.col("value").is_not_nan()).iter_rows(named=True):
        assert f"{row['value']:.4f}" in markdown, (row, markdown)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), policy=policies())
def test_dask_gives_evaluates_numbers(
    data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask

    candidates, truth = data
    try:
        per_group = _evaluate(candidates, truth, policy).per_group
    except ValueError:
        return  # refused in words (the engines' own tests hold them to the same refusal)
    assert isinstance(per_group, pl.DataFrame)
    if candidates.is_empty() or truth.is_empty():
        return  # Dask cannot infer a frame's partitions from an empty table
    # A shuffle keeps no row order: ties="input_order" reads it from a position column.
    in_order = policy.ties == "input_order"
    if in_order:
        candidates = candidates.with_row_index("position")
    with dask.config.set(scheduler="threads", num_workers=2):
        result = evaluate_dask(
            dd.from_pandas(candidates.to_pandas(), npartitions=2, sort=False),
            dd.from_pandas(truth.to_pandas(), npartitions=2, sort=False),
            k=KS, metrics=METRICS, group_by="user", policy=policy,
            order_by="position" if in_order else None,
        )  # fmt: skip
        got = pl.from_pandas(result.compute())
    _equal(_values(got), _values(per_group), "dask")
