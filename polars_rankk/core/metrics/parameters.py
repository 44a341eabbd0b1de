"""The parameters a metric's name may carry, each declared once: the key a user types, the
`Policy` field it sets, how its value reads, its default and one line saying what it does.

A metric's registry entry lists its own parameters (`Metric.parameters`); every accuracy and
subtopic metric also takes the `GENERAL` ones (``rel``, ``judged_only``), which set fields every
metric reads. Name parsing, its refusals (``P(p=0.9)@5``: "precision takes no p"), the grouping
of names into the parts of an evaluation, result labels and ``docs/metric_names.md`` all read
these declarations.

A parameter is typed by its key (``RBP(p=0.9)``) or by its Policy field's name, with the
field's own values (``rbp(rbp_persistence=0.9)``, ``ndcg(gain='exponential')``): the labels a
result writes use the field names, so that they read back as the same measure.

Examples
--------
>>> from polars_rankk.core.metrics.parameters import RBP_PERSISTENCE, JUDGED_ONLY
>>> RBP_PERSISTENCE.read("0.9"), JUDGED_ONLY.read("True"), JUDGED_ONLY.read_field("condense")
(0.9, 'condense', 'condense')
>>> RBP_PERSISTENCE.default
0.8
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal, get_args, get_type_hints

from polars_rankk.core.policy import Policy, parse_gains

__all__ = [
    "ALPHA",
    "AP_DENOMINATOR",
    "COMPAT_PERSISTENCE",
    "CWL_MAX_GRADE",
    "CWL_TARGET",
    "DCG",
    "ERR_MAX_GRADE",
    "F_BETA",
    "GAINS",
    "GENERAL",
    "JUDGED_ONLY",
    "NDCG_GAIN",
    "NONRELEVANT_GAIN",
    "NRBP_BETA",
    "OWN",
    "PARAMETER_FIELDS",
    "Q_BETA",
    "RBP_GRADES",
    "RBP_PERSISTENCE",
    "RELEVANCE_THRESHOLD",
    "SHARED_FIELDS",
    "Parameter",
    "field_value",
    "written_value",
]

#: How a typed value reads: a number; a grade (an integer where it is one); F's beta as
#: trec_eval and ir_measures type it (beta squared); a word among `Parameter.choices`; a gain
#: map (``{0:1,1:4}``); or the Policy field's own values.
Reading = Literal["number", "grade", "beta_squared", "choice", "gains", "field"]


def _field_types() -> dict[str, Any]:
    """Policy's field annotations, resolved (for the values a field's own name reads)."""
    return get_type_hints(Policy)


def field_value(name: str, text: str) -> Any:
    """`text` as a value of Policy field `name`, as a name's parameter typed by the field's
    own name reads (``gain='exponential'``, ``relevance_threshold=2``, ``gains={0:1,1:4}``).

    Raises a ValueError saying what the field takes.

    Examples
    --------
    >>> from polars_rankk.core.metrics.parameters import field_value
    >>> field_value("relevance_threshold", "2"), field_value("ties", "'item_asc'")
    (2, 'item_asc')
    """
    value = text.strip().strip("'\"")
    if name == "gains":
        return parse_gains(value)
    choices = get_args(_field_types()[name])
    if choices and all(isinstance(choice, str) for choice in choices):
        if value not in choices:
            allowed = ", ".join(repr(choice) for choice in choices)
            raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
        return value
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{name} must be a number; got {value!r}") from None
    return int(number) if number.is_integer() and name == "relevance_threshold" else number


def written_value(name: str, value: Any) -> str:
    """`value` of Policy field `name` as a name's parameter writes it, so that it reads back
    (`field_value`): a gain map as ``{0:1,1:4}``, a word quoted, a number as it is.

    Examples
    --------
    >>> from polars_rankk.core.metrics.parameters import written_value
    >>> written_value("gains", ((0.0, 1.0), (1.0, 4.0))), written_value("gain", "exponential")
    ('{0:1,1:4}', "'exponential'")
    """
    if name == "gains" and value is not None:
        pairs = ((float(g), float(v)) for g, v in value)
        return "{" + ",".join(f"{g:g}:{v:g}" for g, v in pairs) + "}"
    return repr(value)


@dataclass(frozen=True)
class Parameter:
    """One parameter a metric's name may carry.

    Attributes
    ----------
    key
        As typed in a name (``p`` in ``RBP(p=0.9)``); matched ignoring case.
    field
        The `Policy` field it sets, for that measure alone.
    description
        One line: what it changes.
    reading
        How a typed value reads (`Reading`).
    choices
        For ``reading="choice"``: each word (lower case) and the field value it sets, as pairs.
    tool_default
        The value a tool's spelling of the metric means when its name leaves the parameter out,
        where that differs from ``Policy()``'s (ir_measures' NERR10 has p = 0.9); None: the
        evaluation's policy decides.
    """

    key: str
    field: str
    description: str
    reading: Reading = "number"
    choices: tuple[tuple[str, Any], ...] = ()
    tool_default: Any = None

    @property
    def default(self) -> Any:
        """The value of its field under ``Policy()``."""
        return getattr(Policy(), self.field)

    def read(self, text: str) -> Any:
        """The field value `text`, typed after this parameter's key, sets.

        Raises a ValueError saying what the parameter takes.
        """
        value = text.strip().strip("'\"")
        if self.reading == "gains":
            return parse_gains(value)
        if self.reading == "field":
            return field_value(self.field, value)
        if self.reading == "choice":
            words = dict(self.choices)
            if value.lower() not in words:
                raise ValueError(f"{self.key} must be one of {', '.join(words)}; got {value!r}")
            return words[value.lower()]
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{self.key} must be a number; got {value!r}") from None
        if self.reading == "beta_squared":
            # trec_eval's set_F.x and ir_measures' SetF(beta=x) weigh with x = beta^2.
            return math.sqrt(number) if number > 0 else number
        if self.reading == "grade" and number.is_integer():
            return int(number)
        return number

    def value_of(self, value: Any) -> Any:
        """The field value a Python argument sets (``rk.rbp_at_k(..., p=0.9)``): read as the
        key reads a typed value (``judged_only=True``, F's ``beta`` squared), a gain map or a
        field's own value as given (the `Policy` checks it).

        Raises a ValueError saying what the parameter takes.

        Examples
        --------
        >>> from polars_rankk.core.metrics.parameters import JUDGED_ONLY, RBP_PERSISTENCE
        >>> JUDGED_ONLY.value_of(True), RBP_PERSISTENCE.value_of(0.9)
        ('condense', 0.9)
        """
        if self.reading in ("gains", "field"):
            return value
        if isinstance(value, (bool, int, float, str)):
            return self.read(str(value))
        raise ValueError(f"{self.key} must be a {self.annotation}; got {value!r}")

    @property
    def annotation(self) -> str:
        """The Python type a keyword argument of this parameter takes."""
        if self.reading == "gains":
            return "Mapping[float, float]"
        if self.reading == "choice":
            words = {word for word, _ in self.choices}
            return "bool" if words == {"true", "false"} else "str"
        return "str" if self.reading == "field" else "float"

    def read_field(self, text: str) -> Any:
        """The value `text` sets when typed after the field's own name (``rbp_persistence=``)."""
        return field_value(self.field, text)

    def with_tool_default(self, value: Any) -> Parameter:
        """This parameter, a tool's spelling meaning `value` when the name leaves it out."""
        return Parameter(self.key, self.field, self.description, self.reading, self.choices, value)


# The parameters every accuracy and subtopic metric takes: they set fields every metric reads.
RELEVANCE_THRESHOLD = Parameter(
    "rel", "relevance_threshold", "the least grade that counts as relevant", "grade"
)
JUDGED_ONLY = Parameter(
    "judged_only",
    "unjudged",
    "True removes the candidates without a judgement before ranking (condensed lists)",
    "choice",
    (("true", "condense"), ("false", "keep")),
)
GENERAL: tuple[Parameter, ...] = (RELEVANCE_THRESHOLD, JUDGED_ONLY)

# A metric's own parameters: each sets a field only the metrics that list it read.
RBP_PERSISTENCE = Parameter(
    "p", "rbp_persistence", "the persistence p, the chance a user goes on to the next rank"
)
RBP_GRADES = Parameter(
    "rbp_grades", "rbp_grades", "weigh a relevant rank by 1 ('binary') or its grade", "field"
)
DCG = Parameter(
    "dcg",
    "gain",
    "the gain of a grade: 'log2' the grade, 'exp-log2' 2^grade - 1",
    "choice",
    (("log2", "linear"), ("exp-log2", "exponential")),
)
GAINS = Parameter("gains", "gains", "the gain of listed grades, e.g. {0:1,1:4}", "gains")
NONRELEVANT_GAIN = Parameter(
    "nonrelevant_gain",
    "nonrelevant_gain",
    "whether grades below the relevance threshold keep their gain",
    "field",
)
#: nDCG's and DCG's gain parameters (and trec_eval's G, ndcg_rel and Rndcg, which read them).
NDCG_GAIN: tuple[Parameter, ...] = (DCG, GAINS, NONRELEVANT_GAIN)
AP_DENOMINATOR = Parameter(
    "ap_denominator",
    "ap_denominator",
    "divide by R ('relevant') or by min(K, R) ('min_k_relevant')",
    "field",
)
ERR_MAX_GRADE = Parameter(
    "max_rel", "err_max_grade", "the highest grade g_max: grade g stops with (2^g - 1) / 2^g_max"
)
F_BETA = Parameter(
    "beta",
    "f_beta",
    "F's beta, typed squared as trec_eval and ir_measures type it (beta=0.25 is beta 0.5)",
    "beta_squared",
)
CWL_TARGET = Parameter("T", "cwl_target", "the target T, the total gain a user wants")
CWL_MAX_GRADE = Parameter(
    "max_rel", "cwl_max_grade", "the gain scale M: a grade g gains min(max(g, 0), M) / M"
)
ALPHA = Parameter(
    "alpha", "diversity_alpha", "the redundancy penalty: a subtopic's gain shrinks by (1 - alpha)"
)
NRBP_BETA = Parameter("beta", "nrbp_beta", "NRBP's patience beta, the weight of each next rank")
Q_BETA = Parameter("beta", "q_beta", "the weight of cumulative gain against rank")
COMPAT_PERSISTENCE = Parameter(
    "p", "compat_persistence", "the RBO persistence p, the weight p^(i-1) of depth i"
)


#: Every metric's own parameters: a field one of them sets is read only by the metrics that list
#: it (`PARAMETER_FIELDS`); every other Policy field (ties, duplicates, the relevance
#: threshold ...) is read by every metric.
OWN: tuple[Parameter, ...] = (
    RBP_PERSISTENCE,
    RBP_GRADES,
    *NDCG_GAIN,
    AP_DENOMINATOR,
    ERR_MAX_GRADE,
    F_BETA,
    CWL_TARGET,
    CWL_MAX_GRADE,
    ALPHA,
    NRBP_BETA,
    Q_BETA,
    COMPAT_PERSISTENCE,
)
PARAMETER_FIELDS: frozenset[str] = frozenset(parameter.field for parameter in OWN)
#: The Policy fields every metric reads.
SHARED_FIELDS: frozenset[str] = frozenset(f.name for f in fields(Policy)) - PARAMETER_FIELDS
