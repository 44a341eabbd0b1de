"""The expression API and the namespaces give the same numbers as `evaluate`."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.metrics.registry import REGISTRY
from tests.conftest import assert_same_values
from tests.support.kernel_path import needs_kernel, path
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


def test_expressions_in_one_agg_share_a_ranking_and_never_a_stale_one() -> None:
    """Several default metrics in one agg() make the same kernel call (the kernel keeps the
    last call's sums and reads them when the rows are the same): the values are each
    expression's own, and a frame that differs in one grade, one score or one missed item
    gets its own numbers, equal to `evaluate`'s."""
    candidates = pl.DataFrame(
        {"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5], "score": [0.9, 0.5, 0.1, 0.8, 0.2]}
    )
    truth = pl.DataFrame({"user": [1, 1, 2, 2], "item": [2, 9, 4, 8], "relevance": [2, 3, 1, 1]})
    options = {"by": "score", "k": 2, "item": "item", "unretrieved": "unretrieved"}
    names = ["precision", "recall", "ndcg", "average_precision", "mrr"]
    variants = [
        (candidates, truth),
        (candidates, truth.with_columns(pl.col("relevance").replace(2, 3))),
        (candidates.with_columns(pl.col("score").replace(0.5, 0.95)), truth),
        (candidates, truth.filter(pl.col("item") != 9)),
    ]
    for cands, judged in [*variants, variants[0]]:
        labelled = rk.label(cands, judged, group_by="user")
        wide = labelled.group_by("user").agg(
            BUILDERS[name]("relevance", **options).alias(name) for name in names
        )
        per_group = rk.evaluate(cands, judged, k=2, metrics=names, group_by="user").per_group
        assert isinstance(per_group, pl.DataFrame)
        expected = {
            (row["user"], row["metric"]): row["value"] for row in per_group.rows(named=True)
        }
        got = {(row["user"], name): row[name] for row in wide.rows(named=True) for name in names}
        assert got == pytest.approx(expected)


@needs_kernel
@pytest.mark.parametrize("one_call", [False, True])
def test_five_expressions_in_one_agg_rank_each_group_once(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, one_call: bool
) -> None:
    """P, R, nDCG, AP and MRR at one K as five expressions (what users write) or as one
    `metrics_expression`: the kernel ranks each group once (its counters, not a timing), and
    the four other expressions read the sums it kept."""
    rng = np.random.default_rng(20261206)
    n_groups = 37
    candidates = pl.DataFrame(
        {
            "user": np.repeat(np.arange(n_groups), 9),
            "item": rng.permutation(n_groups * 9),
            "score": rng.random(n_groups * 9),
        }
    )
    truth = candidates.sample(fraction=0.3, seed=1).select("user", "item", relevance=pl.lit(1))
    labelled = rk.label(candidates, truth, group_by="user")
    options: dict[str, Any] = {"by": "score", "k": 5, "item": "item", "unretrieved": "unretrieved"}
    names = ["precision", "recall", "ndcg", "average_precision", "mrr"]
    monkeypatch.setenv("POLARS_RANKK_NATIVE_TIMING", "1")
    with path(True):
        capfd.readouterr()
        if one_call:
            expressions = [rk.metrics_expression(names, "relevance", **options).alias("m")]
        else:
            expressions = [BUILDERS[name]("relevance", **options) for name in names]
        got = labelled.group_by("user").agg(expressions)
        err = capfd.readouterr().err
    ranked = sum(int(n) for n in re.findall(r"groups ranked: (\d+)", err))
    read = sum(int(n) for n in re.findall(r"groups read from the last call's sums: (\d+)", err))
    assert (ranked, read) == (n_groups, 0 if one_call else 4 * n_groups), err
    assert got.height == n_groups


def test_a_groups_missed_items_are_its_first_non_null_list() -> None:
    """The missed items' grades are read from the group's first non-null list, wherever
    the nulls are; every list null: a group the truth does not know (no value)."""
    frame = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2],
            "item": [1, 2, 3, 4, 5],
            "score": [0.9, 0.5, 0.1, 0.8, 0.2],
            "rel": [1, 0, None, 1, None],
            "missed": [None, [1.0, 2.0], [1.0, 2.0], None, None],
        },
        schema_overrides={"missed": pl.List(pl.Float64)},
    )
    recall = rk.recall_at_k("rel", by="score", k=2, item="item", unretrieved="missed")
    got = frame.group_by("user", maintain_order=True).agg(recall)["recall@2"].to_list()
    assert got == [pytest.approx(1 / 3), None]


@pytest.mark.parametrize("engine", ["streaming", "in-memory"])
def test_an_expression_reads_the_whole_column_on_either_engine(engine: str) -> None:
    """Outside a group_by the whole column is one group, even where the streaming engine
    hands rows over in pieces; over() and group_by agree."""
    rng = np.random.default_rng(3)
    n = 250_000
    frame = pl.DataFrame(
        {"item": np.arange(n), "score": rng.random(n), "rel": rng.integers(0, 2, n)}
    ).with_columns(user=pl.col("item") % 3)
    ndcg = rk.ndcg_at_k("rel", by="score", k=10, item="item")
    grouped = frame.lazy().group_by("user").agg(ndcg).sort("user").collect(engine=engine)
    over = frame.lazy().select("user", ndcg.over("user")).unique().sort("user")
    assert grouped.equals(over.collect(engine=engine))
    whole = frame.lazy().select(ndcg).collect(engine=engine)
    one_group = frame.with_columns(user=pl.lit(0))
    expected = rk.evaluate(one_group, None, k=10, metrics="ndcg", group_by="user", relevance="rel")
    assert whole["ndcg@10"].to_list() == pytest.approx([expected.summary()["value"].item()])


@pytest.mark.parametrize("engine", ["streaming", "in-memory"])
def test_a_lazy_query_gives_the_eager_numbers_one_row_per_group(engine: str) -> None:
    """The query optimiser (slice pushdown, the streaming engine) changes neither a group's
    number nor the number of rows: lazy == eager == `evaluate`, on the kernel and in pure
    Polars alike (a first() of the sums was pushed into the ranked rows, which then held
    one row; a select outside group_by came back one row per input row)."""
    rng = np.random.default_rng(11)
    n = 6_000
    frame = pl.DataFrame(
        {
            "item": np.arange(n),
            "score": rng.integers(0, 50, n).astype(float),
            "rel": rng.integers(0, 3, n),
        }
    ).with_columns(user=pl.col("item") % 7)
    five = [
        rk.precision_at_k("rel", by="score", k=10, item="item"),
        rk.recall_at_k("rel", by="score", k=10, item="item"),
        rk.ndcg_at_k("rel", by="score", k=10, item="item"),
        rk.average_precision_at_k("rel", by="score", k=10, item="item"),
        rk.mrr_at_k("rel", by="score", k=10, item="item"),
    ]
    eager = frame.group_by("user").agg(five).sort("user")
    lazy = frame.lazy().group_by("user").agg(five).sort("user").collect(engine=engine)
    assert lazy.equals(eager)
    expected = rk.evaluate(
        frame, None, k=10, group_by="user", relevance="rel",
        metrics=["precision", "recall", "ndcg", "average_precision", "mrr"],
    ).wide().sort("user")  # fmt: skip
    for column in eager.columns[1:]:
        assert eager[column].to_list() == pytest.approx(expected[column].to_list())
    one = frame.filter(pl.col("user") == 0)
    whole = one.lazy().select(five).collect(engine=engine)
    assert whole.height == 1
    assert whole.row(0) == pytest.approx(eager.row(0)[1:])
