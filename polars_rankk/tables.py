"""Results as tables to publish: one row per system, Markdown and LaTeX with the best in bold.

`systems_table` puts several evaluations side by side (systems × metric@K). `to_markdown` and
`to_latex` format a summary, a systems table or a `polars_rankk.compare` output: the best
value of each column in bold and, for comparisons, superscript letters as ranx does — each
system gets a letter (a, b, c… in the order given) and a value carries the letters of the
systems it is significantly better than.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from string import ascii_lowercase
from typing import Any

import polars as pl

from polars_rankk.core import LOWER_IS_BETTER, METRICS, Evaluation
from polars_rankk.core.evaluation.display import Grid, evaluation_grid, summary_grid
from polars_rankk.core.evaluation.display import to_latex as grid_latex
from polars_rankk.core.evaluation.display import to_markdown as grid_markdown

__all__ = ["systems_table", "to_latex", "to_markdown"]


def systems_table(
    systems: Mapping[str, Evaluation | pl.DataFrame] | pl.DataFrame,
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
) -> pl.DataFrame:
    """One row per system, one column per ``metric@K``: the macro means side by side.

    Parameters
    ----------
    systems
        ``{name: evaluation or summary}`` in the order to show, or one long table with
        ``system, metric, k, value`` (e.g. `polars_rankk.curve_of_evaluations` output).
    metrics, k
        Keep only these.

    Returns
    -------
    pl.DataFrame
        ``system`` then ``metric@k`` columns (``r_precision`` without ``@``), systems in the
        order given, metrics in the library's order.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"q": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    >>> truth = pl.DataFrame({"q": [1], "item": [2]})
    >>> runs = {name: rk.evaluate(candidates.with_columns(score=s), truth, k=[1, 2],
    ...                           metrics="hit_rate", group_by="q")
    ...         for name, s in {"good": pl.col("item"), "bad": -pl.col("item")}.items()}
    >>> rk.systems_table(runs)
    shape: (2, 3)
    ┌────────┬────────────┬────────────┐
    │ system ┆ hit_rate@1 ┆ hit_rate@2 │
    │ ---    ┆ ---        ┆ ---        │
    │ str    ┆ f64        ┆ f64        │
    ╞════════╪════════════╪════════════╡
    │ good   ┆ 1.0        ┆ 1.0        │
    │ bad    ┆ 0.0        ┆ 1.0        │
    └────────┴────────────┴────────────┘
    """
    long = _long_table(systems)
    if metrics is not None:
        long = long.filter(
            pl.col("metric").is_in([metrics] if isinstance(metrics, str) else list(metrics))
        )
    if k is not None:
        ks = [k] if isinstance(k, int) else list(k)
        long = long.filter(pl.col("k").is_in(ks) | pl.col("k").is_null())
    if long.height == 0:
        raise ValueError("systems_table: nothing left (check metrics= and k=)")
    rank = pl.col("metric").replace_strict({m: i for i, m in enumerate(METRICS)}, default=99)
    label = _column_label().alias("label")
    names = long.get_column("system").unique(maintain_order=True).to_list()
    labelled = long.with_columns(label)
    labels = (
        labelled.sort([rank, "metric", "k"], nulls_last=True)
        .get_column("label")
        .unique(maintain_order=True)
        .to_list()
    )
    wide = labelled.pivot(on="label", index="system", values="value")
    order = pl.DataFrame({"system": names}).with_row_index("_order")
    return wide.join(order, on="system", how="left").sort("_order").select("system", *labels)


def to_markdown(
    table: Any,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    p_value: str = "p_adjusted",
    ci: bool = False,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> str:
    """A summary, systems table or comparison as Markdown, the best per column in bold.

    With ``ci=True`` every value is followed by its confidence interval, ``[low, high]``:
    bootstrapped over groups (`polars_rankk.bootstrap`) for evaluations, read from the
    ``ci_low``/``ci_high`` columns of a table that has them (``rk.bootstrap`` output, a
    K-curve), and for a comparison the interval of each system's paired difference to the
    baseline.

    Parameters
    ----------
    table
        An `Evaluation` or its ``summary()`` (metrics × K); ``{name: evaluation}`` or a
        `systems_table` (systems × metric@K); or a `polars_rankk.compare` output (the
        means of every system, with superscript letters for significant differences).
    digits
        Decimals shown.
    alpha, p_value
        For comparisons: a difference is significant when ``p_value`` (the adjusted p-value
        by default) is below ``alpha``.
    ci
        Show each value's confidence interval.
    confidence, n_resamples, seed
        The bootstrap of evaluations (``confidence`` also names the level in the note).

    Returns
    -------
    str

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> candidates = pl.DataFrame({"q": [1, 1, 2, 2, 3, 3], "item": [1, 2, 1, 2, 1, 2],
    ...                            "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0]})
    >>> truth = pl.DataFrame({"q": [1, 2, 3], "item": [1, 2, 1]})
    >>> res = rk.evaluate(candidates, truth, k=1, metrics="hit_rate", group_by="q")
    >>> print(rk.to_markdown(res, ci=True, digits=2, n_resamples=200))
    | metric | @1 |
    |:---|---:|
    | hit_rate | 0.33 [0.00, 1.00] |
    <BLANKLINE>
    Brackets: 95% bootstrap confidence interval (resampling groups).
    >>> a = pl.DataFrame({"user": range(8), "metric": "ndcg", "k": 10,
    ...                   "value": [0.2, 0.5, 0.1, 0.4, 0.3, 0.6, 0.2, 0.1]})
    >>> b = a.with_columns(pl.col("value") + 0.1)
    >>> print(rk.to_markdown(rk.compare({"base": a, "new": b}, baseline="base"), digits=2))
    | system | ndcg@10 |
    |:---|---:|
    | a) base | 0.30 |
    | b) new | **0.40**<sup>a</sup> |
    <BLANKLINE>
    Bold: the best per column. Superscript: better than that system (p_adjusted < 0.05).
    """
    intervals = Intervals(confidence, n_resamples, seed) if ci else None
    return grid_markdown(grid_of(table, alpha, p_value, intervals), digits)


def to_latex(
    table: Any,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    p_value: str = "p_adjusted",
    caption: str | None = None,
    label: str | None = None,
    ci: bool = False,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> str:
    r"""A summary, systems table or comparison as a LaTeX table (booktabs), best in bold.

    Takes what `to_markdown` takes; the notes become the caption unless `caption` is given.
    With ``ci=True`` each value is followed by its interval in ``\scriptsize``.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> table = pl.DataFrame({"system": ["A", "B"], "ndcg@10": [0.31, 0.35]})
    >>> for line in rk.to_latex(table, digits=2).splitlines()[6:8]:
    ...     print(line)
    A & 0.31 \\
    B & \textbf{0.35} \\
    >>> summary = pl.DataFrame({"metric": "ndcg", "k": 10, "value": [0.31],
    ...                         "ci_low": [0.28], "ci_high": [0.34]})
    >>> print(rk.to_latex(summary, digits=2, ci=True).splitlines()[6])
    ndcg & 0.31 {\scriptsize [0.28, 0.34]} \\
    """
    intervals = Intervals(confidence, n_resamples, seed) if ci else None
    return grid_latex(grid_of(table, alpha, p_value, intervals), digits, caption, label)


@dataclass(frozen=True)
class Intervals:
    """How to find the intervals `to_markdown` and `to_latex` show (``ci=True``)."""

    confidence: float
    n_resamples: int
    seed: int | None

    def note(self, what: str = "bootstrap confidence interval (resampling groups)") -> str:
        return f"Brackets: {self.confidence * 100:g}% {what}."

    def of(self, evaluation: Evaluation) -> pl.DataFrame:
        """The evaluation's summary with ``ci_low`` and ``ci_high`` (`rk.bootstrap`)."""
        from polars_rankk.stats import bootstrap

        bounds = bootstrap(
            evaluation,
            n_resamples=self.n_resamples,
            confidence=self.confidence,
            seed=self.seed,
        ).select("metric", "k", "ci_low", "ci_high")
        return evaluation.summary().join(
            bounds, on=["metric", "k"], how="left", nulls_equal=True, maintain_order="left"
        )


def _with_intervals(table: pl.DataFrame, intervals: Intervals | None) -> pl.DataFrame:
    """`table`, refusing ``ci=True`` when it has no ``ci_low``/``ci_high``."""
    if intervals is not None and not {"ci_low", "ci_high"} <= set(table.columns):
        raise ValueError(
            "ci=True: the table has no ci_low/ci_high columns; pass the evaluation itself, "
            "{name: evaluation}, or rk.bootstrap(...) output"
        )
    return table if intervals is not None else table.drop("ci_low", "ci_high", strict=False)


def grid_of(table: Any, alpha: float, p_value: str, intervals: Intervals | None = None) -> Grid:
    """The grid to format, whatever the kind of table (with intervals when asked)."""
    grid = _grid_of(table, alpha, p_value, intervals)
    if intervals is None:
        return grid
    what = (
        "bootstrap interval of the paired difference to the baseline"
        if grid.signed_intervals
        else "bootstrap confidence interval (resampling groups)"
    )
    return replace(grid, notes=[*grid.notes, intervals.note(what)])


def _grid_of(table: Any, alpha: float, p_value: str, intervals: Intervals | None) -> Grid:
    if isinstance(table, Evaluation) and table.system is not None:
        # Several systems: one row each, as `{name: evaluation}` shows them.
        grid = (
            evaluation_grid(table.summary(), table.system)
            if intervals is None
            else _grid_of(table.by_system(), alpha, p_value, intervals)
        )
        return replace(grid, corner=table.system)
    if isinstance(table, Evaluation):
        return summary_grid(table.summary() if intervals is None else intervals.of(table))
    if isinstance(table, Mapping):
        if intervals is None:
            return systems_grid(systems_table(table))
        summaries = {
            name: intervals.of(value) if isinstance(value, Evaluation) else value
            for name, value in table.items()
        }
        return long_grid(_with_intervals(_long_table(summaries), intervals))
    if isinstance(table, pl.LazyFrame):
        table = table.collect()
    if not isinstance(table, pl.DataFrame):
        raise TypeError(
            "to_markdown / to_latex take an evaluation, a summary, {name: evaluation}, a "
            f"systems_table or a compare output; got {type(table).__name__}"
        )
    columns = set(table.columns)
    if {"baseline", "system", "metric", "k", "mean", "baseline_mean"} <= columns:
        return comparison_grid(table, alpha, p_value, with_intervals=intervals is not None)
    if {"system", "metric", "k", "value"} <= columns:
        return long_grid(_with_intervals(_long_table(table), intervals))
    if {"metric", "k", "value"} <= columns:
        system = _system_of_summary(table)
        if system is not None:
            # An `evaluate(..., system=)` summary: one row per system, as the evaluation shows.
            long = _long_table(table.rename({system: "system"}))
            return replace(long_grid(_with_intervals(long, intervals)), corner=system)
        return summary_grid(_with_intervals(table, intervals))
    if "system" in columns:
        if intervals is not None:
            _with_intervals(table, intervals)  # a wide table has none: the error says so
        return systems_grid(table)
    raise ValueError(
        "to_markdown / to_latex: expected a summary (metric, k, value), a systems table "
        f"(system, metric@k…) or a compare output; got columns {table.columns}"
    )


def _system_of_summary(summary: pl.DataFrame) -> str | None:
    """The system column of a summary of several systems: the one column before ``metric``
    (`Evaluation.summary` puts it first); None for one system's summary."""
    before = summary.columns[: summary.columns.index("metric")]
    if len(before) > 1:
        raise ValueError(
            f"to_markdown / to_latex: a summary has at most one column before 'metric' (the "
            f"system column of evaluate(..., system=)); got {before}"
        )
    return before[0] if before else None


def systems_grid(table: pl.DataFrame) -> Grid:
    """A systems table (``system, metric@k…``) as a grid."""
    columns = [c for c in table.columns if c != "system"]
    numeric = [c for c in columns if table.schema[c].is_numeric()]
    rows = [str(s) for s in table.get_column("system").to_list()]
    values = [list(row) for row in table.select(numeric).iter_rows()]
    return Grid("system", rows, numeric, values, notes=["Bold: the best per column."])


def long_grid(table: pl.DataFrame) -> Grid:
    """``system, metric, k, value[, ci_low, ci_high]`` as systems × metric@K, with the
    intervals when the table has them."""
    grid = systems_grid(systems_table(table))
    if "ci_low" not in table.columns:
        return grid
    return replace(grid, intervals=_interval_cells(table, grid))


def _column_label() -> pl.Expr:
    """A grid column's label: ``metric@k``, or the metric alone without a cut-off."""
    return (
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
    )


def _interval_cells(
    table: pl.DataFrame, grid: Grid
) -> list[list[tuple[float | None, float | None] | None]]:
    """Each grid cell's ``(ci_low, ci_high)`` from a long ``system, metric, k`` table."""
    bounds = {
        (str(system), str(column)): (low, high)
        for system, column, low, high in table.select(
            "system", _column_label().alias("label"), "ci_low", "ci_high"
        ).iter_rows()
    }
    return [[bounds.get((row, column)) for column in grid.columns] for row in grid.rows]


def comparison_grid(
    comparison: pl.DataFrame, alpha: float, p_value: str, *, with_intervals: bool = False
) -> Grid:
    """A compare output as systems × metric@K means, with ranx-style significance letters
    (and, `with_intervals`, each challenger's interval of its difference to the baseline)."""
    if p_value not in comparison.columns:
        raise ValueError(
            f"p_value={p_value!r} is not a column of the comparison; its p-values: "
            f"{[c for c in comparison.columns if c.startswith('p_')]}"
        )
    rows = comparison.select(
        pl.col("baseline").cast(pl.String),
        pl.col("system").cast(pl.String),
        "metric",
        "k",
        "baseline_mean",
        "mean",
        "diff",
        pl.col(p_value).alias("_p"),
        *(["ci_low", "ci_high"] if with_intervals else []),
    )
    names = [
        str(n)
        for n in pl.concat([rows.get_column("baseline"), rows.get_column("system")])
        .unique(maintain_order=True)
        .to_list()
    ]
    baseline_means = rows.select(
        pl.col("baseline").alias("system"), "metric", "k", pl.col("baseline_mean").alias("value")
    )
    system_means = rows.select("system", "metric", "k", pl.col("mean").alias("value"))
    means = pl.concat([baseline_means, system_means]).unique(
        ["system", "metric", "k"], keep="first", maintain_order=True
    )
    order = pl.DataFrame({"system": names}).with_row_index("_o")
    table = systems_table(means).join(order, on="system").sort("_o").drop("_o")
    letters = {name: ascii_lowercase[i % 26] for i, name in enumerate(names)}
    # A lower-is-better metric's winner is the system with the smaller mean.
    lower = pl.col("metric").is_in(list(LOWER_IS_BETTER))
    better = (pl.col("diff") > 0) ^ lower
    winners = rows.filter((pl.col("_p") < alpha).fill_null(False) & (pl.col("diff") != 0)).select(
        pl.when(better).then(pl.col("system")).otherwise(pl.col("baseline")).alias("winner"),
        pl.when(better).then(pl.col("baseline")).otherwise(pl.col("system")).alias("loser"),
        _column_label().alias("label"),
    )
    beaten: dict[tuple[str, str], set[str]] = {}
    for winner, loser, label in winners.iter_rows():
        beaten.setdefault((winner, label), set()).add(letters[loser])
    grid = systems_grid(table)
    marks = [
        ["".join(sorted(beaten.get((system, column), set()))) for column in grid.columns]
        for system in grid.rows
    ]
    note = (
        f"Bold: the best per column. Superscript: better than that system ({p_value} < {alpha:g})."
    )
    intervals = _interval_cells(rows, grid) if with_intervals else []
    return Grid(
        "system",
        [f"{letters[s]}) {s}" for s in grid.rows],
        grid.columns,
        grid.values,
        marks=marks,
        notes=[note],
        intervals=intervals,
        signed_intervals=True,
    )


def _long_table(systems: Mapping[str, Evaluation | pl.DataFrame] | pl.DataFrame) -> pl.DataFrame:
    """``system, metric, k, value`` from evaluations, summaries or one long table."""
    if isinstance(systems, pl.DataFrame):
        missing = [c for c in ("system", "metric", "k", "value") if c not in systems.columns]
        if missing:
            raise ValueError(
                f"systems_table needs columns ['system', 'metric', 'k', 'value'] in the table; "
                f"missing {missing} (got {systems.columns})"
            )
        return systems.select(
            pl.col("system").cast(pl.String),
            pl.col("metric").cast(pl.String),
            pl.col("k").cast(pl.Int64),
            pl.col("value").cast(pl.Float64),
            *(pl.col(c).cast(pl.Float64) for c in ("ci_low", "ci_high") if c in systems.columns),
        )
    if not isinstance(systems, Mapping) or not systems:
        raise TypeError(
            "systems_table takes {name: evaluation or summary} or a table with "
            f"system, metric, k, value; got {type(systems).__name__}"
        )
    parts = []
    for name, result in systems.items():
        summary = result.summary() if isinstance(result, Evaluation) else result
        if not isinstance(summary, pl.DataFrame) or not {"metric", "k", "value"} <= set(
            summary.columns
        ):
            raise TypeError(
                f"systems[{name!r}] must be an evaluation or a summary (metric, k, value); "
                f"got {type(result).__name__}"
            )
        bounds = [c for c in ("ci_low", "ci_high") if c in summary.columns]
        parts.append(
            summary.select(
                pl.lit(str(name)).alias("system"),
                pl.col("metric").cast(pl.String),
                pl.col("k").cast(pl.Int64),
                pl.col("value").cast(pl.Float64),
                *(pl.col(c).cast(pl.Float64) for c in bounds),
            )
        )
    return pl.concat(parts, how="diagonal")
