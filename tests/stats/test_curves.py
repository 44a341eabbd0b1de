"""K-sensitivity curves (polars_rankk/curves.py)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.stats.curves import CURVE_COLUMNS, curve_of_evaluations, k_curve
from polars_rankk.stats.distributions import distribution
from polars_rankk.stats.rank_sums import covers_every_k
from polars_rankk.stats.systems import evaluate_systems, for_systems


def _data(
    n_users: int = 60, seed: int = 1
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Two systems over the same users, graded truth, and a user attribute table."""
    users = pl.DataFrame({"user": list(range(n_users))})
    items = pl.DataFrame({"item": list(range(12))})
    grid = users.join(items, how="cross").with_columns(
        (((pl.col("user") * 7 + pl.col("item") * 13 + seed) % 17) / 17).alias("noise")
    )
    cand_a = grid.select("user", "item", pl.col("noise").alias("score"))
    cand_b = grid.select("user", "item", (1 - pl.col("noise")).round(1).alias("score"))
    truth = grid.filter(pl.col("noise") > 0.75).select(
        "user", "item", (pl.col("item") % 3 + 1).alias("relevance")
    )
    attributes = users.with_columns(
        pl.when(pl.col("user") < n_users // 3)
        .then(pl.lit("light"))
        .otherwise(pl.lit("heavy"))
        .cast(pl.Enum(["light", "heavy"]))
        .alias("activity")
    )
    return cand_a, cand_b, truth, attributes


def test_curve_matches_evaluate_summary_exactly() -> None:
    cand_a, cand_b, truth, _ = _data()
    curve = k_curve({"A": cand_a, "B": cand_b}, truth, k_max=8, group_by="user", ci=False)
    assert curve.columns == list(CURVE_COLUMNS)
    assert curve.get_column("system").unique(maintain_order=True).to_list() == ["A", "B"]
    assert curve.get_column("k").unique().sort().to_list() == list(range(1, 9))
    assert "r_precision" not in curve.get_column("metric").to_list()
    for name, cand in {"A": cand_a, "B": cand_b}.items():
        summary = (
            rk.evaluate(cand, truth, k=range(1, 9), group_by="user")
            .summary()
            .filter(pl.col("k").is_not_null())
            .select("metric", "k", "value", "n_groups")
        )
        mine = curve.filter(pl.col("system") == name).select("metric", "k", "value", "n_groups")
        # Sums over ranks add in another order than the summary: equal to 1e-12 (module doc).
        assert_frame_equal(mine, summary, check_exact=False, rel_tol=0, abs_tol=1e-12)


def test_curve_intervals_are_reproducible_and_bracket_the_mean() -> None:
    cand_a, cand_b, truth, _ = _data()
    kwargs = {"k_max": 5, "metrics": ["recall", "ndcg"], "group_by": "user", "n_resamples": 200}
    first = k_curve({"A": cand_a, "B": cand_b}, truth, seed=3, **kwargs)  # type: ignore[arg-type]
    again = k_curve({"A": cand_a, "B": cand_b}, truth, seed=3, **kwargs)  # type: ignore[arg-type]
    assert_frame_equal(first, again)
    assert first.select(
        ((pl.col("ci_low") <= pl.col("value")) & (pl.col("value") <= pl.col("ci_high"))).all()
    ).item()
    # the interval is rk.bootstrap's for the same per-group values
    res = rk.evaluate(cand_a, truth, k=range(1, 6), metrics=["recall", "ndcg"], group_by="user")
    from polars_rankk.stats.resampling import bootstrap

    expected = bootstrap(res, n_resamples=200, seed=3).select("metric", "k", "ci_low", "ci_high")
    mine = first.filter(pl.col("system") == "A").select("metric", "k", "ci_low", "ci_high")
    assert_frame_equal(mine, expected)


def test_strata_from_attributes_and_from_group_keys() -> None:
    cand_a, _, truth, attributes = _data()
    curve = k_curve(
        {"A": cand_a},
        truth,
        k_max=3,
        metrics="hit_rate",
        group_by="user",
        by="activity",
        attributes=attributes,
        ci=False,
    )
    assert curve.columns == [
        "system",
        "activity",
        "metric",
        "k",
        "value",
        "ci_low",
        "ci_high",
        "n_groups",
    ]
    assert curve.get_column("activity").unique(maintain_order=True).to_list() == ["light", "heavy"]
    total = curve.group_by("k").agg(pl.col("n_groups").sum()).sort("k")
    overall = k_curve({"A": cand_a}, truth, k_max=3, metrics="hit_rate", group_by="user", ci=False)
    assert total.get_column("n_groups").to_list() == overall.get_column("n_groups").to_list()
    # a group key can be the stratum
    with_key = cand_a.join(attributes, on="user")
    truth_key = truth.join(attributes, on="user")
    by_key = k_curve(
        {"A": with_key},
        truth_key,
        k_max=3,
        metrics="hit_rate",
        group_by=["user", "activity"],
        by="activity",
        ci=False,
    )
    # (evaluate gives Enum keys back as String, so compare in one order)
    assert_frame_equal(
        by_key.sort("activity", "k"),
        curve.with_columns(pl.col("activity").cast(pl.String)).sort("activity", "k"),
    )


@pytest.mark.parametrize("count", ["n_candidates", "n_relevant"])
def test_the_groups_own_counts_as_strata_equal_the_per_group_means(count: str) -> None:
    """A stratum may be a column of the groups table itself (its list's length, its relevant
    count): each stratum's curve is the mean of evaluate's per-group values there."""
    cand_a, _, truth, _ = _data()
    curve = k_curve({"A": cand_a}, truth, k_max=3, metrics=["precision", "recall"],
                    group_by="user", by=count, ci=False)  # fmt: skip
    for k in (1, 2, 3):
        result = rk.evaluate(cand_a, truth, k=k, metrics=["precision", "recall"], group_by="user")
        expected = (
            result.per_group.join(result.groups.select("user", count), on="user")
            .group_by(count, "metric")
            .agg(pl.col("value").mean(), pl.len().alias("n_groups"))
        )
        got = curve.filter(pl.col("k") == k).select(count, "metric", "value", "n_groups")
        joined = expected.join(got, on=[count, "metric"], suffix="_curve")
        assert joined.height == expected.height == got.height
        assert (joined["value"] - joined["value_curve"]).abs().max() < 1e-12  # type: ignore[operator]
        assert joined["n_groups"].cast(pl.Int64).equals(joined["n_groups_curve"])


def test_system_column_split_and_evaluations_as_input() -> None:
    cand_a, cand_b, truth, _ = _data()
    both = pl.concat(
        [cand_a.with_columns(model=pl.lit("A")), cand_b.with_columns(model=pl.lit("B"))]
    )
    split = k_curve(both, truth, k_max=4, group_by="user", system="model", ci=False)
    mapping = k_curve({"A": cand_a, "B": cand_b}, truth, k_max=4, group_by="user", ci=False)
    assert_frame_equal(split, mapping)
    evaluations = evaluate_systems({"A": cand_a, "B": cand_b}, truth, k=[2, 4], group_by="user")
    from_evaluations = curve_of_evaluations(evaluations, ci=False)
    assert from_evaluations.get_column("k").unique().sort().to_list() == [2, 4]
    assert_frame_equal(
        from_evaluations, mapping.filter(pl.col("k").is_in([2, 4])), check_exact=True
    )
    single = k_curve(cand_a, truth, k_max=2, group_by="user", ci=False)
    assert single.get_column("system").unique().to_list() == ["system"]


def test_lazy_inputs_give_the_same_curve() -> None:
    cand_a, _, truth, attributes = _data()
    eager = k_curve(
        {"A": cand_a},
        truth,
        k_max=4,
        group_by="user",
        by="activity",
        attributes=attributes,
        ci=False,
    )
    lazy = k_curve(
        {"A": cand_a.lazy()},
        truth.lazy(),
        k_max=4,
        group_by="user",
        by="activity",
        attributes=attributes.lazy(),
        ci=False,
    )
    assert_frame_equal(lazy, eager, check_exact=True)


def test_for_systems_stacks_with_a_system_column() -> None:
    cand_a, cand_b, truth, _ = _data()
    evaluations = evaluate_systems({"A": cand_a, "B": cand_b}, truth, k=5, group_by="user")
    table = for_systems(evaluations, distribution, quantiles=[0.5])
    assert table.columns[0] == "system"
    assert table.get_column("system").unique(maintain_order=True).to_list() == ["A", "B"]
    with pytest.raises(ValueError, match="already has a 'system' column"):
        for_systems({"A": table}, lambda frame: frame)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k_max": 0}, ValueError, "k_max must be a positive integer"),
        ({"metrics": ["r_precision"]}, ValueError, "r_precision has no K"),
        ({"by": "metric"}, ValueError, "stratum columns cannot be named"),
        ({"group_by": None}, ValueError, "group_by is required"),
    ],
)
def test_errors(kwargs: dict, error: type[Exception], match: str) -> None:  # type: ignore[type-arg]
    cand_a, _, truth, _ = _data(n_users=6)
    options = {"k_max": 3, "group_by": "user", "ci": False, **kwargs}
    with pytest.raises(error, match=match):
        k_curve({"A": cand_a}, truth, **options)


def test_bad_systems() -> None:
    cand_a, _, truth, _ = _data(n_users=6)
    with pytest.raises(ValueError, match="systems is empty"):
        k_curve({}, truth, group_by="user")
    with pytest.raises(TypeError, match="system names must be non-empty strings"):
        k_curve({1: cand_a}, truth, group_by="user")  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must be a Polars frame"):
        k_curve({"A": [1, 2]}, truth, group_by="user")  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="is not a column"):
        k_curve(cand_a, truth, group_by="user", system="model")


# --- K-curves from sums over ranks --------------------------------------------

#: Every built-in metric summed over ranks (derived from its formula): all with a cut-off but
#: ERR, whose rows the compiled kernel does not carry.
_CURVE_METRICS = [m for m, entry in REGISTRY.items() if entry.rank_summed]


def test_the_rank_summed_metrics_are_derived_from_their_formulas() -> None:
    from polars_rankk.core.metrics.terms import TERMS

    with_k = {m for m, entry in REGISTRY.items() if entry.accuracy and entry.has_k}
    # Every metric with a K whose terms are declared linear or named code (the precision sum)
    # sums over ranks; ERR's cascade and the C/W/L user models whose continuation reads the
    # gain seen so far (INST, BPM, NERR: Polars-code terms) are evaluated at each K.
    polars_code = {
        m
        for m in with_k
        if any(TERMS[t].linear is None and TERMS[t].kernel is None for t in REGISTRY[m].terms)
    }
    # Evaluated at each K too: a geometric summary (gm_map, not a mean over groups), and
    # trec_eval's rbp_resid, whose formula is piecewise (0 where no rank is unjudged).
    geometric = {m for m in with_k if REGISTRY[m].aggregate != "mean"}
    piecewise = {"trec_rbp_residual"}
    assert set(_CURVE_METRICS) == with_k - {"err"} - polars_code - geometric - piecewise
    assert {"precision", "f1", "ndcg", "average_precision", "dcg", "judged"} <= set(_CURVE_METRICS)


def _curve_case() -> tuple[pl.DataFrame, pl.DataFrame]:
    import numpy as np

    rng = np.random.default_rng(1)
    users, per = 40, 12
    candidates = pl.DataFrame(
        {
            "user": np.repeat(np.arange(users), per),
            "item": rng.integers(0, 30, users * per),
            "score": rng.integers(0, 5, users * per).astype(float),
        }
    ).filter(~((pl.col("user") % 7 == 0) & (pl.col("score") < 3)))  # some short lists
    truth = pl.DataFrame(
        {
            "user": rng.integers(0, users + 5, 150),
            "item": rng.integers(0, 30, 150),
            "relevance": rng.integers(0, 4, 150),
        }
    )
    return candidates, truth


@pytest.mark.parametrize("short_lists", ["fixed", "observed", "skip"])
@pytest.mark.parametrize("ap_denominator", ["relevant", "min_k_relevant"])
@pytest.mark.parametrize("empty_truth", ["zero", "nan", "exclude"])
@pytest.mark.parametrize("pool", ["all", "restrict"])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_curve_equals_summary_at_every_k(
    short_lists: str, ap_denominator: str, empty_truth: str, pool: str, gain: str
) -> None:
    from polars_rankk.stats.curves import curve_of_evaluations

    candidates, truth = _curve_case()
    policy = rk.Policy(
        short_lists=short_lists,  # type: ignore[arg-type]
        ap_denominator=ap_denominator,  # type: ignore[arg-type]
        empty_truth=empty_truth,  # type: ignore[arg-type]
        pool=pool,  # type: ignore[arg-type]
        gain=gain,  # type: ignore[arg-type]
        duplicates="first",
        relevance_threshold=2,
    )
    options = {"group_by": "user", "policy": policy, "metrics": _CURVE_METRICS}
    res = rk.evaluate(candidates, truth, k=range(1, 13), **options)  # type: ignore[arg-type]
    assert res.ranking_rows() is not None  # the sums-over-ranks path
    curve = curve_of_evaluations({"a": res}, ci=False)
    for k in range(1, 13):
        summary = rk.evaluate(candidates, truth, k=k, **options).summary()  # type: ignore[arg-type]
        joined = curve.filter(pl.col("k") == k).join(summary, on=["metric", "k"], suffix="_s")
        assert joined.height == summary.height
        # Integer sums match exactly: group counts and the hit rate.
        assert joined["n_groups"].to_list() == joined["n_groups_s"].to_list()
        hit = joined.filter(pl.col("metric") == "hit_rate")
        assert hit["value"].to_list() == hit["value_s"].to_list()
        gap = joined.select((pl.col("value") - pl.col("value_s")).abs().max()).item()
        assert gap is None or gap <= 1e-12


def test_curve_intervals_equal_bootstrap_with_the_same_seed() -> None:
    from polars_rankk.stats.curves import curve_of_evaluations

    candidates, truth = _curve_case()
    policy = rk.Policy(short_lists="skip", empty_truth="nan", duplicates="first")
    res = rk.evaluate(candidates, truth, k=range(1, 11), group_by="user", policy=policy,
                      metrics=_CURVE_METRICS)  # fmt: skip
    curve = curve_of_evaluations({"a": res}, n_resamples=200, seed=7)
    intervals = rk.bootstrap(res, n_resamples=200, seed=7)
    joined = curve.join(intervals, on=["metric", "k"], suffix="_b")
    assert joined.height == intervals.height
    for bound in ("ci_low", "ci_high"):
        gap = joined.select((pl.col(bound) - pl.col(f"{bound}_b")).abs().max()).item()
        assert gap <= 1e-12
        assert joined[bound].null_count() == joined[f"{bound}_b"].null_count()


def test_curve_intervals_by_stratum_equal_bootstrap() -> None:
    from polars_rankk.stats.curves import curve_of_evaluations

    candidates, truth = _curve_case()
    res = rk.evaluate(candidates, truth, k=range(1, 6), group_by="user",
                      policy=rk.Policy(duplicates="first"), metrics=["ndcg", "f1"])  # fmt: skip
    attributes = res.groups.select("user", (pl.col("user") % 3).alias("segment"))
    curve = curve_of_evaluations({"a": res}, by="segment", attributes=attributes,
                                 n_resamples=100, seed=2)  # fmt: skip
    intervals = rk.bootstrap(res, n_resamples=100, seed=2, by="segment", attributes=attributes)
    joined = curve.join(intervals, on=["segment", "metric", "k"], suffix="_b")
    assert joined.height == intervals.height == 3 * 2 * 5
    gap = joined.select((pl.col("ci_high") - pl.col("ci_high_b")).abs().max()).item()
    assert gap <= 1e-12


def test_k_curve_eager_and_lazy_agree_and_expected_ties_fall_back() -> None:
    candidates, truth = _curve_case()
    policy = rk.Policy(duplicates="first")
    eager = rk.k_curve(candidates, truth, k_max=8, group_by="user", policy=policy, ci=False)
    lazy = rk.k_curve(candidates.lazy(), truth.lazy(), k_max=8, group_by="user",
                      policy=policy, ci=False)  # fmt: skip
    assert eager.equals(lazy)
    expected = rk.Policy(duplicates="first", ties="expected")
    res = rk.evaluate(candidates, truth, k=range(1, 9), group_by="user", policy=expected)
    assert res.ranking_rows() is None  # per-group path
    curve = rk.k_curve(candidates, truth, k_max=8, group_by="user", policy=expected, ci=False)
    summary = res.summary().filter(pl.col("k") == 8)
    joined = curve.filter(pl.col("k") == 8).join(summary, on=["metric", "k"])
    assert joined.select((pl.col("value") - pl.col("value_right")).abs().max()).item() <= 1e-12


def test_collect_runs_the_lazy_pipeline_once(monkeypatch: pytest.MonkeyPatch) -> None:
    candidates, truth = _curve_case()
    reads: list[int] = []

    def counted(frame: pl.DataFrame) -> pl.DataFrame:
        reads.append(frame.height)
        return frame

    source = candidates.lazy().map_batches(counted, schema=candidates.schema)
    policy = rk.Policy(duplicates="first")
    res = rk.evaluate(source, truth.lazy(), k=[1, 5], group_by="user", policy=policy)
    reads.clear()
    eager = res.collect(diagnostics=False)
    # Polars does not share the pass between the plans of one collect_all (it read the
    # candidates three times): the pipeline runs once, its views come from its result.
    assert len(reads) == 1
    assert not eager.is_lazy
    assert isinstance(eager.per_group, pl.DataFrame)
    assert isinstance(eager.groups, pl.DataFrame)
    reads.clear()
    eager.summary(), eager.wide(), eager.dropped
    assert reads == []
    expected = rk.evaluate(candidates, truth, k=[1, 5], group_by="user", policy=policy)
    assert_frame_equal(eager.per_group, expected.per_group)
    assert_frame_equal(eager.groups, expected.groups)
    assert_frame_equal(eager.summary(), expected.summary())
    assert_frame_equal(eager.wide(), expected.wide())

    # With the diagnostics (the default): one collect_all, and nothing collected after it.
    runs: list[int] = []
    real_collect_all = pl.collect_all

    def counting_collect_all(frames, *args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(len(frames))
        return real_collect_all(frames, *args, **kwargs)

    monkeypatch.setattr(pl, "collect_all", counting_collect_all)
    full = res.collect()
    assert len(runs) == 1
    runs.clear()
    reads.clear()
    found = full.diagnostics
    assert runs == []
    assert reads == []
    monkeypatch.undo()
    lazy = rk.evaluate(candidates.lazy(), truth.lazy(), k=[1, 5], group_by="user", policy=policy)
    # recall_ceiling is a float mean: its summation order may vary from run to run.
    assert_frame_equal(found.to_frame(), lazy.diagnostics.to_frame(), rel_tol=1e-12)


def test_k_curve_reads_any_table() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    candidates, truth = _curve_case()
    policy = rk.Policy(duplicates="first")
    other = candidates.with_columns(-pl.col("score"))
    options: dict[str, Any] = {"k_max": 5, "group_by": "user", "policy": policy, "n_resamples": 50}
    expected = rk.k_curve({"a": candidates, "b": other}, truth, **options)
    for systems, judged in (
        ({"a": candidates.to_pandas(), "b": other.to_arrow()}, truth.to_arrow()),
        ({"a": candidates.to_arrow().to_reader(), "b": other.to_pandas()}, truth.to_pandas()),
    ):
        assert_frame_equal(rk.k_curve(systems, judged, **options), expected)
    both = pl.concat(
        [candidates.with_columns(run=pl.lit("a")), other.with_columns(run=pl.lit("b"))]
    )
    split = rk.k_curve(both.to_pandas(), truth.to_arrow().to_reader(), system="run", **options)
    assert_frame_equal(split, expected)


def test_k_curve_progress_reports_systems(capsys: pytest.CaptureFixture[str]) -> None:
    candidates, truth = _curve_case()
    options: dict[str, Any] = {"k_max": 3, "group_by": "user", "n_resamples": 20}
    rk.k_curve({"a": candidates, "b": candidates}, truth, progress=True, **options)
    assert "k_curve: systems" in capsys.readouterr().err
    rk.k_curve({"a": candidates}, truth, progress=False, **options)
    rk.k_curve({"a": candidates}, truth, **options)  # captured stderr is not a terminal
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("short_lists", ["fixed", "skip"])
def test_curve_at_every_k_from_an_evaluation_of_a_few(short_lists: str) -> None:
    # The report evaluates the tables' K and the largest only: the rank sums hold every K.
    candidates, truth = _curve_case()
    policy = rk.Policy(duplicates="first", short_lists=short_lists)  # type: ignore[arg-type]
    few = rk.evaluate(candidates, truth, k=[2, 7], group_by="user", policy=policy)
    every = rk.evaluate(candidates, truth, k=range(1, 8), group_by="user", policy=policy)
    assert covers_every_k(few)
    found = curve_of_evaluations({"a": few}, k=range(1, 8), n_resamples=60, seed=4)
    expected = curve_of_evaluations({"a": every}, n_resamples=60, seed=4)
    assert_frame_equal(found, expected)
    expected_policy = rk.Policy(duplicates="first", ties="expected")
    tied = rk.evaluate(candidates, truth, k=[2, 7], group_by="user", policy=expected_policy)
    assert not covers_every_k(tied)


def _register_sdcg() -> str:
    """SDCG@K (Sakai's scaled DCG): DCG@K over the DCG of K items of the top grade, here 3 —
    a normaliser of K alone, so the formula is linear in its one term."""
    top = 3.0

    def dcg_of_k_top_items(k: pl.Expr) -> pl.Expr:
        ranks = pl.int_ranges(1, k.cast(pl.Int64) + 1)
        return top * ranks.list.eval(1.0 / (pl.element() + 1).cast(pl.Float64).log(2)).list.sum()

    rk.register_metric(
        "scaled_dcg",
        lambda rows: rows.gain / (rows.rank + 1).cast(pl.Float64).log(2),
        lambda sums: sums.total / dcg_of_k_top_items(sums.k),
        sparse=True,
        replace=True,
    )
    return "scaled_dcg"


@pytest.mark.parametrize("short_lists", ["fixed", "observed", "skip"])
@pytest.mark.parametrize("empty_truth", ["zero", "nan"])
def test_registered_metrics_take_the_rank_summed_path_and_equal_evaluate(
    toy_metrics: tuple[str, str],
    short_lists: str,
    empty_truth: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Metrics declared with `rk.register_metric` from linear terms — one event-valued
    (``linear_discount``), two linear in their terms with coefficients of K
    (``first_relevant_rank``, ``scaled_dcg``) — are summed over ranks with no hand entry, and
    the curve at every K equals ``evaluate(k=K)``."""
    from polars_rankk.stats import rank_sums
    from polars_rankk.stats.curves import curve_of_evaluations

    names = [*toy_metrics, _register_sdcg()]
    try:
        assert all(REGISTRY[name].rank_summed for name in names)
        taken: list[rank_sums.RankSums | None] = []
        summed = rank_sums.sums_over_ranks

        def spy(*args: Any, **kwargs: Any) -> rank_sums.RankSums | None:
            taken.append(summed(*args, **kwargs))
            return taken[-1]

        monkeypatch.setattr(rank_sums, "sums_over_ranks", spy)
        candidates, truth = _curve_case()
        policy = rk.Policy(
            short_lists=short_lists,  # type: ignore[arg-type]
            empty_truth=empty_truth,  # type: ignore[arg-type]
            duplicates="first",
        )
        options = {"group_by": "user", "policy": policy, "metrics": names}
        res = rk.evaluate(candidates, truth, k=range(1, 13), **options)  # type: ignore[arg-type]
        curve = curve_of_evaluations({"a": res}, ci=False)
        (sums,) = taken
        assert sums is not None  # the sums-over-ranks path
        assert set(sums.columns) == {"linear_discount"}
        assert set(sums.weights) == {"first_relevant_rank", "scaled_dcg"}
        for k in range(1, 13):
            summary = rk.evaluate(candidates, truth, k=k, **options).summary()  # type: ignore[arg-type]
            joined = curve.filter(pl.col("k") == k).join(summary, on=["metric", "k"], suffix="_s")
            assert joined.height == summary.height == len(names)
            assert joined["n_groups"].to_list() == joined["n_groups_s"].to_list()
            gap = joined.select((pl.col("value") - pl.col("value_s")).abs().max()).item()
            assert gap is None or gap <= 1e-12, (k, joined)
    finally:
        rk.unregister_metric("scaled_dcg")


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy(duplicates="first", relevance_threshold=2),
        rk.Policy(short_lists="skip", empty_truth="nan", gain="exponential", duplicates="first"),
        rk.Policy(short_lists="observed", pool="restrict", ties="input_order"),
        rk.Policy(gains={0: -1.0, 3: 5.0}, nonrelevant_gain="grade", empty_truth="exclude"),
    ],
    ids=str,
)
def test_k_curve_from_the_kernels_event_rows_equals_summary_at_every_k(
    lazy: bool, policy: rk.Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel hands back each group's event rows with running sums and the ideal DCG
    (groups only in the truth, short lists, ties, negative gains): the curve at every K is
    `evaluate(k=K)`'s summary, on the kernel's rows where it ranks (not under a restricted
    pool: its ideal DCG reads judged items the kernel's truth rows do not restrict)."""
    from polars_rankk.core.kernel import loader
    from polars_rankk.core.metrics import rank_events

    candidates, truth = _curve_case()
    calls: list[int] = []
    spied = rank_events._kernel_running

    def spy(*args: Any) -> Any:
        calls.append(1)
        return spied(*args)

    monkeypatch.setattr(rank_events, "_kernel_running", spy)
    systems = {"a": candidates.lazy() if lazy else candidates}
    options = {"group_by": "user", "policy": policy}
    curve = k_curve(systems, truth, k_max=12, metrics=_CURVE_METRICS, ci=False, **options)  # type: ignore[arg-type]
    kernel = loader.status().loaded and policy.pool != "restrict"
    assert bool(calls) == kernel
    for k in range(1, 13):
        summary = rk.evaluate(candidates, truth, k=k, metrics=_CURVE_METRICS, **options).summary()  # type: ignore[arg-type]
        joined = curve.filter(pl.col("k") == k).join(summary, on=["metric", "k"], suffix="_s")
        assert joined.height == summary.height
        assert joined["n_groups"].to_list() == joined["n_groups_s"].to_list()
        gap = joined.select((pl.col("value") - pl.col("value_s")).abs().max()).item()
        assert gap is None or gap <= 1e-12
