"""``--popularity``, ``--item-features``, ``--catalogue``, ``--head-share``: the item tables the
beyond-accuracy metrics read, as options of every command that evaluates."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from polars_rankk.cli.inputs import Columns, Source, read_source, reconcile_ids
from polars_rankk.core.evaluation.catalogue import SharedCatalogue, shared_catalogue

BEYOND_ACCURACY = "Beyond accuracy"

PopularityOption = Annotated[
    Path | None,
    typer.Option(
        "--popularity",
        metavar="FILE",
        help="Interactions, for novelty, arp and long_tail_share: a log (each row of its item "
        "column counts once) or a table of item and count.",
        rich_help_panel=BEYOND_ACCURACY,
        show_default=False,
    ),
]
ItemFeaturesOption = Annotated[
    Path | None,
    typer.Option(
        "--item-features",
        metavar="FILE",
        help="Item features, for intra_list_diversity: the item column and one feature column "
        "(labels, or an embedding in a Parquet list column).",
        rich_help_panel=BEYOND_ACCURACY,
        show_default=False,
    ),
]
CatalogueOption = Annotated[
    Path | None,
    typer.Option(
        "--catalogue",
        metavar="FILE",
        help="The catalogue's items (an item column), for coverage, gini and entropy; default "
        "every item of the candidates and of --popularity (of every run compared, one catalogue "
        "shared by all).",
        rich_help_panel=BEYOND_ACCURACY,
        show_default=False,
    ),
]
HeadShareOption = Annotated[
    float,
    typer.Option(
        "--head-share",
        metavar="SHARE",
        help="The share of interactions the head (the most popular items) makes up, for "
        "long_tail_share.",
        rich_help_panel=BEYOND_ACCURACY,
    ),
]


@dataclass(frozen=True)
class ItemFiles:
    """The item tables given on the command line (``None``: not given)."""

    popularity: Path | None = None
    item_features: Path | None = None
    catalogue: Path | None = None
    head_share: float = 0.2

    def read(self, runs: Sequence[Source], columns: Columns) -> dict[str, Any]:
        """The keyword arguments of `polars_rankk.evaluate` for these tables, their item ids
        parsed like the runs' (a CSV's ids are integers when a Parquet run's are)."""
        given = {
            name: read_source(path, option, "table", "auto", columns)
            for name, path, option in (
                ("popularity", self.popularity, "--popularity"),
                ("item_features", self.item_features, "--item-features"),
                ("catalogue", self.catalogue, "--catalogue"),
            )
            if path is not None
        }
        aligned = reconcile_ids([*runs, *given.values()], [columns.item])[len(runs) :]
        tables: dict[str, Any] = {
            name: source.frame for name, source in zip(given, aligned, strict=True)
        }
        if len(runs) > 1 and "catalogue" not in tables:
            tables["catalogue"] = shared_catalogue(
                [source.frame for source in runs], tables.get("popularity"), columns.item
            )
        return {**tables, "head_share": self.head_share}

    def shared(self, runs: Sequence[Source], tables: dict[str, Any]) -> SharedCatalogue | None:
        """The catalogue `read` made of every run's items (no ``--catalogue`` given, several
        runs), which each run's diagnostics then say; None otherwise."""
        if self.catalogue is not None or len(runs) < 2:
            return None
        return SharedCatalogue(len(runs), tables["catalogue"])


def with_item_table_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give `command` the beyond-accuracy options; it receives them as ``items: ItemFiles``."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "items"]
    keyword = inspect.Parameter.KEYWORD_ONLY
    added = [
        inspect.Parameter("popularity", keyword, default=None, annotation=PopularityOption),
        inspect.Parameter("item_features", keyword, default=None, annotation=ItemFeaturesOption),
        inspect.Parameter("catalogue", keyword, default=None, annotation=CatalogueOption),
        inspect.Parameter("head_share", keyword, default=0.2, annotation=HeadShareOption),
    ]
    names = [p.name for p in added]

    @functools.wraps(command)
    def wrapper(**options: Any) -> None:
        items = ItemFiles(**{name: options.pop(name) for name in names})
        command(**options, items=items)

    positional = [p for p in kept if p.kind != keyword]
    keywords = [p for p in kept if p.kind == keyword]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*positional, *added, *keywords]
    )
    return wrapper
