"""What `evaluate` says of the groups it reads: truth groups without candidates refused where
the policy forbids them, and an evaluation that kept no group explained."""

from __future__ import annotations

import warnings

import polars as pl

from polars_rankk.core.columns import HAS_CANDIDATES, N_RELEVANT
from polars_rankk.core.inputs.spec import EmptyResultWarning, Spec
from polars_rankk.core.types import FrameLike


def check_missing_groups(spec: Spec) -> None:
    """Refuse, under ``Policy(missing_groups='error')``, truth groups without candidates,
    naming their count and one of them."""
    if spec.policy.missing_groups != "error" or spec.truth is None:
        return
    keys = list(spec.keys)
    present = spec.candidates.select(keys)
    if spec.empty_candidate_groups is not None:
        present = pl.concat([present, spec.empty_candidate_groups])
    truth = spec.truth.select(keys)
    if spec.empty_truth_groups is not None:
        truth = pl.concat([truth, spec.empty_truth_groups])
    missing = truth.unique().join(present.unique(), on=keys, how="anti")
    rows = missing.head(1).collect()
    if rows.height:
        count = missing.select(pl.len()).collect().item()
        raise ValueError(
            f"truth has {count} group(s) with no candidates and "
            f"Policy(missing_groups='error') forbids it, e.g. {rows.row(0, named=True)}; "
            f"use missing_groups='zero' (score an empty ranking) or 'exclude'"
        )


def warn_empty(spec: Spec, all_groups: FrameLike) -> None:
    """Say why no group was evaluated: no group at all, or every group dropped (by which
    policy)."""
    groups = all_groups.lazy()
    found = (
        groups.select(
            pl.len().alias("groups"),
            (pl.col(N_RELEVANT) == 0).sum().alias("empty"),
            (~pl.col(HAS_CANDIDATES)).sum().alias("missing"),
        )
        .collect()
        .row(0, named=True)
    )
    source = "truth" if spec.truth is not None else "candidates"
    if not found["groups"]:
        reason = f"the {source} has no rows"
    else:
        policy = spec.policy
        parts = []
        if policy.empty_truth == "exclude" and found["empty"]:
            parts.append(f"{found['empty']} without a relevant item (empty_truth='exclude')")
        if policy.missing_groups == "exclude" and found["missing"]:
            parts.append(f"{found['missing']} without candidates (missing_groups='exclude')")
        reason = f"all {found['groups']} group(s) were dropped: " + ", ".join(parts)
    warnings.warn(
        f"evaluate: no group was evaluated, so every table is empty; {reason}",
        EmptyResultWarning,
        stacklevel=3,
    )
