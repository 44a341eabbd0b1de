"""What the user asked is parsed once: one typed request per measure, built where a path starts
(`evaluate`, the engines, `k_curve`, the ``rankk`` command) and handed down, so that no step
reads the metric names a second time (each with its own view of what was asked)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.metrics.registry import DEFAULT_METRICS
from polars_rankk.core.names import parse
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.names.request import Request

CANDIDATES = pl.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 2],
        "item": [1, 2, 3, 1, 4, 5],
        "score": [0.9, 0.5, 0.5, 0.8, 0.7, 0.1],
    }
)
TRUTH = pl.DataFrame({"user": [1, 1, 2], "item": [2, 9, 4], "relevance": [1, 2, 1]})
SUBTOPIC_TRUTH = TRUTH.with_columns(subtopic=pl.Series([1, 2, 1]))
NAMES = ["P@5", "nDCG(judged_only=True)@10", "map", "recip_rank", "R@3", "novelty@2"]


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts each name read by the one parser of metric names."""
    counts: Counter[str] = Counter()
    reader = parse.parse_metric_names

    def counted(text: str) -> list[parse.MetricRequest]:
        counts[text] += 1
        return reader(text)

    monkeypatch.setattr(parse, "parse_metric_names", counted)
    return counts


def test_one_evaluate_call_reads_each_name_once(parsed: Counter[str]) -> None:
    """`evaluate` with accuracy, whole-list and beyond-accuracy names reads each name once."""
    rk.evaluate(CANDIDATES, TRUTH, k=[1, 2], metrics=NAMES, group_by="user",
                popularity=CANDIDATES)  # fmt: skip
    assert parsed == Counter(NAMES)


def test_subtopic_names_are_read_once(parsed: Counter[str]) -> None:
    """Subtopic names taken out of the request for their own step are not read again."""
    names = ["alpha_nDCG@2", "NRBP", "P@1"]
    rk.evaluate(CANDIDATES, SUBTOPIC_TRUTH, k=2, metrics=names, group_by="user",
                subtopic="subtopic")  # fmt: skip
    assert parsed == Counter(names)


def test_k_curve_reads_each_name_once(parsed: Counter[str]) -> None:
    """A K-curve evaluates at every K from the one request."""
    rk.k_curve({"a": CANDIDATES}, TRUTH, k_max=3, metrics=["P", "nDCG@2"], group_by="user",
               ci=False)  # fmt: skip
    assert parsed == Counter(["P", "nDCG@2"])


def test_out_of_core_reads_each_name_once(parsed: Counter[str], tmp_path: object) -> None:
    """The out-of-core driver validates and splits the request without reading it again."""
    rk.evaluate_in_partitions(CANDIDATES, TRUTH, output=str(tmp_path), partitions=2, k=2,
                              metrics=["P@1", "ndcg"], group_by="user")  # fmt: skip
    # Each partition is an `evaluate` call of its own, handed the request: no partition reads
    # a name again.
    assert parsed == Counter(["P@1", "ndcg"])


def test_a_request_is_its_names_as_typed() -> None:
    """Iterating a request gives the names as typed, and a request passes through as it is."""
    request = Request.of(NAMES)
    assert list(request) == NAMES
    assert Request.of(request) is request
    assert [m.spelling for m in request.measures] == NAMES
    assert [m.tool for m in request.measures] == [
        "ir_measures", "ir_measures", "trec_eval", "trec_eval", "ir_measures", None,
    ]  # fmt: skip


def test_the_default_request_is_the_default_metrics() -> None:
    """No names: the registry's default metrics, no cut-off, the policy as given."""
    request = Request.of(None)
    assert request.default
    assert list(request) == []
    assert request.ks == ()
    assert request.metrics == tuple(DEFAULT_METRICS)
    policy = rk.Policy.trec_eval()
    assert request.policy(policy) is policy


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[Plan]:
    """Every plan made (`Plan.build`, the one place a plan is made)."""
    made: list[Plan] = []
    build = Plan.build.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Plan], *arguments: object, **options: object) -> Plan:
        plan = build(cls, *arguments, **options)
        made.append(plan)
        return plan

    monkeypatch.setattr(Plan, "build", classmethod(counted))
    return made


#: Names under two parameter sets: two parts of one plan.
PARTED = ["P(rel=2)@2", "R@2", "ndcg", "RBP(p=0.5)@2"]


def test_one_evaluate_call_makes_one_plan(plans: list[Plan]) -> None:
    """`evaluate` plans once, however many parts its names ask for (each part is executed
    from the plan, not by `evaluate` calling itself)."""
    rk.evaluate(CANDIDATES, TRUTH, k=[1, 2], metrics=PARTED, group_by="user")
    assert len(plans) == 1
    assert len(plans[0].parts) == 2
    rk.evaluate(CANDIDATES, TRUTH, k=2, metrics=NAMES, group_by="user", popularity=CANDIDATES)
    assert len(plans) == 2


def test_an_evaluation_of_probable_labels_makes_one_plan(plans: list[Plan]) -> None:
    """Every label outcome, the single-item outcomes and the highest-grade evaluation are
    evaluated from the one plan (no re-entry of `evaluate`)."""
    truth = TRUTH.with_columns(p=pl.lit(0.5))
    rk.evaluate(CANDIDATES, truth, k=2, metrics=["P", "nDCG"], group_by="user",
                label_probability="p")  # fmt: skip
    assert len(plans) == 1
    with pytest.raises(ValueError, match="label_probability evaluates the names under one"):
        rk.evaluate(CANDIDATES, truth, k=2, metrics=PARTED, group_by="user",
                    label_probability="p")  # fmt: skip


def test_a_k_curve_makes_one_plan(plans: list[Plan]) -> None:
    rk.k_curve({"a": CANDIDATES, "b": CANDIDATES}, TRUTH, k_max=3, metrics=["P", "nDCG@2"],
               group_by="user", ci=False)  # fmt: skip
    assert len(plans) == 1


def test_unjudged_bounds_make_one_plan(plans: list[Plan]) -> None:
    rk.unjudged_bounds(CANDIDATES, TRUTH, k=[1, 2], metrics=["P@1", "ndcg"], group_by="user")
    assert len(plans) == 1


def test_out_of_core_makes_one_plan(plans: list[Plan], tmp_path: object) -> None:
    """The driver plans; every partition's `evaluate` executes that plan."""
    rk.evaluate_in_partitions(CANDIDATES, TRUTH, output=str(tmp_path), partitions=2, k=2,
                              metrics=["P@1", "ndcg"], group_by="user")  # fmt: skip
    assert len(plans) == 1


def test_an_engine_call_makes_one_plan(plans: list[Plan]) -> None:
    """Dask's driver plans; the job carries the plan to every partition."""
    dd = pytest.importorskip("dask.dataframe")
    from polars_rankk.engines.dask import evaluate_dask

    candidates = dd.from_pandas(CANDIDATES.to_pandas(), npartitions=2)
    truth = dd.from_pandas(TRUTH.to_pandas(), npartitions=1)
    evaluate_dask(candidates, truth, k=2, metrics=["P@1", "ndcg"], group_by="user").compute(
        scheduler="sync"
    )
    assert len(plans) == 1


def test_the_command_makes_one_plan(plans: list[Plan], tmp_path: Path) -> None:
    from polars_rankk.cli.app import main

    run, qrels = tmp_path / "run.parquet", tmp_path / "truth.parquet"
    CANDIDATES.write_parquet(run)
    TRUTH.write_parquet(qrels)
    main(["evaluate", str(run), str(qrels), "--group-by", "user", "--metrics", "P@1,ndcg",
          "--output", str(tmp_path / "out.csv")])  # fmt: skip
    assert len(plans) == 1
