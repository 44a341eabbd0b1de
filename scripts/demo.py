"""Evaluate the bundled demo data with everything polars-rankk has; write out/report.html.

Run with ``make demo`` (or ``.venv/bin/python scripts/demo.py [--out DIR] [--n-resamples N]``).
The data — three recommenders over the same 2,000 users (1,748 of them have a relevant item and
are evaluated), graded relevance, user activity strata, ties, short lists, truth outside the
pool — is made by ``data/make_demo_data.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl
from rich.console import Console
from rich.table import Table

from polars_rankk import Evaluation

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
KS = [1, 5, 10, 20]
UI_K = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out", help="output folder")
    parser.add_argument("--n-resamples", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args(argv)

    from polars_rankk.reports.document import render_evaluations
    from polars_rankk.stats.systems import evaluate_systems

    console = Console()
    errors = Console(stderr=True)
    show_progress = errors.is_terminal and sys.stdout.isatty()
    started = time.perf_counter()
    candidates = pl.read_parquet(DATA / "demo_candidates.parquet")
    truth = pl.read_parquet(DATA / "demo_truth.parquet")
    users = pl.read_parquet(DATA / "demo_users.parquet")
    console.print(
        f"[bold]Demo data[/bold]: {candidates.height:,} candidate rows from "
        f"{candidates['system'].n_unique()} systems, {truth.height:,} truth rows, "
        f"{users.height:,} users"
    )

    with errors.status("evaluating …") if show_progress else _nothing() as status:

        def say(message: str) -> None:
            if status is not None:
                status.update(f"{message} …")

        evaluations = evaluate_systems(
            candidates,
            truth,
            k=range(1, max(KS) + 1),
            group_by="user",
            item="item",
            score="score",
            relevance="relevance",
            system="system",
        )
        say("summarising")
        counts = next(iter(evaluations.values())).diagnostics.counts
        evaluated = int(counts["groups_evaluated"])
        console.print(
            f"[bold]Evaluated[/bold]: {evaluated:,} of the {users.height:,} users — "
            f"{int(counts['groups_only_in_candidates']):,} have no truth row and "
            f"{int(counts['groups_with_no_relevant']):,} no relevant item, which the default "
            "policy leaves out (empty_truth='exclude')"
        )
        _print_summary(console, evaluations)
        _print_diagnostics(console, evaluations)
        page = render_evaluations(
            evaluations,
            k=KS,
            by="activity",
            attributes=users,
            baseline="popularity",
            ui_k=UI_K,
            title=f"polars-rankk demo: three recommenders, {evaluated:,} users evaluated",
            n_resamples=args.n_resamples,
            progress=say,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "report.html"
    target.write_text(page, encoding="utf-8")
    console.print(
        f"Report: [bold]{target}[/bold] ({target.stat().st_size / 1e6:.1f} MB, opens offline) "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return 0


class _nothing:  # noqa: N801 - a stand-in for a context manager
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def _print_summary(console: Console, evaluations: dict[str, Evaluation]) -> None:
    table = Table(
        title=f"Mean over users (macro average), K = {', '.join(map(str, KS))}",
        title_justify="left",
        header_style="bold",
    )
    table.add_column("metric")
    names = list(evaluations)
    for name in names:
        table.add_column(name, justify="right")
    summaries = {
        name: ev.summary().filter(pl.col("k").is_in(KS) | pl.col("k").is_null())
        for name, ev in evaluations.items()
    }
    first = summaries[names[0]]
    for metric, k in first.select("metric", "k").iter_rows():
        values = []
        for name in names:
            row = summaries[name].filter((pl.col("metric") == metric) & pl.col("k").eq_missing(k))
            values.append(row["value"][0] if row.height else None)
        best = max(v for v in values if v is not None)
        cells = [
            ("–" if v is None else (f"[bold]{v:.4f}[/bold]" if v == best else f"{v:.4f}"))
            for v in values
        ]
        table.add_row(metric if k is None else f"{metric}@{k}", *cells)
    console.print(table)


def _print_diagnostics(console: Console, evaluations: dict[str, Evaluation]) -> None:
    wanted = [
        "groups_evaluated",
        "groups_with_no_relevant",
        "groups_without_candidates",
        "duplicate_rows_removed",
        "relevant_outside_pool",
    ]
    table = Table(title="Diagnostics", title_justify="left", header_style="bold")
    table.add_column("diagnostic")
    for name in evaluations:
        table.add_column(name, justify="right")
    counts = {name: ev.diagnostics.counts for name, ev in evaluations.items()}
    for key in wanted:
        table.add_row(key, *(f"{counts[name].get(key, 0):,}" for name in evaluations))
    console.print(table)


if __name__ == "__main__":
    raise SystemExit(main())
