"""MaxP of a passage run by a delimiter on the compiled kernel (``native/src/documents.rs``).

Each group's passages are read where they lie (rows that come grouped are read run by run,
no record gathered), each passage's document its id up to the delimiter, hashed in place;
a document's best passage score stands for it; each group's documents are ranked by score
and the policy's tie order (``trec_eval`` or ``item_asc``), groups in the order of their
keys. The run's values are checked in the same scan: a refused row ends the call with a
`KernelRefusal`, which names each check, how many rows fail it and the first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel.call import Call
from polars_rankk.core.kernel.ranking import READ
from polars_rankk.core.policy import Policy

_DOCUMENTS = "_rk_documents"
#: The kernel's refusal (``documents.rs``' ``REFUSED``), then ``check=count@first_row`` each.
_REFUSED = re.compile(r"rankk refused rows:((?: [a-z_]+(?::\d+)?=\d+@\d+)+)")
_CHECK = re.compile(r"([a-z_]+(?::\d+)?)=(\d+)@(\d+)")


@dataclass(frozen=True)
class KernelRefusal:
    """The rows the kernel's value checks refused: per check (``null_key:0`` for the first
    key column, ``null_item``, ``empty_document``, ``invalid_score``), how many rows fail it
    and the first of them (its position in the input)."""

    rows: dict[str, tuple[int, int]]


def refusal_of(error: Exception) -> KernelRefusal | None:
    """The kernel's refusal carried by `error` (None: `error` is something else).

    Examples
    --------
    >>> refusal_of(ValueError("x rankk refused rows: null_key:0=2@5 invalid_score=1@9"))
    KernelRefusal(rows={'null_key:0': (2, 5), 'invalid_score': (1, 9)})
    """
    found = _REFUSED.search(str(error))
    if found is None:
        return None
    checks = _CHECK.findall(found.group(1))
    return KernelRefusal({name: (int(count), int(row)) for name, count, row in checks})


def maxp_documents(
    rows: pl.LazyFrame,
    keys: list[str],
    item: str,
    score: pl.Expr,
    policy: Policy,
    *,
    delimiter: str,
    depth: int | None,
    check_values: bool,
) -> pl.LazyFrame | None:
    """Each group's documents: `keys`, `item` (the passage id up to the first `delimiter`)
    and ``score`` (Float64, its best passage's), in rank order, cut at `depth` (None: all),
    groups in the order of their keys. None where the kernel does not apply (not loaded, a
    key dtype it does not read, ids that are not text).

    `score` is the Float64 score, higher first. `policy` gives ``ties`` (``trec_eval`` or
    ``item_asc``) and ``invalid_scores`` (``drop``: dropped; ``error``: refused when
    `check_values`, else ranked last). With `check_values`, collecting a refused run raises
    a ``polars.exceptions.ComputeError`` that `refusal_of` reads.

    Examples
    --------
    >>> import polars as pl, polars_rankk as rk
    >>> run = pl.LazyFrame({"q": [1, 1, 1], "item": ["d1#0", "d2#0", "d1#1"],
    ...                     "score": [0.5, 0.9, 0.7]})
    >>> found = maxp_documents(run, ["q"], "item", pl.col("score"), rk.Policy(),
    ...                        delimiter="#", depth=None, check_values=True)
    >>> found is None or found.collect().rows() == [(1, "d2", 0.9), (1, "d1", 0.7)]
    True
    """
    schema = rows.collect_schema()
    if (
        not native.status().loaded
        or schema[item] != pl.String
        or any(not isinstance(schema[name], READ) for name in keys)
    ):
        return None
    call = Call.under(
        policy,
        (),
        keys=tuple(native.kernel_kind(schema[name]) or "" for name in keys),
        item="text",
        item_prefix=delimiter,
    )
    kwargs = {
        "ranking": native.kwargs(policy, call),
        "depth": depth if depth is not None else 2**63 - 1,
        "check_values": check_values,
    }
    inputs = [
        *(native.kernel_input(name, schema[name]).alias(name) for name in keys),
        pl.col(item),
        score.cast(pl.Float64).alias("score"),
    ]
    documents = pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name="documents",
        args=inputs,
        kwargs=kwargs,
        is_elementwise=False,
        changes_length=True,
    ).alias(_DOCUMENTS)
    found = rows.select(documents).unnest(_DOCUMENTS)
    return found.with_columns(pl.col(name).cast(schema[name]) for name in keys)
