"""`plot_risk`: one panel per (system vs baseline, metric@k) with URisk and TRisk in its
title, bars coloured by outcome; per-group tables are refused."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankk as rk

pytest.importorskip("altair")


def systems() -> dict[str, pl.DataFrame]:
    rng = np.random.default_rng(0)
    base = rng.random(30)
    return {
        name: pl.DataFrame({"q": range(30), "metric": "ndcg", "k": [5] * 15 + [10] * 15,
                            "value": np.clip(base + shift + rng.normal(0, 0.1, 30), 0, 1)})
        for name, shift in (("base", 0.0), ("new", 0.05), ("other", -0.05))
    }  # fmt: skip


def test_one_panel_per_pair_and_metric_with_its_risks() -> None:
    distribution = rk.risk_distribution(systems(), "base")
    spec = rk.plot_risk(distribution).to_dict()
    panels = spec["facet"]["sort"]
    assert len(panels) == 4  # 2 challengers x ndcg@5, ndcg@10
    risk = rk.risk(systems(), "base")
    first = risk.row(0, named=True)
    assert panels[0].startswith(
        f"{first['system']} vs base · ndcg@5 · URisk {round(first['urisk'], 4)}"
    )
    values = spec["data"]["values"] if "data" in spec else spec["datasets"]
    assert values


def test_per_group_rows_are_refused() -> None:
    per_group = rk.stats.per_group_risk(systems(), "base")
    with pytest.raises(ValueError, match="plot_risk"):
        rk.plot_risk(per_group)
