"""`rk.evaluate` end to end against the peers a user would pick instead, on the same Parquet.

    python benchmarks/bench_row_order.py generate 50000 100 DIR     # 5M rows, seed 7
    python benchmarks/bench_peers.py DIR --rounds 3 \\
        --python ir_eval_numba=VENV_PEERS/bin/python \\
        --python replay=VENV_REC/bin/python --python rectools=VENV_REC/bin/python

Each peer runs `peers_end_to_end.py` in a fresh process of the Python that has it installed
(default: this one), the peers alternating (rankk first) for `--rounds` rounds; the medians of
their end-to-end seconds (reading the files, preparing the peer's input, every metric at every
K) and peak RSS are printed with how many times rankk is faster, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
KS = "1,5,10,20,50,100"


def _one(python: str, peer: str, data: Path, ks: str) -> dict[str, object]:
    command = [python, str(HERE / "peers_end_to_end.py"), peer, str(data), ks]
    environment = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=environment)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["load"] = round(os.getloadavg()[0], 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ks", default=KS)
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="PEER=PYTHON",
        help="the interpreter that has PEER installed (repeatable); each named peer is run",
    )
    arguments = parser.parse_args()
    pythons = {"rankk": sys.executable}
    pythons.update(dict(entry.split("=", 1) for entry in arguments.python))
    found: dict[str, list[dict[str, object]]] = {peer: [] for peer in pythons}
    for _ in range(arguments.rounds):
        for peer, python in pythons.items():
            result = _one(python, peer, arguments.data, arguments.ks)
            print(json.dumps({k: v for k, v in result.items() if k != "values"}), flush=True)
            found[peer].append(result)
    medians = {
        peer: (
            statistics.median(float(str(r["eval_s"])) for r in results),
            statistics.median(float(str(r["peak_rss_mib"])) for r in results),
            [float(str(r["load"])) for r in results],
        )
        for peer, results in found.items()
    }
    rankk_seconds = medians["rankk"][0]
    for peer, (seconds, rss, loads) in medians.items():
        faster = seconds / rankk_seconds
        print(
            f"{peer:14} {seconds:7.3f} s {rss:6.0f} MiB  rankk faster by {faster:5.2f}x"
            f"  load {min(loads):.1f}-{max(loads):.1f}"
        )


if __name__ == "__main__":
    main()
