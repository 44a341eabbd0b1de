//! What one call computes: the policy and the call's description, sent by Python in the
//! pickled kwargs (`polars_rankk/core/kernel/loader.py`, `kwargs`):
//! `{"policy": {...}, "call": {...}}`, both deserialized by serde.
//!
//! `policy` is every `Policy` field the kernel applies, read into [`Policy`] (one Rust field
//! per Python field, named alike, each Literal an enum of the same words). `call` is
//! `polars_rankk/core/kernel/call.py`'s `Call` (columns, the derived grades, the term table,
//! the outputs), read into [`Call`] the same way. Unknown fields and values are refused on
//! both, so a field added on one side only cannot be silently ignored.

use serde::Deserialize;

pub use crate::policy::{Duplicates, Gain, Invalid, NegativeGrades, NonrelevantGain, Policy, RbpGrades, Ties, Unjudged};

/// How a key or item column's values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Int64 values.
    Integer,
    /// Strings, compared byte by byte.
    Text,
}

/// The pickled kwargs of every call.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    policy: Policy,
    call: Call,
    /// Further label policies read from the same ranking (`call.py`'s `LabelPart`).
    #[serde(default)]
    labels: Vec<LabelSpec>,
}

/// Another policy's terms and outputs read from the call's one ranking (`call.LabelPart`):
/// its ordering fields are the call's, its label fields (threshold, gain, parameters) its own.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSpec {
    pub policy: Policy,
    pub terms: Vec<TermSpec>,
    pub outputs: Vec<OutputSpec>,
}

/// A weight's token as Python sends it: a constant, or the rank and the operations by name.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum TokenSpec {
    Number(f64),
    Word(String),
}

/// One piece of a linear term (`call.KernelPiece`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    pub label: Label,
    pub divide: bool,
    /// The weight of the rank in postfix order (empty: the label itself).
    pub weight: Vec<TokenSpec>,
}

/// A linear term (`call.LinearTerm`): its name and pieces.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermSpec {
    pub name: String,
    pub pieces: Vec<PieceSpec>,
}

/// What an output column holds (`call.Output.value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputValue {
    Key,
    NCandidates,
    HitsAtR,
    NRelevant,
    NNonrelevant,
    IdealDcg,
    Sum,
    ConstantScores,
    RelevantRows,
    MatchedRelevant,
    TieAt,
    Places,
}

/// One output column (`call.Output`): `k` is the key column's index (`Key`) or the cut-off
/// (`IdealDcg`, `Sum`; 0: the whole list); `term` names the summed term (`Sum`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    pub column: String,
    pub value: OutputValue,
    pub k: usize,
    pub term: Option<String>,
}

/// The call's description (`polars_rankk/core/kernel/call.py`'s `Call`), field for field;
/// `Config` is what the kernel derives from it and the policy.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub keys: Vec<Kind>,
    pub item: Kind,
    pub score_name: String,
    pub unjudged_grade: f64,
    pub may_add: Vec<f64>,
    pub null_order_grade: f64,
    pub condense: bool,
    pub judged: Judged,
    pub positive_only: bool,
    pub labelled: bool,
    pub negative_unjudged: bool,
    pub row: bool,
    pub truth: bool,
    pub counts: usize,
    pub one_group: bool,
    pub has_item: bool,
    pub has_extra: bool,
    pub pool_restrict: bool,
    /// The scores were checked finite before the call: no scan for an invalid one.
    #[serde(default)]
    pub scores_checked: bool,
    pub terms: Vec<TermSpec>,
    pub outputs: Vec<OutputSpec>,
    /// The outputs handed back, by column (empty: all): the metric expressions compute the
    /// common metrics' statistics and each returns the ones its formula reads.
    #[serde(default)]
    pub returned: Vec<String>,
    /// Items are named by their text up to the first occurrence of this text (empty: the
    /// whole text): passages read as their documents (`to_documents`' delimiter).
    #[serde(default)]
    pub item_prefix: String,
}

impl Default for Call {
    /// `call.py`'s `Call()`: field for field the Python dataclass's defaults, so that a test,
    /// a benchmark or an example writes only the fields it sets.
    fn default() -> Self {
        Call {
            keys: Vec::new(),
            item: Kind::Integer,
            score_name: "score".to_string(),
            unjudged_grade: 0.0,
            may_add: Vec::new(),
            null_order_grade: 0.0,
            condense: false,
            judged: Judged::Unused,
            positive_only: false,
            labelled: false,
            negative_unjudged: false,
            row: false,
            truth: false,
            counts: 0,
            one_group: false,
            has_item: true,
            has_extra: false,
            pool_restrict: false,
            scores_checked: false,
            terms: Vec::new(),
            outputs: Vec::new(),
            returned: Vec::new(),
            item_prefix: String::new(),
        }
    }
}

/// Where a candidate's "has a judgement" flag comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judged {
    /// Not needed.
    Unused,
    /// The grade is non-null (the left join with the judged truth matched).
    Grade,
    /// Every candidate is judged (pre-labelled candidates).
    All,
    /// A separate Float64 column (non-zero: judged).
    Column,
    /// Pre-labelled candidates under `negative_grades="unjudged"`: a grade >= 0.
    #[serde(rename = "nonnegative")]
    NonNegative,
}

/// What a linear term reads of a row (`polars_rankk/core/metrics/algebra.py`, `LABELS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    One = 0,
    Relevant = 1,
    Grade = 2,
    Gain = 3,
    Judged = 4,
    FirstRelevant = 5,
    RbpGain = 6,
    /// The C/W/L measures' gain, min(max(grade, 0), M) / M (`Policy.cwl_max_grade`).
    CwlGain = 7,
}

pub const N_LABELS: usize = 8;

/// One step of a weight of the rank, in postfix order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token {
    Rank,
    Const(f64),
    Log2,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// `label` (times or divided by) `weight(rank)`; no weight: the label itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub label: Label,
    pub divide: bool,
    pub weight: Option<Vec<Token>>,
}

/// A term the kernel sums: declared as data (labels times weights), or one of the three
/// that are not linear, computed by name.
#[derive(Clone, Debug, PartialEq)]
pub enum Stat {
    Linear(Vec<Piece>),
    PrecisionSum,
    Err,
    Bpref,
}

/// One output column.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The group's value of key column `i`.
    Key(usize),
    NCandidates,
    HitsAtR,
    /// One group's R_g, judged non-relevant count and ideal DCG at k (`grouped_metric_sums`).
    NRelevant,
    NNonrelevant,
    IdealDcg(usize),
    /// Running sum `stat` (an index into `Config::stats`) read at cut-off `k` (`k == 0`: over
    /// the whole list).
    At(usize, usize),
    /// The diagnostics' facts of a ranked group (`kernel::facts`): 1 where its scores are all
    /// equal, its relevant rows, its distinct relevant items, 1 where ranks k and k + 1 tie.
    ConstantScores,
    RelevantRows,
    MatchedRelevant,
    TieAt(usize),
    /// The items at ranks 1..=k of each group, a list per group (`group_sums` only): where a
    /// reader takes its items' places from the evaluation's own ranking.
    Places(usize),
}

#[derive(Clone, Debug)]
pub struct Config {
    pub key_kinds: Vec<Kind>,
    pub item_kind: Kind,
    pub policy: Policy,
    pub condense: bool,
    pub judged: Judged,
    /// Grades <= 0 count as 0 (the join kept only positive truth rows on the reference path).
    pub positive_only: bool,
    /// The grade terms read for an unjudged row (0, or -inf when a grade <= 0 is mapped to a
    /// gain: `ranking.unjudged_grade`).
    pub unjudged_grade: f64,
    /// The grade a null grade ranks with under relevance-aware ties.
    pub null_order_grade: f64,
    /// Grades <= 0 that `positive_only` keeps (those `Policy.gains` maps).
    pub may_add: Vec<f64>,
    /// Pre-labelled, `negative_grades="unjudged"`, a mapped grade <= 0: a negative grade is
    /// unjudged for the terms.
    pub negative_unjudged: bool,
    /// Pre-labelled candidates (their grades are not joined from a truth table).
    pub labelled: bool,
    /// Groups' rows one after another (`grouped_metric_sums`): no key columns; whether an item column and
    /// the grades of the group's judged items the rows miss come with it.
    pub one_group: bool,
    pub has_item: bool,
    pub has_extra: bool,
    /// `pool="restrict"`: the truth is restricted to the ranked items.
    pub pool_restrict: bool,
    /// The scores were checked finite before the call (`Call::scores_checked`).
    pub scores_checked: bool,
    pub has_row: bool,
    /// The truth's rows follow the candidates' in the same columns (a grade: a truth row);
    /// the kernel joins them itself and counts each group's R and N.
    pub truth: bool,
    /// 0, 1 (R) or 2 (R and judged non-relevant N) count columns.
    pub n_counts: usize,
    /// Every term an output reads, by name.
    pub stats: Vec<(String, Stat)>,
    pub outputs: Vec<(String, Output)>,
    /// The outputs a metric expression's call hands back (empty: all).
    pub returned: Vec<String>,
    /// Items named by their text up to the first occurrence of this (empty: the whole text).
    pub item_prefix: Vec<u8>,
    /// Further policies read from the same ranking of each group, each with its own terms and
    /// outputs (written after this configuration's, in order); their ordering fields and
    /// inputs are this configuration's.
    pub labels: Vec<Config>,
}

impl Config {
    /// This configuration and each label configuration, in output order.
    pub fn readers(&self) -> impl Iterator<Item = &Config> {
        std::iter::once(self).chain(self.labels.iter())
    }

    /// Every output column: this configuration's, then each label configuration's.
    pub fn all_outputs(&self) -> impl Iterator<Item = &(String, Output)> {
        self.readers().flat_map(|config| config.outputs.iter())
    }

    /// The relevance thresholds the truth's counts are taken at, one per count set: each
    /// reader's when the kernel counts the truth itself, else the one set of count columns.
    pub fn count_thresholds(&self) -> Vec<f64> {
        if self.truth {
            self.readers().map(|config| config.policy.relevance_threshold).collect()
        } else {
            vec![self.policy.relevance_threshold]
        }
    }

    /// The number of input columns this configuration reads.
    pub fn n_inputs(&self) -> usize {
        if self.one_group {
            return usize::from(self.has_item) + 2 + usize::from(self.has_extra) + self.n_counts;
        }
        let judged = usize::from(self.judged == Judged::Column);
        self.key_kinds.len() + 3 + judged + usize::from(self.has_row) + self.n_counts
    }

    /// Whether every rank of a list is read, whatever the cut-offs: a sum over the whole list
    /// (average precision, bpref), or expected ties (each tie block's expectation is read
    /// through the whole list, as the reference reads it).
    pub fn whole_list(&self) -> bool {
        self.policy.ties == Ties::Expected || self.outputs.iter().any(|(_, o)| matches!(o, Output::At(_, 0)))
    }

    /// Whether hits within the first R ranks are read (R-precision): R ranks past K.
    pub fn reads_hits_at_r(&self) -> bool {
        self.outputs.iter().any(|(_, o)| matches!(o, Output::HitsAtR))
    }

    /// Whether a diagnostics fact of the ranked groups is read (`kernel::facts`).
    pub fn reads_facts(&self) -> bool {
        self.outputs.iter().any(|(_, o)| {
            matches!(o, Output::ConstantScores | Output::RelevantRows | Output::MatchedRelevant | Output::TieAt(_))
        })
    }

    /// The ranks whose items `Output::Places` lists, where it is asked.
    pub fn places_depth(&self) -> Option<usize> {
        self.outputs.iter().find_map(|(_, o)| match o {
            Output::Places(depth) => Some(*depth),
            _ => None,
        })
    }

    /// The largest cut-off read.
    pub fn k_max(&self) -> usize {
        self.outputs
            .iter()
            .filter_map(|(_, o)| match o {
                Output::At(_, k) | Output::TieAt(k) => Some(*k),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The index of the named term `name`, declaring it when it is one of the named ones.
    fn stat_index(&mut self, name: &str) -> Result<usize, String> {
        if let Some(index) = self.stats.iter().position(|(n, _)| n == name) {
            return Ok(index);
        }
        let stat = match name {
            "precision_sum" => Stat::PrecisionSum,
            "err" => Stat::Err,
            "bpref" => Stat::Bpref,
            other => return Err(format!("unknown term {other:?} (declare it among the call's terms)")),
        };
        self.stats.push((name.to_string(), stat));
        Ok(self.stats.len() - 1)
    }

    /// Which labels the linear terms read.
    pub fn labels(&self) -> [bool; N_LABELS] {
        let mut read = [false; N_LABELS];
        for (_, stat) in &self.stats {
            if let Stat::Linear(pieces) = stat {
                for piece in pieces {
                    read[piece.label as usize] = true;
                }
            }
        }
        read
    }
}

/// A weight's tokens, checked to leave one value on the stack at every step's end.
fn weight(tokens: &[TokenSpec], term: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut depth = 0i64;
    for token in tokens {
        let token = match token {
            TokenSpec::Number(value) => Token::Const(*value),
            TokenSpec::Word(word) => match word.as_str() {
                "r" => Token::Rank,
                "log2" => Token::Log2,
                "+" => Token::Add,
                "-" => Token::Sub,
                "*" => Token::Mul,
                "/" => Token::Div,
                "pow" => Token::Pow,
                other => return Err(format!("term {term:?}: unknown weight token {other:?}")),
            },
        };
        depth += match token {
            Token::Rank | Token::Const(_) => 1,
            Token::Log2 => 0,
            _ => -1,
        };
        if depth < 1 {
            return Err(format!("term {term:?}: malformed weight"));
        }
        out.push(token);
    }
    if depth != 1 {
        return Err(format!("term {term:?}: malformed weight"));
    }
    Ok(out)
}

/// A linear term's pieces.
fn linear(term: &TermSpec) -> Result<Stat, String> {
    let mut pieces = Vec::with_capacity(term.pieces.len());
    for piece in &term.pieces {
        let weight = if piece.weight.is_empty() { None } else { Some(weight(&piece.weight, &term.name)?) };
        pieces.push(Piece { label: piece.label, divide: piece.divide, weight });
    }
    Ok(Stat::Linear(pieces))
}

/// The call's policy and configuration from its pickled kwargs, and the score column's name
/// (for error messages).
pub fn from_kwargs(bytes: &[u8]) -> Result<(Config, String), String> {
    let kwargs: Kwargs = serde_pickle::from_slice(bytes, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    let score_name = kwargs.call.score_name.clone();
    let mut config = from_call(&kwargs.call, kwargs.policy)?;
    for label in kwargs.labels {
        if !same_ordering(&config.policy, &label.policy) {
            return Err("a label policy's ordering fields differ from the call's".to_string());
        }
        if !config.truth && config.n_counts > 0 {
            return Err("label policies need the truth's rows to count R and N".to_string());
        }
        let call = Call { terms: label.terms, outputs: label.outputs, returned: Vec::new(), ..kwargs.call.clone() };
        config.labels.push(from_call(&call, label.policy)?);
    }
    Ok((config, score_name))
}

/// Whether two policies rank alike (`Policy.ORDERING_FIELDS` that the kernel reads).
fn same_ordering(one: &Policy, other: &Policy) -> bool {
    one.duplicates == other.duplicates
        && one.ties == other.ties
        && one.invalid_scores == other.invalid_scores
        && one.unjudged == other.unjudged
        && one.negative_grades == other.negative_grades
        && one.gains == other.gains
}

/// The configuration the kernel computes with, from the call's description and policy.
pub fn from_call(call: &Call, policy: Policy) -> Result<Config, String> {
    let mut config = Config {
        key_kinds: call.keys.clone(),
        item_kind: call.item,
        policy,
        condense: call.condense,
        judged: call.judged,
        positive_only: call.positive_only,
        unjudged_grade: call.unjudged_grade,
        null_order_grade: call.null_order_grade,
        may_add: call.may_add.clone(),
        negative_unjudged: call.negative_unjudged,
        labelled: call.labelled,
        one_group: call.one_group,
        has_item: call.has_item,
        has_extra: call.has_extra,
        pool_restrict: call.pool_restrict,
        scores_checked: call.scores_checked,
        has_row: call.row,
        truth: call.truth,
        n_counts: call.counts,
        stats: Vec::new(),
        outputs: Vec::new(),
        returned: call.returned.clone(),
        item_prefix: call.item_prefix.as_bytes().to_vec(),
        labels: Vec::new(),
    };
    for term in &call.terms {
        let stat = linear(term)?;
        config.stats.retain(|(n, _)| *n != term.name);
        config.stats.push((term.name.clone(), stat));
    }
    for spec in &call.outputs {
        let output = match spec.value {
            OutputValue::Key => {
                if spec.k >= config.key_kinds.len() {
                    return Err(format!("key index {} out of range", spec.k));
                }
                Output::Key(spec.k)
            }
            OutputValue::NCandidates => Output::NCandidates,
            OutputValue::HitsAtR => Output::HitsAtR,
            OutputValue::NRelevant => Output::NRelevant,
            OutputValue::NNonrelevant => Output::NNonrelevant,
            OutputValue::IdealDcg => Output::IdealDcg(spec.k),
            OutputValue::ConstantScores => Output::ConstantScores,
            OutputValue::RelevantRows => Output::RelevantRows,
            OutputValue::MatchedRelevant => Output::MatchedRelevant,
            OutputValue::TieAt if spec.k == 0 => return Err(format!("output {:?}: a tie at rank 0", spec.column)),
            OutputValue::TieAt => Output::TieAt(spec.k),
            OutputValue::Places if config.places_depth().is_some() => {
                return Err(format!("output {:?}: a second list of places", spec.column))
            }
            OutputValue::Places => Output::Places(spec.k),
            OutputValue::Sum => {
                let term = spec.term.as_deref().ok_or_else(|| format!("output {:?}: no term", spec.column))?;
                Output::At(config.stat_index(term)?, spec.k)
            }
        };
        config.outputs.push((spec.column.clone(), output));
    }
    if let Some(unknown) = config.returned.iter().find(|name| !config.outputs.iter().any(|(n, _)| n == *name)) {
        return Err(format!("returned output {unknown:?} is not one of the call's outputs"));
    }
    if config.key_kinds.is_empty() && !config.one_group {
        return Err("no group key".to_string());
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    fn call(terms: Vec<TermSpec>, outputs: Vec<OutputSpec>) -> Call {
        Call { keys: vec![Kind::Integer, Kind::Text], item: Kind::Text, terms, outputs, ..Call::default() }
    }

    #[test]
    fn reads_a_weight() {
        let dcg = testing::term("dcg", vec![testing::dcg_piece()]);
        let Stat::Linear(pieces) = linear(&dcg).unwrap() else { panic!() };
        assert_eq!(pieces[0].weight.as_ref().unwrap().len(), 4);
        let broken = TermSpec {
            pieces: vec![PieceSpec { weight: vec![testing::word("r"), testing::word("+")], ..dcg.pieces[0].clone() }],
            ..dcg
        };
        assert!(linear(&broken).is_err());
    }

    #[test]
    fn reads_the_pickled_kwargs() {
        // loader.kwargs(Policy(ties="expected", gains={0: 1}), loader.Call(keys=("integer",))),
        // pickled with protocol 5.
        let bytes = include_bytes!("../tests/kwargs.pickle");
        let (config, score) = from_kwargs(bytes).unwrap();
        let expected = Policy { ties: Ties::Expected, gains: Some(vec![(0.0, 1.0)]), ..Policy::default() };
        assert_eq!(config.policy, expected);
        assert_eq!(config.key_kinds, vec![Kind::Integer]);
        assert_eq!(score, "score");
        let refused = from_kwargs(b"\x80\x05}\x94.").unwrap_err();
        assert!(refused.contains("keyword arguments"), "{refused}");
    }

    #[test]
    fn reads_outputs() {
        let hits = testing::term("hits", vec![testing::label(Label::Relevant)]);
        let outputs = vec![testing::sum("_rk_hits@5", "hits", 5), testing::key("q", 0)];
        let config = from_call(&call(vec![hits], outputs), Policy::default()).unwrap();
        assert_eq!(config.outputs[0].1, Output::At(0, 5));
        assert_eq!(config.stats[0].1, Stat::Linear(vec![Piece { label: Label::Relevant, divide: false, weight: None }]));
        assert_eq!(config.outputs[1].1, Output::Key(0));
        assert_eq!(config.k_max(), 5);
        assert_eq!(config.n_inputs(), 5);
        let out_of_range = vec![testing::key("q", 2)];
        assert!(from_call(&call(Vec::new(), out_of_range), Policy::default()).is_err());
    }
}
