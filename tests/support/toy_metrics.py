"""Two metrics declared through `rk.register_metric` alone, their brute-force definitions, and
the small tables the tests evaluate them on (full of ties)."""

from __future__ import annotations

import itertools
import math

import polars as pl

import polars_rankk as rk

K = [1, 2, 3, 5]
NAMES = ("first_relevant_rank", "linear_discount")


K = [1, 2, 3, 5]


def first_rank_value(labels: list[bool], k: int) -> float:
    """Rank of the first relevant item within K, K + 1 when there is none."""
    for rank, relevant in enumerate(labels[:k], start=1):
        if relevant:
            return float(rank)
    return float(k + 1)


def linear_discount_value(grades: list[float], k: int) -> float:
    """Σ gain / rank over the top K (a user's own discount, 1/rank)."""
    return sum(max(grade, 0.0) / rank for rank, grade in enumerate(grades[:k], start=1))


def register() -> tuple[str, str]:
    """Register the two metrics through the public function only."""
    rk.register_metric(
        "first_relevant_rank",
        lambda rows: rows.first_relevant * rows.rank,
        lambda sums: sums.total + (sums.k + 1) * (1 - sums.sum("first_hit")),
        direction="lower",
        expected_ties=True,
        sparse=True,
        # Micro: the mean rank of the first relevant item over the groups that have one.
        micro=(lambda sums: sums.total, lambda sums: sums.sum("first_hit")),
    )
    rk.register_metric(
        "linear_discount",
        lambda rows: rows.gain / rows.rank.cast(pl.Float64),
        expected_ties=True,
        aliases=["LinDCG"],
    )
    return NAMES


def unregister() -> None:
    for name in NAMES:
        rk.unregister_metric(name)


def tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ties inside and across relevance, repeated scores, a group without relevant items."""
    candidates = pl.DataFrame(
        {
            "q": [1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3],
            "item": [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6, 7],
            "score": [0.9, 0.7, 0.7, 0.7, 0.1, 0.5, 0.5, 0.2, 0.8, 0.6, 0.6, 0.4],
        }
    )
    truth = pl.DataFrame(
        {"q": [1, 1, 2, 3, 3, 3], "item": [3, 5, 9, 5, 6, 7], "relevance": [2, 1, 1, 1, 3, 2]}
    )
    return candidates, truth


def brute_force(ties: str) -> pl.DataFrame:
    """q, metric, k, value by definition, in plain Python."""
    candidates, truth = tables()
    grades = {(q, item): float(g) for q, item, g in truth.iter_rows()}
    rows = []
    for (q,), group in candidates.group_by("q", maintain_order=True):
        listed = [(s, i, grades.get((q, i), 0.0)) for _, i, s in group.iter_rows()]
        if ties == "expected":
            blocks = [
                list(b)
                for _, b in itertools.groupby(
                    sorted(listed, key=lambda r: -r[0]), key=lambda r: r[0]
                )
            ]
            orderings = [
                [row for block in choice for row in block]
                for choice in itertools.product(*(itertools.permutations(b) for b in blocks))
            ]
        else:  # trec_eval: score descending, then item id descending
            orderings = [sorted(listed, key=lambda r: (-r[0], -r[1]))]
        for k in K:
            firsts = [first_rank_value([g >= 1 for *_, g in o], k) for o in orderings]
            discounts = [linear_discount_value([g for *_, g in o], k) for o in orderings]
            rows.append((q, "first_relevant_rank", k, sum(firsts) / len(firsts)))
            rows.append((q, "linear_discount", k, sum(discounts) / len(discounts)))
    return pl.DataFrame(rows, schema=["q", "metric", "k", "value"], orient="row")


def as_dict(frame: pl.DataFrame) -> dict[tuple[int, str, int], float]:
    return {(q, m, k): v for q, m, k, v in frame.select("q", "metric", "k", "value").iter_rows()}


def assert_close(got: dict, want: dict) -> None:  # type: ignore[type-arg]
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=1e-12), (key, got[key], value)
