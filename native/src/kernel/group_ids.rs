//! Grouping: the rows radix-partitioned by the hash of their keys (`partition`), then each
//! partition on its own: a small table of its groups, its truth rows read into each group's
//! judged items (`Truth`, per partition: no probe of a structure over the whole truth), and
//! its candidates gathered group by group into the partition's own array, in input order
//! within each group. Groups come out in order of their first candidate row.
//!
//! With one key column and the truth's rows in the call (what `evaluate` sends), or no grade
//! at all (a ranking alone), the rows themselves are partitioned (`partition::records`) and each partition is read sequentially;
//! otherwise row numbers are partitioned and each partition's columns gathered by row.

use std::time::Instant;

use crate::config::{Config, Invalid, Judged, Kind};

use super::gather::{Gathered, Readers};
use super::hashing::{mix, KeyColumns};
use super::partition::{partition, records, Partitions};
use super::rank::{defers_condensing, Candidate, Items};
use super::truth::Truth;
use super::context::{count, threads, timing, Inputs};

/// Every group's candidates side by side, after invalid scores and unjudged candidates are
/// handled: group g (in output order) lies in one array r, `members[r]` (listed in the order of
/// their places), and holds `candidates[r][starts[g]..ends[g]]`.
pub(super) struct Grouped {
    pub keys: Vec<Vec<u64>>,
    pub starts: Vec<usize>,
    pub ends: Vec<usize>,
    pub members: Vec<Vec<u32>>,
    pub candidates: Vec<Vec<Candidate>>,
    pub n_relevant: Vec<f64>,
    pub n_nonrelevant: Vec<f64>,
}

impl Grouped {
    /// Each group's candidates as its own slice, in output order.
    pub(super) fn slices(&mut self) -> Vec<&mut [Candidate]> {
        let mut slices: Vec<&mut [Candidate]> = Vec::new();
        slices.resize_with(self.starts.len(), Default::default);
        for (members, candidates) in self.members.iter().zip(self.candidates.iter_mut()) {
            let mut rest: &mut [Candidate] = candidates;
            let mut at = 0usize;
            for &g in members {
                let g = g as usize;
                let (_, tail) = std::mem::take(&mut rest).split_at_mut(self.starts[g] - at);
                let (mine, tail) = tail.split_at_mut(self.ends[g] - self.starts[g]);
                slices[g] = mine;
                rest = tail;
                at = self.ends[g];
            }
        }
        slices
    }
}

/// What one call's grouping did, for `POLARS_RANKK_NATIVE_TIMING`: rows partitioned, rows
/// written one by one to a place anywhere in the table (none since partitioning: each
/// partition gathers its own rows), and look-ups of a candidate's grade in a structure over
/// the whole truth (none: each partition joins its own truth rows).
fn report(partitioned: usize, partitions: usize, truth_rows: usize, whole_rows: bool) {
    let how = if whole_rows { "rows" } else { "row numbers" };
    count("rows taken as grouped", 0);
    count("rows partitioned", format!("{partitioned} into {partitions} partitions (as {how})"));
    count("rows scattered", 0);
    count("truth rows joined by group", truth_rows);
    count("whole-truth probes", 0);
}

/// A candidate row as the ranking reads it, after `Policy.invalid_scores` and condensing
/// (None: the row leaves before ranking).
#[inline]
pub(super) fn candidate(config: &Config, score: f64, grade: f64, item: u64, row: i64, flag: f64) -> Option<Candidate> {
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

/// A candidate row as read, before its grade is joined.
#[derive(Clone, Copy)]
struct Read {
    group: u32,
    score: f64,
    grade: f64,
    item: u64,
    row: i64,
    flag: f64,
}

/// One partition's groups: their first candidate rows, keys, regions and truth counts.
#[derive(Default)]
struct Found {
    truth_rows: usize,
    /// Each group's region (one of the partition's arrays) and its place among the region's
    /// groups; how many groups each region holds.
    regions: Vec<u32>,
    positions: Vec<u32>,
    groups_per_region: Vec<usize>,
    first_rows: Vec<u32>,
    /// `keys[g * n_keys + j]`.
    keys: Vec<u64>,
    starts: Vec<usize>,
    ends: Vec<usize>,
    n_relevant: Vec<f64>,
    n_nonrelevant: Vec<f64>,
}

/// A thread's scratch, reused from partition to partition.
#[derive(Default)]
struct Scratch {
    gathered: Gathered,
    table: Vec<u32>,
    hashes: Vec<u64>,
    keys: Vec<u64>,
    first_rows: Vec<u32>,
    counts: Vec<usize>,
    read: Vec<Read>,
    truth_rows: Vec<(u32, u64, f64)>,
    row_relevant: Vec<f64>,
    row_nonrelevant: Vec<f64>,
}

impl Scratch {
    /// The partition's group of a row's keys (`current`), added when new.
    #[inline]
    fn group_of(&mut self, keys: &KeyColumns<'_>, current: &[u64]) -> u32 {
        let n_keys = current.len();
        let h = keys.hash(current);
        let mask = self.table.len() - 1;
        let mut slot = (h as usize) & mask;
        loop {
            let found = self.table[slot];
            if found == u32::MAX {
                break;
            }
            let g = found as usize;
            if self.hashes[g] == h && keys.equal(current, &self.keys[g * n_keys..(g + 1) * n_keys]) {
                return found;
            }
            slot = (slot + 1) & mask;
        }
        self.add(h, current, slot)
    }

    /// A new group of keys `current` (hash `h`), at the table's empty `slot`.
    #[inline(never)]
    fn add(&mut self, h: u64, current: &[u64], slot: usize) -> u32 {
        let id = self.hashes.len() as u32;
        self.hashes.push(h);
        self.keys.extend_from_slice(current);
        self.first_rows.push(u32::MAX);
        self.counts.push(0);
        self.table[slot] = id;
        if self.hashes.len() * 2 > self.table.len() {
            self.table = vec![u32::MAX; self.table.len() * 2];
            let mask = self.table.len() - 1;
            for (g, gh) in self.hashes.iter().enumerate() {
                let mut s = (*gh as usize) & mask;
                while self.table[s] != u32::MAX {
                    s = (s + 1) & mask;
                }
                self.table[s] = g as u32;
            }
        }
        id
    }

    /// `group_of` for one integer key column: its value is its hash's input and its identity.
    #[inline(always)]
    fn group_of_integer(&mut self, key: u64) -> u32 {
        let h = mix(key);
        let mask = self.table.len() - 1;
        let mut slot = (h as usize) & mask;
        loop {
            let found = self.table[slot];
            if found == u32::MAX {
                break;
            }
            if self.keys[found as usize] == key {
                return found;
            }
            slot = (slot + 1) & mask;
        }
        self.add(h, std::slice::from_ref(&key), slot)
    }

    fn clear(&mut self, expected_groups: usize) {
        let size = (expected_groups * 2).next_power_of_two().max(64);
        self.table.clear();
        self.table.resize(size, u32::MAX);
        self.hashes.clear();
        self.keys.clear();
        self.first_rows.clear();
        self.counts.clear();
        self.read.clear();
        self.truth_rows.clear();
        self.row_relevant.clear();
        self.row_nonrelevant.clear();
    }
}

/// Read a partition's records (`partition::record`, one key column, the truth's rows among
/// them) into its groups: the truth rows set aside, the candidates in `scratch.read`.
fn scan_records(keys: &KeyColumns<'_>, scratch: &mut Scratch, lists: &[Vec<Candidate>]) {
    let rows: usize = lists.iter().map(Vec::len).sum();
    scratch.clear(rows / 64 + 16);
    scratch.read.reserve(rows);
    let integer = keys.kinds == [Kind::Integer];
    for record in lists.iter().flatten() {
        let key = record.grade.to_bits();
        let g = if integer {
            scratch.group_of_integer(key)
        } else {
            scratch.group_of(keys, std::slice::from_ref(&key))
        };
        if record.extra & 2 != 0 {
            scratch.truth_rows.push((g, record.item, record.score));
            continue;
        }
        let gi = g as usize;
        if scratch.first_rows[gi] == u32::MAX {
            scratch.first_rows[gi] = (record.extra >> 2) as u32;
        }
        scratch.counts[gi] += 1;
        let read = Read { group: g, score: record.score, grade: f64::NAN, item: record.item, row: 0, flag: 0.0 };
        scratch.read.push(read);
    }
}

/// Read a partition's gathered rows into its groups: the truth rows (with a grade, when the
/// truth is in the call) set aside, the candidates in `scratch.read`.
fn scan_rows(config: &Config, keys: &KeyColumns<'_>, scratch: &mut Scratch, gathered: &Gathered) {
    let n_keys = keys.kinds.len();
    scratch.clear(gathered.rows.len() / 64 + 16);
    let mut current = vec![0u64; n_keys];
    for (k, &row) in gathered.rows.iter().enumerate() {
        current.copy_from_slice(&gathered.keys[k * n_keys..(k + 1) * n_keys]);
        let g = scratch.group_of(keys, &current);
        let grade = gathered.grades[k];
        let item = gathered.items[k];
        if config.truth && !grade.is_nan() {
            scratch.truth_rows.push((g, item, grade));
            continue;
        }
        let gi = g as usize;
        if scratch.first_rows[gi] == u32::MAX {
            scratch.first_rows[gi] = row;
        }
        scratch.counts[gi] += 1;
        let score = gathered.scores[k];
        let row_value = gathered.row_values.get(k).map_or(0, |r| *r as i64);
        let flag = gathered.flags.get(k).copied().unwrap_or(0.0);
        if let Some(count) = gathered.relevant.get(k) {
            scratch.row_relevant.resize(scratch.hashes.len(), f64::NAN);
            scratch.row_relevant[gi] = scratch.row_relevant[gi].max(*count);
        }
        if let Some(count) = gathered.nonrelevant.get(k) {
            scratch.row_nonrelevant.resize(scratch.hashes.len(), f64::NAN);
            scratch.row_nonrelevant[gi] = scratch.row_nonrelevant[gi].max(*count);
        }
        scratch.read.push(Read { group: g, score, grade, item, row: row_value, flag });
    }
}

/// Where a partition's rows are: their records, or their row numbers.
enum Source<'a> {
    Records(Vec<Vec<Candidate>>),
    Rows(&'a Partitions, usize),
}

/// Group one partition's rows and gather its candidates, group by group, into its own array.
fn group_partition(
    config: &Config,
    inputs: &Inputs<'_>,
    readers: &mut Readers<'_>,
    scratch: &mut Scratch,
    source: Source<'_>,
) -> (Found, Vec<Vec<Candidate>>) {
    let keys = KeyColumns { columns: &inputs.keys, kinds: &config.key_kinds };
    let n_keys = config.key_kinds.len();
    // The partition's records, once read, give their memory to its grouped candidates.
    let mut regions = match source {
        Source::Records(lists) => {
            scan_records(&keys, scratch, &lists);
            lists
        }
        Source::Rows(partitions, p) => {
            let mut gathered = std::mem::take(&mut scratch.gathered);
            gathered.gather(readers, partitions.rows_of(p), n_keys);
            scan_rows(config, &keys, scratch, &gathered);
            scratch.gathered = gathered;
            Vec::new()
        }
    };
    let n_groups = scratch.hashes.len();
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let truth = config.truth.then(|| Truth::new(&items, &scratch.truth_rows, n_groups));
    let sets = config.count_thresholds();
    let counts = truth.as_ref().map(|t| t.counts(&items, &sets));
    // Each group with candidates gets its place, in order of group id: whole groups fill the
    // partition's record lists in turn (no new memory), and a fresh array takes the rest.
    let mut found = Found { truth_rows: scratch.truth_rows.len(), ..Found::default() };
    let mut local_start = vec![usize::MAX; n_groups];
    let mut region_of = vec![0usize; n_groups];
    let mut used = vec![0usize; regions.len()];
    let mut remaining: usize = scratch.counts.iter().sum();
    let mut current = 0usize;
    for g in 0..n_groups {
        let need = scratch.counts[g];
        if need == 0 {
            continue; // only truth rows
        }
        while current < regions.len() && used[current] + need > regions[current].capacity() {
            current += 1;
        }
        if current == regions.len() {
            regions.push(Vec::with_capacity(remaining));
            used.push(0);
            found.groups_per_region.push(0);
        }
        found.groups_per_region.resize(regions.len(), 0);
        region_of[g] = current;
        local_start[g] = used[current];
        used[current] += need;
        remaining -= need;
        found.regions.push(current as u32);
        found.positions.push(found.groups_per_region[current] as u32);
        found.groups_per_region[current] += 1;
        found.first_rows.push(scratch.first_rows[g]);
        found.keys.extend_from_slice(&scratch.keys[g * n_keys..(g + 1) * n_keys]);
        found.starts.push(local_start[g]);
        if let Some((relevant, nonrelevant)) = &counts {
            let set = g * sets.len()..(g + 1) * sets.len();
            found.n_relevant.extend_from_slice(&relevant[set.clone()]);
            found.n_nonrelevant.extend_from_slice(&nonrelevant[set]);
        } else {
            if inputs.n_relevant.is_some() {
                found.n_relevant.push(scratch.row_relevant.get(g).copied().unwrap_or(f64::NAN));
            }
            if inputs.n_nonrelevant.is_some() {
                found.n_nonrelevant.push(scratch.row_nonrelevant.get(g).copied().unwrap_or(f64::NAN));
            }
        }
    }
    found.groups_per_region.resize(regions.len(), 0);
    for (region, used) in regions.iter_mut().zip(&used) {
        if *used == 0 {
            *region = Vec::new(); // a list no group took: its memory goes back
        } else {
            region.clear();
            region.resize(*used, Candidate::default());
        }
    }
    // The candidates, group by group, in input order within each group.
    let mut ends = local_start;
    for read in &scratch.read {
        let g = read.group as usize;
        let grade = match &truth {
            Some(truth) => truth.grade(&items, read.group, read.item),
            None => read.grade,
        };
        if let Some(c) = candidate(config, read.score, grade, read.item, read.row, read.flag) {
            regions[region_of[g]][ends[g]] = c;
            ends[g] += 1;
        }
    }
    found.ends = (0..n_groups).filter(|g| scratch.counts[*g] > 0).map(|g| ends[g]).collect();
    (found, regions)
}

/// Each thread's partitions: contiguous, about equal in rows.
fn shares(rows: &[usize], threads: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = rows.iter().sum();
    let mut out = Vec::with_capacity(threads);
    let mut start = 0usize;
    let mut so_far = 0usize;
    for t in 0..threads {
        let target = total * (t + 1) / threads;
        let mut end = start;
        while end < rows.len() && (so_far < target || t + 1 == threads) {
            so_far += rows[end];
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// Whether the rows themselves are partitioned (one key column, nothing else per row but the
/// item, score and grade; the grades the truth's rows in the call, or none: a record carries
/// no candidate's grade).
fn partitions_records(config: &Config, inputs: &Inputs<'_>) -> bool {
    (config.truth || (!config.labelled && inputs.grade.floats().all(f64::is_nan)))
        && inputs.keys.len() == 1
        && inputs.row.is_none()
        && inputs.judged.is_none()
        && inputs.n_relevant.is_none()
        && inputs.n_nonrelevant.is_none()
}

pub(super) fn grouped(config: &Config, inputs: &Inputs<'_>) -> Grouped {
    let n = inputs.score.len();
    // Rows are numbered in 32 bits (a call of 4G rows would need some 130 GB for its
    // candidates alone): refuse rather than wrap.
    assert!(n < u32::MAX as usize, "the rankk kernel reads at most {} rows per call", u32::MAX - 1);
    let n_keys = config.key_kinds.len();
    let keys = KeyColumns { columns: &inputs.keys, kinds: &config.key_kinds };
    let started = Instant::now();
    let readers = Readers::new(inputs);
    let threads = threads();
    let whole_rows = partitions_records(config, inputs);
    // Each partition's rows: (rows in the partition, its source).
    let mut sources: Vec<(usize, Source<'_>)> = Vec::new();
    let row_numbers = if whole_rows {
        let readers = (&readers.keys[0], &readers.item, &readers.score, &readers.grade);
        let (_, lists) = records(&keys, readers, n, threads);
        for lists in lists {
            let rows = lists.iter().map(Vec::len).sum();
            sources.push((rows, Source::Records(lists)));
        }
        None
    } else {
        Some(partition(&keys, &readers.keys, n, threads))
    };
    if let Some(partitions) = row_numbers.as_ref() {
        for p in 0..partitions.count() {
            sources.push((partitions.rows[p], Source::Rows(partitions, p)));
        }
    }
    let n_partitions = sources.len();
    timing("partition", started);
    let started = Instant::now();
    let rows: Vec<usize> = sources.iter().map(|(r, _)| *r).collect();
    let shares = shares(&rows, threads);
    let mut per_thread: Vec<Vec<Source<'_>>> = Vec::new();
    let mut sources = sources.into_iter().map(|(_, s)| s);
    for share in &shares {
        per_thread.push(sources.by_ref().take(share.len()).collect());
    }
    let work = |sources: Vec<Source<'_>>| {
        let mut readers = readers.clone();
        let mut scratch = Scratch::default();
        sources
            .into_iter()
            .map(|source| group_partition(config, inputs, &mut readers, &mut scratch, source))
            .collect::<Vec<_>>()
    };
    let mut found: Vec<(Found, Vec<Vec<Candidate>>)> = Vec::with_capacity(n_partitions);
    if shares.iter().filter(|s| !s.is_empty()).count() <= 1 {
        for sources in per_thread {
            found.extend(work(sources));
        }
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> =
                per_thread.into_iter().map(|sources| scope.spawn(move || work(sources))).collect();
            for handle in handles {
                found.extend(handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
        });
    }
    drop(row_numbers);
    let truth_rows = found.iter().map(|(f, _)| f.truth_rows).sum();
    report(n, n_partitions, truth_rows, whole_rows);
    // The groups in order of their first candidate row.
    let mut order: Vec<(u32, u32, u32)> = Vec::new();
    for (p, (part, _)) in found.iter().enumerate() {
        order.extend(part.first_rows.iter().enumerate().map(|(i, r)| (*r, p as u32, i as u32)));
    }
    order.sort_unstable_by_key(|(row, _, _)| *row);
    let n_groups = order.len();
    let mut group_keys = vec![Vec::with_capacity(n_groups); n_keys];
    let mut starts = Vec::with_capacity(n_groups);
    let mut ends = Vec::with_capacity(n_groups);
    // Every partition's regions, one after the other: `first_region[p]` is partition p's first.
    let mut first_region = Vec::with_capacity(found.len());
    let mut members: Vec<Vec<u32>> = Vec::new();
    for (part, _) in &found {
        first_region.push(members.len());
        members.extend(part.groups_per_region.iter().map(|n| vec![0u32; *n]));
    }
    let counted = config.truth || inputs.n_relevant.is_some();
    let sets = config.count_thresholds().len();
    let mut n_relevant = Vec::with_capacity(if counted { n_groups * sets } else { 0 });
    let mut n_nonrelevant = Vec::new();
    for (g, (_, p, i)) in order.iter().enumerate() {
        let (part, i) = (&found[*p as usize].0, *i as usize);
        for (j, column) in group_keys.iter_mut().enumerate() {
            column.push(part.keys[i * n_keys + j]);
        }
        starts.push(part.starts[i]);
        ends.push(part.ends[i]);
        let region = first_region[*p as usize] + part.regions[i] as usize;
        members[region][part.positions[i] as usize] = g as u32;
        // Each group's counts, one per count set (`Config::count_thresholds`).
        if let Some(values) = part.n_relevant.get(i * sets..(i + 1) * sets) {
            n_relevant.extend_from_slice(values);
        }
        if let Some(values) = part.n_nonrelevant.get(i * sets..(i + 1) * sets) {
            n_nonrelevant.extend_from_slice(values);
        }
    }
    let candidates = found.into_iter().flat_map(|(_, regions)| regions).collect();
    timing("group and gather", started);
    Grouped { keys: group_keys, starts, ends, members, candidates, n_relevant, n_nonrelevant }
}
