"""Each group's items at its first ranks, listed by the evaluation's own ranking pass.

A reader that needs where a few items stand in the evaluation's ranking (the label recursion
lays out each item that may be relevant at its rank) asks the evaluation for the ranks it
reads (`Spec.places`): the kernel's sums call then lists each group's items at ranks
1..depth beside its sums, and the reader finds its items there instead of ranking the
candidates a second time (`polars_rankk.core.kernel.ranking.item_ranks`). Where the kernel
would not rank the evaluation's list as `item_ranks` ranks it, or does not read its items and
keys as they are (integers, text), no list is asked for and the reader ranks them itself.
"""

from __future__ import annotations

import polars as pl

from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel.call import Output

#: The list column of each group's items at ranks 1..depth (Int64 or String items).
PLACES = "_rk_places"
#: The integer dtypes the kernel reads as they are (its item handles are their values).
INTEGERS = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)


def outputs(spec: Spec) -> tuple[Output, ...]:
    """The list of places as an output of the kernel's sums call under `spec`: none where it
    asks for none, or where the kernel's ranking is not the one `item_ranks` reads (unjudged
    rows condensed, copies kept, pre-labelled lists, ties ordered by the grades) or its items
    and keys are not integers or text it reads as they are."""
    policy = spec.policy
    if (
        spec.places <= 0
        or spec.labelled
        or policy.unjudged == "condense"
        or policy.duplicates == "keep"
        or policy.ties in ("pessimistic", "optimistic", "expected")
    ):
        return ()
    schema = spec.candidates.collect_schema()
    if not isinstance(schema[spec.item], (*INTEGERS, pl.String)) or not all(
        isinstance(schema[key], (*INTEGERS, pl.String)) for key in spec.keys
    ):
        return ()
    return (Output(PLACES, "places", spec.places),)


def places_of(
    spec: Spec, sums: pl.LazyFrame, kernel_sums: pl.LazyFrame
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """`sums` (the kernel's per-group sums, maybe without other columns) without the list of
    places, and the list: keys and `PLACES` from `kernel_sums`, the call's own frame (None
    where it listed none). Read from the frame the sums and the diagnostics' facts are read
    from, the three collected together share one call: it ranks once."""
    if PLACES not in kernel_sums.collect_schema().names():
        return sums, None
    return sums.drop(PLACES), kernel_sums.select(*spec.keys, PLACES)


def item_places(
    places: pl.DataFrame, spec: Spec, pairs: pl.DataFrame, depth: int
) -> pl.Series | None:
    """Each row of `pairs`' (keys and item) rank in its group's ranking where it is at most
    `depth`, else 0 (not among the candidates, or ranked deeper): Int64, in `pairs`' order,
    from `places` (`places_of`, collected); None where the list is shorter than `depth`."""
    if depth > spec.places:
        return None
    keys, item = list(spec.keys), spec.item
    listed = places.select(
        *(pl.col(key).cast(pairs.schema[key]) for key in keys),
        pl.col(PLACES).alias(item),
        pl.int_ranges(1, pl.col(PLACES).list.len() + 1).alias("_rk_place"),
    )
    ranked = listed.explode(item, "_rk_place").filter(pl.col("_rk_place") <= depth)
    ranked = ranked.with_columns(pl.col(item).cast(pairs.schema[item]))
    # Each pair found once (one row per pair, each item ranked once): its place scattered
    # into zeros (an inner join of the few listed rows costs less than a left join of all).
    numbered = pairs.select(*keys, item).with_row_index("_rk_pair")
    found = ranked.join(numbered, on=[*keys, item], how="inner")
    place = pl.zeros(pairs.height, dtype=pl.Int64, eager=True).alias("_rk_place")
    return place.scatter(found.get_column("_rk_pair"), found.get_column("_rk_place"))
