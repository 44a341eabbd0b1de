"""Cost of collapsing a passage run to documents (`rk.to_documents`) against reading the run.

The workload is a passage run as a segmented-document retriever writes it: `N_QUERIES`
queries with `PER_QUERY` passages each, MS MARCO v2.1 segment ids
(``msmarco_v2.1_doc_{shard}_{offset}#{segment}_{offset}``), about three passages per document,
scores with four decimals (ties), rows grouped by query in score order (``--shuffle``: in random
order), written as Parquet and as a TREC run file. In one process, alternating, each
`--repeats` times (the median is reported):

- ``read_trec``: the TREC run read (``rk.read_trec_run(path).collect()``), as the command and
  most RAG pipelines get a run;
- ``read_parquet``: the Parquet file read into memory (``pl.read_parquet``);
- ``collapse``: MaxP of the run in memory (``rk.to_documents(run, group_by="query",
  document="#")``, its values checked), the run already read;
- ``collapse_unchecked``: the same with ``check_values=False``;
- ``guard``: `evaluate`'s look at the ids (`warn_passage_ids`) on the run and its document
  judgements, the cost every `evaluate` call with text ids now pays;
- ``collapse_polars``: the same MaxP on the pure-Polars path (every id cut, a group-by of
  (query, document), a sort), what runs without the compiled kernel.

    python benchmarks/bench_passages.py generate 50000 1000 DIR [--shuffle]
    python benchmarks/bench_passages.py time DIR [--skip-trec] [--skip-polars]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import polars as pl

import polars_rankk as rk
from polars_rankk.core.inputs.passage_guard import warn_passage_ids

RUN = "passages.parquet"
TREC = "passages.trec"


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
        pieces.append(pl.select(query.alias("query"), passage.alias("item"), score.alias("score")))
    run = pl.concat(pieces)
    run = (
        run.sample(fraction=1.0, shuffle=True, seed=5)
        if shuffle
        else run.sort(["query", "score"], descending=[False, True])
    )
    run.write_parquet(folder / RUN)
    # As a TREC file, in file order (the rank column is the row's place in its query).
    rank = pl.int_range(1, pl.len() + 1).over("query").cast(pl.String)
    lines = run.select(
        pl.concat_str(
            [pl.col("query").cast(pl.String), pl.lit("Q0"), "item", rank,
             pl.col("score").cast(pl.String), pl.lit("bench")],
            separator=" ",
        )
    )  # fmt: skip
    lines.write_csv(folder / TREC, include_header=False, quote_style="never")
    print(f"wrote {run.height} rows to {folder / RUN} and {folder / TREC}")


def median_of(repeats: int, *runs: Callable[[], object]) -> list[float]:
    """The median time of each run over `repeats` rounds, the runs alternating in a round."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            times[index].append(time.perf_counter() - start)
    return [statistics.median(each) for each in times]


def _silent(function: Callable[..., object], *arguments: object) -> object:
    """`function` called with its warnings (here the guard's, as it should) kept quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*arguments)


def _polars_collapse(run: pl.DataFrame) -> pl.DataFrame:
    """MaxP of `run` on the pure-Polars path (as without the kernel)."""
    from polars_rankk.passages import collapse

    rule, policy = rk.DocumentRule("#"), rk.Policy()
    columns = {"keys": ["query"], "item": "item", "score": "score", "policy": policy}
    rows = collapse.passage_rows(run.lazy(), rule, **columns)  # type: ignore[arg-type]
    return collapse.ranked_documents(rows, rule, **columns).collect()  # type: ignore[arg-type]


def measure(folder: Path, repeats: int, trec: bool, polars: bool = True) -> None:
    path = folder / RUN
    run = pl.read_parquet(path)
    options = {"group_by": "query", "document": "#"}
    documents = rk.to_documents(run, **options)  # type: ignore[arg-type]
    assert isinstance(documents, pl.DataFrame)
    # One judged document in ten, for the guard's scan of the judgements.
    truth = documents.filter(pl.col("item").hash(3) % 10 == 0).select("query", "item")
    phases: dict[str, Callable[[], object]] = {
        "read_parquet": lambda: pl.read_parquet(path),
        "collapse": lambda: rk.to_documents(run, **options),  # type: ignore[arg-type]
        "collapse_unchecked": lambda: rk.to_documents(run, check_values=False, **options),  # type: ignore[arg-type]
        "guard": lambda: _silent(warn_passage_ids, run.lazy(), truth.lazy(), "item"),
    }
    if polars:
        # The pure-Polars collapse (cut every id, group by document, sort), the reference
        # the kernel's MaxP is tested against, in the same run.
        phases["collapse_polars"] = lambda: _polars_collapse(run)
    if trec:
        phases = {"read_trec": lambda: rk.read_trec_run(folder / TREC).collect(), **phases}
    times = dict(zip(phases, median_of(repeats, *phases.values()), strict=True))
    print(
        f"rows={run.height} documents={documents.height} judged={truth.height} "
        f"polars={pl.__version__} polars-rankk={rk.__version__} "
        f"load={os.getloadavg()[0]:.2f}"
    )
    print(" ".join(f"{name}={seconds:.2f}s" for name, seconds in times.items()))
    for base in ("read_trec", "read_parquet"):
        if base in times:
            ratios = (f"{n}/{base}={times[n] / times[base]:.2f}x" for n in times if n != base)
            print(" ".join(ratios))


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
    timed.add_argument("--skip-trec", action="store_true")
    timed.add_argument("--skip-polars", action="store_true")
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.queries, args.per_query, args.folder, args.shuffle)
    else:
        measure(args.folder, args.repeats, not args.skip_trec, not args.skip_polars)


if __name__ == "__main__":
    main()
