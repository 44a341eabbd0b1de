//! What one call computes: the policy and the output columns, sent by Python in the pickled
//! kwargs (`polars_rankk/core/kernel/loader.py`, `kwargs`): `{"policy": {...}, "config": text}`.
//!
//! `policy` is every `Policy` field the kernel applies, deserialized by serde into [`Policy`]
//! (one Rust field per Python field, named alike, each Literal an enum of the same words;
//! unknown fields and values are refused, so a new `Policy` field or choice cannot be silently
//! ignored). `config` is the call's description (columns, terms, outputs) as `name=value` lines.

use serde::Deserialize;

pub use crate::policy::{Duplicates, Gain, Invalid, NegativeGrades, NonrelevantGain, Policy, RbpGrades, Ties, Unjudged};

/// How a key or item column's values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    config: String,
}

/// Where a candidate's "has a judgement" flag comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    NonNegative,
}

/// What a linear term reads of a row (`polars_rankk/core/metrics/algebra.py`, `LABELS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// One group's R_g, judged non-relevant count and ideal DCG at k (`group_metric_sums`).
    NRelevant,
    NNonrelevant,
    IdealDcg(usize),
    /// Running sum `stat` (an index into `Config::stats`) read at cut-off `k` (`k == 0`: over
    /// the whole list).
    At(usize, usize),
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
    /// One group's rows (`group_metric_sums`): no key columns; whether an item column and
    /// the grades of the group's judged items the rows miss come with it.
    pub one_group: bool,
    pub has_item: bool,
    pub has_extra: bool,
    /// `pool="restrict"`: the truth is restricted to the ranked items.
    pub pool_restrict: bool,
    pub has_row: bool,
    /// The truth's rows follow the candidates' in the same columns (a grade: a truth row);
    /// the kernel joins them itself and counts each group's R and N.
    pub truth: bool,
    /// 0, 1 (R) or 2 (R and judged non-relevant N) count columns.
    pub n_counts: usize,
    /// Every term an output reads, by name.
    pub stats: Vec<(String, Stat)>,
    pub outputs: Vec<(String, Output)>,
}

impl Config {
    /// The number of input columns this configuration reads.
    pub fn n_inputs(&self) -> usize {
        if self.one_group {
            return usize::from(self.has_item) + 2 + usize::from(self.has_extra) + self.n_counts;
        }
        let judged = usize::from(self.judged == Judged::Column);
        self.key_kinds.len() + 3 + judged + usize::from(self.has_row) + self.n_counts
    }

    /// Whether any running sum must go past the largest cut-off.
    pub fn whole_list(&self) -> bool {
        self.policy.ties == Ties::Expected
            || self
                .outputs
                .iter()
                .any(|(_, o)| matches!(o, Output::HitsAtR | Output::At(_, 0)))
    }

    /// The largest cut-off read.
    pub fn k_max(&self) -> usize {
        self.outputs
            .iter()
            .filter_map(|(_, o)| match o {
                Output::At(_, k) => Some(*k),
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
            other => return Err(format!("unknown term {other:?} (declare it with a linear= line)")),
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

fn kind(text: &str) -> Result<Kind, String> {
    match text {
        "integer" => Ok(Kind::Integer),
        "text" => Ok(Kind::Text),
        other => Err(format!("unknown column kind {other:?}")),
    }
}

fn label(text: &str) -> Result<Label, String> {
    Ok(match text {
        "one" => Label::One,
        "relevant" => Label::Relevant,
        "grade" => Label::Grade,
        "gain" => Label::Gain,
        "judged" => Label::Judged,
        "first_relevant" => Label::FirstRelevant,
        "rbp_gain" => Label::RbpGain,
        "cwl_gain" => Label::CwlGain,
        other => return Err(format!("unknown label {other:?}")),
    })
}

fn token(text: &str) -> Result<Token, String> {
    Ok(match text {
        "r" => Token::Rank,
        "log2" => Token::Log2,
        "+" => Token::Add,
        "-" => Token::Sub,
        "*" => Token::Mul,
        "/" => Token::Div,
        "pow" => Token::Pow,
        other => match other.strip_prefix("c:") {
            Some(value) => Token::Const(number(value, "constant")?),
            None => return Err(format!("unknown weight token {other:?}")),
        },
    })
}

/// A linear term: `label [op postfix-weight]` pieces separated by `;`.
fn linear(text: &str) -> Result<Stat, String> {
    let mut pieces = Vec::new();
    for part in text.split(';').filter(|p| !p.trim().is_empty()) {
        let mut words = part.split_whitespace();
        let label = label(words.next().ok_or("empty piece")?)?;
        let (divide, weight) = match words.next() {
            None => (false, None),
            Some(op) => {
                let divide = match op {
                    "*" => false,
                    "/" => true,
                    other => return Err(format!("a piece multiplies or divides; got {other:?}")),
                };
                let tokens: Vec<Token> = words.map(token).collect::<Result<_, _>>()?;
                let mut depth = 0i64;
                for t in &tokens {
                    depth += match t {
                        Token::Rank | Token::Const(_) => 1,
                        Token::Log2 => 0,
                        _ => -1,
                    };
                    if depth < 1 {
                        return Err(format!("malformed weight in {part:?}"));
                    }
                }
                if depth != 1 {
                    return Err(format!("malformed weight in {part:?}"));
                }
                (divide, Some(tokens))
            }
        };
        pieces.push(Piece { label, divide, weight });
    }
    Ok(Stat::Linear(pieces))
}

fn numbers(text: &str) -> Result<Vec<f64>, String> {
    text.split(',').filter(|t| !t.is_empty()).map(|t| number(t, "grade")).collect()
}

fn number(text: &str, what: &str) -> Result<f64, String> {
    text.parse::<f64>().map_err(|_| format!("{what}: not a number: {text:?}"))
}

fn flag(text: &str) -> bool {
    text == "1"
}

/// The call's policy and configuration from its pickled kwargs, and the score column's name
/// (for error messages).
pub fn from_kwargs(bytes: &[u8]) -> Result<(Config, String), String> {
    let kwargs: Kwargs = serde_pickle::from_slice(bytes, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    let score_name = kwargs
        .config
        .lines()
        .find_map(|line| line.strip_prefix("score_name="))
        .unwrap_or("score")
        .to_string();
    Ok((parse(&kwargs.config, kwargs.policy)?, score_name))
}

/// Parse the call's configuration text: `name=value` lines; `output=` lines are
/// `name<TAB>what`.
pub fn parse(text: &str, policy: Policy) -> Result<Config, String> {
    let mut config = Config {
        key_kinds: Vec::new(),
        item_kind: Kind::Integer,
        policy,
        condense: false,
        judged: Judged::Unused,
        positive_only: false,
        unjudged_grade: 0.0,
        null_order_grade: 0.0,
        may_add: Vec::new(),
        negative_unjudged: false,
        labelled: false,
        one_group: false,
        has_item: true,
        has_extra: false,
        pool_restrict: false,
        has_row: false,
        truth: false,
        n_counts: 0,
        stats: Vec::new(),
        outputs: Vec::new(),
    };
    for line in text.lines().filter(|line| !line.is_empty()) {
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| format!("configuration line without '=': {line:?}"))?;
        match name {
            "keys" => {
                config.key_kinds = value.split(',').map(kind).collect::<Result<_, _>>()?;
            }
            "item" => config.item_kind = kind(value)?,
            "condense" => config.condense = flag(value),
            "judged" => {
                config.judged = match value {
                    "unused" => Judged::Unused,
                    "grade" => Judged::Grade,
                    "all" => Judged::All,
                    "column" => Judged::Column,
                    "nonnegative" => Judged::NonNegative,
                    other => return Err(format!("unknown judged source {other:?}")),
                }
            }
            "positive_only" => config.positive_only = flag(value),
            "unjudged_grade" => config.unjudged_grade = number(value, name)?,
            "null_order_grade" => config.null_order_grade = number(value, name)?,
            "may_add" => config.may_add = numbers(value)?,
            "negative_unjudged" => config.negative_unjudged = flag(value),
            "labelled" => config.labelled = flag(value),
            "one_group" => config.one_group = flag(value),
            "has_item" => config.has_item = flag(value),
            "has_extra" => config.has_extra = flag(value),
            "pool" => config.pool_restrict = value == "restrict",
            "linear" => {
                let (term, text) = value
                    .split_once('\t')
                    .ok_or_else(|| format!("linear line without a tab: {value:?}"))?;
                let stat = linear(text)?;
                config.stats.retain(|(n, _)| n != term);
                config.stats.push((term.to_string(), stat));
            }
            "row" => config.has_row = flag(value),
            "truth" => config.truth = flag(value),
            "score_name" => {}
            "counts" => {
                config.n_counts = value.parse().map_err(|_| format!("bad count {value:?}"))?;
            }
            "output" => {
                let (column, what) = value
                    .split_once('\t')
                    .ok_or_else(|| format!("output line without a tab: {value:?}"))?;
                let output = if let Some(index) = what.strip_prefix("key:") {
                    Output::Key(index.parse().map_err(|_| format!("bad key index {index:?}"))?)
                } else if what == "n_candidates" {
                    Output::NCandidates
                } else if what == "hits_at_r" {
                    Output::HitsAtR
                } else if what == "n_relevant" {
                    Output::NRelevant
                } else if what == "n_nonrelevant" {
                    Output::NNonrelevant
                } else if let Some(k) = what.strip_prefix("ideal_dcg@") {
                    Output::IdealDcg(k.parse().map_err(|_| format!("bad cut-off {k:?}"))?)
                } else {
                    let (name, k) = what
                        .split_once('@')
                        .ok_or_else(|| format!("output without a cut-off: {what:?}"))?;
                    let k = k.parse().map_err(|_| format!("bad cut-off {k:?}"))?;
                    Output::At(config.stat_index(name)?, k)
                };
                config.outputs.push((column.to_string(), output));
            }
            other => return Err(format!("unknown configuration field {other:?}")),
        }
    }
    if config.key_kinds.is_empty() && !config.one_group {
        return Err("no group key".to_string());
    }
    for (_, output) in &config.outputs {
        if let Output::Key(index) = output {
            if *index >= config.key_kinds.len() {
                return Err(format!("key index {index} out of range"));
            }
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_a_weight() {
        let stat = super::linear("gain / r c:1.0 + log2").unwrap();
        let super::Stat::Linear(pieces) = stat else { panic!() };
        assert_eq!(pieces[0].weight.as_ref().unwrap().len(), 4);
        assert!(super::linear("gain / r +").is_err());
    }

    use super::*;

    #[test]
    fn reads_the_pickled_kwargs() {
        // pickle.dumps({"policy": {**default, "ties": "expected", "gains": ((0.0, 1.0),)},
        //               "config": "keys=integer\n"}, protocol=5), default: Policy()'s fields
        // outside APPLIED_IN_POLARS.
        let bytes = include_bytes!("../tests/kwargs.pickle");
        let (config, score) = from_kwargs(bytes).unwrap();
        let expected = Policy { ties: Ties::Expected, gains: Some(vec![(0.0, 1.0)]), ..Policy::default() };
        assert_eq!(config.policy, expected);
        assert_eq!(score, "score");
        let refused = from_kwargs(b"\x80\x05}\x94.").unwrap_err();
        assert!(refused.contains("keyword arguments"), "{refused}");
    }

    #[test]
    fn parses_outputs() {
        let config = parse(
            "keys=integer,text\nitem=text\nlinear=hits\trelevant\noutput=_rk_hits@5\thits@5\noutput=q\tkey:0\n",
            Policy::default(),
        )
        .unwrap();
        assert_eq!(config.outputs[0].1, Output::At(0, 5));
        assert_eq!(config.stats[0].1, Stat::Linear(vec![Piece { label: Label::Relevant, divide: false, weight: None }]));
        assert_eq!(config.outputs[1].1, Output::Key(0));
        assert_eq!(config.k_max(), 5);
        assert_eq!(config.n_inputs(), 5);
    }
}
