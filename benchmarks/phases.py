"""One benchmark phase per process: `python benchmarks/phases.py PHASE SCALE`.

Prints one JSON line: {"convert": seconds, "evaluate": seconds, "check": {...}}. Peak RSS is
read by the parent (benchmarks/run.py) from the child's rusage.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

HERE = Path(__file__).parent
#: The checkout these benchmarks belong to, first on the path (and on the commands' path):
#: the polars_rankk measured is this one, not whichever the environment installed.
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])

KS = [1, 5, 10, 20, 50, 100]
DATA = HERE / "data"


def _paths(scale: str) -> tuple[str, str]:
    folder = DATA / scale
    return str(folder / "candidates" / "*.parquet"), str(folder / "truth" / "*.parquet")


def floor(scale: str) -> dict[str, object]:
    """The leanest streaming Polars query any such suite needs: rank, cut, join, count."""
    cand_path, truth_path = _paths(scale)
    start = time.perf_counter()
    rank = pl.int_range(1, pl.len() + 1).over("user", order_by=[-pl.col("score"), pl.col("item")])
    hit = pl.col("relevance").is_not_null()
    out = (
        pl.scan_parquet(cand_path)
        .with_columns(rank.alias("rank"))
        .filter(pl.col("rank") <= max(KS))
        .join(pl.scan_parquet(truth_path), on=["user", "item"], how="left")
        .group_by("user")
        .agg([(hit & (pl.col("rank") <= k)).sum().alias(f"hits@{k}") for k in KS])
        .collect(engine="streaming")
    )
    elapsed = time.perf_counter() - start
    return {"evaluate": elapsed, "check": {"hits@10": int(out["hits@10"].sum())}}


def _rankk(scale: str, ks: list[int], *, trec_eval: bool = False) -> dict[str, object]:
    import polars_rankk as rk

    cand_path, truth_path = _paths(scale)
    start = time.perf_counter()
    res = rk.evaluate(
        pl.scan_parquet(cand_path),
        pl.scan_parquet(truth_path),
        k=ks,
        group_by="user",
        check_values=True,
        policy=rk.Policy.trec_eval() if trec_eval else None,
    )
    per_group = res.per_group.collect(engine="streaming")
    elapsed = time.perf_counter() - start
    p10 = per_group.filter((pl.col("metric") == "precision") & (pl.col("k") == 10))
    return {
        "evaluate": elapsed,
        "check": {"hits@10": round(float(p10["value"].sum()) * 10)},
        "rows": per_group.height,
    }


def rankk(scale: str) -> dict[str, object]:
    """polars-rankk: all eight metrics at K in {1, 5, 10, 20, 50, 100}, per group."""
    return _rankk(scale, KS)


def rankk_pure(scale: str) -> dict[str, object]:
    """`rankk` on the pure-Polars path (the reference the native kernel is tested against)."""
    import os

    # Read when polars_rankk first chooses a path, so it must be set before the first evaluate.
    os.environ["POLARS_RANKK_NATIVE"] = "0"
    return _rankk(scale, KS)


def rankk_trec_eval(scale: str) -> dict[str, object]:
    """`rankk` under `Policy.trec_eval()` (negative grades unjudged, empty truth zero)."""
    return _rankk(scale, KS, trec_eval=True)


def rankk_trec_eval_pure(scale: str) -> dict[str, object]:
    """`rankk_trec_eval` on the pure-Polars path."""
    import os

    os.environ["POLARS_RANKK_NATIVE"] = "0"
    return _rankk(scale, KS, trec_eval=True)


def rankk_single_k(scale: str) -> dict[str, object]:
    """polars-rankk: all eight metrics at K = 10 only."""
    return _rankk(scale, [10])


def rankk_k_curve(scale: str) -> dict[str, object]:
    """polars-rankk: all eight metrics at every K = 1..100."""
    return _rankk(scale, list(range(1, 101)))


def _rankk_summary(scale: str, ks: list[int]) -> dict[str, object]:
    import polars_rankk as rk

    cand_path, truth_path = _paths(scale)
    start = time.perf_counter()
    res = rk.evaluate(
        pl.scan_parquet(cand_path), pl.scan_parquet(truth_path), k=ks, group_by="user"
    )
    summary = res.summary()
    elapsed = time.perf_counter() - start
    return {"evaluate": elapsed, "rows": summary.height}


def rankk_summary_single_k(scale: str) -> dict[str, object]:
    """polars-rankk summary (macro means) of all eight metrics at K = 10."""
    return _rankk_summary(scale, [10])


def rankk_summary_k_curve(scale: str) -> dict[str, object]:
    """polars-rankk summary (macro means) of all eight metrics at every K = 1..100: a K-curve."""
    return _rankk_summary(scale, list(range(1, 101)))


def _trec_measures() -> set[str]:
    cuts = ",".join(str(k) for k in KS)
    return {
        f"P.{cuts}",
        f"recall.{cuts}",
        f"ndcg_cut.{cuts}",
        f"map_cut.{cuts}",
        f"success.{cuts}",
        "recip_rank",
        "Rprec",
    }


def pytrec_eval_phase(scale: str) -> dict[str, object]:
    """pytrec_eval (trec_eval's C code): dict-of-dicts input, the same measures."""
    import pytrec_eval

    cand_path, truth_path = _paths(scale)
    start = time.perf_counter()
    candidates = pl.read_parquet(cand_path).with_columns(
        pl.col("user").cast(pl.String), pl.col("item").cast(pl.String)
    )
    truth = pl.read_parquet(truth_path).with_columns(
        pl.col("user").cast(pl.String), pl.col("item").cast(pl.String)
    )
    run: dict[str, dict[str, float]] = {}
    for user, item, score in candidates.iter_rows():
        run.setdefault(user, {})[item] = score
    qrels: dict[str, dict[str, int]] = {}
    for user, item, relevance in truth.iter_rows():
        qrels.setdefault(user, {})[item] = relevance
    converted = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, _trec_measures())
    results = evaluator.evaluate(run)
    done = time.perf_counter()
    hits10 = round(sum(v["P_10"] for v in results.values()) * 10)
    return {
        "convert": converted - start,
        "evaluate": done - converted,
        "check": {"hits@10": hits10},
    }


def ranx_phase(scale: str) -> dict[str, object]:
    """ranx (Numba), after its JIT warm-up: Qrels/Run from pandas, the same metrics."""
    from ranx import Qrels, Run, evaluate

    metrics = [
        f"{m}@{k}" for m in ("precision", "recall", "ndcg", "map", "hit_rate") for k in KS
    ] + ["mrr@100", "r-precision"]
    # Warm-up: compile every metric kernel on a tiny input first.
    tiny_q = Qrels({"q": {"a": 1}})
    tiny_r = Run({"q": {"a": 1.0, "b": 0.5}})
    evaluate(tiny_q, tiny_r, metrics)
    cand_path, truth_path = _paths(scale)
    start = time.perf_counter()
    candidates = (
        pl.read_parquet(cand_path)
        .with_columns(pl.col("user").cast(pl.String), pl.col("item").cast(pl.String))
        .to_pandas()
    )
    truth = (
        pl.read_parquet(truth_path)
        .with_columns(pl.col("user").cast(pl.String), pl.col("item").cast(pl.String))
        .to_pandas()
    )
    # ranx insists on object-dtype ids (pandas 3 infers its own string dtype).
    for frame in (candidates, truth):
        frame["user"] = frame["user"].astype(object)
        frame["item"] = frame["item"].astype(object)
    qrels = Qrels.from_df(truth, q_id_col="user", doc_id_col="item", score_col="relevance")
    run = Run.from_df(candidates, q_id_col="user", doc_id_col="item", score_col="score")
    converted = time.perf_counter()
    scores = evaluate(qrels, run, metrics, make_comparable=True)
    done = time.perf_counter()
    return {
        "convert": converted - start,
        "evaluate": done - converted,
        "check": {"precision@10": float(scores["precision@10"])},
    }


def pandas_phase(scale: str) -> dict[str, object]:
    """The obvious pandas implementation: sort, rank, merge, groupby."""
    import numpy as np
    import pandas as pd

    cand_path, truth_path = _paths(scale)
    start = time.perf_counter()
    candidates = pl.read_parquet(cand_path).to_pandas()
    truth = pl.read_parquet(truth_path).to_pandas()
    converted = time.perf_counter()
    ranked = candidates.sort_values(["user", "score", "item"], ascending=[True, False, False])
    ranked["rank"] = ranked.groupby("user").cumcount() + 1
    ranked = ranked[ranked["rank"] <= max(KS)]
    labelled = ranked.merge(truth, on=["user", "item"], how="left")
    labelled["relevance"] = labelled["relevance"].fillna(0)
    labelled["hit"] = (labelled["relevance"] >= 1).astype(int)
    labelled = labelled.sort_values(["user", "rank"])
    labelled["hits_so_far"] = labelled.groupby("user")["hit"].cumsum()
    labelled["dcg_term"] = labelled["relevance"] / np.log2(labelled["rank"] + 1)
    labelled["ap_term"] = labelled["hit"] * labelled["hits_so_far"] / labelled["rank"]
    n_rel = truth[truth["relevance"] >= 1].groupby("user").size().rename("n_rel")
    ideal = truth.sort_values(["user", "relevance"], ascending=[True, False])
    ideal["irank"] = ideal.groupby("user").cumcount() + 1
    ideal["idcg_term"] = ideal["relevance"] / np.log2(ideal["irank"] + 1)
    out = {}
    for k in KS:
        top = labelled[labelled["rank"] <= k].groupby("user")
        hits = top["hit"].sum()
        dcg = top["dcg_term"].sum()
        idcg = ideal[ideal["irank"] <= k].groupby("user")["idcg_term"].sum()
        frame = pd.concat(
            [
                hits.rename("hits"),
                dcg.rename("dcg"),
                n_rel,
                idcg.rename("idcg"),
                top["ap_term"].sum().rename("ap"),
            ],
            axis=1,
        ).fillna(0)
        frame["precision"] = frame["hits"] / k
        frame["recall"] = frame["hits"] / frame["n_rel"]
        frame["ndcg"] = frame["dcg"] / frame["idcg"]
        frame["average_precision"] = frame["ap"] / frame["n_rel"]
        frame["hit_rate"] = (frame["hits"] > 0).astype(float)
        out[k] = frame
    done = time.perf_counter()
    return {
        "convert": converted - start,
        "evaluate": done - converted,
        "check": {"hits@10": int(out[10]["hits"].sum())},
    }


def _inputs(scale: str, eager: bool) -> tuple[pl.DataFrame | pl.LazyFrame, pl.LazyFrame]:
    cand_path, truth_path = _paths(scale)
    candidates = pl.scan_parquet(cand_path)
    return (candidates.collect() if eager else candidates), pl.scan_parquet(truth_path)


def _k_curve(scale: str, *, eager: bool, ci: bool) -> dict[str, object]:
    import polars_rankk as rk

    candidates, truth = _inputs(scale, eager)
    start = time.perf_counter()
    curve = rk.k_curve(candidates, truth, k_max=100, group_by="user", ci=ci)
    return {"evaluate": time.perf_counter() - start, "rows": curve.height}


def k_curve_lazy(scale: str) -> dict[str, object]:
    """`k_curve(lazy, k_max=100, ci=False)`."""
    return _k_curve(scale, eager=False, ci=False)


def k_curve_eager(scale: str) -> dict[str, object]:
    """`k_curve(eager, k_max=100, ci=False)` (the frame is read before the clock starts)."""
    return _k_curve(scale, eager=True, ci=False)


def k_curve_lazy_ci(scale: str) -> dict[str, object]:
    """`k_curve(lazy, k_max=100)`: the default 95% interval, 1,000 resamples."""
    return _k_curve(scale, eager=False, ci=True)


def k_curve_eager_ci(scale: str) -> dict[str, object]:
    """`k_curve(eager, k_max=100)` with the default interval."""
    return _k_curve(scale, eager=True, ci=True)


def compare_three(scale: str) -> dict[str, object]:
    """`compare` of 3 systems (the workload's scores, and two noisier copies) over 8 metrics
    × 6 K, the three evaluations collected together (each pipeline once), timed end to end:
    ``convert`` is the evaluations, ``evaluate`` the comparison itself."""
    import polars_rankk as rk

    candidates, truth = _inputs(scale, eager=False)
    start = time.perf_counter()
    lazy = {}
    for name, noise in (("base", 0.0), ("noisy", 0.3), ("noisier", 0.6)):
        scored = candidates.with_columns(
            pl.col("score") + noise * ((pl.col("item") * 2654435761) % 1000) / 1000
        )
        lazy[name] = rk.evaluate(scored, truth, k=KS, group_by="user")
    found = rk.Evaluation.collect_together(list(lazy.values()), diagnostics=False)
    systems = dict(zip(lazy, found, strict=True))
    evaluated = time.perf_counter()
    out = rk.compare(systems, baseline="base", progress=False)
    done = time.perf_counter()
    # "convert": the three evaluations (collected together); "evaluate": compare itself.
    return {"convert": evaluated - start, "evaluate": done - evaluated, "rows": out.height}


def _systems(scale: str) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """One candidates table of three systems (the workload's scores and two noisier copies),
    `scale` rows each, told apart by a ``system`` column."""
    candidates, truth = _inputs(scale, eager=False)
    assert isinstance(candidates, pl.LazyFrame)
    parts = [
        candidates.with_columns(
            pl.col("score") + noise * ((pl.col("item") * 2654435761) % 1000) / 1000,
            pl.lit(name).alias("system"),
        )
        for name, noise in (("base", 0.0), ("noisy", 0.3), ("noisier", 0.6))
    ]
    return pl.concat(parts), truth


def _systems_evaluation(scale: str) -> tuple[object, float]:
    import polars_rankk as rk

    candidates, truth = _systems(scale)
    start = time.perf_counter()
    lazy = rk.evaluate(candidates, truth, k=KS, group_by="user", system="system")
    return lazy.collect(diagnostics=False), start


def systems_evaluate(scale: str) -> dict[str, object]:
    """`evaluate(..., system="system")` of 3 systems × `scale` rows, 8 metrics × 6 K, lazy
    input collected once: the reference of `systems_compare`."""
    evaluation, start = _systems_evaluation(scale)
    per_group = evaluation.per_group  # type: ignore[attr-defined]
    return {"evaluate": time.perf_counter() - start, "rows": per_group.height}


def systems_compare(scale: str) -> dict[str, object]:
    """`compare` of the 3 systems read from one multi-system evaluation (never ranked again),
    end to end: ``convert`` is the evaluation, ``evaluate`` the split and the comparison."""
    import polars_rankk as rk

    evaluation, start = _systems_evaluation(scale)
    evaluated = time.perf_counter()
    out = rk.compare(evaluation, baseline="base", progress=False)  # type: ignore[arg-type]
    done = time.perf_counter()
    return {"convert": evaluated - start, "evaluate": done - evaluated, "rows": out.height}


def evaluate_eager_k_curve(scale: str) -> dict[str, object]:
    """`evaluate(eager, k=range(1, 101))`; reports the per-group output size to compare with
    the peak RSS."""
    import polars_rankk as rk

    candidates, truth = _inputs(scale, eager=True)
    start = time.perf_counter()
    res = rk.evaluate(candidates, truth.collect(), k=range(1, 101), group_by="user")
    per_group = res.per_group
    assert isinstance(per_group, pl.DataFrame)
    return {
        "evaluate": time.perf_counter() - start,
        "rows": per_group.height,
        "output_mib": round(per_group.estimated_size("mb"), 1),
    }


def _demo() -> tuple[pl.DataFrame, pl.DataFrame]:
    data = Path(__file__).parent.parent / "data"
    return (
        pl.read_parquet(data / "demo_candidates.parquet"),
        pl.read_parquet(data / "demo_truth.parquet"),
    )


def small_report(scale: str) -> dict[str, object]:
    """`rk.report(..., k_max=100)` on the bundled demo data (3 systems, ~90k rows each)."""
    import tempfile

    import polars_rankk as rk

    candidates, truth = _demo()
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        rk.report(candidates, truth, system="system", group_by="user", k_max=100,
                  path=Path(folder) / "report.html")  # fmt: skip
        elapsed = time.perf_counter() - start
    return {"evaluate": elapsed}


def small_k_curve(scale: str) -> dict[str, object]:
    """`rk.k_curve(..., k_max=100)` with intervals on the bundled demo data."""
    import polars_rankk as rk

    candidates, truth = _demo()
    start = time.perf_counter()
    curve = rk.k_curve(candidates, truth, system="system", group_by="user", k_max=100)
    return {"evaluate": time.perf_counter() - start, "rows": curve.height}


#: The five metrics of the expression benchmark (rk.label, then five metrics in one agg).
_FIVE = ["precision", "recall", "ndcg", "average_precision", "mrr"]


def _labelled(scale: str) -> pl.DataFrame:
    import polars_rankk as rk

    cand_path, truth_path = _paths(scale)
    labelled = rk.label(pl.read_parquet(cand_path), pl.read_parquet(truth_path), group_by="user")
    assert isinstance(labelled, pl.DataFrame)
    return labelled


def _expressions(scale: str, metrics: list[str]) -> dict[str, object]:
    import polars_rankk as rk

    labelled = _labelled(scale)  # read and labelled before the clock starts
    exprs = [
        rk.metrics_expression(
            name, "relevance", by="score", k=10, item="item", unretrieved="unretrieved"
        )
        for name in metrics
    ]
    start = time.perf_counter()
    out = labelled.group_by("user").agg(exprs)
    elapsed = time.perf_counter() - start
    return {"evaluate": elapsed, "rows": out.height, "check": {"groups": out.height}}


def expressions_five(scale: str) -> dict[str, object]:
    """rk.label'led rows, then P, R, nDCG, AP, MRR @10 in one group_by().agg()."""
    return _expressions(scale, _FIVE)


def expressions_five_struct(scale: str) -> dict[str, object]:
    """The same five metrics as one `rk.metrics_expression` (one kernel call per group)."""
    import polars_rankk as rk

    labelled = _labelled(scale)
    expr = rk.metrics_expression(
        _FIVE, "relevance", by="score", k=10, item="item", unretrieved="unretrieved"
    )
    start = time.perf_counter()
    out = labelled.group_by("user").agg(expr.alias("m")).unnest("m")
    elapsed = time.perf_counter() - start
    return {"evaluate": elapsed, "rows": out.height, "check": {"groups": out.height}}


def expressions_five_pure(scale: str) -> dict[str, object]:
    """`expressions_five` on the pure-Polars expressions."""
    import os

    os.environ["POLARS_RANKK_NATIVE"] = "0"
    return _expressions(scale, _FIVE)


def expressions_precision_pure(scale: str) -> dict[str, object]:
    """One pure-Polars rk.precision_at_k in group_by().agg() (the reference: hand_precision)."""
    import os

    os.environ["POLARS_RANKK_NATIVE"] = "0"
    return _expressions(scale, ["precision"])


def expressions_precision(scale: str) -> dict[str, object]:
    """One rk.precision_at_k in group_by().agg(), on the kernel."""
    return _expressions(scale, ["precision"])


def hand_precision(scale: str) -> dict[str, object]:
    """A hand-written Polars precision@10 under trec_eval's tie order (score, then item id
    as text, both descending), on the same labelled rows."""
    labelled = _labelled(scale)
    start = time.perf_counter()
    top = pl.col("relevance").sort_by(
        [pl.col("score"), pl.col("item").cast(pl.String)], descending=[True, True]
    )
    out = labelled.group_by("user").agg(((top.head(10) >= 1).sum() / 10).alias("p"))
    elapsed = time.perf_counter() - start
    return {"evaluate": elapsed, "rows": out.height, "check": {"groups": out.height}}


def evaluate_five(scale: str) -> dict[str, object]:
    """One `evaluate` of the same five metrics at K = 10 (the candidates and truth read
    before the clock starts, as the expressions' rows are)."""
    import polars_rankk as rk

    cand_path, truth_path = _paths(scale)
    candidates, truth = pl.read_parquet(cand_path), pl.read_parquet(truth_path)
    start = time.perf_counter()
    res = rk.evaluate(candidates, truth, k=10, group_by="user", metrics=_FIVE)
    rows = res.per_group.height
    elapsed = time.perf_counter() - start
    return {"evaluate": elapsed, "rows": rows, "check": {"rows": rows}}


#: trec_eval's conventions and three of its measures, as the TREC-text phases compute them.
TREC_MEASURES = {"P_10": "P@10", "ndcg_cut_10": "ndcg_cut_10", "map_cut_10": "map_cut_10"}


def _timed_command(command: list[str]) -> tuple[float, str]:
    """Wall seconds of a command run end to end (its start-up included), and its stdout."""
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout


def trec_text_rankk(scale: str) -> dict[str, object]:
    """``rankk evaluate RUN QRELS --trec-eval`` on TREC text (P@10, nDCG@10, map_cut_10),
    end to end: the command's start-up, reading both files, the evaluation, its diagnostics."""
    from generate import generate_trec

    run, qrels = generate_trec(scale)
    elapsed, out = _timed_command([
        sys.executable, "-m", "polars_rankk.cli", "evaluate", str(run), str(qrels),
        "--trec-eval", "--metrics", ",".join(TREC_MEASURES.values()), "--k", "10",
        "--format", "json",
    ])  # fmt: skip
    rows = json.loads(out)["rows"]
    return {"evaluate": elapsed, "check": {r["metric"]: round(r["value"], 6) for r in rows}}


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


def trec_text_pytrec_eval(scale: str) -> dict[str, object]:
    """pytrec_eval on the same files, end to end as a command: start-up, its own readers
    (``parse_run``, ``parse_qrel``) into its dicts, the evaluation."""
    from generate import generate_trec

    run, qrels = generate_trec(scale)
    elapsed, out = _timed_command(
        [sys.executable, "-c", _PYTREC_SCRIPT, str(run), str(qrels), ",".join(TREC_MEASURES)]
    )
    return {"evaluate": elapsed, "check": json.loads(out)}


def trec_text_trec_eval(scale: str) -> dict[str, object]:
    """The trec_eval binary on the same files (``-c -m P.10 -m ndcg_cut.10 -m map_cut.10``),
    when one is on the PATH."""
    from generate import generate_trec

    binary = shutil.which("trec_eval")
    if binary is None:
        return {"evaluate": float("nan"), "check": "trec_eval is not on the PATH: skipped"}
    run, qrels = generate_trec(scale)
    elapsed, out = _timed_command(
        [binary, "-c", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "map_cut.10", str(qrels), str(run)]
    )
    return {"evaluate": elapsed, "check": out.split()[-1]}


def cli_parquet(scale: str) -> dict[str, object]:
    """``rankk evaluate candidates.parquet truth.parquet --group-by user`` (K = 5, 10, 20,
    every metric: the command's defaults), end to end, its diagnostics on stderr."""
    from generate import generate_single

    candidates, truth = generate_single(scale)
    elapsed, out = _timed_command([
        sys.executable, "-m", "polars_rankk.cli", "evaluate", str(candidates), str(truth),
        "--group-by", "user", "--format", "json",
    ])  # fmt: skip
    return {"evaluate": elapsed, "rows": len(json.loads(out)["rows"])}


def python_parquet(scale: str) -> dict[str, object]:
    """The same evaluation from Python (after ``import polars_rankk``): read both files,
    ``evaluate(..., k=[5, 10, 20]).summary()``."""
    from generate import generate_single

    import polars_rankk as rk

    candidates, truth = generate_single(scale)
    start = time.perf_counter()
    res = rk.evaluate(
        pl.read_parquet(candidates), pl.read_parquet(truth), k=[5, 10, 20], group_by="user"
    )
    summary = res.summary()
    return {"evaluate": time.perf_counter() - start, "rows": summary.height}


def cli_startup(scale: str) -> dict[str, object]:
    """``rankk --version`` end to end: the command's start-up (Python, Polars, the core, the
    command line), the floor under every ``rankk`` call (`scale` is not read)."""
    elapsed, out = _timed_command([sys.executable, "-m", "polars_rankk.cli", "--version"])
    return {"evaluate": elapsed, "check": out.strip()}


def polars_import(scale: str) -> dict[str, object]:
    """``python -c "import polars"``: the part of `cli_startup` no change here can cut."""
    elapsed, _ = _timed_command([sys.executable, "-c", "import polars"])
    return {"evaluate": elapsed}


PHASES: dict[str, Callable[[str], dict[str, object]]] = {
    "cli_startup": cli_startup,
    "polars_import": polars_import,
    "trec_text_rankk": trec_text_rankk,
    "trec_text_pytrec_eval": trec_text_pytrec_eval,
    "trec_text_trec_eval": trec_text_trec_eval,
    "cli_parquet": cli_parquet,
    "python_parquet": python_parquet,
    #: `compare` of 3 systems read from one multi-system evaluation (== systems_compare).
    "compare3": systems_compare,
    "k_curve_lazy": k_curve_lazy,
    "k_curve_eager": k_curve_eager,
    "k_curve_lazy_ci": k_curve_lazy_ci,
    "k_curve_eager_ci": k_curve_eager_ci,
    "compare_three": compare_three,
    "systems_evaluate": systems_evaluate,
    "systems_compare": systems_compare,
    "evaluate_eager_k_curve": evaluate_eager_k_curve,
    "small_report": small_report,
    "small_k_curve": small_k_curve,
    "floor": floor,
    "rankk": rankk,
    "rankk_pure": rankk_pure,
    "expressions_five": expressions_five,
    "expressions_five_pure": expressions_five_pure,
    "expressions_five_struct": expressions_five_struct,
    "expressions_precision": expressions_precision,
    "expressions_precision_pure": expressions_precision_pure,
    "hand_precision": hand_precision,
    "evaluate_five": evaluate_five,
    "rankk_trec_eval": rankk_trec_eval,
    "rankk_trec_eval_pure": rankk_trec_eval_pure,
    "rankk_single_k": rankk_single_k,
    "rankk_k_curve": rankk_k_curve,
    "rankk_summary_single_k": rankk_summary_single_k,
    "rankk_summary_k_curve": rankk_summary_k_curve,
    "pytrec_eval": pytrec_eval_phase,
    "ranx": ranx_phase,
    "pandas": pandas_phase,
}

if __name__ == "__main__":
    phase, scale = sys.argv[1], sys.argv[2]
    print(json.dumps(PHASES[phase](scale)))
