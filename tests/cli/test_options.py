"""Options: built from `Policy` and the metric registry; help, version and usage lines."""

from __future__ import annotations

import dataclasses
import io
import typing
from pathlib import Path

import polars as pl
import pytest
import typer

import polars_rankk as rk
from polars_rankk.cli.app import application
from polars_rankk.cli.options import parse_k, parse_metrics, policy_option_type
from polars_rankk.core import METRICS, POLICY_HELP, Policy
from tests.cli.running import QRELS, RUN, Rankk


def test_parse_k() -> None:
    assert parse_k("5,10") == [5, 10]
    assert parse_k("1..3, 2-4") == [1, 2, 3, 4]
    for bad in ("", "a", "3-1", "0", "1.5"):
        with pytest.raises(ValueError, match="--k"):
            parse_k(bad)


def test_metric_choices_come_from_the_registry(rankk: Rankk) -> None:
    assert list(parse_metrics(",".join(METRICS)) or ()) == list(METRICS)
    with pytest.raises(ValueError, match="unknown metric 'accuracy'; choose among precision"):
        parse_metrics("ndcg,accuracy")
    code, out, _ = rankk("evaluate", "--help")
    assert code == 0
    assert ", ".join(METRICS) in " ".join(out.split())


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_every_policy_field_is_an_option_with_its_choices(rankk: Rankk, command: str) -> None:
    group = typer.main.get_command(application)
    params = {param.name: param for param in group.commands[command].params}  # type: ignore[attr-defined]
    code, out, _ = rankk(command, "--help")
    assert code == 0
    flat = " ".join(out.split())
    hints = typing.get_type_hints(Policy)
    for field in dataclasses.fields(Policy):
        option = params[field.name]
        assert option.opts == [f"--{field.name.replace('_', '-')}"]
        assert option.default is None  # the policy's own default applies
        assert option.help == POLICY_HELP[field.name] + "."
        hint = policy_option_type(hints[field.name])
        choices = typing.get_args(hint)
        shown = "|".join(choices) if choices else hint.__name__
        assert f"{option.opts[0]} <{shown}>" in flat, field.name
    assert "trec_eval" in params


def test_policy_options_build_the_policy(rankk: Rankk, tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code, _, err = rankk(
        "evaluate", RUN, QRELS, "--k", "5", "--trec-eval", "--gain", "exponential",
        "--relevance-threshold", "2", "--invalid-scores", "drop", "-o", target,
    )  # fmt: skip
    assert code == 0, err
    import json

    recorded = json.loads(target.read_text())["policy"]
    expected = Policy.trec_eval(gain="exponential", relevance_threshold=2.0, invalid_scores="drop")
    assert recorded == expected.to_dict()


def test_help_explains_every_policy(rankk: Rankk) -> None:
    for command in ("evaluate", "compare"):
        code, out, _ = rankk(command, "--help")
        assert code == 0
        flat = " ".join(out.split())
        for name, text in POLICY_HELP.items():
            assert f"--{name.replace('_', '-')}" in flat
            assert " ".join(text.split()) in flat, name


def test_short_help_version_and_usage_lines(rankk: Rankk) -> None:
    code, out, _ = rankk("-h")
    assert code == 0
    assert out.startswith("Usage: rankk [OPTIONS] COMMAND [ARGS]...")
    code, out, _ = rankk("evaluate", "-h")
    assert code == 0
    assert out.startswith("Usage: rankk evaluate [OPTIONS] CANDIDATES TRUTH\n")
    code, out, _ = rankk("compare", "-h")
    assert code == 0
    assert out.startswith("Usage: rankk compare [OPTIONS] RUN...\n")
    assert "--baseline NAME" in out
    assert "{" not in out.splitlines()[0]
    code, out, err = rankk("--version")
    assert (code, err) == (0, "")
    assert out == f"rankk (polars-rankk) {rk.__version__}\n"
    code, out, _ = rankk()
    assert code == 2
    assert out.startswith("Usage: rankk [OPTIONS] COMMAND")


def test_score_and_rank_are_exclusive(rankk: Rankk) -> None:
    code, out, err = rankk("evaluate", RUN, QRELS, "--score", "score", "--rank", "rank")
    assert (code, out) == (2, "")
    assert err == (
        "rankk: error: Invalid value for --rank: give --score (higher first) or --rank "
        "(lower first), not both\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["evaluate", "missing.parquet", QRELS], 1, "missing.parquet: no such file"),
        (["evaluate", RUN, QRELS, "--k", "0"], 1, "--k takes positive integers"),
        (["evaluate", RUN, QRELS, "--ties", "random"], 2, "'random' is not one of"),
        (["evaluate", RUN], 2, "Missing argument 'TRUTH'"),
        (["evaluate", RUN, QRELS, "--metrics", "accuracy"], 1, "unknown metric 'accuracy'"),
        (["evaluate", RUN, QRELS, "-o", "out.xlsx"], 1, "cannot tell the output format"),
        (["evaluate", RUN, QRELS, "--format", "parquet"], 1, "needs a file"),
        (["compare", RUN, "--truth", QRELS], 1, "at least two systems"),
        (["compare", f"a={RUN}", f"b={RUN}", "--truth", QRELS, "--baseline", "x"], 1, "'x'"),
        (["frobnicate"], 2, "No such command"),
    ],
)
def test_errors_are_one_line(rankk: Rankk, args: list[str | Path], code: int, message: str) -> None:
    found, out, err = rankk(*args)
    assert found == code
    assert err.count("\n") == 1, err
    assert err.startswith("rankk: error: "), err
    assert message in err
    assert out == ""


def test_metrics_keeps_the_commas_inside_a_name(rankk: Rankk) -> None:
    import io

    import polars as pl
    from polars.testing import assert_frame_equal

    from polars_rankk.io import read_trec_qrels, read_trec_run

    names = "P.5,10,nDCG(gains={0:1,1:4})@3,RBP(p=0.9,rel=1)@3"
    expected = ["P.5,10", "nDCG(gains={0:1,1:4})@3", "RBP(p=0.9,rel=1)@3"]
    assert list(parse_metrics(names) or ()) == expected
    code, out, err = rankk("evaluate", RUN, QRELS, "--k", "3", "--metrics", names, "-f", "csv")
    assert code == 0, err
    expected = rk.evaluate(
        read_trec_run(RUN),
        read_trec_qrels(QRELS),
        k=3,
        metrics=["P.5,10", "nDCG(gains={0:1,1:4})@3", "RBP(p=0.9,rel=1)@3"],
        group_by="query",
    ).summary()
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)
    assert {5, 10} <= set(expected["k"])


def test_a_name_parameter_applies_to_its_measure_over_the_options(rankk: Rankk) -> None:
    """``--unjudged keep`` with ``nDCG(judged_only=True)@10``: nDCG condensed, as the name asks,
    the other names under the option; compare and the report, which read one policy, refuse
    names that ask for several in words."""
    from polars_rankk.io import read_trec_qrels, read_trec_run

    code, out, err = rankk(
        "evaluate", RUN, QRELS, "--unjudged", "keep", "--k", "5", "-f", "csv",
        "--metrics", "nDCG(judged_only=True)@10,P@5",
    )  # fmt: skip
    assert code == 0, err
    got = pl.read_csv(io.StringIO(out))
    run, qrels = read_trec_run(RUN), read_trec_qrels(QRELS)
    alone = {
        name: rk.evaluate(run, qrels, k=[5, 10], metrics=[name], group_by="query", policy=rules)
        .summary()
        .filter(pl.col("k") == k)["value"]
        .item()
        for name, rules, k in (
            ("ndcg", rk.Policy(unjudged="condense"), 10),
            ("precision", rk.Policy(unjudged="keep"), 5),
        )
    }
    assert got.filter(pl.col("metric") == "precision", pl.col("k") == 5)["value"].item() == (
        pytest.approx(alone["precision"], abs=1e-4)
    )
    # Labelled as typed: the name alone reads back to the measure.
    condensed = got.filter(pl.col("metric").str.starts_with("nDCG"), pl.col("k") == 10)
    assert condensed["metric"].item() == "nDCG(judged_only=True)"
    assert condensed["value"].item() == pytest.approx(alone["ndcg"], abs=1e-4)
    for command in (
        ("compare", f"a={RUN}", f"b={RUN}", "--truth", QRELS),
        ("report", RUN, "--truth", QRELS),
    ):
        code, _, err = rankk(*command, "--metrics", "P(judged_only=True)@5,R@5")
        assert code == 1, command
        assert "evaluated under different policies" in err
    # One name's parameter over an option: that measure under the name's value.
    code, _, err = rankk(
        "compare", f"a={RUN}", f"b={RUN}", "--truth", QRELS, "--unjudged", "keep",
        "--metrics", "P(judged_only=True)@5",
    )  # fmt: skip
    assert code == 0, err
