"""Passage (chunk, segment) runs against document truth: passages collapsed to documents by a
recorded rule (MaxP, FirstP and their dialects), passage judgements made document
judgements, and how each group's top passages spread over documents."""

from polars_rankk.passages.chunks import ChunkDiagnostics, chunk_diagnostics
from polars_rankk.passages.collapse import (
    DepthTieWarning,
    documents_of,
    documents_schema,
    to_documents,
)
from polars_rankk.passages.rule import AGGREGATES, TRUTH_AGGREGATES, DocumentRule
from polars_rankk.passages.truth import truth_to_documents

__all__ = [
    "AGGREGATES",
    "TRUTH_AGGREGATES",
    "ChunkDiagnostics",
    "DepthTieWarning",
    "DocumentRule",
    "chunk_diagnostics",
    "documents_of",
    "documents_schema",
    "to_documents",
    "truth_to_documents",
]
