"""The names users type (issue 14): ir_measures and trec_eval spellings parse to the registry."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.names import accepted_names, parse_metric_name, resolve_metric_names

SPELLINGS = {
    "P@5": ("precision", 5),
    "R@100": ("recall", 100),
    "nDCG@10": ("ndcg", 10),
    "AP@10": ("average_precision", 10),
    "AP": ("average_precision", None),
    "RR": ("mrr", None),
    "RR@10": ("mrr", 10),
    "Success@5": ("hit_rate", 5),
    "Rprec": ("r_precision", None),
    "Bpref": ("bpref", None),
    "ERR@20": ("err", 20),
    "RBP(p=0.9)@10": ("rbp", 10),
    "Judged@10": ("judged", 10),
    "nDCG(judged_only=True)@10": ("ndcg", 10),
    "P_5": ("precision", 5),
    "recall_100": ("recall", 100),
    "ndcg_cut_10": ("ndcg", 10),
    "map_cut_10": ("average_precision", 10),
    "map": ("average_precision", None),
    "recip_rank": ("mrr", None),
    "success_5": ("hit_rate", 5),
    "bpref": ("bpref", None),
}


@pytest.mark.parametrize("text", SPELLINGS)
def test_each_spelling_parses(text: str) -> None:
    request = parse_metric_name(text)
    assert (request.metric, request.k) == SPELLINGS[text]


def test_every_documented_spelling_parses() -> None:
    for spelling, _, _ in accepted_names():
        parse_metric_name(spelling.replace("@K", "@3").replace("_K", "_3"))


def test_parameters_set_the_policy_and_conflicts_raise() -> None:
    _, ks, policy = resolve_metric_names(["RBP(p=0.9)@10", "nDCG(judged_only=True)@5"])
    assert ks == (5, 10)
    assert policy.rbp_persistence == 0.9
    assert policy.unjudged == "condense"
    with pytest.raises(ValueError, match="one evaluation has one policy"):
        resolve_metric_names(["RBP(p=0.9)@10", "RBP(p=0.5)@10"])
    with pytest.raises(ValueError, match="policy given"):
        resolve_metric_names(["RBP(p=0.9)@10"], rk.Policy(rbp_persistence=0.7))
    with pytest.raises(ValueError, match="no cut-off"):
        parse_metric_name("Bpref@10")
    with pytest.raises(ValueError, match="unknown metric name 'accuracy'"):
        parse_metric_name("accuracy")


def test_evaluate_adds_named_cutoffs_and_renders_names_back() -> None:
    cand = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"q": [1], "item": [2], "relevance": [1]})
    res = rk.evaluate(cand, truth, k=1, group_by="q", metrics=["P@5", "ndcg_cut_2", "bpref"])
    assert res.ks == [1, 2, 5]
    summary = res.summary(names="ir_measures")
    assert {"P@5", "nDCG@2", "Bpref"} <= set(summary["metric"])
    assert "ndcg_cut_2" in set(res.summary(names="trec_eval")["metric"])
