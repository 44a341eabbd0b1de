"""The whitespace-separated fields of a text file's lines, split by the compiled kernel.

A TREC run or qrels file is read by splitting each line on runs of ASCII whitespace (C's
``isspace``, as trec_eval splits it), skipping blank lines and lines whose first field starts
with ``#`` (``native/src/text_fields.rs``); the kernel reads the file and every core splits
its own pieces of it. The fields stay text: the callers parse them as before. The reference
is the general reader of `polars_rankk.io.trec`, which also words a malformed line's error:
this one declines any file it does not read exactly (not a regular file, not UTF-8, a
malformed line) and the caller reads it there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from polars_rankk.core.kernel import loader as native

_FIELDS = "_rk_fields"
#: What the kernel's error says when a line has too few fields (or too many).
MALFORMED = "rankk text fields: a malformed line"


def text_fields(
    path: str | os.PathLike[str], n_fields: int, *, trailing: bool, wanted: Sequence[int]
) -> pl.DataFrame | None:
    """The `wanted` fields (0-based) of every line holding `n_fields` fields (more, ignored,
    where `trailing`), as String columns named by their index, in file order; None where the
    kernel does not read the file: not loaded, not a regular file, bytes that are not UTF-8,
    or a malformed line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polars_rankk.core.kernel.text_file import text_fields
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q1 0 d1 2\\n# note\\nq1\\t0  d2 0\\n")
    >>> found = text_fields(path, 4, trailing=False, wanted=[0, 2, 3])
    >>> found is None or found.rows() == [("q1", "d1", "2"), ("q1", "d2", "0")]
    True
    """
    where = Path(path).absolute()
    # A pipe is read once (the readers after this one could not read it again); a path that
    # is not UTF-8 is no String.
    if not native.status().loaded or not where.is_file() or not os.fspath(where).isprintable():
        return None
    split = pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name="text_fields",
        args=[pl.col("path")],
        kwargs={"n_fields": n_fields, "trailing": trailing, "wanted": list(wanted)},
        is_elementwise=False,
        changes_length=True,
    ).alias(_FIELDS)
    # The kernel reads the file itself: its text never passes through Python.
    paths = pl.DataFrame({"path": [os.fspath(where)]}, schema={"path": pl.String})
    try:
        return paths.select(split).unnest(_FIELDS)
    except pl.exceptions.ComputeError as error:
        if MALFORMED in str(error):
            return None
        raise
