"""K-curves' linear weights: K as a column gives the per-K formulas' numbers, bit for bit."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest

from polars_rankk.core.kernel.loader import status as kernel_status
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.metrics.summed import linear_weights, summed_form
from polars_rankk.core.policy import Policy
from polars_rankk.stats import rank_sums, resampling

_POLICIES = [
    Policy(),
    Policy(short_lists="observed"),
    Policy(short_lists="skip", ap_denominator="min_k_relevant"),
    Policy(f_beta=0.5, empty_truth="nan"),
]


def _linear(policy: Policy) -> dict[str, bool]:
    """Each linear metric with a cut-off: whether it reads K as a column."""
    out = {}
    for name, metric in REGISTRY.items():
        if metric.formula is None or not metric.has_k:
            continue
        form = summed_form(metric.formula, metric.terms, policy)
        if form is not None and form.linear:
            out[name] = form.k_column
    return out


def test_k_as_a_column_is_found_on_the_formula() -> None:
    linear = _linear(Policy())
    assert {"precision", "f1", "judged", "relative_precision", "unjudged"} <= {
        name for name, column in linear.items() if column
    }
    # SDCG's normaliser is a Python sum over the ranks up to K: one expression per K.
    assert linear["sdcg"] is False


@pytest.mark.parametrize("policy", _POLICIES, ids=str)
def test_weights_of_k_as_a_column_equal_the_formula_at_each_k(policy: Policy) -> None:
    classes = pl.DataFrame(
        {"r": [1.0, 2.0, 3.0, 7.0, 1.0, 40.0], "n": [2.0, 2.0, 5.0, 31.0, 31.0, 31.0]}
    )
    k_max = 30
    checked = 0
    for name, column in _linear(policy).items():
        if not column:
            continue
        metric = REGISTRY[name]
        form = summed_form(metric.formula, metric.terms, policy)
        assert metric.formula is not None
        assert form is not None
        terms = list(metric.terms)
        step = dataclasses.replace(form, k_column=False)
        per_k = linear_weights(metric.formula, step, policy, classes, terms, k_max)
        once = linear_weights(metric.formula, form, policy, classes, terms, k_max)
        assert once.shape == per_k.shape == (classes.height, 1 + len(terms), k_max)
        assert np.array_equal(once, per_k, equal_nan=True), name
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("layers", [[3, 0, 5], [5000], [4096, 7]])
def test_resample_weights_count_each_layers_draws(layers: list[int]) -> None:
    """Each resample's weights count how often it drew each group of each layer: the draws
    replayed from the same generator and counted one by one, small layers and large alike."""
    blocks = list(resampling.weight_blocks(np.random.default_rng(7), layers, 60))
    replay = np.random.default_rng(7)
    for weights in blocks:
        offset = 0
        for m in layers:
            if m:
                drawn = replay.integers(0, m, size=(weights.shape[0], m))
                for row, draws in zip(weights, drawn, strict=True):
                    expected = np.zeros(m)
                    for group in draws:
                        expected[group] += 1
                    assert np.array_equal(row[offset : offset + m], expected)
            offset += m
    assert sum(w.shape[0] for w in blocks) == 60


def test_recall_beside_precision_is_summed_in_the_class_block() -> None:
    """Recall is event-valued and linear: beside precision (whose hits the class block sums
    anyway) it is weighed there and adds no event; alone it is read at its event ranks."""
    import polars_rankk as rk

    candidates = pl.DataFrame(
        {
            "q": [1, 1, 1, 2, 2, 3],
            "item": [1, 2, 3, 1, 4, 5],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
        }
    )
    truth = pl.DataFrame({"q": [1, 1, 2, 3], "item": [2, 3, 9, 5]})
    res = rk.evaluate(candidates, truth, k=[1, 3], metrics=["precision", "recall"], group_by="q")
    both = rank_sums.sums_over_ranks(res, metrics=["precision", "recall"])
    precision = rank_sums.sums_over_ranks(res, metrics=["precision"])
    recall = rank_sums.sums_over_ranks(res, metrics=["recall"])
    assert both is not None
    assert precision is not None
    assert recall is not None
    assert set(both.weights) == {"precision", "recall"}
    assert not both.columns
    assert both.delta.size == precision.delta.size
    assert set(recall.columns) == {"recall"}
    assert not recall.weights
    for sums in (both, recall):
        [(_, numerators, counts)] = rank_sums.means(sums, ["recall"])
        # R = 2, 1, 1; hits at ranks 2 and 3, none, at rank 1.
        assert np.allclose(numerators[0] / counts, [1 / 3, 1.5 / 3, 2 / 3])


@pytest.mark.skipif(not kernel_status().loaded, reason="the native kernel is not loaded")
@pytest.mark.parametrize(("groups", "n_resamples"), [(1, 3), (7, 40), (3000, 101)])
def test_kernel_resampled_sums_are_numpys_draws_times_the_events(
    groups: int, n_resamples: int
) -> None:
    """The kernel's draws are `weight_blocks`' (NumPy's generator, drawn as NumPy draws) and
    its sums the sparse product's, bit for bit; the generator is left where NumPy leaves it."""
    import scipy.sparse as sp

    from polars_rankk.core.kernel.resample import resampled_event_sums

    values = np.random.default_rng(3)
    width = 50
    cells = np.unique(values.integers(0, groups * width, size=4 * groups))
    group, column = cells // width, cells % width
    delta = values.standard_normal(cells.size)
    mine, numpy_rng = np.random.default_rng([5, 9]), np.random.default_rng([5, 9])
    sums = resampled_event_sums(mine, groups, group, column, delta, width, n_resamples)
    matrix = sp.csr_matrix((delta, (group, column)), shape=(groups, width))
    blocks = resampling.weight_blocks(numpy_rng, [groups], n_resamples)
    expected = np.concatenate([np.asarray(weights @ matrix) for weights in blocks])
    assert sums is not None
    assert np.array_equal(sums, expected)
    assert mine.bit_generator.state == numpy_rng.bit_generator.state
    assert np.array_equal(mine.integers(0, 1000, 9), numpy_rng.integers(0, 1000, 9))
