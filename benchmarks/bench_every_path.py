"""The ways users reach the kernel, each against one `evaluate`: metric expressions in
``group_by().agg()``, K-curves with and without their interval, `compare`, TREC text read by
the ``rankk`` command against pytrec_eval and the trec_eval binary, and the command on
Parquet against the same call from Python.

    python benchmarks/bench_every_path.py DATA [--phases expressions,curves,compare,trec,cli,tails]

``DATA`` holds ``candidates.parquet`` ``(user, item, score)`` and ``truth.parquet``
``(user, item, relevance)`` (for example ``benchmarks/generate.py``'s workload, or the shared
bench's). The expressions and `compare` read its first ``--users`` users (default 10,000: 1M
rows); the curves, TREC text and the command all of it. TREC text is written once beside the
Parquet files (``run.txt``: one line per distinct candidate, queries one after the other,
ranked by score; ``qrels.txt``). The checkout's modules are compiled to bytecode before the
commands are timed, as installing the package does: a command's start-up then reads them
rather than compiling each again (as it would on every start where bytecode is not written,
``PYTHONDONTWRITEBYTECODE``). Every phase prints one JSON line: the median of 3 runs of the
path and of its baseline, run alternately, their ratio, and the load average when the phase
ended (ratios are measured in one run, side by side).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polars_rankk as rk  # noqa: E402

FIVE = ["precision", "recall", "ndcg", "average_precision", "mrr"]
#: trec_eval's names of the three measures the TREC phase computes, and polars-rankk's.
TREC_MEASURES = {"P_10": "P@10", "ndcg_cut_10": "ndcg_cut_10", "map_cut_10": "map_cut_10"}


def _medians(*runs: Callable[[], object]) -> list[float]:
    """The median of 3 times of each run, the runs alternating within a round."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(3):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            times[index].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def _report(name: str, seconds: dict[str, float], reference: str) -> None:
    base = seconds[reference]
    print(
        json.dumps(
            {
                "phase": name,
                **{f"{label}_s": round(value, 3) for label, value in seconds.items()},
                **{
                    f"{label}_ratio": round(value / base, 2)
                    for label, value in seconds.items()
                    if label != reference
                },
                "load_average": [round(x, 2) for x in os.getloadavg()],
            }
        ),
        flush=True,
    )


def _phase(name: str, path: Callable[[], object], baseline: Callable[[], object]) -> None:
    path_s, baseline_s = _medians(path, baseline)
    _report(name, {"path": path_s, "baseline": baseline_s}, "baseline")


def _command(*arguments: str) -> Callable[[], str]:
    def run() -> str:
        done = subprocess.run(arguments, check=True, capture_output=True, text=True)
        return done.stdout

    return run


def expressions(candidates: pl.DataFrame, truth: pl.DataFrame) -> None:
    """`rk.label`, then P, R, nDCG, AP, MRR @10 as five expressions in one
    ``group_by().agg()`` (what users write), and as one `rk.metrics_expression` of the five
    (the one-call form), each against `evaluate` of the same five metrics."""
    options = {"by": "score", "k": 10, "item": "item", "unretrieved": "unretrieved"}

    def five() -> object:
        labelled = rk.label(candidates, truth, group_by="user")
        return labelled.group_by("user").agg(
            rk.precision_at_k("relevance", **options),
            rk.recall_at_k("relevance", **options),
            rk.ndcg_at_k("relevance", **options),
            rk.average_precision_at_k("relevance", **options),
            rk.mrr_at_k("relevance", **options),
        )

    def evaluate() -> object:
        return rk.evaluate(candidates, truth, k=10, metrics=FIVE, group_by="user").summary()

    def one_call() -> object:
        labelled = rk.label(candidates, truth, group_by="user")
        names = [f"{name}@10" for name in FIVE]
        return labelled.group_by("user").agg(
            rk.metrics_expression(names, "relevance", **options).alias("metrics")
        )

    _phase("rk.label + five expressions in group_by().agg() vs evaluate", five, evaluate)
    _phase("rk.label + one metrics_expression of the five vs evaluate", one_call, evaluate)


def curves(candidates: pl.DataFrame, truth: pl.DataFrame) -> None:
    """`k_curve(k_max=100)` with and without its interval against `evaluate(k=10).summary()`,
    on lazy and on eager inputs."""
    for lazy in (True, False):
        given = (candidates.lazy(), truth.lazy()) if lazy else (candidates, truth)
        kind = "lazy" if lazy else "eager"
        evaluate = partial(_summary_at_10, *given)
        for ci in (False, True):
            curve = partial(_curve, *given, ci=ci)
            _phase(
                f"k_curve k_max=100 ci={ci} ({kind}) vs evaluate(k=10).summary()", curve, evaluate
            )


def _summary_at_10(
    candidates: pl.DataFrame | pl.LazyFrame, truth: pl.DataFrame | pl.LazyFrame
) -> object:
    return rk.evaluate(candidates, truth, k=10, group_by="user").summary()


def _curve(
    candidates: pl.DataFrame | pl.LazyFrame, truth: pl.DataFrame | pl.LazyFrame, *, ci: bool
) -> object:
    return rk.k_curve({"A": candidates}, truth, k_max=100, ci=ci, group_by="user", progress=False)


def compare(candidates: pl.DataFrame, truth: pl.DataFrame) -> None:
    """`compare` of 3 systems read from one `evaluate(system=)`, against that evaluation's
    summary."""
    systems = pl.concat(
        [
            candidates.with_columns(
                system=pl.lit(name), score=pl.col("score") + shift * (pl.col("item") % 7)
            )
            for shift, name in enumerate(("A", "B", "C"))
        ]
    )

    def evaluated() -> rk.Evaluation:
        return rk.evaluate(systems, truth, k=10, system="system", group_by="user")

    _phase(
        "compare 3 systems vs evaluate(system=).summary()",
        lambda: rk.compare(evaluated(), progress=False),
        lambda: evaluated().summary(),
    )


def trec_files(data: Path) -> tuple[Path, Path]:
    """``run.txt`` and ``qrels.txt`` beside the Parquet files, written once: one run line per
    distinct (query, document), queries one after the other, ranked by score."""
    run, qrels = data / "run.txt", data / "qrels.txt"
    if run.exists() and qrels.exists():
        return run, qrels
    candidates = pl.scan_parquet(data / "candidates.parquet").unique(
        ["user", "item"], keep="first", maintain_order=True
    )
    rank = pl.int_range(1, pl.len() + 1).over("user", order_by=[-pl.col("score"), -pl.col("item")])
    candidates.with_columns(rank.alias("rank")).sort("user", "rank").select(
        pl.concat_str("user", pl.lit("Q0"), "item", "rank", "score", pl.lit("bench"), separator=" ")
    ).sink_csv(run, include_header=False, quote_style="never")
    pl.scan_parquet(data / "truth.parquet").sort("user").select(
        pl.concat_str("user", pl.lit("0"), "item", "relevance", separator=" ")
    ).sink_csv(qrels, include_header=False, quote_style="never")
    return run, qrels


_PYTREC_SCRIPT = """
import json, statistics, sys, pytrec_eval
with open(sys.argv[2]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[1]) as f:
    run = pytrec_eval.parse_run(f)
found = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3].split(","))).evaluate(run)
print(json.dumps({m: round(statistics.mean(v[m] for v in found.values()), 6)
                  for m in sys.argv[3].split(",")}))
"""


def trec(data: Path, binary: str | None) -> None:
    """``rankk evaluate RUN QRELS --trec-eval`` (P@10, nDCG@10, map_cut_10) end to end against
    pytrec_eval and the trec_eval binary on the same files, each a command (start-up, reading,
    evaluation)."""
    run, qrels = trec_files(data)
    rankk = _command(
        sys.executable, "-m", "polars_rankk.cli", "evaluate", str(run), str(qrels),
        "--trec-eval", "--metrics", ",".join(TREC_MEASURES.values()), "--k", "10",
        "--format", "json",
    )  # fmt: skip
    pytrec = _command(
        sys.executable, "-c", _PYTREC_SCRIPT, str(run), str(qrels), ",".join(TREC_MEASURES)
    )
    runs = {"rankk": rankk, "pytrec_eval": pytrec}
    if binary is not None:
        runs["trec_eval"] = _command(
            binary, "-c", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "map_cut.10", str(qrels),
            str(run),
        )  # fmt: skip
    # The same three means from each tool (to 6 decimals), before anything is timed.
    found = {row["metric"]: round(row["value"], 6) for row in json.loads(rankk())["rows"]}
    print(json.dumps({"check": {"rankk": found, "pytrec_eval": json.loads(pytrec())}}))
    if binary is not None:
        print(json.dumps({"check": {"trec_eval": runs["trec_eval"]().split("\n")}}))
    times = _medians(*runs.values())
    _report("TREC text, 3 measures, end to end", dict(zip(runs, times, strict=True)), "rankk")


def cli(data: Path) -> None:
    """``rankk evaluate candidates.parquet truth.parquet`` (its defaults: every metric, K = 5,
    10, 20) end to end against the same read and `evaluate(...).summary()` from Python (after
    ``import polars_rankk``) and as a Python process of its own (its start-up included), and
    the command's start-up (``rankk --version``)."""
    candidates, truth = data / "candidates.parquet", data / "truth.parquet"
    command = _command(
        sys.executable, "-m", "polars_rankk.cli", "evaluate", str(candidates), str(truth),
        "--group-by", "user", "--format", "json",
    )  # fmt: skip

    def python() -> object:
        return rk.evaluate(
            pl.read_parquet(candidates), pl.read_parquet(truth), k=[5, 10, 20], group_by="user"
        ).summary()

    _phase("rankk evaluate on Parquet vs the same call from Python", command, python)
    # The same call as a process of its own (start-up, read, evaluate, summary): what the
    # command adds besides the start-up both pay.
    script = (
        "import polars as pl, polars_rankk as rk; "
        f"rk.evaluate(pl.read_parquet({str(candidates)!r}), pl.read_parquet({str(truth)!r}), "
        "k=[5, 10, 20], group_by='user').summary()"
    )
    _phase(
        "rankk evaluate on Parquet vs the same call as a Python process",
        command,
        _command(sys.executable, "-c", script),
    )
    startup, polars_import = _medians(
        _command(sys.executable, "-m", "polars_rankk.cli", "--version"),
        _command(sys.executable, "-c", "import polars"),
    )
    _report("rankk start-up", {"rankk --version": startup, "import polars": polars_import},
            "import polars")  # fmt: skip


def tails(candidates: pl.DataFrame, truth: pl.DataFrame, users: int) -> None:
    """The C/W/L tails (INST, NERR9, NERR11) as expressions on `users` groups."""
    few = rk.label(candidates, truth, group_by="user").filter(pl.col("user") < users)
    few_candidates = candidates.filter(pl.col("user") < users)
    few_truth = truth.filter(pl.col("user") < users)
    for name in ("inst", "nerr9", "nerr11"):
        expression = getattr(rk, f"{name}_at_k")(
            "relevance", by="score", k=10, item="item", unretrieved="unretrieved"
        )
        _phase(
            f"{name}@10 expression ({users} users) vs evaluate",
            lambda expression=expression: few.group_by("user").agg(expression),
            lambda name=name: rk.evaluate(
                few_candidates, few_truth, k=10, metrics=[name], group_by="user"
            ).summary(),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("--phases", default="expressions,curves,compare,trec,cli")
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--tail-users", type=int, default=200)
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"))
    args = parser.parse_args()
    phases = args.phases.split(",")
    print(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "versions": {"polars_rankk": rk.__version__, "commit": _commit(),
                                   "polars": pl.__version__, "python": sys.version.split()[0],
                                   "kernel": _kernel_line()}}))  # fmt: skip
    candidates = pl.read_parquet(args.data / "candidates.parquet")
    truth = pl.read_parquet(args.data / "truth.parquet")
    first_candidates = candidates.filter(pl.col("user") < args.users)
    first_truth = truth.filter(pl.col("user") < args.users)
    if "expressions" in phases:
        expressions(first_candidates, first_truth)
    if "curves" in phases:
        curves(candidates, truth)
    if "compare" in phases:
        compare(first_candidates, first_truth)
    if "trec" in phases or "cli" in phases:
        _compiled()
    if "trec" in phases:
        trec(args.data, args.trec_eval)
    if "cli" in phases:
        cli(args.data)
    if "tails" in phases:
        tails(candidates, truth, args.tail_users)


def _compiled() -> None:
    """The checkout's modules compiled to bytecode (``__pycache__``), as an installed wheel's
    are, so that the commands' start-up is timed as a user's."""
    compileall.compile_dir(ROOT / "polars_rankk", quiet=1)


def _commit() -> str:
    """The commit the measured code is at (with ``+`` when the work tree differs from it)."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty=+"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return found.stdout.strip() or "unknown"


def _kernel_line() -> str:
    from polars_rankk.core.kernel import loader

    return loader.status().line()


if __name__ == "__main__":
    main()
