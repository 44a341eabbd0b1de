"""The metric registry is the one place a metric is declared; everything else reads it."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core import METRIC_DEFINITIONS, METRICS, MICRO_METRICS, REGISTRY, metric_rank

ROOT = Path(__file__).resolve().parents[2]


def test_derived_tables_follow_the_registry() -> None:
    assert tuple(REGISTRY) == METRICS
    assert {name: m.definition for name, m in REGISTRY.items()} == METRIC_DEFINITIONS
    assert tuple(name for name, m in REGISTRY.items() if m.micro) == MICRO_METRICS
    assert rk.METRICS == METRICS
    beyond = [name for name, m in REGISTRY.items() if not m.accuracy]
    assert beyond == [
        *("novelty", "arp", "long_tail_share", "intra_list_diversity"),
        *("coverage", "gini", "entropy", "personalization"),
        *("alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "p_ia", "ap_ia", "st_recall", "nrbp"),
        "nnrbp",
    ]
    assert not any(REGISTRY[name].default for name in beyond)
    order = pl.DataFrame({"metric": list(reversed(METRICS))}).sort(metric_rank())
    assert tuple(order["metric"]) == METRICS


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_metric_is_defined_in_the_docs_and_the_user_guide(name: str) -> None:
    definitions = (ROOT / "docs" / "definitions.md").read_text()
    assert re.search(rf"\| `{name}` \|", definitions), f"docs/definitions.md lacks {name}"
    guide = "".join(
        (ROOT / "docs" / page).read_text() for page in ("metrics.md", "beyond-accuracy.md")
    )
    assert f"| `{name}` |" in guide, f"docs/metrics.md (or beyond-accuracy.md) lacks {name}"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_metric_evaluates_and_keeps_its_declared_shape(name: str) -> None:
    metric = REGISTRY[name]
    candidates = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.5, 0.3]})
    truth = pl.DataFrame({"q": [1, 2], "item": [2, 3]})
    inputs = {
        "popularity": pl.DataFrame({"item": [1, 1, 3]}),
        "item_features": pl.DataFrame({"item": [1, 2, 3], "label": ["x", "y", "x"]}),
    }
    given: dict[str, object] = {
        table: inputs[table] for table in metric.requires if table != "subtopic"
    }
    if "subtopic" in metric.requires:
        truth = truth.with_columns(pl.lit("s1").alias("subtopic"))
        given["subtopic"] = "subtopic"
    res = rk.evaluate(candidates, truth, k=[1, 2], metrics=name, group_by="q", **given)  # type: ignore[arg-type]
    if metric.level == "catalogue":
        assert res.catalogue is not None
        assert res.catalogue.select("metric", "k").rows() == [(name, 1), (name, 2)]
        return
    per_group = res.per_group
    assert isinstance(per_group, pl.DataFrame)
    ks = set(per_group["k"].to_list())
    assert ks == ({1, 2} if metric.has_k else {None})
    assert per_group["metric"].unique().to_list() == [name]


def test_a_beyond_accuracy_metric_has_no_formula_over_relevance() -> None:
    with pytest.raises(ValueError, match="novelty is a beyond-accuracy metric"):
        REGISTRY["novelty"].value(rk.Policy(), 5)


def test_divides_by_relevant_is_what_empty_truth_zero_scores_zero() -> None:
    # A group with grades below the threshold only: metrics dividing by R_g score 0 under
    # empty_truth="zero"; the declared flag says which.
    candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [0.9, 0.5]})
    truth = pl.DataFrame({"q": [1], "item": [1], "relevance": [0.5]})
    base = [name for name in METRICS if REGISTRY[name].needs and name in rk.METRICS]
    res = rk.evaluate(
        candidates, truth, k=2, metrics=base, group_by="q", policy=rk.Policy(empty_truth="zero")
    )
    values = dict(zip(res.per_group["metric"], res.per_group["value"], strict=True))
    for name in base:
        if REGISTRY[name].divides_by_relevant:
            assert values[name] == 0.0, name


def _values(result: rk.Evaluation) -> dict[tuple[int, str], float]:
    return {(q, m): v for q, m, v in result.per_group.select("q", "metric", "value").iter_rows()}


def test_a_metric_declared_per_group_as_another_has_its_values() -> None:
    """`Metric.per_group_as`: GM-AP's per-group values are AP's, GM-bpref's bpref's (only
    the summary, a geometric mean, differs)."""
    candidates = pl.DataFrame(
        {"q": [1, 1, 1, 1, 2, 2, 2], "item": [1, 2, 3, 4, 1, 2, 3],
         "score": [0.9, 0.7, 0.7, 0.1, 0.5, 0.4, 0.3]}
    )  # fmt: skip
    truth = pl.DataFrame({"q": [1, 1, 1, 2, 2], "item": [2, 4, 9, 1, 5],
                          "relevance": [1, 0, 2, 1, 0]})  # fmt: skip
    twins = {name: m.per_group_as for name, m in REGISTRY.items() if m.per_group_as}
    assert twins == {"gm_average_precision": "average_precision", "gm_bpref": "bpref"}
    for twin, metric in twins.items():
        has_k = REGISTRY[twin].has_k
        found = rk.evaluate(
            candidates, truth, group_by="q", k=3 if has_k else None, metrics=[twin, metric]
        )
        values = _values(found)
        for q in (1, 2):
            assert values[q, twin] == values[q, metric], (twin, q)


@pytest.mark.filterwarnings("ignore::polars_rankk.core.names.conventions.ToolNameWarning")
def test_a_deep_metric_over_the_whole_list_is_its_value_past_the_list_and_r() -> None:
    """`Metric.deep`: a whole-list value is the sum over ranks at any cut-off past the list's
    end and the group's relevant count; precision, which divides by K, is not deep."""
    candidates = pl.DataFrame(
        {"q": [1, 1, 1, 1, 2, 2, 2], "item": [1, 2, 3, 4, 1, 2, 3],
         "score": [0.9, 0.7, 0.7, 0.1, 0.5, 0.4, 0.3]}
    )  # fmt: skip
    truth = pl.DataFrame({"q": [1, 1, 1, 2, 2, 2], "item": [2, 4, 9, 1, 5, 6],
                          "relevance": [1, 1, 2, 1, 1, 1]})  # fmt: skip
    deep = sorted(name for name, m in REGISTRY.items() if m.deep)
    assert deep == ["average_precision", "binary_g", "mrr", "ndcg", "recall"]
    assert not REGISTRY["precision"].deep
    whole = {"average_precision": "map", "mrr": "recip_rank", "ndcg": "nDCG"}
    policy = rk.Policy.trec_eval()
    for name in deep:
        if not REGISTRY[name].has_k:  # no cut-off at all: its term summed over every rank
            continue
        spelled = [whole.get(name, f"{name}@1000")]
        at_whole = _values(rk.evaluate(candidates, truth, group_by="q", metrics=spelled,
                                       policy=policy))  # fmt: skip
        at_deep = _values(rk.evaluate(candidates, truth, group_by="q", metrics=[name], k=50,
                                      policy=policy))  # fmt: skip
        for q in (1, 2):
            assert at_whole[q, name] == pytest.approx(at_deep[q, name], abs=1e-15), (name, q)
