"""`Policy`: every definitional choice of an evaluation, in one frozen object (SPEC §3)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, get_args

from polars_rankk.core.types import (
    AveragePrecisionDenominator,
    DuplicatePolicy,
    EmptyTruthPolicy,
    GainPolicy,
    InvalidScorePolicy,
    MissingGroupPolicy,
    PoolPolicy,
    ShortListPolicy,
    TiePolicy,
)

_CHOICES: dict[str, tuple[str, ...]] = {
    "short_lists": get_args(ShortListPolicy),
    "ap_denominator": get_args(AveragePrecisionDenominator),
    "duplicates": get_args(DuplicatePolicy),
    "ties": get_args(TiePolicy),
    "empty_truth": get_args(EmptyTruthPolicy),
    "missing_groups": get_args(MissingGroupPolicy),
    "pool": get_args(PoolPolicy),
    "gain": get_args(GainPolicy),
    "invalid_scores": get_args(InvalidScorePolicy),
}

#: One line per policy field, shown by ``rankk --help`` and in the README's policy table.
POLICY_HELP: dict[str, str] = {
    "short_lists": "fewer than K candidates: 'fixed' divides precision by K, 'observed' by "
    "min(K, n), 'skip' drops the group at that K",
    "ap_denominator": "average_precision divides by R ('relevant', trec_eval) or by "
    "min(K, R) ('min_k_relevant', Spark/RecBole)",
    "duplicates": "repeated (group, item) candidates: keep the highest-scored copy ('first'), "
    "raise ('error') or count every copy ('keep')",
    "ties": "order inside equal scores: 'trec_eval' (item id descending, byte order), "
    "'item_asc', 'input_order', 'pessimistic' (relevant last), 'optimistic' (relevant first), "
    "'expected' (exact mean over all orderings)",
    "empty_truth": "groups with no relevant item: 'exclude' from results, score 'zero' "
    "(trec_eval), or 'nan' (kept, skipped by aggregates)",
    "missing_groups": "groups in truth with no candidates: score as an empty ranking ('zero', "
    "trec_eval -c), 'exclude' them, or raise ('error')",
    "pool": "truth items the model never scored count in R ('all') or not ('restrict')",
    "relevance_threshold": "an item is relevant when its grade >= this (default 1)",
    "gain": "nDCG gain of a grade: the grade ('linear', trec_eval) or 2^grade - 1 ('exponential')",
    "invalid_scores": "null/NaN/inf scores: raise ('error'), drop the rows ('drop'), or rank "
    "them last ('lowest')",
}


@dataclass(frozen=True)
class Policy:
    """Every definitional choice of an evaluation (SPEC §3), validated on construction.

    The defaults are trec_eval's wherever trec_eval has an opinion, except that groups with no
    relevant item are excluded (``empty_truth="exclude"``) rather than scored 0.

    Parameters
    ----------
    short_lists
        Lists shorter than K: ``"fixed"`` divides precision by K (missing ranks are
        non-relevant), ``"observed"`` by ``min(K, n_g)``, ``"skip"`` drops the group at that K.
    ap_denominator
        ``"relevant"`` divides average precision by R_g (trec_eval ``map_cut``);
        ``"min_k_relevant"`` by ``min(K, R_g)``.
    duplicates
        Repeated ``(group, item)`` candidates: ``"first"`` keeps the highest-scored copy,
        ``"error"`` raises, ``"keep"`` ranks and counts every copy.
    ties
        Order within equal scores: ``"trec_eval"`` (item id descending in byte order of its
        string form), ``"item_asc"``, ``"input_order"``, ``"pessimistic"`` (relevant items
        last, then lower grades last), ``"optimistic"``, or ``"expected"`` — the exact
        expectation over every ordering of each tie block (McSherry & Najork, ECIR 2008).
    empty_truth
        Groups with R_g = 0: ``"exclude"`` them, score ``"zero"`` as trec_eval does, or
        ``"nan"`` (kept in per-group output, skipped by aggregates).
    missing_groups
        Groups in truth without candidates: ``"zero"`` (an empty ranking), ``"exclude"``,
        or ``"error"``.
    pool
        ``"all"`` counts every relevant truth item in R_g and the ideal DCG; ``"restrict"``
        only those the model scored.
    relevance_threshold
        An item is relevant when ``relevance >= relevance_threshold``.
    gain
        nDCG gain: the grade (``"linear"``) or ``2**grade - 1`` (``"exponential"``).
    invalid_scores
        Null, NaN or infinite scores: ``"error"``, ``"drop"`` the rows, or rank them
        ``"lowest"``.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> rk.Policy(ties="expected").ties
    'expected'
    >>> rk.Policy.trec_eval().empty_truth
    'zero'
    >>> rk.Policy(ties="random")
    Traceback (most recent call last):
    ...
    ValueError: Policy.ties must be one of 'trec_eval', 'item_asc', ..., 'expected'; got 'random'
    """

    short_lists: ShortListPolicy = "fixed"
    ap_denominator: AveragePrecisionDenominator = "relevant"
    duplicates: DuplicatePolicy = "first"
    ties: TiePolicy = "trec_eval"
    empty_truth: EmptyTruthPolicy = "exclude"
    missing_groups: MissingGroupPolicy = "zero"
    pool: PoolPolicy = "all"
    relevance_threshold: float = 1
    gain: GainPolicy = "linear"
    invalid_scores: InvalidScorePolicy = "error"

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                allowed = ", ".join(repr(c) for c in choices)
                raise ValueError(f"Policy.{name} must be one of {allowed}; got {value!r}")
        threshold = self.relevance_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise TypeError(
                f"Policy.relevance_threshold must be a number; got {type(threshold).__name__}"
            )
        if not threshold > 0 or math.isnan(threshold):
            raise ValueError(f"Policy.relevance_threshold must be > 0; got {threshold!r}")

    @classmethod
    def trec_eval(cls, **overrides: Any) -> Policy:
        """The policy that reproduces ``trec_eval -c`` number for number.

        Groups with no relevant item score 0 and are averaged in; ties are broken by item id
        descending; average precision divides by R_g. Any field can be overridden.

        Examples
        --------
        >>> import polars_rankk as rk
        >>> rk.Policy.trec_eval(relevance_threshold=2).relevance_threshold
        2
        """
        base = {"empty_truth": "zero", "missing_groups": "zero", "ties": "trec_eval"}
        return cls(**{**base, **overrides})

    def replace(self, **changes: Any) -> Policy:
        """A copy with some fields changed.

        Examples
        --------
        >>> import polars_rankk as rk
        >>> rk.Policy().replace(gain="exponential").gain
        'exponential'
        """
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The policy as a plain dict (recorded with every result)."""
        return dataclasses.asdict(self)
