"""Check the distributions of ``make dist`` the way a user meets them (run by ``make dist-test``).

``dist_check.py DATA`` runs with a fresh venv's Python, outside the repository, without cargo:
it evaluates the bundled demo data (the folder DATA) and fails unless the package comes from
that venv (not the repository), the kernel is loaded, the evaluation ran on it and gave pure
Polars' numbers group by group.
``--pure DATA``: the same where `polars-rankk[native]` was installed with no kernel wheel to
match and no cargo (on Linux x86_64 from the kernel's sdist, elsewhere the extra asks for
nothing): ``rk.show_versions()`` must say why the kernel is absent, and the evaluation run
in pure Polars.

``--tags DIST`` checks the files of DIST: the kernel's Linux wheel carries a manylinux tag that
auditwheel confirms for its library (not a bare ``linux_x86_64``), the kernel's sdist is there,
and on every platform the `[native]` extra resolves against DIST: where its marker (read from
polars-rankk's wheel) asks for the kernel a wheel or the sdist serves it; elsewhere (macOS,
Windows, Linux aarch64) it asks for nothing, so the install is the pure package.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from contextlib import redirect_stdout
from email.parser import Parser
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

#: PEP 508 environments of the platforms checked (what pip evaluates the markers with there).
PLATFORMS = {
    "Linux x86_64": {"platform_system": "Linux", "platform_machine": "x86_64"},
    "Linux aarch64": {"platform_system": "Linux", "platform_machine": "aarch64"},
    "macOS arm64": {"platform_system": "Darwin", "platform_machine": "arm64"},
    "macOS x86_64": {"platform_system": "Darwin", "platform_machine": "x86_64"},
    "Windows AMD64": {"platform_system": "Windows", "platform_machine": "AMD64"},
}
#: The wheel platform tags each of them installs (the oldest of each family suffices here).
PLATFORM_TAGS = {
    "Linux x86_64": ("manylinux", "x86_64"),
    "Linux aarch64": ("manylinux", "aarch64"),
    "macOS arm64": ("macosx", "arm64"),
    "macOS x86_64": ("macosx", "x86_64"),
    "Windows AMD64": ("win", "amd64"),
}


def _installed(data: Path, *, kernel: bool) -> int:
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
    loaded = "native kernel: loaded" in shown.getvalue()
    if kernel and not loaded:
        print("the wheels installed no working kernel (see 'native kernel:' above)")
        return 1
    # Linux x86_64: the kernel's sdist, built without cargo; elsewhere the extra asks for none.
    absent = ("installed without its compiled library", "polars-rankk-native is not installed")
    if not kernel and (loaded or not any(why in shown.getvalue() for why in absent)):
        print("show_versions() does not say why the kernel is absent")
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
        if path.startswith("native kernel: loaded") != kernel:
            where = "kernel" if kernel else "pure path"
            print(f"the evaluation of {system} did not run on the {where}")
            return 1
        if kernel and not _equals_pure_polars(res.per_group, one, truth):
            print(f"the wheel's kernel and pure Polars give {system} different numbers")
            return 1
    return 0 if len(systems) else 1


def _equals_pure_polars(
    per_group: pl.DataFrame | pl.LazyFrame, candidates: pl.LazyFrame, truth: pl.LazyFrame
) -> bool:
    """Whether pure Polars gives the kernel's per-group numbers: the wheel's library is linked
    apart from the dev build (zig, the oldest glibc), so its numbers are checked here too."""
    import polars_rankk as rk

    os.environ["POLARS_RANKK_NATIVE"] = "0"
    try:
        pure = rk.evaluate(candidates, truth, k=[5, 10], group_by="user").per_group
    finally:
        del os.environ["POLARS_RANKK_NATIVE"]
    kernel_rows, pure_rows = (rows.lazy().collect() for rows in (per_group, pure))
    columns = kernel_rows.columns
    return kernel_rows.sort(columns).equals(pure_rows.sort(columns))


def _native_requirement(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode())
    wanted = [
        r for r in metadata.get_all("Requires-Dist", []) if r.startswith("polars-rankk-native")
    ]
    if len(wanted) != 1:
        raise SystemExit(
            f"{wheel.name}: expected one polars-rankk-native requirement, got {wanted}"
        )
    return wanted[0]


def _tags(dist: Path) -> int:
    from packaging.requirements import Requirement
    from packaging.utils import parse_wheel_filename

    failures = []
    (core,) = dist.glob("polars_rankk-*.whl")
    kernels = sorted(dist.glob("polars_rankk_native-*.whl"))
    if not list(dist.glob("polars_rankk_native-*.tar.gz")):
        failures.append("no sdist of polars-rankk-native in dist/")
    platforms: dict[str, str] = {}
    for wheel in kernels:
        tags = parse_wheel_filename(wheel.name)[3]
        names = sorted({tag.platform for tag in tags})
        print(f"{wheel.name}: platforms {names}")
        if any(name.startswith("linux_") for name in names):
            failures.append(f"{wheel.name}: a bare linux tag (no manylinux): {names}")
        for name in names:
            platforms[name] = wheel.name
        if any(name.startswith("manylinux") for name in names):
            shown = subprocess.run(
                [sys.executable, "-m", "auditwheel", "show", str(wheel)],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            newest = max(name for name in names if name.startswith("manylinux_"))
            if f'"{newest}"' not in " ".join(shown.split()):
                failures.append(f"{wheel.name}: auditwheel does not confirm {newest}:\n{shown}")
    requirement = Requirement(_native_requirement(core))
    print(f"{core.name}: Requires-Dist {requirement}")
    for platform, environment in PLATFORMS.items():
        env = {**environment, "extra": "native"}
        asks = requirement.marker is None or requirement.marker.evaluate(env)
        family, machine = PLATFORM_TAGS[platform]
        served = [p for p in platforms if p.startswith(family) and p.endswith(machine)]
        if not asks and served:
            how = f"asks for no kernel, though dist/ has {served[0]}: widen the extra's marker"
        elif not asks:
            how = "asks for no kernel: the pure package installs"
        elif served:
            how = f"the kernel wheel ({served[0]})"
        else:
            how = "the kernel's sdist (builds it with cargo, installs without it where none is)"
        print(f"  polars-rankk[native] on {platform}: {how}")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--tags"]:
        return _tags(Path(argv[1]))
    if argv[:1] == ["--pure"]:
        return _installed(Path(argv[1]), kernel=False)
    return _installed(Path(argv[0]), kernel=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
