"""The C/W/L family against cwl_eval, through ir_measures' cwl_eval provider, per query.

Hypothesis draws runs with graded relevance, unjudged candidates, ties, repeated items, short
and empty lists (`tests.support.ranking_cases`). ir_measures sorts a run by score, keeping the
run's order in ties: ``Policy(ties="input_order")`` reproduces it, the run handed over being
the de-duplicated candidates (each item's highest-scored copy, the first of them) in input
order. Every measure's expected rate of gain (ir_measures' value), expected total gain and
expected depth (cwl_eval's expected items) agree to 1e-9: cwl_eval multiplies the
continuation probabilities one by one over its 1000 ranks, where the closed-form tail here
sums them as a trigamma difference.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(25), derandomize=True, database=None)
TOL = 1e-9
BASES = ("sdcg", "insq", "inst", "bpm", "nerr8", "nerr9", "nerr10", "nerr11")
OUTPUTS = ("", "_total_gain", "_depth")


def _reference_run(case: dict[str, Any]) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """qrels and run as ir_measures reads them; qid -> group key."""
    import ir_measures

    group_by = case["group_by"]
    qid_of: dict[tuple[Any, ...], str] = {}

    def qid(row: dict[str, Any]) -> str:
        key = tuple(row[c] for c in group_by)
        return qid_of.setdefault(key, f"q{len(qid_of)}")

    qrels = [
        ir_measures.Qrel(qid(row), str(row["item"]), int(row["relevance"])) for row in case["truth"]
    ]
    best: dict[tuple[str, str], tuple[float, int]] = {}
    for position, row in enumerate(case["candidates"]):
        key = (qid(row), str(row["item"]))
        score = float(row["score"])
        if key not in best or score > best[key][0]:
            best[key] = (score, position)
    # ir_measures reads a run query by query (contiguous), sorting each stably by score.
    kept = sorted(best.items(), key=lambda entry: (entry[0][0], entry[1][1]))
    run = [ir_measures.ScoredDoc(q, doc, score) for (q, doc), (score, _) in kept]
    return qrels, run, {q: key for key, q in qid_of.items()}


def _measures(k: int, target: float, max_rel: int, p: float) -> dict[str, Any]:
    from ir_measures import BPM, INSQ, INST, NERR8, NERR9, NERR10, NERR11, SDCG

    return {
        "sdcg": SDCG(max_rel=max_rel) @ k,
        "insq": INSQ(T=target, max_rel=max_rel),
        "inst": INST(T=target, max_rel=max_rel),
        "bpm": BPM(T=target, max_rel=max_rel) @ k,
        "nerr8": NERR8(max_rel=max_rel) @ k,
        "nerr9": NERR9(max_rel=max_rel) @ k,
        "nerr10": NERR10(p=p, max_rel=max_rel),
        "nerr11": NERR11(T=target, max_rel=max_rel),
    }


def _cwl_eval(case: dict[str, Any], k: int, target: float, max_rel: int, p: float) -> ref.Result:
    import ir_measures

    logging.getLogger("ir_measures.cwl_eval").disabled = True
    qrels, run, key_of = _reference_run(case)
    measures = _measures(k, target, max_rel, p)
    name_of = {str(measure): name for name, measure in measures.items()}
    provider = ir_measures.providers.registry["cwl_eval"]
    want: ref.Result = {}
    for row in provider.evaluator(list(measures.values()), qrels).iter_calc(run):
        name = name_of[str(row.measure)]
        # The cut measures read K; the others the whole list (K past every list here).
        key = key_of[row.query_id]
        want[key, name, k] = row.value
        if hasattr(row, "expected_items"):  # not a query the run lacks (scored 0 by the base)
            want[key, f"{name}_total_gain", k] = row.expected_total_utility
            want[key, f"{name}_depth", k] = row.expected_items
    return want


def _ours(case: dict[str, Any], k: int, policy: rk.Policy) -> ref.Result:
    cand, truth = frames(case)
    metrics = [base + output for base in BASES for output in OUTPUTS]
    result = rk.evaluate(
        cand, truth, k=k, metrics=metrics, group_by=case["group_by"], policy=policy
    )
    return ref.per_group_dict(result.per_group, case["group_by"])


@SETTINGS
@given(
    case=cases(max_candidates=8),
    k=st.sampled_from([1, 3, 10]),
    target=st.sampled_from([0.5, 1.0, 2.5]),
    max_rel=st.sampled_from([1, 3]),
    p=st.sampled_from([0.5, 0.9]),
)
def test_cwl_measures_match_cwl_eval_per_query(
    case: dict[str, Any], k: int, target: float, max_rel: int, p: float
) -> None:
    policy = rk.Policy(
        ties="input_order",
        empty_truth="zero",
        cwl_target=target,
        cwl_max_grade=max_rel,
        rbp_persistence=p,
    )
    got = _ours(case, k, policy)
    want = _cwl_eval(case, k, target, max_rel, p)
    if k < 10:  # the whole-list measures were read at K = 10 (>= every list) only
        want = {key: v for key, v in want.items() if not key[1].startswith(("ins", "nerr1"))}
    for key, value in want.items():
        assert key in got, key
        assert math.isclose(got[key], value, rel_tol=TOL, abs_tol=TOL), (key, got[key], value)


# --- one number on every path ------------------------------------------------------------------

CANDIDATES = pl.DataFrame(
    {
        "user": [1, 1, 1, 1, 1, 2, 2, 2, 3],
        "item": [10, 11, 12, 13, 10, 20, 21, 22, 30],
        "score": [0.9, 0.5, 0.5, 0.1, 0.2, 1.0, 1.0, 0.3, 0.4],
    }
)
TRUTH = pl.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 3],
        "item": [10, 12, 14, 21, 22, 31],
        "relevance": [3, 1, 2, 2, 0, 1],
    }
)
POLICY = rk.Policy(ties="input_order", cwl_target=1.5, cwl_max_grade=3)
ALL = [base + output for base in BASES for output in OUTPUTS]


def _per_group(policy: rk.Policy = POLICY, k: Any = (1, 2, 3, 5)) -> pl.DataFrame:
    result = rk.evaluate(CANDIDATES, TRUTH, k=k, metrics=ALL, group_by="user", policy=policy)
    assert isinstance(result.per_group, pl.DataFrame)
    return result.per_group.sort("user", "metric", "k")


def test_kernel_and_pure_polars_agree_and_say_which_terms_ran_where(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_kernel = rk.evaluate(CANDIDATES, TRUTH, k=3, metrics=ALL, group_by="user", policy=POLICY)
    monkeypatch.setenv("POLARS_RANKK_NATIVE", "0")
    pure = _per_group(k=3)
    assert_frame_equal(pure, with_kernel.per_group.sort("user", "metric", "k"))
    path = with_kernel.diagnostics.path
    if path.startswith("native kernel: loaded"):
        # SDCG (read at K <= 1000 only) is a linear term of the C/W/L gain, which the kernel
        # reads; the terms cut at cwl_eval's depth (the kernel's weights have no step) and the
        # measures whose C(i) depends on the gains seen so far run in Polars.
        assert "in pure Polars" in path
        assert all(term in path for term in ("inst_weight", "bpm_gain", "nerr8_gain", "insq"))
        ran_in_polars = path.split("the terms ")[1].split(" in pure Polars")[0].split(", ")
        assert "sdcg" not in ran_in_polars
        only_linear = rk.evaluate(
            CANDIDATES, TRUTH, k=3, metrics=["sdcg", "sdcg_depth"], group_by="user", policy=POLICY
        )
        assert "pure Polars" not in only_linear.diagnostics.path


def test_k_curve_equals_evaluate_at_every_k() -> None:
    metrics = ["sdcg", "insq", "inst", "bpm", "nerr8", "nerr9", "nerr10", "nerr11"]
    curve = rk.k_curve(
        {"A": CANDIDATES},
        TRUTH,
        k_max=5,
        metrics=metrics,
        group_by="user",
        policy=POLICY,
        ci=False,
    )
    summary = (
        rk.evaluate(
            CANDIDATES, TRUTH, k=range(1, 6), metrics=metrics, group_by="user", policy=POLICY
        )
        .summary()
        .select("metric", "k", "value")
        .sort("metric", "k")
    )
    mine = curve.select("metric", "k", "value").sort("metric", "k")
    assert_frame_equal(mine, summary, check_exact=False, rel_tol=0, abs_tol=1e-12)


def test_lazy_input_gives_the_same_numbers() -> None:
    lazy = rk.evaluate(
        CANDIDATES.lazy(),
        TRUTH.lazy(),
        k=(1, 2, 3, 5),
        metrics=ALL,
        group_by="user",
        policy=POLICY,
    )
    per_group = lazy.per_group
    frame = per_group.collect() if isinstance(per_group, pl.LazyFrame) else per_group
    assert_frame_equal(frame.sort("user", "metric", "k"), _per_group())


def test_rank_only_measures_have_an_exact_expectation_over_ties() -> None:
    expected = rk.Policy(ties="expected", cwl_max_grade=3)
    result = rk.evaluate(
        CANDIDATES, TRUTH, k=3, metrics=["sdcg", "insq"], group_by="user", policy=expected
    )
    # user 2's two first items tie: the mean of both orders.
    orders = []
    for order in (["20", "21"], ["21", "20"]):
        ranked = CANDIDATES.with_columns(
            pl.when(pl.col("item").cast(pl.String) == order[0])
            .then(1.1)
            .otherwise(pl.col("score"))
            .alias("score")
        )
        orders.append(
            rk.evaluate(
                ranked,
                TRUTH,
                k=3,
                metrics=["sdcg"],
                group_by="user",
                policy=rk.Policy(cwl_max_grade=3),
            ).per_group.filter(pl.col("user") == 2)["value"][0]
        )
    got = result.per_group.filter((pl.col("user") == 2) & (pl.col("metric") == "sdcg"))
    assert math.isclose(got["value"][0], sum(orders) / 2, abs_tol=1e-12)
    with pytest.raises(ValueError, match="inst"):
        rk.evaluate(CANDIDATES, TRUTH, k=3, metrics=["inst"], group_by="user", policy=expected)


@pytest.mark.parametrize(
    ("name", "metric", "k", "fields"),
    [
        ("INST(T=3,max_rel=2)", "inst", None, {"cwl_target": 3.0, "cwl_max_grade": 2.0}),
        ("SDCG(max_rel=3)@10", "sdcg", 10, {"cwl_max_grade": 3.0}),
        ("NERR8(max_rel=1)@5", "nerr8", 5, {"cwl_max_grade": 1.0}),
        ("NERR10(max_rel=1)", "nerr10", None, {"rbp_persistence": 0.9, "cwl_max_grade": 1.0}),
        ("BPM(T=2,max_rel=1)@5", "bpm", 5, {"cwl_target": 2.0, "cwl_max_grade": 1.0}),
    ],
)
def test_names_are_read_and_written_back(
    name: str, metric: str, k: int | None, fields: dict[str, float]
) -> None:
    from polars_rankk.core.names.parse import parse_metric_name
    from polars_rankk.core.names.write import written_name

    request = parse_metric_name(name)
    assert (request.metric, request.k, request.policy) == (metric, k, fields)
    policy = rk.Policy(ties="input_order", **fields)  # type: ignore[arg-type]
    written, reason = written_name(metric, k, policy, "ir_measures")
    assert reason is None
    assert parse_metric_name(written) == request


def test_names_are_not_written_back_where_cwl_eval_would_differ() -> None:
    from polars_rankk.core.names.write import written_name

    assert written_name("inst", None)[1] is not None  # trec_eval's tie order, not the run's
    order = rk.Policy(ties="input_order")
    assert written_name("inst", 10, order)[1] is not None  # INST has no cut-off there
    assert written_name("sdcg", 10, order.replace(cwl_max_grade=2.5))[1] is not None
    assert written_name("inst_depth", None, order)[1] is not None


def test_gains_outside_the_scale_are_clipped_and_bad_targets_refused() -> None:
    with pytest.raises(ValueError, match="cwl_max_grade"):
        rk.Policy(cwl_max_grade=0)
    with pytest.raises(ValueError, match="cwl_target"):
        rk.evaluate(
            CANDIDATES,
            TRUTH,
            k=3,
            metrics=["inst"],
            group_by="user",
            policy=rk.Policy(cwl_target=0.1),
        )


def test_buckets_compare_the_table_and_dask_give_evaluates_numbers(tmp_path: Any) -> None:
    policy = POLICY.replace(ties="trec_eval")  # the distributed engines' deterministic order
    metrics = ["sdcg", "inst", "inst_depth", "bpm", "nerr9", "nerr10_total_gain", "insq"]
    reference = rk.evaluate(
        CANDIDATES, TRUTH, k=[2, 5], metrics=metrics, group_by="user", policy=policy
    )
    summary = reference.summary().sort("metric", "k")
    buckets = rk.evaluate_in_buckets(
        CANDIDATES, TRUTH, output=tmp_path / "out", buckets=2, k=[2, 5], metrics=metrics,
        group_by="user", policy=policy, progress=False, resume=False,
    )  # fmt: skip
    bucketed = buckets.summary().sort("metric", "k")
    assert_frame_equal(
        bucketed.select("metric", "k", "value"), summary.select("metric", "k", "value"),
        check_exact=False, rel_tol=1e-12, abs_tol=1e-12,
    )  # fmt: skip
    table = rk.compare({"a": reference, "b": reference}, baseline="a", n_resamples=20)
    assert set(metrics) <= set(table["metric"].to_list())
    assert (table.filter(pl.col("diff").is_not_nan())["diff"].abs() <= 1e-12).all()
    markdown = reference.to_markdown()
    for row in summary.iter_rows(named=True):
        assert f"{row['value']:.4f}" in markdown, row
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask

    with dask.config.set(scheduler="threads", num_workers=2):
        result = evaluate_dask(
            dd.from_pandas(CANDIDATES.to_pandas(), npartitions=2, sort=False),
            dd.from_pandas(TRUTH.to_pandas(), npartitions=2, sort=False),
            k=[2, 5], metrics=metrics, group_by="user", policy=policy,
        )  # fmt: skip
        got = pl.from_pandas(result.compute()).sort("user", "metric", "k")
    want = reference.per_group
    assert isinstance(want, pl.DataFrame)
    assert_frame_equal(
        got.select("user", "metric", "k", "value"),
        want.sort("user", "metric", "k").select("user", "metric", "k", "value"),
        check_exact=False, rel_tol=1e-12, abs_tol=1e-12, check_dtypes=False,
    )  # fmt: skip


def test_the_report_shows_the_family() -> None:
    other = CANDIDATES.with_columns(pl.col("score").reverse().over("user"))
    html = rk.render_report(
        {"a": CANDIDATES, "b": other}, TRUTH, k=[2, 5], metrics=["inst", "sdcg", "nerr10_depth"],
        group_by="user", policy=POLICY, n_resamples=20, progress=False,
    )  # fmt: skip
    # Each metric's definition line is in the report's metric notes.
    for what in ("C/W/L INST, expected rate of gain", "C/W/L SDCG", "C/W/L NERR10, expected depth"):
        assert what in html, what


def test_a_tie_block_gaining_below_the_relevance_threshold_is_read_whole() -> None:
    """Under ``ties="expected"`` a block whose only gain is a grade below the relevance
    threshold (C/W/L gain 1/2, binary gain 0) gains at every rank it covers: each order's
    cwl_eval number, averaged (the reference once left out the block's rows after the
    first, as if none of them could add)."""
    import ir_measures
    from ir_measures import INSQ, SDCG

    logging.getLogger("ir_measures.cwl_eval").disabled = True
    candidates = pl.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [0.0, 0.0]})
    truth = pl.DataFrame({"user": [1, 1], "item": ["a", "b"], "relevance": [0, 1]})
    policy = rk.Policy(
        ties="expected", relevance_threshold=2, cwl_max_grade=2, gain="binary", empty_truth="zero"
    )
    qrels = [ir_measures.Qrel("q", "a", 0), ir_measures.Qrel("q", "b", 1)]
    measures = {"insq": INSQ(T=1, max_rel=2), "sdcg": SDCG(max_rel=2) @ 2}
    provider = ir_measures.providers.registry["cwl_eval"]
    want = dict.fromkeys(measures, 0.0)
    for order in (("a", "b"), ("b", "a")):
        run = [ir_measures.ScoredDoc("q", doc, 2.0 - i) for i, doc in enumerate(order)]
        for name, measure in measures.items():
            want[name] += provider.evaluator([measure], qrels).calc_aggregate(run)[measure] / 2
    result = rk.evaluate(
        candidates, truth, k=2, metrics=list(measures), group_by="user", policy=policy
    )
    got = dict(result.per_group.select("metric", "value").iter_rows())
    assert all(math.isclose(got[name], want[name], abs_tol=TOL) for name in measures), (got, want)


def test_gains_past_cwl_evals_depth_count_nothing_at_the_whole_list_or_past_it() -> None:
    """cwl_eval truncates every ranking to 1000 ranks: a gain at rank 1001 or later enters no
    number, read over the whole list (ir_measures' INSQ, INST, NERR10, NERR11) or at K > 1000.
    It once entered INSQ's rate and the total gains through the running gain."""
    import ir_measures
    from ir_measures import BPM, INSQ, INST, NERR10, NERR11

    logging.getLogger("ir_measures.cwl_eval").disabled = True
    n = 1010
    # q0 gains at ranks 6, 10 and past 995 (some past 1000); q1 only past 1000.
    relevant = {"q0": {5, 9, *range(995, n)}, "q1": {1004, 1007}}
    rows = [(q, i, float(n - i), int(i in relevant[q])) for q in relevant for i in range(n)]
    cand = pl.DataFrame(rows, schema=["q", "item", "score", "relevance"], orient="row")
    truth = cand.select("q", "item", "relevance")
    cand = cand.drop("relevance")
    qrels = [ir_measures.Qrel(q, str(i), rel) for q, i, _, rel in rows]
    run = [ir_measures.ScoredDoc(q, str(i), score) for q, i, score, _ in rows]
    measures = {
        "insq": INSQ(T=2.0, max_rel=1),
        "inst": INST(T=2.0, max_rel=1),
        "nerr10": NERR10(p=0.8, max_rel=1),
        "nerr11": NERR11(T=2.0, max_rel=1),
        "bpm": BPM(T=2.0, max_rel=1) @ 1000,
    }
    name_of = {str(measure): name for name, measure in measures.items()}
    provider = ir_measures.providers.registry["cwl_eval"]
    want = {}
    for row in provider.evaluator(list(measures.values()), qrels).iter_calc(run):
        name = name_of[str(row.measure)]
        want[row.query_id, name] = row.value
        want[row.query_id, f"{name}_total_gain"] = row.expected_total_utility
    policy = rk.Policy(ties="input_order", cwl_target=2.0, rbp_persistence=0.8)
    whole = rk.evaluate(
        cand,
        truth,
        k=1,
        metrics=[str(m) for m in measures.values()][:4],
        group_by="q",
        policy=policy,
    ).per_group
    past = rk.evaluate(
        cand,
        truth,
        k=1200,
        metrics=[key[1] for key in want if key[0] == "q0"],
        group_by="q",
        policy=policy,
    ).per_group
    got = {(row["q"], row["metric"]): row["value"] for row in past.iter_rows(named=True)}
    for row in whole.iter_rows(named=True):
        assert math.isclose(row["value"], want[row["q"], row["metric"]], abs_tol=TOL)
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=TOL, abs_tol=TOL), (key, got[key], value)


@settings(deadline=None, max_examples=examples(60), derandomize=True, database=None)
@given(x=st.floats(min_value=0.25, max_value=5000.0))
def test_the_tails_digamma_and_trigamma_agree_with_scipy_to_the_last_digits(x: float) -> None:
    """The closed-form tails read ψ and ψ1 from asymptotic series; cut after B_6 (ψ) and B_8
    (ψ1) they were 2e-11 off at x = 1, against the 1e-14 the module promised."""
    from scipy.special import digamma as scipy_digamma
    from scipy.special import polygamma

    from polars_rankk.core.metrics.families.cwl_math import digamma, trigamma

    frame = pl.DataFrame({"x": [x]})
    psi, psi1 = frame.select(
        digamma(pl.col("x")).alias("psi"), trigamma(pl.col("x")).alias("psi1")
    ).row(0)
    assert psi == pytest.approx(float(scipy_digamma(x)), rel=1e-14, abs=1e-14)
    assert psi1 == pytest.approx(float(polygamma(1, x)), rel=1e-14)


@pytest.mark.parametrize("name", ["inst", "nerr9", "nerr11"])
def test_the_tails_expression_stays_small_and_equals_evaluate(name: str) -> None:
    """The expressions whose tails read digamma and trigamma read the ranked rows and each
    statistic once: the expression stays far below the 2.1 million characters it reached
    when every term copied the ranking (seconds per group), and its values are `evaluate`'s."""
    at_k = getattr(rk, f"{name}_at_k")
    expression = at_k("relevance", by="score", k=3, item="item", policy=POLICY,
                      unretrieved="unretrieved")  # fmt: skip
    assert len(str(expression)) < 150_000
    labelled = rk.label(CANDIDATES, TRUTH, group_by="user", policy=POLICY)
    mine = labelled.group_by("user").agg(expression).sort("user")
    theirs = _per_group(k=3).filter(pl.col("metric") == name).sort("user")
    assert mine[f"{name}@3"].to_list() == pytest.approx(theirs["value"].to_list(), abs=1e-12)


@pytest.mark.parametrize("name", ["inst", "nerr9", "precision", "ndcg"])
@pytest.mark.parametrize("duplicates", ["first", "error"])  # "error": no kernel, pure Polars
def test_a_group_with_no_ranked_row_is_scored_as_evaluate_scores_it(
    name: str, duplicates: str
) -> None:
    """A group whose every score is dropped has no ranked row; its expression value is
    `evaluate`'s (0, its relevant items never retrieved), not null."""
    policy = rk.Policy(invalid_scores="drop", duplicates=duplicates, cwl_target=1.5)  # type: ignore[arg-type]
    candidates = pl.DataFrame(
        {"user": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [math.nan, math.nan, 0.5, 0.2]}
    )
    truth = pl.DataFrame({"user": [1, 1, 2], "item": [1, 5, 3], "relevance": [1, 2, 1]})
    labelled = rk.label(candidates, truth, group_by="user", policy=policy)
    expression = getattr(rk, f"{name}_at_k")(
        "relevance", by="score", k=3, item="item", policy=policy, unretrieved="unretrieved"
    )
    mine = labelled.group_by("user").agg(expression).sort("user")[f"{name}@3"].to_list()
    result = rk.evaluate(candidates, truth, k=3, metrics=[name], group_by="user", policy=policy)
    assert isinstance(result.per_group, pl.DataFrame)
    theirs = result.per_group.sort("user")["value"].to_list()
    assert mine == pytest.approx(theirs, abs=1e-12)
    assert mine[0] == 0.0
