"""Render the chart gallery of docs/gallery.md from the bundled demo data.

Run ``.venv/bin/python scripts/export_chart_images.py`` — it writes ``docs/images/*.png`` (PNG
through vl-convert, no browser). ``--out DIR`` writes elsewhere (relative to the current
folder, or anywhere); ``--format svg`` writes SVG.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SYSTEMS = ["popularity", "two_tower", "two_tower_v2"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder")
    parser.add_argument("--format", choices=["png", "svg"], default="png")
    parser.add_argument("--scale", type=float, default=1.5, help="PNG pixel density")
    args = parser.parse_args(argv)

    from polars_rankk import charts
    from polars_rankk.stats.comparison import compare
    from polars_rankk.stats.curves import curve_of_evaluations
    from polars_rankk.stats.distributions import distribution, histogram
    from polars_rankk.stats.systems import evaluate_systems, for_systems

    candidates = pl.read_parquet(DATA / "demo_candidates.parquet")
    truth = pl.read_parquet(DATA / "demo_truth.parquet")
    users = pl.read_parquet(DATA / "demo_users.parquet")
    evaluations = evaluate_systems(
        candidates, truth, k=range(1, 51), group_by="user", system="system"
    )
    main_metrics = ["precision", "recall", "ndcg", "hit_rate"]
    curve = curve_of_evaluations(
        evaluations, metrics=[*main_metrics, "average_precision", "mrr"], seed=0
    )
    strata = curve_of_evaluations(
        evaluations, metrics=["recall", "ndcg", "hit_rate"], k=[10], by="activity", attributes=users
    )
    at_10 = {
        name: ev.per_group.filter(
            pl.col("k").is_in([5, 10, 20]) & pl.col("metric").is_in(main_metrics)
        )
        for name, ev in evaluations.items()
    }
    dist = for_systems(at_10, distribution)
    hist = for_systems(at_10, histogram, bins=20)
    cmp = compare(at_10, baseline="two_tower", seed=0)

    gallery = {
        "k_curve": charts.plot_k_curve(curve, systems=SYSTEMS, ui_k=10, log_k=True),
        "precision_recall": charts.plot_precision_recall(curve, systems=SYSTEMS),
        "distribution": charts.plot_distribution(dist, k=10, systems=SYSTEMS, columns=4),
        "ecdf": charts.plot_histogram(
            hist, kind="ecdf", k=10, metrics=["recall", "ndcg"], systems=SYSTEMS
        ),
        "histogram": charts.plot_histogram(
            hist, kind="histogram", k=10, metrics=["recall", "ndcg"], systems=SYSTEMS
        ),
        "strata": charts.plot_strata(strata, k=10, systems=SYSTEMS),
        "comparison": charts.plot_comparison(cmp, systems=SYSTEMS),
    }
    out = args.out.resolve()  # a relative --out is relative to where the command runs
    out.mkdir(parents=True, exist_ok=True)
    for name, chart in gallery.items():
        target = charts.save_chart(chart, out / f"{name}.{args.format}", scale=args.scale)
        shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
        print(f"{shown}: {target.stat().st_size / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
