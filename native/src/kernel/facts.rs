//! The diagnostics' facts of one ranked group, read in the same pass that ranks it: whether
//! its scores are all equal, its relevant rows, its distinct relevant items, and whether the
//! items at ranks k and k + 1 share a score. The reference is
//! `polars_rankk/core/evaluation/diagnostics.py`'s aggregation of the ranked candidates.

use std::cmp::Ordering;

use crate::config::{Config, Output};

use super::rank::{Candidate, Items};

/// One group's facts (`Output::ConstantScores`, `RelevantRows`, `MatchedRelevant`, `TieAt`).
#[derive(Default)]
pub(crate) struct GroupFacts {
    constant: bool,
    relevant_rows: usize,
    matched: usize,
    /// Scratch: the relevant items, to count them once each under duplicates="keep".
    relevant_items: Vec<u64>,
}

/// Whether the candidate is relevant as the diagnostics read it: its grade as given (the
/// truth's or its label), at the threshold; no grade is not relevant.
#[inline]
fn relevant(candidate: &Candidate, config: &Config) -> bool {
    !candidate.grade.is_nan() && candidate.grade >= config.policy.relevance_threshold
}

impl GroupFacts {
    /// Read the facts of a ranked group: `group` every candidate it ranked (de-duplicated),
    /// its first `sorted` in rank order (at least the ranks the outputs read, with the tie
    /// block of the last: `rank_group`).
    pub(crate) fn read(&mut self, config: &Config, items: &Items<'_>, group: &[Candidate]) {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        self.relevant_rows = 0;
        self.relevant_items.clear();
        for candidate in group {
            low = low.min(candidate.score);
            high = high.max(candidate.score);
            if relevant(candidate, config) {
                self.relevant_rows += 1;
                if config.policy.keep_duplicates() {
                    self.relevant_items.push(candidate.item);
                }
            }
        }
        self.constant = !group.is_empty() && low == high;
        self.matched = if config.policy.keep_duplicates() {
            // Copies of one item are kept: count each relevant item once.
            self.relevant_items.sort_unstable_by(|a, b| items.cmp(*a, *b));
            self.relevant_items.dedup_by(|a, b| items.cmp(*a, *b) == Ordering::Equal);
            self.relevant_items.len()
        } else {
            self.relevant_rows
        };
    }

    /// The value of a facts output, None for the others; `ranked` the group's candidates in
    /// rank order as far as `rank_group` sorted them (ranks past them tie with none of theirs).
    pub(crate) fn output(&self, output: &Output, ranked: &[Candidate]) -> Option<f64> {
        let value = match output {
            Output::ConstantScores => usize::from(self.constant),
            Output::RelevantRows => self.relevant_rows,
            Output::MatchedRelevant => self.matched,
            Output::TieAt(k) => usize::from(*k < ranked.len() && ranked[*k - 1].score == ranked[*k].score),
            _ => return None,
        };
        Some(value as f64)
    }
}

#[cfg(test)]
mod tests {
    use crate::columns::Values;
    use crate::config::{from_call, Call, Duplicates, Kind, OutputValue, Policy};
    use crate::kernel::{compute, Inputs};
    use crate::testing::{column, key, value};

    /// Each group's facts: (key, n, constant, relevant rows, matched items, tie at 1, 2, 3),
    /// on candidates followed by the truth's rows (a grade, no score).
    fn facts(candidates: &[(i64, i64, f64)], truth: &[(i64, i64, f64)], duplicates: Duplicates) -> Vec<Vec<f64>> {
        let rows = candidates.iter().map(|&(u, i, s)| (u, i, s, f64::NAN));
        let rows: Vec<_> = rows.chain(truth.iter().map(|&(u, i, g)| (u, i, f64::NAN, g))).collect();
        let user: Vec<i64> = rows.iter().map(|r| r.0).collect();
        let item: Vec<i64> = rows.iter().map(|r| r.1).collect();
        let score: Vec<f64> = rows.iter().map(|r| r.2).collect();
        let grade: Vec<f64> = rows.iter().map(|r| r.3).collect();
        let row: Vec<i64> = (0..rows.len() as i64).collect();
        let (user, item) = (column("user", Values::I64(&user)), column("item", Values::I64(&item)));
        let (score, grade) = (column("score", Values::F64(&score)), column("grade", Values::F64(&grade)));
        let row = column("row", Values::I64(&row));
        let mut outputs = vec![key("user", 0), value("n", OutputValue::NCandidates)];
        outputs.push(value("constant", OutputValue::ConstantScores));
        outputs.push(value("relevant", OutputValue::RelevantRows));
        outputs.push(value("matched", OutputValue::MatchedRelevant));
        for k in 1..=3 {
            let mut tie = value(&format!("tie@{k}"), OutputValue::TieAt);
            tie.k = k;
            outputs.push(tie);
        }
        let call = Call { keys: vec![Kind::Integer], truth: true, row: true, outputs, ..Call::default() };
        let policy = Policy { duplicates, ..Policy::default() };
        let config = from_call(&call, policy).unwrap();
        let mut inputs = Inputs::new(vec![&user], &item, &score, &grade);
        inputs.row = Some(&row);
        let groups = compute(&config, &inputs);
        let n = config.outputs.len();
        (0..groups.keys[0].len())
            .map(|g| {
                let mut values = groups.values[g * n..(g + 1) * n].to_vec();
                values[0] = groups.keys[0][g] as f64;
                values
            })
            .collect()
    }

    /// Group 1: ties at ranks 2-3, item 5 twice (relevant); group 2: one score; group 3: a
    /// single row; group 4: 40 rows, only the first ranks sorted (a tie at 1); group 5: only
    /// in the truth, so not among the ranked groups.
    fn candidates() -> Vec<(i64, i64, f64)> {
        let mut rows = vec![(1, 5, 0.9), (1, 6, 0.5), (1, 7, 0.5), (1, 5, 0.2), (2, 1, 0.3), (2, 2, 0.3)];
        rows.push((3, 1, 1.0));
        rows.extend((0..40).map(|i| (4, i, if i < 2 { 9.0 } else { f64::from(i as i32) / 10.0 })));
        rows
    }

    const TRUTH: [(i64, i64, f64); 6] = [(1, 5, 2.0), (1, 7, 0.0), (2, 2, 1.0), (4, 1, 1.0), (4, 30, 3.0), (5, 9, 1.0)];

    #[test]
    fn facts_of_each_group_after_de_duplication() {
        let found = facts(&candidates(), &TRUTH, Duplicates::First);
        let expected: Vec<Vec<f64>> = vec![
            vec![1.0, 3.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0],
            vec![2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
            vec![3.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            vec![4.0, 40.0, 0.0, 2.0, 2.0, 1.0, 0.0, 0.0],
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn every_copy_relevant_but_each_item_matched_once_when_copies_are_kept() {
        let found = facts(&candidates(), &TRUTH, Duplicates::Keep);
        assert_eq!(found[0], vec![1.0, 4.0, 0.0, 2.0, 1.0, 0.0, 1.0, 0.0]);
        assert_eq!(found[1][..5], [2.0, 2.0, 1.0, 1.0, 1.0]);
    }
}
