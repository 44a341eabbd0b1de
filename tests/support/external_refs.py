"""Adapters from a ranking case (tests/ranking_cases.py) to third-party evaluators.

Each returns the reference's result format ``{(group_key_tuple, metric, k): value}`` for the
metrics that tool computes, with that tool's conventions stated where they differ.

pytrec_eval (trec_eval 9.x compiled in; conventions checked in test_reference_selfcheck.py):

- a query's run is a ``{docno: score}`` dict, so a run cannot hold duplicates: we pass the
  highest score of each item (``duplicates="first"``);
- ties are broken by docno descending (``strcmp`` on the UTF-8 bytes) — ``ties="trec_eval"``;
  docnos are strings, so int ids are passed as ``str(id)``;
- no ``-c`` flag: a qrels query absent from the run is not reported. Passing an empty dict
  for it reproduces ``-c`` (it is then scored as an empty ranking, all zeros);
- a run query absent from the qrels is not reported (``empty`` groups never evaluated);
- ``relevance_level`` is the binary threshold; ``ndcg_cut`` ignores it and uses raw grades;
- no ``-M``: ``recip_rank`` looks at the whole list, so ``mrr@K`` is computed on the run
  truncated to its first K results in trec_eval order;
- queries whose judgments hold no relevant item score 0 everywhere (``empty_truth="zero"``),
  except ndcg_cut, which can be > 0 from grades below ``relevance_level``;
- trec_eval has no F1@K: f1 is derived from ``P_k`` and ``recall_k``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Result = dict[tuple[tuple[Any, ...], str, "int | None"], float]


def _key(row: dict[str, Any], group_by: Sequence[str]) -> tuple[Any, ...]:
    return tuple(row[c] for c in group_by)


def _trec_order(items: dict[str, float]) -> list[str]:
    """Docnos in trec_eval order: score descending, ties by docno descending (bytes)."""
    by_docno = sorted(items, key=lambda d: d.encode(), reverse=True)
    return sorted(by_docno, key=lambda d: items[d], reverse=True)


def trec_dicts(
    case: dict[str, Any],
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]], dict[str, tuple[Any, ...]]]:
    """qrels and run dicts for pytrec_eval (``-c`` emulated), and qid -> group key."""
    group_by = case["group_by"]
    qid_of: dict[tuple[Any, ...], str] = {}

    def qid(key: tuple[Any, ...]) -> str:
        return qid_of.setdefault(key, f"q{len(qid_of)}")

    qrels: dict[str, dict[str, int]] = {}
    for row in case["truth"]:
        qrels.setdefault(qid(_key(row, group_by)), {})[str(row["item"])] = int(row["relevance"])
    run: dict[str, dict[str, float]] = {q: {} for q in qrels}  # -c: every qrels query
    for row in case["candidates"]:
        docs = run.setdefault(qid(_key(row, group_by)), {})
        docno, score = str(row["item"]), float(row["score"])
        docs[docno] = max(docs.get(docno, -math.inf), score)
    return qrels, run, {q: key for key, q in qid_of.items()}


def pytrec_eval_results(case: dict[str, Any], ks: Sequence[int], threshold: int = 1) -> Result:
    """pytrec_eval's per-query values under ``Policy.trec_eval(relevance_threshold=...)``."""
    import pytrec_eval

    qrels, run, key_of = trec_dicts(case)
    cuts = ",".join(str(k) for k in ks)
    measures = {f"P.{cuts}", f"recall.{cuts}", f"ndcg_cut.{cuts}", f"map_cut.{cuts}"}
    measures |= {f"success.{cuts}", "Rprec"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=threshold)
    raw = evaluator.evaluate(run)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=threshold)
    out: Result = {}
    for q, values in raw.items():
        key = key_of[q]
        for k in ks:
            p, r = values[f"P_{k}"], values[f"recall_{k}"]
            out[key, "precision", k] = p
            out[key, "recall", k] = r
            out[key, "f1", k] = 2 * p * r / (p + r) if p + r > 0 else 0.0
            out[key, "hit_rate", k] = values[f"success_{k}"]
            out[key, "ndcg", k] = values[f"ndcg_cut_{k}"]
            out[key, "average_precision", k] = values[f"map_cut_{k}"]
        out[key, "r_precision", None] = values["Rprec"]
    for k in ks:
        truncated = {q: dict.fromkeys(_trec_order(docs)[:k], 0.0) for q, docs in run.items()}
        # equal fake scores would re-sort by docno: keep the order with decreasing scores
        truncated = {
            q: {d: float(len(docs) - i) for i, d in enumerate(docs)}
            for q, docs in truncated.items()
        }
        for q, values in rr.evaluate(truncated).items():
            out[key_of[q], "mrr", k] = values["recip_rank"]
    return out
