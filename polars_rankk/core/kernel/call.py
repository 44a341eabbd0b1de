"""The kernel call's description, typed: what the compiled kernel reads besides the policy.

A `Call` (its input columns, the grades derived from the policy, the linear terms as data and
the output columns) is pickled as plain data in the plugin's kwargs and deserialized by serde,
field for field, into ``native/src/config.rs``'s ``Call``; an unknown field or choice is
refused on either side. No text is parsed.

Examples
--------
>>> import polars_rankk as rk
>>> from polars_rankk.core.kernel.call import linear_terms
>>> linear_terms(("_rk_dcg",), rk.Policy())[0].pieces[0]
KernelPiece(label='gain', divide=True, weight=('r', 1.0, '+', 'log2'))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from polars_rankk.core.columns import WHOLE_LIST, stat_column
from polars_rankk.core.metrics.algebra import RankFn
from polars_rankk.core.metrics.order import mapped_below_one, unjudged_grade
from polars_rankk.core.metrics.terms import TERMS, TermNeeds
from polars_rankk.core.policy import Policy


@dataclass(frozen=True)
class KernelPiece:
    """One piece of a linear term as the kernel reads it: ``label`` times (or divided by,
    ``divide``) a weight of the rank, in postfix order (``"r"``, constants, ``+ - * / pow
    log2``); no weight: the label itself."""

    label: str
    divide: bool
    weight: tuple[str | float, ...]


@dataclass(frozen=True)
class LinearTerm:
    """A linear term the kernel sums, by its name (`polars_rankk.core.metrics.algebra`)."""

    name: str
    pieces: tuple[KernelPiece, ...]


#: What an output column holds: a key column (``k`` its index), the list's length, hits
#: within R, R and N, the ideal DCG at ``k``, a term's running sum at ``k`` (0: over the
#: whole list), or a fact of the ranked list the diagnostics read: 1 where its scores are all
#: equal, its relevant rows, its distinct relevant items, 1 where ranks ``k`` and ``k`` + 1
#: share a score; or (``places``) the list of its items at ranks 1..``k``.
OutputValue = Literal[
    "key",
    "n_candidates",
    "hits_at_r",
    "n_relevant",
    "n_nonrelevant",
    "ideal_dcg",
    "sum",
    "constant_scores",
    "relevant_rows",
    "matched_relevant",
    "tie_at",
    "places",
]


@dataclass(frozen=True)
class Output:
    """One output column of a kernel call."""

    column: str
    value: OutputValue
    k: int = 0
    term: str | None = None


@dataclass(frozen=True)
class Call:
    """What one kernel call reads besides the policy: its input columns, the grades derived
    from the policy, the terms and the outputs. serde reads it field for field into the
    kernel's ``Call`` (``native/src/config.rs``), refusing a field it does not declare."""

    #: How each key column is read: ``"integer"`` or ``"text"``.
    keys: tuple[str, ...] = ()
    item: str = "integer"
    #: The score column's name, for the kernel's error messages.
    score_name: str = "score"
    #: `unjudged_grade` and `mapped_below_one` of the policy (`derived`).
    unjudged_grade: float = 0.0
    may_add: tuple[float, ...] = ()
    #: The grade a null grade ranks with under relevance-aware ties.
    null_order_grade: float = 0.0
    condense: bool = False
    #: Where a candidate's "has a judgement" flag comes from.
    judged: Literal["unused", "grade", "all", "column", "nonnegative"] = "unused"
    #: Grades <= 0 count as 0 (the reference path joins only the positive truth rows).
    positive_only: bool = False
    labelled: bool = False
    negative_unjudged: bool = False
    #: An input row column follows (ties in input order, repeated items kept).
    row: bool = False
    #: The truth's rows follow the candidates' in the same columns.
    truth: bool = False
    #: 0, 1 (R) or 2 (R and N) count columns follow.
    counts: int = 0
    #: One group's rows (`group_metric_sums`), with or without an item column and the grades
    #: of the judged items the rows miss (``has_extra``).
    one_group: bool = False
    has_item: bool = True
    has_extra: bool = False
    pool_restrict: bool = False
    #: The scores were checked finite before the call (`evaluate`'s value checks under
    #: ``invalid_scores="error"``): the kernel does not scan them again.
    scores_checked: bool = False
    terms: tuple[LinearTerm, ...] = ()
    outputs: tuple[Output, ...] = field(default=())
    #: The outputs handed back, by column (empty: all): a metric expression's call computes
    #: the common metrics' statistics and returns the ones its formula reads.
    returned: tuple[str, ...] = ()
    #: Items are named by their text up to the first occurrence of this text (empty: the
    #: whole text): passages read as their documents (`to_documents`' delimiter).
    item_prefix: str = ""

    @classmethod
    def under(cls, policy: Policy, columns: tuple[str, ...], **fields: Any) -> Call:
        """The call of the terms cumulated in `columns` under `policy`: the one place a call
        takes what it derives from the policy (the unjudged grade, the grades that may add,
        the linear terms as data); `fields` set the rest (columns, outputs...)."""
        unjudged, may_add = derived(policy)
        fields.setdefault("null_order_grade", unjudged)
        return cls(
            unjudged_grade=unjudged,
            may_add=may_add,
            terms=linear_terms(columns, policy),
            **fields,
        )


@dataclass(frozen=True)
class LabelPart:
    """Another policy's terms and outputs read from a call's one ranking (its policy is sent
    beside them): ``native/src/config.rs``'s ``LabelSpec``, field for field."""

    terms: tuple[LinearTerm, ...]
    outputs: tuple[Output, ...]


def _postfix(weight: RankFn) -> tuple[str | float, ...]:
    """`weight` in postfix order, as the kernel evaluates it."""
    if weight.op == "r":
        return ("r",)
    if weight.op == "c":
        return (float(weight.value),)
    return (*(token for arg in weight.args for token in _postfix(arg)), weight.op)


def linear_terms(columns: tuple[str, ...], policy: Policy) -> tuple[LinearTerm, ...]:
    """The linear terms among `columns`, under `policy`, as the kernel reads them."""
    terms = []
    for column in columns:
        term = TERMS[column]
        if term.linear is not None:
            pieces = tuple(
                KernelPiece(
                    piece.label,
                    piece.op == "/",
                    () if piece.weight is None else _postfix(piece.weight),
                )
                for piece in term.linear(policy).pieces
            )
            terms.append(LinearTerm(term.name, pieces))
    return tuple(terms)


def kernel_name(column: str) -> str:
    """The kernel's name of the term cumulated in `column`."""
    term = TERMS[column]
    return term.kernel or term.name


def sum_outputs(needs: TermNeeds, ks: Iterable[int]) -> list[Output]:
    """Each term's running sum: the whole-list terms over the whole list, the others at each
    cut-off (`stat_column`); the kernel reads a sum over the whole list at cut-off 0."""
    outputs = [Output(stat, "sum", 0, kernel_name(stat)) for stat in needs.whole_list]
    outputs += [
        Output(stat_column(stat, k), "sum", 0 if k == WHOLE_LIST else k, kernel_name(stat))
        for k in ks
        for stat in needs.by_k
    ]
    return outputs


def derived(policy: Policy) -> tuple[float, tuple[float, ...]]:
    """The `Call` fields every call derives from `policy` with the reference path's own
    functions: ``unjudged_grade`` and ``may_add`` (`mapped_below_one`)."""
    return float(unjudged_grade(policy)), tuple(float(g) for g in mapped_below_one(policy))


def plain(value: object) -> object:
    """`value` as plain pickled data: dataclasses as dicts, tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [plain(item) for item in value]
    return value
