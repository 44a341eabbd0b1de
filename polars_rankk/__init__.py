"""polars-rankk: top-K ranking metrics computed inside Polars, every choice an explicit policy.

>>> import polars as pl, polars_rankk as rk
>>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.3, 0.5]})
>>> truth = pl.DataFrame({"user": [1, 2], "item": [11, 12]})
>>> rk.evaluate(candidates, truth, k=1, metrics="hit_rate", group_by="user").summary()["value"][0]
0.5
"""

from polars_rankk import namespace as _namespace  # registers the `rankk` namespaces
from polars_rankk.diagnostics import Diagnostics
from polars_rankk.evaluate import Evaluation, evaluate
from polars_rankk.expressions import (
    average_precision_at_k,
    f1_at_k,
    hit_rate_at_k,
    mrr_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from polars_rankk.io import read_trec_qrels, read_trec_run
from polars_rankk.metrics import METRIC_DEFINITIONS
from polars_rankk.policy import Policy
from polars_rankk.validate import METRICS

__all__ = [
    "METRICS",
    "METRIC_DEFINITIONS",
    "Diagnostics",
    "Evaluation",
    "Policy",
    "average_precision_at_k",
    "evaluate",
    "f1_at_k",
    "hit_rate_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k",
]
__version__ = "0.1.0"
del _namespace
