"""``rankk compare BASE NEW --truth T --fail-if-worse METRIC --margin M``: status 1 and one
line when the new system is reliably worse (the paired difference's interval lies beyond the
margin), status 0 and one line otherwise; wrong gate options are refused in option terms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_rankk.stats.comparison import reliably_worse
from tests.cli.running import Rankk


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """40 users, 10 items each, items 0-2 relevant; runs ranking them well, badly, the same,
    and nearly the same (one user changed)."""
    folder = tmp_path_factory.mktemp("gate")
    rng = np.random.default_rng(0)
    users, items = np.repeat(np.arange(40), 10), np.tile(np.arange(10), 40)
    good = 10.0 - items + rng.random(items.size) * 4  # relevant items mostly on top
    frames = {
        "base": good,
        "worse": -good,
        "same": good,
        "better": 10.0 - items,
        "nearly": np.where(users == 0, -good, good),
    }
    paths = {}
    for name, score in frames.items():
        paths[name] = folder / f"{name}.parquet"
        pl.DataFrame({"user": users, "item": items, "score": score}).write_parquet(paths[name])
    paths["truth"] = folder / "truth.parquet"
    pl.DataFrame(
        {"user": np.repeat(np.arange(40), 3), "item": np.tile([0, 1, 2], 40)}
    ).write_parquet(paths["truth"])
    return paths


def gate(rankk: Rankk, runs: dict[str, Path], new: str, *options: str) -> tuple[int, str, str]:
    return rankk(
        "compare", f"base={runs['base']}", f"{new}={runs[new]}", "--truth", runs["truth"],
        "--group-by", "user", "--k", "10", "--n-resamples", "200", *options,
    )  # fmt: skip


def test_a_reliably_worse_system_fails_the_gate_in_one_line(
    rankk: Rankk, runs: dict[str, Path]
) -> None:
    code, out, err = gate(rankk, runs, "worse", "--fail-if-worse", "ndcg@10", "--margin", "0.005")
    assert code == 1
    lines = [line for line in err.splitlines() if line.startswith("rankk compare:")]
    assert len(lines) == 1
    assert lines[0].startswith(
        "rankk compare: worse is reliably worse than base on ndcg@10: diff -"
    )
    assert lines[0].endswith("lies below -0.005")
    assert "ndcg" in out  # the comparison is still written


@pytest.mark.parametrize("new", ["same", "better", "nearly"])
def test_a_system_not_reliably_worse_passes(rankk: Rankk, runs: dict[str, Path], new: str) -> None:
    code, _, err = gate(rankk, runs, new, "--fail-if-worse", "ndcg@10", "--margin", "0.005")
    assert code == 0, err
    assert "rankk compare: no system is reliably worse than base on ndcg@10 (margin 0.005)" in err


def test_a_margin_wider_than_the_loss_passes(rankk: Rankk, runs: dict[str, Path]) -> None:
    code, _, err = gate(rankk, runs, "worse", "--fail-if-worse", "ndcg@10", "--margin", "5")
    assert code == 0, err


def test_the_gate_metric_is_evaluated_even_when_metrics_leave_it_out(
    rankk: Rankk, runs: dict[str, Path]
) -> None:
    code, _, err = gate(rankk, runs, "worse", "--metrics", "recall", "--fail-if-worse", "P@5")
    assert code == 1
    assert "on P@5" in err


def test_without_the_option_a_worse_system_exits_zero(rankk: Rankk, runs: dict[str, Path]) -> None:
    assert gate(rankk, runs, "worse")[0] == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--fail-if-worse", "accuracy@10"), "rankk: error: --fail-if-worse: unknown metric"),
        (("--fail-if-worse", "ndcg"), "rankk: error: --fail-if-worse 'ndcg' needs a cut-off"),
        (("--fail-if-worse", "ndcg@10", "--margin", "-1"), "--margin"),
    ],
)
def test_wrong_gate_options_are_refused_in_option_terms(
    rankk: Rankk, runs: dict[str, Path], options: tuple[str, ...], message: str
) -> None:
    code, _, err = gate(rankk, runs, "worse", *options)
    assert code != 0
    assert message in err


def test_for_a_lower_is_better_metric_worse_means_higher() -> None:
    table = pl.DataFrame({
        "metric": ["gini", "gini"], "k": [10, 10], "baseline": "A", "system": ["B", "C"],
        "diff": [0.05, -0.05], "ci_low": [0.02, -0.08], "ci_high": [0.08, -0.02],
    })  # fmt: skip
    assert reliably_worse(table, "gini@10", margin=0.01)["system"].to_list() == ["B"]


def test_the_gate_metric_may_repeat_a_metric_asked_for(rankk: Rankk, runs: dict[str, Path]) -> None:
    code, out, err = gate(rankk, runs, "worse", "--metrics", "ndcg", "--fail-if-worse", "ndcg@10")
    assert code == 1, err
    assert out.count("\nndcg,10,base,worse,") == 1  # piped: CSV, one row for ndcg@10
