//! `Policy`'s fields the kernel applies, as serde reads them from the pickled kwargs: one
//! Rust field per Python field, named alike, each Literal an enum of the same words
//! (`polars_rankk/core/policy.py` and `types.py` declare them).

use serde::Deserialize;

/// `Policy.ties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ties {
    TrecEval,
    ItemAsc,
    InputOrder,
    Pessimistic,
    Optimistic,
    Expected,
}

/// `Policy.invalid_scores`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Invalid {
    /// Scores were validated: none is invalid.
    Error,
    Drop,
    Lowest,
}

/// `Policy.gain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gain {
    Linear,
    Exponential,
    Binary,
}

/// `Policy.duplicates` (`"error"` was checked in Polars: no duplicate reaches the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Duplicates {
    First,
    Error,
    Keep,
}

/// `Policy.unjudged` (the call's `condense` says whether the candidates are condensed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unjudged {
    Keep,
    Condense,
}

/// `Policy.negative_grades`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NegativeGrades {
    Nonrelevant,
    Unjudged,
}

/// `Policy.rbp_grades`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RbpGrades {
    Binary,
    Graded,
}

/// `Policy.nonrelevant_gain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NonrelevantGain {
    Grade,
    Zero,
}

/// The `Policy` fields the kernel applies: every field outside `loader.APPLIED_IN_POLARS`,
/// as Python holds them (`loader.kernel_policy` sends `Policy`'s own values, nothing derived).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    pub duplicates: Duplicates,
    pub ties: Ties,
    pub relevance_threshold: f64,
    pub gain: Gain,
    pub invalid_scores: Invalid,
    pub unjudged: Unjudged,
    /// Applied through RBP's declared weight (the term table), read here for completeness.
    pub rbp_persistence: f64,
    pub err_max_grade: f64,
    pub negative_grades: NegativeGrades,
    /// Grades given another gain, and that gain (sorted pairs; None: no grade is listed).
    pub gains: Option<Vec<(f64, f64)>>,
    pub rbp_grades: RbpGrades,
    pub nonrelevant_gain: NonrelevantGain,
    /// The C/W/L gain's top grade M: a grade gains min(max(grade, 0), M) / M.
    pub cwl_max_grade: f64,
}

impl Default for Policy {
    /// `Policy()`'s defaults (the kernel's own unit tests build configurations from it).
    fn default() -> Self {
        Policy {
            duplicates: Duplicates::First,
            ties: Ties::TrecEval,
            relevance_threshold: 1.0,
            gain: Gain::Linear,
            invalid_scores: Invalid::Error,
            unjudged: Unjudged::Keep,
            rbp_persistence: 0.8,
            err_max_grade: 4.0,
            negative_grades: NegativeGrades::Nonrelevant,
            gains: None,
            rbp_grades: RbpGrades::Binary,
            nonrelevant_gain: NonrelevantGain::Grade,
            cwl_max_grade: 1.0,
        }
    }
}

impl Policy {
    /// `duplicates="keep"`: every copy of an item is ranked.
    pub fn keep_duplicates(&self) -> bool {
        self.duplicates == Duplicates::Keep
    }

    /// The listed grades and their gains.
    pub fn gain_pairs(&self) -> &[(f64, f64)] {
        self.gains.as_deref().unwrap_or(&[])
    }
}
