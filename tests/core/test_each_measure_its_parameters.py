"""Each measure under its own parameters, as the tools evaluate them: a name's parameters apply
to that measure alone, over the evaluation's policy. Evaluating names together gives, for each
name, the numbers of evaluating it alone (for every pair of parameterised names, under drawn
policies, on data full of ties, repeats, invalid scores, short lists, negative grades and
empty truth); the measures read under another policy than the evaluation's carry the fields
they read otherwise in their label."""

from __future__ import annotations

import warnings
from itertools import combinations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.names.request import Request
from tests.core.test_one_policy_one_number import policies, tables

#: Parameterised names and plain ones of the same metrics, each a tool's spelling.
NAMES = [
    "P(rel=2)@3",
    "P@3",
    "R@3",
    "nDCG(judged_only=True)@3",
    "nDCG@3",
    "AP(rel=2)",
    "AP@3",
    "RBP(p=0.5)@3",
    "RBP(rel=1)",
    "nDCG(dcg='exp-log2')@3",
    "ERR(max_rel=2)@3",
    "SetF(beta=0.5)",
    "Compat(p=0.8)",
    "RR(rel=2)@3",
]
PAIRS = list(combinations(NAMES, 2))


def _alone(candidates: pl.DataFrame, truth: pl.DataFrame, name: str, ks: list[int],
           policy: rk.Policy) -> pl.DataFrame:  # fmt: skip
    found = rk.evaluate(candidates, truth, k=ks, metrics=[name], group_by="user", policy=policy)
    return found.per_group


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=["+".join(pair) for pair in PAIRS])
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=tables(), policy=policies())
def test_names_together_equal_each_alone(
    first: str, second: str, data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = data
    policy = policy.replace(invalid_scores="drop", missing_groups="zero", ties="trec_eval")
    request = Request.of([first, second])
    ks = sorted({1, *request.ks})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            together = rk.evaluate(
                candidates, truth, k=ks, metrics=[first, second], group_by="user", policy=policy
            ).per_group
        except ValueError:  # the inputs refused (duplicates="error"...): so is each alone
            for name in (first, second):
                with pytest.raises(ValueError, match=r"\w"):
                    _alone(candidates, truth, name, ks, policy)
            return
        for name in (first, second):
            # A name's label says what it reads otherwise than the evaluation's policy: the
            # same alone as beside another name.
            alone = _alone(candidates, truth, name, ks, policy)
            labels = alone["metric"].unique().to_list()
            key = ["user", "metric", "k"]
            # Two names of one metric under one policy share its rows (each row once, at the
            # cut-offs of both): the rows of this name alone are compared.
            mine = (
                together.filter(pl.col("metric").is_in(labels))
                .unique()
                .join(alone.select(key), on=key, how="semi", nulls_equal=True)
            )
            # Within 1e-12, not bit for bit: on the pure-Polars path a group's ERR and Compat
            # sums may come out of Polars' parallel aggregation in another order between two
            # plans (the last bit moves from run to run).
            assert_frame_equal(mine.sort(key), alone.sort(key), rel_tol=0, abs_tol=1e-12)


def test_a_parameter_does_not_change_the_other_names() -> None:
    """``P(rel=2)@5`` beside ``R@5``: R@5 at the policy's threshold, P@5 at 2, labelled."""
    candidates = pl.DataFrame(
        {"user": [1, 1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 1, 2], "score": [4, 3, 2, 1, 2, 1]}
    )
    truth = pl.DataFrame({"user": [1, 1, 2], "item": [1, 3, 2], "relevance": [2, 1, 1]})
    res = rk.evaluate(candidates, truth, k=5, metrics=["P(rel=2)@5", "R@5"], group_by="user")
    summary = {row[0]: row[1] for row in res.summary().select("metric", "value").iter_rows()}
    assert summary == {"recall": 1.0, "P(rel=2)": 0.2}  # labelled as typed
    assert res.variants[0].policy.relevance_threshold == 2
    assert res.policy.relevance_threshold == 1


def test_a_name_parameter_is_not_refused_under_a_preset() -> None:
    """``RBP(p=0.5)@10`` under ``Policy.trec_eval()`` is RBP at p = 0.5, as the name says."""
    candidates = pl.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"user": [1], "item": [2]})
    res = rk.evaluate(candidates, truth, k=10, metrics=["RBP(p=0.5)@10"], group_by="user",
                      policy=rk.Policy.trec_eval())  # fmt: skip
    assert res.summary()["value"].to_list() == [pytest.approx(0.5 * 0.5)]


def test_paths_that_read_one_policy_refuse_names_that_ask_for_several() -> None:
    """`k_curve` reads one policy: two parameter sets are refused in words."""
    candidates = pl.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"user": [1], "item": [2]})
    with pytest.raises(ValueError, match="evaluated under different policies"):
        rk.k_curve({"a": candidates}, truth, k_max=3, metrics=["P(rel=2)", "R"], group_by="user")


def _assert_same_values(mine: pl.DataFrame, theirs: pl.DataFrame, by: list[str]) -> None:
    """The same rows by `by`, their values within 1e-12 (NaN equal to NaN)."""
    assert_frame_equal(
        mine.select(*by, "value").sort(by, nulls_last=True),
        theirs.select(*by, "value").sort(by, nulls_last=True),
        abs_tol=1e-12,
        check_dtypes=False,
    )


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=["+".join(pair) for pair in PAIRS])
@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=tables(), policy=policies())
def test_every_view_of_names_together_equals_each_alone_and_reads_back(
    first: str, second: str, data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    """``summary(metrics=name)``, ``wide()``, ``groups``, a lazy evaluation's ``collect()`` and
    the diagnostics of two names evaluated together equal each name's alone; every label a
    result writes (and every tool name ``summary(names=...)`` writes) evaluated alone gives
    the same numbers."""
    candidates, truth = data
    policy = policy.replace(invalid_scores="drop", missing_groups="zero", duplicates="first")
    ks = sorted({1, *Request.of([first, second]).ks})

    def evaluated(names: list[str], lazy: bool = False) -> rk.Evaluation:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            given = (candidates.lazy(), truth.lazy()) if lazy else (candidates, truth)
            return rk.evaluate(*given, k=ks, metrics=names, group_by="user", policy=policy)

    together = evaluated([first, second])
    # A lazy evaluation collected shows every part, as the eager one.
    collected = evaluated([first, second], lazy=True).collect()
    key = ["user", "metric", "k"]
    assert_frame_equal(collected.per_group.sort(key), together.per_group.sort(key), abs_tol=1e-12)
    assert_frame_equal(collected.summary(), together.summary(), abs_tol=1e-12)
    wide = together.wide()
    assert isinstance(wide, pl.DataFrame)
    for name in (first, second):
        alone = evaluated([name])
        _assert_same_values(together.summary(metrics=[name]), alone.summary(), ["metric", "k"])
        alone_wide = alone.wide()
        assert isinstance(alone_wide, pl.DataFrame)
        assert set(alone_wide.columns) <= set(wide.columns)
        # (A group this name's policy leaves out is null in its columns beside the other's.)
        mine_wide = wide.select(alone_wide.columns).join(alone_wide, on="user", how="semi")
        assert_frame_equal(mine_wide.sort("user"), alone_wide.sort("user"), abs_tol=1e-12)
        # Each group's list length and R as this name's policy counts them, among the columns.
        groups = together.groups.join(alone.groups, on="user", how="inner", suffix="!alone")
        for column in ("n_candidates", "n_relevant"):
            assert any(
                groups[other].equals(groups[f"{column}!alone"], check_names=False)
                for other in groups.columns
                if other.startswith(column) and not other.endswith("!alone")
            )
    # The diagnostics of each other part, by the names its measures carry.
    labelled = {label.typed for part in together.variants for label in part.labels}
    assert labelled <= {typed for key in together.diagnostics.parts for typed in key.split(", ")}
    # Every name a result writes reads back: alone, it gives the same numbers.
    summaries = [together.summary(), *(together.summary(names=s) for s in ("ir_measures",))]
    for summary in summaries:
        for metric, k, value in summary.select("metric", "k", "value").iter_rows():
            asked = metric if k is None or "@" in metric else f"{metric}@{k}"
            again = evaluated([asked]).summary().filter(pl.col("k").eq_missing(k))
            assert again["value"].to_list() == [pytest.approx(value, nan_ok=True)], asked
