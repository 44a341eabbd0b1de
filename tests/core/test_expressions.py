"""The expression API and the namespaces give the same numbers as `evaluate`."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.metrics.registry import REGISTRY
from tests.conftest import assert_same_values
from tests.support.reference import per_group_dict

#: The default metrics with a cut-off, by their expression functions (from the registry).
BUILDERS = {
    name: getattr(rk, metric.function_name)
    for name, metric in REGISTRY.items()
    if metric.default and metric.has_k
}
K = [1, 2, 5, 10]


def _labelled(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for user in range(40):
        n = int(rng.integers(1, 14))
        items = rng.choice(100, size=n, replace=False)
        for item in items:
            rows.append((user, int(item), float(rng.integers(0, 5)) / 2, int(rng.integers(0, 4))))
    return pl.DataFrame(rows, schema=["user", "item", "score", "rel"], orient="row")


@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy(),
        rk.Policy.trec_eval(),
        rk.Policy(ties="item_asc", short_lists="observed", gain="exponential"),
        rk.Policy(ties="pessimistic", ap_denominator="min_k_relevant", relevance_threshold=2),
        rk.Policy(ties="optimistic", empty_truth="nan"),
        rk.Policy(ties="input_order", short_lists="skip"),
    ],
)
def test_expressions_match_evaluate(policy: rk.Policy) -> None:
    frame = _labelled(0)
    res = rk.evaluate(frame, None, k=K, group_by="user", relevance="rel", policy=policy)
    expected = per_group_dict(res.per_group, ["user"])
    exprs = [
        build("rel", by="score", k=k, item="item", policy=policy).alias(f"{name}|{k}")
        for name, build in BUILDERS.items()
        for k in K
    ]
    exprs.append(
        rk.r_precision("rel", by="score", item="item", policy=policy).alias("r_precision|")
    )
    wide = frame.group_by("user").agg(exprs)
    got = {}
    for row in wide.iter_rows(named=True):
        for column, value in row.items():
            if column == "user" or value is None:
                continue  # null: the group is excluded or skipped at this k
            name, k = column.split("|")
            got[((row["user"],), name, int(k) if k else None)] = value
    assert_same_values(got, expected)


def test_over_broadcasts_per_group() -> None:
    frame = _labelled(1)
    out = frame.with_columns(
        rk.ndcg_at_k("rel", by="score", k=5, item="item").over("user").alias("ndcg")
    )
    per_user = frame.group_by("user").agg(rk.ndcg_at_k("rel", by="score", k=5, item="item"))
    joined = out.group_by("user").agg(pl.col("ndcg").unique()).join(per_user, on="user")
    assert all(len(values) == 1 for values in joined["ndcg"])
    assert joined.select((pl.col("ndcg").list.first() == pl.col("ndcg@5")).all()).item()


def test_namespaces_forward() -> None:
    frame = _labelled(2)
    via_namespace = frame.group_by("user").agg(
        pl.col("rel").rankk.mrr_at_k(by="score", k=3, item="item")
    )
    direct = frame.group_by("user").agg(rk.mrr_at_k("rel", by="score", k=3, item="item"))
    assert via_namespace.sort("user").equals(direct.sort("user"))
    res = frame.lazy().rankk.evaluate(None, k=3, group_by="user", relevance="rel")
    assert isinstance(res.per_group, pl.LazyFrame)


def test_expression_errors() -> None:
    with pytest.raises(ValueError, match="pass item="):
        rk.ndcg_at_k("rel", by="score", k=3)
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        rk.ndcg_at_k("rel", by="score", k=0, item="item")
    with pytest.raises(ValueError, match="exactly one of them"):
        rk.ndcg_at_k("rel", by="score", rank="position", k=3, item="item")
