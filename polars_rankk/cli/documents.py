"""``--documents`` and its options: a passage (chunk) run evaluated against document
judgements, collapsed as `polars_rankk.to_documents` collapses it, and said on stderr.

The run is collapsed whenever ``--documents`` is given. The qrels are collapsed too
(`polars_rankk.truth_to_documents`) when every one of their ids is a passage id: each carries
the delimiter, or, with a mapping file, each is a passage the mapping maps; when only some
are, they are left as they are, with a warning (a mix of document and passage judgements has
no one reading).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer

from polars_rankk.cli.inputs import Columns, Source, read_source, warn
from polars_rankk.core import Policy
from polars_rankk.core.policy import parse_gains
from polars_rankk.core.types import PassageAggregate as Aggregate
from polars_rankk.core.types import PassageGradeAggregate as TruthAggregate

if TYPE_CHECKING:
    from polars_rankk.passages import DocumentRule

PASSAGES = "Passages and documents"

DocumentsOption = Annotated[
    str | None,
    typer.Option(
        "--documents",
        metavar="DELIMITER|FILE",
        help="The run ranks passages (chunks): collapse them to documents first. A delimiter "
        "(literal text: the document id is the passage id up to its first occurrence, '#' for "
        "MS MARCO v2.1 segments; an id without it is its own document), or a mapping file "
        "(Parquet, CSV, TSV) with the item column and 'document'. The qrels are collapsed too "
        "when every id is a passage id.",
        rich_help_panel=PASSAGES,
        show_default=False,
    ),
]
AggregateOption = Annotated[
    Aggregate,
    typer.Option(
        "--aggregate",
        help="A document's score from its passages': max (MaxP: Anserini, Pyserini, PyTerrier), "
        "first (FirstP: --passage-index), mean, sum, kmax_avg (the mean of the --top best).",
        rich_help_panel=PASSAGES,
    ),
]
TopOption = Annotated[
    int | None,
    typer.Option(
        "--top",
        help="For --aggregate kmax_avg: how many of a document's best passages are averaged.",
        rich_help_panel=PASSAGES,
        show_default=False,
    ),
]
PassageIndexOption = Annotated[
    str | None,
    typer.Option(
        "--passage-index",
        metavar="COLUMN",
        help="For --aggregate first: the run's column giving each passage's position in its "
        "document (the lowest is the first passage).",
        rich_help_panel=PASSAGES,
        show_default=False,
    ),
]
DepthOption = Annotated[
    int | None,
    typer.Option(
        "--depth",
        help="Keep each group's best N documents (Anserini's -selectMaxPassage.hits).",
        rich_help_panel=PASSAGES,
        show_default=False,
    ),
]
TruthAggregateOption = Annotated[
    TruthAggregate,
    typer.Option(
        "--truth-aggregate",
        help="A document's grade from its passages' (qrels of passages): max (NIST's rule: a "
        "document containing a relevant passage is relevant), min, mean.",
        rich_help_panel=PASSAGES,
    ),
]
TruthGradesOption = Annotated[
    str | None,
    typer.Option(
        "--truth-grades",
        metavar="GRADE:GRADE,...",
        help="Passage grades remapped before they are collapsed, e.g. '1:0' (TREC DL: a "
        "passage's 1 is 'related', not relevant).",
        rich_help_panel=PASSAGES,
        show_default=False,
    ),
]


@dataclass(frozen=True)
class DocumentOptions:
    """The ``--documents`` options given (``documents=None``: the run is not collapsed)."""

    documents: str | None = None
    aggregate: Aggregate = "max"
    top: int | None = None
    passage_index: str | None = None
    depth: int | None = None
    truth_aggregate: TruthAggregate = "max"
    truth_grades: str | None = None

    def rule(self, columns: Columns) -> DocumentRule | None:
        """The rule the options give (a mapping file read), or None without ``--documents``."""
        if self.documents is None:
            if self.aggregate != "max" or any(
                v is not None for v in (self.top, self.passage_index, self.depth, self.truth_grades)
            ):
                raise typer.BadParameter(
                    "--aggregate, --top, --passage-index, --depth and --truth-grades collapse "
                    "passages to documents: give --documents (a delimiter or a mapping file)",
                    param_hint="--documents",
                )
            return None
        from polars_rankk.passages import DocumentRule  # the command starts with the core only

        document: object = self.documents
        if Path(self.documents).is_file():
            mapping = read_source(Path(self.documents), "--documents", "table", "auto", columns)
            document = mapping.frame
        try:
            return DocumentRule(document, aggregate=self.aggregate, top=self.top,
                                passage_index=self.passage_index, depth=self.depth)  # fmt: skip
        except (TypeError, ValueError) as error:
            raise typer.BadParameter(str(error), param_hint="--documents") from None

    def apply(
        self, runs: list[Source], truth: Source, columns: Columns, policy: Policy
    ) -> tuple[list[Source], Source, DocumentRule | None]:
        """Each run collapsed to documents, the qrels too when they judge passages, each said
        on stderr; and the rule (None: nothing collapsed)."""
        rule = self.rule(columns)
        if rule is None:
            return runs, truth, None
        if columns.rank is not None:
            raise typer.BadParameter(
                "--documents collapses passages by their scores (--score, higher first), not "
                "by a rank column",
                param_hint="--rank",
            )
        from polars_rankk.passages import documents_of

        collapsed = []
        for run in runs:
            documents = documents_of(run.frame, rule, group_by=columns.keys, item=columns.item,
                                     score=columns.score or "score", policy=policy)  # fmt: skip
            assert isinstance(documents, pl.DataFrame)
            warn(
                f"{run.path}: {run.frame.height:,} passage rows collapsed to "
                f"{documents.height:,} document rows ({rule.describe()})"
            )
            collapsed.append(run.replace(documents))
        return collapsed, self._judged(truth, rule, columns), rule

    def _judged(self, truth: Source, rule: DocumentRule, columns: Columns) -> Source:
        """The qrels made document judgements when every id is a passage's, else as given."""
        passages = _passage_ids(truth.frame, rule, columns.item)
        grades = None if self.truth_grades is None else dict(parse_gains(self.truth_grades))
        if passages is not None and passages.all():
            from polars_rankk.passages import truth_to_documents

            graded = columns.relevance in truth.frame.columns
            judged = truth_to_documents(
                truth.frame, group_by=columns.keys, document=rule.document, item=columns.item,
                relevance=columns.relevance, aggregate=self.truth_aggregate,
                grades=grades if graded else None,
            )  # fmt: skip
            assert isinstance(judged, pl.DataFrame)
            remapped = "" if grades is None else f", grades remapped {self.truth_grades}"
            warn(
                f"{truth.path}: every id is a passage's: {truth.frame.height:,} passage "
                f"judgements made {judged.height:,} document judgements (grade = "
                f"{self.truth_aggregate} of its passages'{remapped})"
            )
            return truth.replace(judged)
        if passages is not None and passages.any():
            warn(
                f"{truth.path}: {int(passages.sum()):,} of {passages.len():,} ids are passage "
                f"ids: the judgements are left as they are (give judgements of documents, or of "
                f"passages only)"
            )
        if grades is not None:
            warn(f"--truth-grades {self.truth_grades}: {truth.path} judges documents, not applied")
        return truth


def _passage_ids(frame: pl.DataFrame, rule: DocumentRule, item: str) -> pl.Series | None:
    """Whether each qrels id is a passage id under `rule` (None: a rule no id can be read by,
    an expression or ids that are not text under a delimiter)."""
    ids = frame.get_column(item)
    if isinstance(rule.document, str):
        if ids.dtype != pl.String:
            return None
        return ids.str.contains(rule.document, literal=True)
    if isinstance(rule.document, pl.DataFrame):
        mapped = rule.document.get_column(item)
        if mapped.dtype != ids.dtype:
            return None
        return ids.is_in(mapped.implode())
    return None


def with_document_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give `command` the ``--documents`` options; it receives them as ``documents:
    DocumentOptions``."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "documents"]
    keyword = inspect.Parameter.KEYWORD_ONLY
    added = [
        inspect.Parameter("documents", keyword, default=None, annotation=DocumentsOption),
        inspect.Parameter("aggregate", keyword, default="max", annotation=AggregateOption),
        inspect.Parameter("top", keyword, default=None, annotation=TopOption),
        inspect.Parameter("passage_index", keyword, default=None, annotation=PassageIndexOption),
        inspect.Parameter("depth", keyword, default=None, annotation=DepthOption),
        inspect.Parameter(
            "truth_aggregate", keyword, default="max", annotation=TruthAggregateOption
        ),
        inspect.Parameter("truth_grades", keyword, default=None, annotation=TruthGradesOption),
    ]
    names = [p.name for p in added]

    @functools.wraps(command)
    def wrapper(**options: Any) -> None:
        chosen = DocumentOptions(**{name: options.pop(name) for name in names})
        command(**options, documents=chosen)

    positional = [p for p in kept if p.kind != keyword]
    keywords = [p for p in kept if p.kind == keyword]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*positional, *added, *keywords]
    )
    return wrapper
