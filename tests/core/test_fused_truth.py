"""The kernel reads the truth itself, in the same call as the candidates.

No Polars join runs before the kernel (the plan shows the candidates and the truth rows
concatenated, then the plugin call); rows in any order are partitioned by their key's hash
and gathered group by group, never written one by one to a place anywhere in the table nor
graded by a probe of the whole truth (the kernel's counters under
``POLARS_RANKK_NATIVE_TIMING``); and the numbers stay the pure path's whether the rows arrive
grouped or shuffled, the groups split across the kernel's threads.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.core.test_native import ALL_METRICS, _policies, both_paths, tables
from tests.support.examples import examples
from tests.support.kernel_path import needs_kernel, path

pytestmark = needs_kernel


def _case() -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3, 3, 3],
            "item": [1, 2, 3, 1, 5, 7, 8, 9],
            "score": [0.9, 0.5, 0.5, 0.3, 0.2, 0.8, 0.8, 0.1],
        }
    )
    truth = pl.DataFrame(
        {
            "user": [1, 1, 2, 3, 3, 4],
            "item": [2, 9, 5, 8, 7, 1],
            "relevance": [2, 1, 1, 0, 3, 1],
        }
    )
    return candidates, truth


def _plugin_subtree(plan: str, function: str) -> list[str]:
    """The lines of `plan` (``LazyFrame.explain()``) under the node calling `function`."""
    lines = plan.splitlines()
    start = next(i for i, line in enumerate(lines) if f":{function}(" in line)
    depth = len(lines[start]) - len(lines[start].lstrip())
    below = []
    for line in lines[start + 1 :]:
        if len(line) - len(line.lstrip()) <= depth and line.strip():
            break
        below.append(line)
    return below


@pytest.mark.parametrize("metrics", [["ndcg", "recall"], ["bpref", "judged", "r_precision"]])
def test_the_truth_is_not_joined_in_polars_before_the_kernel(metrics: list[str]) -> None:
    candidates, truth = _case()
    with path(True):
        evaluation = rk.evaluate(candidates, truth, k=[1, 3], group_by="user", metrics=metrics)
    prepared = evaluation._prepared
    assert prepared.path.startswith("native kernel: loaded")
    below = _plugin_subtree(prepared.group_sums.explain(), "group_sums")
    assert any("UNION" in line for line in below), below
    assert not any("JOIN" in line for line in below), "\n".join(below)


def _counters(capfd: pytest.CaptureFixture[str], candidates: pl.DataFrame) -> dict[str, int]:
    """The kernel's counters of one evaluation of `candidates` (summed over its calls)."""
    _, truth = _case()
    before = os.environ.get("POLARS_RANKK_NATIVE_TIMING")
    os.environ["POLARS_RANKK_NATIVE_TIMING"] = "1"
    try:
        capfd.readouterr()
        with path(True):
            rk.evaluate(candidates, truth, k=[1, 3], group_by="user", metrics=["ndcg"])
        err = capfd.readouterr().err
    finally:
        if before is None:
            del os.environ["POLARS_RANKK_NATIVE_TIMING"]
        else:
            os.environ["POLARS_RANKK_NATIVE_TIMING"] = before
    counters: dict[str, int] = {}
    for name in (
        "rows taken as grouped",
        "rows partitioned",
        "rows scattered",
        "truth rows joined by group",
    ):
        found = [int(n) for n in re.findall(rf"{name}: (\d+)", err)]
        assert found, err
        counters[name] = sum(found)
    counters["whole-truth probes"] = sum(
        int(n) for n in re.findall(r"whole-truth probes: (\d+)", err)
    )
    return counters


@pytest.mark.parametrize("order", ["grouped", "interleaved", "reversed"])
def test_rows_are_taken_as_grouped_or_partitioned_never_scattered_nor_probed_one_by_one(
    capfd: pytest.CaptureFixture[str], order: str
) -> None:
    candidates, truth = _case()
    if order == "interleaved":
        # Group 1's rows apart.
        candidates = candidates[[0, 3, 1, 2, 4, 5, 6, 7]]
    elif order == "reversed":
        candidates = candidates.reverse()
    counters = _counters(capfd, candidates)
    # Every candidate and judged truth row is read once: rows already grouped (each group's
    # candidate rows side by side, in any order of the groups) as they come, any other order
    # through the partitioning...
    rows = candidates.height + truth.height
    if order == "interleaved":
        assert (counters["rows partitioned"], counters["rows taken as grouped"]) == (rows, 0)
    else:
        assert (counters["rows partitioned"], counters["rows taken as grouped"]) == (0, rows)
    # ...and the truth's rows are joined to the candidates group by group: no row is written
    # one at a time to its group's place in the whole table, and no candidate's grade is
    # looked up in a structure over the whole truth.
    assert counters["truth rows joined by group"] == truth.height
    assert counters["rows scattered"] == 0
    assert counters["whole-truth probes"] == 0


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=tables(),
    policy=_policies(),
    ks=st.sampled_from([[1], [1, 3, 10]]),
    order=st.sampled_from(["grouped", "shuffled", "reversed"]),
    seed=st.integers(0, 2**16),
)
def test_the_fused_truth_gives_the_pure_numbers_in_any_row_order(
    data: tuple[pl.DataFrame, pl.DataFrame, bool],
    policy: rk.Policy,
    ks: list[int],
    order: str,
    seed: int,
) -> None:
    candidates, truth, _ = data
    candidates = candidates.drop("label")
    if order == "grouped":
        candidates = candidates.sort("user", maintain_order=True)
    elif order == "shuffled":
        candidates = candidates.sample(fraction=1.0, shuffle=True, seed=seed)
    else:
        candidates = candidates.reverse()
    truth = truth.sample(fraction=1.0, shuffle=True, seed=seed)
    metrics = list(ALL_METRICS)
    if policy.ties == "expected":
        metrics = [m for m in metrics if m not in ("err", "bpref")]
    both_paths(candidates, truth, k=ks, group_by="user", metrics=metrics, policy=policy)


_SPLIT_SCRIPT = """
import sys
import polars as pl
import polars_rankk as rk
candidates = pl.read_ipc(sys.argv[1])
truth = pl.read_ipc(sys.argv[2])
evaluation = rk.evaluate(candidates, truth, k=[1, 3, 10], group_by="user")
assert evaluation.diagnostics.path.startswith("native kernel: loaded"), evaluation.diagnostics.path
evaluation.per_group.sort("user", "metric", "k").write_ipc(sys.argv[3])
"""


@pytest.mark.parametrize("threads", ["1", "3", "16"])
def test_groups_split_across_threads_give_the_pure_numbers(threads: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    rows = [
        (u, rng.randrange(30), rng.choice([0.1, 0.5, 0.5, 0.9]))
        for u in range(40)
        for _ in range(12)
    ]
    rng.shuffle(rows)
    candidates = pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
    truth = pl.DataFrame(
        [(u, i, rng.choice([0, 1, 2])) for u in range(42) for i in rng.sample(range(30), 6)],
        schema=["user", "item", "relevance"],
        orient="row",
    )
    files = [tmp_path / name for name in ("candidates.arrow", "truth.arrow", "out.arrow")]
    candidates.write_ipc(files[0])
    truth.write_ipc(files[1])
    env = {**os.environ, "POLARS_RANKK_NATIVE_THREADS": threads, "POLARS_RANKK_NATIVE": "1"}
    subprocess.run(
        [sys.executable, "-c", _SPLIT_SCRIPT, *map(str, files)], check=True, env=env, timeout=300
    )
    with path(False):
        pure = rk.evaluate(candidates, truth, k=[1, 3, 10], group_by="user").per_group
    on_kernel = pl.read_ipc(files[2])
    assert isinstance(pure, pl.DataFrame)
    pure = pure.sort("user", "metric", "k")
    assert on_kernel.drop("value").equals(pure.drop("value"))
    differences = (on_kernel["value"] - pure["value"]).abs().fill_nan(0.0).fill_null(0.0)
    assert differences.max() <= 1e-12


@pytest.mark.parametrize("keys", [["user"], ["user", "day"]])
@pytest.mark.parametrize(
    "policy", [rk.Policy(), rk.Policy(ties="input_order"), rk.Policy.trec_eval()]
)
def test_many_partitions_give_the_pure_numbers_in_random_order(
    keys: list[str], policy: rk.Policy
) -> None:
    """Above 16,384 rows the kernel splits the rows into several hash partitions (by the rows
    themselves with one key column, by row numbers with two or an input row column); the
    numbers stay the pure path's on shuffled rows with tied scores and repeated items."""
    rng = random.Random(11)
    rows = [
        (u, u % 3, rng.randrange(40), rng.choice([0.1, 0.2, 0.5, 0.5, 0.9]))
        for u in range(5_000)
        for _ in range(rng.randrange(1, 16))
    ]
    rng.shuffle(rows)
    candidates = pl.DataFrame(rows, schema=["user", "day", "item", "score"], orient="row")
    truth = pl.DataFrame(
        [
            (u, u % 3, i, rng.choice([0, 1, 2, 3]))
            for u in range(2_600)
            for i in rng.sample(range(40), 5)
        ],
        schema=["user", "day", "item", "relevance"],
        orient="row",
    )
    assert candidates.height + truth.height > 3 * 16_384
    both_paths(candidates, truth, k=[1, 5, 20], group_by=keys, policy=policy)
