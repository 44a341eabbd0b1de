"""Shared machinery of the charts: theme, input checks, data for Vega-Lite (export: `export`).

Not public: use `polars_rankk.charts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rankk.core import LOWER_IS_BETTER, METRIC_DEFINITIONS, METRICS
from polars_rankk.stats import COMPARISON_COLUMNS

if TYPE_CHECKING:
    pass

#: The most rows a chart accepts (Altair's own inline-data limit is 5000).
MAX_ROWS = 5000
#: Panels (stratum values) a chart draws at most: more is the mark of a group id taken for a
#: stratum, i.e. per-group rows.
MAX_STRATA = 60
#: Okabe & Ito (2008): distinguishable under every common colour-vision deficiency.
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)
#: Columns each kind of table may carry; any other column is a stratum.
CURVE_COLUMNS_KNOWN = frozenset(
    [
        "system",
        "metric",
        "k",
        "value",
        "ci_low",
        "ci_high",
        "confidence",
        "n_groups",
        "n_nan",
        "std_error",
    ]
)
DISTRIBUTION_COLUMNS_KNOWN = frozenset(
    [
        "system",
        "metric",
        "k",
        "n_groups",
        "n_nan",
        "mean",
        "std",
        "std_error",
        "min",
        "max",
        "median",
        "share_zeros",
        "share_ones",
        "value",
        "ci_low",
        "ci_high",
        "confidence",
    ]
)
HISTOGRAM_COLUMNS_KNOWN = frozenset(
    ["system", "metric", "k", "bin", "bin_start", "bin_end", "count", "share", "n_groups"]
)
#: The columns of a `compare` table, plus what the charts add (``pair``, ``std_error``,
#: ``significant``): any other column is a stratum.
COMPARE_COLUMNS_KNOWN = frozenset(
    ["pair", "std_error", "significant", "confidence", *COMPARISON_COLUMNS]
)
#: The field that carries the stratum label in every chart (user column names never do).
STRATUM = "stratum"


def theme() -> dict[str, Any]:
    """The Vega-Lite ``config`` every chart of this module carries.

    Examples
    --------
    >>> from polars_rankk.charts import theme
    >>> theme()["range"]["category"][:2]
    ['#0072B2', '#E69F00']
    """
    return {
        "font": "Liberation Sans, Helvetica, Arial, sans-serif",
        "background": "white",
        "padding": 8,
        "title": {
            "fontSize": 15,
            "anchor": "start",
            "subtitleFontSize": 11,
            "subtitleColor": "#555555",
            "offset": 10,
        },
        "axis": {
            "labelFontSize": 11,
            "titleFontSize": 12,
            "titleFontWeight": "normal",
            "gridColor": "#ececec",
            "domainColor": "#888888",
            "tickColor": "#888888",
            "labelColor": "#333333",
            "titleColor": "#333333",
        },
        "header": {
            "labelFontSize": 12,
            "labelFontWeight": "bold",
            "titleFontSize": 12,
            "titleFontWeight": "normal",
            "labelColor": "#222222",
        },
        "legend": {
            "labelFontSize": 11,
            "titleFontSize": 12,
            "titleFontWeight": "normal",
            "orient": "bottom",
            "labelLimit": 260,
            "symbolOpacity": 1,
        },
        "view": {"stroke": "#dddddd"},
        "range": {"category": list(PALETTE)},
        "line": {"strokeWidth": 2},
        "point": {"size": 30},
    }


def altair_module() -> Any:
    """Altair, imported on first use (the charts extra)."""
    try:
        import altair
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("charts need Altair: pip install 'polars-rankk[charts]'") from error
    return altair


# --- input checks ---------------------------------------------------------------------


def prepare(
    table: object,
    kind: str,
    required: Sequence[str],
    hint: str,
    known: frozenset[str],
    *,
    metrics: str | Iterable[str] | None = None,
    k: int | Iterable[int] | None = None,
    systems: Sequence[str] | None = None,
    extra_ids: Sequence[str] = (),
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """Check an aggregated table, keep the rows to draw, and label its strata.

    Refuses evaluations, tables without the `required` columns, more than `MAX_ROWS` rows
    to draw, and repeated rows for one (system, stratum…, metric, k) — the mark of per-group
    data. Returns the rows with the stratum columns (every column the chart does not know)
    replaced by one String ``stratum`` label, the stratum column names (for titles) and the
    labels in order. User column names thus never become Vega-Lite field names.
    """
    if hasattr(table, "per_group") and hasattr(table, "group_keys"):
        raise TypeError(
            f"{kind} takes an aggregated table, not an evaluation (one row per group would "
            f"make the chart grow with the data); pass {hint}"
        )
    if not isinstance(table, (pl.DataFrame, pl.LazyFrame)):
        raise TypeError(f"{kind} takes a pl.DataFrame ({hint}); got {type(table).__name__}")
    lazy = table.lazy()
    schema = lazy.collect_schema()
    missing = [c for c in required if c not in schema]
    if missing:
        raise ValueError(f"{kind} needs columns {missing} (got {schema.names()}); pass {hint}")
    system = pl.col("system").cast(pl.String) if "system" in schema else pl.lit("system")
    lazy = lazy.with_columns(system.alias("system"))
    chosen = None
    if metrics is not None:
        chosen = [metrics] if isinstance(metrics, str) else list(metrics)
        lazy = lazy.filter(pl.col("metric").is_in(chosen))
    if k is not None:
        ks = [k] if isinstance(k, int) else list(k)
        lazy = lazy.filter(pl.col("k").is_in(ks))
    if systems is not None:
        lazy = lazy.filter(pl.col("system").is_in(list(systems)))
    frame = lazy.head(MAX_ROWS + 1).collect()
    if frame.height > MAX_ROWS:
        raise ValueError(
            f"{kind} takes aggregated tables of at most {MAX_ROWS} rows to draw; got more. "
            f"Charts never take one row per group: pass {hint}, and choose the metrics, K "
            "and systems to draw"
        )
    if chosen is not None:
        absent = [m for m in chosen if m not in frame.get_column("metric").to_list()]
        if absent:
            raise ValueError(f"{kind}: metrics {absent} are not in the table")
    if frame.height == 0:
        raise ValueError(f"{kind}: nothing to draw, no row matches the metrics / k / systems")
    strata = [c for c in frame.columns if c not in known and not c.startswith("quantile_")]
    ids = ["system", *strata, "metric", "k", *(c for c in extra_ids if c in frame.columns)]
    repeated = frame.filter(frame.select(ids).is_duplicated())
    if repeated.height:
        raise ValueError(
            f"{kind} expects one row per {ids}; rows repeat, e.g. "
            f"{repeated.select(ids).row(0, named=True)}. Is this per-group data, or several "
            f"systems without a 'system' column? Pass {hint}"
        )
    if strata and "n_groups" in known and "n_groups" not in frame.columns:
        # Aggregated tables (summaries, curves, intervals) count their groups; per-group rows
        # do not, and their group keys would be drawn as strata, whatever their number.
        raise ValueError(
            f"{kind} draws aggregated tables (with an n_groups column); this one has none and "
            f"columns {strata} beside the values: is this per-group data (res.per_group)? "
            f"Pass {hint}"
        )
    frame, values = with_stratum(frame, strata)
    if len(values) > MAX_STRATA:
        raise ValueError(
            f"{kind} would draw {len(values)} panels, one per value of {strata} (at most "
            f"{MAX_STRATA}); a column with that many values is a group id: is this per-group "
            f"data (res.per_group)? Pass {hint}, or drop the column"
        )
    return frame, strata, values


def with_stratum(table: pl.DataFrame, strata: list[str]) -> tuple[pl.DataFrame, list[str]]:
    """Replace the stratum columns by one String label (values joined with " · ")."""
    if not strata:
        return table, []
    ordered = table.sort(strata, nulls_last=True, maintain_order=True)
    label = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null("(none)") for c in strata], separator=" · "
    )
    ordered = ordered.with_columns(label.alias(STRATUM)).drop([c for c in strata if c != STRATUM])
    values = ordered.get_column(STRATUM).unique(maintain_order=True).to_list()
    return ordered, [str(v) for v in values]


def asked_metrics(metrics: str | Iterable[str] | None) -> list[str] | None:
    """A chart's `metrics` argument as a list (read twice: to filter, then to order)."""
    if metrics is None:
        return None
    return [metrics] if isinstance(metrics, str) else list(metrics)


def metrics_in_order(table: pl.DataFrame, asked: list[str] | None = None) -> list[str]:
    """The metrics of `table`, for the panels: in the order asked (the chart's `metrics`),
    else in the library's order (unknown names last, sorted).

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({"metric": ["precision", "ndcg", "recall"]})
    >>> metrics_in_order(table)
    ['precision', 'recall', 'ndcg']
    >>> metrics_in_order(table, ["ndcg", "precision"])
    ['ndcg', 'precision']
    """
    present = table.get_column("metric").unique().to_list()
    if asked is not None:
        return [m for m in dict.fromkeys(asked) if m in present]
    return [m for m in METRICS if m in present] + sorted(m for m in present if m not in METRICS)


def records(table: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts: NaN and infinities become null, decimals floats, categories
    and anything else strings."""
    exprs = []
    for name, dtype in table.schema.items():
        if isinstance(dtype, pl.Decimal):
            exprs.append(pl.col(name).cast(pl.Float64))
        elif dtype.is_float():
            exprs.append(
                pl.when(pl.col(name).is_finite()).then(pl.col(name)).otherwise(None).alias(name)
            )
        elif not (dtype.is_numeric() or dtype in (pl.String, pl.Null, pl.Boolean)):
            exprs.append(pl.col(name).cast(pl.String))
    return table.with_columns(exprs).to_dicts() if exprs else table.to_dicts()


def with_definitions(table: pl.DataFrame) -> pl.DataFrame:
    """Add ``definition`` (the metric's one-line definition, for tooltips), ``better``
    (``"higher"`` or ``"lower"``, the metric's declared direction) and ``label``
    (``metric@k``, marked "(lower is better)" where it is)."""
    lower = pl.col("metric").is_in(list(LOWER_IS_BETTER))
    name = (
        pl.when(pl.col("k").is_null())
        .then(pl.col("metric"))
        .otherwise(pl.format("{}@{}", pl.col("metric"), pl.col("k")))
    )
    return table.with_columns(
        pl.col("metric")
        .replace_strict(dict(METRIC_DEFINITIONS), default="", return_dtype=pl.String)
        .alias("definition"),
        pl.when(lower).then(pl.lit("lower")).otherwise(pl.lit("higher")).alias("better"),
        pl.when(lower).then(name + " (lower is better)").otherwise(name).alias("label"),
    )


def system_order(table: pl.DataFrame, chosen: Sequence[str] | None = None) -> list[str]:
    """The colour order: the systems asked for, else the table's order of appearance.

    Every table of the library keeps the order in which the user gave the systems (the
    ``{name: evaluation}`` mapping), so the same systems get the same colours in every chart.
    """
    if chosen is not None:
        return [str(s) for s in chosen]
    return [str(s) for s in table.get_column("system").unique(maintain_order=True).to_list()]


def system_colours(systems: Sequence[str]) -> dict[str, str]:
    """The colour of each system, in the order given: the palette, repeated when it runs out.

    Every chart colours systems through this mapping, so a system keeps its colour from the
    K-curve to the histogram to the forest plot when the charts get the same systems.

    Examples
    --------
    >>> from polars_rankk.charts import system_colours
    >>> system_colours(["popularity", "two_tower"])
    {'popularity': '#0072B2', 'two_tower': '#E69F00'}
    """
    return {str(name): PALETTE[i % len(PALETTE)] for i, name in enumerate(systems)}


def colour(alt: Any, systems: list[str], legend: bool = True, field: str = "system") -> Any:
    """The colour channel: `system_colours` of `systems`, in that order."""
    mapping = system_colours(systems)
    return alt.Color(
        f"{field}:N",
        title="system",
        sort=systems,
        scale=alt.Scale(domain=list(mapping), range=list(mapping.values())),
        legend=alt.Legend() if legend else None,
    )


def default_k(table: pl.DataFrame, k: int | Iterable[int] | None) -> tuple[pl.DataFrame, str]:
    """Distribution charts draw one K unless asked: the largest K ≤ 10 (else the smallest).

    Rows without K (``r_precision``) stay. Returns the rows and a note for the subtitle.
    """
    if k is not None:
        return table, ""
    ks = sorted(int(v) for v in table.get_column("k").drop_nulls().unique().to_list())
    if len(ks) <= 1:
        return table, ""
    chosen = max((v for v in ks if v <= 10), default=ks[0])
    kept = table.filter((pl.col("k") == chosen) | pl.col("k").is_null())
    return kept, f"K={chosen} (pass k=[...] for more)"


def interval_name(table: pl.DataFrame, confidence: float) -> str:
    """``95% bootstrap confidence interval``: the level of the table's intervals.

    A ``confidence`` column (one value) says it; otherwise `confidence`, the level the chart
    was told (the default of `polars_rankk.k_curve`, `bootstrap` and `compare`, 0.95).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts.base import interval_name
    >>> interval_name(pl.DataFrame({"value": [0.1]}), 0.9)
    '90% bootstrap confidence interval'
    """
    if "confidence" in table.columns:
        levels = table.get_column("confidence").drop_nulls().unique().to_list()
        if len(levels) == 1:
            confidence = float(levels[0])
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    return f"{confidence * 100:g}% bootstrap confidence interval"


def with_k_in_title(title: str, table: pl.DataFrame) -> str:
    """`title` followed by the K drawn (``… at K=10``), when the chart shows one to three K.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.charts.base import with_k_in_title
    >>> with_k_in_title("Distribution", pl.DataFrame({"k": [10, 10, None]}))
    'Distribution at K=10'
    """
    ks = sorted(int(v) for v in table.get_column("k").drop_nulls().unique().to_list())
    if not ks or len(ks) > 3 or "K=" in title:
        return title
    return f"{title} at K=" + ", ".join(str(v) for v in ks)


def facet_columns(n_panels: int, columns: int) -> int:
    """Panels per row such that the last row is as full as it can be (no lone panel)."""
    columns = max(1, min(columns, n_panels))
    rows = -(-n_panels // columns)
    return -(-n_panels // rows)


def wrapped(
    chart: Any, alt: Any, field: str, order: list[str], columns: int, title: str | None = None
) -> Any:
    """Facet `chart` into a wrapped grid of `order`, every panel with its own x axis.

    Vega-Lite draws the x axis of a wrapped grid under each column, so a short last row
    leaves axes under empty slots; axes drawn per panel leave no empty slot with axes.
    """
    return chart.facet(
        facet=alt.Facet(field, sort=order, header=header(alt), title=title),
        columns=facet_columns(len(order), columns),
    ).resolve_axis(x="independent")


def metric_panels(
    layered: Any,
    alt: Any,
    strata: list[str],
    stratum_values: Sequence[str] | None,
    metric_order: list[str],
    columns: int,
) -> Any:
    """One panel per metric: with strata, a grid (rows: stratum, columns: metric); without,
    the metrics' panels wrapped `columns` to a row."""
    if not strata:
        return wrapped(layered, alt, "metric:N", metric_order, columns)
    return layered.facet(
        row=alt.Row(
            f"{STRATUM}:N", sort=stratum_values, header=header(alt), title=" · ".join(strata)
        ),
        column=alt.Column("metric:N", sort=metric_order, header=header(alt)),
    )


def finish(chart: Any, title: str, subtitle: str | None) -> Any:
    """Add the title and the theme (as top-level config)."""
    alt = altair_module()
    heading = alt.Title(title, subtitle=subtitle) if subtitle else alt.Title(title)
    return chart.properties(title=heading).configure(**theme())


def header(alt: Any) -> Any:
    """Facet headers: the value only, left-aligned."""
    return alt.Header(title=None, labelAnchor="start", labelPadding=4)


def tooltips(
    alt: Any, strata: list[str], table: pl.DataFrame, confidence: float = 0.95
) -> list[Any]:
    """Tooltips of a mean: system, stratum, metric@K, mean, interval, groups, definition."""
    tips = [alt.Tooltip("system:N", title="system")]
    if strata:
        tips.append(alt.Tooltip(f"{STRATUM}:N", title=" · ".join(strata)))
    tips += [
        alt.Tooltip("label:N", title="metric"),
        alt.Tooltip("value:Q", title="mean", format=".4f"),
    ]
    if "better" in table.columns:
        tips.append(alt.Tooltip("better:N", title="better"))
    if "ci_low" in table.columns:
        level = interval_name(table, confidence).split("%")[0]
        tips += [
            alt.Tooltip("ci_low:Q", title=f"{level}% interval from", format=".4f"),
            alt.Tooltip("ci_high:Q", title=f"{level}% interval to", format=".4f"),
        ]
    if "n_groups" in table.columns:
        tips.append(alt.Tooltip("n_groups:Q", title="groups", format=","))
    tips.append(alt.Tooltip("definition:N", title="definition"))
    return tips


def log_ticks(table: pl.DataFrame) -> list[int]:
    """1-2-5 ticks up to the largest K, for a logarithmic K axis."""
    largest = table.get_column("k").cast(pl.Int64).max()
    top = largest if isinstance(largest, int) else 1
    return [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if t <= top]


def quantile_title(column: str) -> str:
    """``quantile_0.1`` -> ``10th percentile``; ``min``/``max`` unchanged."""
    if column in ("min", "max"):
        return column
    share = float(column.removeprefix("quantile_")) * 100
    return f"{share:g}th percentile"
