//! Each group's truth counted from the judged truth rows alone (one row per group and item,
//! finite grades): R (grades at or above the threshold), the judged non-relevant count and
//! the ideal DCG at every cut-off. The reference is `_truth_stats` in
//! `polars_rankk/core/evaluation/prepare.py`: the gains sorted best first, their running sum of
//! gain / log2(rank + 1) in that order, read at K as the largest running sum within the first
//! K ranks (a mapped negative gain can lower the sum), 0 for no rank.

use crate::columns::{Column, FloatCursor, HandleCursor};
use crate::config::{Config, Output};

use super::hashing::KeyColumns;
use super::terms::gain_of;

/// One output per group (groups in order of their first row): `keys[j][g]` as `Groups::keys`,
/// `values[g * n_outputs + j]` (key outputs: 0).
pub struct TruthSums {
    pub keys: Vec<Vec<u64>>,
    pub values: Vec<f64>,
}

/// The truth's per-group counts and ideal DCG (`keys` the key columns, `grade` the grades).
pub fn truth_sums(config: &Config, keys: &[&Column<'_>], grade: &Column<'_>) -> TruthSums {
    let n = grade.len();
    let n_keys = keys.len();
    let key_columns = KeyColumns { columns: keys, kinds: &config.key_kinds };
    let mut cursors: Vec<HandleCursor<'_>> = keys.iter().map(|c| HandleCursor::new(c)).collect();
    let mut grades = FloatCursor::new(grade);
    // Group ids: an open-addressing table over the keys' hashes.
    let mut slots = vec![u32::MAX; (n / 2).next_power_of_two().max(64)];
    let mut hashes: Vec<u64> = Vec::new();
    let mut group_keys: Vec<u64> = Vec::new();
    let mut rows: Vec<(u32, f64)> = Vec::with_capacity(n);
    let mut current = vec![0u64; n_keys];
    for row in 0..n {
        for (slot, cursor) in current.iter_mut().zip(cursors.iter_mut()) {
            *slot = cursor.get(row);
        }
        let hash = key_columns.hash(&current);
        let mask = slots.len() - 1;
        let mut slot = (hash as usize) & mask;
        let group = loop {
            let found = slots[slot];
            if found == u32::MAX {
                let id = hashes.len() as u32;
                slots[slot] = id;
                hashes.push(hash);
                group_keys.extend_from_slice(&current);
                if hashes.len() * 2 > slots.len() {
                    slots = vec![u32::MAX; slots.len() * 2];
                    let mask = slots.len() - 1;
                    for (g, h) in hashes.iter().enumerate() {
                        let mut s = (*h as usize) & mask;
                        while slots[s] != u32::MAX {
                            s = (s + 1) & mask;
                        }
                        slots[s] = g as u32;
                    }
                }
                break id;
            }
            let g = found as usize;
            if hashes[g] == hash && key_columns.equal(&current, &group_keys[g * n_keys..(g + 1) * n_keys]) {
                break found;
            }
            slot = (slot + 1) & mask;
        };
        rows.push((group, grades.get(row)));
    }
    let n_groups = hashes.len();
    // Each group's gains side by side (a counting sort by group).
    let offsets = group_offsets(rows.iter().map(|(g, _)| *g), n_groups);
    let mut next = offsets[..n_groups].to_vec();
    let threshold = config.policy.relevance_threshold;
    let mut gains = vec![0.0f64; n];
    let mut relevant = vec![0.0f64; n_groups];
    for (g, grade) in &rows {
        let g = *g as usize;
        gains[next[g]] = gain_of(*grade, config);
        next[g] += 1;
        relevant[g] += f64::from(u8::from(*grade >= threshold));
    }
    let ks: Vec<usize> = config.outputs.iter().filter_map(|(_, o)| if let Output::IdealDcg(k) = o { Some(*k) } else { None }).collect();
    let k_max = ks.iter().copied().max().unwrap_or(0);
    let discounts: Vec<f64> = (1..=k_max.min(n)).map(|rank| ((rank + 1) as f64).log(2.0)).collect();
    let n_outputs = config.outputs.len();
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let mut best_at: Vec<f64> = Vec::new();
    for g in 0..n_groups {
        let group_gains = &mut gains[offsets[g]..offsets[g + 1]];
        group_gains.sort_unstable_by(|a, b| b.total_cmp(a));
        // The largest running sum within the first r ranks, r = 1..=min(len, k_max).
        best_at.clear();
        let mut running = 0.0f64;
        let mut best = f64::NEG_INFINITY;
        for (index, gain) in group_gains.iter().take(k_max).enumerate() {
            running += gain / discounts[index];
            best = best.max(running);
            best_at.push(best);
        }
        let count = (offsets[g + 1] - offsets[g]) as f64;
        let out = &mut values[g * n_outputs..(g + 1) * n_outputs];
        for (slot, (_, output)) in out.iter_mut().zip(&config.outputs) {
            *slot = match output {
                Output::NRelevant => relevant[g],
                Output::NNonrelevant => count - relevant[g],
                Output::IdealDcg(k) if *k == 0 || best_at.is_empty() => 0.0,
                Output::IdealDcg(k) => best_at[(*k).min(best_at.len()) - 1],
                _ => 0.0,
            };
        }
    }
    let keys = (0..n_keys).map(|j| (0..n_groups).map(|g| group_keys[g * n_keys + j]).collect()).collect();
    TruthSums { keys, values }
}

/// Where each group's rows start when rows are laid out group by group (`offsets[g]`; the
/// last, `offsets[n_groups]`, is the number of rows): a counting sort's offsets.
pub(super) fn group_offsets(groups: impl Iterator<Item = u32>, n_groups: usize) -> Vec<usize> {
    let mut offsets = vec![0usize; n_groups + 1];
    for g in groups {
        offsets[g as usize + 1] += 1;
    }
    for g in 0..n_groups {
        offsets[g + 1] += offsets[g];
    }
    offsets
}
