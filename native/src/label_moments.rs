//! The plugin function `label_moments`: exact expectations and standard deviations of metrics
//! over independent relevance labels, per group, by the recursion over ranks that
//! `polars_rankk/core/inputs/labels/recursion.py` states in NumPy (the reference this is tested
//! against, and the path without the kernel).
//!
//! Per group: the relevance probability of the item at each rank up to the ranked width W
//! (0 past the list's end), those of the other items that may be relevant (ranked deeper, or
//! not retrieved), the list's length and the gain of the group's relevant grade. The metrics
//! not divided by what R decides (precision, DCG, RBP, hit rate, RR) have closed forms over the
//! ranks; recall, AP, nDCG and F-beta walk down the first K ranks carrying, for each count c of
//! relevant items seen, P(c), E[S; c] and E[S^2; c], and read h(c + y) over the law of the
//! count y of the others; R-precision reads hits@R from the prefix and suffix laws of each R.
//! The groups are independent: each thread computes its share in place.

use serde::Deserialize;

use crate::columns::{Column, OutColumn, OutData};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    groups: usize,
    /// The ranks laid out per group (W), of which the first `largest_k` are walked.
    ranked_width: usize,
    largest_k: usize,
    /// The other items' probabilities per group (0-padded).
    rest_width: usize,
    /// (metric, K) of every cell with a cut-off.
    cells: Vec<(String, usize)>,
    r_precision: bool,
    empty_truth: String,
    ap_min_k: bool,
    observed: bool,
    f_beta: f64,
    rbp_persistence: f64,
}

fn parse(kwargs: &[u8]) -> Result<Kwargs, String> {
    let asked: Kwargs = serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    if asked.largest_k > asked.ranked_width {
        return Err(format!("the rankk kernel's label moments: K {} past the ranked width {}", asked.largest_k, asked.ranked_width));
    }
    for (metric, k) in &asked.cells {
        let known = ["precision", "dcg", "rbp", "hit_rate", "mrr", "recall", "average_precision", "ndcg", "f1"];
        if !known.contains(&metric.as_str()) || *k == 0 || *k > asked.largest_k {
            return Err(format!("the rankk kernel's label moments: no recursion for {metric}@{k}"));
        }
    }
    Ok(asked)
}

fn divided(metric: &str) -> bool {
    matches!(metric, "recall" | "average_precision" | "ndcg" | "f1")
}

/// The output fields: each cell's mean and standard deviation, then R-precision's.
pub fn fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let asked = parse(kwargs)?;
    if inputs.len() != 1 {
        return Err(format!("the rankk kernel's label moments expect 1 input column, got {}", inputs.len()));
    }
    Ok(names(&asked).into_iter().map(|name| (name, "g".to_string())).collect())
}

fn names(asked: &Kwargs) -> Vec<String> {
    let mut names: Vec<String> = (0..asked.cells.len()).flat_map(|i| [format!("mean_{i}"), format!("std_{i}")]).collect();
    if asked.r_precision {
        names.extend(["mean_r".to_string(), "std_r".to_string()]);
    }
    names
}

/// One group's inputs.
struct Group<'a> {
    ranked: &'a [f64],
    rest: &'a [f64],
    n_candidates: f64,
    gain: f64,
}

/// `label_moments`: the input is one Float64 column holding, one after another, the groups'
/// ranked probabilities (groups x W), the others' (groups x M), the lists' lengths and the
/// relevant grades' gains (groups each).
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let asked = parse(kwargs)?;
    let [values] = columns else {
        return Err(format!("the rankk kernel's label moments expect 1 input column, got {}", columns.len()));
    };
    if !values.is_float() {
        return Err(format!("column {:?}: the rankk kernel expected Float64 values", values.name));
    }
    let values = values.floats_vec();
    let (g, w, m) = (asked.groups, asked.ranked_width, asked.rest_width);
    if values.len() != g * (w + m + 2) {
        return Err(format!("the rankk kernel's label moments: {} values for {g} groups of {w} + {m} + 2", values.len()));
    }
    let (ranked, tail) = values.split_at(g * w);
    let (rest, tail) = tail.split_at(g * m);
    let (lengths, gains) = tail.split_at(g);
    let width = names(&asked).len();
    if g == 0 || width == 0 {
        return Ok(names(&asked).into_iter().map(|name| OutColumn { name, data: OutData::F64(Vec::new()) }).collect());
    }
    let mut out = vec![0.0; g * width];
    let threads = crate::kernel::threads().min(g).max(1);
    let per_thread = g.div_ceil(threads).max(1);
    let ideals = ideals(&asked);
    let cells = Cells::of(&asked, &ideals);
    let cells_ref = &cells;
    std::thread::scope(|scope| {
        for (part, share) in out.chunks_mut(per_thread * width).enumerate() {
            scope.spawn(move || {
                let mut scratch = Scratch::default();
                for (i, row) in share.chunks_mut(width).enumerate() {
                    let index = part * per_thread + i;
                    let group = Group {
                        ranked: &ranked[index * w..(index + 1) * w],
                        rest: &rest[index * m..(index + 1) * m],
                        n_candidates: lengths[index],
                        gain: gains[index],
                    };
                    group_moments(cells_ref, &group, row, &mut scratch);
                }
            });
        }
    });
    Ok(names(&asked)
        .into_iter()
        .enumerate()
        .map(|(column, name)| OutColumn { name, data: OutData::F64((0..g).map(|i| out[i * width + column]).collect()) })
        .collect())
}

/// The law of the number of successes of independent trials of chances `q`, into `law`.
/// A trial of chance 0 leaves every entry as it is (x (1 - 0) + y 0 is x, the entries being
/// finite and not below +0): it is passed over, and the entries past the successes reached
/// stay +0.
fn poisson_binomial(q: &[f64], law: &mut Vec<f64>) {
    law.clear();
    law.resize(q.len() + 1, 0.0);
    law[0] = 1.0;
    let mut reached = 0;
    for &p in q {
        if p == 0.0 {
            continue;
        }
        reached += 1;
        for c in (1..=reached).rev() {
            law[c] = law[c] * (1.0 - p) + law[c - 1] * p;
        }
        law[0] *= 1.0 - p;
    }
}

/// A thread's buffers, reused from group to group.
#[derive(Default)]
struct Scratch {
    others: Vec<f64>,
    rest_law: Vec<f64>,
    law: Vec<f64>,
    /// E[S; c] and E[S^2; c] of each walked cell, one after another (cells x counts).
    total: Vec<f64>,
    square: Vec<f64>,
    up_total: Vec<f64>,
    up_square: Vec<f64>,
    h: Vec<f64>,
    /// The suffix laws of R-precision, one after another (`r_precision`).
    suffix: Vec<f64>,
    prefix: Vec<f64>,
}

/// What a divided metric adds when the item at a rank within K is relevant (`walk`'s a(j, c)).
#[derive(Clone, Copy)]
enum Step {
    /// AP's c / j.
    Precision,
    /// nDCG's discount.
    Discount,
    /// Recall's and F-beta's 1.
    One,
}

/// The call's cells read once: the kwargs, each divided cell's index, step and K and ideal
/// DCG (nDCG's h), in the order of `asked.cells`.
struct Cells<'a> {
    asked: &'a Kwargs,
    divided: Vec<(usize, Step, usize, &'a [f64])>,
}

impl<'a> Cells<'a> {
    fn of(asked: &'a Kwargs, ideals: &'a [Vec<f64>]) -> Cells<'a> {
        let divided = (0..asked.cells.len())
            .filter(|&i| divided(&asked.cells[i].0))
            .map(|i| {
                let step = match asked.cells[i].0.as_str() {
                    "average_precision" => Step::Precision,
                    "ndcg" => Step::Discount,
                    _ => Step::One,
                };
                (i, step, asked.cells[i].1, ideals[i].as_slice())
            })
            .collect();
        Cells { asked, divided }
    }
}

/// Precision@K's denominator: K, or min(K, n) under ``short_lists="observed"``.
fn precision_denominator(asked: &Kwargs, k: usize, n: f64) -> f64 {
    if asked.observed {
        (k as f64).min(n)
    } else {
        k as f64
    }
}

/// (mean, std) from E[V] and E[V^2] as the empty-truth policy reads the outcome without a
/// relevant item (`none`: its chance): left out, a 0, or a NaN.
fn conditioned(asked: &Kwargs, mut first: f64, mut second: f64, none: f64) -> (f64, f64) {
    match asked.empty_truth.as_str() {
        "exclude" => {
            let kept = if none < 1.0 { 1.0 - none } else { f64::NAN };
            first /= kept;
            second /= kept;
        }
        "nan" if none > 0.0 => first = f64::NAN,
        _ => {}
    }
    let mut variance = second - first * first;
    // E[V^2] - E[V]^2 cancels: within 64 ulps of E[V^2] it is 0.
    if variance <= 64.0 * f64::EPSILON * second {
        variance = 0.0;
    }
    (first, variance.sqrt())
}

/// h(R), what a divided metric's sum over ranks is multiplied by once R is known (0 at 0).
fn h_of(asked: &Kwargs, metric: &str, k: usize, r: usize, n: f64, ideal: &[f64]) -> f64 {
    if r == 0 {
        return 0.0;
    }
    let r_f = r as f64;
    match metric {
        "recall" => 1.0 / r_f,
        "average_precision" if !asked.ap_min_k => 1.0 / r_f,
        "average_precision" => 1.0 / r_f.min(k as f64),
        "ndcg" => 1.0 / ideal[r.min(k)].max(1e-300),
        _ => {
            let weight = asked.f_beta * asked.f_beta;
            (1.0 + weight) / (weight * r_f + precision_denominator(asked, k, n)).max(1e-300)
        }
    }
}

fn group_moments(cells: &Cells<'_>, group: &Group<'_>, row: &mut [f64], scratch: &mut Scratch) {
    let asked = cells.asked;
    let k_max = asked.largest_k;
    let (walked, deeper) = group.ranked.split_at(k_max);
    // The count of the relevant items past the walked ranks, and the chance that none is.
    let mut others = std::mem::take(&mut scratch.others);
    others.clear();
    others.extend(deeper.iter().chain(group.rest).copied());
    let mut rest_law = std::mem::take(&mut scratch.rest_law);
    poisson_binomial(&others, &mut rest_law);
    let none = walked.iter().fold(1.0, |product, q| product * (1.0 - q)) * rest_law[0];
    for (i, (metric, k)) in asked.cells.iter().enumerate() {
        if !divided(metric) {
            let (e1, e2) = undivided(asked, metric, *k, walked, group);
            let (mean, std) = conditioned(asked, e1, e2, none);
            row[2 * i] = mean;
            row[2 * i + 1] = std;
        }
    }
    if !cells.divided.is_empty() {
        walk(cells, walked, &rest_law, group, none, row, scratch);
    }
    (scratch.others, scratch.rest_law) = (others, rest_law);
    if asked.r_precision {
        let (e1, e2, none_r) = r_precision(group.ranked, group.rest, scratch);
        let (mean, std) = conditioned(asked, e1, e2, none_r);
        let at = 2 * asked.cells.len();
        row[at] = mean;
        row[at + 1] = std;
    }
}

/// E[V] and E[V^2] of a metric not divided by R: a sum of independent terms (precision, DCG,
/// RBP), or the first relevant rank's (hit rate, RR).
fn undivided(asked: &Kwargs, metric: &str, k: usize, walked: &[f64], group: &Group<'_>) -> (f64, f64) {
    let q = &walked[..k.min(walked.len())];
    if metric == "hit_rate" || metric == "mrr" {
        let (mut e1, mut e2, mut before) = (0.0, 0.0, 1.0);
        for (j, &p) in q.iter().enumerate() {
            let first = p * before;
            let value = if metric == "hit_rate" { 1.0 } else { 1.0 / (j + 1) as f64 };
            e1 += first * value;
            e2 += first * (value * value);
            before *= 1.0 - p;
        }
        return (e1, e2);
    }
    let read = if metric == "dcg" {
        group.gain
    } else if metric == "precision" {
        let denominator = precision_denominator(asked, k, group.n_candidates);
        if denominator > 0.0 {
            1.0 / denominator.max(1.0)
        } else {
            0.0
        }
    } else {
        1.0
    };
    let (mut e1, mut variance) = (0.0, 0.0);
    for (j, &p) in q.iter().enumerate() {
        let rank = (j + 1) as f64;
        let a = match metric {
            "precision" => read,
            "dcg" => read / (rank + 1.0).log2(),
            _ => (1.0 - asked.rbp_persistence) * asked.rbp_persistence.powf(j as f64),
        };
        e1 += a * p;
        variance += a * a * p * (1.0 - p);
    }
    (e1, variance + e1 * e1)
}

/// The walk down the first K ranks for the divided metrics (recall, AP, nDCG, F-beta), each
/// cell's mean and std written into `row`.
/// The ideal DCG of 0..K relevant items at each cell's K (nDCG's h reads it).
fn ideals(asked: &Kwargs) -> Vec<Vec<f64>> {
    asked
        .cells
        .iter()
        .map(|(_, k)| {
            let mut ideal = vec![0.0; k + 1];
            for i in 1..=*k {
                ideal[i] = ideal[i - 1] + 1.0 / ((i + 1) as f64).log2();
            }
            ideal
        })
        .collect()
}

fn walk(cells: &Cells<'_>, walked: &[f64], rest_law: &[f64], group: &Group<'_>, none: f64, row: &mut [f64], scratch: &mut Scratch) {
    let asked = cells.asked;
    let counts = walked.len() + 1;
    let n_cells = cells.divided.len();
    let Scratch { law, total, square, up_total, up_square, h, .. } = scratch;
    for buffer in [&mut *law, &mut *up_total, &mut *up_square] {
        buffer.clear();
        buffer.resize(counts, 0.0);
    }
    law[0] = 1.0;
    for buffer in [&mut *total, &mut *square] {
        buffer.clear();
        buffer.resize(n_cells * counts, 0.0);
    }
    for (j, &q) in walked.iter().enumerate() {
        // An item that cannot be relevant changes no sum nor law (x (1 - 0) + (finite) 0 is x).
        if q == 0.0 {
            continue;
        }
        let rank = j + 1;
        let stay = 1.0 - q;
        for (index, &(_, step, k, _)) in cells.divided.iter().enumerate() {
            let sum = &mut total[index * counts..(index + 1) * counts];
            let sum_square = &mut square[index * counts..(index + 1) * counts];
            // Relevant at this rank: from count c - 1 to c (c = 1..rank), the sum gaining a(j, c).
            for c in 0..rank {
                let a = if rank > k {
                    0.0
                } else {
                    match step {
                        Step::Precision => (c + 1) as f64 / rank as f64,
                        Step::Discount => 1.0 / ((rank + 1) as f64).log2(),
                        Step::One => 1.0,
                    }
                };
                up_square[c] = (sum_square[c] + a * (2.0 * sum[c] + a * law[c])) * q;
                up_total[c] = (sum[c] + a * law[c]) * q;
            }
            for c in (1..=rank).rev() {
                sum_square[c] = sum_square[c] * stay + up_square[c - 1];
                sum[c] = sum[c] * stay + up_total[c - 1];
            }
            sum_square[0] *= stay;
            sum[0] *= stay;
        }
        for c in (1..=rank).rev() {
            law[c] = law[c] * stay + law[c - 1] * q;
        }
        law[0] *= stay;
    }
    h.clear();
    h.resize(counts + rest_law.len(), 0.0);
    // The counts of the others past the last one of positive chance add +0 where h^2 is finite.
    let reached = rest_law.iter().rposition(|&chance| chance != 0.0).map_or(0, |last| last + 1);
    for (index, &(cell, _, k, ideal)) in cells.divided.iter().enumerate() {
        let metric = &asked.cells[cell].0;
        for (r, value) in h.iter_mut().enumerate() {
            *value = h_of(asked, metric, k, r, group.n_candidates, ideal);
        }
        let finite = h.iter().all(|value| (value * value).is_finite());
        let law = if finite { &rest_law[..reached] } else { rest_law };
        let (sum, sum_square) = (&total[index * counts..(index + 1) * counts], &square[index * counts..(index + 1) * counts]);
        let (mut e1, mut e2) = (0.0, 0.0);
        for c in 0..counts {
            // H[c] = sum over y of P(y) h(c + y), and the same with h^2.
            let (mut h1, mut h2) = (0.0, 0.0);
            for (y, &chance) in law.iter().enumerate() {
                let value = h[c + y];
                h1 += chance * value;
                h2 += chance * (value * value);
            }
            e1 += sum[c] * h1;
            e2 += sum_square[c] * h2;
        }
        let (mean, std) = conditioned(asked, e1, e2, none);
        row[2 * cell] = mean;
        row[2 * cell + 1] = std;
    }
}

/// E[V], E[V^2] and P(R = 0) of R-precision, hits@R / R: R = r with the first r ranks holding
/// x relevant items and the items past them r - x (the prefix's and the suffix's laws).
fn r_precision(ranked: &[f64], rest: &[f64], scratch: &mut Scratch) -> (f64, f64, f64) {
    let width = ranked.len();
    // The law of the count past rank r (r = width .. 0) has rest.len() + 1 + width - r
    // entries; laid one after another from r = width down, the law past rank r starts at
    // `start(r)`.
    let base = rest.len() + 1;
    let start = |r: usize| {
        let laws = width - r; // the laws before it, of base, base + 1, ... entries
        laws * base + laws * laws.saturating_sub(1) / 2
    };
    let Scratch { suffix, prefix, rest_law, .. } = scratch;
    poisson_binomial(rest, rest_law);
    suffix.clear();
    suffix.resize(start(0) + base + width, 0.0);
    suffix[..base].copy_from_slice(rest_law);
    for rank in (1..=width).rev() {
        let (from, to) = (start(rank), start(rank - 1));
        let length = to - from;
        let (done, grown) = suffix.split_at_mut(to);
        let law = &done[from..];
        let q = ranked[rank - 1];
        let grown = &mut grown[..length + 1];
        for (c, &chance) in law.iter().enumerate() {
            grown[c] += chance * (1.0 - q);
            grown[c + 1] += chance * q;
        }
    }
    prefix.clear();
    prefix.resize(width + 1, 0.0);
    prefix[0] = 1.0;
    let (mut first, mut second) = (0.0, 0.0);
    for rank in 1..=width {
        let q = ranked[rank - 1];
        // Counts past `rank` hold 0 and keep it (0 (1 - q) + 0 q): only the reachable ones;
        // an item that cannot be relevant leaves them as they are.
        if q != 0.0 {
            for c in (1..=rank).rev() {
                prefix[c] = prefix[c] * (1.0 - q) + prefix[c - 1] * q;
            }
            prefix[0] *= 1.0 - q;
        }
        let law = &suffix[start(rank)..start(rank) + base + width - rank];
        let lowest = (rank + 1).saturating_sub(law.len());
        // Each rank's terms summed first, then added (as the NumPy statement adds them).
        let (mut first_at, mut second_at) = (0.0, 0.0);
        for hits in lowest..=rank {
            let weight = prefix[hits] * law[rank - hits];
            let share = hits as f64 / rank as f64;
            first_at += weight * share;
            second_at += weight * (share * share);
        }
        first += first_at;
        second += second_at;
    }
    (first, second, suffix[start(0)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(cells: &[(&str, usize)]) -> Kwargs {
        Kwargs {
            groups: 1,
            ranked_width: 3,
            largest_k: 2,
            rest_width: 1,
            cells: cells.iter().map(|(m, k)| (m.to_string(), *k)).collect(),
            r_precision: true,
            empty_truth: "zero".to_string(),
            ap_min_k: false,
            observed: false,
            f_beta: 1.0,
            rbp_persistence: 0.8,
        }
    }

    /// Every outcome of three independent items enumerated by hand: two ranked, one not.
    #[test]
    fn moments_equal_the_enumeration_of_every_outcome() {
        let q = [0.3, 0.6, 0.5];
        let cells = [("precision", 2), ("recall", 2), ("average_precision", 2), ("ndcg", 1), ("mrr", 2), ("hit_rate", 1)];
        let kwargs = asked(&cells);
        // Laid out to the most items that may be relevant (3): the list ends at rank 2.
        let ranked = [q[0], q[1], 0.0];
        let group = Group { ranked: &ranked, rest: &q[2..], n_candidates: 2.0, gain: 1.0 };
        let mut row = vec![0.0; 2 * cells.len() + 2];
        let ideals = ideals(&kwargs);
        group_moments(&Cells::of(&kwargs, &ideals), &group, &mut row, &mut Scratch::default());
        let discount = |rank: usize| 1.0 / ((rank + 1) as f64).log2();
        let mut sums = vec![(0.0, 0.0); cells.len() + 1];
        for outcome in 0..8usize {
            let rel: Vec<bool> = (0..3).map(|i| outcome >> i & 1 == 1).collect();
            let chance: f64 = (0..3).map(|i| if rel[i] { q[i] } else { 1.0 - q[i] }).product();
            let r = rel.iter().filter(|&&x| x).count() as f64;
            let hits2 = (rel[0] as u8 + rel[1] as u8) as f64;
            let values = [
                hits2 / 2.0,
                if r > 0.0 { hits2 / r } else { 0.0 },
                if r > 0.0 { ((rel[0] as u8) as f64 + if rel[1] { hits2 / 2.0 } else { 0.0 }) / r } else { 0.0 },
                if r > 0.0 { (rel[0] as u8) as f64 * discount(1) / discount(1) } else { 0.0 },
                if rel[0] { 1.0 } else if rel[1] { 0.5 } else { 0.0 },
                if rel[0] { 1.0 } else { 0.0 },
                if r > 0.0 { (0..(r as usize).min(2)).filter(|&i| rel[i]).count() as f64 / r } else { 0.0 },
            ];
            for (sum, value) in sums.iter_mut().zip(values) {
                sum.0 += chance * value;
                sum.1 += chance * value * value;
            }
        }
        for (i, (e1, e2)) in sums.iter().enumerate() {
            let std = (e2 - e1 * e1).max(0.0).sqrt();
            assert!((row[2 * i] - e1).abs() < 1e-12, "cell {i}: {} vs {e1}", row[2 * i]);
            assert!((row[2 * i + 1] - std).abs() < 1e-12, "cell {i}: {} vs {std}", row[2 * i + 1]);
        }
    }
}
