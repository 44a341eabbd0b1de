"""rk.judge_agreement: Cohen's kappa equal to scikit-learn's, Kendall's tau equal to scipy's,
tau_AP equal to a brute-force transcription of Yilmaz, Aslam & Robertson (SIGIR 2008), and the
swapped pairs exactly the pairs ordered the other way round."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk

metrics = pytest.importorskip("sklearn.metrics")
stats = pytest.importorskip("scipy.stats")


@pytest.mark.filterwarnings("ignore::UserWarning")
@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from([0, 1, 2, 3]), st.sampled_from([0, 1, 2, 4])),
        min_size=2,
        max_size=30,
    )
)
def test_kappa_equals_scikit_learn(pairs: list[tuple[int, int]]) -> None:
    """Every weighting, grades that skip values (positions in the union, as scikit-learn)."""
    judge = [a for a, _ in pairs]
    human = [b for _, b in pairs]
    n = len(pairs)
    frame = {"q": [i % 3 for i in range(n)], "item": list(range(n))}
    result = rk.judge_agreement(
        pl.DataFrame({**frame, "relevance": judge}),
        pl.DataFrame({**frame, "relevance": human}),
        group_by="q",
    ).kappa
    for weights, value in zip(result["weights"], result["kappa"], strict=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = metrics.cohen_kappa_score(
                judge, human, weights=None if weights == "unweighted" else weights
            )
        if np.isnan(expected):
            assert value is None or np.isnan(value)
        else:
            assert value == pytest.approx(expected, abs=1e-12)


def _tau_ap(truth: dict[str, float], estimate: dict[str, float]) -> float:
    """Yilmaz et al. 2008, eq. 2, transcribed: tau_AP = 2/(N-1) sum_{i=2..N} C(i)/(i-1) - 1,
    with C(i) the systems above rank i of the estimated list also above it in the true list
    (both lists by value, best first, ties broken by name)."""
    order = sorted(estimate, key=lambda s: (-estimate[s], s))
    true_order = sorted(truth, key=lambda s: (-truth[s], s))
    position = {s: i for i, s in enumerate(true_order)}
    total = 0.0
    for i in range(1, len(order)):
        correct = sum(position[above] < position[order[i]] for above in order[:i])
        total += correct / i
    return 2 / (len(order) - 1) * total - 1


def test_orderings_equal_scipy_and_the_paper() -> None:
    """Five systems ranked under a noisy judge's labels and people's: tau-b equals
    scipy.stats.kendalltau on the means, tau_AP the transcription, swaps the discordant pairs."""
    rng = np.random.default_rng(7)
    groups, items = 12, 8
    keys = {"q": np.repeat(np.arange(groups), items), "item": np.tile(np.arange(items), groups)}
    human_grades = rng.integers(0, 3, groups * items)
    judge_grades = np.clip(human_grades + rng.integers(-1, 2, groups * items), 0, 2)
    human = pl.DataFrame({**keys, "relevance": human_grades})
    judge = pl.DataFrame({**keys, "relevance": judge_grades})
    systems = {
        f"S{s}": pl.DataFrame({**keys, "score": rng.normal(0, 1, groups * items)
                               + s * 0.3 * human_grades})
        for s in range(5)
    }  # fmt: skip
    result = rk.judge_agreement(judge, human, group_by="q", systems=systems, metrics=["ndcg"], k=5)
    assert result.means is not None
    assert result.orderings is not None
    assert result.swaps is not None
    means = result.means.sort("system")
    row = result.orderings.row(0, named=True)
    tau = stats.kendalltau(means["judge"].to_numpy(), means["human"].to_numpy()).statistic
    assert row["kendall_tau"] == pytest.approx(tau, abs=1e-12)
    judge_means = dict(zip(means["system"], means["judge"], strict=True))
    human_means = dict(zip(means["system"], means["human"], strict=True))
    assert row["tau_ap"] == pytest.approx(_tau_ap(human_means, judge_means), abs=1e-12)
    discordant = {
        tuple(sorted((a, b)))
        for a in judge_means
        for b in judge_means
        if (judge_means[a] - judge_means[b]) * (human_means[a] - human_means[b]) < 0
    }
    swapped = {tuple(sorted(pair)) for pair in result.swaps.select("system", "other").rows()}
    assert swapped == discordant
    assert row["n_swapped"] == len(discordant)


def test_missing_column_is_named() -> None:
    frame = pl.DataFrame({"q": [1], "item": [1], "relevance": [1]})
    with pytest.raises(ValueError, match=r"human_truth: missing column\(s\) \['grade'\]"):
        rk.judge_agreement(frame.rename({"relevance": "grade"}), frame, group_by="q",
                           relevance="grade")  # fmt: skip
