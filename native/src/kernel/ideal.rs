//! Each ranked group's ideal DCG at every rank of a positive gain up to K_max, from the
//! truth's rows of the same call (`Config::truth`: the rows with a grade, after the
//! candidates): what a K-curve reads beside the running sums of its terms.
//!
//! The reference is `truth_sums` (and `_truth_stats` in
//! `polars_rankk/core/evaluation/group_table.py`): the gains sorted best first, their running
//! sum of gain / log2(rank + 1) in that order. The positive gains come first, so at their ranks
//! the running sum is also the largest so far, which is what the ideal DCG at K reads.

use crate::columns::{FloatCursor, HandleCursor};
use crate::config::Config;

use super::context::Inputs;
use super::hashing::KeyColumns;
use super::terms::gain_of;
use super::truth_sums::group_offsets;

/// `values[offsets[g]..offsets[g + 1]]`: group g's ideal DCG at ranks 1, 2, … (one per
/// positive gain, at most K_max).
pub(crate) struct IdealRuns {
    pub offsets: Vec<usize>,
    pub values: Vec<f64>,
}

impl IdealRuns {
    pub(crate) fn of(&self, g: usize) -> &[f64] {
        self.offsets.get(g + 1).map_or(&[], |end| &self.values[self.offsets[g]..*end])
    }
}

/// The ideal DCG runs of the groups whose key handles are `keys` (`keys[j][g]`), read from
/// the truth's rows of `inputs` (after its candidates); a truth row of a group not among them
/// is skipped.
pub(crate) fn ideal_runs(config: &Config, inputs: &Inputs<'_>, keys: &[Vec<u64>], k_max: usize) -> IdealRuns {
    let n_groups = keys.first().map_or(0, Vec::len);
    let n_keys = keys.len();
    let key_columns = KeyColumns { columns: &inputs.keys, kinds: &config.key_kinds };
    // `flat[g * n_keys..(g + 1) * n_keys]`: group g's key handles.
    let flat: Vec<u64> = (0..n_groups).flat_map(|g| keys.iter().map(move |column| column[g])).collect();
    let handles = |g: usize| &flat[g * n_keys..(g + 1) * n_keys];
    // The groups by their keys' hash: an open-addressing table.
    let mut slots = vec![u32::MAX; (2 * n_groups).next_power_of_two().max(64)];
    let mask = slots.len() - 1;
    let mut hashes = Vec::with_capacity(n_groups);
    for g in 0..n_groups {
        let hash = key_columns.hash(handles(g));
        hashes.push(hash);
        let mut slot = (hash as usize) & mask;
        while slots[slot] != u32::MAX {
            slot = (slot + 1) & mask;
        }
        slots[slot] = g as u32;
    }
    let mut grades = FloatCursor::new(inputs.grade);
    let mut cursors: Vec<HandleCursor<'_>> = inputs.keys.iter().map(|c| HandleCursor::new(c)).collect();
    let mut current = vec![0u64; n_keys];
    let mut rows: Vec<(u32, f64)> = Vec::new();
    // The truth's rows follow the candidates' (which have no grade): the last rows with one.
    let n = inputs.grade.len();
    let first = (0..n).rev().find(|row| grades.get(*row).is_nan()).map_or(0, |row| row + 1);
    for row in first..n {
        let grade = grades.get(row);
        let gain = gain_of(grade, config);
        if gain.is_nan() || gain <= 0.0 {
            continue; // ranked after every positive gain: no rank of an ideal event
        }
        for (slot, cursor) in current.iter_mut().zip(cursors.iter_mut()) {
            *slot = cursor.get(row);
        }
        let hash = key_columns.hash(&current);
        let mut slot = (hash as usize) & mask;
        while slots[slot] != u32::MAX {
            let g = slots[slot] as usize;
            if hashes[g] == hash && key_columns.equal(&current, handles(g)) {
                rows.push((g as u32, gain));
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    // Each group's gains side by side (a counting sort by group), best first.
    let offsets = group_offsets(rows.iter().map(|(g, _)| *g), n_groups);
    let mut next = offsets[..n_groups].to_vec();
    let mut gains = vec![0.0f64; rows.len()];
    for (g, gain) in &rows {
        gains[next[*g as usize]] = *gain;
        next[*g as usize] += 1;
    }
    let mut kept = vec![0usize; n_groups + 1];
    let mut values = Vec::with_capacity(rows.len());
    for g in 0..n_groups {
        let group = &mut gains[offsets[g]..offsets[g + 1]];
        group.sort_unstable_by(|a, b| b.total_cmp(a));
        let mut running = 0.0f64;
        for (index, gain) in group.iter().take(k_max).enumerate() {
            running += gain / ((index + 2) as f64).log(2.0);
            values.push(running);
        }
        kept[g + 1] = values.len();
    }
    IdealRuns { offsets: kept, values }
}
