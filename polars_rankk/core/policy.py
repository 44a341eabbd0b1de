"""`Policy`: every definitional choice of an evaluation, in one frozen object.

What each choice means: docs/definitions.md §3.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, get_args

from polars_rankk.core.types import (
    AveragePrecisionDenominator,
    DuplicatePolicy,
    EmptyTruthPolicy,
    FractionalGradePolicy,
    GainMap,
    GainPolicy,
    InvalidScorePolicy,
    MissingGroupPolicy,
    NegativeGradePolicy,
    NonrelevantGainPolicy,
    PoolPolicy,
    RbpGradePolicy,
    ShortListPolicy,
    TiePolicy,
    UnjudgedPolicy,
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
    "unjudged": get_args(UnjudgedPolicy),
    "negative_grades": get_args(NegativeGradePolicy),
    "rbp_grades": get_args(RbpGradePolicy),
    "nonrelevant_gain": get_args(NonrelevantGainPolicy),
    "fractional_grades": get_args(FractionalGradePolicy),
}

#: The mark of a field that decides the ranking: which candidate rows are ranked and in what
#: order (`ORDERING_FIELDS`). Every other field is a label field: it changes what a ranked row
#: counts for (relevance, gain, a measure's parameter) or which groups a table keeps, not the
#: ranking, so that names differing only in label fields share one ranking pass.
_ORDERS: Final = MappingProxyType({"orders": True})

#: One line per policy field, shown by ``rankk --help`` and in the policy table of docs/policies.md.
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
    "gain": "nDCG gain of a grade: the grade ('linear', trec_eval), 2^grade - 1 "
    "('exponential'), or 1 when grade >= relevance_threshold else 0 ('binary')",
    "invalid_scores": "null/NaN/inf scores: raise ('error'), drop the rows ('drop'), or rank "
    "them last ('lowest')",
    "unjudged": "candidates without any judgement in the truth: rank them ('keep') or remove "
    "them before ranking ('condense', Sakai's condensed lists, ir_measures judged_only=True)",
    "rbp_persistence": "rbp@K's persistence p, the chance a user goes on to the next rank "
    "(default 0.8)",
    "err_max_grade": "err@K's highest grade g_max: a grade g stops the user with chance "
    "(2^g - 1) / 2^g_max (default 4, as gdeval; higher grades count as g_max)",
    "negative_grades": "a truth grade below 0: a judged non-relevant item ('nonrelevant', "
    "ir_measures Judged) or no judgement at all ('unjudged', trec_eval: -J drops it, bpref and "
    "infAP skip it)",
    "f_beta": "F's beta (van Rijsbergen): recall weighs beta times as much as precision, "
    "F = (1 + beta^2) P R / (beta^2 P + R) (default 1; trec_eval set_F.x has x = beta^2)",
    "gains": "nDCG gain of listed grades, e.g. '0:1,1:4' (trec_eval / ir_measures "
    "nDCG(gains=...)); grades not listed keep the 'gain' rule",
    "rbp_grades": "rbp@K weighs a relevant rank by 1 ('binary') or by its grade ('graded', "
    "ranx rbp and ir_measures RBP without rel=)",
    "diversity_alpha": "the subtopic metrics' redundancy penalty alpha: an item's gain for a "
    "subtopic shrinks by (1 - alpha) per earlier item covering it (alpha-nDCG, ERR-IA, NRBP; "
    "default 0.5, as ndeval)",
    "nrbp_beta": "NRBP's patience beta, the weight of each next rank (default 0.5, as ndeval)",
    "q_beta": "the Q-measure's beta >= 0, the weight of cumulative gain against rank in its "
    "blended ratio (Sakai 2004; default 1; 0 gives average precision)",
    "compat_persistence": "Compat's RBO persistence p, 0 < p < 1 (Clarke, Vtyurina & Smucker "
    "2020; ir_measures Compat(p=...), default 0.95)",
    "nonrelevant_gain": "nDCG gain of grades below relevance_threshold: their own ('grade', "
    "trec_eval) or none ('zero', so the ideal ranks only grades at or above it: ranx ndcg@k-lN)",
    "cwl_target": "the C/W/L measures' target T, the total gain a user wants (INST, INSQ, BPM, "
    "NERR11; ir_measures T=, default 1)",
    "cwl_max_grade": "the C/W/L measures' gain of a grade g: min(max(g, 0), this) / this "
    "(cwl_eval's gains in [0, 1]; ir_measures max_rel=, default 1)",
    "fractional_grades": "grades that are not integers: 'keep' them as given, or 'truncate' "
    "them toward zero as trec_eval reads a grade (0.5 is 0, 1.7 is 1)",
}


@dataclass(frozen=True)
class Policy:
    """Every definitional choice of an evaluation, validated on construction (definitions §3).

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
        nDCG gain: the grade (``"linear"``), ``2**grade - 1`` (``"exponential"``), or
        ``"binary"``: 1 when ``grade >= relevance_threshold``, else 0. Under ``"linear"`` and
        ``"exponential"`` the threshold decides only which items are relevant (precision,
        recall, R_g ...), not their gain: trec_eval's rule, so with ``relevance_threshold=4``
        a grade-3 item still earns nDCG gain. ``"binary"`` makes nDCG agree with the binary
        metrics, as RecBole and Microsoft Recommenders compute it.
    invalid_scores
        Null, NaN or infinite scores: ``"error"``, ``"drop"`` the rows, or rank them
        ``"lowest"``.
    unjudged
        Candidates with no judgement in the truth (no truth row at all, whatever its grade):
        ``"keep"`` ranks them as non-relevant; ``"condense"`` removes them before ranking, for
        every metric (Sakai's condensed lists, SIGIR 2007; ir_measures ``judged_only=True``,
        trec_eval ``-J``). Pre-labelled candidates are all judged.
    rbp_persistence
        ``rbp``'s persistence p in (0, 1): the chance that a user goes on from one rank to the
        next (Moffat & Zobel, TOIS 2008). Default 0.8.
    err_max_grade
        ``err``'s highest grade g_max > 0: a grade g stops the user with chance
        (2^g - 1) / 2^g_max (Chapelle et al., CIKM 2009). Default 4, the highest grade of the
        TREC Web track's gdeval; grades above it count as g_max.
    negative_grades
        A truth grade below 0: ``"nonrelevant"`` counts it as a judged non-relevant item (as
        ir_measures' ``Judged`` does); ``"unjudged"`` as no judgement at all, trec_eval's rule
        (``form_res_rels.c``): ``-J`` / ``unjudged="condense"`` removes it, bpref and judged@K
        skip it. Metrics that never look at judgements give the same number either way.
    f_beta
        F's beta > 0 (van Rijsbergen 1979): F = (1 + beta^2) P R / (beta^2 P + R), recall
        weighing beta times as much as precision. Default 1 (F1). trec_eval's ``set_F.x``
        (and ir_measures' ``SetF(beta=x)``) compute (1 + x) P R / (x P + R): x = beta^2.
    gains
        The nDCG gain of listed grades, as a mapping ``{grade: gain}`` (trec_eval's and
        ir_measures' ``nDCG(gains={0: 1, 1: 4})``); a grade not listed keeps the ``gain`` rule.
        Stored as sorted ``(grade, gain)`` pairs.
    rbp_grades
        ``"binary"``: rbp@K weighs each relevant rank by 1 (Moffat & Zobel); ``"graded"``: by
        its grade, 0 below the relevance threshold (ranx ``rbp``, ir_measures ``RBP`` without
        ``rel=``).
    nonrelevant_gain
        ``"grade"``: a grade below ``relevance_threshold`` keeps its gain (trec_eval);
        ``"zero"``: it gains nothing, so the ideal DCG ranks only grades at or above the
        threshold (ranx ``ndcg@k-lN``).
    cwl_target
        The C/W/L measures' target T > 0: the total gain a user wants (INST, INSQ, BPM and
        NERR11; Moffat, Bailey, Scholer & Thomas 2017). Default 1, as ir_measures' ``T``.
    cwl_max_grade
        The C/W/L measures' gain scale M > 0: a grade g gains min(max(g, 0), M) / M, in
        [0, 1] as cwl_eval requires (ir_measures' ``max_rel``). Default 1.
    fractional_grades
        ``"keep"``: a grade is read as given (0.5 stays 0.5); ``"truncate"``: a fractional
        grade of the truth (or of labelled candidates) is truncated toward zero first, as
        trec_eval reads a grade (0.5 is 0, 1.7 is 1, -1.5 is -1; ``Policy.trec_eval()``). The
        diagnostics count the grades truncated.
    diversity_alpha
        The subtopic metrics' redundancy penalty alpha (``alpha_ndcg``, ``err_ia``,
        ``nerr_ia``, ``nrbp``): an item's gain for a subtopic is (1 - alpha)^c, c the items
        ranked above it covering that subtopic (ndeval's ``-alpha``, ir_measures ``alpha=``).
    nrbp_beta
        NRBP's patience beta (ndeval's ``-beta``, ir_measures ``NRBP(beta=...)``).
    q_beta
        The Q-measure's beta >= 0 (Sakai 2004): the weight of the cumulative gain in its
        blended ratio (C(r) + beta cg(r)) / (r + beta cg*(r)). Default 1; 0 gives AP.
    compat_persistence
        Compat's persistence p, 0 < p < 1: the RBO weight p^(i-1) of depth i (Clarke,
        Vtyurina & Smucker 2020; ir_measures ``Compat(p=...)``). Default 0.95.

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

    # The fields marked `_ORDERS` decide the ranking (read from `prepare.py` and the kernel's
    # `rank.rs`): duplicates and invalid_scores which rows are ranked, ties their order;
    # unjudged, negative_grades and fractional_grades which rows a condensed list keeps and the
    # grades relevance-aware ties order by; gains the grade an unjudged row ranks with there.
    # The relevance threshold, the gain rule and every measure's parameter only read the
    # ranked rows; the pool restricts the truth to items ranked either way.
    short_lists: ShortListPolicy = "fixed"
    ap_denominator: AveragePrecisionDenominator = "relevant"
    duplicates: DuplicatePolicy = field(default="first", metadata=_ORDERS)
    ties: TiePolicy = field(default="trec_eval", metadata=_ORDERS)
    empty_truth: EmptyTruthPolicy = "exclude"
    missing_groups: MissingGroupPolicy = "zero"
    pool: PoolPolicy = "all"
    relevance_threshold: float = 1
    gain: GainPolicy = "linear"
    invalid_scores: InvalidScorePolicy = field(default="error", metadata=_ORDERS)
    unjudged: UnjudgedPolicy = field(default="keep", metadata=_ORDERS)
    rbp_persistence: float = 0.8
    err_max_grade: float = 4
    negative_grades: NegativeGradePolicy = field(default="nonrelevant", metadata=_ORDERS)
    f_beta: float = 1
    gains: GainMap | Mapping[float, float] | None = field(default=None, metadata=_ORDERS)
    rbp_grades: RbpGradePolicy = "binary"
    nonrelevant_gain: NonrelevantGainPolicy = "grade"
    cwl_target: float = 1
    cwl_max_grade: float = 1
    diversity_alpha: float = 0.5
    nrbp_beta: float = 0.5
    q_beta: float = 1
    compat_persistence: float = 0.95
    fractional_grades: FractionalGradePolicy = field(default="keep", metadata=_ORDERS)

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
        _check_number("rbp_persistence", self.rbp_persistence, upper=1.0)
        _check_number("err_max_grade", self.err_max_grade, upper=math.inf)
        _check_number("f_beta", self.f_beta, upper=math.inf)
        _check_number("cwl_target", self.cwl_target, upper=math.inf)
        _check_number("cwl_max_grade", self.cwl_max_grade, upper=math.inf)
        _check_share("diversity_alpha", self.diversity_alpha)
        _check_share("nrbp_beta", self.nrbp_beta)
        _check_non_negative("q_beta", self.q_beta)
        _check_number("compat_persistence", self.compat_persistence, upper=1.0)
        if self.gains is not None:
            object.__setattr__(self, "gains", _gain_pairs(self.gains))

    def gain_map(self) -> dict[float, float]:
        """`gains` as a dict (empty when no grade is mapped).

        Examples
        --------
        >>> import polars_rankk as rk
        >>> rk.Policy(gains={1: 4, 0: 1}).gain_map()
        {0.0: 1.0, 1.0: 4.0}
        """
        if self.gains is None:
            return {}
        return {float(grade): float(gain) for grade, gain in _gain_pairs(self.gains)}

    @classmethod
    def trec_eval(cls, **overrides: Any) -> Policy:
        """The policy that reproduces ``trec_eval -c`` number for number.

        Groups with no relevant item score 0 and are averaged in; ties are broken by item id
        descending; average precision divides by R_g; a negative grade is unjudged; RBP's
        persistence is trec_eval's 0.9. Any field can be overridden.

        trec_eval reads a grade as an integer (0.5 is 0, 1.7 is 1): fractional grades are
        truncated toward zero (``fractional_grades="truncate"``), counted in the diagnostics
        and said by ``rankk --trec-eval``.

        Examples
        --------
        >>> import polars_rankk as rk
        >>> rk.Policy.trec_eval(relevance_threshold=2).relevance_threshold
        2
        """
        base = {
            "empty_truth": "zero",
            "missing_groups": "zero",
            "ties": "trec_eval",
            "negative_grades": "unjudged",
            "rbp_persistence": 0.9,  # m_rbp.c, m_rbp_resid.c
            "fractional_grades": "truncate",  # trec_eval reads a grade with atoi
        }
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

    def ordering(self) -> tuple[object, ...]:
        """The values of the fields that decide the ranking (`ORDERING_FIELDS`): two policies
        with equal orderings rank every group alike.

        Examples
        --------
        >>> import polars_rankk as rk
        >>> rk.Policy(relevance_threshold=2).ordering() == rk.Policy().ordering()
        True
        >>> rk.Policy(ties="item_asc").ordering() == rk.Policy().ordering()
        False
        """
        return tuple(getattr(self, name) for name in ORDERING_FIELDS)

    def to_dict(self) -> dict[str, Any]:
        """The policy as a plain dict (recorded with every result)."""
        return dataclasses.asdict(self)


#: The fields that decide which candidate rows are ranked and in what order, declared on the
#: fields themselves (`_ORDERS`); every other field is a label field.
ORDERING_FIELDS: Final = tuple(
    declared.name for declared in dataclasses.fields(Policy) if declared.metadata.get("orders")
)


def _gain_pairs(gains: object) -> GainMap:
    """A grade -> gain mapping (or pairs) as sorted pairs of finite floats."""
    try:
        pairs: Iterable[Any] = gains.items() if isinstance(gains, Mapping) else gains  # type: ignore[assignment]
        items = [(grade, gain) for grade, gain in pairs]
    except (TypeError, ValueError):
        raise TypeError(
            f"Policy.gains must map grades to gains, like {{0: 1, 1: 4}}; got {gains!r}"
        ) from None
    out: dict[float, float] = {}
    for grade, gain in items:
        for what, value in (("grade", grade), ("gain", gain)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"Policy.gains: every {what} must be a number; got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"Policy.gains: every {what} must be finite; got {value!r}")
        out[float(grade)] = float(gain)
    if not out:
        raise ValueError("Policy.gains is empty; leave it None to use the gain rule alone")
    return tuple(sorted(out.items()))


def parse_gains(text: str) -> GainMap:
    """``"0:1,1:4"`` (the ``--gains`` option) as grade -> gain pairs.

    Examples
    --------
    >>> from polars_rankk.core.policy import parse_gains
    >>> parse_gains("0:1, 1:4")
    ((0.0, 1.0), (1.0, 4.0))
    """
    pairs = []
    for part in text.strip().strip("{}").split(","):
        grade, separator, gain = part.partition(":")
        try:
            if not separator:
                raise ValueError
            pairs.append((float(grade), float(gain)))
        except ValueError:
            raise ValueError(
                f"gains must read grade:gain pairs like '0:1,1:4'; got {part.strip()!r}"
            ) from None
    return _gain_pairs(pairs)


def _check_share(name: str, value: object) -> None:
    """A number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Policy.{name} must be a number; got {type(value).__name__}")
    if not 0 <= value <= 1:
        raise ValueError(f"Policy.{name} must be >= 0 and <= 1; got {value!r}")


def _check_non_negative(name: str, value: object) -> None:
    """A finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Policy.{name} must be a number; got {type(value).__name__}")
    if not 0 <= value < math.inf:
        raise ValueError(f"Policy.{name} must be a finite number >= 0; got {value!r}")


def _check_number(name: str, value: object, *, upper: float) -> None:
    """A number strictly between 0 and `upper`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Policy.{name} must be a number; got {type(value).__name__}")
    if not 0 < value < upper:
        bound = "" if math.isinf(upper) else f" and < {upper:g}"
        raise ValueError(f"Policy.{name} must be > 0{bound}; got {value!r}")
