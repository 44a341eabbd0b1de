"""Hypothesis strategies for ranking-evaluation inputs, shared by the reference tests.

A *case* is a dict of plain-Python rows:

- ``candidates``: ``[{**keys, "item": ..., "score": float | None}]`` in input order;
- ``truth``: ``[{**keys, "item": ..., "relevance": grade}]``, unique ``(group, item)``
  unless ``allow_truth_duplicates``;
- ``group_by``: the key column names (``["g"]`` or ``["u", "d"]``);
- ``id_kind``: ``"int"`` or ``"str"`` (the dtype of item ids).

The data is deliberately nasty: scores come from a handful of values (ties everywhere),
items repeat inside a group (duplicates), lists are often shorter than K (even empty when a
truth group gets no candidates), some groups have no relevant item, truth items often lie
outside the candidate pool, and ids are either small ints (so that the string byte order
``"10" < "9"`` differs from numeric order) or short unicode strings (accents, CJK, emoji,
upper/lower case — UTF-8 byte order equals code-point order).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from hypothesis import strategies as st

#: Scores exactly representable in binary, so no tool can round them into or out of a tie.
SCORES = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, -1.0)
INT_IDS = tuple(range(0, 13))
STR_IDS = ("a", "b", "B", "é", "e", "z9", "日本", "ß", "aa", "😀", "10", "9", "Z")
GROUPS_1 = (1, 2, 3, 10, 20)
GROUPS_2 = (("u1", 1), ("u1", 2), ("u2", 1), ("ü", 7))


@st.composite
def cases(
    draw: st.DrawFn,
    *,
    max_groups: int = 4,
    max_candidates: int = 8,
    grades: tuple[float, ...] = (0, 1, 2, 3),
    allow_duplicates: bool = True,
    allow_invalid_scores: bool = False,
    allow_multi_key: bool = True,
    scores: tuple[float, ...] = SCORES,
    id_kinds: tuple[str, ...] = ("int", "str"),
    allow_truth_duplicates: bool = False,
) -> dict[str, Any]:
    id_kind = draw(st.sampled_from(id_kinds))
    pool = INT_IDS if id_kind == "int" else STR_IDS
    multi = allow_multi_key and draw(st.booleans())
    group_by = ["u", "d"] if multi else ["g"]
    all_groups = GROUPS_2 if multi else tuple((g,) for g in GROUPS_1)
    groups = draw(
        st.lists(st.sampled_from(all_groups), min_size=1, max_size=max_groups, unique=True)
    )
    score_values: list[Any] = list(scores)
    if allow_invalid_scores:
        score_values += [None, math.nan, math.inf, -math.inf]

    candidates: list[dict[str, Any]] = []
    truth: list[dict[str, Any]] = []
    for key in groups:
        keyd = dict(zip(group_by, key, strict=True))
        role = draw(st.sampled_from(["both", "both", "both", "truth_only", "candidates_only"]))
        if role != "truth_only":
            n = draw(st.integers(0 if role == "candidates_only" else 1, max_candidates))
            if allow_duplicates:
                items = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
            else:
                items = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n, unique=True))
            for it in items:
                s = draw(st.sampled_from(score_values))
                candidates.append({**keyd, "item": it, "score": s})
        if role != "candidates_only":
            judged = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=6, unique=True))
            if not judged:  # a truth group needs at least one row to exist
                judged = [draw(st.sampled_from(pool))]
            for it in judged:
                truth.append({**keyd, "item": it, "relevance": draw(st.sampled_from(grades))})
            if allow_truth_duplicates and draw(st.booleans()):
                # the same judged item twice, maybe with another grade: the largest counts
                it = draw(st.sampled_from(judged))
                truth.append({**keyd, "item": it, "relevance": draw(st.sampled_from(grades))})
    # shuffle candidate rows across groups: input order is not group order
    order = draw(st.permutations(range(len(candidates))))
    candidates = [candidates[i] for i in order]
    return {
        "candidates": candidates,
        "truth": truth,
        "group_by": group_by,
        "id_kind": id_kind,
    }


def frames(case: dict[str, Any], *, grade_dtype: Any = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The case as eager Polars frames with explicit dtypes (also when empty)."""
    id_dtype = pl.Int64 if case["id_kind"] == "int" else pl.String
    key_dtypes = {"g": pl.Int64, "u": pl.String, "d": pl.Int64}
    keys = {name: key_dtypes[name] for name in case["group_by"]}
    grades = [row["relevance"] for row in case["truth"]]
    if grade_dtype is None:
        grade_dtype = pl.Int64 if all(float(g).is_integer() for g in grades) else pl.Float64
    cand = pl.DataFrame(
        case["candidates"],
        schema={**keys, "item": id_dtype, "score": pl.Float64},
    )
    truth = pl.DataFrame(
        [
            {
                **row,
                "relevance": (
                    int(row["relevance"]) if grade_dtype == pl.Int64 else row["relevance"]
                ),
            }
            for row in case["truth"]
        ],
        schema={**keys, "item": id_dtype, "relevance": grade_dtype},
    )
    return cand, truth


def tie_orderings(case: dict[str, Any]) -> int:
    """How many orderings ``ties="expected"`` enumerates in the largest group (upper bound)."""
    blocks: dict[tuple[Any, ...], int] = {}
    for row in case["candidates"]:
        key = tuple(row[c] for c in case["group_by"])
        s = row["score"]
        s = None if s is None or (isinstance(s, float) and not math.isfinite(s)) else s
        blocks[(key, s)] = blocks.get((key, s), 0) + 1
    per_group: dict[tuple[Any, ...], int] = {}
    for (key, _), size in blocks.items():
        per_group[key] = per_group.get(key, 1) * math.factorial(size)
    return max(per_group.values(), default=1)
