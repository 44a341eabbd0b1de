"""The expression functions and the ``.rankk`` namespace are generated from the registry and
cannot drift: one function and one method per built-in accuracy metric, the same arguments."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.expressions.generated import RankkExpr
from polars_rankk.core.metrics.families.compat_q import reads_ideal
from polars_rankk.core.metrics.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
# Compat and Q read the ideal ranking, which one group's rows do not hold: no expression.
ACCURACY = [
    n for n, m in REGISTRY.items() if m.accuracy and m.origin == "built-in" and not reads_ideal(m)
]


def test_the_generated_module_is_up_to_date() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "expression_api.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert done.returncode == 0, done.stderr


def _parameters(function: object, skip: int) -> list[tuple[str, object, object]]:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in list(signature.parameters.values())[skip:]]


@pytest.mark.parametrize("name", ACCURACY)
def test_each_method_takes_every_argument_of_its_function(name: str) -> None:
    function_name = REGISTRY[name].function_name
    function = getattr(rk, function_name)
    method = getattr(RankkExpr, function_name)
    # The function's first argument is the relevance; the method's is self (the relevance).
    assert _parameters(method, 1) == _parameters(function, 1)
    names = [p[0] for p in _parameters(function, 1)]
    assert {"by", "rank", "item", "n_relevant", "policy"} <= set(names)
    assert ("k" in names) == REGISTRY[name].has_k
    assert inspect.signature(function).parameters["by"].default is None


def test_the_generic_method_takes_every_argument_of_metrics_expression() -> None:
    """``.rankk.metric(name, ...)``: one metric name, then every argument of the function."""
    assert _parameters(RankkExpr.metric, 2) == _parameters(rk.metrics_expression, 2)
    assert _parameters(RankkExpr.metric, 1)[0][0] == "metric"


def test_a_method_ranks_by_rank_as_its_function_does() -> None:
    df = pl.DataFrame({"r": [3, 1, 2], "rel": [1, 0, 1], "item": [1, 2, 3]})
    method = df.select(pl.col("rel").rankk.ndcg_at_k(rank="r", k=2, item="item")).item()
    function = df.select(rk.ndcg_at_k("rel", rank="r", k=2, item="item")).item()
    assert method == function


def test_no_other_metric_functions() -> None:
    exported = {name for name in rk.__all__ if name.endswith("_at_k")}
    assert exported == {REGISTRY[n].function_name for n in ACCURACY if REGISTRY[n].has_k}
