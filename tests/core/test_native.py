"""The compiled kernel equals the pure-Polars preparation: every metric, every policy field.

The pure path (``POLARS_RANKK_NATIVE=0``) is the reference; the kernel must give the same
per-group sums — exactly where they are integers, within 1e-12 elsewhere (it sums the same
terms in the same rank order, but a logarithm or a power may round in the last bit).
"""

from __future__ import annotations

import gc
import math
import os
import resource

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.metrics.registry import ACCURACY_METRICS, REGISTRY
from tests.support.examples import examples
from tests.support.kernel_path import needs_kernel, path

pytestmark = pytest.mark.skipif(
    not native.status().loaded and native.SWITCH not in os.environ,
    reason="the native kernel is not installed",
)

TOLERANCE = 1e-12


def _prepared(*args: object, **kwargs: object) -> tuple[pl.DataFrame, pl.DataFrame, str]:
    evaluation = rk.evaluate(*args, **kwargs)  # type: ignore[arg-type]
    prepared = evaluation._prepared
    keys = list(evaluation._spec.keys)
    sums = prepared.group_sums.collect().sort(keys)
    per_group = evaluation.per_group
    assert isinstance(per_group, pl.DataFrame)
    return sums, per_group.sort(per_group.columns[: len(keys) + 2]), prepared.path


def assert_frames_match(native_frame: pl.DataFrame, pure: pl.DataFrame) -> None:
    assert native_frame.schema == pure.schema
    assert native_frame.height == pure.height
    for column in pure.columns:
        left, right = native_frame[column].to_list(), pure[column].to_list()
        if pure.schema[column] == pl.Float64:
            for a, b in zip(left, right, strict=True):
                if a is None or b is None:
                    assert a is None, (column, left, right)
                    assert b is None, (column, left, right)
                elif math.isnan(b):
                    assert math.isnan(a), (column, left, right)
                else:
                    assert abs(a - b) <= TOLERANCE * max(1.0, abs(b)), (column, a, b)
        else:
            assert left == right, (column, left, right)


def both_paths(*args: object, **kwargs: object) -> None:
    """Evaluate on both paths: the same group sums and the same per-group metric values."""
    outcomes = []
    for enabled in (True, False):
        with path(enabled):
            try:
                outcomes.append(_prepared(*args, **kwargs))
            except ValueError as error:  # a policy refusing the data refuses it on both paths
                outcomes.append(error)  # type: ignore[arg-type]
    on_kernel, on_pure = outcomes
    if isinstance(on_pure, ValueError):
        assert isinstance(on_kernel, ValueError)
        assert str(on_kernel) == str(on_pure)
        return
    assert not isinstance(on_kernel, ValueError), on_kernel
    assert on_kernel[2].startswith("native kernel: loaded"), on_kernel[2]
    assert on_pure[2].startswith("native kernel: not used")
    assert_frames_match(on_kernel[0], on_pure[0])
    assert_frames_match(on_kernel[1], on_pure[1])


SCORES = [0.0, 0.25, 0.5, 0.5, 1.0, -1.0, float("nan"), None, float("inf"), float("-inf")]


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, bool]:
    text_ids = draw(st.booleans())
    n_groups = draw(st.integers(1, 6))
    rows = []
    for group in range(n_groups):
        size = draw(st.sampled_from([0, 1, 1, 2, 5, 12]))
        for _ in range(size):
            item = draw(st.integers(0, 9))  # repeats: duplicates
            score = draw(st.sampled_from(SCORES))
            rows.append((group, item, score, draw(st.sampled_from([0, 1, 2, 3]))))
    truth_rows = []
    for group in range(n_groups + 1):  # one truth group without candidates
        for item in draw(st.sets(st.integers(0, 11), max_size=5)):
            truth_rows.append((group, item, draw(st.sampled_from([-1, 0, 1, 2, 3]))))

    def ids(values: list[int], prefix: str) -> pl.Series:
        if not text_ids:
            return pl.Series(values, dtype=pl.Int64)
        return pl.Series([f"{prefix}{value}" for value in values], dtype=pl.String)

    candidates = pl.DataFrame(
        {
            "user": ids([r[0] for r in rows], "u"),
            "item": ids([r[1] for r in rows], "i"),
            "score": pl.Series([r[2] for r in rows], dtype=pl.Float64),
            "label": pl.Series([r[3] for r in rows], dtype=pl.Int64),
        }
    )
    truth = pl.DataFrame(
        {
            "user": ids([r[0] for r in truth_rows], "u"),
            "item": ids([r[1] for r in truth_rows], "i"),
            "relevance": pl.Series([r[2] for r in truth_rows], dtype=pl.Int64),
        }
    )
    return candidates, truth, draw(st.booleans())


def _policies() -> st.SearchStrategy[rk.Policy]:
    return st.builds(
        rk.Policy,
        short_lists=st.sampled_from(["fixed", "observed", "skip"]),
        ap_denominator=st.sampled_from(["relevant", "min_k_relevant"]),
        duplicates=st.sampled_from(["first", "keep", "error"]),
        ties=st.sampled_from(
            ["trec_eval", "item_asc", "input_order", "pessimistic", "optimistic", "expected"]
        ),
        empty_truth=st.sampled_from(["exclude", "zero", "nan"]),
        missing_groups=st.sampled_from(["zero", "exclude"]),
        pool=st.sampled_from(["all", "restrict"]),
        relevance_threshold=st.sampled_from([1, 2, 0.5]),
        gain=st.sampled_from(["linear", "exponential", "binary"]),
        invalid_scores=st.sampled_from(["drop", "lowest", "error"]),
        unjudged=st.sampled_from(["keep", "condense"]),
        rbp_persistence=st.sampled_from([0.8, 0.5]),
        err_max_grade=st.sampled_from([4, 2]),
        negative_grades=st.sampled_from(["nonrelevant", "unjudged"]),
        f_beta=st.sampled_from([1, 2, 0.5]),
        gains=st.sampled_from([None, {0: 1, 1: 4}, {-1: 2, 2: 0.5}, {1: 3}]),
        rbp_grades=st.sampled_from(["binary", "graded"]),
        nonrelevant_gain=st.sampled_from(["grade", "zero"]),
        cwl_max_grade=st.sampled_from([1, 3, 1.5]),
    )


#: Every built-in accuracy metric: the kernel computes every built-in linear or named term;
#: the others (trec_eval's infAP, interpolated precision, hits at multiples of R) run in pure
#: Polars beside it, and must agree all the same.
ALL_METRICS = list(ACCURACY_METRICS)


@needs_kernel
@settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=tables(), policy=_policies(), ks=st.sampled_from([[1], [1, 3, 10], [2, 5]]))
def test_kernel_equals_pure_polars(
    data: tuple[pl.DataFrame, pl.DataFrame, bool], policy: rk.Policy, ks: list[int]
) -> None:
    candidates, truth, labelled = data
    metrics = list(ALL_METRICS)
    if policy.ties == "expected":
        metrics = [m for m in metrics if REGISTRY[m].supports_expected_ties]
    if labelled:
        # Pre-labelled candidates carry their own grades (no truth table).
        both_paths(
            candidates.rename({"label": "relevance"}),
            None,
            k=ks,
            group_by="user",
            metrics=metrics,
            policy=policy,
        )
    else:
        both_paths(
            candidates.drop("label"), truth, k=ks, group_by="user", metrics=metrics, policy=policy
        )


@needs_kernel
@pytest.mark.parametrize("ties", ["trec_eval", "item_asc", "expected"])
def test_two_keys_and_dates(ties: str) -> None:
    candidates = pl.DataFrame(
        {
            "day": pl.Series([1, 1, 1, 2, 2], dtype=pl.Int32).cast(pl.Date),
            "user": ["a", "a", "b", "a", "a"],
            "item": [3, 10, 2, 3, 4],
            "score": [0.5, 0.5, 0.1, 0.9, 0.2],
        }
    )
    truth = pl.DataFrame(
        {
            "day": pl.Series([1, 1, 2], dtype=pl.Int32).cast(pl.Date),
            "user": ["a", "b", "a"],
            "item": [10, 2, 4],
        }
    )
    metrics = [m for m in ALL_METRICS if ties != "expected" or m not in ("err", "bpref")]
    both_paths(
        candidates,
        truth,
        k=[1, 2],
        group_by=["day", "user"],
        metrics=metrics,
        policy=rk.Policy(ties=ties),
    )


@needs_kernel
def test_multi_chunk_and_sliced_inputs() -> None:
    first = pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [0.3, 0.9, 0.5]})
    second = pl.DataFrame(
        {"user": [2, 3, 3, 9], "item": [4, 5, 6, 7], "score": [0.7, 0.1, 0.2, 1.0]}
    )
    chunked = pl.concat([first, second], rechunk=False)
    assert chunked.n_chunks() == 2
    sliced = chunked.slice(1, 5)  # drops a row of user 1 and user 9's row
    truth = pl.DataFrame({"user": [1, 2, 3], "item": [1, 4, 6]})
    for frame in (chunked, sliced):
        both_paths(frame, truth, k=[1, 2], group_by="user")
    with path(True):
        whole = rk.evaluate(sliced.rechunk(), truth, k=[1, 2], group_by="user").per_group
        parts = rk.evaluate(sliced, truth, k=[1, 2], group_by="user").per_group
    assert isinstance(whole, pl.DataFrame)
    assert isinstance(parts, pl.DataFrame)
    assert whole.sort(whole.columns[:3]).equals(parts.sort(parts.columns[:3]))


@needs_kernel
@pytest.mark.parametrize("answer", ["refuses", "miscounts"])
def test_a_kernel_polars_does_not_accept_names_the_polars_version(
    monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    def call(*args: object, **kwargs: object) -> pl.Expr:
        if answer == "refuses":
            raise pl.exceptions.ComputeError("plugin ABI 9.9 is not supported")
        return pl.struct(pl.lit(0.0).alias("hits")).alias("_rk_sums")

    monkeypatch.setattr(native, "_call", call)
    native._load.cache_clear()
    try:
        status = native._load()
    finally:
        native._load.cache_clear()
    assert not status.loaded
    assert f"under Polars {pl.__version__}" in status.line() or (
        f"Polars {pl.__version__} refused the kernel" in status.line()
    )


def test_a_kernel_error_is_a_polars_error_naming_the_column() -> None:
    # Values are not checked here, so the NaN reaches the kernel, which refuses it.
    candidates = pl.DataFrame({"user": [1, 1], "item": [1, 2], "model_score": [0.5, float("nan")]})
    truth = pl.DataFrame({"user": [1], "item": [1]})
    with path(True), pytest.raises(pl.exceptions.ComputeError, match="model_score"):
        rk.evaluate(
            candidates.lazy(),
            truth.lazy(),
            k=1,
            group_by="user",
            score="model_score",
            check_values=False,
        ).per_group.collect()  # type: ignore[union-attr]


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


@needs_kernel
@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc")
def test_the_kernel_releases_its_inputs() -> None:
    n = 400_000
    frame = pl.DataFrame(
        {"user": pl.int_range(n, eager=True) // 50, "item": pl.int_range(n, eager=True) % 50}
    ).lazy()
    truth = pl.DataFrame({"user": [0, 1], "item": [1, 2]}).lazy()

    def once() -> None:
        # Freshly computed scores each call: their buffers are the plugin's to release.
        scored = frame.with_columns((pl.col("item") * 0.37 % 1).alias("score"))
        with path(True):
            evaluation = rk.evaluate(scored, truth, k=10, group_by="user", check_values=False)
            evaluation.per_group.collect()  # type: ignore[union-attr]

    for _ in range(3):
        once()
    gc.collect()
    before = _rss_mib()
    for _ in range(15):
        once()
    gc.collect()
    # A leak of the inputs would grow by the score, key and item columns every call (about
    # 10 MiB each here, 150 MiB over the 15 calls). The kernel's threads allocate from malloc
    # arenas of their own, which keep some tens of MiB between calls without growing.
    assert _rss_mib() - before < 80


@needs_kernel
def test_each_systems_diagnostics_name_the_kernel_that_computed_it() -> None:
    candidates = pl.DataFrame(
        {"system": ["A", "A", "B", "B"], "user": [1, 1, 1, 1], "item": [1, 2, 1, 2],
         "score": [0.9, 0.1, 0.1, 0.9]}
    )  # fmt: skip
    truth = pl.DataFrame({"user": [1], "item": [2]})
    with path(True):
        res = rk.evaluate(candidates, truth, k=1, group_by="user", system="system")
        paths = {name: one.path for name, one in res.diagnostics.systems.items()}
    assert set(paths) == {"A", "B"}
    assert all(p.startswith("native kernel: loaded") for p in paths.values()), paths


@needs_kernel
@pytest.mark.parametrize("ties", ["trec_eval", "pessimistic"])
def test_k_curve_rows_from_the_kernel(ties: str) -> None:
    candidates = pl.DataFrame(
        {
            "user": [1, 1, 1, 1, 2, 2, 3],
            "item": [1, 2, 3, 1, 4, 5, 6],
            "score": [0.9, 0.5, 0.5, 0.2, 0.3, 0.3, 0.1],
        }
    )
    truth = pl.DataFrame(
        {"user": [1, 1, 2, 3, 4], "item": [2, 3, 5, 9, 1], "relevance": [2, 1, 1, 1, 3]}
    )
    rows = []
    for enabled in (True, False):
        with path(enabled):
            evaluation = rk.evaluate(
                candidates, truth, k=[1, 2, 3], group_by="user", policy=rk.Policy(ties=ties)
            )
            found = evaluation.ranking_rows()
            assert found is not None
            graded = found[0].collect().sort("user", "rank")
            curve = rk.k_curve(evaluation)
            rows.append((graded, curve))
    assert rows[0][0].equals(rows[1][0])
    assert_frames_match(rows[0][1], rows[1][1])


@needs_kernel
def test_expressions_read_each_configuration_by_its_own_kwargs() -> None:
    # The kernel keeps each thread's last 16 configurations by their kwargs bytes: 20
    # expressions in one agg(), each its own kwargs (metric, K, policy), called group after
    # group and interleaved, each equal to itself computed alone and to pure Polars.
    frame = pl.DataFrame(
        {
            "user": [u for u in range(30) for _ in range(6)],
            "item": [f"i{(u * 7 + j) % 9}" for u in range(30) for j in range(6)],
            "score": [float((u * 5 + j * 3) % 4) for u in range(30) for j in range(6)],
            "rel": [float((u + j) % 4) for u in range(30) for j in range(6)],
        }
    )
    exprs = [
        getattr(rk, REGISTRY[name].function_name)(
            "rel", k=k, by="score", item="item", policy=rk.Policy(ties=ties, cwl_max_grade=3)
        ).alias(f"{name}@{k}/{ties}")
        for name in ("ndcg", "precision", "sdcg", "insq", "rbp")
        for k in (1, 3)
        for ties in ("trec_eval", "expected")
    ]
    together = frame.group_by("user").agg(exprs).sort("user")
    with path(False):
        pure = frame.group_by("user").agg(exprs).sort("user")
    alone = [frame.group_by("user").agg(expr).sort("user") for expr in exprs]
    for expr, single in zip(exprs, alone, strict=True):
        name = expr.meta.output_name()
        assert together[name].to_list() == single[name].to_list(), name
        assert together[name].to_list() == pytest.approx(pure[name].to_list(), abs=1e-12), name
