"""Label expectations by the compiled kernel: the recursion over ranks of
`polars_rankk.core.inputs.labels.recursion` (its NumPy statement is the reference, and the
path without the kernel), every group in compiled code (``native/src/label_moments.rs``).

The laid-out probabilities go over as one Float64 column — the ranked ones (groups x W), the
others (groups x M), the lists' lengths and the relevant grades' gains — and come back as each
cell's mean and standard deviation per group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from polars_rankk.core.kernel import loader as native
from polars_rankk.core.policy import Policy

if TYPE_CHECKING:  # NumPy is imported where the moments are computed (not at start-up)
    import numpy as np

#: The metrics the kernel's walk computes (with a cut-off), and R-precision beside them.
COMPUTED = frozenset(
    {"precision", "dcg", "rbp", "hit_rate", "mrr", "recall", "average_precision", "ndcg", "f1"}
)


def computes(cells: Sequence[tuple[str, int]]) -> bool:
    """Whether the kernel is loaded and computes every one of `cells` (as the recursion over
    ranks reads them: RBP of binary grades, every group's relevant items of one gain)."""
    return native.status().loaded and all(metric in COMPUTED for metric, _ in cells)


def fixed_order_moments(
    ranked_q: np.ndarray,
    rest_q: np.ndarray,
    n_candidates: np.ndarray,
    gain: np.ndarray,
    cells: Sequence[tuple[str, int]],
    largest_k: int,
    r_precision: bool,
    policy: Policy,
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None] | None:
    """(mean, std) per group and cell (groups x cells) of `cells` walked down the first
    `largest_k` ranks of `ranked_q` (groups x W, W at least every group's count of items that
    may be relevant where `r_precision`), the others `rest_q` (groups x M) counting in R, and
    R-precision's (mean, std) per group where asked (else None); None where the kernel does
    not compute them (not loaded, a metric it has no walk for)."""
    import numpy as np

    if not computes(cells):
        return None
    groups = ranked_q.shape[0]
    values = np.concatenate(
        [
            np.ascontiguousarray(ranked_q, dtype=np.float64).ravel(),
            np.ascontiguousarray(rest_q, dtype=np.float64).ravel(),
            np.asarray(n_candidates, dtype=np.float64),
            np.asarray(gain, dtype=np.float64),
        ]
    )
    kwargs = {
        "groups": groups,
        "ranked_width": ranked_q.shape[1],
        "largest_k": largest_k,
        "rest_width": rest_q.shape[1],
        "cells": [(metric, int(k)) for metric, k in cells],
        "r_precision": r_precision,
        "empty_truth": policy.empty_truth,
        "ap_min_k": policy.ap_denominator == "min_k_relevant",
        "observed": policy.short_lists == "observed",
        "f_beta": float(policy.f_beta),
        "rbp_persistence": float(policy.rbp_persistence),
    }
    out = native.on_values("label_moments", values, kwargs)
    mean = spread = np.empty((groups, 0))
    if cells:
        mean = np.column_stack([out[f"mean_{i}"].to_numpy() for i in range(len(cells))])
        spread = np.column_stack([out[f"std_{i}"].to_numpy() for i in range(len(cells))])
    if not r_precision:
        return mean, spread, None
    return mean, spread, (out["mean_r"].to_numpy(), out["std_r"].to_numpy())
