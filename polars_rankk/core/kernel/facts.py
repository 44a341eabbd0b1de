"""The diagnostics' per-group facts from the kernel's ranking of each group.

The kernel ranks every group for the sums; the same pass reads what the diagnostics count
of each ranked list (``native/src/kernel/facts.rs``). The reference is the pure-Polars
aggregation of the ranked candidates in `polars_rankk.core.evaluation.diagnostics`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import polars as pl

from polars_rankk.core.columns import N_CANDIDATES
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel.call import Output

#: A ranked group's rows (de-duplicated; unjudged rows condensed where the policy says so).
ROWS = "_rows"
#: Its rows before unjudged rows are condensed away (the ranked rows where none are).
LISTED = "_n"
#: Whether its scores are all equal.
CONSTANT = "_constant"
#: Its relevant rows (under ``duplicates="keep"`` every relevant copy, as recall counts).
POOLED = "_pooled"
#: The relevant truth items among its rows, each once.
MATCHED = "_matched"


#: Whether the evaluations made here will have their diagnostics read (`without_facts`).
_WANTED: ContextVar[bool] = ContextVar("polars_rankk_facts_wanted", default=True)


@contextmanager
def without_facts() -> Iterator[None]:
    """Evaluations made inside leave the facts out of the kernel's call: for callers that never
    read the diagnostics (an out-of-core run's partitions), which would otherwise pay for them
    in every partition's pass."""
    token = _WANTED.set(False)
    try:
        yield
    finally:
        _WANTED.reset(token)


def tie_column(k: int) -> str:
    """The column of whether a ranked group's items at ranks `k` and `k` + 1 share a score."""
    return f"_tie_{k}"


def reads_facts(spec: Spec) -> str | None:
    """Why the kernel's facts do not stand for the diagnostics' query under `spec` (None: they
    do). Pre-labelled candidates are relevant by their labels but matched against the truth,
    which the kernel does not read beside them; a threshold at or below 0 makes relevant
    rows the kernel reads without a grade."""
    if spec.labelled or spec.truth is None:
        return "pre-labelled candidates are matched against the truth in Polars"
    if spec.policy.relevance_threshold <= 0:
        return "a relevance threshold at or below 0"
    return None


def outputs(spec: Spec) -> tuple[Output, ...]:
    """The facts as outputs of the kernel's sums call under `spec` (none where they do not
    stand for the diagnostics' query, `reads_facts`, or are not wanted, `without_facts`)."""
    if reads_facts(spec) is not None or not _WANTED.get():
        return ()
    return (
        Output(CONSTANT, "constant_scores"),
        Output(POOLED, "relevant_rows"),
        Output(MATCHED, "matched_relevant"),
        *(Output(tie_column(k), "tie_at", k) for k in spec.ks),
    )


def facts_of(spec: Spec, sums: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """The kernel's per-group `sums` without the facts, and the facts (None: the call read
    none): one row per group with ranked candidates, keys, `ROWS` and `LISTED`, `CONSTANT`,
    `POOLED`, `MATCHED` and `tie_column` at every K.

    `LISTED` equals `ROWS`: under ``unjudged="condense"`` the diagnostics count the list
    before condensing in Polars, the kernel condensing as it reads the rows. Both frames
    read the one call: collected together, it ranks once.
    """
    names = [output.column for output in outputs(spec)]
    if not names or not set(names) <= set(sums.collect_schema().names()):
        return sums, None
    counts = [pl.col(N_CANDIDATES).cast(pl.Int64).alias(name) for name in (ROWS, LISTED)]
    flags = [pl.col(name).cast(pl.Boolean) for name in (CONSTANT, *map(tie_column, spec.ks))]
    facts = sums.filter(pl.col(N_CANDIDATES) > 0).select(
        *spec.keys,
        *counts,
        *flags,
        *(pl.col(name).cast(pl.Int64) for name in (POOLED, MATCHED)),
    )
    return sums.drop(names), facts
