"""Write the policy table of docs/policies.md: every `Policy` field, its values (the default in
bold), what it decides and its `rankk` option, from `rk.Policy` and its help lines.

The table sits in the Markdown file itself, between two markers, so the page reads whole in
the repository as on the built site; run ``.venv/bin/python scripts/policy_table.py`` after
changing a field (``--check`` exits 1 when the page is out of date; ``tests/test_docs.py``
runs that check).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from pathlib import Path

from polars_rankk.core import POLICY_HELP, Policy

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "policies.md"
BEGIN = (
    "<!-- policy-table: written by scripts/policy_table.py from rk.Policy and its help lines -->"
)
END = "<!-- end of the policy table -->"


def policy_table() -> str:
    """The Markdown table of every `Policy` field: values (default in bold), meaning, option."""
    hints = typing.get_type_hints(Policy)
    lines = ["| field | values | meaning | `rankk` option |", "|---|---|---|---|"]
    for field in dataclasses.fields(Policy):
        choices = typing.get_args(hints[field.name])
        if choices and all(isinstance(c, str) for c in choices):
            values = ", ".join(f"**`{c}`**" if c == field.default else f"`{c}`" for c in choices)
        else:
            values = f"**`{field.default!r}`**"
        meaning = POLICY_HELP[field.name].replace("|", "\\|")
        option = "--" + field.name.replace("_", "-")
        lines.append(f"| `{field.name}` | {values} | {meaning} | `{option}` |")
    return "\n".join(lines)


def render(page: str) -> str:
    """`page` with the table between its markers written anew (blank lines around it, so
    that Markdown reads a table, not the comments' HTML block)."""
    start = page.index(BEGIN) + len(BEGIN)
    end = page.index(END, start)
    return f"{page[:start]}\n\n{policy_table()}\n\n{page[end:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args(argv)
    page = TARGET.read_text()
    text = render(page)
    if args.check:
        if text != page:
            print(f"{TARGET} is out of date: run python scripts/policy_table.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
