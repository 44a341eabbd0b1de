"""Per-group values of systems paired with those of one or several baselines.

`risk` and `groups_needed` read the same long table: one row per (metric, k, baseline, system,
group) with both values and their difference, built by one lazy join of the per-group frames
on the group keys, metric and K. Only groups that both systems evaluated with a number (not
null, not NaN) are paired, as `compare` does under ``groups="intersect"``. Beside them,
for ``compare(labels=True)``: each pair's per-group variance over the shared label outcomes
(`polars_rankk.core.inputs.labels.joint`), laid beside the compared values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_rankk.core import LOWER_IS_BETTER, Evaluation
from polars_rankk.core.inputs.labels.joint import LabelSource
from polars_rankk.stats.per_group import Results, as_list, per_group_input, sort_rows

#: The columns of a paired table besides the group keys.
PAIRED_COLUMNS: tuple[str, ...] = (
    "metric", "k", "baseline", "system", "baseline_value", "value", "delta",
)  # fmt: skip


def system_mapping(systems: Mapping[str, Results] | Evaluation, caller: str) -> dict[str, Results]:
    """``{name: results}`` from a mapping, or the slices of one evaluation of several systems."""
    if isinstance(systems, Evaluation):
        if systems.system is None:
            raise ValueError(
                f"{caller} needs several systems: a mapping {{name: evaluation}}, or one "
                "evaluation of several (evaluate(..., system=COLUMN))"
            )
        return dict(systems.by_system())
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError(
            f"{caller}: systems must be a mapping {{name: evaluation}} of at least two"
        )
    if any(not isinstance(name, str) for name in systems):
        raise TypeError(f"{caller}: system names must be strings; got {list(systems)}")
    ready = dict(systems)
    # Lazy evaluations collected in one pass, so that each pipeline runs once.
    lazy = {n: v for n, v in ready.items() if isinstance(v, Evaluation) and v.is_lazy}
    if lazy:
        found = Evaluation.collect_together(list(lazy.values()), diagnostics=False)
        ready.update(zip(lazy, found, strict=True))
    return ready


def baselines_of(names: list[str], baseline: str | Sequence[str] | None, caller: str) -> list[str]:
    """The baseline names (default: the first system), each checked to be a system."""
    chosen = as_list(baseline) or names[:1]
    for name in chosen:
        if name not in names:
            raise ValueError(f"{caller}: baseline {name!r} is not one of the systems {names}")
    if len(chosen) == len(names):
        raise ValueError(f"{caller}: every system is a baseline; nothing is compared with them")
    return chosen


def long_values(
    systems: Mapping[str, Results], group_keys: Sequence[str] | None
) -> tuple[pl.LazyFrame, list[str]]:
    """Every system's per-group values stacked under a ``system`` column (lazy), and the group
    keys they share; rows whose value is null or NaN are left out."""
    sources = {
        name: per_group_input(value, group_keys, argument=f"systems[{name!r}]")
        for name, value in systems.items()
    }
    first = next(iter(sources.values()))
    keys = first.group_keys
    for name, source in sources.items():
        if sorted(source.group_keys) != sorted(keys):
            raise ValueError(
                f"systems must share group keys: {next(iter(sources))!r} has {keys}, {name!r} "
                f"has {source.group_keys}"
            )
    frames = [
        source.frame.select(
            pl.lit(name).alias("system"), *keys, "metric", "k", pl.col("value").cast(pl.Float64)
        ).filter(pl.col("value").is_not_null() & pl.col("value").is_not_nan())
        for name, source in sources.items()
    ]
    return pl.concat(frames, how="vertical_relaxed"), keys


def oriented(metric: pl.Expr, difference: pl.Expr) -> pl.Expr:
    """`difference` with its sign flipped for metrics where lower is better, so that a
    positive value is always a win for the system."""
    lower = list(LOWER_IS_BETTER)
    return pl.when(metric.cast(pl.String).is_in(lower)).then(-difference).otherwise(difference)


def paired_values(
    systems: Mapping[str, Results] | Evaluation,
    baseline: str | Sequence[str] | None = None,
    *,
    group_keys: Sequence[str] | None = None,
    caller: str = "paired_values",
) -> tuple[pl.LazyFrame, list[str]]:
    """Each non-baseline system paired with each baseline, group by group (lazy), and the
    group keys.

    ``delta`` is ``value - baseline_value``, sign-flipped for metrics where lower is better
    (a positive ``delta`` is a win of the system).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.stats.pairing import paired_values
    >>> a = pl.DataFrame({"q": [1, 2], "metric": "ndcg", "k": 10, "value": [0.5, 0.2]})
    >>> b = a.with_columns(pl.col("value") + pl.Series([0.25, -0.125]))
    >>> frame, keys = paired_values({"A": a, "B": b}, "A")
    >>> frame.collect()["delta"].to_list(), keys
    ([0.25, -0.125], ['q'])
    """
    mapping = system_mapping(systems, caller)
    names = list(mapping)
    chosen = baselines_of(names, baseline, caller)
    long, keys = long_values(mapping, group_keys)
    on = [*keys, "metric", "k"]
    base = long.filter(pl.col("system").is_in(chosen)).rename(
        {"system": "baseline", "value": "baseline_value"}
    )
    other = long.filter(~pl.col("system").is_in(chosen))
    paired = other.join(base, on=on, how="inner", nulls_equal=True)
    delta = oriented(pl.col("metric"), pl.col("value") - pl.col("baseline_value"))
    order = {name: i for i, name in enumerate(names)}
    frame = (
        paired.with_columns(delta.alias("delta"))
        .with_columns(
            pl.col("baseline").replace_strict(order, return_dtype=pl.Int64).alias("__b"),
            pl.col("system").replace_strict(order, return_dtype=pl.Int64).alias("__s"),
        )
        .pipe(sort_rows, [], "__b", "__s", *keys)
        .select(*PAIRED_COLUMNS[:4], *keys, *PAIRED_COLUMNS[4:])
    )
    return frame, keys


def label_sources_of(ready: Mapping[str, Results], names: list[str]) -> dict[str, LabelSource]:
    """Each system's `LabelSource`; a ValueError naming a system evaluated otherwise."""
    found = {}
    for name in names:
        value = ready[name]
        source = value.label_source if isinstance(value, Evaluation) else None
        if source is None:
            raise ValueError(
                f"compare(labels=True) evaluates the systems again on shared label outcomes: "
                f"systems[{name!r}] must be an evaluation with label_probability "
                "(rk.evaluate(..., label_probability=COLUMN)); got "
                + ("one without" if isinstance(value, Evaluation) else "a per-group table")
            )
        found[name] = source
    return found


def with_label_variances(
    wide: pl.DataFrame,
    variances: pl.DataFrame,
    pairs: list[tuple[str, str]],
    keys: list[str],
) -> tuple[pl.DataFrame, list[str]]:
    """`wide` with one column per pair: its difference's variance over the label outcomes
    (null where a group has no outcome in which both systems evaluate it)."""
    schema = wide.collect_schema()
    cell = [*keys, "metric", "k"]
    variances = variances.with_columns(pl.col(key).cast(schema[key]) for key in keys)
    columns = []
    for j, (baseline, system) in enumerate(pairs):
        column = f"__label_variance_{j}"
        pair = (pl.col("baseline") == baseline) & (pl.col("system") == system)
        one = variances.filter(pair).select(*cell, pl.col("variance").alias(column))
        wide = wide.join(one, on=cell, how="left", nulls_equal=True)
        columns.append(column)
    return wide, columns
