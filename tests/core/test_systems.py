"""Several systems in one pass: ``evaluate(..., system=COLUMN)`` equals one evaluation per
system, and every consumer reads its slices without ranking again."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankk as rk

METRICS = ["precision", "recall", "ndcg", "average_precision", "mrr", "r_precision"]


def _inputs() -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates = pl.DataFrame(
        {
            "run": ["A"] * 6 + ["B"] * 5,
            "user": [1, 1, 1, 2, 2, 3, 1, 1, 2, 2, 4],
            "item": [1, 2, 3, 1, 4, 9, 2, 3, 4, 5, 1],
            "score": [0.9, 0.5, 0.5, 0.3, 0.8, 0.1, 0.7, 0.9, 0.2, 0.2, 0.5],
        }
    )
    truth = pl.DataFrame(
        {"user": [1, 1, 2, 3, 5], "item": [2, 3, 4, 7, 1], "relevance": [1, 2, 1, 1, 3]}
    )
    return candidates, truth


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize(
    "policy",
    [rk.Policy(), rk.Policy(missing_groups="exclude", empty_truth="zero"), rk.Policy.trec_eval()],
)
def test_each_system_equals_its_own_evaluation(lazy: bool, policy: rk.Policy) -> None:
    candidates, truth = _inputs()
    given = candidates.lazy() if lazy else candidates
    together = rk.evaluate(given, truth, k=[1, 2, 5], metrics=METRICS, group_by="user",
                           policy=policy, system="run")  # fmt: skip
    assert together.system == "run"
    assert together.group_keys == ["user"]
    per_group = together.collect().per_group
    assert isinstance(per_group, pl.DataFrame)
    assert per_group.columns[:2] == ["run", "user"]
    parts = together.by_system()
    assert list(parts) == ["A", "B"]
    summaries = []
    for name in ("A", "B"):
        own = candidates.filter(pl.col("run") == name).drop("run")
        alone = rk.evaluate(own, truth, k=[1, 2, 5], metrics=METRICS, group_by="user",
                            policy=policy)  # fmt: skip
        assert_frame_equal(parts[name].per_group, alone.per_group)
        assert_frame_equal(parts[name].groups, alone.groups)
        assert_frame_equal(per_group.filter(pl.col("run") == name).drop("run"), alone.per_group)
        assert parts[name].diagnostics.counts == alone.diagnostics.counts
        summaries.append(alone.summary().select(pl.lit(name).alias("run"), pl.all()))
    assert_frame_equal(together.summary(), pl.concat(summaries))
    assert together.diagnostics.to_frame().columns[0] == "run"
    assert together.diagnostics.per_k.columns[0] == "run"
    duplicates = together.diagnostics.counts["candidate_rows"]
    assert duplicates == candidates.height


def test_compare_k_curve_and_report_read_one_multi_system_evaluation(tmp_path) -> None:
    candidates, truth = _inputs()
    together = rk.evaluate(candidates, truth, k=[1, 2], metrics=["precision", "ndcg"],
                           group_by="user", system="run")  # fmt: skip
    separately = rk.evaluate_systems(candidates, truth, k=[1, 2], metrics=["precision", "ndcg"],
                                     group_by="user", system="run")  # fmt: skip
    assert_frame_equal(
        rk.compare(together, baseline="A", n_resamples=50, seed=1),
        rk.compare(separately, baseline="A", n_resamples=50, seed=1),
    )
    curve = rk.k_curve(together, ci=False)
    assert curve["system"].unique().sort().to_list() == ["A", "B"]
    assert_frame_equal(curve, rk.curve_of_evaluations(separately, ci=False))
    html = rk.render_report(together, k=[1, 2], n_resamples=20)
    assert html == rk.render_report(separately, k=[1, 2], n_resamples=20)


def test_slices_never_rank_again() -> None:
    candidates, truth = _inputs()
    together = rk.evaluate(candidates, truth, k=[1, 2], group_by="user", system="run")
    assert all(one.ranking_rows() is None for one in together.by_system().values())


def test_a_multi_system_evaluation_is_refused_where_groups_would_pool() -> None:
    candidates, truth = _inputs()
    together = rk.evaluate(candidates, truth, k=1, metrics="precision", group_by="user",
                           system="run")  # fmt: skip
    with pytest.raises(ValueError, match=r"several systems \(column 'run'\).*by_system"):
        rk.bootstrap(together)
    with pytest.raises(ValueError, match=r"several systems"):
        rk.distribution(together)


def test_system_errors_name_the_column() -> None:
    candidates, truth = _inputs()
    with pytest.raises(ValueError, match=r"system='model' is not a column.*'run'"):
        rk.evaluate(candidates, truth, group_by="user", system="model")
    with pytest.raises(ValueError, match=r"catalogue-level metrics.*evaluate_systems"):
        rk.evaluate(candidates, truth, group_by="user", system="run", metrics=["coverage"])
    with pytest.raises(ValueError, match="one system"):
        rk.evaluate(candidates.drop("run"), truth, group_by="user").by_system()


def test_repr_shows_every_system() -> None:
    candidates, truth = _inputs()
    text = repr(rk.evaluate(candidates, truth, k=1, metrics="precision", group_by="user",
                            system="run"))  # fmt: skip
    assert "run 'A':" in text
    assert "run 'B':" in text


def test_slices_of_a_sorted_table_equal_its_partitions() -> None:
    """Runs of the system column are sliced without a copy; any other order is partitioned."""
    from polars_rankk.core.evaluation.by_system import slices

    frame = pl.DataFrame({"s": ["a", "a", "b", None, None], "v": [1, 2, 3, 4, 5]})
    for table in (frame, frame.reverse(), frame.sample(fraction=1.0, shuffle=True, seed=1)):
        found = slices(table, "s", ["a", "b", "c", None])
        parts = table.partition_by("s", as_dict=True, include_key=False, maintain_order=True)
        expected = [parts.get((v,), table.clear().drop("s")) for v in ["a", "b", "c", None]]
        assert [f.to_dicts() for f in found] == [e.to_dicts() for e in expected]
