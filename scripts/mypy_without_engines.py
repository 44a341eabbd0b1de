"""Type-check the package as if the optional engines (PySpark, Dask) were not installed.

mypy reads the packages of the interpreter it is pointed at: this makes a throw-away virtual
environment whose site-packages are those of the current one minus ``pyspark``, ``dask`` and
``distributed``, and runs ``mypy --python-executable`` on it (``make typecheck`` runs both).
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

HIDDEN = ("pyspark", "dask", "distributed")


def main() -> int:
    site = Path(sysconfig.get_paths()["purelib"])
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        venv.EnvBuilder(with_pip=False).create(root / "env")
        visible = root / "site"
        visible.mkdir()
        for entry in site.iterdir():
            if not entry.name.lower().startswith(HIDDEN):
                (visible / entry.name).symlink_to(entry)
        python = root / "env" / "bin" / "python"
        target = Path(
            subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        (target / "visible.pth").write_text(f"{visible}\n")
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--python-executable", str(python)], check=False
        )
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
