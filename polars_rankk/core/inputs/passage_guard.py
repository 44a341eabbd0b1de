"""The guard against a passage run evaluated on document truth (or the reverse): metrics of
zero for every group, silently, because no candidate id equals a truth id.

`evaluate` looks at the ids of the first `SAMPLE_ROWS` candidate rows. When almost none of
them (under `EXACT_SHARE`) is a truth id, but, cut at the first occurrence of a common
delimiter, at least `PREFIX_SHARE` of them are (a passage run against document judgements), or
they are the truth's ids cut so (document run, passage judgements), it warns — on every call,
not once per session — naming the delimiter, the shares and an example, and points to
``rk.to_documents`` / ``rk.truth_to_documents``. The look costs one scan of the truth's ids
and the first rows of the candidates; only text ids are looked at.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankk.core.inputs.normalize import is_stringlike

#: The delimiters tried: the text between a document id and its passage number in the ids
#: of common collections and tools (MS MARCO v2.1 segments '#', PyTerrier '%p', Anserini '.').
DELIMITERS = ("#", "%p", ".", "_", "-", ":", "/", "|", "@")
#: How many candidate rows are looked at.
SAMPLE_ROWS = 10_000
#: "Almost no candidate id is a truth id": under this share of the distinct sampled ids.
EXACT_SHARE = 0.01
#: "Cut at a delimiter, they are": at least this share of the distinct sampled ids.
PREFIX_SHARE = 0.05

_ID = "_rk_id"
_CUT = "_rk_cut"
_DELIMITER = "_rk_delimiter"


class PassageIdWarning(UserWarning):
    """Candidate ids look like passages of the truth's documents (or the truth judges passages
    of the candidates' documents): without a collapse every metric is 0. Raised on every
    call; `rk.to_documents` and `rk.truth_to_documents` collapse passages to documents."""


def _cut(ids: pl.Expr, delimiter: str) -> pl.Expr:
    """The text before the first `delimiter` (null when the id does not hold it)."""
    before = ids.str.splitn(delimiter, 2).struct.field("field_0")
    return pl.when(ids.str.contains(delimiter, literal=True)).then(before)


def _forms(ids: pl.DataFrame) -> pl.DataFrame:
    """delimiter, id, cut: every id holding a delimiter, with the text before its first."""
    return pl.concat(
        [
            ids.select(pl.lit(d).alias(_DELIMITER), _ID, _cut(pl.col(_ID), d).alias(_CUT))
            for d in DELIMITERS
        ]
    ).drop_nulls(_CUT)


def _head_ids(frame: pl.LazyFrame, item: str) -> pl.DataFrame:
    """The distinct ids of the first `SAMPLE_ROWS` rows, as text."""
    head = frame.select(pl.col(item).cast(pl.String).alias(_ID)).head(SAMPLE_ROWS)
    return head.drop_nulls().unique().collect()


def _best(found: pl.DataFrame, count: str) -> dict[str, Any] | None:
    """The delimiter with the most matches, its count and an example (None: no match)."""
    if found.is_empty():
        return None
    table = found.group_by(_DELIMITER).agg(
        pl.col(count).n_unique().alias("matches"), pl.col(_ID).min(), pl.col(_CUT).min()
    )
    return table.sort("matches", _DELIMITER, descending=[True, False]).row(0, named=True)


def warn_passage_ids(candidates: pl.LazyFrame, truth: pl.LazyFrame | None, item: str) -> None:
    """Warn (`PassageIdWarning`, on every call) when the candidates' ids look like passages
    of the truth's documents, or the truth's like passages of the candidates' documents."""
    if truth is None:
        return
    schemas = (candidates.collect_schema()[item], truth.collect_schema()[item])
    if not all(is_stringlike(dtype) for dtype in schemas):
        return
    sample = _head_ids(candidates, item)
    if sample.is_empty():
        return
    forms = _forms(sample)
    wanted = pl.concat([sample[_ID], forms[_CUT]]).unique().implode()
    truth_ids = truth.select(pl.col(item).cast(pl.String).alias(_ID))
    judged = truth_ids.filter(pl.col(_ID).is_in(wanted)).unique().collect()
    exact = sample.join(judged, on=_ID, how="semi").height
    if exact >= EXACT_SHARE * sample.height:
        return
    passages = _best(forms.join(judged.rename({_ID: _CUT}), on=_CUT, how="semi"), _ID)
    judged_passages = _forms(_head_ids(truth, item))
    documents = _best(judged_passages.join(sample.rename({_ID: _CUT}), on=_CUT, how="semi"), _CUT)
    for found, what in ((passages, "passages"), (documents, "documents")):
        if found is not None and found["matches"] >= PREFIX_SHARE * sample.height:
            _warn_every_call(_message(found, what, exact, sample.height))
            return


def _message(found: dict[str, Any], what: str, exact: int, sampled: int) -> str:
    delimiter, matches = found[_DELIMITER], found["matches"]
    share = f"{exact} of the {sampled:,} distinct candidate ids read (first {SAMPLE_ROWS:,} rows)"
    if what == "passages":
        return (
            f"evaluate: {share} equal a truth id, but {matches} of them cut at their first "
            f"{delimiter!r} do (e.g. {found[_ID]!r} -> {found[_CUT]!r}): the candidates look like "
            f"passages of the truth's documents, and every metric would be 0 for want of a "
            f"match. Collapse them to documents first: rk.to_documents with "
            f"document={delimiter!r} (on the command line, --documents {delimiter!r})"
        )
    return (
        f"evaluate: {share} equal a truth id, but {matches} of them are truth ids cut at "
        f"their first {delimiter!r} (e.g. {found[_ID]!r} -> {found[_CUT]!r}): the truth judges "
        f"passages of the candidates' documents, and every metric would be 0 for want of a "
        f"match. Make document judgements first: rk.truth_to_documents with "
        f"document={delimiter!r} (on the command line, --documents {delimiter!r})"
    )


def _warn_every_call(message: str) -> None:
    """Warn at the caller's line outside the package, with no once-per-location memory: the
    same mistake said again each time it is made."""
    package = Path(__file__).resolve().parents[2]
    frame = sys._getframe(1)
    while frame.f_back is not None and Path(frame.f_code.co_filename).resolve().is_relative_to(
        package
    ):
        frame = frame.f_back
    warnings.warn_explicit(
        message,
        PassageIdWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=frame.f_globals.get("__name__", "__main__"),
        registry=None,
    )
