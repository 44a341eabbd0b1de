"""polars-rankk: top-K ranking metrics computed inside Polars, every choice an explicit policy.

>>> import polars as pl, polars_rankk as rk
>>> candidates = pl.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "score": [0.9, 0.3, 0.5]})
>>> truth = pl.DataFrame({"user": [1, 2], "item": [11, 12]})
>>> rk.evaluate(candidates, truth, k=1, metrics="hit_rate", group_by="user").summary()["value"][0]
0.5
"""

from polars_rankk.evaluate import Evaluation, evaluate
from polars_rankk.metrics import METRIC_DEFINITIONS
from polars_rankk.policy import Policy
from polars_rankk.validate import METRICS

__all__ = [
    "METRICS",
    "METRIC_DEFINITIONS",
    "Evaluation",
    "Policy",
    "evaluate",
]
__version__ = "0.1.0"
