"""The compiled kernel (the optional `polars-rankk-native` package), and when it is used.

The kernel is a Polars expression plugin that ranks every group of the candidate table under
the `Policy` and returns one row of running sums per group: the same columns as the pure-Polars
preparation (`polars_rankk.core.evaluation.prepare`), which stays the reference. It is used
when it is
installed, Polars accepts its plugin ABI, ``POLARS_RANKK_NATIVE`` is not ``0``, and it can do
what is asked; otherwise the evaluation runs in pure Polars and its diagnostics say why.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl

from polars_rankk.core.columns import (
    GRADE,
    HITS_AT_R,
    IDEAL_DCG,
    IS_JUDGED,
    N_CANDIDATES,
    N_NONRELEVANT,
    N_RELEVANT,
    ROW,
    SCORE,
    stat_column,
)
from polars_rankk.core.inputs.spec import Spec
from polars_rankk.core.kernel import facts as kernel_facts
from polars_rankk.core.kernel import places as kernel_places
from polars_rankk.core.kernel.call import (
    Call,
    KernelPiece,
    LinearTerm,
    Output,
    plain,
    sum_outputs,
)
from polars_rankk.core.metrics.order import condenses, judged_rows, mapped_below_one, unjudged_grade
from polars_rankk.core.metrics.terms import Term, TermNeeds
from polars_rankk.core.policy import Policy

#: The environment switch: ``POLARS_RANKK_NATIVE=0`` forces the pure-Polars path.
SWITCH = "POLARS_RANKK_NATIVE"
#: A kernel library to load instead of the installed one (a development build).
LIBRARY_OVERRIDE = "POLARS_RANKK_NATIVE_LIBRARY"

#: Policy fields applied in Polars around the kernel's sums (to the truth before it, or to
#: the per-group values after it); every other field is sent to the kernel as it is
#: (`kernel_policy`), where serde reads it into the one typed `Policy` of
#: ``native/src/config.rs``, refusing a field or a choice it does not declare.
APPLIED_IN_POLARS = frozenset(
    {"short_lists", "ap_denominator", "empty_truth", "missing_groups", "pool", "f_beta"}
    # Read only by the C/W/L terms: the linear ones (SDCG, INSQ) reach the kernel as their
    # declared weights, the others (INST, NERR, BPM) run in pure Polars.
    | {"cwl_target"}
    # The subtopic metrics run in pure Polars (polars_rankk.core.evaluation.diversity).
    | {"diversity_alpha", "nrbp_beta"}
    # Read only by the Q-measure's and Compat's terms, which run in pure Polars (their ideal
    # ranking is joined from the truth: polars_rankk.core.metrics.families.compat_q).
    | {"q_beta", "compat_persistence"}
    # Applied where the inputs are read (`check_inputs`): the kernel reads truncated grades.
    | {"fractional_grades"}
)

#: The labels the kernel reads (native/src/config.rs, ``fn label``): a linear term of other
#: labels runs in pure Polars until the kernel learns them.
KERNEL_LABELS = frozenset(
    {"one", "relevant", "grade", "gain", "judged", "first_relevant", "rbp_gain", "cwl_gain"}
)


def computes(term: Term) -> bool:
    """Whether the kernel computes `term`: declared as data of labels it reads, or one it
    knows by name."""
    if term.linear is not None:
        return term.linear(Policy()).labels <= KERNEL_LABELS
    return term.kernel is not None


_INTEGERS = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)
_PHYSICAL = (pl.Date, pl.Datetime, pl.Duration, pl.Time, pl.Boolean)
_SUMS = "_rk_sums"
_SELF_CHECK = Call(
    keys=("integer",),
    terms=(LinearTerm("hits", (KernelPiece("relevant", False, ()),)),),
    outputs=(Output("hits", "sum", 1, "hits"),),
)


@dataclass(frozen=True)
class Status:
    """Whether the kernel is loaded, and why not."""

    library: Path | None
    reason: str
    version: str | None = None

    @property
    def loaded(self) -> bool:
        return self.library is not None

    def line(self) -> str:
        """One line for `show_versions` and the diagnostics."""
        if self.library is not None:
            return f"native kernel: loaded (polars-rankk-native {self.version}, {self.library})"
        return f"native kernel: not used ({self.reason})"


def _disabled() -> bool:
    return os.environ.get(SWITCH, "").strip().lower() in {"0", "false", "no", "off"}


@functools.cache
def _load() -> Status:
    try:
        import polars_rankk_native as package
    except ModuleNotFoundError as error:
        return Status(None, f"polars-rankk-native is not installed ({error})")
    except ImportError as error:  # installed without its library (built where no cargo was)
        return Status(None, str(error))
    library = Path(os.environ.get(LIBRARY_OVERRIDE) or package.LIBRARY)
    try:
        # Polars checks the plugin's ABI version when it loads the library: one tiny call
        # proves the library loads, speaks an ABI this Polars accepts, and computes.
        frame = pl.DataFrame({"g": [1, 1], "i": [1, 2], "s": [0.5, 0.4], "r": [1.0, None]})
        sums = frame.select(
            _call(
                library,
                [pl.col("g"), pl.col("i"), pl.col("s"), pl.col("r")],
                kwargs(Policy(), _SELF_CHECK),
            )
        ).unnest(_SUMS)
        if sums["hits"].to_list() != [1.0]:
            return Status(
                None,
                f"the kernel at {library} failed its self-check under Polars {pl.__version__}: "
                f"{sums}",
            )
    except Exception as error:  # any refusal by Polars means: use pure Polars
        return Status(None, f"Polars {pl.__version__} refused the kernel at {library}: {error}")
    return Status(library, "", getattr(package, "__version__", "unknown"))


def status() -> Status:
    """The kernel's state in this process (``POLARS_RANKK_NATIVE`` is read on each call).

    Examples
    --------
    >>> from polars_rankk.core.kernel import loader
    >>> loader.status().line().startswith("native kernel: ")
    True
    """
    if _disabled():
        return Status(None, f"disabled by {SWITCH}=0")
    return _load()


def _call(
    library: Path, args: list[pl.Expr], call: dict[str, object], function: str = "group_sums"
) -> pl.Expr:
    return pl.plugins.register_plugin_function(
        plugin_path=library,
        function_name=function,
        args=args,
        kwargs=call,
        is_elementwise=False,
        changes_length=True,
    ).alias(_SUMS)


def on_values(function: str, values: Iterable[float], kwargs: dict[str, object]) -> pl.DataFrame:
    """The kernel's `function` over one Float64 column of `values` (an array the caller laid
    out), its result's fields as a frame: how the NumPy-side readers call the kernel."""
    column = pl.lit(pl.Series("values", values, dtype=pl.Float64))
    return pl.select(_call(library(), [column], kwargs, function)).unnest(_SUMS)


def kernel_kind(dtype: pl.DataType) -> str | None:
    """How the kernel reads a key or item column: as Int64, as text, or not at all."""
    if dtype == pl.String:
        return "text"
    if isinstance(dtype, (*_INTEGERS, *_PHYSICAL)):
        return "integer"
    return None


def unsupported(spec: Spec) -> str | None:
    """Why the kernel cannot prepare `spec` at all (None: it can, maybe for some terms only)."""
    state = status()
    if not state.loaded:
        return state.line()
    schema = spec.candidates.collect_schema()
    for column in (*spec.keys, spec.item):
        if kernel_kind(schema[column]) is None:
            return (
                f"native kernel: not used (column {column!r} has dtype {schema[column]}, "
                f"which it does not read)"
            )
    return None


def kernel_policy(policy: Policy) -> dict[str, object]:
    """Every field of `policy` outside `APPLIED_IN_POLARS`, with `policy`'s own values: the
    kernel's typed ``Policy`` (``native/src/config.rs``) is deserialized from it.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.kernel import loader
    >>> loader.kernel_policy(rk.Policy(ties="expected"))["ties"]
    'expected'
    """
    return {
        field.name: getattr(policy, field.name)
        for field in dataclasses.fields(policy)
        if field.name not in APPLIED_IN_POLARS
    }


def kwargs(policy: Policy, call: Call) -> dict[str, object]:
    """A kernel call's keyword arguments: the policy's fields (`kernel_policy`) and the
    call's description (`Call`), both read by serde.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> from polars_rankk.core.kernel import loader
    >>> from polars_rankk.core.kernel.call import Call
    >>> sent = loader.kwargs(rk.Policy(), Call(keys=("integer",)))
    >>> sent["call"]["keys"], sent["call"]["judged"]
    (['integer'], 'unused')
    """
    return {"policy": kernel_policy(policy), "call": plain(call)}


#: The policy fields `_inputs` also reads, to choose the judged flag and condensing.
READ_BY_INPUTS = frozenset({"unjudged", "negative_grades"})


def kernel_input(column: str, dtype: pl.DataType) -> pl.Expr:
    """`column` as the kernel reads it (`kernel_kind`): text as it is, other kinds as Int64."""
    if dtype == pl.String:
        return pl.col(column)
    if isinstance(dtype, _PHYSICAL):
        return pl.col(column).to_physical().cast(pl.Int64)
    return pl.col(column).cast(pl.Int64)


@dataclass(frozen=True)
class _Inputs:
    """The kernel's input table, its columns as arguments, and the call that describes them
    and the policy (no outputs yet)."""

    frame: pl.LazyFrame
    arguments: list[pl.Expr]
    call: Call
    keys: list[str]
    key_schema: dict[str, pl.DataType]


def _inputs(
    spec: Spec,
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame | None,
    needs: TermNeeds,
) -> _Inputs:
    policy = spec.policy
    keys = list(spec.keys)
    schema = selected.collect_schema()
    frame = selected
    judged: Literal["unused", "grade", "all", "column", "nonnegative"] = "unused"
    positive_only = False
    negative_unjudged = policy.negative_grades == "unjudged"
    truth = judged_rows(truth, pl.col(GRADE), policy)
    condense = condenses(policy, has_truth=spec.truth is not None)
    arguments = [kernel_input(key, schema[key]) for key in keys]
    arguments += [kernel_input(spec.item, schema[spec.item]), pl.col(SCORE)]
    needs_judged = needs.judged or condense
    fused = _fuses_truth(spec, needs, truth_stats)
    if fused:
        # The truth's rows follow the candidates' in the same columns, and the kernel joins
        # them itself (a grade marks a truth row): no join before the kernel.
        frame = _with_truth_rows(spec, selected, truth, ROW in schema)
        arguments = [pl.col(column) for column in frame.collect_schema().names()]
        judged = "grade" if needs_judged else "unused"
        positive_only = not needs.judged
    elif not spec.labelled:
        # Every judged truth row (any grade); a null grade marks an unjudged candidate.
        frame = frame.join(truth, on=[*keys, spec.item], how="left")
        judged = "grade" if needs_judged else "unused"
        # Without the judged flag the reference path joins the positive truth only.
        positive_only = not needs.judged
        arguments.append(pl.col(GRADE))
    else:
        arguments.append(pl.col(GRADE).cast(pl.Float64))
        if needs_judged and spec.truth is not None:
            flags = truth.select([*keys, spec.item, pl.lit(1.0).alias(IS_JUDGED)])
            frame = frame.join(flags, on=[*keys, spec.item], how="left")
            judged = "column"
            arguments.append(pl.col(IS_JUDGED))
        elif needs_judged:
            judged = "nonnegative" if negative_unjudged else "all"
    if ROW in schema and not fused:
        arguments.append(pl.col(ROW).cast(pl.Int64))
    count_columns: list[str] = []
    if needs.counts and truth_stats is not None and not fused:
        count_columns = [N_RELEVANT]
        if "n_nonrelevant" in needs.counts:
            count_columns.append(N_NONRELEVANT)
        frame = frame.join(truth_stats.select([*keys, *count_columns]), on=keys, how="left")
        arguments += [pl.col(column).cast(pl.Float64) for column in count_columns]
    labelled_alone = spec.labelled and spec.truth is None
    mapped = bool(mapped_below_one(policy))
    call = Call.under(
        policy,
        needs.columns,
        keys=tuple(kernel_kind(schema[key]) or "" for key in keys),
        item=kernel_kind(schema[spec.item]) or "",
        score_name=spec.score,
        null_order_grade=0.0 if spec.labelled else float(unjudged_grade(policy)),
        condense=condense,
        judged=judged,
        positive_only=positive_only,
        labelled=spec.labelled,
        negative_unjudged=labelled_alone and negative_unjudged and mapped,
        row=ROW in schema,
        truth=fused,
        counts=len(count_columns),
        outputs=tuple(Output(key, "key", index) for index, key in enumerate(keys)),
        scores_checked=spec.values_checked,
    )
    return _Inputs(frame, arguments, call, keys, {key: schema[key] for key in keys})


def _fuses_truth(spec: Spec, needs: TermNeeds, truth_stats: pl.LazyFrame | None) -> bool:
    """Whether the kernel reads the truth's rows itself (the candidates carry no grade): it
    then counts each group's R and N too, except where they are not the truth's own counts
    (padding rows, ``pool="restrict"``), which Polars joins as before."""
    if spec.labelled or spec.truth is None:
        return False
    own_counts = spec.n_relevant is None and spec.policy.pool != "restrict"
    return own_counts or not needs.counts or truth_stats is None


def _with_truth_rows(
    spec: Spec, selected: pl.LazyFrame, truth: pl.LazyFrame, has_row: bool
) -> pl.LazyFrame:
    """The candidates (no grade) and then the judged truth rows (no score), in the same
    columns as the kernel reads them; a concatenation, not a join."""
    keys = list(spec.keys)
    schema = selected.collect_schema()
    shared = [kernel_input(column, schema[column]).alias(column) for column in keys]
    shared.append(kernel_input(spec.item, schema[spec.item]).alias(spec.item))
    truth_schema = truth.collect_schema()
    truth_keys = [
        kernel_input(column, truth_schema[column]).alias(column) for column in (*keys, spec.item)
    ]
    row = [pl.col(ROW).cast(pl.Int64)] if has_row else []
    no_row = [pl.lit(None, pl.Int64).alias(ROW)] if has_row else []
    candidates = selected.select(
        *shared, pl.col(SCORE), pl.lit(None, pl.Float64).alias(GRADE), *row
    )
    grade = pl.col(GRADE).cast(pl.Float64)
    judged = truth.filter(grade.is_not_null() & grade.is_not_nan()).select(
        *truth_keys, pl.lit(None, pl.Float64).alias(SCORE), grade.alias(GRADE), *no_row
    )
    return pl.concat([candidates, judged], how="vertical")


def library() -> Path:
    """The loaded kernel library (an error when it is not loaded)."""
    state = status()
    if state.library is None:
        raise RuntimeError(f"the native kernel is not loaded: {state.reason}")
    return state.library


def group_sums(
    spec: Spec,
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame,
    needs: TermNeeds,
    schema: pl.Schema,
) -> pl.LazyFrame:
    """One row per group with candidates: keys, n_candidates, [hits_at_r], the whole-list
    terms and every cumulated term at every k, with the dtypes of the reference path's
    per-group sums (`schema`).

    `selected` are the candidates as `prepare` selects them (keys, item, score, and the grade,
    padding and input row where they exist); `truth` the normalised truth (any grade);
    `truth_stats` its per-group counts. Where the candidates carry no grade the kernel reads
    the truth's rows itself, after the candidates' (`_with_truth_rows`): no join runs before
    it, and it counts R and N itself unless padding or ``pool="restrict"`` change them.
    """
    inputs, outputs, call = _sums_call(
        spec,
        selected,
        truth,
        truth_stats,
        needs,
        (*kernel_facts.outputs(spec), *kernel_places.outputs(spec)),
    )
    sums = inputs.frame.select(_call(library(), inputs.arguments, call))
    names = [*inputs.keys, *(output.column for output in outputs)]
    return sums.unnest(_SUMS).with_columns(pl.col(name).cast(schema[name]) for name in names)


def _sums_call(
    spec: Spec,
    selected: pl.LazyFrame,
    truth: pl.LazyFrame,
    truth_stats: pl.LazyFrame,
    needs: TermNeeds,
    facts: tuple[Output, ...] = (),
) -> tuple[_Inputs, list[Output], dict[str, object]]:
    """`group_sums`' inputs, its outputs besides the keys and the diagnostics' `facts` (their
    columns follow, as the kernel computes them), and the call's kwargs."""
    inputs = _inputs(spec, selected, truth, truth_stats, needs)
    outputs = [Output(N_CANDIDATES, "n_candidates")]
    if needs.hits_at_r:
        outputs.append(Output(HITS_AT_R, "hits_at_r"))
    outputs += sum_outputs(needs, spec.read_ks)
    call = dataclasses.replace(inputs.call, outputs=(*inputs.call.outputs, *outputs, *facts))
    return inputs, outputs, kwargs(spec.policy, call)


def truth_stats(spec: Spec, judged: pl.LazyFrame, count_nonrelevant: bool) -> pl.LazyFrame | None:
    """`prepare._truth_stats` computed by the kernel from `judged` (keys, item, grade); None
    where it does not take it: not loaded, keys it does not read, or grades not checked
    finite (the kernel reads a null grade as NaN, which Polars does not)."""
    finite = spec.values_checked or (spec.truth is not None and not spec.truth_graded)
    if unsupported(spec) is not None or not finite:
        return None
    schema = judged.collect_schema()
    keys = list(spec.keys)
    counts = [N_RELEVANT, *([N_NONRELEVANT] if count_nonrelevant else [])]
    outputs = [Output(key, "key", index) for index, key in enumerate(keys)]
    outputs += [
        Output(count, "n_relevant" if count == N_RELEVANT else "n_nonrelevant") for count in counts
    ]
    outputs += [Output(stat_column(IDEAL_DCG, k), "ideal_dcg", k) for k in spec.read_ks]
    call = Call(keys=tuple(kernel_kind(schema[key]) or "" for key in keys), outputs=tuple(outputs))
    arguments = [kernel_input(key, schema[key]) for key in keys]
    arguments.append(pl.col(GRADE).cast(pl.Float64))
    plugin = _call(library(), arguments, kwargs(spec.policy, call), "truth_sums")
    return (
        judged.select(plugin)
        .unnest(_SUMS)
        .with_columns(
            *(pl.col(key).cast(schema[key]) for key in keys if schema[key] != pl.String),
            *(pl.col(column).cast(pl.Int64) for column in counts),
        )
    )


def show_versions() -> None:
    """Print the versions polars-rankk runs with, and whether the native kernel is loaded.

    Like ``pl.show_versions()``: paste its output into a bug report.

    Examples
    --------
    >>> import polars_rankk as rk
    >>> rk.show_versions()  # doctest: +ELLIPSIS
    --------Version info---------
    polars-rankk: ...
    native kernel: ...
    """
    import platform
    from importlib.metadata import PackageNotFoundError, version

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "<not installed>"

    lines = ["--------Version info---------"]
    lines.append(f"polars-rankk: {installed('polars-rankk')}")
    lines.append(status().line())
    lines.append(f"Python: {platform.python_version()} ({platform.platform()})")
    for name in ("polars", "polars-rankk-native", "pyarrow", "numpy"):
        lines.append(f"{name}: {installed(name)}")
    print("\n".join(lines))
