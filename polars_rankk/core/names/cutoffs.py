"""The cut-offs an evaluation reads: the names' own, and the default K only where a name needs
one.

A name that carries its cut-off (``P@5``, ``ndcg_cut_10``, ``R@1000``) or names the whole list
(``map``, ``RR``) or a measure without a K (``bpref``) needs no K of the evaluation's: when
every name asked is such a name and no K is given, the default K is not added (``R@1000``
alone is evaluated at 1000 only). A K given (``k=10``, ``--k 10``) is always evaluated, and
so is the default K when some name is read at the evaluation's K (``ndcg``, ``P``).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.request import Request

#: The evaluation's K when none is given and a name is read at it (`evaluate`'s k=10).
DEFAULT_K = (10,)


def normalize_k(value: object, name: str = "k") -> int:
    """One cut-off as a Python int >= 1.

    Any integer scalar is accepted — ``int``, ``numpy.int64``, a 0-d integer array (anything
    ``operator.index`` takes); bools and floats, even ``5.0``, raise a TypeError.

    Examples
    --------
    >>> import numpy as np
    >>> from polars_rankk.core import normalize_k
    >>> normalize_k(np.int64(5))
    5
    >>> normalize_k(5.0)
    Traceback (most recent call last):
    ...
    TypeError: k must be an int >= 1; got 5.0 (float); pass the int 5
    """
    dtype = getattr(value, "dtype", None)
    is_bool = isinstance(value, bool) or getattr(dtype, "kind", None) == "b"
    try:
        number = None if is_bool else operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        number = None
    if number is None:
        hint = ""
        if isinstance(value, float) and value.is_integer():
            hint = f"; pass the int {int(value)}"
        raise TypeError(f"{name} must be an int >= 1; got {value!r} ({type(value).__name__}){hint}")
    if number <= 0:
        raise ValueError(f"{name} must be an int >= 1; got {number}")
    return number


def normalize_ks(k: int | Iterable[int]) -> tuple[int, ...]:
    """Cut-offs as a sorted tuple of distinct positive ints.

    ``k`` is one integer scalar (see `normalize_k`) or an iterable of them: a list, a range,
    a ``numpy`` array (``np.arange(1, 11)``), a ``pl.Series``.

    Examples
    --------
    >>> import numpy as np
    >>> from polars_rankk.core import normalize_ks
    >>> normalize_ks(np.arange(1, 4)), normalize_ks(np.int64(5)), normalize_ks([10, 5, 10])
    ((1, 2, 3), (5,), (5, 10))
    """
    if isinstance(k, (str, bytes)):
        raise TypeError(f"k must be an int or a list of ints; got {k!r}")
    if not isinstance(k, Iterable) or getattr(k, "ndim", None) == 0:
        return (normalize_k(k),)
    values = list(k)
    if not values:
        raise ValueError("k must name at least one cut-off, e.g. k=10 or k=[5, 10]")
    return tuple(sorted({normalize_k(value, "every k") for value in values}))


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
