"""The TREC readers' three ways of splitting a file's lines give one table: the compiled
kernel's (`core.kernel.text_fields`), the CSV reader's for single-spaced files and the general
line splitter's, which also words every refusal."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel import text_file
from polars_rankk.core.kernel.text_file import text_fields
from polars_rankk.io import trec as rkio

#: C's isspace in the C locale, and ids holding what is not a separator (a no-break space,
#: a quote, a comment mark inside an id).
BLANKS = [" ", " ", " ", "\t", "  ", "\x0b", "\x0c", "\r", " \t "]
IDS = ["q1", "q2", "d1", "d\u00a02", '"d3', "d#4", "a-document-id-longer-than-twelve", "Q0"]
NUMBERS = ["1", "2", "0", "-1", "2.5", "-1e-3", "3.0"]


@st.composite
def lines(draw: st.DrawFn, fields: int) -> str:
    """A line of `fields` fields (sometimes one fewer or more), blanks anywhere, or a comment,
    or a blank line."""
    kind = draw(st.sampled_from(["fields"] * 8 + ["comment", "blank", "short", "long"]))
    if kind == "comment":
        return draw(st.sampled_from(["", " ", "\t"])) + "# a note " + draw(st.sampled_from(IDS))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t \r"]))
    count = fields - 1 if kind == "short" else fields + 1 if kind == "long" else fields
    values = [draw(st.sampled_from(IDS + NUMBERS)) for _ in range(count)]
    lead = draw(st.sampled_from(["", "", "", " ", "\t"]))
    tail = draw(st.sampled_from(["", "", "", " ", "\r"]))
    joined = "".join(value + draw(st.sampled_from(BLANKS)) for value in values[:-1])
    return lead + joined + values[-1] + tail


def _read(reader: str, path: Path, way: str) -> pl.DataFrame | str:
    """The table `reader` reads from `path` the `way` asked, or its refusal's message."""
    with pytest.MonkeyPatch.context() as patch:
        if way == "general":
            patch.setattr(rkio, "_fields_read", lambda *_args, **_kwargs: None)
        elif way == "csv":
            patch.setattr(text_file, "text_fields", lambda *_args, **_kwargs: None)
        try:
            return getattr(rkio, reader)(path).collect()
        except ValueError as error:
            return str(error)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), reader=st.sampled_from(["read_trec_run", "read_trec_qrels"]))
def test_the_kernel_the_csv_reader_and_the_general_reader_read_one_table(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, reader: str
) -> None:
    fields = 6 if reader == "read_trec_run" else 4
    text = data.draw(st.lists(lines(fields), max_size=12))
    ending = data.draw(st.sampled_from(["\n", "\r\n", ""]))
    path = Path(tmp_path_factory.mktemp("trec")) / "file"
    path.write_bytes(ending.join(text).encode() + ending.encode())
    general = _read(reader, path, "general")
    for way in ("kernel", "csv"):
        found = _read(reader, path, way)
        if isinstance(general, str):
            assert found == general
        else:
            assert isinstance(found, pl.DataFrame), found
            assert_frame_equal(found, general)


@pytest.mark.skipif(not native.status().loaded, reason="the compiled kernel is not loaded")
def test_the_kernel_splits_a_file_of_any_whitespace_and_declines_what_it_does_not_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run"
    path.write_text("# run\nq1\tQ0  d1 1 2.5 r extra\r\n\n q2 Q0 d\u00a02 2 1 r\n")
    found = text_fields(path, 6, trailing=True, wanted=[0, 2, 4])
    assert found is not None
    assert found.rows() == [("q1", "d1", "2.5"), ("q2", "d\u00a02", "1")]
    assert text_fields(path, 6, trailing=False, wanted=[0]) is None  # a trailing field
    assert text_fields(path, 7, trailing=True, wanted=[0]) is None  # a short line
    path.write_bytes(b"q1 Q0 d\xff 1 2.5 r\n")
    assert text_fields(path, 6, trailing=True, wanted=[0]) is None  # not UTF-8
    assert text_fields(tmp_path / "missing", 6, trailing=True, wanted=[0]) is None
    empty = tmp_path / "empty"
    empty.write_text("")
    assert text_fields(empty, 4, trailing=False, wanted=[0, 3]).shape == (0, 2)
