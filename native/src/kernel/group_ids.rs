//! Grouping: dense group ids from a hash of the key columns, and every group's candidates
//! side by side: read in order when the input arrives grouped (each group's rows together),
//! else a counting sort by group, in input order. With the truth in the same call, its rows
//! are read first into `Truth` and the candidates take their grades from it.

use crate::columns::Column;
use crate::config::{Config, Invalid, Judged, Kind};

use super::rank::{defers_condensing, Candidate, Items};
use super::truth::Truth;
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

/// The candidate rows' groups once the truth's rows are set aside: `ids[i]` the dense id among
/// groups with candidates (`u32::MAX` for a truth row), and the truth read into `Truth`.
struct Split {
    ids: Vec<u32>,
    group_keys: Vec<Vec<u64>>,
    truth: Option<(Truth, Vec<u32>)>,
    n_relevant: Vec<f64>,
    n_nonrelevant: Vec<f64>,
}

/// Set the truth rows (those with a grade) aside: read them into `Truth`, count each group's
/// R and N, and renumber the groups that have candidate rows.
fn split_truth(config: &Config, inputs: &Inputs<'_>, ids: Vec<u32>, keys: Vec<Vec<u64>>) -> Split {
    let n_all = keys[0].len();
    let items = Items { column: inputs.item, kind: config.item_kind };
    let mut rows: Vec<(u32, u64, f64)> = Vec::new();
    let mut renumber = vec![u32::MAX; n_all];
    let mut n_groups = 0u32;
    let mut old_ids = ids;
    let mut handles = inputs.item.handles();
    for (id, grade) in old_ids.iter_mut().zip(inputs.grade.floats()) {
        let item = handles.next().unwrap_or(0);
        if grade.is_nan() {
            let new = &mut renumber[*id as usize];
            if *new == u32::MAX {
                *new = n_groups;
                n_groups += 1;
            }
        } else {
            rows.push((*id, item, grade));
            *id = u32::MAX;
        }
    }
    let truth = Truth::new(&items, &rows, n_all);
    drop(rows);
    let (relevant, nonrelevant) = truth.counts(&items, config.policy.relevance_threshold);
    let mut group_keys = vec![vec![0u64; n_groups as usize]; keys.len()];
    let mut n_relevant = vec![0.0; n_groups as usize];
    let mut n_nonrelevant = vec![0.0; n_groups as usize];
    for (old, new) in renumber.iter().enumerate().filter(|(_, new)| **new != u32::MAX) {
        for (j, column) in keys.iter().enumerate() {
            group_keys[j][*new as usize] = column[old];
        }
        n_relevant[*new as usize] = relevant[old];
        n_nonrelevant[*new as usize] = nonrelevant[old];
    }
    // The candidates keep their old ids for the truth's look-ups; `renumber` gives the new.
    Split { ids: old_ids, group_keys, truth: Some((truth, renumber)), n_relevant, n_nonrelevant }
}

/// Whether each group's candidate rows are together, groups in order of first appearance.
fn arrives_grouped(ids: &[u32], renumber: Option<&[u32]>) -> bool {
    let mut last = 0u32;
    for id in ids.iter().filter(|id| **id != u32::MAX) {
        let id = renumber.map_or(*id, |r| r[*id as usize]);
        if id < last || id > last + 1 {
            return false;
        }
        last = id;
    }
    true
}

/// How many rows the last call scattered (the rest were read in order): a counter the
/// tests read under `POLARS_RANKK_NATIVE_TIMING`.
fn report_scattered(rows: usize) {
    if std::env::var_os("POLARS_RANKK_NATIVE_TIMING").is_some() {
        eprintln!("rankk kernel: rows scattered: {rows}");
    }
}

/// A candidate row as the ranking reads it, after `Policy.invalid_scores` and condensing
/// (None: the row leaves before ranking).
#[inline]
fn candidate(config: &Config, score: f64, grade: f64, item: u64, row: i64, flag: f64) -> Option<Candidate> {
    let mut score = score;
    if !score.is_finite() {
        match config.policy.invalid_scores {
            Invalid::Drop => return None,
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
        return None;
    }
    let extra = ((row.max(0) as u64) << 1) | u64::from(judged);
    Some(Candidate { score, grade, item, extra })
}

pub(super) fn grouped(config: &Config, inputs: &Inputs<'_>) -> Grouped {
    let n = inputs.score.len();
    let reader = KeyReader { columns: &inputs.keys, kinds: &config.key_kinds };
    let started = std::time::Instant::now();
    let (ids, group_keys) = group_ids(&reader, n);
    timing("group ids", started);
    let started = std::time::Instant::now();
    let split = if config.truth {
        split_truth(config, inputs, ids, group_keys)
    } else {
        Split { ids, group_keys, truth: None, n_relevant: Vec::new(), n_nonrelevant: Vec::new() }
    };
    if config.truth {
        timing("truth", started);
    }
    let started = std::time::Instant::now();
    let Split { ids, group_keys, truth, n_relevant: truth_relevant, n_nonrelevant: truth_nonrelevant } =
        split;
    let renumber = truth.as_ref().map(|(_, r)| r.as_slice());
    let new_id = |id: u32| renumber.map_or(id, |r| r[id as usize]);
    let n_groups = group_keys[0].len();
    let in_order = arrives_grouped(&ids, renumber);
    // Each group's candidates side by side, after invalid scores and unjudged candidates are
    // handled: group g holds offsets[g]..ends[g]. In order: each group starts where the one
    // before it ended; else a counting sort by group.
    let mut offsets = vec![0usize; n_groups + 1];
    if !in_order {
        for id in ids.iter().filter(|id| **id != u32::MAX) {
            offsets[new_id(*id) as usize + 1] += 1;
        }
        for g in 0..n_groups {
            offsets[g + 1] += offsets[g];
        }
    }
    let mut ends = offsets[..n_groups].to_vec();
    let n_candidates = if config.truth { ids.iter().filter(|id| **id != u32::MAX).count() } else { n };
    let mut candidates = vec![Candidate::default(); n_candidates];
    let mut next = 0usize;
    let mut n_relevant = vec![f64::NAN; if inputs.n_relevant.is_some() { n_groups } else { 0 }];
    let mut n_nonrelevant = vec![f64::NAN; if inputs.n_nonrelevant.is_some() { n_groups } else { 0 }];
    let items_view = Items { column: inputs.item, kind: config.item_kind };
    {
        let mut scores = inputs.score.floats();
        let mut grades = inputs.grade.floats();
        let mut items = inputs.item.handles();
        let mut rows = inputs.row.map(Column::integers);
        let mut judged_flags = inputs.judged.map(Column::floats);
        let mut relevant_counts = inputs.n_relevant.map(Column::floats);
        let mut nonrelevant_counts = inputs.n_nonrelevant.map(Column::floats);
        let mut previous = usize::MAX;
        for id in &ids {
            // + 0.0 folds -0.0 into 0.0 (as the reference does), so that the two tie.
            let score = scores.next().unwrap_or(f64::NAN) + 0.0;
            let mut grade = grades.next().unwrap_or(f64::NAN);
            let item = items.next().unwrap_or(0);
            let row = rows.as_mut().map_or(0, |r| r.next().unwrap_or(0));
            if *id == u32::MAX {
                continue; // a truth row
            }
            let g = new_id(*id) as usize;
            if in_order && g != previous {
                // The group starts where the one before it ended.
                offsets[g] = next;
                ends[g] = next;
                previous = g;
            }
            if let Some((truth, _)) = &truth {
                grade = truth.grade(&items_view, *id, item);
            }
            let flag = judged_flags.as_mut().map_or(0.0, |j| j.next().unwrap_or(0.0));
            if let Some(counts) = relevant_counts.as_mut() {
                n_relevant[g] = n_relevant[g].max(counts.next().unwrap_or(f64::NAN));
            }
            if let Some(counts) = nonrelevant_counts.as_mut() {
                n_nonrelevant[g] = n_nonrelevant[g].max(counts.next().unwrap_or(f64::NAN));
            }
            let Some(candidate) = candidate(config, score, grade, item, row, flag) else {
                continue;
            };
            candidates[ends[g]] = candidate;
            ends[g] += 1;
            next = ends[g];
        }
    }
    if in_order {
        offsets[n_groups] = next;
    }
    report_scattered(if in_order { 0 } else { n_candidates });
    timing(if in_order { "read in order (not scattered)" } else { "scatter" }, started);
    if config.truth {
        (n_relevant, n_nonrelevant) = (truth_relevant, truth_nonrelevant);
    }
    Grouped { keys: group_keys, offsets, ends, candidates, n_relevant, n_nonrelevant }
}
