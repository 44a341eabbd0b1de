//! The groups' rows, as the metric expressions (`rk.ndcg_at_k(...)` inside `group_by().agg()`
//! or `.over()`) hand them over, one group after another: rank each under the policy, sum the declared terms at each
//! cut-off, and count the group's truth (R_g, judged non-relevant items, the ideal DCG) from
//! the rows' own grades, the judged items they miss and a declared R_g. The reference is
//! `polars_rankk/core/expressions/expressions.py` (`_ranked_rows`, `_truth`).

use std::cmp::Ordering;

use crate::columns::Column;
use crate::config::{Config, Invalid, Kind, NegativeGrades, Output};
use crate::kernel::{gain_of, item_key, rank_group, Candidate, GroupResult, Items, RankScratch, Reader};

/// The inputs of one call: one group's rows.
pub struct GroupInputs<'a> {
    pub item: Option<&'a Column<'a>>,
    /// The item column's kind, read off the data (the configuration's is the table path's).
    pub item_kind: Kind,
    pub score: &'a Column<'a>,
    pub grade: &'a Column<'a>,
    /// Grades of the group's judged items the rows do not hold (any length).
    pub extra: Option<&'a Column<'a>>,
    /// R_g as declared (the first non-null value).
    pub n_relevant: Option<&'a Column<'a>>,
}

/// Whether row `at` of `column` is null.
pub(crate) fn is_null(column: &Column<'_>, mut at: usize) -> bool {
    for chunk in &column.chunks {
        if at < chunk.len {
            return !chunk.is_valid(at);
        }
        at -= chunk.len;
    }
    false
}

fn discount(rank: usize) -> f64 {
    ((rank + 1) as f64).log(2.0)
}

/// The rows of each item, found once: `order` sorts the rows by item, `runs` are the
/// ranges of `order` that hold one item's copies.
struct Copies {
    order: Vec<usize>,
    runs: Vec<(usize, usize)>,
}

impl Copies {
    fn new(items: &Items<'_>, handles: &[u64]) -> Copies {
        let mut order: Vec<usize> = (0..handles.len()).collect();
        order.sort_unstable_by(|a, b| items_cmp(items, handles[*a], handles[*b]).then(a.cmp(b)));
        let mut runs = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && items_cmp(items, handles[order[start]], handles[order[end]]) == Ordering::Equal
            {
                end += 1;
            }
            runs.push((start, end));
            start = end;
        }
        Copies { order, runs }
    }

    /// Each item's highest grade, over the rows `keep` says, written on every copy (NaN:
    /// none).
    fn pool_max(&self, grades: &mut [f64], keep: &[bool]) {
        for &(start, end) in &self.runs {
            let rows = &self.order[start..end];
            let best = rows
                .iter()
                .filter(|i| keep[**i])
                .map(|i| grades[*i])
                .filter(|g| !g.is_nan())
                .fold(f64::NAN, |acc, g| if acc.is_nan() || g > acc { g } else { acc });
            for i in rows {
                grades[*i] = best;
            }
        }
    }

    /// One value per item: its first row's.
    fn firsts(&self, values: &[f64]) -> Vec<f64> {
        self.runs.iter().map(|&(start, _)| values[self.order[start]]).collect()
    }
}

fn items_cmp(items: &Items<'_>, a: u64, b: u64) -> Ordering {
    match items.kind {
        crate::config::Kind::Integer => (a as i64).cmp(&(b as i64)),
        crate::config::Kind::Text => {
            if a == b {
                Ordering::Equal
            } else {
                items.text(a).cmp(items.text(b))
            }
        }
    }
}

/// One group's rows, read out of their columns: the scores (null as NaN, -0.0 as 0.0), the
/// grades as given, the item handles (`Column::handles`; row numbers without an item column),
/// the grades of the judged items the rows miss and the R_g declared (the largest non-null
/// value of the group's rows; NaN: none).
pub(crate) struct GroupRows<'a> {
    pub scores: &'a [f64],
    pub given: &'a [f64],
    pub handles: &'a [u64],
    pub has_item: bool,
    pub extra: Option<&'a [f64]>,
    pub declared: Option<f64>,
}

/// The error `evaluate` raises on an invalid score under ``invalid_scores="error"``, naming
/// the column, the value and the row of the group (and its item).
pub(crate) fn check_scores(
    config: &Config,
    score_name: &str,
    rows: &GroupRows<'_>,
    item: Option<&Column<'_>>,
    score_is_null: impl Fn(usize) -> bool,
) -> Result<(), String> {
    if config.policy.invalid_scores != Invalid::Error {
        return Ok(());
    }
    let Some(at) = rows.scores.iter().position(|s| !s.is_finite()) else { return Ok(()) };
    let value = if score_is_null(at) {
        "null".to_string()
    } else {
        let v = rows.scores[at];
        if v.is_nan() { "NaN".to_string() } else if v > 0.0 { "inf".to_string() } else { "-inf".to_string() }
    };
    let item = match item {
        Some(column) if column.is_text() => {
            format!(" (item {})", String::from_utf8_lossy(column.text_of(rows.handles[at])))
        }
        Some(_) => format!(" (item {})", rows.handles[at] as i64),
        None => String::new(),
    };
    Err(format!(
        "column '{score_name}' must hold finite numbers (null, NaN and inf are invalid \
         scores; Policy(invalid_scores='drop' or 'lowest') handles them); it holds \
         {value} at row {at} of its group{item}"
    ))
}

/// The group's outputs, in the configured order, from its rows (their scores checked).
pub(crate) fn rows_sums(
    config: &Config,
    items: &Items<'_>,
    rows: &GroupRows<'_>,
    reader: &Reader<'_>,
    scratch: &mut RankScratch,
) -> Vec<f64> {
    let n = rows.scores.len();
    let (scores, given, handles) = (rows.scores, rows.given, rows.handles);
    let valid: Vec<bool> = scores.iter().map(|s| s.is_finite()).collect();
    // A negative grade is no judgement under negative_grades="unjudged" (trec_eval).
    let grade_of = |g: f64| if config.policy.negative_grades == NegativeGrades::Unjudged && g < 0.0 { f64::NAN } else { g };
    let mut grades: Vec<f64> = given.iter().map(|g| grade_of(*g)).collect();
    let mut order_grades: Vec<f64> = given.to_vec();
    // Most groups hold each item once: then there are no copies to pool.
    let repeats = rows.has_item && {
        let mut keys: Vec<u64> = handles.iter().map(|h| item_key(items, *h)).collect();
        keys.sort_unstable();
        keys.windows(2).any(|pair| pair[0] == pair[1])
    };
    let copies = if repeats { Some(Copies::new(items, handles)) } else { None };
    if let (Some(copies), false) = (&copies, config.policy.keep_duplicates()) {
        // An item's label is the highest among its copies still ranked.
        let ranked: Vec<bool> =
            valid.iter().map(|v| *v || config.policy.invalid_scores != Invalid::Drop).collect();
        copies.pool_max(&mut grades, &ranked);
        copies.pool_max(&mut order_grades, &ranked);
    }
    // The truth from the rows: each item's highest grade (invalid rows included: the item was
    // relevant), the judged items the rows miss, and the R_g declared.
    // Under pool="restrict" with the truth's missed items given, a row whose score is dropped
    // left the pool (as `evaluate` restricts the truth to the ranked items).
    let pooled: Vec<bool> = if config.pool_restrict && config.has_extra && config.policy.invalid_scores == Invalid::Drop {
        valid.clone()
    } else {
        vec![true; n]
    };
    let mut truth_grades: Vec<f64> =
        given.iter().zip(&pooled).map(|(g, p)| if *p { grade_of(*g) } else { f64::NAN }).collect();
    if let Some(copies) = &copies {
        copies.pool_max(&mut truth_grades, &pooled);
        truth_grades = copies.firsts(&truth_grades);
    }
    let mut truth_grades: Vec<f64> = truth_grades.into_iter().filter(|g| !g.is_nan()).collect();
    if let Some(extra) = rows.extra {
        // The missed items' negative grades are no judgement either, under the same policy.
        truth_grades.extend(extra.iter().map(|g| grade_of(*g)).filter(|g| !g.is_nan()));
    }
    let threshold = config.policy.relevance_threshold;
    let labelled = truth_grades.iter().filter(|g| **g >= threshold).count() as f64;
    let nonrelevant = truth_grades.iter().filter(|g| **g < threshold).count() as f64;
    let mut gains: Vec<f64> = truth_grades.iter().map(|g| gain_of(*g, config)).collect();
    let mut n_relevant = labelled;
    if let (Some(declared), None) = (rows.declared, rows.extra) {
        let missing = if declared.is_nan() { 0.0 } else { (declared - labelled).max(0.0) };
        n_relevant += missing;
        let gain = gain_of(threshold, config);
        gains.extend(std::iter::repeat(gain).take(missing as usize));
    }
    gains.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut ideal = Vec::with_capacity(gains.len());
    let mut running = 0.0f64;
    for (index, gain) in gains.iter().enumerate() {
        running += gain / discount(index + 1);
        ideal.push(running);
    }
    // The ranked candidates.
    let mut candidates = Vec::with_capacity(n);
    for i in 0..n {
        let mut score = scores[i];
        if !valid[i] {
            match config.policy.invalid_scores {
                Invalid::Drop => continue,
                Invalid::Lowest => score = f64::NEG_INFINITY,
                Invalid::Error => {}
            }
        }
        let judged = !grades[i].is_nan();
        if config.condense && !judged {
            continue;
        }
        // The grade as given (ties read it; the terms read it through `effective_grade`,
        // where a negative grade is unjudged under negative_grades="unjudged").
        let extra = ((i as u64) << 1) | u64::from(judged);
        candidates.push(Candidate { score, grade: order_grades[i], item: handles[i], extra });
    }
    let top = reader.ranks_read(n_relevant);
    let (len, sorted) = rank_group(config, items, &mut candidates, scratch, top);
    let n_stats = config.stats.len();
    let mut result = GroupResult::new(reader.ks.len(), n_stats);
    reader.read(&candidates[..sorted], len, n_relevant, nonrelevant, &mut result);
    let ideal_at = |k: usize| if ideal.is_empty() { 0.0 } else { ideal[k.min(ideal.len()) - 1] };
    config
        .outputs
        .iter()
        .map(|(_, output)| match output {
            Output::NRelevant => n_relevant,
            Output::NNonrelevant => nonrelevant,
            Output::IdealDcg(k) => ideal_at(*k),
            other => result.output(other, &reader.ks),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn discount_of_rank_one_is_one() {
        assert_eq!(super::discount(1), 1.0);
    }
}
