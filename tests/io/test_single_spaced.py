"""The single-space fast path of the TREC readers gives what the general line splitter gives."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rankk.io import trec as rkio

RUN_LINES = [
    "q1 Q0 d1 1 2.5 tag",
    "q1 Q0 d\u00a02 2 -1e-3 tag",  # a no-break space is an id character
    'q1 Q0 "d3 3 1 tag',  # a quote is an id character
    "q2 Q0 d#1 1 3 tag trailing text",
    "# a comment",
    "q2 Q0 d4 2 1.5 tag",
]
QRELS_LINES = ["q1 0 d1 2", "q1 0 d\u00a02 0", "# judged by A", "q2 0 d#1 -1", "q2 0 d4 1"]
#: Each turns the file into one the general reader must read (or refuse, with its message).
VARIANTS = {
    "tab": lambda lines: [lines[0].replace(" ", "\t"), *lines[1:]],
    "mixed": lambda lines: [lines[0].replace(" ", "\t", 1), *lines[1:]],
    "space run": lambda lines: [lines[0].replace(" ", "   "), *lines[1:]],
    "leading blank": lambda lines: [" " + lines[0], *lines[1:]],
    "indented comment": lambda lines: [*lines, "   # note"],
    "blank lines": lambda lines: ["", *lines, "   ", ""],
    "crlf": lambda lines: [line + "\r" for line in lines],
}


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_bytes(("\n".join(lines) + "\n").encode())
    return path


def _general(reader: str, path: Path) -> pl.DataFrame:
    """The table the general line splitter reads, with the fast paths (the kernel's and the
    CSV reader's) switched off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rkio, "_fields_read", lambda *_args, **_kwargs: None)
        return getattr(rkio, reader)(path).collect()


@pytest.mark.parametrize("variant", [None, *VARIANTS])
@pytest.mark.parametrize(
    ("reader", "lines"), [("read_trec_run", RUN_LINES), ("read_trec_qrels", QRELS_LINES)]
)
def test_fast_and_general_readers_give_the_same_table(
    tmp_path: Path, reader: str, lines: list[str], variant: str | None
) -> None:
    text = lines if variant is None else VARIANTS[variant](lines)
    path = _write(tmp_path, "file.trec", text)
    found = getattr(rkio, reader)(path).collect()
    assert_frame_equal(found, _general(reader, path))
    assert found.height == len([line for line in lines if not line.startswith("#")])


def test_a_single_spaced_file_is_read_by_the_csv_reader(tmp_path: Path) -> None:
    path = _write(tmp_path, "run.trec", RUN_LINES)
    fields = rkio._single_spaced(path, 6, trailing=True)
    assert fields is not None
    assert fields.height == 5
    tabbed = _write(tmp_path, "tab.trec", VARIANTS["tab"](RUN_LINES))
    assert rkio._single_spaced(tabbed, 6, trailing=True) is None


@pytest.mark.parametrize(
    ("reader", "lines", "message"),
    [
        ("read_trec_run", ["q1 Q0 d1 1 2.5 tag", "q1 Q0 d2 2 high tag"], "line 2: the score"),
        ("read_trec_run", ["q1 Q0 d1 1 2.5 tag", "q1 Q0 d2 2 1"], "line 2: expected at least 6"),
        ("read_trec_qrels", ["q1 0 d1 1", "q1 0 d2 1 extra"], "line 2: expected 4"),
        ("read_trec_qrels", ["q1 0 d1 1", "q1 0 d2 inf"], "line 2: the relevance"),
    ],
)
def test_a_malformed_single_spaced_file_fails_with_its_line(
    tmp_path: Path, reader: str, lines: list[str], message: str
) -> None:
    path = _write(tmp_path, "file.trec", lines)
    with pytest.raises(ValueError, match=message):
        getattr(rkio, reader)(path)
