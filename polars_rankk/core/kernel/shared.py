"""Several policies' sums from one kernel call: the parts of an evaluation whose ordering
fields are equal (`Policy.ordering`) rank each group once in the kernel, and each part's terms
are summed under its own label fields (the relevance threshold, the gain, a measure's
parameters) from that one ranking (``native/src/config.rs``'s label configurations).

A part's call is shared where its inputs are the first part's (the same input columns, judged
flags and derived grades): only its policy, terms and outputs differ. R and N are then counted
by the kernel from the truth's rows, at each part's threshold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import polars as pl

from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel.call import LabelPart, plain
from polars_rankk.core.kernel.loader import _SUMS, _call, _sums_call, kernel_policy, library
from polars_rankk.core.metrics.terms import TermNeeds

#: Between a label part's output column and its index in the call (its columns are apart from
#: the first part's, which keep their names).
_PART = "#part"


@dataclass(frozen=True)
class SumsAsked:
    """What one part asks of the kernel: `loader.group_sums`' arguments."""

    spec: Spec
    selected: pl.LazyFrame
    truth: pl.LazyFrame
    truth_stats: pl.LazyFrame
    needs: TermNeeds
    schema: pl.Schema


def shared_group_sums(asked: Sequence[SumsAsked]) -> list[pl.LazyFrame] | None:
    """`loader.group_sums` of each of `asked` from one kernel call that ranks each group once
    (None where the parts' inputs differ: each then makes its own call)."""
    calls = [_sums_call(a.spec, a.selected, a.truth, a.truth_stats, a.needs) for a in asked]
    first = calls[0][0]
    inputs_of = [dataclasses.replace(inputs.call, terms=()) for inputs, _, _ in calls]
    if any(call != inputs_of[0] for call in inputs_of) or first.call.counts:
        return None  # (count columns are the truth's, at one threshold)
    # Each further part's outputs under names apart from the first part's.
    outputs = [
        [dataclasses.replace(out, column=f"{out.column}{_PART}{index}") for out in part_outputs]
        for index, (_, part_outputs, _) in enumerate(calls)
    ]
    outputs[0] = calls[0][1]
    labels = [
        {
            "policy": kernel_policy(one.spec.policy),
            **cast(dict[str, object], plain(LabelPart(inputs.call.terms, tuple(apart)))),
        }
        for one, (inputs, _, _), apart in zip(asked[1:], calls[1:], outputs[1:], strict=True)
    ]
    sent = {**calls[0][2], "labels": labels}
    sums = first.frame.select(_call(library(), first.arguments, sent)).unnest(_SUMS)
    return [
        sums.select(
            *(pl.col(key).cast(one.schema[key]) for key in first.keys),
            *(
                pl.col(apart.column).cast(one.schema[own.column]).alias(own.column)
                for apart, own in zip(sent_outputs, part_outputs, strict=True)
            ),
        )
        for one, sent_outputs, (_, part_outputs, _) in zip(asked, outputs, calls, strict=True)
    ]
