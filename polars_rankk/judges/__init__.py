"""Metrics when a model wrote the labels: the judge's agreement with people, its metric means
corrected by the groups people labelled (prediction-powered inference), and how many groups
people should label."""

from polars_rankk.judges.agreement import KAPPA_WEIGHTS, JudgeAgreement, judge_agreement
from polars_rankk.judges.correction import (
    CORRECTION_COLUMNS,
    JudgeCorrectionWarning,
    judge_correction,
)
from polars_rankk.judges.cross import judge_cross_correction
from polars_rankk.judges.planning import PLAN_COLUMNS, judge_labelling_plan

__all__ = [
    "CORRECTION_COLUMNS",
    "KAPPA_WEIGHTS",
    "PLAN_COLUMNS",
    "JudgeAgreement",
    "JudgeCorrectionWarning",
    "judge_agreement",
    "judge_correction",
    "judge_cross_correction",
    "judge_labelling_plan",
]
