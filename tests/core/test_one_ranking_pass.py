"""Names whose policies differ only in label fields share one ranking pass.

A `Policy` declares on its fields which decide the ranking (`ORDERING_FIELDS`); `evaluate`
ranks the candidates once per distinct set of them and computes each part's numbers from that
ranking: in pure Polars one ranked frame (`prepare.rank_candidates`, counted through the
module), in the kernel one call that sums each part under its own label fields (counted by the
phases the kernel says on stderr under ``POLARS_RANKK_NATIVE_TIMING``). Every view of the
names evaluated together (``per_group``, ``summary()``, ``wide()``, ``groups``, a lazy
evaluation's ``collect()``, the diagnostics) equals each name's evaluated alone, on the
compiled kernel's path and on pure Polars.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk
from polars_rankk.core.evaluation import prepare
from polars_rankk.core.evaluation.pipeline import Inputs, evaluate_plan
from polars_rankk.core.kernel import loader
from polars_rankk.core.names.plan import Plan
from polars_rankk.core.policy import ORDERING_FIELDS
from tests.core.test_each_measure_its_parameters import PAIRS

#: Ties inside and across groups, a repeated item, an invalid score, a short list, a group
#: without a relevant item, negative, fractional and unjudged grades.
CANDIDATES = pl.DataFrame(
    {
        "user": [1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4],
        "item": [1, 2, 3, 3, 4, 1, 2, 5, 7, 8, 9],
        "score": [0.9, 0.5, 0.5, 0.4, float("nan"), 0.7, 0.7, 0.7, 0.3, 0.2, 0.1],
    }
)
TRUTH = pl.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 2, 3, 4],
        "item": [2, 3, 6, 1, 5, 6, 7, 9],
        "relevance": [2.0, 1.0, 3.0, -1.0, 1.7, 2.0, 0.0, 0.5],
    }
)
POLICY = rk.Policy(invalid_scores="drop", empty_truth="zero")
KS = [1, 3]
PATHS = {"kernel": "1", "pure": "0"}


@contextlib.contextmanager
def monkeypatched_env(name: str, value: str) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(name, value)
        yield


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rankings `rank_candidates` builds while a test runs, one entry each."""
    built: list[int] = []
    original = prepare.rank_candidates

    def counted(*args: object, **kwargs: object) -> prepare.Ranking:
        built.append(1)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prepare, "rank_candidates", counted)
    return built


def _evaluate(names: list[str], *, lazy: bool = False) -> rk.Evaluation:
    given = (CANDIDATES.lazy(), TRUTH.lazy()) if lazy else (CANDIDATES, TRUTH)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate(*given, k=KS, metrics=names, group_by="user", policy=POLICY)


def _plan(names: list[str]) -> Plan:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Plan.of(names, KS, POLICY)


def _passes(
    names: list[str], passes: list[int], capfd: pytest.CaptureFixture[str], *, lazy: bool = False
) -> int:
    """The ranking passes of evaluating `names`' plan (eager), or of collecting a lazy
    evaluation of them: the rankings built in pure Polars, or the groups ranked and summed by
    the kernel (its phases on stderr). `evaluate` of eager tables evaluates a name again
    where a tool's convention may differ on the data: not counted here."""
    loader.status()  # the kernel's check of itself at loading is not one of them
    with monkeypatched_env("POLARS_RANKK_NATIVE_TIMING", "1"):
        capfd.readouterr()
        passes.clear()
        if lazy:
            _evaluate(names, lazy=True).collect()
        else:
            evaluate_plan(_plan(names), Inputs(CANDIDATES, TRUTH, group_by="user"))
        said = capfd.readouterr().err
    if loader.status().loaded:
        return sum("rank and sum" in line for line in said.splitlines())
    return len(passes)


def _orderings(names: list[str]) -> int:
    """The distinct sets of ordering fields among the parts of `names`' plan."""
    return len({part.policy.ordering() for part in _plan(names).parts})


def _part_of(name: str, names: list[str]) -> int:
    """The index of the part of `names`' plan that evaluates `name`."""
    parts = _plan(names).parts
    return next(i for i, part in enumerate(parts) for a in part.request.asked if a.name == name)


def _parts(evaluation: rk.Evaluation) -> list[rk.Evaluation]:
    """The evaluation of each part of its plan, in the plan's order."""
    primary = evaluation.__dict__.get("_primary", evaluation)
    return [primary, *evaluation.variants]


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns, nulls_last=True)


def _same(mine: pl.DataFrame, alone: pl.DataFrame) -> None:
    assert_frame_equal(_sorted(mine), _sorted(alone), abs_tol=1e-12, check_dtypes=False)


@pytest.mark.parametrize("path", PATHS, ids=list(PATHS))
@pytest.mark.parametrize(("first", "second"), PAIRS, ids=["+".join(pair) for pair in PAIRS])
def test_names_of_equal_ordering_fields_share_one_ranking_pass(
    first: str,
    second: str,
    path: str,
    passes: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("POLARS_RANKK_NATIVE", PATHS[path])
    assert _passes([first, second], passes, capfd) == _orderings([first, second])
    together = _evaluate([first, second])
    parts = _parts(together)
    for name in (first, second):
        alone = _evaluate([name])
        mine = parts[_part_of(name, [first, second])]
        rows = together.per_group.filter(
            pl.col("metric").is_in(alone.per_group["metric"].implode())
        )
        key = ["user", "metric", "k"]
        _same(
            rows.unique().join(alone.per_group.select(key), on=key, how="semi", nulls_equal=True),
            alone.per_group,
        )
        _same(together.summary(metrics=[name]), alone.summary())
        wide, alone_wide = together.wide(), alone.wide()
        assert isinstance(wide, pl.DataFrame)
        assert isinstance(alone_wide, pl.DataFrame)
        _same(wide.select(alone_wide.columns).join(alone_wide, on="user", how="semi"), alone_wide)
        _same(mine.groups, alone.groups)
        _same(mine.diagnostics.to_frame(), alone.diagnostics.to_frame())
        if mine.metrics == alone.metrics:  # (a part's path names the terms of all its names)
            assert mine.diagnostics.path == alone.diagnostics.path
    lazy = _evaluate([first, second], lazy=True).collect()
    _same(lazy.per_group, together.per_group)
    _same(lazy.summary(), together.summary())
    _same(lazy.groups, together.groups)


@pytest.mark.parametrize("path", PATHS, ids=list(PATHS))
def test_orderings_apart_rank_apart(
    path: str,
    passes: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Four names, two orderings (``judged_only=True`` condenses the unjudged candidates
    away): two ranking passes, each name its own number."""
    monkeypatch.setenv("POLARS_RANKK_NATIVE", PATHS[path])
    names = ["P(rel=2)@3", "nDCG(judged_only=True)@3", "RBP(p=0.5)@3", "nDCG@3"]
    assert _passes(names, passes, capfd) == _orderings(names) == 2
    assert _passes(names, passes, capfd, lazy=True) == 2  # a lazy evaluation's collect()
    together = _evaluate(names)
    for name in names:
        alone = _evaluate([name])
        _same(together.summary(metrics=[name]), alone.summary())


def test_the_ordering_fields_are_declared_on_the_policy() -> None:
    """The fields that decide which rows are ranked and in what order; a label field (the
    threshold, the gain, a measure's parameter) leaves the ordering as it is."""
    assert set(ORDERING_FIELDS) == {
        "duplicates", "ties", "invalid_scores", "unjudged", "negative_grades", "gains",
        "fractional_grades",
    }  # fmt: skip
    labels: dict[str, Callable[[rk.Policy], rk.Policy]] = {
        "relevance_threshold": lambda p: p.replace(relevance_threshold=2),
        "gain": lambda p: p.replace(gain="exponential"),
        "rbp_persistence": lambda p: p.replace(rbp_persistence=0.5),
        "pool": lambda p: p.replace(pool="restrict"),
    }
    for changed in labels.values():
        assert changed(POLICY).ordering() == POLICY.ordering()
    assert POLICY.replace(unjudged="condense").ordering() != POLICY.ordering()


def test_the_kernel_refuses_a_label_policy_that_ranks_otherwise() -> None:
    """A kernel call's further policies share its ranking: one whose ordering fields differ
    (each field of `ORDERING_FIELDS` the kernel reads) is refused in words; one that differs
    in a label field is read, at its own threshold."""
    from polars_rankk.core.kernel.call import (
        Call,
        KernelPiece,
        LabelPart,
        LinearTerm,
        Output,
        plain,
    )

    if not loader.status().loaded:
        pytest.skip("the compiled kernel is not loaded")
    hits = LinearTerm("hits", (KernelPiece("relevant", False, ()),))
    call = Call(keys=("integer",), terms=(hits,), outputs=(Output("hits", "sum", 2, "hits"),))
    frame = pl.DataFrame({"g": [1, 1], "i": [1, 2], "s": [0.5, 0.4], "r": [1.0, 2.0]})
    columns = [pl.col(name) for name in frame.columns]

    def hits_under(other: rk.Policy) -> list[float]:
        part = LabelPart((hits,), (Output("hits#2", "sum", 2, "hits"),))
        sent = loader.kwargs(rk.Policy(), call)
        sent["labels"] = [{"policy": loader.kernel_policy(other), **plain(part)}]  # type: ignore[dict-item]
        sums = frame.select(loader._call(loader.library(), columns, sent)).unnest(loader._SUMS)
        return [sums["hits"].item(), sums["hits#2"].item()]

    assert hits_under(rk.Policy(relevance_threshold=2)) == [2.0, 1.0]
    others = {
        "duplicates": "keep", "ties": "item_asc", "invalid_scores": "lowest",
        "unjudged": "condense", "negative_grades": "unjudged", "gains": {0: 1},
    }  # fmt: skip
    assert set(others) == set(ORDERING_FIELDS) & set(loader.kernel_policy(rk.Policy()))
    for field, value in others.items():
        with pytest.raises(pl.exceptions.ComputeError, match="ordering fields differ"):
            hits_under(rk.Policy().replace(**{field: value}))
