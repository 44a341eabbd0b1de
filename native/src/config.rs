//! What one call computes: the policy and the output columns, sent by Python as one text
//! (`polars_rankk/core/native.py` writes it) inside the pickled kwargs.

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
}

/// The per-rank terms whose running sums the kernel reads at each cut-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    Hits = 0,
    Dcg = 1,
    PrecisionSum = 2,
    ReciprocalRank = 3,
    FirstHit = 4,
    JudgedCount = 5,
    Err = 6,
    Rbp = 7,
    RbpJudged = 8,
    Bpref = 9,
}

pub const N_STATS: usize = 10;

/// One output column.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The group's value of key column `i`.
    Key(usize),
    NCandidates,
    HitsAtR,
    /// A running sum read at cut-off `k` (`k == 0`: over the whole list).
    At(Stat, usize),
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
    pub rbp_persistence: f64,
    pub err_max_grade: f64,
    pub has_row: bool,
    /// 0, 1 (R) or 2 (R and judged non-relevant N) count columns.
    pub n_counts: usize,
    pub outputs: Vec<(String, Output)>,
}

impl Config {
    /// The number of input columns this configuration reads.
    pub fn n_inputs(&self) -> usize {
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

    pub fn needs(&self, stat: Stat) -> bool {
        self.outputs
            .iter()
            .any(|(_, o)| matches!(o, Output::At(s, _) if *s == stat))
    }
}

fn kind(text: &str) -> Result<Kind, String> {
    match text {
        "integer" => Ok(Kind::Integer),
        "text" => Ok(Kind::Text),
        other => Err(format!("unknown column kind {other:?}")),
    }
}

fn stat(text: &str) -> Result<Stat, String> {
    Ok(match text {
        "hits" => Stat::Hits,
        "dcg" => Stat::Dcg,
        "precision_sum" => Stat::PrecisionSum,
        "reciprocal_rank" => Stat::ReciprocalRank,
        "first_hit" => Stat::FirstHit,
        "judged" => Stat::JudgedCount,
        "err" => Stat::Err,
        "rbp" => Stat::Rbp,
        "rbp_judged" => Stat::RbpJudged,
        "bpref" => Stat::Bpref,
        other => return Err(format!("unknown statistic {other:?}")),
    })
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
        rbp_persistence: 0.8,
        err_max_grade: 4.0,
        has_row: false,
        n_counts: 0,
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
                } else {
                    let (name, k) = what
                        .split_once('@')
                        .ok_or_else(|| format!("output without a cut-off: {what:?}"))?;
                    let k = k.parse().map_err(|_| format!("bad cut-off {k:?}"))?;
                    Output::At(stat(name)?, k)
                };
                config.outputs.push((column.to_string(), output));
            }
            other => return Err(format!("unknown configuration field {other:?}")),
        }
    }
    if config.key_kinds.is_empty() {
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
    use super::*;

    #[test]
    fn reads_a_pickled_dict() {
        // pickle.dumps({"config": "keys=integer"}, protocol=5)
        let bytes = b"\x80\x05\x95\x1c\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x06config\x94\x8c\x0ckeys=integer\x94s.";
        assert_eq!(config_from_pickle(bytes).unwrap(), "keys=integer");
    }

    #[test]
    fn parses_outputs() {
        let config = parse("keys=integer,text\nitem=text\noutput=_rk_hits@5\thits@5\noutput=q\tkey:0\n").unwrap();
        assert_eq!(config.outputs[0].1, Output::At(Stat::Hits, 5));
        assert_eq!(config.outputs[1].1, Output::Key(0));
        assert_eq!(config.k_max(), 5);
        assert_eq!(config.n_inputs(), 5);
    }
}
