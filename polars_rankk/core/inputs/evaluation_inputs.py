"""`Inputs`: the tables an evaluation reads and how to read them — everything `evaluate` is
given but what to compute (the names, K and policy, which are its `Plan`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.types import EngineType, FrameLike


@dataclass(frozen=True)
class Inputs:
    """`evaluate`'s tables and how to read them: everything it is given but what to compute
    (the names, K and policy, which are its `Plan`)."""

    candidates: FrameLike
    truth: FrameLike | None
    group_by: str | Sequence[str]
    item: str = "item"
    score: str = "score"
    relevance: str = "relevance"
    n_relevant: str | None = None
    engine: EngineType = "auto"
    check_values: bool = True
    rank: str | None = None
    popularity: FrameLike | None = None
    catalogue: FrameLike | None = None
    item_features: FrameLike | None = None
    head_share: float = 0.2
    system: str | None = None
    subtopic: str | None = None
    #: The ranks whose items the ranking pass lists per group (`Spec.places`); 0: none.
    places: int = 0

    @property
    def keys(self) -> list[str]:
        """The group key columns, as a list."""
        return [self.group_by] if isinstance(self.group_by, str) else list(self.group_by)

    @property
    def eager(self) -> bool:
        """Whether the candidates are an eager table (the result is then collected)."""
        return not isinstance(self.candidates, pl.LazyFrame)
