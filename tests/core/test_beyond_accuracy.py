"""Beyond-accuracy metrics: hand-computed cases, peers' published formulas, properties.

None of the peers (Microsoft Recommenders, Evidently, RecBole) is installed in the test
environment, so each peer's formula is written out here and compared with ours; where the
definitions differ the test says how. The Microsoft Recommenders and Evidently formulas were
read from their source (the files each test names); the RecBole ones follow its
documentation and were not checked against its source.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from tests.support.examples import examples

ALL_GROUP = ["novelty", "arp", "long_tail_share", "intra_list_diversity"]
ALL_CATALOGUE = ["coverage", "gini", "entropy", "personalization"]

CANDIDATES = pl.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 2],
        "item": ["a", "b", "c", "a", "d", "e"],
        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0],
    }
)
# a: 6 interactions, b: 2, c: 1, d: 1 (10 in all); e never seen.
LOG = pl.DataFrame({"item": ["a"] * 6 + ["b"] * 2 + ["c", "d"]})
GENRES = pl.DataFrame({"item": ["a", "b", "c", "d", "e"], "genre": ["x", "x", "y", "y", "z"]})


def _values(res: rk.Evaluation) -> dict[tuple[object, str, int], float]:
    return {
        (r["user"], r["metric"], r["k"]): r["value"] for r in res.per_group.iter_rows(named=True)
    }


def _catalogue(res: rk.Evaluation) -> dict[tuple[str, int], float | None]:
    assert isinstance(res.catalogue, pl.DataFrame)
    return {(r["metric"], r["k"]): r["value"] for r in res.catalogue.iter_rows(named=True)}


def _evaluate(candidates: pl.DataFrame = CANDIDATES, **options: object) -> rk.Evaluation:
    options.setdefault("k", [1, 2, 3])
    options.setdefault("metrics", ALL_GROUP + ALL_CATALOGUE)
    options.setdefault("popularity", LOG)
    options.setdefault("item_features", GENRES)
    return rk.evaluate(candidates, group_by="user", **options)  # type: ignore[arg-type]


def test_hand_computed_per_group_values() -> None:
    values = _values(_evaluate())
    info = {"a": -math.log2(0.6), "b": -math.log2(0.2), "c": -math.log2(0.1)}
    info["d"] = info["c"]
    info["e"] = -math.log2(0.1)  # never seen: counted as seen once
    assert values[(1, "novelty", 2)] == pytest.approx((info["a"] + info["b"]) / 2)
    assert values[(2, "novelty", 3)] == pytest.approx((info["a"] + info["d"] + info["e"]) / 3)
    assert values[(1, "arp", 3)] == pytest.approx((6 + 2 + 1) / 3)
    assert values[(2, "arp", 3)] == pytest.approx((6 + 1 + 0) / 3)
    # Head at 20%: "a" alone (60% of interactions); everything else is the tail.
    assert values[(1, "long_tail_share", 1)] == 0.0
    assert values[(1, "long_tail_share", 3)] == pytest.approx(2 / 3)
    # Genres x, x, y: pairs (a,b)=0, (a,c)=1, (b,c)=1.
    assert values[(1, "intra_list_diversity", 2)] == 0.0
    assert values[(1, "intra_list_diversity", 3)] == pytest.approx(2 / 3)
    assert values[(2, "intra_list_diversity", 3)] == pytest.approx(1.0)


def test_hand_computed_catalogue_values() -> None:
    values = _catalogue(_evaluate())
    # Catalogue: a..e (candidates and log). Exposures at K=1: a twice.
    assert values[("coverage", 1)] == pytest.approx(1 / 5)
    assert values[("coverage", 3)] == pytest.approx(1.0)
    # Sorted counts 0,0,0,0,2: (2*5 - 5 - 1) * 2 / (5 * 2).
    assert values[("gini", 1)] == pytest.approx(0.8)
    # K=2: a 2, b 1, d 1.
    assert values[("entropy", 2)] == pytest.approx(1.5)
    assert values[("personalization", 1)] == 0.0
    assert values[("personalization", 2)] == pytest.approx(0.5)
    assert values[("personalization", 3)] == pytest.approx(1 - 1 / 3)


def test_explicit_catalogue_counts_unexposed_items() -> None:
    catalogue = pl.DataFrame({"item": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]})
    values = _catalogue(_evaluate(catalogue=catalogue, k=3))
    assert values[("coverage", 3)] == pytest.approx(5 / 10)


def test_truth_is_optional_and_accuracy_metrics_mix() -> None:
    truth = pl.DataFrame({"user": [1, 2], "item": ["b", "x"]})
    mixed = rk.evaluate(
        CANDIDATES, truth, k=2, metrics=["precision", "novelty", "coverage"],
        group_by="user", popularity=LOG,
    )  # fmt: skip
    assert mixed.metrics == ["precision", "novelty"]
    assert set(mixed.per_group["metric"]) == {"precision", "novelty"}
    alone = _evaluate(k=2, metrics=["novelty", "coverage"])
    assert alone.metrics == ["novelty"]
    assert mixed.per_group.filter(pl.col("metric") == "novelty").equals(alone.per_group)
    assert "novelty@2" in alone.wide().columns
    # Every metric asked appears in the summary: coverage as its one figure (no group count).
    summary = alone.summary()
    assert summary["metric"].to_list() == ["novelty", "coverage"]
    coverage = alone.catalogue.filter(pl.col("metric") == "coverage")["value"]  # type: ignore[union-attr]
    assert summary.filter(pl.col("metric") == "coverage")["value"].equals(coverage)
    assert summary.filter(pl.col("metric") == "coverage")["n_groups"].to_list() == [None]


def test_lazy_streaming_and_row_order_give_identical_numbers() -> None:
    eager = _evaluate()
    shuffled = _evaluate(CANDIDATES.sample(fraction=1.0, shuffle=True, seed=3))
    lazy = rk.evaluate(
        CANDIDATES.lazy(), group_by="user", popularity=LOG.lazy(), item_features=GENRES,
        k=[1, 2, 3], metrics=ALL_GROUP + ALL_CATALOGUE,
    ).collect(engine="streaming")  # fmt: skip
    for other in (shuffled, lazy):
        assert other.per_group.equals(eager.per_group)
        assert isinstance(other.catalogue, pl.DataFrame)
        assert other.catalogue.equals(eager.catalogue)


def test_short_lists_policy_sets_the_denominator() -> None:
    short = pl.DataFrame({"user": [1, 2, 2], "item": ["a", "a", "b"], "score": [1.0, 2.0, 1.0]})
    fixed = _values(_evaluate(short, k=2, metrics=["arp"]))
    observed_policy = rk.Policy(short_lists="observed")
    observed = _values(_evaluate(short, k=2, metrics=["arp"], policy=observed_policy))
    skipped = _values(_evaluate(short, k=2, metrics=["arp"], policy=rk.Policy(short_lists="skip")))
    assert fixed[(1, "arp", 2)] == 3.0  # 6 / K
    assert observed[(1, "arp", 2)] == 6.0  # 6 / min(K, n)
    assert (1, "arp", 2) not in skipped
    assert skipped[(2, "arp", 2)] == 4.0


def test_errors_name_the_missing_input() -> None:
    with pytest.raises(ValueError, match="popularity"):
        rk.evaluate(CANDIDATES, k=2, metrics="novelty", group_by="user")
    with pytest.raises(ValueError, match="item_features"):
        rk.evaluate(CANDIDATES, k=2, metrics="intra_list_diversity", group_by="user")
    with pytest.raises(ValueError, match="ties='expected'"):
        _evaluate(metrics="novelty", policy=rk.Policy(ties="expected"))
    with pytest.raises(ValueError, match="count"):
        _evaluate(metrics="arp", popularity=pl.DataFrame({"item": ["a"], "count": [-1]}))


def test_embedding_diversity_equals_pairwise_cosine_distance() -> None:
    rng = np.random.default_rng(0)
    items = [f"i{n}" for n in range(12)]
    vectors = rng.normal(size=(12, 5))
    features = pl.DataFrame({"item": items, "embedding": vectors.tolist()})
    lists = {user: rng.choice(12, size=6, replace=False) for user in range(5)}
    candidates = pl.DataFrame(
        {
            "user": [u for u, chosen in lists.items() for _ in chosen],
            "item": [items[i] for chosen in lists.values() for i in chosen],
            "score": [float(-r) for chosen in lists.values() for r in range(len(chosen))],
        }
    )
    res = rk.evaluate(
        candidates, k=[2, 4, 6], metrics="intra_list_diversity", group_by="user",
        item_features=features,
    )  # fmt: skip
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    values = _values(res)
    for user, chosen in lists.items():
        for k in (2, 4, 6):
            pairs = list(itertools.combinations(chosen[:k], 2))
            expected = np.mean([1 - unit[i] @ unit[j] for i, j in pairs])
            assert values[(user, "intra_list_diversity", k)] == pytest.approx(expected, abs=1e-12)


def test_several_labels_per_item_are_a_multi_hot_cosine() -> None:
    features = pl.DataFrame({"item": ["a", "b", "c"], "tags": [["x", "y"], ["x"], ["z"]]})
    candidates = pl.DataFrame(
        {"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    )
    res = rk.evaluate(
        candidates, k=3, metrics="intra_list_diversity", group_by="user", item_features=features
    )
    # (a,b): 1 - 1/sqrt(2); (a,c): 1; (b,c): 1.
    assert res.per_group["value"].item() == pytest.approx((1 - 1 / math.sqrt(2) + 2) / 3)


# --- Peers' formulas -------------------------------------------------------------------------

PEER_LISTS = {
    1: ["a", "b", "c"],
    2: ["a", "d", "b"],
    3: ["c", "a", "e"],
    4: ["f", "a", "b"],
}
# The "training" interactions: (user, item), one row per pair as the peers assume.
TRAIN = [
    (u, i) for u, items in {1: "abd", 2: "ab", 3: "acf", 4: "a", 5: "bg"}.items() for i in items
]
K = 3


def _peer_candidates() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "user": [u for u, items in PEER_LISTS.items() for _ in items],
            "item": [i for items in PEER_LISTS.values() for i in items],
            "score": [float(-r) for items in PEER_LISTS.values() for r in range(len(items))],
        }
    )


def _peer_result(**options: object) -> rk.Evaluation:
    log = pl.DataFrame({"user": [u for u, _ in TRAIN], "item": [i for _, i in TRAIN]})
    options.setdefault("popularity", log)
    return rk.evaluate(_peer_candidates(), k=K, group_by="user", **options)  # type: ignore[arg-type]


def _macro(res: rk.Evaluation, metric: str) -> float:
    summary = res.summary()
    return float(summary.filter(pl.col("metric") == metric)["value"].item())


def test_recbole_gini_index_item_coverage_and_average_popularity() -> None:
    """RecBole (recbole/evaluator/metrics.py): GiniIndex, ItemCoverage, AveragePopularity.

    Same definitions: GiniIndex sorts the recommended items' counts ascending behind the
    num_items - n unexposed zeros; ItemCoverage is distinct recommended items / num_items;
    AveragePopularity is the mean over users of the mean training count of the top K.
    """
    num_items = 7  # a..g
    catalogue = pl.DataFrame({"item": list("abcdefg")})
    res = _peer_result(metrics=["arp", "gini", "coverage"], catalogue=catalogue)
    matrix = [items[:K] for items in PEER_LISTS.values()]
    counts = np.array(sorted(Counter(itertools.chain(*matrix)).values()))
    idx = np.arange(num_items - len(counts) + 1, num_items + 1)
    gini = np.sum((2 * idx - num_items - 1) * counts) / (len(matrix) * K) / num_items
    coverage = len(set(itertools.chain(*matrix))) / num_items
    count_items = Counter(i for _, i in TRAIN)
    arp = np.mean([np.mean([count_items.get(i, 0) for i in row]) for row in matrix])
    values = _catalogue(res)
    assert values[("gini", K)] == pytest.approx(gini)
    assert values[("coverage", K)] == pytest.approx(coverage)
    assert _macro(res, "arp") == pytest.approx(arp)


def test_recbole_tail_percentage_and_shannon_entropy_differ_as_documented() -> None:
    """RecBole TailPercentage puts the items seen at most tail_ratio times (tail_ratio > 1),
    or the least popular share of *items*, in the tail, and never an item unseen in training;
    ours defines the head by its share of *interactions* and counts unseen items in the tail.
    Here the head (20% of 11 interactions) is "a" alone, RecBole's tail at tail_ratio = 3 is
    every other seen item: the two agree on the lists without unseen items. RecBole's
    ShannonEntropy uses the natural log and divides by the number of distinct recommended
    items; ours is the plain entropy in bits."""
    res = _peer_result(metrics=["long_tail_share", "entropy"])
    count_items = Counter(i for _, i in TRAIN)
    tail = {item for item, count in count_items.items() if count <= 3}
    ours = _values(res)
    for user, items in PEER_LISTS.items():
        if all(i in count_items for i in items):
            recbole = np.mean([i in tail for i in items[:K]])
            assert ours[(user, "long_tail_share", K)] == pytest.approx(recbole)
    matrix = [items[:K] for items in PEER_LISTS.values()]
    flat = list(itertools.chain(*matrix))
    shares = np.array(list(Counter(flat).values())) / len(flat)
    recbole_entropy = float(np.sum(-shares * np.log(shares)) / len(shares))
    entropy = _catalogue(res)[("entropy", K)]
    assert entropy == pytest.approx(recbole_entropy * len(shares) / math.log(2))


def test_microsoft_recommenders_coverage_novelty_and_diversity() -> None:
    """Microsoft Recommenders, recommenders/evaluation/python_evaluation.py (read from its
    source): catalog_coverage, distributional_coverage, novelty, diversity.

    - catalog_coverage = reco_df[item].nunique() / train_df[item].nunique(): recommended items
      outside train count in the numerator (it can exceed 1); ours, with the train items as
      the catalogue, counts catalogue items only.
    - distributional_coverage = -sum p log2 p over all recommendation rows: ours with the
      default catalogue (every candidate and logged item).
    - novelty: item novelty -log2(count / train rows), averaged over all recommendation rows,
      an item unseen in train adding 0 (the merge drops it; the row still counts). Ours is the
      mean over groups of each list's mean, an unseen item counting as seen once; with lists
      of K items the two differ only by the unseen items' -log2(1 / train rows) / rows.
    - diversity (item_sim_measure="item_feature_vector"): 1 - the mean cosine similarity over
      the unordered pairs of each user's list, averaged over users; a missing pair counts 0 —
      ours, where an item without features is at distance 1.
    """
    train_items = sorted({i for _, i in TRAIN})
    rng = np.random.default_rng(1)
    vectors = {item: rng.normal(size=4) for item in "abcdefg"}
    features = pl.DataFrame({"item": list(vectors), "v": [v.tolist() for v in vectors.values()]})
    metrics = ["coverage", "entropy", "novelty", "intra_list_diversity"]
    res = _peer_result(
        metrics=metrics, catalogue=pl.DataFrame({"item": train_items}), item_features=features
    )
    default = _peer_result(metrics=metrics, item_features=features)
    matrix = [items[:K] for items in PEER_LISTS.values()]
    flat = list(itertools.chain(*matrix))
    outside = set(flat) - set(train_items)
    assert outside == {"e"}
    catalog_coverage = len(set(flat)) / len(train_items)
    coverage = _catalogue(res)[("coverage", K)]
    assert coverage == pytest.approx(len(set(flat) - outside) / len(train_items))
    assert catalog_coverage - coverage == pytest.approx(len(outside) / len(train_items))
    p = np.array(list(Counter(flat).values())) / len(flat)
    distributional_coverage = float(-(p * np.log2(p)).sum())
    assert _catalogue(default)[("entropy", K)] == pytest.approx(distributional_coverage)
    item_count = Counter(i for _, i in TRAIN)
    n_records = len(TRAIN)
    novelty = sum(-math.log2(item_count[i] / n_records) for i in flat if i in item_count)
    novelty /= len(flat)
    unseen = sum(i not in item_count for i in flat) * -math.log2(1 / n_records) / len(flat)
    assert _macro(res, "novelty") == pytest.approx(novelty + unseen)
    unit = {i: v / np.linalg.norm(v) for i, v in vectors.items()}
    diversity = np.mean(
        [
            1 - np.mean([unit[i] @ unit[j] for i, j in itertools.combinations(row, 2)])
            for row in matrix
        ]
    )
    assert _macro(res, "intra_list_diversity") == pytest.approx(diversity)


def test_evidently_personalization_popularity_bias_and_coverage() -> None:
    """Evidently, src/evidently/metrics/recsys/personalisation.py and popularity_bias.py
    (read from its source).

    - PersonalizationMetric: (U^2 - U - (sum c^2 - U k) / k) / (U^2 - U), c the top-k
      counts per item — ours exactly when every list holds k items (its U k stands for the
      number of recommendations).
    - PopularityBias ARP: per user, the mean over the top k of the item's number of distinct
      train users, items unseen in train dropped; then the mean over users (normalize_arp
      divides by the largest). Ours counts interactions (equal with one row per user and
      item) and counts an unseen item as 0 in a mean over K: equal on users without one.
    - PopularityBias coverage: |recommended items ∩ train items| / |train items|, over all
      recommendations (not the top k) — ours with the train items as the catalogue when the
      candidates are the top k.
    - PopularityBias gini: over the recommended items only, divided by (n - 1) sum c; ours
      includes the M - n unexposed catalogue items as zeros and divides by M sum c, so
      ours = (G (n - 1) + M - n) / M.
    """
    train_items = sorted({i for _, i in TRAIN})
    metrics = ["personalization", "arp", "coverage", "gini"]
    res = _peer_result(metrics=metrics, catalogue=pl.DataFrame({"item": train_items}))
    frame = _peer_candidates()
    top = frame.filter(pl.col("score").rank("ordinal", descending=True).over("user") <= K)
    counts = top.group_by("item").len()["len"].to_numpy()
    users = top["user"].n_unique()
    personalization = (users**2 - users - (np.sum(counts**2) - users * K) / K) / (users**2 - users)
    values = _catalogue(res)
    assert values[("personalization", K)] == pytest.approx(personalization)
    user_interacted = Counter(i for _, i in set(TRAIN))
    ours = _values(res)
    for user, items in PEER_LISTS.items():
        if all(i in user_interacted for i in items[:K]):
            evidently = np.mean([user_interacted[i] for i in items[:K]])
            assert ours[(user, "arp", K)] == pytest.approx(evidently)
    recommended = set(frame["item"])
    coverage = len(recommended & set(train_items)) / len(train_items)
    assert values[("coverage", K)] == pytest.approx(coverage)
    in_catalogue = top.filter(pl.col("item").is_in(train_items))
    ascending = np.sort(in_catalogue.group_by("item").len()["len"].to_numpy())
    n, size = len(ascending), len(train_items)
    index = np.arange(1, n + 1)
    gini = np.sum((2 * index - n - 1) * ascending) / ((n - 1) * np.sum(ascending))
    assert values[("gini", K)] == pytest.approx((gini * (n - 1) + size - n) / size)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, 9), min_size=4, max_size=4, unique=True), min_size=2, max_size=8
    ),
    st.integers(1, 4),
)
def test_personalization_from_exposures_equals_all_user_pairs(
    lists: list[list[int]], k: int
) -> None:
    candidates = pl.DataFrame(
        {
            "user": [u for u, items in enumerate(lists) for _ in items],
            "item": [i for items in lists for i in items],
            "score": [float(-r) for items in lists for r in range(len(items))],
        }
    )
    res = rk.evaluate(candidates, k=k, metrics="personalization", group_by="user")
    overlaps = [len(set(a[:k]) & set(b[:k])) / k for a, b in itertools.combinations(lists, 2)]
    assert _catalogue(res)[("personalization", k)] == pytest.approx(1 - np.mean(overlaps))
