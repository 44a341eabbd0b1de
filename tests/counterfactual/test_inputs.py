"""Bad input says what is wrong, naming the table, the column and an offending row; groups in
one table only, unsupported rankings and exploding weights are warnings and diagnostics, never
dropped silently; the examination EM recovers known examination probabilities; lazy input
gives the numbers eager input gives."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.counterfactual.simulator import candidates, make_world, simulate

LOG = pl.DataFrame(
    {
        "query": ["q", "q", "r"],
        "item": ["a", "b", "a"],
        "position": [1, 2, 1],
        "click": [1, 0, 1],
        "propensity": [0.5, 0.5, 1.0],
    }
)
NEW = pl.DataFrame({"query": ["q", "q", "r"], "item": ["b", "a", "a"], "score": [2.0, 1.0, 1.0]})


def _run(log: pl.DataFrame, new: pl.DataFrame = NEW, **options: object) -> rk.CounterfactualResult:
    settings: dict[str, object] = {"examination": [1.0, 0.5], "k": 2, "n_bootstrap": 0}
    settings.update(options)
    return rk.evaluate_counterfactual(log, new, group_by="query", **settings)  # type: ignore[arg-type]


def test_an_examination_table_listing_a_position_twice_is_refused() -> None:
    # Joined per logged row, a repeated position would count the row twice.
    table = pl.DataFrame({"position": [1, 2, 2], "examination": [1.0, 0.5, 0.4]})
    with pytest.raises(ValueError, match=r"each position once; position 2 is listed more"):
        _run(LOG, examination=table)


def test_a_logged_group_without_candidates_leaves_the_one_groups_interval_alone() -> None:
    # One group informs the estimate: the interval resamples its impressions, not those of
    # a logged group the new policy does not rank.
    log = pl.DataFrame(
        {
            "query": ["q"] * 6,
            "session": [1, 1, 2, 2, 3, 3],
            "item": ["a", "b", "b", "a", "a", "b"],
            "position": [1, 2, 1, 2, 1, 2],
            "click": [1, 0, 1, 1, 0, 1],
        }
    )
    new = NEW.filter(pl.col("query") == "q")
    orphan = pl.DataFrame(
        {"query": ["z"], "session": [1], "item": ["a"], "position": [1], "click": [1]}
    )
    settings = {"impression": "session", "n_bootstrap": 50}
    alone = _run(log, new, **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.CounterfactualWarning)
        beside = _run(pl.concat([orphan, log]), new, **settings)
    assert_frame_equal(beside.summary(), alone.summary())
    assert beside.diagnostics.interval_over == "impressions"


def test_a_position_below_one_names_the_table_column_and_row() -> None:
    with pytest.raises(ValueError, match=r"the log's column 'position' must be .*'position': 0"):
        _run(LOG.with_columns(pl.Series("position", [1, 0, 1])))


def test_a_non_integer_position_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="the log's column 'position' must hold integer"):
        _run(LOG.with_columns(pl.col("position").cast(pl.Float64)))


@pytest.mark.parametrize("bad", [0.0, 1.5, -0.1, None])
def test_a_propensity_outside_zero_one_names_the_row(bad: float | None) -> None:
    log = LOG.with_columns(pl.Series("propensity", [0.5, bad, 1.0], dtype=pl.Float64))
    with pytest.raises(
        ValueError,
        match=r"the log's column 'propensity' must be a probability in \(0, 1\]; "
        r"got row .*'item': 'b'",
    ):
        _run(log, propensity="propensity")


def test_a_non_numeric_reward_is_a_type_error_naming_a_row() -> None:
    log = LOG.with_columns(pl.col("click").cast(pl.String))
    with pytest.raises(
        TypeError, match=r"the log's column 'click' must be numeric .*got String; e.g. row"
    ):
        _run(log)


def test_a_missing_column_names_the_table() -> None:
    with pytest.raises(ValueError, match="the candidates table has no column 'score'"):
        _run(LOG, NEW.drop("score"))


def test_slate_models_need_propensities_and_the_papers_names_their_model() -> None:
    with pytest.raises(ValueError, match="needs the logging propensities"):
        _run(LOG, click_model="cascade")
    with pytest.raises(ValueError, match="estimator='rips' is 'ips' under click_model='cascade'"):
        _run(LOG, estimator="rips")


def test_a_log_group_the_candidates_lack_is_a_warning_and_a_diagnostic() -> None:
    with pytest.warns(
        rk.CounterfactualWarning, match=r"1 group\(s\) of the log have no candidates .*'r'"
    ):
        result = _run(LOG, NEW.filter(pl.col("query") == "q"))
    assert result.diagnostics.log_groups_without_candidates == 1


def test_a_candidate_group_without_log_and_unshown_items_are_warnings() -> None:
    new = pl.concat([NEW, pl.DataFrame({"query": ["s"], "item": ["z"], "score": [1.0]})])
    with pytest.warns(rk.CounterfactualWarning) as caught:
        result = _run(LOG, new.with_columns(pl.col("item").replace("a", "c")))
    messages = " ".join(str(warning.message) for warning in caught)
    assert "not in the log" in messages
    assert "never shown in the log" in messages
    assert result.diagnostics.candidate_groups_without_log == 1
    assert result.diagnostics.unsupported_share > 0


def test_exploding_weights_warn_and_clipping_caps_them() -> None:
    log = pl.DataFrame(
        {
            "query": ["q"] * 40,
            "session": list(range(40)),
            "item": ["a"] * 40,
            "position": [1] * 40,
            "click": [1] * 40,
            "propensity": [1e-4] + [1.0] * 39,
        }
    )
    new = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    options = {
        "click_model": "item_position",
        "propensity": "propensity",
        "impression": "session",
        "k": 1,
    }
    with pytest.warns(rk.CounterfactualWarning, match="weights explode"):
        result = _run(log, new, **options)
    assert result.diagnostics.largest_weight == pytest.approx(1e4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.CounterfactualWarning)
        clipped = _run(log, new, clip=5.0, **options)
    assert clipped.diagnostics.largest_weight == 5.0


def test_regression_em_recovers_the_examination_probabilities() -> None:
    world = make_world(200, 5, explore=1.0, seed=5)
    log = simulate(world, 20, "pbm", seed=6)
    # The same item of a query is shown at several positions across the query's impressions.
    result = rk.evaluate_counterfactual(
        log.lazy(), candidates(world), group_by="query", impression="log", k=3, n_bootstrap=0
    )
    assert result.examination is not None
    estimated = result.examination["examination"].to_numpy()
    expected = world.examination / world.examination[0]
    np.testing.assert_allclose(estimated, expected, atol=0.05)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_lazy_input_gives_the_numbers_of_eager_input(engine: str) -> None:
    world = make_world(30, 5, seed=7)
    log = simulate(world, 1, "pbm", seed=8)
    options = {
        "group_by": "query",
        "k": 3,
        "examination": list(world.examination),
        "estimator": ["ips", "snips", "dr", "naive"],
        "seed": 3,
        "n_bootstrap": 50,
    }
    eager = rk.evaluate_counterfactual(log, candidates(world), **options)  # type: ignore[arg-type]
    lazy = rk.evaluate_counterfactual(
        log.lazy(),
        candidates(world).lazy(),
        engine=engine,
        **options,  # type: ignore[arg-type]
    )
    # Sums inside a group may add in another order on another run: equal to rounding.
    assert_frame_equal(eager.overall, lazy.overall, rel_tol=1e-12, abs_tol=1e-12)
    assert_frame_equal(eager.per_group, lazy.per_group, rel_tol=1e-12, abs_tol=1e-12)


def test_examination_as_a_function_a_list_or_a_table_gives_the_same_numbers() -> None:
    world = make_world(20, 5, seed=9)
    log = simulate(world, 1, "pbm", seed=10)
    given = [float(value) for value in world.examination]
    table = pl.DataFrame({"position": range(1, 6), "examination": given})
    results = [
        rk.evaluate_counterfactual(
            log,
            candidates(world),
            group_by="query",
            k=3,
            examination=examination,
            estimator="ips",
            n_bootstrap=0,
        ).per_group
        for examination in (given, table, lambda position: given[position - 1])
    ]
    assert results[0].equals(results[1])
    assert results[0].equals(results[2])


def test_the_new_ranking_follows_the_policys_tie_order_and_keeps_an_items_best_copy() -> None:
    """Equal scores are ordered as `evaluate` orders them (trec_eval: the item as text,
    descending; item_asc: ascending); a repeated item keeps its best rank."""
    log = pl.DataFrame(
        {"query": ["q"] * 3, "item": ["a", "b", "c"], "position": [1, 2, 3], "click": [1, 0, 0]}
    )
    tied = pl.DataFrame({"query": ["q"] * 4, "item": ["a", "b", "c", "a"],
                         "score": [1.0, 1.0, 0.5, 0.9]})  # fmt: skip
    options = {"group_by": "query", "k": 1, "estimator": "ips", "n_bootstrap": 0,
               "examination": [1.0, 0.5, 0.25]}  # fmt: skip
    trec = rk.evaluate_counterfactual(log, tied, **options)  # type: ignore[arg-type]
    ascending = rk.evaluate_counterfactual(
        log,
        tied,
        policy=rk.Policy(ties="item_asc"),
        **options,  # type: ignore[arg-type]
    )
    assert trec.per_position["expected_reward"].to_list() == [0.0]  # "b" first: no click
    assert ascending.per_position["expected_reward"].to_list() == [1.0]  # "a" first: a click
    # b, a, then c: the second copy of a (0.9) is not ranked again.
    deeper = rk.evaluate_counterfactual(log, tied, **{**options, "k": 3})  # type: ignore[arg-type]
    assert deeper.per_position["expected_reward"].to_list() == [0.0, 0.5, 0.0]


def test_a_cascade_log_with_two_rows_at_one_position_names_the_row() -> None:
    log = LOG.with_columns(pl.Series("position", [1, 1, 1]))
    with pytest.raises(ValueError, match="one row per position of each logged list; got row"):
        _run(log, click_model="cascade", propensity="propensity")


def test_one_group_in_one_list_warns_that_no_interval_can_be_drawn() -> None:
    log = LOG.filter(pl.col("query") == "q")
    with pytest.warns(rk.CounterfactualWarning, match="no interval can be drawn.*impression="):
        result = _run(log, NEW.filter(pl.col("query") == "q"), n_bootstrap=50)
    row = result.summary().row(0, named=True)
    assert np.isnan(row["lower"])
    assert result.diagnostics.interval_over == "none"


def test_one_group_with_impressions_gets_a_finite_interval() -> None:
    world = make_world(1, 5, seed=30)
    log = simulate(world, 200, "pbm", seed=31)
    result = rk.evaluate_counterfactual(
        log, candidates(world), group_by="query", impression="log", k=3,
        examination=list(world.examination), estimator=["ips", "snips", "dr"], n_bootstrap=200,
    )  # fmt: skip
    assert result.diagnostics.interval_over == "impressions"
    for row in result.summary().iter_rows(named=True):
        assert np.isfinite(row["standard_error"])
        assert row["lower"] <= row["reward_at_k"] <= row["upper"]


def test_an_item_shown_twice_in_one_logged_list_is_refused_naming_the_list() -> None:
    log = LOG.with_columns(pl.Series("item", ["a", "a", "a"]))
    with pytest.raises(
        ValueError, match=r"column 'item' must be shown once per logged list .*'query': 'q'"
    ):
        _run(log)


@pytest.mark.parametrize("reward", [[3, 0, 2], [0.5, 0.0, 1.0]])
def test_the_examination_em_refuses_graded_rewards(reward: list[float]) -> None:
    log = LOG.with_columns(pl.Series("click", reward))
    with pytest.raises(ValueError, match=r"a click 0/1 .* for the examination EM"):
        _run(log, examination=None)
    _run(log)  # with examination= given, graded rewards are estimated


@pytest.mark.parametrize("dtype", [pl.Boolean, pl.Float32, pl.Int8])
def test_the_examination_em_reads_boolean_and_float_clicks(dtype: pl.DataType) -> None:
    world = make_world(40, 4, explore=1.0, seed=32)
    log = simulate(world, 5, "pbm", seed=33)
    as_int = rk.evaluate_counterfactual(log, candidates(world), group_by="query",
                                        impression="log", k=2, n_bootstrap=0)  # fmt: skip
    typed = rk.evaluate_counterfactual(log.with_columns(pl.col("click").cast(dtype)),
                                       candidates(world), group_by="query", impression="log",
                                       k=2, n_bootstrap=0)  # fmt: skip
    assert_frame_equal(as_int.summary(), typed.summary())


@pytest.mark.parametrize(
    ("log_dtype", "new_dtype"),
    [(pl.Int32, pl.Int64), (pl.UInt16, pl.Int64), (pl.String, pl.Categorical)],
)
def test_id_dtypes_are_aligned_as_evaluate_aligns_them(
    log_dtype: pl.DataType, new_dtype: pl.DataType
) -> None:
    log = LOG.with_columns(pl.col("item").replace({"a": "1", "b": "2"}))
    new = NEW.with_columns(pl.col("item").replace({"a": "1", "b": "2"}))
    log, new = (
        log.with_columns(pl.col("item").cast(log_dtype)),
        new.with_columns(pl.col("item").cast(new_dtype)),
    )
    expected = _run(log.with_columns(pl.col("item").cast(pl.String)),
                    new.with_columns(pl.col("item").cast(pl.String))).summary()  # fmt: skip
    assert_frame_equal(_run(log, new).summary(), expected)


def test_ids_of_different_kinds_are_a_type_error_naming_both_tables() -> None:
    new = NEW.with_columns(pl.col("query").replace({"q": "1", "r": "2"}).cast(pl.Int64))
    with pytest.raises(TypeError, match=r"column 'query' has dtype String in log but Int64"):
        _run(LOG, new)


def test_a_missing_reward_column_names_the_argument() -> None:
    with pytest.raises(ValueError, match=r"no column 'click' \(named by reward="):
        _run(LOG.rename({"click": "reward"}))


def test_summary_is_overall() -> None:
    result = _run(LOG)
    assert result.summary() is result.overall


def test_pscore_is_propensity_by_open_bandit_pipelines_name() -> None:
    options = {"click_model": "item_position"}
    assert_frame_equal(
        _run(LOG, pscore="propensity", **options).summary(),
        _run(LOG, propensity="propensity", **options).summary(),
    )
    with pytest.raises(ValueError, match="pscore= is Open Bandit Pipeline's name"):
        _run(LOG, pscore="propensity", propensity="other", **options)


MARGINALS = pl.DataFrame(
    {"query": ["q", "q", "q", "q", "r"], "item": ["a", "b", "a", "b", "a"],
     "position": [1, 1, 2, 2, 1], "probability": [0.6, 0.4, 0.4, 0.6, 1.0]}
)  # fmt: skip


def test_marginals_under_the_cascade_are_refused_pointing_to_draws() -> None:
    with pytest.raises(ValueError, match="pass draws of the policy as sample="):
        _run(LOG, MARGINALS, probability="probability", click_model="cascade",
             propensity="propensity")  # fmt: skip


def test_marginals_not_summing_to_one_are_refused_naming_the_position() -> None:
    bad = MARGINALS.with_columns(pl.Series("probability", [0.6, 0.3, 0.4, 0.6, 1.0]))
    with pytest.raises(
        ValueError,
        match=r"candidates' column 'probability' .*summing to 1 per group and position.*"
        r"'position': 1, 'probability_sum': 0\.89",
    ):
        _run(LOG, bad, probability="probability")


def test_marginals_from_position_zero_are_refused_saying_so() -> None:
    zero = MARGINALS.with_columns(pl.col("position") - 1)
    with pytest.raises(ValueError, match="Open Bandit Pipeline's count from 0: add 1"):
        _run(LOG, zero, probability="probability")


@pytest.mark.parametrize(
    ("table", "column"), [("log", "query"), ("log", "item"), ("new", "query"), ("new", "item")]
)
def test_a_null_id_names_the_table_the_column_and_a_row(table: str, column: str) -> None:
    log = LOG.with_columns(pl.col(column).cast(pl.String))
    new = NEW.with_columns(pl.col(column).cast(pl.String))
    if table == "log":
        log = log.with_columns(pl.when(pl.int_range(pl.len()) == 1).then(None)
                               .otherwise(pl.col(column)).alias(column))  # fmt: skip
    else:
        new = new.with_columns(pl.when(pl.int_range(pl.len()) == 1).then(None)
                               .otherwise(pl.col(column)).alias(column))  # fmt: skip
    named = "log's" if table == "log" else "candidates'"
    with pytest.raises(ValueError, match=rf"the {named} column '{column}' must be an id on every"):
        rk.evaluate_counterfactual(log, new, group_by="query", k=2, examination=[1.0, 0.5])
