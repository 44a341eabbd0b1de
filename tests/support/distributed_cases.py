"""Tables and cases shared by the Spark and Dask tests (tests/test_spark.py, test_dask.py).

`tables` draws a small, nasty workload with fixed seeds: scores from a handful of values (ties
everywhere), duplicated (group, item) candidates, lists shorter than K, groups whose truth has
no relevant item, truth groups without candidates, candidate groups without truth, truth
items outside the pool, graded relevance, a few NaN scores where the policy handles them, and
ids that are ints (string order "10" < "9" differs from numeric) or unicode strings. Each
`Case` says which policy, id kind, partitioning and options one equality test uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

import polars_rankk as rk
from polars_rankk.core.metrics.registry import ACCURACY_METRICS

KS = (1, 3, 5)
STR_IDS = ("a", "b", "B", "é", "e", "z9", "日本", "ß", "aa", "😀", "10", "9", "Z", "q", "x")
N_GROUPS = 18


@dataclass(frozen=True)
class Case:
    """One distributed-vs-single-machine equality check."""

    name: str
    policy: rk.Policy
    id_kind: str = "int"
    partitions: int | None = 3
    labelled: bool = False
    with_truth: bool = True
    n_relevant: bool = False
    nan_scores: bool = False
    max_rows_per_chunk: int | None = None
    multi_key: bool = False
    #: Some truth grades below 0 (judged non-relevant, or unjudged under trec_eval's dialect).
    negative_grades: bool = False
    #: Metric names (None: evaluate's default set).
    metrics: tuple[str, ...] | None = None

    @property
    def keys(self) -> list[str]:
        return ["u", "d"] if self.multi_key else ["user"]


CASES = (
    Case("default-int-1-partition", rk.Policy(), partitions=1),
    Case(
        "item_asc-str-nan-skip",
        rk.Policy(ties="item_asc", empty_truth="nan", short_lists="skip"),
        id_kind="str",
    ),
    Case(
        "pessimistic-more-partitions-than-groups",
        rk.Policy(
            ties="pessimistic", missing_groups="exclude", pool="restrict", invalid_scores="lowest"
        ),
        partitions=24,
        nan_scores=True,
    ),
    Case(
        "optimistic-str-keep-exponential",
        rk.Policy(
            ties="optimistic",
            duplicates="keep",
            gain="exponential",
            relevance_threshold=2,
            invalid_scores="drop",
        ),
        id_kind="str",
        partitions=24,
        nan_scores=True,
    ),
    Case(
        "expected-zero-observed",
        rk.Policy(
            ties="expected",
            empty_truth="zero",
            short_lists="observed",
            ap_denominator="min_k_relevant",
        ),
    ),
    Case("input_order-str", rk.Policy(ties="input_order"), id_kind="str"),
    Case("trec_eval-str-default-partitions", rk.Policy.trec_eval(), id_kind="str", partitions=None),
    # Pre-labelled candidates and no truth: the candidates' own labels are what is relevant
    # (beside a truth table they would be ignored, with a warning).
    Case(
        "labelled-no-truth-multi-key",
        rk.Policy(ties="expected"),
        labelled=True,
        with_truth=False,
        multi_key=True,
    ),
    Case(
        "labelled-n_relevant-no-truth",
        rk.Policy(),
        labelled=True,
        with_truth=False,
        n_relevant=True,
        id_kind="str",
    ),
)

#: The dialects' policy fields (trec_eval's negative grades as unjudged, gain maps, graded RBP,
#: no gain below the threshold), every accuracy metric, truth with negative grades.
DIALECT_CASES = (
    Case(
        "dialect-trec_eval-negative-unjudged",
        rk.Policy.trec_eval(),
        negative_grades=True,
        metrics=ACCURACY_METRICS,
    ),
    Case(
        "dialect-gains-graded-rbp-str",
        rk.Policy(gains={0: 1.0, 1: 4.0, 3: 10.0}, rbp_grades="graded", ties="pessimistic"),
        id_kind="str",
        negative_grades=True,
        metrics=ACCURACY_METRICS,
    ),
    Case(
        "dialect-nonrelevant-zero-threshold-2",
        rk.Policy(nonrelevant_gain="zero", relevance_threshold=2, gain="exponential"),
        negative_grades=True,
        metrics=ACCURACY_METRICS,
        partitions=24,
    ),
    Case(
        "dialect-trec_eval-condense-gains",
        rk.Policy.trec_eval(unjudged="condense", gains={1: 2.0, 2: 5.0}, rbp_grades="graded"),
        negative_grades=True,
        metrics=ACCURACY_METRICS,
        multi_key=True,
    ),
)

#: Bounded-memory chunks (Spark's max_rows_per_chunk): tiny chunks so groups straddle them.
CHUNKED_CASES = (
    Case(
        "chunked-expected-str",
        rk.Policy(ties="expected", empty_truth="nan"),
        id_kind="str",
        max_rows_per_chunk=5,
    ),
    Case(
        "chunked-default-1-partition-multi-key",
        rk.Policy(short_lists="skip"),
        partitions=1,
        max_rows_per_chunk=7,
        multi_key=True,
    ),
)


def _ids(values: np.ndarray, kind: str) -> list[Any]:
    if kind == "int":
        return [int(v) for v in values]
    return [STR_IDS[int(v) % len(STR_IDS)] + ("" if v < len(STR_IDS) else str(v)) for v in values]


def tables(case: Case, seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """(candidates, truth) for `case`, rows shuffled."""
    rng = np.random.default_rng(seed)
    groups = np.arange(N_GROUPS)
    rows_c: dict[str, list[Any]] = {"g": [], "item": [], "score": []}
    for g in groups[:-3]:  # the last three groups have truth only (missing groups)
        n = int(rng.integers(0, 9))
        items = rng.integers(0, 13, size=n)  # repeats: duplicates inside a group
        rows_c["g"] += [int(g)] * n
        rows_c["item"] += items.tolist()
        rows_c["score"] += rng.choice([0.0, 0.25, 0.5, 1.0, -1.0], size=n).tolist()
    candidates = pl.DataFrame(rows_c, schema={"g": pl.Int64, "item": pl.Int64, "score": pl.Float64})
    if case.nan_scores:
        nan = pl.int_range(pl.len()) % 11 == 3
        candidates = candidates.with_columns(
            pl.when(nan).then(float("nan")).otherwise(pl.col("score")).alias("score")
        )
    rows_t: dict[str, list[Any]] = {"g": [], "item": [], "relevance": []}
    for g in groups[2:]:  # the first two groups have candidates only
        n = int(rng.integers(1, 6))
        items = rng.choice(16, size=n, replace=False)  # 13..15: outside every pool
        rows_t["g"] += [int(g)] * n
        rows_t["item"] += items.tolist()
        # Group 5 has only grade-0 truth: no relevant item.
        low = -2 if case.negative_grades else 0
        rows_t["relevance"] += [0] * n if g == 5 else rng.integers(low, 4, size=n).tolist()
    truth = pl.DataFrame(rows_t, schema={"g": pl.Int64, "item": pl.Int64, "relevance": pl.Int64})

    if case.labelled:
        candidates = (
            candidates.join(truth.rename({"relevance": "label"}), on=["g", "item"], how="left")
            .with_columns(pl.col("label").fill_null(0).alias("relevance"))
            .drop("label")
        )
        if case.n_relevant:
            counts = truth.group_by("g").agg(
                (pl.col("relevance") >= 1).sum().cast(pl.Int64).alias("n_rel")
            )
            candidates = candidates.join(counts, on="g", how="left").with_columns(
                pl.col("n_rel").fill_null(0)
            )
    if case.policy.ties == "input_order":
        candidates = candidates.with_columns(
            pl.Series("position", rng.permutation(candidates.height), dtype=pl.Int64)
        )

    def keyed(frame: pl.DataFrame) -> pl.DataFrame:
        ids = {
            "item": pl.Series(_ids(frame["item"].to_numpy(), case.id_kind)),
        }
        if case.multi_key:
            g = frame["g"].to_numpy()
            frame = frame.with_columns(
                pl.Series("u", [f"ü{v % 4}" for v in g]), pl.Series("d", (g // 4).astype(np.int32))
            ).drop("g")
        else:
            frame = frame.with_columns(
                pl.Series("user", _ids(frame["g"].to_numpy() + 20, case.id_kind))
            ).drop("g")
        frame = frame.with_columns(**ids)
        front = [*case.keys, "item"]
        return frame.select(*front, pl.exclude(front)).sample(fraction=1.0, shuffle=True, seed=seed)

    return keyed(candidates), (keyed(truth) if case.with_truth else None)


def single_machine(
    case: Case, candidates: pl.DataFrame, truth: pl.DataFrame | None, **kwargs: Any
) -> rk.Evaluation:
    """What polars_rankk.evaluate gives on one machine (sorted by position for input_order)."""
    if case.policy.ties == "input_order":
        candidates = candidates.sort("position").drop("position")
    return rk.evaluate(
        candidates,
        truth,
        k=KS,
        group_by=case.keys,
        policy=case.policy,
        n_relevant="n_rel" if case.n_relevant else None,
        metrics=None if case.metrics is None else list(case.metrics),
        **kwargs,
    )


def distributed_kwargs(case: Case) -> dict[str, Any]:
    """Keyword arguments of evaluate_spark / evaluate_dask for `case`."""
    return {
        "k": list(KS),
        "group_by": case.keys,
        "policy": case.policy,
        "n_relevant": "n_rel" if case.n_relevant else None,
        "order_by": "position" if case.policy.ties == "input_order" else None,
        "metrics": None if case.metrics is None else list(case.metrics),
    }


def sort_per_group(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """A per-group table in one canonical order (the distributed output has none)."""
    return frame.sort([*keys, "metric", "k"], nulls_last=True)


def quantile_reference(per_group: pl.DataFrame, quantiles: list[float]) -> pl.DataFrame:
    """Quantiles as `polars_rankk.distribution` computes them (NaN values as nulls)."""
    value = pl.col("value").fill_nan(None)
    return per_group.group_by(["metric", "k"]).agg(
        value.quantile(q, "linear").alias(f"quantile_{q!r}") for q in quantiles
    )


#: Cut-offs of the ranked-list cases.
LIST_KS = [1, 2, 5]


def ranked_lists(positional: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidate and truth lists of 9 users: user 3's candidate list and user 5's truth list
    are empty, user 8 has candidates only, user 9 truth only; scores tie."""
    long = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 4, 4, 4, 5, 6, 6, 7, 8],
            "item": [1, 2, 3, 1, 4, 5, 6, 7, 1, 2, 3, 9, 1],
            "score": [0.9, 0.5, 0.5, 0.3, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.7, 0.2],
        }
    )
    if positional:  # the list order is the ranking
        candidates = (
            long.sort("user", "score", descending=[False, True])
            .group_by("user", maintain_order=True)
            .agg("item")
        )
    else:
        candidates = long.group_by("user", maintain_order=True).agg("item", "score")
    empty = pl.DataFrame({"user": [3]}).with_columns(
        pl.lit([], dtype=candidates.schema[c]).alias(c) for c in candidates.columns[1:]
    )
    candidates = pl.concat([candidates, empty]).sort("user")
    truth = pl.DataFrame(
        {
            "user": [1, 2, 3, 4, 5, 6, 7, 9],
            "item": [[2, 3], [4], [8], [7, 5, 11], [], [2], [10], [1]],
            "relevance": [[1, 2], [3], [1], [1, 0, 2], [], [1], [1], [1]],
        }
    )
    return candidates, truth
