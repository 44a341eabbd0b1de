"""The bytes of TREC files read as trec_eval reads them: a UTF-8 byte order mark kept, a byte
that is not UTF-8 written as ``\\xNN`` (see `polars_rankk.io.trec`), and said."""

from __future__ import annotations

import mmap
import os
import re
import warnings
from pathlib import Path
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]

#: The hex digits of ``\\xNN``, how a byte that is not UTF-8 is written (``backslashreplace``).
_HEX_PAIR = re.compile(rb"[0-9a-f]{2}")


class TrecBytesWarning(UserWarning):
    """A TREC file holds bytes that are read in a way worth saying: a UTF-8 byte order mark
    kept in the first id (as trec_eval keeps it), or bytes that are not UTF-8, each written
    as ``\\xNN``."""


BOM = b"\xef\xbb\xbf"


def starts_with_bom(path: PathLike) -> bool:
    """Whether the file starts with a UTF-8 byte order mark."""
    try:
        with open(path, "rb") as file:
            return file.read(len(BOM)) == BOM
    except OSError:
        return False


def escaped_text_lines(path: PathLike) -> list[str]:
    """The lines of a file that is not valid UTF-8, each byte that is not part of a UTF-8
    character written as ``\\xNN`` (Python's ``backslashreplace``), with a warning naming
    the first such line. trec_eval compares ids as bytes: the same bytes in the run and the
    qrels read as the same text, so they still match."""
    data = Path(path).read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_no = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        end = data.find(b"\n", error.start)
        line = data[start : len(data) if end < 0 else end]
        warnings.warn(
            f"{os.fspath(path)} line {line_no}: bytes that are not UTF-8 ({line!r}); read with "
            f"each such byte written as \\xNN, in the run and the qrels alike, so ids match "
            f"byte for byte as trec_eval compares them",
            TrecBytesWarning,
            stacklevel=4,
        )
    return data.decode("utf-8", "backslashreplace").split("\n")


def _spelled_byte_escape(data: mmap.mmap) -> int:
    """Where the text first spells ``\\xNN`` (lower-case hex) as a byte that is not UTF-8 is
    read, or -1 (a search for each backslash: a one-byte search, ten times faster than one for
    ``\\x``, and most files hold none)."""
    start = data.find(b"\\")
    while start >= 0:
        if data[start + 1 : start + 2] == b"x" and _HEX_PAIR.fullmatch(data[start + 2 : start + 4]):
            return start
        start = data.find(b"\\", start + 1)
    return -1


def warn_if_an_id_spells_a_byte_escape(path: PathLike) -> None:
    """Warn when the file's text spells ``\\xNN`` as a byte that is not UTF-8 is read: such an
    id reads the same as that byte in another file, which trec_eval, comparing bytes, keeps
    apart."""
    try:
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            at = _spelled_byte_escape(data)
            if at < 0:
                return
            line_no = data[:at].count(b"\n") + 1
            text = data[at : at + 4].decode()
    except (OSError, ValueError):  # empty, or not a regular file
        return
    warnings.warn(
        f"{os.fspath(path)} line {line_no}: the text {text!r} spells how a byte that is not "
        f"UTF-8 is read; an id holding it matches that byte in another TREC file, where "
        f"trec_eval (comparing bytes) keeps the two apart",
        TrecBytesWarning,
        stacklevel=3,
    )
