"""rk.judge_agreement: Cohen's kappa equal to scikit-learn's, Kendall's tau equal to scipy's,
tau_AP equal to a brute-force transcription of Yilmaz, Aslam & Robertson (SIGIR 2008), and the
swapped pairs exactly the pairs ordered the other way round."""

from __future__ import annotations

import itertools
from fractions import Fraction

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


def _rotated_systems(
    groups: int, items: int, seed: int
) -> tuple[dict[str, pl.DataFrame], dict[str, list[list[int]]]]:
    """Systems whose per-group rankings are other systems' rankings moved to another group
    (same values, summed in another order: equal means), and each system's top 3 per group."""
    rng = np.random.default_rng(seed)
    base = [[rng.permutation(items).tolist() for _ in range(groups)] for _ in range(3)]
    rankings = {
        "A": base[0],
        "B": base[0][1:] + base[0][:1],  # A's lists, each one group on: A's mean exactly
        "C": base[1],
        "D": base[1][::-1],
        "E": base[2],
    }
    systems = {}
    for name, lists in rankings.items():
        rows = [
            (g, it, float(items - position))
            for g, ranking in enumerate(lists)
            for position, it in enumerate(ranking)
        ]
        systems[name] = pl.DataFrame(rows, schema=["q", "item", "score"], orient="row")
    return systems, {name: [ranking[:3] for ranking in lists] for name, lists in rankings.items()}


def _exact_means(top: dict[str, list[list[int]]], relevant: set[int]) -> dict[str, float]:
    """precision@3 per system, its mean over groups as an exact fraction."""
    return {
        name: float(sum(Fraction(len(relevant & set(t)), 3) for t in tops) / len(tops))
        for name, tops in top.items()
    }


def _ordering_truths(groups: int, items: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The same grades in every group: a judge that calls item 3 relevant, people item 4."""
    keys = {"q": np.repeat(np.arange(groups), items), "item": np.tile(np.arange(items), groups)}
    human = pl.DataFrame({**keys, "relevance": np.isin(keys["item"], [0, 1, 4]).astype(int)})
    judge = pl.DataFrame({**keys, "relevance": np.isin(keys["item"], [0, 1, 3]).astype(int)})
    return judge, human


def test_tau_b_is_deterministic_and_ties_are_exact() -> None:
    """Ten calls on rows shuffled anew: the same orderings every time, tau-b equal to scipy on
    the exact means, and the tied pairs (equal exact means) counted."""
    groups, items = 37, 7
    judge, human = _ordering_truths(groups, items)
    systems, top = _rotated_systems(groups, items, seed=3)
    judge_means = _exact_means(top, {0, 1, 3})
    human_means = _exact_means(top, {0, 1, 4})
    names = sorted(systems)
    expected = stats.kendalltau(
        [judge_means[s] for s in names], [human_means[s] for s in names]
    ).statistic

    def ties(means: dict[str, float]) -> int:
        return sum(means[a] == means[b] for a in names for b in names if a < b)

    assert ties(judge_means) >= 1
    assert ties(human_means) >= 1
    results = []
    for seed in range(10):
        shuffled = {
            name: frame.sample(fraction=1.0, shuffle=True, seed=seed)
            for name, frame in systems.items()
        }
        result = rk.judge_agreement(
            judge.sample(fraction=1.0, shuffle=True, seed=seed),
            human.sample(fraction=1.0, shuffle=True, seed=seed + 100),
            group_by="q", systems=shuffled, metrics="precision", k=3,
        )  # fmt: skip
        assert result.orderings is not None
        assert result.means is not None
        results.append(result)
        row = result.orderings.row(0, named=True)
        assert row["kendall_tau"] == pytest.approx(expected, abs=1e-12)
        assert row["judge_ties"] == ties(judge_means)
        assert row["human_ties"] == ties(human_means)
    for result in results[1:]:
        assert result.orderings is not None
        assert results[0].orderings is not None
        assert result.orderings.equals(results[0].orderings)


def _tau_ap_of_orders(order: list[str], true_order: list[str]) -> float:
    """Eq. 2 of Yilmaz et al. 2008 on two given orders (best first)."""
    position = {s: i for i, s in enumerate(true_order)}
    total = 0.0
    for i in range(1, len(order)):
        total += sum(position[above] < position[order[i]] for above in order[:i]) / i
    return 2 / (len(order) - 1) * total - 1


def _tau_ap_over_tie_orders(truth: dict[str, float], estimate: dict[str, float]) -> float:
    """The transcription averaged over every order of tied values in both lists."""

    def orders(values: dict[str, float]) -> list[list[str]]:
        return [
            list(p)
            for p in itertools.permutations(values)
            if all(values[a] >= values[b] for a, b in itertools.pairwise(p))
        ]

    taus = [_tau_ap_of_orders(e, t) for e in orders(estimate) for t in orders(truth)]
    return sum(taus) / len(taus)


def test_tau_ap_averages_tie_orders_whatever_the_names() -> None:
    """Tied means: tau_AP is the transcription averaged over every order of the ties, and the
    same number after the systems are renamed."""
    groups, items = 37, 7
    judge, human = _ordering_truths(groups, items)
    systems, top = _rotated_systems(groups, items, seed=3)
    expected = _tau_ap_over_tie_orders(_exact_means(top, {0, 1, 4}), _exact_means(top, {0, 1, 3}))
    values = []
    for renaming in ({}, {"A": "Z", "B": "Y", "C": "X", "D": "W", "E": "V"}):
        result = rk.judge_agreement(
            judge, human, group_by="q", metrics="precision", k=3,
            systems={renaming.get(name, name): frame for name, frame in systems.items()},
        )  # fmt: skip
        assert result.orderings is not None
        values.append(result.orderings["tau_ap"].item())
    assert values[0] == pytest.approx(expected, abs=1e-12)
    assert values[1] == values[0]


@settings(max_examples=60, deadline=None)
@given(
    means=st.lists(
        st.tuples(st.sampled_from([0.1, 0.2, 0.3]), st.sampled_from([0.1, 0.2, 0.3])),
        min_size=2,
        max_size=6,
    )
)
def test_tau_ap_equals_the_average_over_tie_orders(means: list[tuple[float, float]]) -> None:
    """Means drawn from three values (ties everywhere): the closed form equals brute force."""
    from polars_rankk.judges.agreement import _orderings

    table = pl.DataFrame(
        {
            "system": [f"S{i}" for i in range(len(means))],
            "metric": "ndcg",
            "k": 10,
            "judge": [j for j, _ in means],
            "human": [h for _, h in means],
        }
    )
    orderings, _ = _orderings(table)
    estimate = {f"S{i}": j for i, (j, _) in enumerate(means)}
    truth = {f"S{i}": h for i, (_, h) in enumerate(means)}
    expected = _tau_ap_over_tie_orders(truth, estimate)
    assert orderings["tau_ap"].item() == pytest.approx(expected, abs=1e-12)


def test_repeated_judgement_counts_once() -> None:
    """A (group, item) given twice in one truth is one judgement at its highest grade (as
    evaluate reads a truth), said in a warning: kappa equals scikit-learn's on the pairs."""
    judge = pl.DataFrame({"q": [1, 1, 1, 2], "item": [1, 2, 2, 3], "relevance": [1, 0, 1, 1]})
    human = pl.DataFrame({"q": [1, 1, 2], "item": [1, 2, 3], "relevance": [1, 1, 0]})
    with pytest.warns(UserWarning, match=r"judged_truth: 1 repeated \(q, item\) row.*'q': 1"):
        result = rk.judge_agreement(judge, human, group_by="q").kappa
    expected = metrics.cohen_kappa_score([1, 1, 1], [1, 1, 0])
    row = result.row(0, named=True)
    assert row["n_shared"] == 3
    assert row["kappa"] == pytest.approx(expected, abs=1e-12)


def test_no_shared_group_or_item_is_said() -> None:
    judge = pl.DataFrame({"q": [1, 1], "item": [1, 2], "relevance": [1, 0]})
    elsewhere = pl.DataFrame({"q": [5], "item": [1], "relevance": [1]})
    with pytest.raises(ValueError, match="judged_truth and human_truth share no group"):
        rk.judge_agreement(judge, elsewhere, group_by="q")
    other_items = pl.DataFrame({"q": [1], "item": [7], "relevance": [1]})
    with pytest.raises(ValueError, match=r"judged_truth and human_truth share 1 group\(s\) but"):
        rk.judge_agreement(judge, other_items, group_by="q")
