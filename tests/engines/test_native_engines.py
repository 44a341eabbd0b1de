"""Every engine on the native kernel gives the pure-Polars numbers: buckets and Dask workers
call the same preparation, so they use the kernel where it is installed (`test_the_engines_run_
on_the_kernel` checks that they do), also under the dialects' policy fields."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from polars_rankk.core.kernel import loader as native
from polars_rankk.engines.out_of_core import evaluate_in_partitions
from tests.core.test_native import needs_kernel, path
from tests.support.distributed_cases import (
    CASES,
    DIALECT_CASES,
    KS,
    Case,
    distributed_kwargs,
    single_machine,
    sort_per_group,
    tables,
)

dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 'dask[dataframe]')")
dd = pytest.importorskip("dask.dataframe")

pytestmark = [needs_kernel, pytest.mark.xdist_group("dask")]

from polars_rankk.dask import evaluate_dask  # noqa: E402


def assert_close(got: pl.DataFrame, want: pl.DataFrame, keys: list[str]) -> None:
    """The same rows; values equal within 1e-12 (the kernel may round a logarithm apart)."""
    got, want = sort_per_group(got, keys), sort_per_group(want, keys)
    assert got.schema == want.schema
    assert got.drop("value").equals(want.drop("value"))
    for a, b in zip(got["value"].to_list(), want["value"].to_list(), strict=True):
        if b is None or math.isnan(b):
            assert a is None or math.isnan(a), (a, b)
        else:
            assert abs(a - b) <= 1e-12 * max(1.0, abs(b)), (a, b)


@pytest.mark.parametrize("case", CASES[:4] + DIALECT_CASES, ids=lambda case: case.name)
def test_dask_and_buckets_on_the_kernel_equal_pure_polars(case: Case, tmp_path: Path) -> None:
    candidates, truth = tables(case)
    with path(False):
        expected = single_machine(case, candidates, truth).per_group
    assert isinstance(expected, pl.DataFrame)
    with path(True), dask.config.set(scheduler="threads", num_workers=2):
        assert native.status().loaded
        result = evaluate_dask(
            dd.from_pandas(candidates.to_pandas(), npartitions=3, sort=False),
            None if truth is None else dd.from_pandas(truth.to_pandas(), npartitions=2),
            npartitions=case.partitions,
            with_dropped=True,
            **distributed_kwargs(case),
        )
        per_group = pl.from_pandas(result.per_group.compute())
    assert_close(per_group, expected, case.keys)
    if case.policy.ties == "input_order" or case.n_relevant:
        return  # buckets take neither an order column nor n_relevant here
    with path(True):
        buckets = evaluate_in_partitions(
            candidates.lazy(),
            None if truth is None else truth.lazy(),
            output=tmp_path / "out",
            partitions=3,
            k=list(KS),
            metrics=None if case.metrics is None else list(case.metrics),
            group_by=case.keys,
            policy=case.policy,
        )
        bucketed = buckets.per_group.collect()
    assert_close(bucketed, expected, case.keys)


@pytest.mark.parametrize("case", CASES[:1] + DIALECT_CASES, ids=lambda case: case.name)
def test_the_engines_use_the_kernel_when_evaluate_does(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every evaluation a bucket or a Dask partition runs takes the path `evaluate` takes on
    one machine: the kernel where it implements the policy (the default case), the pure path
    with the kernel's own reason where it does not (today: the dialect fields)."""
    reasons: list[str | None] = []
    unsupported = native.unsupported

    def recorded(*args: object) -> str | None:
        reason = unsupported(*args)  # type: ignore[arg-type]
        reasons.append(reason)
        return reason

    monkeypatch.setattr(native, "unsupported", recorded)
    candidates, truth = tables(case)
    metrics = None if case.metrics is None else list(case.metrics)
    with path(True), dask.config.set(scheduler="threads", num_workers=2):
        single_machine(case, candidates, truth)
        one_machine = set(reasons)
        reasons.clear()
        evaluate_dask(
            dd.from_pandas(candidates.to_pandas(), npartitions=3, sort=False),
            None if truth is None else dd.from_pandas(truth.to_pandas(), npartitions=2),
            npartitions=3,
            **distributed_kwargs(case),
        ).compute()
        dask_calls = len(reasons)
        evaluate_in_partitions(
            candidates,
            truth,
            output=tmp_path / "out",
            partitions=3,
            k=list(KS),
            metrics=metrics,
            group_by=case.keys,
            policy=case.policy,
        )
    assert dask_calls >= 3  # the empty-frame template and the partitions
    assert len(reasons) > dask_calls  # and the buckets
    assert set(reasons) == one_machine
    if case is CASES[0]:
        assert one_machine == {None}
