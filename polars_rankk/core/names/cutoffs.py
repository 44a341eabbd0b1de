"""The cut-offs an evaluation reads: the names' own, and the default K only where a name needs
one.

A name that carries its cut-off (``P@5``, ``ndcg_cut_10``, ``R@1000``) or names the whole list
(``map``, ``RR``) or a measure without a K (``bpref``) needs no K of the evaluation's: when
every name asked is such a name and no K is given, the default K is not added (``R@1000``
alone is evaluated at 1000 only). A K given (``k=10``, ``--k 10``) is always evaluated, and
so is the default K when some name is read at the evaluation's K (``ndcg``, ``P``).
"""

from __future__ import annotations

from collections.abc import Iterable

from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.request import Request


def needs_k(request: Request) -> bool:
    """Whether some measure of `request` is read at the evaluation's K (the default metrics
    are).

    Examples
    --------
    >>> from polars_rankk.core.names.cutoffs import needs_k
    >>> from polars_rankk.core.names.request import Request
    >>> needs_k(Request.of(["R@1000", "map", "bpref"])), needs_k(Request.of(["ndcg", "P@5"]))
    (False, True)
    """
    if request.default:
        return True
    return any(
        m.k is None and not m.whole_list and REGISTRY[m.metric].has_k for m in request.measures
    )


def asked_ks(
    k: int | Iterable[int] | None, request: Request, default: Iterable[int]
) -> tuple[int, ...] | int | Iterable[int]:
    """The cut-offs to evaluate before the names' own are added: `k` when given, else
    `default` when a name needs the evaluation's K (`needs_k`), else the names' cut-offs
    alone (`default` when they carry none: ``map`` alone).

    Examples
    --------
    >>> from polars_rankk.core.names.cutoffs import asked_ks
    >>> from polars_rankk.core.names.request import Request
    >>> asked_ks(None, Request.of(["R@1000"]), (10,)), asked_ks(None, Request.of("ndcg"), (10,))
    ((1000,), (10,))
    >>> asked_ks(10, Request.of(["R@1000"]), (5, 10, 20))
    10
    """
    if k is not None:
        return k
    if needs_k(request) or not request.ks:
        return tuple(default)
    return request.ks
