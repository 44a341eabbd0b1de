"""Cost of collapsing a passage run to documents (`rk.to_documents`) against reading the run.

The workload is a passage run as a segmented-document retriever writes it: `N_QUERIES`
queries with `PER_QUERY` passages each, MS MARCO v2.1 segment ids
(``msmarco_v2.1_doc_{shard}_{offset}#{segment}_{offset}``), about three passages per document,
scores with four decimals (ties), rows grouped by query in score order (``--shuffle``: in random
order). In one process, alternating, each `--repeats` times (the median is reported):

- ``read``: the Parquet file read into memory (``pl.read_parquet``);
- ``collapse``: MaxP of the run in memory (``rk.to_documents(run, document="#")``, values
  checked), the run already read;
- ``read+collapse``: the file scanned lazily, collapsed and collected in one query
  (``check_values=False``: a lazy run's checks are a scan of their own).

    python benchmarks/bench_passages.py generate 50000 1000 DIR [--shuffle]
    python benchmarks/bench_passages.py time DIR
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

import polars_rankk as rk

RUN = "passages.parquet"


def generate(queries: int, per_query: int, folder: Path, shuffle: bool) -> None:
    """Write the run, 1,000 queries at a time, into one Parquet file."""
    folder.mkdir(parents=True, exist_ok=True)
    pieces = []
    for start in range(0, queries, 1000):
        count = min(1000, queries - start)
        row = pl.int_range(count * per_query, dtype=pl.Int64)
        query = (start + row // per_query).alias("query")
        position = (row % per_query).alias("position")
        # About three passages per document: the document is the query and its third.
        document = pl.struct(query, (position // 3).alias("third")).hash(seed=7)
        segment = pl.struct(query, position).hash(seed=11) % 40
        passage = pl.format(
            "msmarco_v2.1_doc_{}_{}#{}_{}",
            document % 60,
            document // 60 % 10_000_000,
            segment,
            pl.struct(query, position).hash(seed=13) % 5_000_000,
        )
        score = (pl.struct(query, position).hash(seed=17) % 200_000).cast(pl.Float64) / 10_000.0
        pieces.append(
            pl.select(query.alias("query"), passage.alias("item"), score.alias("score"))
        )
    run = pl.concat(pieces)
    run = run.sample(fraction=1.0, shuffle=True, seed=5) if shuffle else run.sort(
        ["query", "score"], descending=[False, True]
    )
    run.write_parquet(folder / RUN)
    print(f"wrote {run.height} rows, {run['item'].n_unique()} passages to {folder / RUN}")


def median_of(repeats: int, *runs: Callable[[], object]) -> list[float]:
    """The median time of each run over `repeats` rounds, the runs alternating in a round."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            times[index].append(time.perf_counter() - start)
    return [statistics.median(each) for each in times]


def measure(folder: Path, repeats: int) -> None:
    path = folder / RUN
    run = pl.read_parquet(path)
    options = {"group_by": "query", "document": "#"}
    documents = rk.to_documents(run, **options)  # type: ignore[arg-type]
    assert isinstance(documents, pl.DataFrame)
    read, collapse, fused = median_of(
        repeats,
        lambda: pl.read_parquet(path),
        lambda: rk.to_documents(run, **options),  # type: ignore[arg-type]
        lambda: rk.to_documents(pl.scan_parquet(path), check_values=False, **options).collect(),  # type: ignore[arg-type, union-attr]
    )
    print(
        f"rows={run.height} documents={documents.height} polars={pl.__version__} "
        f"polars-rankk={rk.__version__}\n"
        f"read={read:.2f}s collapse={collapse:.2f}s read+collapse={fused:.2f}s "
        f"collapse/read={collapse / read:.2f}x (read+collapse)/read={fused / read:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("generate")
    made.add_argument("queries", type=int)
    made.add_argument("per_query", type=int)
    made.add_argument("folder", type=Path)
    made.add_argument("--shuffle", action="store_true")
    timed = commands.add_parser("time")
    timed.add_argument("folder", type=Path)
    timed.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.queries, args.per_query, args.folder, args.shuffle)
    else:
        measure(args.folder, args.repeats)


if __name__ == "__main__":
    main()
