"""A brute-force, plain-Python reference for ``rk.evaluate``, from docs/definitions.md.

It evaluates one group at a time with explicit loops: sort the candidates, walk the
ranking, count. It shares no code with the package (the policy object is only read
attribute by attribute) and is meant to be obviously correct rather than fast.
``ties="expected"`` literally enumerates every ordering of every tie block
(``itertools.permutations`` over the product of the blocks) and averages the metric values,
so keep tie blocks small there.

Conventions (mirroring docs/definitions.md §1-3 and the decisions the core follows):

- ranking: score descending; ties by the policy (see :func:`_tie_key`);
- ``duplicates="first"`` keeps the highest-scored copy of an item (the earliest such row
  when the same item repeats with the same score); ``"keep"`` ranks every copy and a
  relevant item counts each time; ``"error"`` raises ``ValueError`` when a ``(group, item)``
  pair repeats in the candidate table as given (even if a copy has an invalid score that
  ``invalid_scores="drop"`` would remove);
- truth: rows ``(group, item[, relevance])``; without a relevance column every row has
  grade 1; an item is relevant when ``grade >= relevance_threshold``; when an item repeats
  in a group's truth its largest grade is used; ``R_g`` = number of distinct relevant truth
  items; the groups evaluated are the groups of the truth table (any row, even grade 0);
- ``gain(grade) = max(grade, 0)`` (linear) or ``2**max(grade, 0) - 1`` (exponential); the
  ideal DCG is built from all truth grades of the group (also those below the threshold),
  cut at K; ndcg = 0 when the ideal DCG is 0;
- ``pool="restrict"`` first restricts a group's truth to the items among its candidates
  (the whole candidate list, not only the top K) — this changes ``R_g`` and the ideal DCG;
- a group in truth without any candidate row is a *missing* group: ``missing_groups``
  decides first (``"error"`` raises, ``"exclude"`` drops it, ``"zero"`` evaluates an empty
  ranking), then ``empty_truth`` applies to it like to any group with ``R_g = 0``;
- ``empty_truth``: ``"exclude"`` drops the group, ``"zero"`` scores recall,
  average_precision and r_precision 0 (the rest as defined), ``"nan"`` gives NaN values;
- ``short_lists``: precision@K is hits/K (``"fixed"``), hits/min(K, n_g) (``"observed"``, 0
  when n_g = 0); under ``"skip"`` a group with n_g < K has no row at that K for every K-metric
  (r_precision keeps its row);
- ``invalid_scores`` (null, NaN, ±inf): ``"error"`` raises, ``"drop"`` removes the rows before
  anything else (a group left with no rows is ranked empty, not "missing"), ``"lowest"``
  ranks them after every valid score, all in one tie block.

Output: ``{(group_key_tuple, metric, k_or_None): value}`` with the row presence of
``Evaluation.per_group``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

METRICS: tuple[str, ...] = (
    "precision",
    "recall",
    "f1",
    "hit_rate",
    "ndcg",
    "average_precision",
    "mrr",
    "r_precision",
)
K_METRICS: tuple[str, ...] = METRICS[:-1]

POLICY_DEFAULTS: dict[str, Any] = {
    "short_lists": "fixed",
    "ap_denominator": "relevant",
    "duplicates": "first",
    "ties": "trec_eval",
    "empty_truth": "exclude",
    "missing_groups": "zero",
    "pool": "all",
    "relevance_threshold": 1,
    "gain": "linear",
    "invalid_scores": "error",
}

#: The field values of ``Policy.trec_eval()``.
TREC_EVAL_POLICY: dict[str, Any] = {
    **POLICY_DEFAULTS,
    "empty_truth": "zero",
    "missing_groups": "zero",
    "ties": "trec_eval",
}

Key = tuple[Any, ...]
Result = dict[tuple[Key, str, "int | None"], float]


@dataclass(frozen=True)
class _Row:
    pos: int  # input position (0-based)
    item: Any
    valid: bool
    score: float

    @property
    def sort_score(self) -> tuple[int, float]:
        # invalid scores (under invalid_scores="lowest") rank after every valid one, tied
        return (1, self.score) if self.valid else (0, 0.0)


def _policy_dict(policy: Any) -> dict[str, Any]:
    if policy is None:
        return dict(POLICY_DEFAULTS)
    if isinstance(policy, Mapping):
        out = {**POLICY_DEFAULTS, **policy}
    else:
        out = {name: getattr(policy, name, default) for name, default in POLICY_DEFAULTS.items()}
    unknown = set(out) - set(POLICY_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown policy fields {sorted(unknown)}")
    return out


def _as_key(value: Any) -> Key:
    return value if isinstance(value, tuple) else (value,)


def _is_invalid(score: Any) -> bool:
    return score is None or (isinstance(score, float) and not math.isfinite(score))


def _gain(grade: float, kind: str) -> float:
    g = max(grade, 0)
    return float(g) if kind == "linear" else float(2**g - 1)


def _dcg(grades: Iterable[float], kind: str) -> float:
    return sum(_gain(g, kind) / math.log2(i + 2) for i, g in enumerate(grades))


def _tie_key(ties: str, row: _Row, grade: float, relevant: bool) -> Any:
    """Order inside a tie block, ascending (applied before the stable score sort)."""
    if ties == "trec_eval":
        # item id descending by byte order: negate via a reversed comparison below
        return str(row.item).encode()
    if ties == "item_asc":
        return row.item
    if ties in ("input_order", "expected"):
        return row.pos
    if ties == "pessimistic":
        return (relevant, grade, row.item)
    if ties == "optimistic":
        return (not relevant, -grade, row.item)
    raise ValueError(f"unknown ties policy {ties!r}")


def _orderings(
    rows: list[_Row], grades: Mapping[Any, float], threshold: float, ties: str, limit: int
) -> list[list[_Row]]:
    """Every ranking to average over: one, or (``"expected"``) all tie-block orderings."""

    def grade_of(r: _Row) -> float:
        return grades.get(r.item, 0)

    def rel_of(r: _Row) -> bool:
        return r.item in grades and grades[r.item] >= threshold

    ranked = sorted(
        rows,
        key=lambda r: _tie_key(ties, r, grade_of(r), rel_of(r)),
        reverse=ties == "trec_eval",
    )
    ranked = sorted(ranked, key=lambda r: r.sort_score, reverse=True)  # stable
    if ties != "expected":
        return [ranked]
    blocks = [list(b) for _, b in itertools.groupby(ranked, key=lambda r: r.sort_score)]
    count = math.prod(math.factorial(len(b)) for b in blocks)
    if count > limit:
        raise ValueError(f"ties='expected': {count} orderings to enumerate (limit {limit})")
    return [
        [row for block in combo for row in block]
        for combo in itertools.product(*(itertools.permutations(b) for b in blocks))
    ]


def _metrics_of_ranking(
    ranked_grades: Sequence[float],
    truth_grades: Sequence[float],
    threshold: float,
    ks: Sequence[int],
    p: Mapping[str, Any],
) -> dict[tuple[str, int | None], float]:
    """Every metric at every K for one fixed ranking (grades of the ranked rows)."""
    n = len(ranked_grades)
    rel = [g >= threshold for g in ranked_grades]
    n_rel = sum(1 for g in truth_grades if g >= threshold)
    ideal = sorted(truth_grades, reverse=True)
    out: dict[tuple[str, int | None], float] = {}
    for k in ks:
        top = rel[:k]
        hits = sum(top)
        if p["short_lists"] == "observed":
            precision = hits / min(k, n) if n > 0 else 0.0
        else:  # fixed, and skip (where the row exists, n >= k)
            precision = hits / k
        recall = hits / n_rel if n_rel > 0 else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        idcg = _dcg(ideal[:k], p["gain"])
        ndcg = _dcg(ranked_grades[:k], p["gain"]) / idcg if idcg > 0 else 0.0
        denom = n_rel if p["ap_denominator"] == "relevant" else min(k, n_rel)
        ap_sum = 0.0
        running = 0
        first = 0
        for i, is_rel in enumerate(top, start=1):
            if is_rel:
                running += 1
                ap_sum += running / i
                if not first:
                    first = i
        out["precision", k] = precision
        out["recall", k] = recall
        out["f1", k] = f1
        out["hit_rate", k] = 1.0 if hits > 0 else 0.0
        out["ndcg", k] = ndcg
        out["average_precision", k] = ap_sum / denom if denom > 0 else 0.0
        out["mrr", k] = 1.0 / first if first else 0.0
    out["r_precision", None] = sum(rel[:n_rel]) / n_rel if n_rel > 0 else 0.0
    return out


def _normalize_candidates(
    candidates: Sequence[Any],
    group_by: Sequence[str],
    item: str,
    score: str,
    relevance: str | None,
) -> list[tuple[Key, Any, Any, Any]]:
    """``(key, item, score, grade_or_None)`` per candidate row, in input order."""
    out = []
    for row in candidates:
        if isinstance(row, Mapping):
            key = tuple(row[g] for g in group_by)
            grade = row.get(relevance) if relevance is not None else None
            out.append((key, row[item], row[score], grade))
        else:
            grade = row[3] if len(row) > 3 else None
            out.append((_as_key(row[0]), row[1], row[2], grade))
    return out


def _normalize_truth(
    truth: Sequence[Any],
    group_by: Sequence[str],
    item: str,
    relevance: str | None,
) -> dict[Key, dict[Any, float]]:
    """``{key: {item: grade}}``; a repeated truth item keeps its largest grade."""
    out: dict[Key, dict[Any, float]] = {}
    for row in truth:
        if isinstance(row, Mapping):
            key = tuple(row[g] for g in group_by)
            it = row[item]
            grade = row[relevance] if relevance is not None and relevance in row else 1
        else:
            key, it = _as_key(row[0]), row[1]
            grade = row[2] if len(row) > 2 else 1
        items = out.setdefault(key, {})
        items[it] = max(items[it], grade) if it in items else grade
    return out


def evaluate(
    candidates: Sequence[Any],
    truth: Sequence[Any] | None,
    k: int | Sequence[int],
    *,
    group_by: str | Sequence[str] = "group",
    item: str = "item",
    score: str = "score",
    relevance: str | None = "relevance",
    policy: Any = None,
    metrics: Sequence[str] | None = None,
    max_orderings: int = 50_000,
) -> Result:
    """Evaluate like ``rk.evaluate(...).per_group``, by brute force.

    Parameters
    ----------
    candidates
        Rows as mappings (with the ``group_by``, ``item``, ``score`` and optionally
        ``relevance`` keys) or tuples ``(group, item, score[, relevance])`` where ``group``
        is a scalar or a tuple of key values. Row order is the input order.
    truth
        Rows as mappings or tuples ``(group, item[, relevance])``. ``None``: the truth is
        read from the candidates' relevance values (every candidate group is evaluated).
    k
        One cut-off or several.
    group_by, item, score, relevance
        Column names for mapping rows.
    policy
        A ``Policy``, a mapping of policy fields, or ``None`` for the defaults.
    metrics
        The metrics to return (default: all).
    max_orderings
        Refuse ``ties="expected"`` inputs needing more orderings than this.

    Returns
    -------
    dict
        ``{(group_key_tuple, metric, k_or_None): value}``.
    """
    p = _policy_dict(policy)
    group_cols = [group_by] if isinstance(group_by, str) else list(group_by)
    ks = sorted({k} if isinstance(k, int) else set(k))
    wanted = list(METRICS if metrics is None else metrics)
    threshold = p["relevance_threshold"]

    rows = _normalize_candidates(candidates, group_cols, item, score, relevance)
    if truth is None:
        truth_map: dict[Key, dict[Any, float]] = {}
        for key, it, _, grade in rows:
            items = truth_map.setdefault(key, {})
            g = 1 if grade is None else grade
            items[it] = max(items[it], g) if it in items else g
    else:
        truth_map = _normalize_truth(truth, group_cols, item, relevance)

    groups_with_rows = {key for key, *_ in rows}

    # duplicates="error" looks at the candidate table as given (before invalid scores are
    # dropped): a repeated (group, item) pair is an error even if one copy has a NaN score
    if p["duplicates"] == "error":
        pairs: set[tuple[Key, Any]] = set()
        for key, it, _, _ in rows:
            if (key, it) in pairs:
                raise ValueError(f"duplicated candidate: group {key!r}, item {it!r}")
            pairs.add((key, it))

    # invalid scores
    if p["invalid_scores"] == "error":
        for key, it, s, _ in rows:
            if _is_invalid(s):
                raise ValueError(f"invalid score {s!r} for group {key!r}, item {it!r}")
    per_group: dict[Key, list[_Row]] = {}
    for pos, (key, it, s, _) in enumerate(rows):
        invalid = _is_invalid(s)
        if invalid and p["invalid_scores"] == "drop":
            continue
        per_group.setdefault(key, []).append(
            _Row(pos, it, not invalid, 0.0 if invalid else float(s))
        )

    # duplicates
    for key, group_rows in per_group.items():
        seen: dict[Any, _Row] = {}
        for r in group_rows:
            if r.item in seen:
                if p["duplicates"] == "error":
                    raise ValueError(f"duplicated candidate: group {key!r}, item {r.item!r}")
                if p["duplicates"] == "first" and r.sort_score > seen[r.item].sort_score:
                    seen[r.item] = r
            else:
                seen[r.item] = r
        if p["duplicates"] == "first":
            kept = {id(r) for r in seen.values()}
            per_group[key] = [r for r in group_rows if id(r) in kept]

    result: Result = {}
    for key, grades_all in truth_map.items():
        if key not in groups_with_rows:
            if p["missing_groups"] == "error":
                raise ValueError(f"group {key!r} is in the truth but has no candidates")
            if p["missing_groups"] == "exclude":
                continue
        group_rows = per_group.get(key, [])
        if p["pool"] == "restrict":
            pool = {r.item for r in group_rows}
            grades = {it: g for it, g in grades_all.items() if it in pool}
        else:
            grades = dict(grades_all)
        n_rel = sum(1 for g in grades.values() if g >= threshold)
        if n_rel == 0 and p["empty_truth"] == "exclude":
            continue
        n = len(group_rows)
        orderings = _orderings(group_rows, grades, threshold, p["ties"], max_orderings)
        values: dict[tuple[str, int | None], list[float]] = {}
        for ranking in orderings:
            ranked_grades = [grades.get(r.item, 0) for r in ranking]
            for mk, v in _metrics_of_ranking(
                ranked_grades, list(grades.values()), threshold, ks, p
            ).items():
                values.setdefault(mk, []).append(v)
        for (metric, kk), vs in values.items():
            if metric not in wanted:
                continue
            if kk is not None and p["short_lists"] == "skip" and n < kk:
                continue
            if n_rel == 0 and p["empty_truth"] == "nan":
                value = math.nan
            else:
                value = math.fsum(vs) / len(vs)
            result[key, metric, kk] = value
    return result


def per_group_dict(
    frame: Any, group_by: str | Sequence[str], *, labels_as_metrics: bool = False
) -> Result:
    """``Evaluation.per_group`` (a Polars DataFrame or LazyFrame) as the reference's dict:
    ``{((keys...), metric, k): value}``; a repeated row is an error. With
    `labels_as_metrics`, a labelled row (``ndcg(gains={0:1,1:4})``: a name's parameters
    that the evaluation's policy does not set) is keyed by the metric its label reads back
    as, for references keyed by metric."""
    from polars_rankk.core.names.parse import parse_metric_name

    if hasattr(frame, "collect"):
        frame = frame.collect()
    cols = [group_by] if isinstance(group_by, str) else list(group_by)
    out: Result = {}
    for row in frame.iter_rows(named=True):
        metric = row["metric"]
        if labels_as_metrics and "(" in metric:
            metric = parse_metric_name(metric).metric
        key = (tuple(row[c] for c in cols), metric, row["k"])
        if key in out:
            raise AssertionError(f"duplicated per_group row {key}")
        out[key] = row["value"]
    return out


def assert_results_equal(
    actual: Result, expected: Result, *, tol: float = 1e-12, context: str = ""
) -> None:
    """Same keys, values equal within ``tol`` (absolute and relative); NaN equals NaN."""
    missing = sorted(map(repr, set(expected) - set(actual)))
    extra = sorted(map(repr, set(actual) - set(expected)))
    if missing or extra:
        raise AssertionError(
            f"{context}\nrows missing from actual ({len(missing)}): {missing[:10]}"
            f"\nunexpected rows in actual ({len(extra)}): {extra[:10]}"
        )
    bad = []
    for key, want in expected.items():
        got = actual[key]
        if math.isnan(want) and got is not None and math.isnan(got):
            continue
        if got is None or math.isnan(got) or not math.isclose(got, want, rel_tol=tol, abs_tol=tol):
            bad.append(f"{key}: actual {got!r}, expected {want!r}")
    if bad:
        raise AssertionError(f"{context}\n{len(bad)} values differ:\n" + "\n".join(bad[:20]))


def q_measure(
    run: Sequence[tuple[Any, float]],
    grades: Mapping[Any, float],
    *,
    k: int,
    beta: float = 1.0,
    threshold: float = 1.0,
    min_k: bool = False,
) -> float:
    """Sakai's Q-measure at K of one group, from its definition (NTCIR-4 2004; IP&M 2007).

    `run`: (item, score) rows (an item's highest score counts; ties by item ascending);
    `grades`: the group's truth. I(r) = 1 at a relevant rank (grade >= `threshold`), C(r) the
    relevant items in the top r, cg(r) the sum of their grades, cg*(r) the ideal ranking's (the
    relevant grades, highest first; cg*(R) past R). Q@K = Σ_{r <= K} I(r) (C(r) + β cg(r)) /
    (r + β cg*(r)) / R (or / min(K, R) with `min_k`); 0 when R = 0.
    """
    best: dict[Any, float] = {}
    for item, score in run:
        if item not in best or score > best[item]:
            best[item] = score
    ranking = sorted(best, key=lambda item: (-best[item], item))
    ideal = sorted((g for g in grades.values() if g >= threshold), reverse=True)
    n_relevant = len(ideal)
    if n_relevant == 0:
        return 0.0
    ideal_cg = list(itertools.accumulate(max(g, 0.0) for g in ideal))
    total = hits = gain = 0.0
    for position, item in enumerate(ranking[:k], start=1):
        grade = grades.get(item)
        if grade is None or grade < threshold:
            continue
        hits += 1
        gain += max(grade, 0.0)
        total += (hits + beta * gain) / (position + beta * ideal_cg[min(position, n_relevant) - 1])
    return total / (min(k, n_relevant) if min_k else n_relevant)
