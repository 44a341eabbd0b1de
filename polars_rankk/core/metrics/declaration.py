"""What a metric declaration holds: `Metric`, its micro form `Micro` and its spellings `Alias`.

The built-in declarations and the registry that holds them are in
`polars_rankk.core.metrics.registry`; `polars_rankk.register_metric` adds a user's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import polars as pl

from polars_rankk.core.metrics import terms as term_table
from polars_rankk.core.metrics.formulas import COLUMNS, GroupStats, safe_ratio
from polars_rankk.core.metrics.parameters import GENERAL, PARAMETER_FIELDS, SHARED_FIELDS, Parameter
from polars_rankk.core.metrics.summed import summed_form
from polars_rankk.core.policy import Policy

__all__ = [
    "GEOMETRIC_FLOOR",
    "Aggregate",
    "Alias",
    "Direction",
    "Formula",
    "Kind",
    "Metric",
    "Micro",
    "MicroSums",
    "Parameter",
]

Kind = Literal["accuracy", "beyond_accuracy", "catalogue", "diversity"]
Direction = Literal["higher", "lower"]
#: How a metric's per-group values are averaged over groups (`Metric.aggregate`).
Aggregate = Literal["mean", "geometric"]
#: The least value a geometric mean reads (trec_eval's MIN_GEO_MEAN, trec_eval.h): a 0 would
#: make the mean 0 whatever the other groups score.
GEOMETRIC_FLOOR = 0.00001
#: ``formula(policy, k, stats)``: a metric's value from one group's statistics.
Formula = Callable[[Policy, int | None, GroupStats], pl.Expr]
#: ``sums(policy, k, stats)``: the per-group quantities a micro average sums over groups.
MicroSums = Callable[[Policy, int | None, GroupStats], dict[str, pl.Expr]]


@dataclass(frozen=True)
class Alias:
    """A spelling another tool gives a metric (matched ignoring case).

    ``cut``: whether that tool writes a cut-off after it (``P@5``, ``P_5``); ``whole_list``:
    whether that tool reads the spelling without a cut-off as the whole ranked list
    (trec_eval's ``map``, ir_measures' ``AP``), which is then what it names."""

    spelling: str
    tool: Literal["ir_measures", "trec_eval", "alias"]
    cut: bool
    whole_list: bool = False


@dataclass(frozen=True)
class Micro:
    """A micro average: per-group quantities summed over the groups that count, then combined.

    Attributes
    ----------
    sums
        ``sums(policy, k, stats)``: named per-group quantities (``{"hits": …, "relevant": …}``).
    value
        ``value(totals)``: the average from those quantities summed over groups (plus
        ``"n_groups"``, the number of groups counted); NaN where it divides by zero.
    """

    sums: MicroSums
    value: Callable[[Mapping[str, pl.Expr]], pl.Expr]

    @classmethod
    def ratio(cls, numerator: Formula, denominator: Formula) -> Micro:
        """Σ numerator / Σ denominator over groups."""
        return cls(
            sums=lambda policy, k, stats: {
                "numerator": numerator(policy, k, stats),
                "denominator": denominator(policy, k, stats),
            },
            value=lambda total: safe_ratio(total["numerator"], total["denominator"]),
        )


@dataclass(frozen=True)
class Metric:
    """One metric: what it is, how it is named, and how it is computed.

    Attributes
    ----------
    name
        The canonical snake_case name used in every output (``metric`` column).
    title
        How charts and reports title it (``"nDCG@K"``).
    definition
        One line: what it measures, with its reference convention.
    citation
        Where the definition comes from.
    kind
        ``"accuracy"``: one value per group from relevance, by `formula`;
        ``"beyond_accuracy"``: one value per group from the top-K items and item tables
        (`polars_rankk.core.evaluation.beyond_accuracy`); ``"catalogue"``: one value per K over
        all lists,
        in ``Evaluation.catalogue``; ``"diversity"``: one value per group from subtopic
        judgements (`polars_rankk.core.evaluation.diversity`).
    direction
        ``"higher"`` or ``"lower"``: which values are better (tables and charts mark the best).
    has_k
        Whether it takes a cut-off K (``r_precision`` cuts at R_g instead).
    terms
        The per-rank terms it reads, by cumulated column (`polars_rankk.core.metrics.terms.TERMS`).
    counts
        Per-group counts it reads besides the list length and R_g: ``"hits_at_r"`` (hits within
        the first R_g ranks, read over the whole list).
    formula
        ``formula(policy, k, stats)``: its value from a group's statistics (k is None for a
        metric without a cut-off); see `value`. None for a beyond-accuracy or catalogue metric.
    micro
        Its micro average, or None when it has none.
    trec_eval, ir_measures
        How it is written back in trec_eval's and ir_measures' style, ``{k}`` standing for the
        cut-off and ``{p}`` for RBP's persistence; None where that tool lacks it.
    aliases
        The spellings accepted for it besides its name (ir_measures, trec_eval, aliases).
    divides_by_relevant
        Whether its value divides by R_g: it scores 0 on groups without a relevant item under
        ``Policy(empty_truth="zero")``.
    discrete
        Whether every per-group value is 0 or 1 (charts show the share of each value).
    default
        Whether ``metrics=None`` evaluates it.
    requires
        The `evaluate` inputs besides the ranking it reads (``"popularity"``,
        ``"item_features"``, ``"subtopic"``).
    aggregate
        How ``summary()`` averages it over groups: ``"mean"`` (the macro mean), or
        ``"geometric"``: exp of the mean of log(max(value, `GEOMETRIC_FLOOR`)), trec_eval's
        geometric mean (``gm_map``, ``gm_bpref``; meas_avg.c ``te_calc_avg_meas_s_gm``).
    per_group_as
        The metric whose value per group this one's is, where its summary alone differs
        (``gm_average_precision``: AP's, averaged geometrically); None for a value of its own.
    deep
        Whether its value over the whole list (a whole-list spelling such as trec_eval's
        ``map``, or no cut-off at all) is the value its sum over ranks takes at any cut-off
        past the list's end and past the group's relevant count: no term reads the cut-off
        itself (AP, RR, recall, nDCG, binG; not precision, which divides by K).
    parameters
        Its own parameters (`polars_rankk.core.metrics.parameters`): the Policy fields it reads
        besides those every metric reads, each settable in its name (``RBP(p=0.9)``). An
        accuracy or subtopic metric also takes the general ones (``rel``, ``judged_only``):
        `takes`. A tool's spelling that assumes another default than ``Policy()`` declares it
        on the parameter (`Parameter.tool_default`), in the order that tool writes them.
    """

    name: str
    title: str
    definition: str
    citation: str
    kind: Kind = "accuracy"
    direction: Direction = "higher"
    has_k: bool = True
    terms: tuple[str, ...] = ()
    counts: tuple[str, ...] = ()
    formula: Formula | None = None
    micro: Micro | None = None
    trec_eval: str | None = None
    ir_measures: str | None = None
    aliases: tuple[Alias, ...] = ()
    divides_by_relevant: bool = False
    discrete: bool = False
    default: bool = False
    requires: tuple[str, ...] = ()
    aggregate: Aggregate = "mean"
    per_group_as: str | None = None
    deep: bool = False
    parameters: tuple[Parameter, ...] = ()
    #: Per-rank terms it brings into the term table (a metric declared at run time).
    own_terms: tuple[term_table.Term, ...] = ()
    #: Where it was declared: ``"built-in"``, or the module that registered it.
    origin: str = field(default="built-in", compare=False)

    def __post_init__(self) -> None:
        if (self.formula is None) == (self.kind == "accuracy"):
            raise ValueError(
                f"metric {self.name!r}: an accuracy metric has a formula, a beyond-accuracy or "
                f"catalogue metric none"
            )
        if self.kind != "accuracy" and (self.terms or self.micro):
            raise ValueError(f"metric {self.name!r}: only accuracy metrics read per-rank terms")
        stray = [p.field for p in self.parameters if p.field not in PARAMETER_FIELDS]
        if stray:
            raise ValueError(
                f"metric {self.name!r}: {stray} are read by every metric, not parameters of "
                f"its own; its own parameters set {sorted(PARAMETER_FIELDS)}"
            )
        keys = [p.key.lower() for p in self.takes]
        if len(set(keys)) < len(keys):
            raise ValueError(f"metric {self.name!r}: two parameters share a key in {keys}")

    @property
    def accuracy(self) -> bool:
        """Whether it is computed from relevance by `formula`."""
        return self.kind == "accuracy"

    @property
    def takes(self) -> tuple[Parameter, ...]:
        """Every parameter its name may carry: the general ones (for an accuracy or subtopic
        metric) and its own."""
        general = GENERAL if self.kind in ("accuracy", "diversity") else ()
        return (*general, *self.parameters)

    @property
    def reads(self) -> frozenset[str]:
        """The Policy fields its value depends on: those every metric reads and its own
        parameters' (a field outside it does not change its number)."""
        return SHARED_FIELDS | {parameter.field for parameter in self.parameters}

    @property
    def level(self) -> Literal["group", "catalogue"]:
        """``"group"``: one value per group (and K), in ``per_group``; ``"catalogue"``: one
        value per K over all lists, in ``Evaluation.catalogue``."""
        return "catalogue" if self.kind == "catalogue" else "group"

    @property
    def higher_is_better(self) -> bool:
        """Whether larger values are better."""
        return self.direction == "higher"

    @property
    def needs(self) -> tuple[str, ...]:
        """The cumulated per-rank terms it reads (another name for `terms`)."""
        return self.terms

    @property
    def rank_summed(self) -> bool:
        """Whether K-curves sum it over ranks (`polars_rankk.stats.rank_sums`) under the default
        policy: derived from its formula (`polars_rankk.core.metrics.summed`), never declared —
        a formula that depends on K only through its terms, or that is linear in them."""
        if self.formula is None or not self.has_k or self.aggregate != "mean":
            # A curve of means over groups: a geometric summary (gm_map) is evaluated at each K.
            return False
        return summed_form(self.formula, self.terms, Policy()) is not None

    @property
    def supports_expected_ties(self) -> bool:
        """Whether ``Policy(ties="expected")`` can evaluate it exactly (every term it reads has
        an expectation over tie orderings)."""
        return not term_table.unsupported_under_expected(self.terms)

    @property
    def function_name(self) -> str:
        """The name of its expression function (``precision_at_k``, ``r_precision``)."""
        return f"{self.name}_at_k" if self.has_k else self.name

    def value(self, policy: Policy, k: int | None, stats: GroupStats = COLUMNS) -> pl.Expr:
        """Its value at cut-off `k` from a group's statistics (default: the prepared table's
        columns), before the per-group policies (`polars_rankk.core.metrics.formulas.finished`)."""
        if self.kind == "diversity":
            raise ValueError(
                f"{self.name} is a subtopic metric: rk.evaluate(..., subtopic=...) computes it "
                f"from judgements per subtopic (polars_rankk.core.evaluation.diversity)"
            )
        if self.formula is None:
            raise ValueError(
                f"{self.name} is a {self.kind.replace('_', '-')} metric: rk.evaluate computes it "
                f"from the top-K items (and popularity= / item_features=), not from relevance"
            )
        if self.has_k and k is None:
            raise ValueError(f"{self.name} needs a cut-off k")
        return self.formula(policy, k, stats)

    def trec_eval_name(self, k: int | None = None) -> str | None:
        """Its trec_eval measure name at cut-off `k` (``P_10``), or None if trec_eval lacks it."""
        return None if self.trec_eval is None else self.trec_eval.format(k=k)

    def ir_measures_name(self, k: int | None = None, policy: Policy | None = None) -> str | None:
        """Its ir_measures name at cut-off `k` (``P@10``), or None if ir_measures lacks it;
        a parameter of the name (RBP's ``p``) is read from `policy`."""
        if self.ir_measures is None:
            return None
        persistence = (Policy() if policy is None else policy).rbp_persistence
        return self.ir_measures.format(k=k, p=persistence)

    def column(self, k: int | None) -> str:
        """Name of its wide per-group column: ``name@k``, or ``name`` without a cut-off."""
        return self.name if k is None or not self.has_k else f"{self.name}@{k}"
