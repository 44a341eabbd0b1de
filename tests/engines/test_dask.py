"""Dask back end: exactly the single-machine numbers, on Dask's threaded scheduler.

Every case of tests/distributed_cases.py is evaluated with `evaluate_dask` — input spread
over several partitions, shuffled by group into 1, 3 or more partitions than groups — and
compared with `polars_rankk.evaluate` for exact equality: per-group rows and the full summary.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.evaluation.aggregate import order_metrics
from polars_rankk.engines import reduction
from tests.support.distributed_cases import (
    CASES,
    DIALECT_CASES,
    KS,
    Case,
    distributed_kwargs,
    quantile_reference,
    single_machine,
    sort_per_group,
    tables,
)
from tests.support.toy_metrics import as_dict, assert_close, brute_force
from tests.support.toy_metrics import tables as registered_tables

dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 'dask[dataframe]')")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.xdist_group("dask")

from polars_rankk.dask import DaskEvaluation, evaluate_dask, summarize_dask  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def threaded() -> Iterator[None]:
    with dask.config.set(scheduler="threads", num_workers=2):
        yield


def to_dask(frame: pl.DataFrame, partitions: int = 3) -> Any:
    return dd.from_pandas(frame.to_pandas(), npartitions=partitions, sort=False)


def check_case(case: Case) -> None:
    candidates, truth = tables(case)
    expected = single_machine(case, candidates, truth)
    result = evaluate_dask(
        to_dask(candidates),
        None if truth is None else to_dask(truth, 2),
        npartitions=case.partitions,
        with_dropped=True,
        **distributed_kwargs(case),
    )
    assert isinstance(result, DaskEvaluation)
    per_group = pl.from_pandas(result.per_group.compute())
    assert per_group.schema == expected.per_group.schema
    assert sort_per_group(per_group, case.keys).equals(
        sort_per_group(expected.per_group, case.keys)
    )
    assert result.summary().equals(order_metrics(expected.summary()))


@pytest.mark.parametrize("case", CASES + DIALECT_CASES, ids=lambda case: case.name)
def test_equal_to_single_machine(case: Case) -> None:
    check_case(case)


def test_plain_per_group_and_quantiles() -> None:
    case = CASES[1]
    candidates, truth = tables(case)
    assert truth is not None
    expected = single_machine(case, candidates, truth)
    per_group = evaluate_dask(to_dask(candidates), to_dask(truth), **distributed_kwargs(case))
    quantiles = [0.0, 0.25, 0.5, 0.9, 1.0]
    reference = order_metrics(
        expected.summary()
        .select(*reduction.MACRO_COLUMNS)
        .join(
            quantile_reference(expected.per_group, quantiles), on=["metric", "k"], nulls_equal=True
        )
    )
    summary = summarize_dask(per_group, quantiles=quantiles)
    assert summary.select(pl.exclude(reduction.DROPPED_COLUMNS)).equals(reference)
    # Every column of Evaluation.summary(); the drop counts, which per-group
    # rows cannot tell, are null.
    assert summary.columns == [*expected.summary().columns, *(f"quantile_{q!r}" for q in quantiles)]
    nulls = summary.select(reduction.DROPPED_COLUMNS).null_count().row(0)
    assert nulls == (summary.height,) * len(reduction.DROPPED_COLUMNS)
    # The output is an ordinary frame: a boolean filter aligns with it.
    ndcg = pl.from_pandas(per_group[per_group["metric"] == "ndcg"].compute())
    want = expected.per_group.filter(pl.col("metric") == "ndcg")
    assert sort_per_group(ndcg, case.keys).equals(sort_per_group(want, case.keys))


def test_errors() -> None:
    candidates, truth = tables(CASES[0])
    assert truth is not None
    cand, judged = to_dask(candidates), to_dask(truth)
    with pytest.raises(ValueError, match="candidates has no column 'rating'"):
        evaluate_dask(cand, judged, group_by="user", score="rating")
    with pytest.raises(ValueError, match="order_by"):
        evaluate_dask(cand, judged, group_by="user", policy=rk.Policy(ties="input_order"))
    with pytest.raises(TypeError, match="dask DataFrame"):
        evaluate_dask(candidates, judged, group_by="user")  # type: ignore[call-overload]
    bad = candidates.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("score")).alias("score")
    )
    per_group = evaluate_dask(to_dask(bad), judged, group_by="user")
    with pytest.raises(ValueError, match="must hold finite numbers") as raised:
        per_group.compute()
    assert any("polars_rankk.dask" in note for note in raised.value.__notes__)


def test_mixed_id_dtypes_are_unified() -> None:
    candidates, truth = tables(CASES[0])
    assert truth is not None
    narrow = truth.with_columns(pl.col("user").cast(pl.Int32), pl.col("item").cast(pl.Int16))
    expected = rk.evaluate(candidates, narrow, k=KS, group_by="user")
    per_group = evaluate_dask(to_dask(candidates), to_dask(narrow), k=list(KS), group_by="user")
    got = pl.from_pandas(per_group.compute())
    assert sort_per_group(got, ["user"]).equals(sort_per_group(expected.per_group, ["user"]))


def test_a_registered_metric_equals_its_definition(toy_metrics: tuple[str, str]) -> None:
    """A metric declared with rk.register_metric runs on Dask as it does on one machine."""
    candidates, truth = registered_tables()
    per_group = evaluate_dask(
        to_dask(candidates),
        to_dask(truth, 2),
        npartitions=2,
        k=[1, 2, 3, 5],
        metrics=list(toy_metrics),
        group_by="q",
    )
    got = pl.from_pandas(per_group.compute())
    assert_close(as_dict(got), as_dict(brute_force("trec_eval")))
