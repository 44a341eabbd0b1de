"""Every documented error of the command, run through it: the message docs/cli.md gives, in
option terms (no ``Policy.``, no ``rk.``, no Python-style ``name=value`` outside the user's own
quoted input)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli.running import run_rankk

ROOT = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| `(rankk [^`]+)` \| `([^`]+)` \|$")


def documented_errors() -> list[tuple[str, str]]:
    """(command, message) of each row of the Errors table of docs/cli.md."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("\n## Errors\n", 1)[1]
    return [(match[1], match[2]) for line in section.splitlines() if (match := _ROW.match(line))]


def speaks_python(message: str) -> list[str]:
    """What in `message` is Python's spelling: ``Policy.``, ``rk.``, ``name=value`` (quoted
    text, the user's own input such as a metric name, left aside)."""
    unquoted = re.sub(r"""'[^']*'|"[^"]*"|\{[^}]*\}""", "''", message)
    found = [word for word in ("Policy.", "Policy(", "rk.") if word in unquoted]
    found += re.findall(r"\b[a-z_]+=\S*", unquoted)
    return found


def test_the_errors_table_lists_errors() -> None:
    assert len(documented_errors()) >= 15


@pytest.mark.parametrize(("command", "message"), documented_errors(), ids=lambda x: x[:60])
def test_each_documented_error_says_it_in_option_terms(
    command: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    code, _, err = run_rankk(capsys, *shlex.split(command)[1:])
    assert code in (1, 2), err
    line = next(line for line in err.splitlines() if line.startswith("rankk: error: "))
    assert message in line
    assert speaks_python(line) == [], line


def test_speaks_python_finds_python_spellings() -> None:
    assert speaks_python("Policy.relevance_threshold must be > 0") == ["Policy."]
    assert speaks_python("use average='macro' or 'weighted'") == ["average=''"]
    assert speaks_python("see rk.evaluate_systems(...)") == ["rk."]
    assert speaks_python("--metrics 'nDCG(judged_only=True)@10' sets --unjudged condense") == []
