"""Check an installed polars-rankk (from the wheels) the way a user meets it: run by
``make dist-test`` with the fresh venv's Python, outside the repository, without cargo.

It evaluates the bundled demo data (the folder given as the argument) and fails unless the
package comes from that venv (not the repository), the kernel is loaded and the evaluation
ran on it.
"""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stdout
from pathlib import Path


def main(argv: list[str]) -> int:
    data = Path(argv[0])
    import polars as pl

    import polars_rankk as rk

    installed = Path(rk.__file__).resolve()
    if Path(sys.prefix).resolve() not in installed.parents:
        print(f"polars_rankk was imported from {installed}, not from {sys.prefix}")
        return 1
    shown = io.StringIO()
    with redirect_stdout(shown):
        rk.show_versions()
    print(shown.getvalue(), end="")
    if "native kernel: loaded" not in shown.getvalue():
        print("the wheels installed no working kernel (see 'native kernel:' above)")
        return 1
    candidates = pl.scan_parquet(data / "demo_candidates.parquet")
    truth = pl.scan_parquet(data / "demo_truth.parquet")
    systems = candidates.select(pl.col("system").unique().sort()).collect()["system"]
    for system in systems:
        one = candidates.filter(pl.col("system") == system)
        res = rk.evaluate(one, truth, k=[5, 10], group_by="user")
        ndcg = res.summary().filter(pl.col("metric") == "ndcg", pl.col("k") == 10)["value"][0]
        path = res.diagnostics.path
        print(f"{system}: ndcg@10 {ndcg:.4f}; diagnostics.path: {path}")
        if not path.startswith("native kernel: loaded"):
            print(f"the evaluation of {system} did not run on the kernel")
            return 1
    return 0 if len(systems) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
