"""Metrics when a model wrote the labels: the judge's agreement with people, and its
metric means corrected by the groups people labelled (prediction-powered inference)."""

from polars_rankk.judges.agreement import KAPPA_WEIGHTS, JudgeAgreement, judge_agreement
from polars_rankk.judges.correction import (
    CORRECTION_COLUMNS,
    JudgeCorrectionWarning,
    judge_correction,
)

__all__ = [
    "CORRECTION_COLUMNS",
    "KAPPA_WEIGHTS",
    "JudgeAgreement",
    "JudgeCorrectionWarning",
    "judge_agreement",
    "judge_correction",
]
