"""The self-contained HTML report (polars_rankk/report.py), checked in a real Chromium."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.reports.document import render_evaluations, render_report, report
from tests.support.chromium import find_chromium, load_page

SYSTEM_A = "<script>alert(1)</script>"
SYSTEM_B = '"};alert(2);//'
GROUP_COLUMN = "<img src=x onerror=alert(3)>"
BAD_GROUP = "</script><script>alert(4)</script>"
STRATUM_COLUMN = "seg</style><script>alert(5)</script>"
STRATUM_VALUE = "<b onmouseover=alert(6)>x</b>"
HOSTILE = [SYSTEM_A, SYSTEM_B, GROUP_COLUMN, BAD_GROUP, STRATUM_COLUMN, STRATUM_VALUE]


def _inputs() -> tuple[dict[str, pl.DataFrame], pl.DataFrame, pl.DataFrame]:
    users = [f"u{i}" for i in range(30)] + [BAD_GROUP]
    grid = (
        pl.DataFrame({GROUP_COLUMN: users})
        .join(pl.DataFrame({"item": list(range(8))}), how="cross")
        .with_row_index("row")
        .with_columns((((pl.col("row") * 7) % 11) / 11).alias("noise"))
    )
    truth = grid.filter(pl.col("noise") > 0.6).select(
        GROUP_COLUMN, "item", (pl.col("item") % 3).alias("relevance")
    )
    present = grid.filter(pl.col(GROUP_COLUMN) != BAD_GROUP)  # BAD_GROUP has no candidates
    systems = {
        SYSTEM_A: present.select(GROUP_COLUMN, "item", pl.col("noise").alias("score")),
        SYSTEM_B: present.select(GROUP_COLUMN, "item", (1 - pl.col("noise")).alias("score")),
    }
    attributes = pl.DataFrame({GROUP_COLUMN: users}).with_columns(
        pl.when(pl.col(GROUP_COLUMN).str.len_chars() % 2 == 0)
        .then(pl.lit(STRATUM_VALUE))
        .otherwise(pl.lit("plain"))
        .alias(STRATUM_COLUMN)
    )
    return systems, truth, attributes


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    systems, truth, attributes = _inputs()
    path = tmp_path_factory.mktemp("report") / "report.html"
    written = report(
        systems,
        truth,
        path=path,
        k=[1, 3, 5],
        group_by=GROUP_COLUMN,
        by=STRATUM_COLUMN,
        attributes=attributes,
        ui_k=3,
        n_resamples=100,
        title='Report <i>for</i> "tests"',
    )
    assert written == path
    return path


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.charts: list[str | None] = []
        self.handlers: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        self.links += [
            v or "" for n, v in attrs if n in ("src", "href") and not (v or "").startswith("#")
        ]
        if tag == "script":
            self.scripts.append(named)
        if "data-rankk-chart" in named:
            self.charts.append(named["data-rankk-chart"])


def test_page_is_inert_and_self_contained(hostile_page: Path) -> None:
    page = hostile_page.read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="application/json" id="[^"]+">(.*?)</script>', page, re.S)
    markup = re.sub(
        r'<script type="application/json" id="[^"]+">.*?</script>', "", page, flags=re.S
    )
    for text in HOSTILE:
        assert text not in markup, text  # escaped wherever it is markup
    specs_text = " ".join(blocks)
    assert "<" not in specs_text
    assert ">" not in specs_text
    decoded = json.dumps([json.loads(block) for block in blocks], ensure_ascii=False)
    assert json.dumps(SYSTEM_B)[1:-1] in decoded  # the names travel as JSON strings
    elements = _Elements()
    elements.feed(page)
    specs = [s for s in elements.scripts if s.get("type") == "application/json"]
    assert len(elements.scripts) == len(specs) + 2  # the Vega bundle and the embedding code
    assert [s.get("id") for s in specs] == elements.charts
    assert len(elements.charts) == 6  # curves, P-R, box, ECDF, strata, comparison
    assert elements.handlers == []  # no on* attribute anywhere
    assert elements.links == []  # nothing to fetch
    assert "Content-Security-Policy" in page
    # escaped, not dropped
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in page  # inside chart JSON


@pytest.fixture(scope="module")
def chromium() -> str:
    executable = find_chromium()
    if executable is None:
        pytest.skip(
            "Chromium is not installed and could not be installed with apt-get "
            "(needs root and network); the browser check cannot run"
        )
    return executable


CHARTS = "document.querySelectorAll('div[data-rankk-chart]')"


def test_page_renders_in_chromium(hostile_page: Path, chromium: str) -> None:
    result = load_page(
        chromium,
        hostile_page,
        ready=f"{CHARTS}.length > 0 && "
        f"{CHARTS}.length === document.querySelectorAll('[data-rendered]').length",
        expressions={
            "charts": f"{CHARTS}.length",
            "rendered": "document.querySelectorAll('[data-rendered=\"ok\"]').length",
            "marks": f"Array.from({CHARTS}).map(n => n.querySelectorAll('svg path, svg rect,"
            " svg line, svg text, svg circle, canvas').length)",
            "scripts": "document.scripts.length",
            "system_cell": f"Array.from(document.querySelectorAll('th')).some(t => t.textContent"
            f" === {SYSTEM_A!r})",
            "stratum_cell": f"Array.from(document.querySelectorAll('td')).some(t => "
            f"t.textContent === {STRATUM_VALUE!r})",
            "group_cell": f"Array.from(document.querySelectorAll('td')).some(t => "
            f"t.textContent.includes({BAD_GROUP!r}))",
            "title": "document.title",
        },
        timeout=60,
    )
    values: dict[str, Any] = result.values
    assert result.errors == []
    assert result.dialogs == []  # no alert() ran
    assert result.requests == [hostile_page.resolve().as_uri()]  # offline: nothing else loaded
    assert values["charts"] == 6
    assert values["rendered"] == values["charts"]
    assert all(count > 10 for count in values["marks"]), values["marks"]
    assert values["scripts"] == values["charts"] + 2
    assert values["system_cell"]
    assert values["stratum_cell"]
    assert values["group_cell"]
    assert values["title"] == 'Report <i>for</i> "tests"'


def test_single_system_report_and_evaluations(tmp_path: Path) -> None:
    systems, truth, _ = _inputs()
    only = {"A": systems[SYSTEM_A]}
    page = render_report(only, truth, k=[1, 2], group_by=GROUP_COLUMN, n_resamples=50)
    assert 'id="comparison"' not in page
    assert 'id="strata"' not in page
    assert 'id="summary"' in page
    assert 'id="diagnostics"' in page
    assert 'id="policy"' in page
    evaluations = {
        name: rk.evaluate(frame, truth, k=range(1, 6), group_by=GROUP_COLUMN)
        for name, frame in systems.items()
    }
    page = render_evaluations(evaluations, k=[2, 5], baseline=SYSTEM_B, n_resamples=50)
    assert 'id="comparison"' in page
    assert "K: 2, 5 (curves 1–5)" in page


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"k": [0]}, "k must be positive integers"),
        ({"k": [5], "k_max": 3}, "below the largest k"),
        ({"baseline": "nope"}, "baseline 'nope' is not one of the systems"),
    ],
)
def test_report_errors(kwargs: dict[str, Any], match: str, tmp_path: Path) -> None:
    systems, truth, _ = _inputs()
    with pytest.raises(ValueError, match=match):
        report(
            systems,
            truth,
            path=tmp_path / "r.html",
            group_by=GROUP_COLUMN,
            n_resamples=20,
            **kwargs,
        )


def test_layers_sharing_a_colour_agree_on_the_legend() -> None:
    # A layer hiding the legend the others show makes Vega warn in the page (and the
    # Chromium check fail): the precision-recall labels did.
    curve = pl.DataFrame(
        {
            "system": ["A"] * 4 + ["B"] * 4,
            "metric": ["precision", "precision", "recall", "recall"] * 2,
            "k": [1, 2, 1, 2] * 2,
            "value": [0.5, 0.4, 0.1, 0.2, 0.6, 0.5, 0.2, 0.3],
            "n_groups": 10,
        }
    )
    spec = rk.charts.plot_precision_recall(curve).to_dict()
    legends = {
        json.dumps(layer["encoding"]["color"].get("legend", {}), sort_keys=True)
        for layer in spec["layer"]
        if "color" in layer.get("encoding", {})
    }
    assert len(legends) == 1
    assert "null" not in legends


def test_report_reads_any_table_and_shows_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    truth = pl.DataFrame({"user": [1, 2, 3], "item": ["b", "c", "a"]})
    cand = pl.DataFrame(
        {"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "c", "d", "a", "e"],
         "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]}
    )  # fmt: skip
    other = cand.with_columns(score=-pl.col("score"))
    options: dict[str, Any] = {"k": [1, 2], "group_by": "user", "n_resamples": 30}
    expected = render_report({"A": cand, "B": other}, truth, progress=False, **options)
    found = render_report(
        {"A": cand.to_pandas(), "B": other.to_arrow()}, truth.to_pandas(), progress=True,
        **options,
    )  # fmt: skip
    assert "report" in capsys.readouterr().err
    today = re.compile(r"\d{4}-\d{2}-\d{2}")
    assert today.sub("", found) == today.sub("", expected)
    messages: list[str] = []
    report({"A": cand, "B": other}, truth, path=tmp_path / "r.html", progress=messages.append,
           **options)  # fmt: skip
    assert messages[0] == "evaluating"
    assert "comparing systems" in messages
    assert capsys.readouterr().err == ""
