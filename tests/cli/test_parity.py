"""The command does what Python does: ``rankk report``, the beyond-accuracy inputs, and
messages in the command's own terms."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.cli.wording import in_cli_terms
from tests.cli.running import Rankk


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two recommenders, their truth, an interaction log, item genres and a catalogue."""
    folder = tmp_path_factory.mktemp("shop")
    frames = {
        "a.csv": pl.DataFrame(
            {
                "user": [1, 1, 2, 2, 3, 3],
                "item": [10, 11, 10, 12, 11, 13],
                "score": [0.9, 0.5, 0.8, 0.7, 0.6, 0.2],
            }
        ),
        "b.parquet": pl.DataFrame(
            {
                "user": [1, 1, 2, 2, 3, 3],
                "item": [12, 13, 11, 13, 10, 12],
                "score": [0.9, 0.5, 0.8, 0.7, 0.6, 0.2],
            }
        ),
        "truth.csv": pl.DataFrame({"user": [1, 2, 3], "item": [11, 12, 13]}),
        "log.csv": pl.DataFrame({"item": [10, 10, 10, 11, 11, 12, 13]}),
        "genres.csv": pl.DataFrame({"item": [10, 11, 12, 13], "genre": ["x", "y", "x", "z"]}),
        "catalogue.csv": pl.DataFrame({"item": [10, 11, 12, 13, 14, 15]}),
    }
    paths = {}
    for name, frame in frames.items():
        paths[name] = folder / name
        if name.endswith(".csv"):
            frame.write_csv(paths[name])
        else:
            frame.write_parquet(paths[name])
    return paths


BEYOND = "precision,novelty,arp,long_tail_share,intra_list_diversity,coverage,gini,entropy"


def test_beyond_accuracy_options_match_the_library(rankk: Rankk, shop: dict[str, Path]) -> None:
    code, out, err = rankk(
        "evaluate", shop["a.csv"], shop["truth.csv"], "--group-by", "user", "--k", "2",
        "--metrics", BEYOND, "--popularity", shop["log.csv"], "--item-features",
        shop["genres.csv"], "--catalogue", shop["catalogue.csv"], "--head-share", "0.4",
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    rows = {(r["metric"], r["k"]): r["value"] for r in json.loads(out)["rows"]}
    expected = rk.evaluate(
        pl.read_csv(shop["a.csv"]),
        pl.read_csv(shop["truth.csv"]),
        k=2,
        group_by="user",
        metrics=BEYOND.split(","),
        popularity=pl.read_csv(shop["log.csv"]),
        item_features=pl.read_csv(shop["genres.csv"]),
        catalogue=pl.read_csv(shop["catalogue.csv"]),
        head_share=0.4,
    )
    wanted = {(r["metric"], r["k"]): r["value"] for r in expected.summary().iter_rows(named=True)}
    catalogue = expected.catalogue
    assert isinstance(catalogue, pl.DataFrame)
    wanted |= {(r["metric"], r["k"]): r["value"] for r in catalogue.iter_rows(named=True)}
    assert rows == pytest.approx(wanted)
    assert {"coverage", "gini", "entropy"} <= {metric for metric, _ in rows}


def test_a_missing_item_table_is_asked_for_as_an_option(
    rankk: Rankk, shop: dict[str, Path]
) -> None:
    code, _, err = rankk(
        "evaluate", shop["a.csv"], shop["truth.csv"], "--group-by", "user", "--metrics", "novelty"
    )  # fmt: skip
    assert code == 1
    assert "--popularity FILE" in err
    assert "popularity=" not in err
    assert "give it to evaluate" not in err
    code, _, err = rankk(
        "evaluate", shop["a.csv"], shop["truth.csv"], "--group-by", "user",
        "--metrics", "intra_list_diversity",
    )  # fmt: skip
    assert code == 1
    assert "--item-features FILE" in err


def test_compare_reads_the_item_tables_for_every_run(rankk: Rankk, shop: dict[str, Path]) -> None:
    code, out, err = rankk(
        "compare", shop["a.csv"], shop["b.parquet"], "--truth", shop["truth.csv"],
        "--group-by", "user", "--k", "2", "--metrics", "novelty,coverage", "--popularity",
        shop["log.csv"], "--n-resamples", "20", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    means = {r["metric"]: r for r in json.loads(out)["means"]}
    assert set(means) == {"novelty@2", "coverage@2"}
    assert means["coverage@2"]["a"] == pytest.approx(1.0)


def test_report_subcommand_writes_one_offline_file(
    rankk: Rankk, shop: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "nested" / "report.html"
    code, out, err = rankk(
        "report", shop["a.csv"], f"B={shop['b.parquet']}", "--truth", shop["truth.csv"],
        "--group-by", "user", "--k", "1,2", "--n-resamples", "20", "--output", target,
        "--popularity", shop["log.csv"], "--metrics", "precision,ndcg,novelty",
    )  # fmt: skip
    assert code == 0, err
    assert out == ""
    assert f"report written to {target}" in err
    page = target.read_text()
    assert "<html" in page
    assert "novelty" in page
    assert ">B<" in page or "B</" in page
    assert "cdn.jsdelivr" not in page


def test_report_of_one_run(
    rankk: Rankk, shop: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = rankk(
        "report", shop["a.csv"], "--truth", shop["truth.csv"], "--group-by", "user",
        "--k", "2", "--n-resamples", "10",
    )  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "report.html").exists()  # the default --output
    code, _, err = rankk(
        "report", shop["a.csv"], "--truth", shop["truth.csv"], "--group-by", "user",
        "--baseline", "nope",
    )  # fmt: skip
    assert code == 1
    assert "--baseline 'nope' is not one of ['a']" in err


def test_help_shows_an_example_per_command(rankk: Rankk) -> None:
    code, out, _ = rankk("--help")
    assert code == 0
    for command in ("evaluate", "compare", "report"):
        assert f"  rankk {command} " in out, command


def test_policy_errors_speak_in_options(rankk: Rankk, tmp_path: Path) -> None:
    candidates = tmp_path / "dup.csv"
    pl.DataFrame({"user": [1, 1], "item": [5, 5], "score": [0.9, 0.4]}).write_csv(candidates)
    truth = tmp_path / "truth.csv"
    pl.DataFrame({"user": [1], "item": [5]}).write_csv(truth)
    code, _, err = rankk(
        "evaluate", candidates, truth, "--group-by", "user", "--duplicates", "error"
    )
    assert code == 1
    assert "--duplicates error forbids it" in err
    assert "use --duplicates first" in err
    assert "duplicates='" not in err
    assert "Policy(" not in err


def test_counts_are_singular_or_plural(rankk: Rankk, tmp_path: Path) -> None:
    candidates = tmp_path / "one.csv"
    pl.DataFrame({"user": [1], "item": [5], "score": [0.9]}).write_csv(candidates)
    truth = tmp_path / "truth.csv"
    pl.DataFrame({"user": [1], "item": [5]}).write_csv(truth)
    out = tmp_path / "per_group.csv"
    code, _, err = rankk(
        "evaluate", candidates, truth, "--group-by", "user", "--k", "1", "--metrics",
        "precision", "--per-group", "--output", out,
    )  # fmt: skip
    assert code == 0, err
    assert "(1 row)" in err
    assert "1 rows" not in err


@pytest.mark.parametrize(
    ("python", "command"),
    [
        ("Policy(ties='expected') has none", "--ties expected has none"),
        ("Policy(invalid_scores='drop' or 'lowest')", "--invalid-scores drop or lowest"),
        ("use missing_groups='zero'", "use --missing-groups zero"),
        ("need item_features=...: x", "need --item-features FILE: x"),
        ("Policy.trec_eval() does it", "--trec-eval does it"),
        ("summary(average='macro')", "summary(average='macro')"),  # not a policy: untouched
    ],
)
def test_python_spellings_become_options(python: str, command: str) -> None:
    assert in_cli_terms(python) == command
