"""The rule that makes documents of passages: how a passage names its document, and how a
document's score is made of its passages' scores (MaxP, FirstP and their dialects).

Each aggregate is declared once here, with what it computes and which tool computes it; the
docstrings, the CLI's help, the recorded description and docs/passages.md read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args

import polars as pl

from polars_rankk.core import is_table
from polars_rankk.core.types import PassageAggregate, PassageGradeAggregate


@dataclass(frozen=True)
class Dialect:
    """One aggregate: what it computes and the tools that compute it so."""

    name: str
    meaning: str
    tools: str


#: The run's aggregates, by name.
AGGREGATES: Mapping[str, Dialect] = {
    dialect.name: dialect
    for dialect in (
        Dialect(
            "max",
            "the highest score of its passages (MaxP)",
            "Anserini -selectMaxPassage, Pyserini --max-passage, PyTerrier max_passage()",
        ),
        Dialect(
            "first",
            "the score of its passage with the lowest passage_index (FirstP)",
            "PyTerrier first_passage()",
        ),
        Dialect("mean", "the mean score of its passages", "PyTerrier mean_passage()"),
        Dialect("sum", "the sum of its passages' scores (SumP)", "Dai & Callan, SIGIR 2019"),
        Dialect(
            "kmax_avg",
            "the mean of its `top` highest passage scores (of all when it has fewer)",
            "PyTerrier kmaxavg_passage(k)",
        ),
    )
}
#: The truth's aggregates, by name.
TRUTH_AGGREGATES: Mapping[str, Dialect] = {
    dialect.name: dialect
    for dialect in (
        Dialect(
            "max",
            "the highest grade of its passages: a document containing a relevant passage is "
            "relevant",
            "NIST's document qrels of TREC DL 2022 and 2023",
        ),
        Dialect("min", "the lowest grade of its passages", "-"),
        Dialect("mean", "the mean grade of its passages", "-"),
    )
}
assert tuple(AGGREGATES) == get_args(PassageAggregate)
assert tuple(TRUTH_AGGREGATES) == get_args(PassageGradeAggregate)


def choice(value: object, allowed: Mapping[str, Dialect], what: str) -> str:
    """`value` when it names an aggregate of `allowed`; a ValueError listing them otherwise."""
    if not isinstance(value, str) or value not in allowed:
        names = ", ".join(repr(name) for name in allowed)
        raise ValueError(f"{what} must be one of {names}; got {value!r}")
    return value


def positive_int(value: object, what: str) -> int:
    """`value` as an int >= 1, or a TypeError / ValueError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int >= 1; got {value!r}")
    if value < 1:
        raise ValueError(f"{what} must be an int >= 1; got {value!r}")
    return value


def check_document(document: object) -> None:
    """A delimiter (non-empty text), a mapping table or a Polars expression; else refused."""
    if isinstance(document, str):
        if not document:
            raise ValueError(
                "document='' is an empty delimiter: give the text that ends a document id in "
                "a passage id (e.g. '#'), a mapping table (item, document) or an expression"
            )
        return
    if isinstance(document, pl.Expr) or is_table(document):
        return
    raise TypeError(
        f"document must be a delimiter (str), a mapping table with the passage and 'document' "
        f"columns, or a Polars expression giving each row's document id; got "
        f"{type(document).__name__}"
    )


@dataclass(frozen=True, eq=False)
class DocumentRule:
    """How passages (chunks, segments) become documents, as one value to pass around.

    `to_documents` applies it to a run; the engines (`evaluate_in_partitions`, Spark, Dask)
    and ``rankk evaluate --documents`` apply it to every group before ranking, and record its
    `describe` text.

    Parameters
    ----------
    document
        How a passage names its document: a delimiter (the document id is the passage id up
        to the first occurrence of this literal text; an id without it is its own document),
        a mapping table (the passage column, named as the run's item column, and
        ``document``), or a Polars expression giving each row's document id.
    aggregate
        How a document's score is made of its passages' (`AGGREGATES`): ``"max"`` (MaxP),
        ``"first"`` (FirstP, by `passage_index`), ``"mean"``, ``"sum"``, ``"kmax_avg"``
        (the mean of the `top` best).
    top
        For ``"kmax_avg"`` only: how many of the best passages are averaged (>= 1).
    passage_index
        For ``"first"`` only: the column giving each passage's position in its document.
    depth
        Keep each group's best `depth` documents (Anserini's ``-selectMaxPassage.hits``);
        None keeps them all.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> print(rk.DocumentRule("#", depth=1000).describe())
    document = the passage id up to the first '#'; score = max: the highest score of its
    passages (MaxP); the best 1000 documents of each group
    >>> rk.DocumentRule("#", aggregate="kmax_avg")
    Traceback (most recent call last):
    ...
    ValueError: aggregate='kmax_avg' needs top=..., how many of the best passages to average (>= 1)
    """

    document: Any
    aggregate: PassageAggregate = "max"
    top: int | None = None
    passage_index: str | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        check_document(self.document)
        choice(self.aggregate, AGGREGATES, "aggregate")
        if self.aggregate == "kmax_avg":
            if self.top is None:
                raise ValueError(
                    "aggregate='kmax_avg' needs top=..., how many of the best passages to "
                    "average (>= 1)"
                )
            positive_int(self.top, "top")
        elif self.top is not None:
            raise ValueError(
                f"top={self.top!r} is read by aggregate='kmax_avg' only; aggregate is "
                f"{self.aggregate!r}"
            )
        if self.aggregate == "first":
            if self.passage_index is None:
                raise ValueError(
                    "aggregate='first' needs passage_index=..., the column giving each "
                    "passage's position in its document (the lowest is the first passage)"
                )
            if not isinstance(self.passage_index, str):
                raise TypeError(f"passage_index must be a column name; got {self.passage_index!r}")
        elif self.passage_index is not None:
            raise ValueError(
                f"passage_index={self.passage_index!r} is read by aggregate='first' only; "
                f"aggregate is {self.aggregate!r}"
            )
        if self.depth is not None:
            positive_int(self.depth, "depth")

    def describe(self) -> str:
        """The rule in words, as evaluations and reports record it."""
        dialect = AGGREGATES[self.aggregate]
        meaning = dialect.meaning.replace("`top`", str(self.top))
        if self.aggregate == "first":
            meaning = meaning.replace("passage_index", repr(self.passage_index))
        text = f"document = {document_text(self.document)}; score = {self.aggregate}: {meaning}"
        if self.depth is not None:
            text += f"; the best {self.depth} documents of each group"
        return text

    def to_dict(self) -> dict[str, object]:
        """The rule as plain values (a mapping table or an expression as text)."""
        return {
            "document": self.document
            if isinstance(self.document, str)
            else document_text(self.document),
            "aggregate": self.aggregate,
            "top": self.top,
            "passage_index": self.passage_index,
            "depth": self.depth,
        }


def document_text(document: object) -> str:
    """How a `document` argument is named in words."""
    if isinstance(document, str):
        return f"the passage id up to the first {document!r}"
    if isinstance(document, pl.Expr):
        return f"the expression {document}"
    return "the mapping table's document of each passage"
