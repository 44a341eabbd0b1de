//! What one call computes: the policy and the output columns, sent by Python as one text
//! (`polars_rankk/core/kernel/loader.py` writes it) inside the pickled kwargs.

/// How a key or item column's values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Int64 values.
    Integer,
    /// Strings, compared byte by byte.
    Text,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    TrecEval,
    ItemAsc,
    InputOrder,
    Pessimistic,
    Optimistic,
    Expected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Scores were validated: none is invalid.
    Error,
    Drop,
    Lowest,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gain {
    Linear,
    Exponential,
    Binary,
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
}

pub const N_LABELS: usize = 7;

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
    pub ties: Ties,
    pub keep_duplicates: bool,
    pub invalid: Invalid,
    pub condense: bool,
    pub judged: Judged,
    /// Grades <= 0 count as 0 (the join kept only positive truth rows on the reference path).
    pub positive_only: bool,
    pub threshold: f64,
    pub gain: Gain,
    /// `Policy.gains`: grades given another gain, and that gain.
    pub gains: Vec<(f64, f64)>,
    /// `nonrelevant_gain="zero"`: grades below the threshold gain nothing.
    pub nonrelevant_zero: bool,
    /// `rbp_grades="graded"`: RBP counts a relevant row's grade.
    pub rbp_graded: bool,
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
    /// `negative_grades="unjudged"` (the expressions read it per row).
    pub negative_grades_unjudged: bool,
    /// One group's rows (`group_metric_sums`): no key columns; whether an item column and
    /// the grades of the group's judged items the rows miss come with it.
    pub one_group: bool,
    pub has_item: bool,
    pub has_extra: bool,
    /// `pool="restrict"`: the truth is restricted to the ranked items.
    pub pool_restrict: bool,
    pub rbp_persistence: f64,
    pub err_max_grade: f64,
    pub has_row: bool,
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
        self.ties == Ties::Expected
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

/// Parse the configuration text: `name=value` lines; `output=` lines are `name<TAB>what`.
pub fn parse(text: &str) -> Result<Config, String> {
    let mut config = Config {
        key_kinds: Vec::new(),
        item_kind: Kind::Integer,
        ties: Ties::TrecEval,
        keep_duplicates: false,
        invalid: Invalid::Error,
        condense: false,
        judged: Judged::Unused,
        positive_only: false,
        threshold: 1.0,
        gain: Gain::Linear,
        gains: Vec::new(),
        nonrelevant_zero: false,
        rbp_graded: false,
        unjudged_grade: 0.0,
        null_order_grade: 0.0,
        may_add: Vec::new(),
        negative_unjudged: false,
        labelled: false,
        negative_grades_unjudged: false,
        one_group: false,
        has_item: true,
        has_extra: false,
        pool_restrict: false,
        rbp_persistence: 0.8,
        err_max_grade: 4.0,
        has_row: false,
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
            "ties" => {
                config.ties = match value {
                    "trec_eval" => Ties::TrecEval,
                    "item_asc" => Ties::ItemAsc,
                    "input_order" => Ties::InputOrder,
                    "pessimistic" => Ties::Pessimistic,
                    "optimistic" => Ties::Optimistic,
                    "expected" => Ties::Expected,
                    other => return Err(format!("unknown tie policy {other:?}")),
                }
            }
            "duplicates" => config.keep_duplicates = value == "keep",
            "invalid_scores" => {
                config.invalid = match value {
                    "error" => Invalid::Error,
                    "drop" => Invalid::Drop,
                    "lowest" => Invalid::Lowest,
                    other => return Err(format!("unknown invalid-score policy {other:?}")),
                }
            }
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
            "relevance_threshold" => config.threshold = number(value, name)?,
            "gain" => {
                config.gain = match value {
                    "linear" => Gain::Linear,
                    "exponential" => Gain::Exponential,
                    "binary" => Gain::Binary,
                    other => return Err(format!("unknown gain {other:?}")),
                }
            }
            "gains" => {
                config.gains = value
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(|pair| {
                        let (g, v) = pair.split_once(':').ok_or(format!("bad gain {pair:?}"))?;
                        Ok((number(g, "grade")?, number(v, "gain")?))
                    })
                    .collect::<Result<_, String>>()?;
            }
            "nonrelevant_gain" => config.nonrelevant_zero = value == "zero",
            "rbp_grades" => config.rbp_graded = value == "graded",
            "unjudged_grade" => config.unjudged_grade = number(value, name)?,
            "null_order_grade" => config.null_order_grade = number(value, name)?,
            "may_add" => config.may_add = numbers(value)?,
            "negative_unjudged" => config.negative_unjudged = flag(value),
            "labelled" => config.labelled = flag(value),
            "negative_grades" => config.negative_grades_unjudged = value == "unjudged",
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
            "rbp_persistence" => config.rbp_persistence = number(value, name)?,
            "err_max_grade" => config.err_max_grade = number(value, name)?,
            "row" => config.has_row = flag(value),
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

/// The one string of a pickled `{"config": "..."}` (protocol 2 to 5): the last string the
/// pickle pushes. Only the opcodes such a dict uses are understood.
pub fn config_from_pickle(bytes: &[u8]) -> Result<String, String> {
    let mut at = 0usize;
    let mut last: Option<String> = None;
    let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
        let end = at.checked_add(n).filter(|end| *end <= bytes.len());
        let end = end.ok_or_else(|| "truncated keyword arguments".to_string())?;
        let slice = &bytes[*at..end];
        *at = end;
        Ok(slice)
    };
    let length = |slice: &[u8]| slice.iter().rev().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
    while at < bytes.len() {
        let op = bytes[at];
        at += 1;
        match op {
            0x80 => {
                take(&mut at, 1)?;
            }
            0x95 => {
                take(&mut at, 8)?;
            }
            b'}' | 0x94 | b's' | b'u' | b'(' | b'0' => {}
            b'.' => break,
            0x8c | b'X' | 0x8d => {
                let width = match op {
                    0x8c => 1,
                    b'X' => 4,
                    _ => 8,
                };
                let n = length(take(&mut at, width)?);
                let text = std::str::from_utf8(take(&mut at, n)?)
                    .map_err(|_| "keyword argument is not UTF-8".to_string())?;
                last = Some(text.to_string());
            }
            b'q' => {
                take(&mut at, 1)?;
            }
            b'r' => {
                take(&mut at, 4)?;
            }
            other => return Err(format!("unexpected pickle opcode {other:#x} in keyword arguments")),
        }
    }
    last.ok_or_else(|| "no configuration in the keyword arguments".to_string())
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
    fn reads_a_pickled_dict() {
        // pickle.dumps({"config": "keys=integer"}, protocol=5)
        let bytes = b"\x80\x05\x95\x1c\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x06config\x94\x8c\x0ckeys=integer\x94s.";
        assert_eq!(config_from_pickle(bytes).unwrap(), "keys=integer");
    }

    #[test]
    fn parses_outputs() {
        let config = parse(
            "keys=integer,text\nitem=text\nlinear=hits\trelevant\noutput=_rk_hits@5\thits@5\noutput=q\tkey:0\n",
        )
        .unwrap();
        assert_eq!(config.outputs[0].1, Output::At(0, 5));
        assert_eq!(config.stats[0].1, Stat::Linear(vec![Piece { label: Label::Relevant, divide: false, weight: None }]));
        assert_eq!(config.outputs[1].1, Output::Key(0));
        assert_eq!(config.k_max(), 5);
        assert_eq!(config.n_inputs(), 5);
    }
}
