"""A metric's parameters are declared on its registry entry, once: its name takes exactly those
(by their key or their Policy field's name) and refuses every other with the list of its own,
as ir_measures refuses them; and a Policy field a metric does not declare never changes its
number, so that names grouped into one evaluation part by what they read get their own
numbers."""

from __future__ import annotations

import random
import typing
import warnings

import polars as pl
import pytest

import polars_rankk as rk
from polars_rankk.core.metrics.parameters import OWN, PARAMETER_FIELDS, Parameter
from polars_rankk.core.metrics.registry import REGISTRY
from polars_rankk.core.names.parse import parse_metric_name
from polars_rankk.core.policy import Policy

#: One value per parameter field, other than Policy()'s (and trec_eval's), that changes the
#: number of a metric reading it on the data below.
OTHER_VALUES: dict[str, object] = {
    "ap_denominator": "min_k_relevant",
    "gain": "exponential",
    "gains": {0: 1, 1: 4, 3: 7},
    "nonrelevant_gain": "zero",
    "rbp_persistence": 0.5,
    "rbp_grades": "graded",
    "err_max_grade": 3,
    "f_beta": 2.0,
    "cwl_target": 3.0,
    "cwl_max_grade": 4.0,
    "q_beta": 2.5,
    "compat_persistence": 0.7,
    "diversity_alpha": 0.2,
    "nrbp_beta": 0.3,
}


def _typed(parameter: Parameter) -> tuple[str, object]:
    """A value typed after `parameter`'s key, and the field value it sets."""
    if parameter.reading == "choice":
        word, value = parameter.choices[-1]
        return word, value
    if parameter.reading == "gains":
        return "{0:1,1:4}", ((0.0, 1.0), (1.0, 4.0))
    if parameter.reading == "field":
        choices = typing.get_args(typing.get_type_hints(Policy)[parameter.field])
        value = next(choice for choice in choices if choice != parameter.default)
        return f"'{value}'", value
    if parameter.reading == "grade":
        return "2", 2
    if parameter.reading == "beta_squared":
        return "0.25", 0.5
    return "0.5", 0.5


def _name(metric: str, parameters: str) -> str:
    return f"{metric}({parameters})" + ("@5" if REGISTRY[metric].has_k else "")


@pytest.mark.parametrize("metric", list(REGISTRY))
def test_each_metric_takes_its_declared_parameters_and_refuses_the_others(metric: str) -> None:
    entry = REGISTRY[metric]
    for parameter in entry.takes:
        text, value = _typed(parameter)
        # (A spelling may set more: RBP with parameters weighs by grade unless rel= is given.)
        typed = parse_metric_name(_name(metric, f"{parameter.key}={text}")).policy
        assert typed[parameter.field] == value
        # The field's own name, with the field's own value (as result labels write it).
        own = repr(value) if isinstance(value, str) else str(value)
        if parameter.reading == "gains":
            own = "{0:1,1:4}"
        written = parse_metric_name(_name(metric, f"{parameter.field}={own}")).policy
        assert written[parameter.field] == value
    taken = {p.key.lower() for p in entry.takes} | {p.field for p in entry.takes}
    others = {p.key for p in OWN} | {p.field for p in OWN} | {"rel", "judged_only"}
    listed = ", ".join(p.key for p in entry.takes) or "none"
    for key in sorted(others - taken):
        if key.lower() in taken:
            continue
        with pytest.raises(ValueError, match=rf"{metric} takes no {key}; its parameters: {listed}"):
            parse_metric_name(_name(metric, f"{key}=1"))


def test_precision_takes_no_p_as_ir_measures_refuses_it() -> None:
    with pytest.raises(ValueError, match="precision takes no p; its parameters: rel, judged_only"):
        rk.evaluate(
            pl.DataFrame({"q": [1], "item": [1], "score": [1.0]}),
            pl.DataFrame({"q": [1], "item": [1]}),
            metrics=["P(p=0.9)@5"],
            group_by="q",
        )


def _adversarial(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Groups of 1..25 candidates with many tied scores, repeated items, graded truth with
    negative grades and zeros, groups without truth or without a relevant item."""
    draw = random.Random(seed)
    rows, truth = [], []
    for group in range(60):
        for _ in range(draw.randint(1, 25)):
            rows.append((group, f"d{draw.randint(0, 30)}", float(draw.randint(0, 6))))
        for _ in range(draw.randint(0, 12)):
            truth.append((group, f"d{draw.randint(0, 30)}", draw.choice([-1, 0, 1, 1, 2, 3, 4])))
    candidates = pl.DataFrame(rows, schema=["q", "item", "score"], orient="row")
    judged = pl.DataFrame(truth, schema=["q", "item", "relevance"], orient="row")
    return candidates, judged.unique(["q", "item"], keep="first", maintain_order=True)


@pytest.mark.parametrize(
    "base",
    [Policy(), Policy(relevance_threshold=2), Policy.trec_eval(), Policy(gain="binary")],
    ids=["default", "threshold-2", "trec_eval", "binary-gain"],
)
def test_a_field_a_metric_does_not_declare_never_changes_its_number(base: Policy) -> None:
    """Every accuracy metric at two cut-offs, under each parameter field changed alone: only
    the metrics that declare the field (`Metric.reads`) may move."""
    candidates, truth = _adversarial(1)
    accuracy = [name for name, metric in REGISTRY.items() if metric.kind == "accuracy"]
    assert set(OTHER_VALUES) == PARAMETER_FIELDS

    def values(policy: Policy) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = rk.evaluate(candidates, truth, k=[3, 10], metrics=accuracy, group_by="q",
                                policy=policy)  # fmt: skip
        return found.per_group.select("q", "metric", "k", "value")

    reference = values(base)
    for field, value in OTHER_VALUES.items():
        changed = values(base.replace(**{field: value}))
        joined = reference.join(changed, on=["q", "metric", "k"], nulls_equal=True, how="full",
                                coalesce=True)  # fmt: skip
        moved = joined.filter(
            ~((pl.col("value") - pl.col("value_right")).abs() <= 1e-12)
            & ~(pl.col("value").is_nan() & pl.col("value_right").is_nan())
            | (pl.col("value").is_null() != pl.col("value_right").is_null())
        )
        undeclared = {m for m in moved["metric"].unique() if field not in REGISTRY[m].reads}
        assert not undeclared, f"{field} changes {sorted(undeclared)}, which do not declare it"


def _argument(parameter: Parameter) -> object:
    """The Python value of `parameter`'s keyword argument typed as `_typed` types it."""
    text, _ = _typed(parameter)
    if parameter.reading == "gains":
        return {0: 1, 1: 4}
    if parameter.reading == "field":
        return text.strip("'")
    return text if parameter.reading == "choice" else float(text)


_EXPRESSED = [
    (name, parameter)
    for name, metric in REGISTRY.items()
    if hasattr(rk, metric.function_name)
    for parameter in metric.parameters
]


@pytest.mark.parametrize(
    ("metric", "parameter"), _EXPRESSED, ids=[f"{m}-{p.key}" for m, p in _EXPRESSED]
)
def test_an_expression_takes_its_metrics_parameters_as_keywords(
    metric: str, parameter: Parameter
) -> None:
    """``rk.rbp_at_k(..., p=0.5)`` and ``rk.metrics_expression("rbp(p=0.5)@5", ...)`` equal
    `evaluate` of the name ``rbp(p=0.5)@5``, group by group, from the one declaration."""
    candidates, truth = _adversarial(2)
    text, _ = _typed(parameter)
    name = _name(metric, f"{parameter.key}={text}")
    entry = REGISTRY[metric]
    cut = {"k": 5} if entry.has_k else {}
    labelled = rk.label(candidates, truth, group_by="q")
    common = {"by": "score", "item": "item", "unretrieved": "unretrieved", **cut}
    by_keyword = getattr(rk, entry.function_name)(
        "relevance", **common, **{parameter.key: _argument(parameter)}
    ).alias("keyword")
    by_name = rk.metrics_expression(name, "relevance", **common).alias("name")
    mine = labelled.group_by("q").agg(by_keyword, by_name).sort("q")
    # The keyword sets its field on the policy; the name is read as `evaluate` reads it (a
    # tool's spelling may set more: ir_measures' RBP(p=...) weighs by grade).
    field_set = Policy(**{parameter.field: _typed(parameter)[1]})  # type: ignore[arg-type]
    for column, asked, policy in (("keyword", metric, field_set), ("name", name, Policy())):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = rk.evaluate(
                candidates, truth, k=5, metrics=[asked], group_by="q", policy=policy
            )
        # The groups evaluate scores (it leaves out those its policy drops: no truth).
        both = result.per_group.join(mine, on="q", how="left").sort("q")
        assert both[column].to_list() == pytest.approx(both["value"].to_list(), nan_ok=True)


def test_an_expression_parameter_that_does_not_read_is_refused_by_its_key() -> None:
    with pytest.raises(ValueError, match="p must be a number"):
        rk.rbp_at_k("relevance", by="score", k=5, p="high")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="read different parameters"):
        rk.metrics_expression(["RBP(p=0.5)@5", "RBP(p=0.9)@5"], "relevance", by="score")
