"""Benchmark entry point: every system on one scale, side by side, in one run.

    python benchmarks/run.py --scale 5M                     # all phases, median of 3
    python benchmarks/run.py --scale 5M --phases floor,rankk --repeat 5
    python benchmarks/run.py --scale 5M --phases layer   # k_curve, compare, report vs summary
    python benchmarks/run.py --scale 5M --phases systems --repeat 1  # 3 systems in one pass
    python benchmarks/run.py --scale 5M --phases trec        # rankk vs pytrec_eval on TREC text
    python benchmarks/run.py --scale 5M --phases cli         # rankk evaluate vs the same in Python
    python benchmarks/run.py --scale 5M --phases compare3    # compare of 3 systems vs evaluating

Each phase runs in a fresh process (benchmarks/phases.py) so that its peak RSS is its own.
Prints a table — system, phase, wall seconds (median), peak RSS, ratio to the floor and to
polars-rankk — and writes it as JSON to benchmarks/results/<scale>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402

DEFAULT_PHASES = [
    "floor",
    "rankk",
    "rankk_single_k",
    "rankk_k_curve",
    "pytrec_eval",
    "ranx",
    "pandas",
]
#: The phases of the curves / intervals / comparisons / report issue, with their reference.
LAYER_PHASES = [
    "rankk_summary_single_k",
    "k_curve_lazy",
    "k_curve_eager",
    "k_curve_lazy_ci",
    "k_curve_eager_ci",
    "compare_three",
    "evaluate_eager_k_curve",
    "small_report",
    "small_k_curve",
]
#: Several systems in one evaluation (`evaluate(..., system=...)`), and `compare` read from it.
SYSTEMS_PHASES = ["systems_evaluate", "systems_compare"]
#: Named sets of phases, each written to results/<scale>_<name>.json.
PRESETS = {
    "trec": ["trec_text_rankk", "trec_text_pytrec_eval", "trec_text_trec_eval"],
    "cli": ["python_parquet", "cli_parquet"],
    "compare3": ["systems_evaluate", "compare3"],
    "startup": ["polars_import", "cli_startup"],
    #: The Python side's rows: each phase after its reference (`REFERENCES`).
    "expressions": ["evaluate_five", "expressions_five", "expressions_five_struct"],
    "curves": ["rankk_summary_single_k", "k_curve_lazy", "k_curve_lazy_ci"],
}
#: Each phase's reference in the same run: ``time_vs_reference`` is its total over the
#: reference's (for the peers: how many times slower than polars-rankk).
REFERENCES = {
    "trec_text_pytrec_eval": "trec_text_rankk",
    "trec_text_trec_eval": "trec_text_rankk",
    "cli_parquet": "python_parquet",
    "compare3": "systems_evaluate",
    "cli_startup": "polars_import",
    "expressions_five": "evaluate_five",
    "expressions_five_struct": "evaluate_five",
    "k_curve_lazy": "rankk_summary_single_k",
    "k_curve_lazy_ci": "rankk_summary_single_k",
}


def _run_once(phase: str, scale: str) -> tuple[dict[str, float], float]:
    """(timings, peak RSS in MiB) of one phase in a fresh interpreter; the timings carry the
    phase's CPU seconds (its commands' included) and the load average when it ended."""
    process = subprocess.Popen(
        [sys.executable, str(HERE / "phases.py"), phase, scale],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status, usage = os.wait4(process.pid, 0)
    stdout = process.stdout.read() if process.stdout else ""
    stderr = process.stderr.read() if process.stderr else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"phase {phase} failed:\n{stderr[-2000:]}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["cpu"] = usage.ru_utime + usage.ru_stime
    result["load"] = os.getloadavg()[0]
    return result, usage.ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--scale", default="5M")
    parser.add_argument("--phases", default=",".join(DEFAULT_PHASES))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    name = args.scale
    if args.phases == "layer":
        args.phases = ",".join(LAYER_PHASES)
    elif args.phases == "systems":
        args.phases = ",".join(SYSTEMS_PHASES)
        name = f"{args.scale}_systems"  # its own file: the other results stay as they are
    elif args.phases in PRESETS:
        name = f"{args.scale}_{args.phases}"
        args.phases = ",".join(PRESETS[args.phases])
    generate(args.scale)
    rows = []
    for phase in args.phases.split(","):
        runs = [_run_once(phase, args.scale) for _ in range(args.repeat)]
        evaluate = statistics.median(r["evaluate"] for r, _ in runs)
        convert = statistics.median(r.get("convert", 0.0) for r, _ in runs)
        rows.append(
            {
                "system": phase,
                "convert_s": round(convert, 3),
                "evaluate_s": round(evaluate, 3),
                "total_s": round(convert + evaluate, 3),
                "peak_rss_mib": round(max(rss for _, rss in runs)),
                "cpu_s": round(statistics.median(r["cpu"] for r, _ in runs), 3),
                "load": round(max(r["load"] for r, _ in runs), 2),
                "check": runs[0][0].get("check"),
                "output_mib": runs[0][0].get("output_mib"),
            }
        )
        print(f"  {phase}: {convert + evaluate:.2f}s", file=sys.stderr)
    by_name = {row["system"]: row for row in rows}
    floor = by_name.get("floor")
    rankk = by_name.get("rankk")
    reference = by_name.get("rankk_summary_single_k")  # evaluate(k=10).summary(), this run
    systems = by_name.get("systems_evaluate")  # the multi-system evaluation alone
    for row in rows:
        if reference:
            row["time_vs_summary_k10"] = round(row["total_s"] / reference["total_s"], 2)
            row["rss_vs_summary_k10"] = round(row["peak_rss_mib"] / reference["peak_rss_mib"], 2)
        if floor:
            row["time_vs_floor"] = round(row["total_s"] / floor["total_s"], 2)
            row["rss_vs_floor"] = round(row["peak_rss_mib"] / floor["peak_rss_mib"], 2)
        if rankk:
            row["rankk_speedup"] = round(row["total_s"] / rankk["total_s"], 2)
        if systems:
            row["time_vs_systems_evaluate"] = round(row["total_s"] / systems["total_s"], 2)
        against = by_name.get(REFERENCES.get(row["system"], ""))
        if against:
            row["time_vs_reference"] = round(row["total_s"] / against["total_s"], 2)
            row["cpu_vs_reference"] = round(row["cpu_s"] / against["cpu_s"], 2)
    header = [
        "system",
        "convert_s",
        "evaluate_s",
        "total_s",
        "peak_rss_mib",
        "time_vs_floor",
        "rss_vs_floor",
        "rankk_speedup",
        "time_vs_summary_k10",
        "rss_vs_summary_k10",
        "time_vs_systems_evaluate",
        "time_vs_reference",
        "cpu_s",
        "cpu_vs_reference",
        "load",
        "output_mib",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row.get(column, "")) for column in header) + " |")
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    try:
        import polars

        machine["polars"] = polars.__version__
    except ImportError:  # pragma: no cover
        pass
    out = HERE / "results" / f"{name}.json"
    out.write_text(
        json.dumps(
            {"scale": args.scale, "repeat": args.repeat, "machine": machine, "rows": rows}, indent=2
        )
    )
    print(f"written {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
