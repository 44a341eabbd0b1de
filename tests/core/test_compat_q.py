"""The Q-measure against a brute force of Sakai's definition, Compat against ir_measures'
compat provider, per query; the kernel and pure Polars agree, on every path.

Hypothesis draws runs with graded relevance, unjudged candidates, ties, repeated items, short
and empty lists and groups without a relevant item (`tests.support.ranking_cases`). The
provider sorts a run by score, equal scores by docno (a string) ascending, and orders equal
grades of its ideal ranking by the run's score, then by the qrels' order: ``Policy(ties=
"item_asc")`` reproduces it when the docnos sort as the items do (int ids are zero-padded),
the scores handed over are positive (their dense rank: an unretrieved item scores 0 there)
and the qrels come in docno order. The run handed over is the de-duplicated candidates (each
item's highest-scored copy).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.engines.test_spark import spark  # noqa: F401  (the module's Spark session)
from tests.support import reference as ref
from tests.support.examples import examples
from tests.support.ranking_cases import cases, frames

SETTINGS = settings(deadline=None, max_examples=examples(40), derandomize=True, database=None)
TOL = 1e-9


def _docno(item: Any) -> str:
    return f"{item:04d}" if isinstance(item, int) else str(item)


def _groups(case: dict[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Per group key: its run rows (item, score) and its truth (item -> grade)."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in case["candidates"]:
        key = tuple(row[c] for c in case["group_by"])
        groups.setdefault(key, {"run": [], "truth": {}})["run"].append(
            (row["item"], float(row["score"]))
        )
    for row in case["truth"]:
        key = tuple(row[c] for c in case["group_by"])
        groups.setdefault(key, {"run": [], "truth": {}})["truth"][row["item"]] = row["relevance"]
    return groups


def _compat_provider(case: dict[str, Any], p: float) -> ref.Result:
    import ir_measures
    from ir_measures import Compat

    qrels, run, key_of = [], [], {}
    for index, (key, group) in enumerate(_groups(case).items()):
        qid = f"q{index}"
        key_of[qid] = key
        for item in sorted(group["truth"]):
            qrels.append(ir_measures.Qrel(qid, _docno(item), int(group["truth"][item])))
        best: dict[Any, float] = {}
        for item, score in group["run"]:
            best[item] = max(score, best.get(item, -math.inf))
        levels = sorted(set(best.values()))
        for item, score in best.items():
            run.append(ir_measures.ScoredDoc(qid, _docno(item), float(levels.index(score) + 1)))
    measure = Compat(p=p)
    provider = ir_measures.providers.registry["compat"]
    return {
        (key_of[row.query_id], "compat", None): row.value
        for row in provider.evaluator([measure], qrels).iter_calc(run)
    }


def _ours(case: dict[str, Any], metrics: list[str], k: Any, policy: rk.Policy) -> ref.Result:
    cand, truth = frames(case)
    result = rk.evaluate(
        cand, truth, k=k, metrics=metrics, group_by=case["group_by"], policy=policy
    )
    return ref.per_group_dict(result.per_group, case["group_by"], labels_as_metrics=True)


@SETTINGS
@given(case=cases(max_candidates=9), p=st.sampled_from([0.95, 0.8, 0.5]))
def test_compat_equals_the_ir_measures_provider_per_query(case: dict[str, Any], p: float) -> None:
    policy = rk.Policy(ties="item_asc", empty_truth="zero", compat_persistence=p)
    got = _ours(case, ["compat"], 10, policy)
    want = _compat_provider(case, p)
    for key, value in want.items():
        assert key in got, key
        assert math.isclose(got[key], value, rel_tol=TOL, abs_tol=TOL), (key, got[key], value)


@SETTINGS
@given(
    case=cases(max_candidates=9),
    k=st.sampled_from([1, 3, 10]),
    beta=st.sampled_from([1.0, 0.0, 2.5]),
    min_k=st.booleans(),
)
def test_q_measure_equals_its_brute_force_per_query(
    case: dict[str, Any], k: int, beta: float, min_k: bool
) -> None:
    policy = rk.Policy(
        ties="item_asc",
        empty_truth="zero",
        q_beta=beta,
        ap_denominator="min_k_relevant" if min_k else "relevant",
    )
    got = _ours(case, ["q_measure"], k, policy)
    for key, group in _groups(case).items():
        if not group["truth"]:
            continue
        want = ref.q_measure(group["run"], group["truth"], k=k, beta=beta, min_k=min_k)
        value = got[key, "q_measure", k]
        assert math.isclose(value, want, rel_tol=TOL, abs_tol=TOL), (key, value, want)


def test_q_measure_with_beta_zero_is_average_precision() -> None:
    cand, truth = frames(_CASE)
    per_group = rk.evaluate(
        cand,
        truth,
        k=5,
        metrics=["q_measure", "average_precision"],
        group_by="g",
        policy=rk.Policy(q_beta=0),
    ).per_group
    wide = per_group.pivot("metric", index="g", values="value")
    assert_frame_equal(
        wide.select(pl.col("q_measure").alias("x")),
        wide.select(pl.col("average_precision").alias("x")),
    )


# --- one number on every path ------------------------------------------------------------------

_CASE: dict[str, Any] = {
    "group_by": ["g"],
    "id_kind": "int",
    "candidates": [
        {"g": g, "item": item, "score": score}
        for g, item, score in [
            (1, 10, 0.9),
            (1, 11, 0.5),
            (1, 12, 0.5),
            (1, 13, 0.1),
            (1, 10, 0.2),
            (2, 20, 1.0),
            (2, 21, 1.0),
            (2, 22, 0.3),
            (3, 30, 0.4),
        ]
    ],
    "truth": [
        {"g": g, "item": item, "relevance": grade}
        for g, item, grade in [
            (1, 10, 3),
            (1, 12, 1),
            (1, 14, 2),
            (2, 21, 2),
            (2, 22, 0),
            (3, 31, 1),
        ]
    ],
}
METRICS = ["q_measure", "compat"]
POLICY = rk.Policy(q_beta=0.5, compat_persistence=0.8)


def _per_group(k: Any = (1, 2, 3, 5)) -> pl.DataFrame:
    cand, truth = frames(_CASE)
    result = rk.evaluate(cand, truth, k=k, metrics=METRICS, group_by="g", policy=POLICY)
    assert isinstance(result.per_group, pl.DataFrame)
    return result.per_group.sort("g", "metric", "k")


def test_kernel_and_pure_polars_agree_and_say_which_terms_ran_where(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cand, truth = frames(_CASE)
    with_kernel = rk.evaluate(cand, truth, k=3, metrics=METRICS, group_by="g", policy=POLICY)
    monkeypatch.setenv("POLARS_RANKK_NATIVE", "0")
    pure = _per_group(k=3)
    assert_frame_equal(pure, with_kernel.per_group.sort("g", "metric", "k"))
    path = with_kernel.diagnostics.path
    if path.startswith("native kernel: loaded"):
        assert "in pure Polars" in path
        assert all(term in path for term in ("q_measure", "compat"))


def test_lazy_input_gives_the_same_numbers() -> None:
    cand, truth = frames(_CASE)
    lazy = rk.evaluate(
        cand.lazy(), truth.lazy(), k=(1, 2, 3, 5), metrics=METRICS, group_by="g", policy=POLICY
    )
    per_group = lazy.per_group
    frame = per_group.collect() if isinstance(per_group, pl.LazyFrame) else per_group
    assert_frame_equal(frame.sort("g", "metric", "k"), _per_group())


def test_k_curve_equals_evaluate_at_every_k() -> None:
    cand, truth = frames(_CASE)
    curve = rk.k_curve(
        {"A": cand}, truth, k_max=5, metrics=["q_measure"], group_by="g", policy=POLICY, ci=False
    )
    summary = (
        rk.evaluate(cand, truth, k=range(1, 6), metrics=["q_measure"], group_by="g", policy=POLICY)
        .summary()
        .select("metric", "k", "value")
        .sort("metric", "k")
    )
    mine = curve.select("metric", "k", "value").sort("metric", "k")
    assert_frame_equal(mine, summary, check_exact=False, rel_tol=0, abs_tol=1e-12)


def test_ties_expected_is_refused_naming_them() -> None:
    cand, truth = frames(_CASE)
    for metric in METRICS:
        with pytest.raises(ValueError, match=metric):
            rk.evaluate(
                cand, truth, k=3, metrics=[metric], group_by="g", policy=rk.Policy(ties="expected")
            )


@pytest.mark.parametrize(
    ("name", "metric", "k", "fields"),
    [
        ("Compat", "compat", None, {}),
        ("Compat(p=0.8)", "compat", None, {"compat_persistence": 0.8}),
        ("Q@10", "q_measure", 10, {}),
        ("Q(beta=0.5)@5", "q_measure", 5, {"q_beta": 0.5}),
    ],
)
def test_names_are_read_and_written_back(
    name: str, metric: str, k: int | None, fields: dict[str, float]
) -> None:
    from polars_rankk.core.names.parse import parse_metric_name
    from polars_rankk.core.names.write import written_name

    request = parse_metric_name(name)
    assert (request.metric, request.k, request.policy) == (metric, k, fields)
    policy = rk.Policy(ties="item_asc", empty_truth="zero", **fields)  # type: ignore[arg-type]
    written, reason = written_name(metric, k, policy, "ir_measures")
    if metric == "compat":
        assert reason is None
        assert parse_metric_name(written) == request
    else:  # ir_measures has no Q-measure: the canonical name stays, with the reason
        assert (written, reason) == (f"q_measure@{k}", "ir_measures has no q_measure")
    assert parse_metric_name("Q").whole_list


@pytest.mark.parametrize("name", ["compat", "Q@5", "q_measure"])
def test_the_expression_api_refuses_them_naming_evaluate(name: str) -> None:
    with pytest.raises(ValueError, match="reads the ideal ranking rank by rank"):
        rk.metrics_expression(name, "rel", by="score")


def test_relevant_items_a_labelled_list_missed_enter_the_ideal_ranking() -> None:
    # Pre-labelled lists (no truth table): n_relevant says how many relevant items there are;
    # the ones the list missed sit at the threshold grade, last in the ideal ranking.
    labelled = pl.DataFrame(
        {
            "g": [1, 1, 1, 2, 2],
            "item": [1, 2, 3, 4, 5],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
            "relevance": [0, 2, 1, 3, 0],
            "n_rel": [4, 4, 4, 1, 1],
        }
    )
    per_group = rk.evaluate(
        labelled, None, k=3, metrics=METRICS, group_by="g", n_relevant="n_rel", policy=POLICY
    ).per_group
    got = {(row["g"], row["metric"]): row["value"] for row in per_group.iter_rows(named=True)}
    truths = {1: {1: 0, 2: 2, 3: 1, "x": 1, "y": 1}, 2: {4: 3, 5: 0}}
    runs = {1: [(1, 3.0), (2, 2.0), (3, 1.0)], 2: [(4, 2.0), (5, 1.0)]}
    for g in (1, 2):
        want = ref.q_measure(runs[g], truths[g], k=3, beta=0.5)
        assert math.isclose(got[g, "q_measure"], want, abs_tol=1e-12), (g, want)
    # Compat: group 1's ideal is 2 (grade 2), then 3 and the two missed items (grade 1).
    p, depth = 0.8, 4
    overlap = sum(p ** (i - 1) * len({2, 3} & set(range(2, i + 1))) / i for i in range(1, 5))
    best = sum(p ** (i - 1) * min(i, 4) / i for i in range(1, depth + 1))
    assert math.isclose(got[1, "compat"], overlap / best, abs_tol=1e-12)


def _two_systems() -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    truth = pl.DataFrame(
        {
            "query": [f"q{q}" for q in range(6) for _ in range(4)],
            "item": [f"d{i}" for _ in range(6) for i in (0, 2, 5, 9)],
            "relevance": [(q + i) % 4 for q in range(6) for i in (0, 2, 5, 9)],
        }
    )
    runs = {
        system: pl.DataFrame(
            {
                "query": [f"q{q}" for q in range(6) for _ in range(8)],
                "item": [f"d{i}" for _ in range(6) for i in range(8)],
                "score": [float((i * 5 + shift + q) % 8) for q in range(6) for i in range(8)],
            }
        )
        for system, shift in (("a", 0), ("b", 3))
    }
    return runs, truth


def test_compare_tables_and_several_systems_read_them() -> None:
    runs, truth = _two_systems()
    names = ["Q@5", "Compat(p=0.8)", "ndcg"]
    evaluations = {
        name: rk.evaluate(run, truth, k=5, group_by="query", metrics=names)
        for name, run in runs.items()
    }
    compared = rk.compare(evaluations, baseline="a", n_resamples=50, n_permutations=50)
    assert {"q_measure", "Compat(p=0.8)"} <= set(compared["metric"])  # labelled as typed
    table = rk.systems_table(evaluations)
    assert {"q_measure@5", "Compat(p=0.8)"} <= set(table.columns)
    both = pl.concat([run.with_columns(pl.lit(name).alias("run")) for name, run in runs.items()])
    together = rk.evaluate(both, truth, k=5, group_by="query", metrics=names, system="run")
    for name, alone in evaluations.items():
        mine = together.per_group.filter(pl.col("run") == name).drop("run")
        assert_frame_equal(
            mine.sort("query", "metric", "k"), alone.per_group.sort("query", "metric", "k")
        )


def test_kept_copies_are_never_written_back_under_a_tools_name() -> None:
    """ir_measures (and trec_eval) read a run as one entry per (query, doc); under
    ``duplicates="keep"`` a second copy of a relevant item is a second relevant row here, so
    Compat reads 1.0 where the provider reads 0.8945: the name must not say Compat."""
    from polars_rankk.core.names.write import written_name

    candidates = pl.DataFrame(
        {"q": ["1"] * 4, "item": ["a", "a", "b", "c"], "score": [4.0, 3.0, 2.0, 1.0]}
    )
    truth = pl.DataFrame({"q": ["1"] * 3, "item": ["a", "b", "d"], "relevance": [2, 1, 1]})
    policy = rk.Policy(ties="item_asc", empty_truth="zero")
    values = {}
    for duplicates in ("first", "keep"):
        chosen = policy.replace(duplicates=duplicates)
        result = rk.evaluate(candidates, truth, k=5, metrics="compat", group_by="q", policy=chosen)
        values[duplicates] = result.per_group["value"][0]
        name, reason = written_name("compat", None, chosen)
        assert (name == "Compat") == (duplicates == "first"), (name, reason)
    assert values["first"] == pytest.approx(0.8945369558866492, abs=1e-12)  # the provider's
    assert values["keep"] == pytest.approx(1.0)
    for metric, k in (("q_measure", 5), ("inst", None), ("ndcg", 5), ("alpha_ndcg", 5)):
        for tool in ("ir_measures", "trec_eval"):
            name, reason = written_name(metric, k, policy.replace(duplicates="keep"), tool)
            assert reason is not None, (metric, tool, name)
            assert "once" in reason, (metric, tool, name, reason)


def test_dask_and_spark_give_evaluates_numbers(spark: Any) -> None:  # noqa: F811
    """The ideal ranking is joined from the truth on the distributed engines too."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.dask import evaluate_dask
    from polars_rankk.engines import spark as on_spark

    cand, truth = frames(_CASE)
    policy = POLICY.replace(ties="trec_eval")  # the distributed engines' deterministic order
    options: dict[str, Any] = {"k": [2, 5], "metrics": METRICS, "group_by": "g", "policy": policy}
    want = rk.evaluate(cand, truth, **options).per_group
    assert isinstance(want, pl.DataFrame)
    columns = ["g", "metric", "k", "value"]
    want = want.sort("g", "metric", "k").select(columns)
    with dask.config.set(scheduler="threads", num_workers=2):
        on_dask = evaluate_dask(
            dd.from_pandas(cand.to_pandas(), npartitions=2, sort=False),
            dd.from_pandas(truth.to_pandas(), npartitions=2, sort=False),
            **options,
        ).compute()
    spark_frames = [spark.createDataFrame(frame.to_pandas()) for frame in (cand, truth)]
    on_spark_rows = on_spark.evaluate_spark(*spark_frames, **options).toPandas()
    for got in (on_dask, on_spark_rows):
        assert_frame_equal(
            pl.from_pandas(got).sort("g", "metric", "k").select(columns), want,
            check_exact=False, rel_tol=1e-12, abs_tol=1e-12, check_dtypes=False,
        )  # fmt: skip


def test_compat_reads_the_ranking_not_the_sign_of_its_scores() -> None:
    """The compat provider scores an unretrieved item 0.0 when it orders equal grades of its
    ideal ranking, so the same ranking under negative scores puts an unretrieved relevant item
    before a retrieved one (0.304 where shifted scores read 0.696); the ideal here orders equal
    grades as the run ranks them, whatever the scores' sign (docs/definitions.md, Compat)."""
    import ir_measures
    from ir_measures import Compat

    truth = pl.DataFrame({"q": ["1"] * 3, "item": ["a", "b", "c"], "relevance": [1, 1, 0]})
    qrels = [ir_measures.Qrel("1", item, grade) for item, grade in (("a", 1), ("b", 1), ("c", 0))]
    policy = rk.Policy(ties="item_asc", empty_truth="zero")
    provider, ours = [], []
    for shift in (0.0, 10.0):
        scores = [-1.0 + shift, -2.0 + shift, -3.0 + shift]
        candidates = pl.DataFrame({"q": ["1"] * 3, "item": ["b", "x", "c"], "score": scores})
        run = [
            ir_measures.ScoredDoc("1", i, s) for i, s in zip(["b", "x", "c"], scores, strict=True)
        ]
        provider.append(ir_measures.calc_aggregate([Compat()], qrels, run)[Compat()])
        result = rk.evaluate(candidates, truth, k=3, metrics="compat", group_by="q", policy=policy)
        ours.append(result.per_group["value"][0])
    assert ours[0] == pytest.approx(ours[1], abs=1e-12)
    assert ours[1] == pytest.approx(provider[1], abs=1e-12)  # positive scores: the provider's
    assert provider[0] == pytest.approx(0.3040496407576747, abs=1e-12) != ours[0]
