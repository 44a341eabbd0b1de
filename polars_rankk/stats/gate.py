"""A regression gate: is a new system reliably worse than the baseline on one metric?

"Reliably worse" reads the interval of the paired mean difference that `compare` reports
(``ci_low``, ``ci_high``, system − baseline): for a metric where higher is better the system
is reliably worse when the whole interval lies below ``−margin`` (``ci_high < −margin``);
where lower is better, when it lies above ``margin``. A difference whose interval reaches into
the margin, or that has no interval (fewer than 2 groups), does not fail the gate: the data do
not show a regression larger than the margin. ``rankk compare … --fail-if-worse ndcg@10
--margin 0.005`` exits with status 1 when some system is reliably worse, for CI pipelines.
"""

from __future__ import annotations

import polars as pl

from polars_rankk.core import higher_is_better
from polars_rankk.core.names.parse import parse_metric_name


def reliably_worse(comparison: pl.DataFrame, metric: str, *, margin: float = 0.0) -> pl.DataFrame:
    """The rows of a `compare` table where the system is reliably worse than its baseline on
    `metric` (a name in any accepted spelling, with its cut-off: ``"ndcg@10"``, ``"P_5"``).

    Raises a ValueError when the comparison has no row for that metric and cut-off, or when
    `margin` is negative.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.gate import reliably_worse
    >>> table = pl.DataFrame({"metric": ["ndcg", "ndcg"], "k": [10, 10], "baseline": "A",
    ...                       "system": ["B", "C"], "diff": [-0.03, -0.004],
    ...                       "ci_low": [-0.05, -0.02], "ci_high": [-0.01, 0.01]})
    >>> reliably_worse(table, "nDCG@10", margin=0.005)["system"].to_list()
    ['B']
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise ValueError(f"margin must be a number >= 0; got {margin!r}")
    request = parse_metric_name(metric)
    k = pl.col("k").is_null() if request.k is None else pl.col("k") == request.k
    rows = comparison.filter((pl.col("metric") == request.metric) & k)
    if not rows.height:
        present = comparison.select(
            pl.when(pl.col("k").is_null())
            .then(pl.col("metric"))
            .otherwise(pl.format("{}@{}", "metric", "k"))
            .unique(maintain_order=True)
        ).to_series()
        raise ValueError(
            f"the comparison has no {metric!r} (metric {request.metric!r}, k={request.k}); it "
            f"has {present.to_list()}"
        )
    if higher_is_better(request.metric):
        worse = pl.col("ci_high") < -margin
    else:
        worse = pl.col("ci_low") > margin
    return rows.filter(worse.fill_null(False))


def gate_verdict(
    comparison: pl.DataFrame, metric: str, *, margin: float = 0.0, confidence: float = 0.95
) -> tuple[bool, str]:
    """Whether some system is reliably worse on `metric` (see `reliably_worse`), and one line
    that says which, or that none is.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.gate import gate_verdict
    >>> table = pl.DataFrame({"metric": ["ndcg"], "k": [10], "baseline": "A", "system": ["B"],
    ...                       "diff": [-0.03], "ci_low": [-0.05], "ci_high": [-0.01]})
    >>> failed, line = gate_verdict(table, "ndcg@10", margin=0.005)
    >>> failed, line.split(": ")[0]
    (True, 'B is reliably worse than A on ndcg@10')
    >>> line.split(": ")[1]
    'diff -0.0300, 95% interval [-0.0500, -0.0100] lies below -0.005'
    """
    worse = reliably_worse(comparison, metric, margin=margin)
    level = f"{confidence * 100:g}%"
    if not worse.height:
        baselines = ", ".join(comparison["baseline"].unique(maintain_order=True).to_list())
        return (
            False,
            f"no system is reliably worse than {baselines} on {metric} (margin {margin:g})",
        )
    higher = higher_is_better(parse_metric_name(metric).metric)
    side = f"below {0.0 - margin:g}" if higher else f"above {margin:g}"
    parts = [
        f"{row['system']} is reliably worse than {row['baseline']} on {metric}: diff "
        f"{row['diff']:+.4f}, {level} interval [{row['ci_low']:+.4f}, {row['ci_high']:+.4f}] "
        f"lies {side}"
        for row in worse.iter_rows(named=True)
    ]
    return True, "; ".join(parts)
