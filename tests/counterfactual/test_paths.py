"""`evaluate_counterfactual` gives the same numbers on the compiled kernel's ranking and on the
pure-Polars ranking (the reference), to 1e-12, on hypothesis data: tied scores, short lists,
groups with no logged rows and logged groups with no candidates, rows in random order, every
click model and estimator, the new policy as a ranking, as draws (``sample=``) and as marginals
(``probability=``); a log showing a placed item twice is refused on both paths."""

from __future__ import annotations

import warnings
from dataclasses import asdict

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rankk as rk
from tests.support.kernel_path import needs_kernel, path

K = 3
ITEMS = 8
ESTIMATORS = ["ips", "snips", "dr", "naive"]
MODELS = [
    ("pbm", {"examination": [1.0, 0.7, 0.5, 0.4, 0.3]}),
    ("item_position", {"propensity": "propensity"}),
    ("cascade", {"propensity": "propensity"}),
]


def _tables(seed: int, impressions: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Candidates (few items, scores from three values: ties) and a log of short lists, each
    table's rows shuffled; one candidate group may have no log and the log one group more."""
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(1, 6))
    candidates = [
        {"query": g, "item": int(item), "score": float(rng.integers(0, 3))}
        for g in range(groups)
        for item in rng.choice(ITEMS, int(rng.integers(1, 6)), replace=False)
    ]
    log = []
    for g in range(groups + 1):
        if g < groups and rng.random() < 0.25:
            continue  # a group the log never shows
        for session in range(int(rng.integers(1, 4)) if impressions else 1):
            shown = rng.choice(ITEMS, int(rng.integers(1, 5)), replace=False)
            log += [
                {
                    "query": g,
                    "session": session,
                    "item": int(item),
                    "position": position,
                    "click": int(rng.integers(0, 2)),
                    "propensity": float(rng.uniform(0.2, 1.0)),
                }
                for position, item in enumerate(shown, start=1)
            ]
    new, logged = pl.DataFrame(candidates), pl.DataFrame(log)
    return new.sample(fraction=1.0, shuffle=True, seed=seed), logged.sample(
        fraction=1.0, shuffle=True, seed=seed
    )


def _forms(new: pl.DataFrame, model: str) -> list[tuple[pl.DataFrame, dict[str, object]]]:
    """The new policy as a ranking, as draws and (not under the cascade) as marginals."""
    draws = rk.plackett_luce_samples(new, group_by="query", samples=3, seed=1)
    forms: list[tuple[pl.DataFrame, dict[str, object]]] = [(new, {}), (draws, {"sample": "sample"})]
    if model != "cascade":
        marginals = rk.plackett_luce_marginals(new, group_by="query", k=K)
        forms.append((marginals, {"probability": "probability"}))
    return forms


def _result(
    log: pl.DataFrame, new: pl.DataFrame, kernel: bool, **options: object
) -> tuple[list[pl.DataFrame], rk.CounterfactualDiagnostics]:
    with path(kernel), warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.CounterfactualWarning)
        result = rk.evaluate_counterfactual(
            log, new, group_by="query", k=K, estimator=ESTIMATORS, n_bootstrap=20, seed=3,
            **options,  # type: ignore[arg-type]
        )  # fmt: skip
    return [result.summary(), result.per_group, result.per_position], result.diagnostics


def _same_diagnostics(
    on_kernel: rk.CounterfactualDiagnostics, in_polars: rk.CounterfactualDiagnostics
) -> None:
    kernel, pure = asdict(on_kernel), asdict(in_polars)
    assert kernel.keys() == pure.keys()
    for name, value in kernel.items():
        if isinstance(value, float):
            assert value == pytest.approx(pure[name], rel=1e-12, nan_ok=True), name
        else:
            assert value == pure[name], name


@needs_kernel
@settings(deadline=None, max_examples=25, derandomize=True, database=None)
@given(seed=st.integers(0, 2**31 - 1), impressions=st.booleans())
def test_the_kernel_and_pure_polars_give_the_same_estimates(seed: int, impressions: bool) -> None:
    new, log = _tables(seed, impressions)
    session = {"impression": "session"} if impressions else {}
    for model, options in MODELS:
        for policy, form in _forms(new, model):
            settings_ = {"click_model": model, **options, **form, **session}
            kernel, kernel_diagnostics = _result(log, policy, True, **settings_)
            pure, pure_diagnostics = _result(log, policy, False, **settings_)
            for on_kernel, in_polars in zip(kernel, pure, strict=True):
                assert_frame_equal(on_kernel, in_polars, rel_tol=1e-12, abs_tol=1e-12)
            _same_diagnostics(kernel_diagnostics, pure_diagnostics)


@needs_kernel
@pytest.mark.parametrize("kernel", [True, False])
def test_a_placed_item_shown_twice_in_a_list_is_refused_on_both_paths(kernel: bool) -> None:
    new = pl.DataFrame({"query": [0, 0], "item": [1, 2], "score": [2.0, 1.0]})
    log = pl.DataFrame({"query": [0, 0, 0], "item": [1, 1, 2], "position": [1, 2, 3]})
    log = log.with_columns(click=pl.lit(1))
    with pytest.raises(ValueError, match=r"the list \{'query': 0\} shows item 1 twice"):
        _result(log, new, kernel, examination=[1.0, 0.5, 0.3])
