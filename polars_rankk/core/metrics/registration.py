"""Metrics users declare themselves: `register_metric`.

A registered metric is a per-rank quantity — read from each ranked row's rank, grade, gain,
relevance and judgement (`polars_rankk.core.metrics.terms.RankedRows`) — summed over the top K
(or the
whole list), and a formula that turns that sum and the group's counts into the value. It becomes
an entry of the registry like a built-in one, so `evaluate`, the expressions, summaries, K-curves,
comparisons, charts, the report, the CLI, buckets, Spark and Dask all compute it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Literal

import polars as pl

from polars_rankk.core.columns import IDEAL_DCG, INTERNAL_PREFIX, N_CANDIDATES, N_RELEVANT
from polars_rankk.core.metrics.algebra import trace
from polars_rankk.core.metrics.formulas import COLUMNS, GroupStats, cutoff
from polars_rankk.core.metrics.order import Sorted
from polars_rankk.core.metrics.parameters import CWL_MAX_GRADE, NDCG_GAIN, RBP_GRADES, Parameter
from polars_rankk.core.metrics.registry import (
    REGISTRY,
    Alias,
    Formula,
    Metric,
    Micro,
    add_metric,
    remove_metric,
)
from polars_rankk.core.metrics.terms import RankedRows, Term, term_named
from polars_rankk.core.policy import Policy

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class MetricSums:
    """One group's sums, as a registered metric's formula reads them.

    Attributes
    ----------
    total
        The metric's own per-rank quantity summed over the top K (over the whole list for a
        metric without a cut-off).
    k
        The cut-off K as a column (None for a metric without one).
    n_candidates
        The length of the ranked list.
    n_relevant
        R_g, the group's number of relevant items.
    policy
        The evaluation's `Policy`.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankk.core.metrics.formulas import COLUMNS
    >>> from polars_rankk.core.policy import Policy
    >>> from polars_rankk.core.metrics.registration import MetricSums
    >>> sums = MetricSums("_rk_metric_x", False, Policy(), 10, COLUMNS)
    >>> sums.sum("hits").meta.output_name()
    '_rk_hits@10'
    """

    def __init__(
        self, own: str, whole_list: bool, policy: Policy, k: int | None, stats: GroupStats
    ) -> None:
        self.policy = policy
        self._k = k
        self._stats = stats
        self.total: pl.Expr = stats.whole(own) if whole_list else stats.at(own, self._cutoff())
        self.k: pl.Expr | None = None if k is None else cutoff(k, stats)
        self.n_candidates: pl.Expr = stats.n_candidates
        self.n_relevant: pl.Expr = stats.n_relevant
        #: The built-in terms read through `sum` (found when the metric is registered).
        self.read: set[str] = set()

    def _cutoff(self) -> int:
        if self._k is None:
            raise ValueError("a metric without a cut-off reads its own total only")
        return self._k

    def sum(self, term: str) -> pl.Expr:
        """A built-in per-rank term summed over the top K: ``"hits"``, ``"dcg"``,
        ``"first_hit"``, ``"reciprocal_rank"``, ``"precision_sum"``, ``"judged"``, …"""
        column = term_named(term).column
        self.read.add(column)
        return self._stats.at(column, self._cutoff())

    @property
    def ideal_dcg(self) -> pl.Expr:
        """The ideal DCG at K (the DCG of the group's grades in the best order)."""
        self.read.add(IDEAL_DCG)
        return self._stats.at(IDEAL_DCG, self._cutoff())


SumsFormula = Callable[[MetricSums], pl.Expr]


#: The parameters a row's label reads (`RankedRows`): nDCG's gain, RBP's and C/W/L's.
_LABEL_PARAMETERS: dict[str, tuple[Parameter, ...]] = {
    "gain": NDCG_GAIN,
    "rbp_gain": (RBP_GRADES,),
    "cwl_gain": (CWL_MAX_GRADE,),
}


def read_parameters(labels: Iterable[str], sums: Iterable[str]) -> tuple[Parameter, ...]:
    """The parameters a metric of one's own reads: those of the row labels its per-rank term
    reads, and of the built-in metrics that read the sums its formula reads (the ideal DCG
    reads nDCG's gain), so that names carrying them are read and no evaluation part gives it
    another value of a field it reads.

    Examples
    --------
    >>> from polars_rankk.core.metrics.registration import read_parameters
    >>> [p.field for p in read_parameters(["relevant", "rbp_gain"], ["_rk_dcg"])]
    ['rbp_grades', 'gain', 'gains', 'nonrelevant_gain']
    """
    found = [parameter for label in labels for parameter in _LABEL_PARAMETERS.get(label, ())]
    for column in sums:
        if column == IDEAL_DCG:
            found += NDCG_GAIN
        for metric in REGISTRY.values():
            if metric.origin == "built-in" and column in metric.terms:
                found += metric.parameters
    keys: set[str] = set()
    chosen = []
    for parameter in dict.fromkeys(found):
        if parameter.key.lower() not in keys:  # one meaning per key (as ir_measures' names)
            keys.add(parameter.key.lower())
            chosen.append(parameter)
    return tuple(chosen)


def _probe_sums(own: str, whole_list: bool, has_k: bool, formula: SumsFormula) -> set[str]:
    """The built-in terms `formula` reads, found by building it once on column names."""
    sums = MetricSums(own, whole_list, Policy(), 1 if has_k else None, COLUMNS)
    result = formula(sums)
    if not isinstance(result, pl.Expr):
        raise TypeError(f"a metric's formula must return a pl.Expr; got {type(result).__name__}")
    return sums.read


def _probe_rows(per_rank: Callable[[RankedRows], pl.Expr]) -> RankedRows:
    """Build `per_rank` once on a sorted group, so that what it reads is known."""
    rows = RankedRows(
        Sorted(pl.col("score")),
        pl.col("grade"),
        Policy(),
        judged=pl.col("judged"),
        n_relevant=pl.col(N_RELEVANT),
        n_nonrelevant=pl.col(N_CANDIDATES),
    )
    try:
        result = per_rank(rows)
    except TypeError as error:  # Python's `if`, `and`, `or` on a Polars expression ...
        raise TypeError(
            f"per_rank could not be built on the ranked rows ({str(error).splitlines()[0]}); "
            f"it is a Polars "
            f"expression of rows.rank and the labels: write a condition as "
            f"pl.when(rows.rank == 1).then(1.0).otherwise(0.0), not Python's if/and/or"
        ) from error
    if not isinstance(result, pl.Expr):
        raise TypeError(f"per_rank must return a pl.Expr; got {type(result).__name__}")
    return rows


def _formula(own: str, whole_list: bool, user: SumsFormula) -> Formula:
    def formula(policy: Policy, k: int | None, stats: GroupStats) -> pl.Expr:
        return user(MetricSums(own, whole_list, policy, k, stats)).cast(pl.Float64)

    return formula


def register_metric(
    name: str,
    per_rank: Callable[[RankedRows], pl.Expr],
    formula: SumsFormula | None = None,
    *,
    direction: Literal["higher", "lower"] = "higher",
    has_k: bool = True,
    expected_ties: bool = False,
    sparse: bool = False,
    micro: tuple[SumsFormula, SumsFormula] | None = None,
    title: str | None = None,
    definition: str | None = None,
    citation: str = "declared with polars_rankk.register_metric",
    aliases: Iterable[str] = (),
    replace: bool = False,
) -> Metric:
    """Declare a metric of your own; `evaluate` and every other path then compute it.

    The metric sums a per-rank quantity over the top K of each group (over the whole ranked
    list when ``has_k=False``), then `formula` turns that sum and the group's counts into its
    value. The same ranking as every built-in metric (invalid scores, duplicates, ties) is used,
    and the per-group policies (empty truth, short lists) apply as they do to every metric.
    The parameters its name may carry are derived from what it reads (`read_parameters`):
    ``rows.gain`` or ``sums.ideal_dcg`` makes it take nDCG's ``dcg=``, ``gains=`` and
    ``nonrelevant_gain=``, ``sums.sum("rbp")`` RBP's ``p=``; every metric takes ``rel=`` and
    ``judged_only=``.

    Parameters
    ----------
    name
        Its canonical name: lower case letters, digits and ``_`` (the ``metric`` column).
    per_rank
        ``per_rank(rows)``: each ranked row's contribution, from ``rows.rank``,
        ``rows.grade``, ``rows.gain``, ``rows.relevant``, ``rows.judged``,
        ``rows.first_relevant`` and ``rows.n_relevant`` (`RankedRows`); ``rows.cumulative``
        is a running sum in rank order. It must be >= 0 (sums are read as running maxima).
    formula
        ``formula(sums)``: the value from a `MetricSums` — ``sums.total`` (the sum of
        `per_rank` over the top K), ``sums.sum("hits")`` and the other built-in terms,
        ``sums.k``, ``sums.n_relevant``, ``sums.n_candidates``, ``sums.ideal_dcg``. Default:
        ``sums.total``.
    direction
        ``"higher"`` or ``"lower"``: which values are better (tables, reports and charts mark
        the best accordingly).
    has_k
        Whether it takes a cut-off K.
    expected_ties
        Declare that `per_rank` is linear in the row's grade, gain, relevance, judgement and
        first-relevant flag given its rank, and `formula` affine in the sums: then
        ``Policy(ties="expected")`` computes its exact expectation over tie orderings (the row
        quantities become their expectations). Otherwise ``ties="expected"`` refuses it.
    sparse
        Declare that `per_rank` is 0 on every row without a positive grade (nor a judgement,
        if it reads one) and reads nothing else of such rows: evaluation then skips them.
    micro
        ``(numerator, denominator)``, each a formula of `MetricSums`: its micro average is
        Σ numerator / Σ denominator over groups. None: it has none.
    title, definition, citation
        How charts, reports and docs name and explain it.
    aliases
        Other names accepted for it (matched ignoring case).
    replace
        Replace a metric registered earlier under the same name.

    Returns
    -------
    Metric
        The registry entry.

    Examples
    --------
    The rank of the first relevant item within K (K + 1 when there is none); lower is better:

    >>> import polars as pl, polars_rankk as rk
    >>> entry = rk.register_metric(
    ...     "first_relevant_rank",
    ...     lambda rows: rows.first_relevant * rows.rank,
    ...     lambda sums: sums.total + (sums.k + 1) * (1 - sums.sum("first_hit")),
    ...     direction="lower", expected_ties=True, sparse=True, replace=True,
    ... )
    >>> candidates = pl.DataFrame({"q": [1, 1, 1, 2, 2], "item": [1, 2, 3, 4, 5],
    ...                            "score": [0.9, 0.8, 0.1, 0.5, 0.4]})
    >>> truth = pl.DataFrame({"q": [1, 2], "item": [2, 9]})
    >>> res = rk.evaluate(candidates, truth, k=2, metrics="first_relevant_rank", group_by="q")
    >>> res.per_group.select("q", "value").sort("q").rows()
    [(1, 2.0), (2, 3.0)]
    >>> df = pl.DataFrame({"item": [1, 2, 3], "score": [0.9, 0.8, 0.1], "rel": [0, 0, 1]})
    >>> df.select(
    ...     rk.metrics_expression("first_relevant_rank", "rel", by="score", k=3, item="item")
    ... ).item()
    3.0
    >>> rk.unregister_metric("first_relevant_rank")

    See Also
    --------
    unregister_metric : remove it again.
    metrics_expression : registered metrics as an expression.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"a metric name is lower case letters, digits and '_', starting with a letter; "
            f"got {name!r}"
        )
    if direction not in ("higher", "lower"):
        raise ValueError(f"direction must be 'higher' or 'lower'; got {direction!r}")
    existing = REGISTRY.get(name)
    if existing is not None and (existing.origin == "built-in" or not replace):
        where = "built in" if existing.origin == "built-in" else f"by {existing.origin}"
        hint = "" if existing.origin == "built-in" else " or pass replace=True"
        raise ValueError(f"a metric called {name!r} is already registered ({where}){hint}")
    column = f"{INTERNAL_PREFIX}metric_{name}"
    row_column = f"{INTERNAL_PREFIX}term_metric_{name}"
    declared = trace(per_rank)
    if declared is not None:
        # Labels times weights of the rank: a term as data, which the kernel computes too.
        term = Term.of_linear(
            name,
            lambda policy: declared,
            column=column,
            row_column=row_column,
            whole_list=not has_k,
            expected=expected_ties,
        )
    else:
        rows = _probe_rows(per_rank)
        term = Term(
            name=name,
            column=column,
            row_column=row_column,
            deterministic=per_rank,
            expected=per_rank if expected_ties else None,
            judged="judged" in rows.reads,
            whole_list=not has_k,
            counts=("n_relevant",) if "n_relevant" in rows.reads else (),
            sparse=sparse,
        )
    labels = declared.labels if declared is not None else rows.reads
    user_formula: SumsFormula = formula if formula is not None else (lambda sums: sums.total)
    read = _probe_sums(column, not has_k, has_k, user_formula)
    micro_form = None
    if micro is not None:
        numerator, denominator = micro
        read |= _probe_sums(column, not has_k, has_k, numerator)
        read |= _probe_sums(column, not has_k, has_k, denominator)
        micro_form = Micro.ratio(
            _formula(column, not has_k, numerator), _formula(column, not has_k, denominator)
        )
    metric = Metric(
        name=name,
        title=title or (f"{name}@K" if has_k else name),
        definition=definition or f"{name}, declared with rk.register_metric",
        citation=citation,
        direction=direction,
        has_k=has_k,
        terms=(column, *sorted(read - {IDEAL_DCG})),
        formula=_formula(column, not has_k, user_formula),
        parameters=read_parameters(labels, read),
        micro=micro_form,
        aliases=tuple(Alias(alias, "alias", has_k) for alias in aliases),
        own_terms=(term,),
        origin=_caller_module(),
    )
    add_metric(metric, replace=replace)
    return metric


def _caller_module() -> str:
    import inspect

    frame = inspect.currentframe()
    caller = frame.f_back.f_back if frame is not None and frame.f_back is not None else None
    module = None if caller is None else caller.f_globals.get("__name__")
    return str(module or "run time")


def ensure_registered(metrics: Iterable[Metric]) -> None:
    """Register `metrics` (entries shipped to another process) where they are missing."""
    for metric in metrics:
        if metric.name not in REGISTRY:
            add_metric(metric)


def declared_at_run_time(names: Iterable[str]) -> tuple[Metric, ...]:
    """The entries among `names` registered at run time (a worker process may lack them)."""
    return tuple(REGISTRY[name] for name in names if REGISTRY[name].origin != "built-in")


def unregister_metric(name: str) -> None:
    """Remove a metric registered with `register_metric` (built-in metrics stay).

    Parameters
    ----------
    name
        The metric's canonical name.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> _ = rk.register_metric("rank_sum", lambda rows: rows.relevant * rows.rank, sparse=True)
    >>> "rank_sum" in rk.METRICS
    True
    >>> rk.unregister_metric("rank_sum")
    >>> "rank_sum" in rk.METRICS
    False
    """
    remove_metric(name)


#: The entry point group under which installed packages declare metrics (a module or callable
#: that registers them when loaded).
ENTRY_POINT_GROUP = "polars_rankk.metrics"


def load_metric_entry_points() -> list[str]:
    """Load every ``polars_rankk.metrics`` entry point (each registers its metrics); return
    their names. A failing entry point raises an ImportError naming it."""
    from importlib.metadata import entry_points

    loaded = []
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = entry.load()
        except Exception as error:
            message = f"metric entry point {entry.name!r} ({entry.value}): {error}"
            raise ImportError(message) from error
        if callable(target):
            target()
        loaded.append(entry.name)
    return loaded
