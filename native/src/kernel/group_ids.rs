//! Grouping: dense group ids from a hash of the key columns, and every group's candidates
//! side by side (a counting sort by group, in input order).

use crate::columns::Column;
use crate::config::{Config, Invalid, Judged, Kind};

use super::rank::{defers_condensing, Candidate};
use super::{timing, Inputs};

#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    let rest = words.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(0x0000_0100_0000_01b3);
    mix(h)
}

struct KeyReader<'a> {
    columns: &'a [&'a Column<'a>],
    kinds: &'a [Kind],
}

impl KeyReader<'_> {
    #[inline]
    fn hash(&self, handles: &[u64]) -> u64 {
        let mut h = 0u64;
        for (j, kind) in self.kinds.iter().enumerate() {
            let part = match kind {
                Kind::Integer => mix(handles[j]),
                Kind::Text => hash_bytes(self.columns[j].text_of(handles[j])),
            };
            h = mix(h.rotate_left(5) ^ part);
        }
        h
    }

    #[inline]
    fn equal(&self, a: &[u64], b: impl Fn(usize) -> u64) -> bool {
        self.kinds.iter().enumerate().all(|(j, kind)| {
            let (x, y) = (a[j], b(j));
            match kind {
                Kind::Integer => x == y,
                Kind::Text => x == y || self.columns[j].text_of(x) == self.columns[j].text_of(y),
            }
        })
    }
}

/// Dense group ids in order of first appearance, and each group's key handles.
fn group_ids(keys: &KeyReader<'_>, n: usize) -> (Vec<u32>, Vec<Vec<u64>>) {
    let n_keys = keys.kinds.len();
    let mut readers: Vec<_> = keys.columns.iter().map(|c| c.handles()).collect();
    let mut ids = Vec::with_capacity(n);
    let mut group_keys: Vec<Vec<u64>> = vec![Vec::new(); n_keys];
    let mut hashes: Vec<u64> = Vec::new();
    let mut table: Vec<u32> = vec![u32::MAX; 1024];
    let mut mask = table.len() - 1;
    let mut current = vec![0u64; n_keys];
    let mut previous = vec![0u64; n_keys];
    let mut previous_id: Option<u32> = None;
    for _ in 0..n {
        for (j, reader) in readers.iter_mut().enumerate() {
            current[j] = reader.next().unwrap_or(0);
        }
        // Rows of one group often come together: compare with the previous row first.
        if let Some(id) = previous_id {
            if keys.equal(&current, |j| previous[j]) {
                ids.push(id);
                continue;
            }
        }
        let h = keys.hash(&current);
        let mut slot = (h as usize) & mask;
        let id = loop {
            let found = table[slot];
            if found == u32::MAX {
                let id = hashes.len() as u32;
                for (j, handle) in current.iter().enumerate() {
                    group_keys[j].push(*handle);
                }
                hashes.push(h);
                table[slot] = id;
                if hashes.len() * 2 > table.len() {
                    table = vec![u32::MAX; table.len() * 2];
                    mask = table.len() - 1;
                    for (g, gh) in hashes.iter().enumerate() {
                        let mut s = (*gh as usize) & mask;
                        while table[s] != u32::MAX {
                            s = (s + 1) & mask;
                        }
                        table[s] = g as u32;
                    }
                }
                break id;
            }
            let g = found as usize;
            if hashes[g] == h && keys.equal(&current, |j| group_keys[j][g]) {
                break found;
            }
            slot = (slot + 1) & mask;
        };
        ids.push(id);
        previous.copy_from_slice(&current);
        previous_id = Some(id);
    }
    (ids, group_keys)
}

/// Every group's candidates side by side, after invalid scores and unjudged candidates are
/// handled: group g holds `candidates[offsets[g]..ends[g]]`.
pub(super) struct Grouped {
    pub keys: Vec<Vec<u64>>,
    pub offsets: Vec<usize>,
    pub ends: Vec<usize>,
    pub candidates: Vec<Candidate>,
    pub n_relevant: Vec<f64>,
    pub n_nonrelevant: Vec<f64>,
}

pub(super) fn grouped(config: &Config, inputs: &Inputs<'_>) -> Grouped {
    let n = inputs.score.len();
    let reader = KeyReader { columns: &inputs.keys, kinds: &config.key_kinds };
    let started = std::time::Instant::now();
    let (ids, group_keys) = group_ids(&reader, n);
    timing("group ids", started);
    let started = std::time::Instant::now();
    let n_groups = group_keys[0].len();
    // Each group's candidates side by side (a counting sort by group, in input order), after
    // invalid scores and unjudged candidates are handled: group g holds offsets[g]..ends[g].
    let mut offsets = vec![0usize; n_groups + 1];
    for id in &ids {
        offsets[*id as usize + 1] += 1;
    }
    for g in 0..n_groups {
        offsets[g + 1] += offsets[g];
    }
    let mut ends = offsets[..n_groups].to_vec();
    let mut candidates = vec![Candidate::default(); n];
    let mut n_relevant = vec![f64::NAN; if inputs.n_relevant.is_some() { n_groups } else { 0 }];
    let mut n_nonrelevant = vec![f64::NAN; if inputs.n_nonrelevant.is_some() { n_groups } else { 0 }];
    {
        let mut scores = inputs.score.floats();
        let mut grades = inputs.grade.floats();
        let mut items = inputs.item.handles();
        let mut rows = inputs.row.map(Column::integers);
        let mut judged_flags = inputs.judged.map(Column::floats);
        let mut relevant_counts = inputs.n_relevant.map(Column::floats);
        let mut nonrelevant_counts = inputs.n_nonrelevant.map(Column::floats);
        for id in &ids {
            let g = *id as usize;
            // + 0.0 folds -0.0 into 0.0 (as the reference does), so that the two tie.
            let mut score = scores.next().unwrap_or(f64::NAN) + 0.0;
            let grade = grades.next().unwrap_or(f64::NAN);
            let item = items.next().unwrap_or(0);
            let row = rows.as_mut().map_or(0, |r| r.next().unwrap_or(0));
            let flag = judged_flags.as_mut().map_or(0.0, |j| j.next().unwrap_or(0.0));
            if let Some(counts) = relevant_counts.as_mut() {
                n_relevant[g] = n_relevant[g].max(counts.next().unwrap_or(f64::NAN));
            }
            if let Some(counts) = nonrelevant_counts.as_mut() {
                n_nonrelevant[g] = n_nonrelevant[g].max(counts.next().unwrap_or(f64::NAN));
            }
            if !score.is_finite() {
                match config.policy.invalid_scores {
                    Invalid::Drop => continue,
                    Invalid::Lowest => score = f64::NEG_INFINITY,
                    Invalid::Error => {}
                }
            }
            let judged = match config.judged {
                Judged::Unused | Judged::All => true,
                Judged::Grade => !grade.is_nan(),
                Judged::Column => flag != 0.0 && !flag.is_nan(),
                // As the reference: a null grade is filled first, then compared.
                Judged::NonNegative => {
                    (if grade.is_nan() { config.unjudged_grade } else { grade }) >= 0.0
                }
            };
            let condensed_away = match config.judged {
                // Condensing a pre-labelled list keeps the grades >= 0 (a null is not one).
                Judged::NonNegative => grade.is_nan() || grade < 0.0,
                _ => !judged,
            };
            // Pre-labelled copies of one item pool their grades before condensing (as the
            // reference de-duplicates first): their condensing waits for `rank_group`.
            if config.condense && condensed_away && !defers_condensing(config) {
                continue;
            }
            let extra = ((row.max(0) as u64) << 1) | u64::from(judged);
            candidates[ends[g]] = Candidate { score, grade, item, extra };
            ends[g] += 1;
        }
    }
    timing("scatter", started);
    Grouped { keys: group_keys, offsets, ends, candidates, n_relevant, n_nonrelevant }
}
