"""One peer, end to end on the benchmark workload: one JSON line (run by bench_peers.py).

    python benchmarks/peers_end_to_end.py PEER DATA_DIR 1,5,10,20,50,100

The peer runner of the benchmark suite these figures are compared with (its rankk, replay,
rectools and ir_eval_numba peers, unchanged), kept here so that nothing is imported from
outside the repository. Each peer runs in the Python that has it installed: RePlay and
RecTools pin Polars < 2, pandas < 3 and NumPy < 2 (a venv of their own: ``replay-rec==0.22.0
rectools==0.19.0``), ir_eval_numba another (``ir-eval-numba==1.1.0``), rankk this repository's.

Metrics, mean over the truth's users, at every K: ndcg, precision, recall, map (AP@K), mrr (RR@K),
hitrate. ``eval_s`` is end to end: reading both Parquet files, preparing the peer's input and
computing every metric at every K (numba's JIT warm-up, phases.jit_s, and the peer's import,
phases.import_s, are reported apart and left out of it).
"""

import contextlib
import json
import resource
import sys
import time

import polars as pl

peer, data = sys.argv[1], sys.argv[2]
ks = [int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "10").split(",")]
extra = len(sys.argv) > 4 and sys.argv[4] == "extra"
kmax = max(ks)
phases: dict = {}
values: dict = {}
extras: dict = {}
notes: list = []

t_start = time.perf_counter()
cand = pl.read_parquet(f"{data}/candidates.parquet")
truth = pl.read_parquet(f"{data}/truth.parquet")
phases["read_s"] = round(time.perf_counter() - t_start, 3)


def ranked(frame: pl.DataFrame, item_desc: bool = True) -> pl.DataFrame:
    """Candidates in rank order: user, score descending, then item id (desc by default)."""
    return frame.sort(["user", "score", "item"], descending=[False, True, item_desc])


def put(name: str, k: int, v) -> None:
    values[f"{name}@{k}"] = None if v is None else float(v)


#: When the peer's preparation started (moved past its imports by `imported`).
started = {"prep": time.perf_counter()}


def imported() -> None:
    """Call after a peer's imports: their time is reported as import_s and left out of eval_s."""
    phases["import_s"] = round(time.perf_counter() - started["prep"], 3)
    started["prep"] = time.perf_counter()


if peer == "rankk" or peer.startswith("rankk:"):
    import polars_rankk as rk

    imported()
    opts = dict(kv.split("=", 1) for kv in peer.split(":", 1)[1].split(",")) if ":" in peer else {}
    presort = opts.pop("presort", None)
    for f, v in list(opts.items()):
        with contextlib.suppress(ValueError):
            opts[f] = float(v) if "." in v else int(v)
    c = cand if presort is None else ranked(cand, item_desc=(presort == "item_desc"))
    phases["prep_s"] = round(time.perf_counter() - started["prep"], 3)
    t = time.perf_counter()
    names = {
        "ndcg": "ndcg",
        "precision": "precision",
        "recall": "recall",
        "average_precision": "map",
        "mrr": "mrr",
        "hit_rate": "hitrate",
    }
    metrics = list(names) + (["dcg"] if extra else [])
    res = rk.evaluate(
        c.lazy(),
        truth.lazy(),
        k=ks,
        metrics=metrics,
        group_by="user",
        item="item",
        score="score",
        relevance="relevance",
        policy=rk.Policy(**opts),
    )
    summary = res.summary()
    summary = summary.collect() if isinstance(summary, pl.LazyFrame) else summary
    phases["metrics_s"] = round(time.perf_counter() - t, 3)
    for m, k, v in summary.select("metric", "k", "value").iter_rows():
        if m in names:
            put(names[m], k, v)
        elif k is not None:
            extras[f"{m}@{k}"] = v

elif peer == "replay":
    from replay.metrics import MAP, MRR, NDCG, HitRate, OfflineMetrics, Precision, Recall

    imported()
    # RePlay's ground truth is a set of items: grades are ignored (binary relevance).
    gt = truth.filter(pl.col("relevance") > 0).select("user", "item")
    phases["prep_s"] = round(time.perf_counter() - started["prep"], 3)
    t = time.perf_counter()
    om = OfflineMetrics(
        [NDCG(ks), Precision(ks), Recall(ks), MAP(ks), MRR(ks), HitRate(ks)],
        query_column="user",
        item_column="item",
        rating_column="score",
    )
    res = om(cand, gt)
    phases["metrics_s"] = round(time.perf_counter() - t, 3)
    for ours, theirs in [
        ("ndcg", "NDCG"),
        ("precision", "Precision"),
        ("recall", "Recall"),
        ("map", "MAP"),
        ("mrr", "MRR"),
        ("hitrate", "HitRate"),
    ]:
        for k in ks:
            put(ours, k, res[f"{theirs}@{k}"])
    notes.append(
        "binary relevance; ties: score desc then item id desc (numeric); "
        "MAP denominator min(K, |truth|); mean over the truth's users"
    )

elif peer == "rectools":
    from rectools import Columns
    from rectools.metrics import MAP, MRR, NDCG, HitRate, Precision, Recall, calc_metrics

    imported()
    # RecTools takes a Rank column the user computes; here: score desc, then item id desc.
    reco = (
        ranked(cand)
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over("user"))
        .select(
            pl.col("user").alias(Columns.User),
            pl.col("item").alias(Columns.Item),
            pl.col("rank").alias(Columns.Rank),
        )
        .to_pandas()
    )
    inter = (
        truth.filter(pl.col("relevance") > 0)
        .select(pl.col("user").alias(Columns.User), pl.col("item").alias(Columns.Item))
        .to_pandas()
    )
    phases["prep_s"] = round(time.perf_counter() - started["prep"], 3)
    t = time.perf_counter()
    metrics = {}
    for k in ks:
        metrics.update(
            {
                f"ndcg@{k}": NDCG(k=k),
                f"precision@{k}": Precision(k=k),
                f"recall@{k}": Recall(k=k),
                f"map@{k}": MAP(k=k),
                f"mrr@{k}": MRR(k=k),
                f"hitrate@{k}": HitRate(k=k),
            }
        )
    res = calc_metrics(metrics, reco=reco, interactions=inter)
    phases["metrics_s"] = round(time.perf_counter() - t, 3)
    for key, v in res.items():
        values[key] = float(v)
    if extra:
        more = {}
        for k in ks:
            more[f"ndcg_achievable@{k}"] = NDCG(k=k, divide_by_achievable=True)
            more[f"map_divide_by_k@{k}"] = MAP(k=k, divide_by_k=True)
        extras.update(
            {key: float(v) for key, v in calc_metrics(more, reco=reco, interactions=inter).items()}
        )
    notes.append(
        "binary relevance; NDCG default divide_by_achievable=False: IDCG = K relevant items "
        "for every user; MAP divides by |truth|"
    )

elif peer == "ir_eval_numba":
    import numba
    import numpy as np
    from ir_eval_numba import metrics as ir_metrics

    imported()

    @numba.njit(cache=True)
    def drive(p_items, p_off, t_items, t_off, ks_arr, kmax, out):
        # Their functions index predicted[i] for i < k without a bounds check, so a list shorter
        # than k reads past its end: pad every list with -1 (never relevant) up to kmax.
        for u in range(len(t_off) - 1):
            pred = np.full(kmax, -1, np.int64)
            n = min(p_off[u + 1] - p_off[u], kmax)
            pred[:n] = p_items[p_off[u] : p_off[u] + n]
            act = t_items[t_off[u] : t_off[u + 1]]
            for j in range(len(ks_arr)):
                k = ks_arr[j]
                rr = ir_metrics.reciprocal_rank(act, pred, k)
                prec = ir_metrics.precision(act, pred, k)
                out[u, j, 0] = ir_metrics.ndcg(act, pred, k)
                out[u, j, 1] = prec
                out[u, j, 2] = ir_metrics.recall(act, pred, k)
                # average_precision divides by zero when no relevant item is in the top k.
                out[u, j, 3] = ir_metrics.average_precision(act, pred, k) if rr > 0 else 0.0
                out[u, j, 4] = rr
                out[u, j, 5] = 1.0 if prec > 0 else 0.0

    users = truth.filter(pl.col("relevance") > 0).select("user").unique().sort("user")
    plist = ranked(cand).group_by("user", maintain_order=True).agg(pl.col("item").head(kmax))
    tlist = truth.filter(pl.col("relevance") > 0).group_by("user").agg(pl.col("item"))
    lists = (
        users.join(plist, on="user", how="left")
        .join(tlist, on="user", how="left", suffix="_t")
        .sort("user")
    )
    p_len = lists["item"].list.len().fill_null(0).to_numpy()
    t_len = lists["item_t"].list.len().to_numpy()
    p_items = lists["item"].explode().drop_nulls().to_numpy().astype(np.int64)
    t_items = lists["item_t"].explode().to_numpy().astype(np.int64)
    p_off = np.concatenate([[0], np.cumsum(p_len)]).astype(np.int64)
    t_off = np.concatenate([[0], np.cumsum(t_len)]).astype(np.int64)
    ks_arr = np.array(ks, dtype=np.int64)
    phases["prep_s"] = round(time.perf_counter() - started["prep"], 3)
    t = time.perf_counter()
    out1 = np.zeros((1, len(ks), 6))
    drive(p_items, p_off[:2], t_items, t_off[:2], ks_arr, kmax, out1)  # JIT warm-up, one user
    phases["jit_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    out = np.zeros((len(t_len), len(ks), 6))
    drive(p_items, p_off, t_items, t_off, ks_arr, kmax, out)
    mean = out.mean(axis=0)
    phases["metrics_s"] = round(time.perf_counter() - t, 3)
    for j, k in enumerate(ks):
        for i, name in enumerate(["ndcg", "precision", "recall", "map", "mrr", "hitrate"]):
            put(name, k, mean[j, i])
    notes.append(
        "binary relevance; AP@K = mean precision at the hits in the top K (denominator: "
        "hits, not |truth|); hitrate derived (precision > 0): it has none; "
        "ties: score desc then item desc (it takes ranked id arrays)"
    )

else:
    sys.exit(f"unknown peer {peer!r}")

out = {
    "peer": peer,
    "rows": cand.height,
    "ks": ks,
    "eval_s": round(sum(v for key, v in phases.items() if key not in ("jit_s", "import_s")), 3),
    "phases": phases,
    "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    "values": values,
}
if extras:
    out["extra"] = extras
if notes:
    out["notes"] = notes
print(json.dumps(out))
