"""``rankk counterfactual`` gives the library's numbers, and says the library's warnings as
``rankk: warning:`` lines and its errors as one ``rankk: error:`` line."""

from __future__ import annotations

import io
import re
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.cli.running import Rankk

LOG = pl.DataFrame(
    {
        "query": ["q", "q", "q", "q", "r"],
        "session": [1, 1, 2, 2, 1],
        "item": ["a", "b", "b", "a", "a"],
        "position": [1, 2, 1, 2, 1],
        "click": [1, 0, 1, 1, 0],
    }
)
NEW = pl.DataFrame({"query": ["q", "q", "r"], "item": ["b", "a", "c"], "score": [2.0, 1.0, 1.0]})


def test_counterfactual_matches_the_library_and_warns_in_cli_terms(
    rankk: Rankk, tmp_path: Path
) -> None:
    log, new = tmp_path / "log.parquet", tmp_path / "new.csv"
    LOG.write_parquet(log)
    NEW.write_csv(new)
    code, out, err = rankk(
        "counterfactual", log, new, "--group-by", "query", "--k", "2", "--estimator", "ips,dr",
        "--examination", "1,0.5", "--impression", "session", "--n-resamples", "50", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert "rankk: warning:" in err
    assert "never shown in the log" in err
    with pytest.warns(rk.CounterfactualWarning):
        expected = rk.evaluate_counterfactual(
            LOG, NEW, group_by="query", k=2, estimator=["ips", "dr"], examination=[1.0, 0.5],
            impression="session", n_bootstrap=50,
        ).overall  # fmt: skip
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_counterfactual_errors_name_the_column(rankk: Rankk, tmp_path: Path) -> None:
    log, new = tmp_path / "log.parquet", tmp_path / "new.parquet"
    LOG.with_columns(pl.col("position") - 1).write_parquet(log)
    NEW.write_parquet(new)
    code, _, err = rankk("counterfactual", log, new, "--group-by", "query", "--k", "2")
    assert code == 1
    assert err.startswith("rankk: error: the log's column 'position' must be positions 1, 2")


def test_marginals_and_open_bandit_names_match_the_library(rankk: Rankk, tmp_path: Path) -> None:
    from tests.counterfactual.open_bandit import marginals, synthetic_log

    data = synthetic_log(300, 5, seed=1)
    log, new = tmp_path / "log.parquet", tmp_path / "new.parquet"
    data.log.write_parquet(log)
    marginals(data, per_round=False).drop("predicted").write_parquet(new)
    code, out, err = rankk(
        "counterfactual", log, new, "--group-by", "campaign", "--impression", "impression",
        "--item", "item_id", "--pscore", "propensity_score", "--probability", "probability",
        "--click-model", "item_position", "--k", "3", "--estimator", "ips,snips",
        "--n-resamples", "50", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    expected = rk.evaluate_counterfactual(
        data.log, marginals(data, per_round=False), group_by="campaign", impression="impression",
        item="item_id", pscore="propensity_score", probability="probability",
        click_model="item_position", k=3, estimator=["ips", "snips"], n_bootstrap=50,
    ).summary()  # fmt: skip
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_a_missing_reward_column_names_the_option(rankk: Rankk, tmp_path: Path) -> None:
    log, new = tmp_path / "log.parquet", tmp_path / "new.parquet"
    LOG.rename({"click": "clicked"}).write_parquet(log)
    NEW.write_parquet(new)
    code, _, err = rankk("counterfactual", log, new, "--group-by", "query", "--k", "2")
    assert code == 1
    assert "no column 'click' (named by --reward;" in err


def test_the_help_says_the_reward_default(rankk: Rankk) -> None:
    code, out, _ = rankk("counterfactual", "--help")
    assert code == 0
    assert "--reward" in out
    assert "click" in out


def test_the_docs_name_every_option_of_the_help(rankk: Rankk) -> None:
    """docs/cli.md's section on the command names each option `--help` lists."""
    code, out, _ = rankk("counterfactual", "--help")
    assert code == 0
    options = set(re.findall(r"(--[a-z][a-z-]+)", out)) - {"--help", "--output", "--format"}
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = docs.split("## `rankk counterfactual`")[1].split("\n## ")[0]
    shared = {"--group-by", "--k", "--input-format", "--output-format"}  # said for every command
    missing = sorted(option for option in options - shared if option not in section)
    assert not missing, missing
