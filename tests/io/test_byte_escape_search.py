"""Where a TREC file first spells ``\\xNN`` (how a byte that is not UTF-8 is read), against a
regular expression over the whole text."""

from __future__ import annotations

import mmap
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rankk.io.trec_bytes import _spelled_byte_escape

SPELLED = re.compile(rb"\\x[0-9a-f]{2}")


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from([b"\\", b"x", b"4", b"f", b"g", b"A", b" ", b"\n", b"q"])))
def test_the_first_spelled_escape_is_found_where_a_regular_expression_finds_it(
    tmp_path_factory: pytest.TempPathFactory, text: list[bytes]
) -> None:
    data = b"".join(text) or b" "
    path = Path(tmp_path_factory.mktemp("bytes")) / "run"
    path.write_bytes(data)
    found = SPELLED.search(data)
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert _spelled_byte_escape(mapped) == (found.start() if found else -1)
