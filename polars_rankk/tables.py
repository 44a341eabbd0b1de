"""Results as tables to publish: one row per system, Markdown and LaTeX with the best in bold.

`systems_table` puts several evaluations side by side (systems × metric@K). `to_markdown` and
`to_latex` format a summary, a systems table or a `polars_rankk.compare` output: the best
value of each column in bold and, for comparisons, superscript letters as ranx does — each
system gets a letter (a, b, c… in the order given) and a value carries the letters of the
systems it is significantly better than.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from string import ascii_lowercase
from typing import Any

import polars as pl

from polars_rankk.core import LOWER_IS_BETTER, METRICS, Evaluation
from polars_rankk.core.display import Grid, summary_grid
from polars_rankk.core.display import to_latex as grid_latex
from polars_rankk.core.display import to_markdown as grid_markdown

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
    label = (
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("label")
    )
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
    table: Any, *, digits: int = 4, alpha: float = 0.05, p_value: str = "p_adjusted"
) -> str:
    """A summary, systems table or comparison as Markdown, the best per column in bold.

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

    Returns
    -------
    str

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
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
    return grid_markdown(grid_of(table, alpha, p_value), digits)


def to_latex(
    table: Any,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    p_value: str = "p_adjusted",
    caption: str | None = None,
    label: str | None = None,
) -> str:
    r"""A summary, systems table or comparison as a LaTeX table (booktabs), best in bold.

    Takes what `to_markdown` takes; the notes become the caption unless `caption` is given.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> table = pl.DataFrame({"system": ["A", "B"], "ndcg@10": [0.31, 0.35]})
    >>> for line in rk.to_latex(table, digits=2).splitlines()[6:8]:
    ...     print(line)
    A & 0.31 \\
    B & \textbf{0.35} \\
    """
    return grid_latex(grid_of(table, alpha, p_value), digits, caption, label)


def grid_of(table: Any, alpha: float, p_value: str) -> Grid:
    """The grid to format, whatever the kind of table."""
    if isinstance(table, Evaluation):
        return summary_grid(table.summary())
    if isinstance(table, Mapping):
        return systems_grid(systems_table(table))
    if isinstance(table, pl.LazyFrame):
        table = table.collect()
    if not isinstance(table, pl.DataFrame):
        raise TypeError(
            "to_markdown / to_latex take an evaluation, a summary, {name: evaluation}, a "
            f"systems_table or a compare output; got {type(table).__name__}"
        )
    columns = set(table.columns)
    if {"baseline", "system", "metric", "k", "mean", "baseline_mean"} <= columns:
        return comparison_grid(table, alpha, p_value)
    if {"system", "metric", "k", "value"} <= columns:
        return systems_grid(systems_table(table))
    if {"metric", "k", "value"} <= columns:
        return summary_grid(table)
    if "system" in columns:
        return systems_grid(table)
    raise ValueError(
        "to_markdown / to_latex: expected a summary (metric, k, value), a systems table "
        f"(system, metric@k…) or a compare output; got columns {table.columns}"
    )


def systems_grid(table: pl.DataFrame) -> Grid:
    """A systems table (``system, metric@k…``) as a grid."""
    columns = [c for c in table.columns if c != "system"]
    numeric = [c for c in columns if table.schema[c].is_numeric()]
    rows = [str(s) for s in table.get_column("system").to_list()]
    values = [list(row) for row in table.select(numeric).iter_rows()]
    return Grid("system", rows, numeric, values, notes=["Bold: the best per column."])


def comparison_grid(comparison: pl.DataFrame, alpha: float, p_value: str) -> Grid:
    """A compare output as systems × metric@K means, with ranx-style significance letters."""
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
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
        .alias("label"),
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
    return Grid(
        "system",
        [f"{letters[s]}) {s}" for s in grid.rows],
        grid.columns,
        grid.values,
        marks=marks,
        notes=[note],
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
        parts.append(
            summary.select(
                pl.lit(str(name)).alias("system"),
                pl.col("metric").cast(pl.String),
                pl.col("k").cast(pl.Int64),
                pl.col("value").cast(pl.Float64),
            )
        )
    return pl.concat(parts)
