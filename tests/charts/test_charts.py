"""Altair charts of aggregated tables (polars_rankk/charts.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import altair as alt
import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk import charts
from polars_rankk.core import METRIC_DEFINITIONS
from polars_rankk.stats.comparison import compare
from polars_rankk.stats.curves import curve_of_evaluations
from polars_rankk.stats.distributions import distribution, histogram
from polars_rankk.stats.systems import evaluate_systems, for_systems

HOSTILE = '<script>alert(1)</script>"};'


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    users = pl.DataFrame({"user": list(range(40))})
    grid = users.join(pl.DataFrame({"item": list(range(10))}), how="cross").with_columns(
        (((pl.col("user") * 5 + pl.col("item") * 11) % 13) / 13).alias("noise")
    )
    truth = grid.filter(pl.col("noise") > 0.7).select("user", "item")
    systems = {
        "A": grid.select("user", "item", pl.col("noise").alias("score")),
        HOSTILE: grid.select("user", "item", (1 - pl.col("noise")).alias("score")),
    }
    attributes = users.with_columns(
        pl.when(pl.col("user") % 2 == 0)
        .then(pl.lit("even.[x]"))
        .otherwise(pl.lit(HOSTILE))
        .alias("seg'ment.[0]")
    )
    evaluations = evaluate_systems(systems, truth, k=range(1, 11), group_by="user")
    at = {n: e.per_group.filter(pl.col("k").is_in([5, 10])) for n, e in evaluations.items()}
    return {
        "curve": curve_of_evaluations(evaluations, n_resamples=100),
        "strata": curve_of_evaluations(
            evaluations, k=[5, 10], by="seg'ment.[0]", attributes=attributes, n_resamples=100
        ),
        "distribution": for_systems(at, distribution),
        "histogram": for_systems(at, histogram, bins=10),
        "comparison": compare(at, baseline="A", n_resamples=100, n_permutations=200),
        "evaluation": evaluations["A"],
    }


def _values(chart: Any) -> list[dict[str, Any]]:
    spec = chart.to_dict()
    data = spec.get("data") or {}
    return list(data.get("values", []))


def _svg(chart: Any) -> str:
    import vl_convert

    return str(vl_convert.vegalite_to_svg(charts.chart_spec(chart), allowed_base_urls=[]))


def test_k_curve_chart(tables: dict[str, Any]) -> None:
    curve = tables["curve"]
    chart = charts.plot_k_curve(curve, ui_k=5, log_k=True)
    assert isinstance(chart, alt.FacetChart)
    spec = chart.to_dict()
    assert len(_values(chart)) == curve.height  # one row per aggregated row, no more
    assert spec["config"]["range"]["category"] == list(charts.PALETTE)
    layers = spec["spec"]["layer"]
    marks = [layer["mark"]["type"] for layer in layers]
    assert marks == ["area", "line", "circle", "rule", "text", "point"]
    assert layers[1]["encoding"]["x"]["scale"]["type"] == "log"
    tooltip_fields = {t["field"] for t in layers[2]["encoding"]["tooltip"]}
    assert {"definition", "value", "ci_low", "n_groups"} <= tooltip_fields
    assert {r["definition"] for r in _values(chart) if r["metric"] == "ndcg"} == {
        METRIC_DEFINITIONS["ndcg"]
    }
    assert "<svg" in _svg(chart)
    plain = charts.plot_k_curve(curve, metrics=["recall"], ci=False).to_dict()
    marks = [layer["mark"]["type"] for layer in plain["spec"]["layer"]]
    assert marks == ["line", "circle", "rule", "text", "point"]


def test_k_curve_is_interactive(tables: dict[str, Any]) -> None:
    """Tooltips with value and interval, a legend that toggles systems, a K selector that
    moves the marked K on every panel."""
    spec = charts.plot_k_curve(tables["curve"], ui_k=5).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["selected_k"]["value"] == 5
    assert params["selected_k"]["bind"]["input"] == "select"
    assert params["shown_systems"]["bind"] == "legend"
    assert params["shown_systems"]["select"] == {"type": "point", "fields": ["system"]}
    layers = spec["spec"]["layer"]
    assert layers[1]["encoding"]["opacity"]["condition"]["param"] == "shown_systems"
    marked = [
        layer
        for layer in layers
        if {"filter": "(datum.k === selected_k)"} in layer.get("transform", [])
    ]
    assert [layer["mark"]["type"] for layer in marked] == ["rule", "text", "point"]
    tips = {t["field"]: t["title"] for t in layers[2]["encoding"]["tooltip"]}
    assert tips["value"] == "mean"
    assert tips["ci_low"] == "95% interval from"
    assert tips["ci_high"] == "95% interval to"
    assert "K=5 (UI)" not in json.dumps(spec)
    unset = {p["name"]: p for p in charts.plot_k_curve(tables["curve"]).to_dict()["params"]}
    assert unset["selected_k"]["value"] is None  # nothing marked until a K is chosen


def test_comparison_is_interactive(tables: dict[str, Any]) -> None:
    spec = charts.plot_comparison(tables["comparison"], confidence=0.9).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["selected_k"]["value"] is None
    assert params["selected_k"]["bind"]["labels"][0] == "every K"
    assert params["shown_systems"]["bind"] == "legend"
    layers = spec["layer"]
    assert {"filter": "selected_k == null || datum.k == selected_k"} in layers[1]["transform"]
    tips = {t["field"]: t.get("title") for t in layers[2]["encoding"]["tooltip"]}
    assert tips["diff"] == "mean difference"
    assert tips["ci_low"] == "90% interval from"
    assert "90% bootstrap confidence interval" in spec["title"]["subtitle"]


def test_stratified_charts_use_a_safe_field_name(tables: dict[str, Any]) -> None:
    strata = tables["strata"]
    grid = charts.plot_k_curve(strata, metrics=["recall", "ndcg"])
    small = charts.plot_strata(strata, k=10)
    for chart in (grid, small, charts.plot_strata(strata)):
        text = json.dumps(chart.to_dict())
        assert '"field": "seg\'ment.[0]"' not in text  # never a Vega-Lite field name
        assert "seg'ment.[0]" in text  # but the title
        svg = _svg(chart)
        assert "<svg" in svg
    assert {r["stratum"] for r in _values(small)} == {"even.[x]", HOSTILE}


def test_precision_recall_and_distribution_charts(tables: dict[str, Any]) -> None:
    chart = charts.plot_precision_recall(tables["curve"])
    assert {"precision", "recall", "k"} <= set(_values(chart)[0])
    box = charts.plot_distribution(tables["distribution"], k=10)
    assert [layer["mark"]["type"] for layer in box.to_dict()["spec"]["layer"]] == [
        "rule",
        "bar",
        "tick",
        "point",
    ]
    several = charts.plot_distribution(tables["distribution"], metrics=["ndcg"], k=[5, 10])
    assert several.to_dict()["spec"]["layer"][0]["encoding"]["x"]["field"] == "k"
    kinds: tuple[Literal["histogram", "ecdf", "violin"], ...] = ("histogram", "ecdf", "violin")
    for kind in kinds:
        hist = charts.plot_histogram(tables["histogram"], kind=kind, k=10)
        assert "<svg" in _svg(hist)
    ecdf = _values(charts.plot_histogram(tables["histogram"], kind="ecdf", k=5))
    last = max(r["cumulative"] for r in ecdf if r["metric"] == "precision" and r["system"] == "A")
    assert last == pytest.approx(1.0)


def test_comparison_chart(tables: dict[str, Any]) -> None:
    cmp = tables["comparison"]
    chart = charts.plot_comparison(cmp, systems=["A", HOSTILE])
    rows = _values(chart)
    assert len(rows) == cmp.filter(pl.col("system") != "A").height
    assert {r["significant"] for r in rows} <= {True, False}
    encoding = chart.to_dict()["layer"][2]["encoding"]["color"]
    assert encoding["scale"]["domain"] == ["A", HOSTILE]  # colours match the other charts
    assert encoding["legend"]["values"] == [HOSTILE]  # the baseline is not drawn
    assert "<svg" in _svg(chart)
    pairs = compare(
        dict.fromkeys(("X", "Y", "Z"), tables["evaluation"]), n_resamples=50, n_permutations=50
    )
    assert {r["pair"] for r in _values(charts.plot_comparison(pairs))} == {
        "Y − X",
        "Z − X",
        "Z − Y",
    }


def test_charts_refuse_per_group_data(tables: dict[str, Any]) -> None:
    evaluation = tables["evaluation"]
    with pytest.raises(TypeError, match="not an evaluation"):
        charts.plot_k_curve(evaluation)
    per_group = evaluation.per_group.filter(pl.col("k").is_not_null())
    with pytest.raises(ValueError, match="rows repeat"):
        charts.plot_k_curve(per_group.filter(pl.col("user") < 3).drop("user"))
    big = pl.DataFrame(
        {"metric": "ndcg", "k": list(range(1, charts.MAX_ROWS + 2)), "value": 0.5, "n_groups": 1}
    )
    with pytest.raises(ValueError, match="at most 5000 rows"):
        charts.plot_k_curve(big)
    with pytest.raises(ValueError, match="at most 5000 rows"):
        charts.plot_k_curve(big.lazy())
    two = pl.concat([big.head(3000), big.head(3000).with_columns(metric=pl.lit("recall"))])
    assert charts.plot_k_curve(two.lazy(), metrics=["ndcg"]).to_dict()  # filtered first
    with pytest.raises(ValueError, match="needs columns"):
        charts.plot_distribution(tables["curve"])
    with pytest.raises(TypeError, match=r"takes a pl\.DataFrame"):
        charts.plot_k_curve(tables["curve"].to_dicts())
    with pytest.raises(ValueError, match="metrics \\['mrr'\\] are not in the table"):
        charts.plot_comparison(
            tables["comparison"].filter(pl.col("metric") != "mrr"), metrics=["mrr"]
        )
    with pytest.raises(ValueError, match="ui_k must be a positive integer"):
        charts.plot_k_curve(tables["curve"], ui_k=0)
    with pytest.raises(ValueError, match="needs stratum columns"):
        charts.plot_strata(tables["curve"], k=5)


def test_save_chart_formats(tmp_path: Path, tables: dict[str, Any]) -> None:
    chart = charts.plot_k_curve(tables["curve"], metrics=["recall"])
    png = charts.save_chart(chart, tmp_path / "c.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert charts.save_chart(chart, tmp_path / "c.svg").read_text().startswith("<svg")
    page = charts.save_chart(chart, tmp_path / "c.html").read_text()
    assert "vegaEmbed" in page  # inlined, no CDN
    assert "<script src=" not in page
    spec = json.loads(charts.save_chart(chart, tmp_path / "c.json").read_text())
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    assert charts.save_chart(chart, tmp_path / "c.pdf").read_bytes()[:4] == b"%PDF"
    with pytest.raises(ValueError, match="cannot tell the format"):
        charts.save_chart(chart, tmp_path / "c.gif")


def test_k_curve_panels_follow_the_order_of_the_metrics_asked() -> None:
    curve = pl.DataFrame(
        {
            "system": "A",
            "metric": ["recall"] * 2 + ["precision"] * 2 + ["ndcg"] * 2,
            "k": [1, 2] * 3,
            "value": [0.1, 0.2] * 3,
            "n_groups": 100,
        }
    )
    asked = ["ndcg", "recall", "precision"]
    assert charts.plot_k_curve(curve, metrics=asked).to_dict()["facet"]["sort"] == asked
    # a generator is read once for the filter and once for the order
    assert charts.plot_k_curve(curve, metrics=iter(asked[:2])).to_dict()["facet"]["sort"] == [
        "ndcg",
        "recall",
    ]
    # without metrics: the library's order, whatever the table's
    library = charts.plot_k_curve(curve).to_dict()["facet"]["sort"]
    assert library == ["precision", "recall", "ndcg"]


def test_per_group_rows_are_refused_whatever_their_number() -> None:
    # Few groups (3): each would have been drawn as a "stratum" panel.
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2, 3], "item": [1, 2, 3, 4, 5], "score": [0.9, 0.8, 0.7, 0.6, 0.5]}
    )
    truth = pl.DataFrame({"user": [1, 2, 3], "item": [2, 3, 9]})
    res = rk.evaluate(candidates, truth, k=[1, 2], group_by="user")
    with pytest.raises(ValueError, match=r"per-group data \(res.per_group\)"):
        rk.plot_k_curve(res.per_group)
    rk.plot_k_curve(rk.k_curve(candidates, truth, k_max=2, group_by="user", ci=False))


def test_precision_recall_labels_of_five_close_systems_do_not_overlap() -> None:
    """Five systems whose curves nearly coincide: the K labels kept (``K=1`` … ``K=100``, each
    as wide as its text at 10 px bold, 14 px high) never cover one another."""
    from polars_rankk.charts.curves import with_labels

    ks = [1, 5, 10, 20, 50, 100]
    wide = pl.DataFrame(
        {
            "system": [f"s{s}" for s in range(5) for _ in ks],
            "k": ks * 5,
            # K = 100 of the five systems 28 px apart on one line: closer than "K=100" is wide.
            "recall": [(0.6 + s * 0.07) if k == 100 else k / 200 for s in range(5) for k in ks],
            "precision": [
                0.1 if k == 100 else 0.9 - k / 100 + s * 0.2 for s in range(5) for k in ks
            ],
        }
    )
    labelled = with_labels(wide, ks, [], 400, 300).filter(pl.col("text").is_not_null())
    x_scale = 400 / (wide["recall"].max() - wide["recall"].min())  # type: ignore[operator]
    y_scale = 300 / (wide["precision"].max() - wide["precision"].min())  # type: ignore[operator]
    boxes = [
        (row["recall"] * x_scale, row["precision"] * y_scale, 6.5 * len(row["text"]))
        for row in labelled.iter_rows(named=True)
    ]
    assert len(boxes) >= 3  # labels are kept where there is room
    for index, (x, y, width) in enumerate(boxes):
        for a, b, other in boxes[index + 1 :]:
            assert abs(x - a) > max(width, other) or abs(y - b) > 14
