"""One declaration per term: the kernel, the pure path and the K-curves read the same table.

Every built-in metric under every `Policy` field runs on the kernel (when it is installed)
with the pure path's numbers; a metric registered from the documented row fields is a term as
data and runs there too; the K-curve at every K equals ``evaluate(k=K)``, on both paths.
"""

from __future__ import annotations

import dataclasses
import math

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankk as rk
from polars_rankk.core.kernel import loader as native
from polars_rankk.core.kernel.call import Call
from polars_rankk.core.metrics.algebra import RANK, Linear, Piece, discount, trace
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.metrics.terms import IPREC_LEVELS, RPREC_MULTIPLES, TERMS
from polars_rankk.core.policy import _CHOICES
from tests.support.examples import examples
from tests.support.kernel_path import needs_kernel
from tests.support.kernel_path import path as kernel

#: The paths every property runs on: the kernel where it is loaded, and pure Polars.
PATHS = [pytest.param(True, marks=needs_kernel, id="kernel"), pytest.param(False, id="pure")]


def _case() -> tuple[pl.DataFrame, pl.DataFrame]:
    candidates = pl.DataFrame(
        {
            "user": [1, 1, 1, 1, 2, 2, 2, 3, 3],
            "item": [1, 2, 3, 4, 1, 5, 6, 7, 8],
            "score": [0.9, 0.7, 0.7, 0.1, 0.5, 0.4, 0.3, 0.8, 0.8],
        }
    )
    truth = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3, 4],
            "item": [2, 3, 9, 5, 6, 8, 1],
            "relevance": [2, 0, 1, -1, 3, 1, 1],
        }
    )
    return candidates, truth


# -- Terms as data ---------------------------------------------------------------------------


def test_linear_built_in_terms_are_declared_as_labels_times_weights() -> None:
    assert TERMS["_rk_dcg"].linear is not None
    declared = TERMS["_rk_dcg"].linear(rk.Policy())
    assert declared == Linear((Piece("gain", discount(RANK), "/"),))
    # Three terms that are not linear are named code, here and in the kernel; the others
    # (trec_eval's infAP, binG, interpolated precision, hits at multiples of R, and the C/W/L
    # family's whose C(i) reads the gains seen so far, the Q-measure's, Compat's and trec_eval's
    # gain measures', which read the ideal ranking at each rank) run in pure Polars, per term;
    # SDCG (the cwl_gain label times a weight of the rank, read at K <= 1000 only) runs on it.
    # INSQ and the C/W/L gain summed are linear too, but cut at cwl_eval's depth of 1000 ranks
    # (read past it): the kernel's weights have no step.
    from polars_rankk.core.metrics.families.compat_q import COMPAT_TERM, Q_TERM
    from polars_rankk.core.metrics.families.cwl import CWL_TERMS
    from polars_rankk.core.metrics.families.trec_gain import TERMS as GAIN_TERMS

    family = {term.name for term in (*CWL_TERMS, Q_TERM, COMPAT_TERM, *GAIN_TERMS)}
    named = {term.name for term in TERMS.values() if term.linear is None} - family
    on_kernel = {term.name for term in TERMS.values() if term.kernel is not None}
    assert on_kernel == {"precision_sum", "err", "bpref"}
    levels = {f"iprec_{level:.2f}" for level in IPREC_LEVELS}
    multiples = {f"hits_at_r_times_{multiple:.2f}" for multiple in RPREC_MULTIPLES}
    assert named - on_kernel == {"infap", "binary_g", *levels, *multiples}
    assert all(
        native.computes(term) == (term.linear is not None or term.kernel is not None)
        for term in TERMS.values()
    )
    assert {term.name for term in CWL_TERMS if native.computes(term)} == {"sdcg"}


def test_a_traced_function_that_is_not_linear_is_not_declared() -> None:
    assert trace(lambda rows: rows.relevant * rows.gain) is None
    assert trace(lambda rows: rows.relevant * pl.lit(2.0)) is None
    assert trace(lambda rows: rows.n_relevant * rows.relevant) is None
    declared = trace(lambda rows: 2 * rows.first_relevant / rows.rank + rows.judged)
    assert declared is not None
    assert declared.labels == {"first_relevant", "judged"}


def _changed(policy: rk.Policy, name: str) -> rk.Policy:
    """`policy` with field `name` set to another valid value."""
    value = getattr(policy, name)
    if name in _CHOICES:
        other = next(choice for choice in _CHOICES[name] if choice != value)
    elif name == "gains":
        other = {0: 1}
    else:
        other = value / 2
    return policy.replace(**{name: other})


def _kernel_reads(policy: rk.Policy) -> str:
    """The kernel's own reading of `policy` (its typed ``Policy``, as ``Debug`` text)."""
    call = pl.plugins.register_plugin_function(
        plugin_path=native.library(),
        function_name="configuration",
        args=[pl.col("g")],
        kwargs=native.kwargs(policy, Call(keys=("integer",))),
        is_elementwise=False,
        changes_length=True,
    )
    return str(pl.DataFrame({"g": [1]}).select(call.alias("c")).unnest("c")["policy"].item())


def test_every_policy_field_is_sent_to_the_kernel_or_applied_around_it() -> None:
    fields = {field.name for field in dataclasses.fields(rk.Policy)}
    assert fields >= native.READ_BY_INPUTS
    assert fields >= native.APPLIED_IN_POLARS
    assert set(native.kernel_policy(rk.Policy())) == fields - native.APPLIED_IN_POLARS


@needs_kernel
def test_every_policy_field_sent_changes_what_the_kernel_reads() -> None:
    default = rk.Policy()
    with kernel(True):
        read = _kernel_reads(default)
        for name in set(native.kernel_policy(default)):
            assert _kernel_reads(_changed(default, name)) != read, name


@dataclasses.dataclass(frozen=True)
class _WithANewField(rk.Policy):
    """A Policy with one more field, declared in Python only (not wired into the kernel)."""

    brand_new: str = "on"


@needs_kernel
def test_a_policy_field_or_choice_the_kernel_does_not_declare_is_refused() -> None:
    # A new field outside APPLIED_IN_POLARS is sent to the kernel by its declaration alone;
    # until the kernel declares (and applies) it, every call fails instead of ignoring it.
    assert "brand_new" in native.kernel_policy(_WithANewField())
    with kernel(True), pytest.raises(pl.exceptions.ComputeError, match="brand_new"):
        _kernel_reads(_WithANewField())
    # So does a new choice of a Literal field.
    policy = rk.Policy()
    object.__setattr__(policy, "ties", "random")
    with kernel(True), pytest.raises(pl.exceptions.ComputeError, match="random"):
        _kernel_reads(policy)
    candidates, truth = _case()
    with kernel(True), pytest.raises(pl.exceptions.ComputeError, match="brand_new"):
        rk.evaluate(candidates, truth, k=2, group_by="user", policy=_WithANewField())


@needs_kernel
@pytest.mark.parametrize(
    "policy",
    [
        rk.Policy.trec_eval(),
        rk.Policy(gains={0: 1, 1: 4}),
        rk.Policy(rbp_grades="graded"),
        rk.Policy(nonrelevant_gain="zero"),
        rk.Policy(negative_grades="unjudged", unjudged="condense"),
        rk.Policy(f_beta=2),
        rk.Policy(ties="expected", gains={-1: 2}),
    ],
    ids=["trec_eval", "gains", "rbp_graded", "nonrelevant_zero", "negative", "f_beta", "exp"],
)
def test_every_dialect_policy_runs_on_the_kernel_with_the_pure_numbers(policy: rk.Policy) -> None:
    candidates, truth = _case()
    metrics = [m for m in REGISTRY.values() if m.accuracy]
    if policy.ties == "expected":
        metrics = [m for m in metrics if m.supports_expected_ties]
    names = [m.name for m in metrics]
    values = []
    for enabled in (True, False):
        with kernel(enabled):
            res = rk.evaluate(
                candidates, truth, k=[1, 3], group_by="user", policy=policy, metrics=names
            )
            assert res.diagnostics.path.startswith(
                "native kernel: loaded" if enabled else "native kernel: not used"
            ), res.diagnostics.path
            values.append(res.per_group.sort("user", "metric", "k"))
    on_kernel, on_pure = values
    assert on_kernel.select("user", "metric", "k").equals(on_pure.select("user", "metric", "k"))
    for a, b in zip(on_kernel["value"].to_list(), on_pure["value"].to_list(), strict=True):
        assert (
            (a is None and b is None)
            or (math.isnan(a) and math.isnan(b))
            or a == pytest.approx(b, abs=1e-12)
        )


# -- A user's metric from row fields runs on the kernel -------------------------------------


@pytest.mark.parametrize("enabled", PATHS)
def test_a_metric_registered_from_row_fields_runs_on_the_kernel_and_equals_its_brute_force(
    enabled: bool,
) -> None:
    rk.register_metric(
        "first_hit_rank",
        lambda rows: rows.first_relevant * rows.rank,
        lambda sums: sums.total + (sums.k + 1) * (1 - sums.sum("first_hit")),
        direction="lower",
        expected_ties=True,
        replace=True,
    )
    try:
        candidates, truth = _case()
        with kernel(enabled):
            res = rk.evaluate(
                candidates, truth, k=[1, 2, 3], group_by="user", metrics="first_hit_rank"
            )
            if enabled:
                assert res.diagnostics.path.startswith("native kernel: loaded")
                assert "pure Polars" not in res.diagnostics.path
        got = {(row["user"], row["k"]): row["value"] for row in res.per_group.iter_rows(named=True)}
        # Brute force: rank by score, ties by item id as text descending (trec_eval).
        relevant = {(u, i) for u, i, g in truth.iter_rows() if g >= 1}
        for user in (1, 2, 3, 4):
            rows = sorted(
                (r for r in candidates.iter_rows() if r[0] == user),
                key=lambda r: (-r[2], [-ord(c) for c in str(r[1])]),
            )
            first = next((n for n, r in enumerate(rows, 1) if (user, r[1]) in relevant), None)
            for k in (1, 2, 3):
                expected = first if first is not None and first <= k else k + 1
                if (user, k) in got:
                    assert got[(user, k)] == expected, (user, k)
        # The built-in entry declares the same metric: the same numbers.
        with kernel(enabled):
            built_in = rk.evaluate(
                candidates, truth, k=[1, 2, 3], group_by="user", metrics="hit_rank"
            )
        assert built_in.per_group["value"].to_list() == res.per_group["value"].to_list()
    finally:
        rk.unregister_metric("first_hit_rank")


@needs_kernel
def test_a_registered_term_that_is_not_linear_falls_back_alone_and_says_so() -> None:
    rk.register_metric(
        "squared_rank",
        lambda rows: rows.relevant * rows.rank.cast(pl.Float64).pow(2) * rows.gain,
        replace=True,
    )
    try:
        candidates, truth = _case()
        with kernel(True):
            res = rk.evaluate(
                candidates, truth, k=3, group_by="user", metrics=["squared_rank", "ndcg"]
            )
        assert res.diagnostics.path.startswith("native kernel: loaded")
        assert "squared_rank in pure Polars" in res.diagnostics.path
        with kernel(False):
            pure = rk.evaluate(
                candidates, truth, k=3, group_by="user", metrics=["squared_rank", "ndcg"]
            )
        assert res.per_group.sort("user", "metric").equals(pure.per_group.sort("user", "metric"))
    finally:
        rk.unregister_metric("squared_rank")


# -- K-curves at every K equal evaluate(k=K) ------------------------------------------------

CURVE_METRICS = ["precision", "recall", "f1", "hit_rate", "ndcg", "average_precision", "mrr"]


@st.composite
def curve_tables(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows, truth_rows = [], []
    for user in range(draw(st.integers(1, 5))):
        for _ in range(draw(st.sampled_from([0, 1, 2, 4, 7]))):
            rows.append(
                (user, draw(st.integers(0, 8)), draw(st.sampled_from([0.0, 0.5, 0.5, 1.0, -0.0])))
            )
        for item in draw(st.sets(st.integers(0, 9), max_size=5)):
            truth_rows.append((user, item, draw(st.sampled_from([-1, 0, 1, 2, 3]))))
    candidates = pl.DataFrame(
        rows, schema={"user": pl.Int64, "item": pl.Int64, "score": pl.Float64}, orient="row"
    )
    truth = pl.DataFrame(
        truth_rows,
        schema={"user": pl.Int64, "item": pl.Int64, "relevance": pl.Int64},
        orient="row",
    )
    return candidates, truth


def _curve_policies() -> st.SearchStrategy[rk.Policy]:
    return st.builds(
        rk.Policy,
        short_lists=st.sampled_from(["fixed", "observed", "skip"]),
        ap_denominator=st.sampled_from(["relevant", "min_k_relevant"]),
        duplicates=st.sampled_from(["first", "keep"]),
        ties=st.sampled_from(["trec_eval", "item_asc", "pessimistic", "optimistic"]),
        empty_truth=st.sampled_from(["exclude", "zero", "nan"]),
        pool=st.sampled_from(["all", "restrict"]),
        relevance_threshold=st.sampled_from([1, 2]),
        gain=st.sampled_from(["linear", "exponential", "binary"]),
        unjudged=st.sampled_from(["keep", "condense"]),
        negative_grades=st.sampled_from(["nonrelevant", "unjudged"]),
        f_beta=st.sampled_from([1, 2, 0.5]),
        gains=st.sampled_from([None, {0: 1, 1: 4}, {-1: 2}]),
        rbp_grades=st.sampled_from(["binary", "graded"]),
        nonrelevant_gain=st.sampled_from(["grade", "zero"]),
    )


@pytest.mark.parametrize("enabled", PATHS)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=curve_tables(), policy=_curve_policies())
def test_the_k_curve_at_every_k_equals_evaluate_at_that_k(
    enabled: bool, data: tuple[pl.DataFrame, pl.DataFrame], policy: rk.Policy
) -> None:
    candidates, truth = data
    k_max = 6
    options = {"group_by": "user", "policy": policy, "metrics": CURVE_METRICS}
    with kernel(enabled):
        curve = rk.k_curve(candidates, truth, k_max=k_max, ci=False, **options)  # type: ignore[arg-type]
        for k in range(1, k_max + 1):
            summary = rk.evaluate(candidates, truth, k=k, **options).summary()  # type: ignore[arg-type]
            at_k = curve.filter(pl.col("k") == k)
            joined = at_k.join(summary, on=["metric", "k"], how="full", suffix="_s")
            for row in joined.iter_rows(named=True):
                a, b = row["value"], row["value_s"]
                if b is None or (isinstance(b, float) and math.isnan(b)):
                    assert a is None or math.isnan(a), row
                else:
                    assert a == pytest.approx(b, abs=1e-12), row


def test_the_k_curve_reads_f_beta_and_gains_as_evaluate_does() -> None:
    candidates, truth = _case()
    for policy in (rk.Policy(f_beta=2), rk.Policy(gains={0: 1})):
        curve = rk.k_curve(
            candidates, truth, k_max=3, metrics=["f1", "ndcg"], group_by="user", policy=policy,
            ci=False,
        )  # fmt: skip
        summary = rk.evaluate(
            candidates, truth, k=[1, 2, 3], metrics=["f1", "ndcg"], group_by="user", policy=policy
        ).summary()
        joined = curve.join(summary, on=["metric", "k"], suffix="_s")
        assert joined.height == 6
        assert joined.select((pl.col("value") - pl.col("value_s")).abs().max()).item() <= 1e-12


# -- Tie order, the same on both paths ------------------------------------------------------


@pytest.mark.parametrize("enabled", PATHS)
def test_negative_zero_ties_with_zero_beside_a_null_score(enabled: bool) -> None:
    candidates = pl.DataFrame(
        {"user": [1, 1, 1], "item": [1, 2, 3], "score": [-0.0, 0.0, None]},
        schema={"user": pl.Int64, "item": pl.Int64, "score": pl.Float64},
    )
    truth = pl.DataFrame({"user": [1], "item": [1], "relevance": [1]})
    policy = rk.Policy(ties="item_asc", invalid_scores="lowest")
    with kernel(enabled):
        res = rk.evaluate(
            candidates, truth, k=1, group_by="user", metrics="precision", policy=policy
        )
    # -0.0 and 0.0 tie, so item 1 (the relevant one) comes first by item id.
    assert res.per_group["value"].to_list() == [1.0]


@pytest.mark.parametrize("enabled", PATHS)
def test_kept_copies_under_trec_eval_ties_rank_in_input_order(enabled: bool) -> None:
    candidates = pl.DataFrame(
        {"user": [1, 1], "item": [7, 7], "score": [0.5, 0.5], "relevance": [0, 1]}
    )
    policy = rk.Policy(duplicates="keep", ties="trec_eval")
    with kernel(enabled):
        res = rk.evaluate(
            candidates, None, k=1, group_by="user", metrics="precision", policy=policy
        )
    # The first copy (not relevant) ranks first: input order, as definitions §10 promises.
    assert res.per_group["value"].to_list() == [0.0]
