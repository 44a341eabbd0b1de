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
from polars_rankk.core.expressions.points import FAMILY_PARAMETERS, family_of, family_points
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


def _function_name(name: str) -> str:
    """A metric's function: its own, or its family's for a point of one (iprec_at_recall)."""
    return family_of(name) or REGISTRY[name].function_name


@pytest.mark.parametrize("name", ACCURACY)
def test_each_method_takes_every_argument_of_its_function(name: str) -> None:
    function_name = _function_name(name)
    function = getattr(rk, function_name)
    method = getattr(RankkExpr, function_name)
    # The function's first argument is the relevance; the method's is self (the relevance).
    assert _parameters(method, 1) == _parameters(function, 1)
    names = [p[0] for p in _parameters(function, 1)]
    assert {"by", "rank", "item", "n_relevant", "policy"} <= set(names)
    assert ("k" in names) == REGISTRY[name].has_k
    assert inspect.signature(function).parameters["by"].default is None


@pytest.mark.parametrize("family", sorted(FAMILY_PARAMETERS))
def test_a_family_function_computes_each_point_as_metrics_expression(family: str) -> None:
    """``rk.iprec_at_recall(recall=0.5)`` is the registry's iprec_at_recall_0_50, at every
    point; a point not computed raises, naming those computed; the export list holds the
    family's function, not one per point."""
    parameter = FAMILY_PARAMETERS[family][0]
    df = pl.DataFrame({"item": [1, 2, 3, 4], "score": [0.9, 0.8, 0.8, 0.1], "rel": [0, 2, 1, 1]})
    for value, name in family_points(family).items():
        by_family = getattr(rk, family)("rel", by="score", item="item", **{parameter: value})
        by_name = rk.metrics_expression(name, "rel", by="score", item="item")
        both = df.select(by_family.alias("family"), by_name.alias("name"))
        assert both["family"].to_list() == both["name"].to_list(), (family, value)
        assert by_family.meta.output_name() == name
        assert name not in rk.__all__
    assert family in rk.__all__
    with pytest.raises(ValueError, match="choose one of"):
        getattr(rk, family)("rel", by="score", **{parameter: 0.55})


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
