"""Counterfactual evaluation: how a new ranking would have done, estimated from logged clicks
(inverse propensity, self-normalised and doubly robust estimators under click models)."""

from polars_rankk.counterfactual.checks import CounterfactualWarning
from polars_rankk.counterfactual.evaluation import evaluate_counterfactual
from polars_rankk.counterfactual.policies import (
    marginals_from_samples,
    plackett_luce_marginals,
    plackett_luce_samples,
)
from polars_rankk.counterfactual.result import CounterfactualDiagnostics, CounterfactualResult
from polars_rankk.counterfactual.sensitivity import SensitivityResult, counterfactual_sensitivity

__all__ = [
    "CounterfactualDiagnostics",
    "CounterfactualResult",
    "CounterfactualWarning",
    "SensitivityResult",
    "counterfactual_sensitivity",
    "evaluate_counterfactual",
    "marginals_from_samples",
    "plackett_luce_marginals",
    "plackett_luce_samples",
]
