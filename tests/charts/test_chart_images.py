"""Charts rendered as PNG (vl-convert): size, panel count, no dangling axes, shared colours."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import vl_convert
from PIL import Image

from polars_rankk import charts
from polars_rankk.stats.comparison import compare
from polars_rankk.stats.curves import curve_of_evaluations
from polars_rankk.stats.distributions import distribution, histogram
from polars_rankk.stats.systems import evaluate_systems, for_systems

#: Not alphabetical on purpose: the charts must keep the order the user gave.
SYSTEMS = ["zeta", "alpha", "mid"]


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    users = pl.DataFrame({"user": list(range(40))})
    grid = users.join(pl.DataFrame({"item": list(range(12))}), how="cross").with_columns(
        (((pl.col("user") * 5 + pl.col("item") * 11) % 13) / 13).alias("noise")
    )
    truth = grid.filter(pl.col("noise") > 0.6).select("user", "item")
    scores = {
        "zeta": pl.col("noise"),
        "alpha": 1 - pl.col("noise"),
        "mid": (pl.col("noise") * 7) % 1,
    }
    systems = {n: grid.select("user", "item", s.alias("score")) for n, s in scores.items()}
    evaluations = evaluate_systems(systems, truth, k=[1, 2, 5, 10, 20], group_by="user")
    per_group = {n: e.per_group for n, e in evaluations.items()}
    attributes = users.with_columns(
        pl.when(pl.col("user") < 10).then(pl.lit("light")).otherwise(pl.lit("heavy")).alias("a")
    )
    return {
        "curve": curve_of_evaluations(evaluations, n_resamples=50),
        "strata": curve_of_evaluations(
            evaluations, k=[10], by="a", attributes=attributes, n_resamples=50
        ),
        "distribution": for_systems(per_group, distribution),
        "histogram": for_systems(per_group, histogram, bins=10),
        "comparison": compare(per_group, baseline="zeta", n_resamples=50, n_permutations=50),
    }


def _groups(node: Any, inside_cell: bool = False) -> Iterator[tuple[dict[str, Any], bool]]:
    """Every group of a scenegraph, and whether it lies inside a facet cell."""
    if isinstance(node, dict):
        if node.get("marktype") == "group":
            yield node, inside_cell
            inside_cell = inside_cell or node.get("name") == "cell"
        for value in node.values():
            yield from _groups(value, inside_cell)
    elif isinstance(node, list):
        for value in node:
            yield from _groups(value, inside_cell)


def _look(chart: Any, tmp_path: Path, name: str) -> dict[str, Any]:
    """Render `chart` to PNG and read it back: size, panels, stray axes, colours drawn."""
    png = charts.save_chart(chart, tmp_path / f"{name}.png", scale=1.0)
    image = Image.open(io.BytesIO(png.read_bytes())).convert("RGB")
    scene = vl_convert.vegalite_to_scenegraph(charts.chart_spec(chart))["scenegraph"]
    panels = 0
    stray_axes = 0
    for group, inside in _groups(scene):
        if group.get("name") == "cell":
            panels += len(group.get("items", []))
        if group.get("role") == "axis" and not inside:
            stray_axes += 1
    colours = {
        "#{:02X}{:02X}{:02X}".format(*rgb) for _, rgb in image.getcolors(maxcolors=1 << 20) or []
    }
    return {
        "width": image.width,
        "height": image.height,
        "panels": panels or 1,
        "stray_axes": stray_axes if panels else 0,  # a single view has no grid
        "colours": colours,
    }


def _scale(chart: Any) -> dict[str, str]:
    """The system -> colour mapping a chart's colour channel carries."""
    spec = chart.to_dict()
    found: dict[str, str] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            color = node.get("color")
            if isinstance(color, dict) and "scale" in color and "domain" in color["scale"]:
                found.update(zip(color["scale"]["domain"], color["scale"]["range"], strict=True))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(spec)
    return found


def test_every_chart_renders_at_a_readable_size(tables: dict[str, Any], tmp_path: Path) -> None:
    gallery = {
        "k_curve": (charts.plot_k_curve(tables["curve"]), 7),
        "k_curve_four": (
            charts.plot_k_curve(tables["curve"], metrics=["precision", "recall", "ndcg", "mrr"]),
            4,
        ),
        "precision_recall": (charts.plot_precision_recall(tables["curve"]), 1),
        "distribution": (charts.plot_distribution(tables["distribution"]), 8),
        "histogram": (charts.plot_histogram(tables["histogram"]), 8),
        "ecdf": (charts.plot_histogram(tables["histogram"], kind="ecdf"), 8),
        "violin": (
            charts.plot_histogram(tables["histogram"], kind="violin", metrics=["hit_rate", "ndcg"]),
            2 * len(SYSTEMS),
        ),
        "strata": (charts.plot_strata(tables["strata"], k=10), 7),
        "comparison": (charts.plot_comparison(tables["comparison"], k=10), 1),
    }
    for name, (chart, panels) in gallery.items():
        seen = _look(chart, tmp_path, name)
        assert seen["panels"] == panels, name
        # Distribution charts draw one K by default: a few panels, not one per metric × K.
        assert seen["height"] < 1400, (name, seen["height"])
        assert seen["width"] < 1400, (name, seen["width"])
        # Every axis belongs to a drawn panel: none dangles under an empty grid slot.
        assert seen["stray_axes"] == 0, name


def test_four_panels_fill_a_two_by_two_grid(tables: dict[str, Any], tmp_path: Path) -> None:
    chart = charts.plot_k_curve(tables["curve"], metrics=["precision", "recall", "ndcg", "mrr"])
    assert chart.to_dict()["columns"] == 2  # not 3 + 1 with two empty slots


def test_colours_agree_across_charts(tables: dict[str, Any], tmp_path: Path) -> None:
    expected = charts.system_colours(SYSTEMS)
    assert list(expected) == SYSTEMS
    made = {
        "k_curve": charts.plot_k_curve(tables["curve"], metrics="ndcg"),
        "precision_recall": charts.plot_precision_recall(tables["curve"]),
        "distribution": charts.plot_distribution(tables["distribution"], metrics="ndcg"),
        "histogram": charts.plot_histogram(tables["histogram"], metrics="ndcg"),
        "violin": charts.plot_histogram(tables["histogram"], kind="violin", metrics="ndcg"),
        "strata": charts.plot_strata(tables["strata"], k=10, metrics="ndcg"),
        "comparison": charts.plot_comparison(tables["comparison"], metrics="ndcg"),
    }
    for name, chart in made.items():
        mapping = _scale(chart)
        assert {s: mapping[s] for s in SYSTEMS} == expected, name
        drawn = _look(chart, tmp_path, name)["colours"]
        # The comparison does not draw its baseline (zeta); the others draw every system.
        shown = SYSTEMS[1:] if name == "comparison" else SYSTEMS
        assert {expected[s] for s in shown} <= drawn, name


def test_distribution_charts_default_to_one_k(tables: dict[str, Any]) -> None:
    for chart in (
        charts.plot_histogram(tables["histogram"]),
        charts.plot_distribution(tables["distribution"]),
    ):
        spec = chart.to_dict()
        ks = {row["k"] for row in spec["data"]["values"]}
        assert ks == {10, None}  # the largest K <= 10, and r_precision (no K)
        assert "K=10" in spec["title"]["subtitle"]
    several = charts.plot_histogram(tables["histogram"], k=[5, 10]).to_dict()
    assert {row["k"] for row in several["data"]["values"]} == {5, 10}


def test_discrete_metrics_show_the_share_of_each_value(tables: dict[str, Any]) -> None:
    chart = charts.plot_histogram(tables["histogram"], kind="violin", metrics=["hit_rate", "ndcg"])
    rows = chart.to_dict()["data"]["values"]
    hits = [r for r in rows if r["metric"] == "hit_rate"]
    assert all(r["discrete"] for r in hits)
    assert not any(r["discrete"] for r in rows if r["metric"] == "ndcg")
    # Only the values 0 and 1 carry mass: no smoothed area between them.
    assert {r["at"] for r in hits if r["share"] > 0} <= {0.0, 1.0}
    scene = vl_convert.vegalite_to_scenegraph(charts.chart_spec(chart))["scenegraph"]
    areas = [
        g
        for g, _ in _groups(scene)
        if str(g.get("name", "")).endswith("pathgroup")
        and any(mark.get("items") for mark in g.get("items", []))
    ]
    # One drawn area per (system, ndcg) panel, none for hit_rate.
    assert len(areas) == len(SYSTEMS)


def test_precision_recall_labels_do_not_pile_up(tables: dict[str, Any]) -> None:
    chart = charts.plot_precision_recall(tables["curve"], label_k=(1, 2, 5, 10, 20))
    rows = chart.to_dict()["data"]["values"]
    labelled = [r for r in rows if r["text"] is not None]
    assert 0 < len(labelled) < 5 * len(SYSTEMS)  # crowded ones dropped
    spans = (
        max(r["recall"] for r in rows) - min(r["recall"] for r in rows),
        max(r["precision"] for r in rows) - min(r["precision"] for r in rows),
    )
    points = [(r["recall"] / spans[0] * 360, r["precision"] / spans[1] * 280) for r in labelled]
    for i, (x, y) in enumerate(points):
        for a, b in points[:i]:
            assert abs(x - a) > 26 or abs(y - b) > 14  # no two labels overlap


def _texts(chart: Any) -> list[str]:
    """Every piece of text the rendered chart draws (titles, subtitles, labels)."""
    scene = vl_convert.vegalite_to_scenegraph(charts.chart_spec(chart))["scenegraph"]
    found: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            text = node.get("text")
            if isinstance(text, str):
                found.append(text)
            elif isinstance(text, list):
                found.extend(str(t) for t in text)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(scene)
    return found


def test_subtitles_state_the_interval_level(tables: dict[str, Any]) -> None:
    drawn = {
        "k_curve": charts.plot_k_curve(tables["curve"], ui_k=10),
        "strata": charts.plot_strata(tables["strata"], k=10),
        "comparison": charts.plot_comparison(tables["comparison"], k=10),
    }
    for name, chart in drawn.items():
        texts = _texts(chart)
        assert any("95% bootstrap confidence interval" in t for t in texts), (name, texts[:3])
        assert not any("(UI)" in t for t in texts), name
    at_90 = _texts(charts.plot_k_curve(tables["curve"], confidence=0.9))
    assert any("90% bootstrap confidence interval" in t for t in at_90)


def test_titles_of_one_k_say_which(tables: dict[str, Any]) -> None:
    drawn = {
        "distribution": charts.plot_distribution(tables["distribution"], k=10),
        "histogram": charts.plot_histogram(tables["histogram"], k=10),
        "ecdf": charts.plot_histogram(tables["histogram"], kind="ecdf", k=10),
        "strata": charts.plot_strata(tables["strata"], k=10),
        "comparison": charts.plot_comparison(tables["comparison"], k=10),
    }
    for name, chart in drawn.items():
        title = chart.to_dict()["title"]["text"]
        assert title.endswith("at K=10"), (name, title)
        assert title in _texts(chart), name


def test_histogram_bars_do_not_blend(tables: dict[str, Any], tmp_path: Path) -> None:
    """Every coloured pixel of the histogram is a system's own colour: no bar shows through
    another (edge pixels, antialiased, aside)."""
    chart = charts.plot_histogram(tables["histogram"], k=10, metrics=["ndcg", "recall"])
    png = charts.save_chart(chart, tmp_path / "histogram.png", scale=1.0)
    image = Image.open(io.BytesIO(png.read_bytes())).convert("RGB")
    palette = {tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in charts.PALETTE}
    coloured = exact = 0
    for count, rgb in image.getcolors(maxcolors=1 << 20) or []:
        if max(rgb) - min(rgb) > 40:  # not white, grey or black: a mark's colour
            coloured += count
            exact += count if rgb in palette else 0
    assert coloured > 1000
    # Overlaid translucent bars: about 10% of coloured pixels are a palette colour; here most.
    assert exact / coloured > 0.75
