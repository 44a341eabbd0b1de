"""Fixtures of the ``rankk`` tests: the command run in-process, and small input files."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from polars_rankk.io import read_trec_qrels, read_trec_run
from tests.cli.running import QRELS, RUN, Rankk, run_rankk


@pytest.fixture
def rankk(capsys: pytest.CaptureFixture[str]) -> Rankk:
    """``rankk(*args)`` -> (exit status, stdout, stderr), run in this process."""
    return lambda *args: run_rankk(capsys, *args)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """trec_eval's sample run and qrels as tables keyed by ``user``, and a few variants."""
    folder = tmp_path_factory.mktemp("cli")
    run = read_trec_run(RUN).collect().rename({"query": "user"})
    qrels = read_trec_qrels(QRELS).collect().rename({"query": "user"})
    paths = {
        name: folder / name
        for name in (
            "run.parquet",
            "run.csv",
            "qrels.tsv",
            "qrels.parquet",
            "users.csv",
            "shifted.parquet",
        )
    }
    run.write_parquet(paths["run.parquet"])
    run.write_csv(paths["run.csv"])
    qrels.write_csv(paths["qrels.tsv"], separator="\t")
    qrels.write_parquet(paths["qrels.parquet"])
    users = run.select("user").unique().sort("user")
    users.with_columns(
        pl.when(pl.int_range(pl.len()) % 2 == 0)
        .then(pl.lit("even"))
        .otherwise(pl.lit("odd"))
        .alias("segment")
    ).write_csv(paths["users.csv"])
    run.with_columns(pl.col("score").reverse().over("user")).write_parquet(paths["shifted.parquet"])
    return paths
