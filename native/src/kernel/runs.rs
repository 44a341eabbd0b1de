//! Rows already grouped: every group's candidate rows side by side (a log written user by
//! user, a table sorted by its keys), taken as they come, without partitioning.
//!
//! One sequential pass over the keys finds the runs of equal keys among the candidate rows
//! (the truth's rows, after them, are set aside); the rows are grouped when no key starts two
//! runs, which a small table of the runs' keys (one entry per group, not per row) tells.
//! Rows in any other order leave after a few thousand rows (their runs are short) or at the
//! first key seen again, and take the partitioned path (`group_ids`). Each group's truth rows
//! are then joined to its candidates, which each thread reads in order, run after run.

use std::time::Instant;

use crate::columns::{FloatCursor, HandleCursor};
use crate::config::{Config, Kind};

use super::context::{count, threads, timing, Inputs};
use super::group_ids::{candidate, Grouped};
use super::hashing::KeyColumns;
use super::rank::{Candidate, Items};
use super::truth::Truth;

/// Rows read before judging whether the runs are long enough to be groups.
const PROBE_ROWS: usize = 4096;
/// Rows per run, over the first `PROBE_ROWS` candidate rows, below which the rows are not
/// taken as grouped (rows in random order: a run per row, which the partitioned path groups
/// faster than a table of runs as large as the rows would).
const MIN_RUN: usize = 4;

/// The runs of the candidate rows: `starts[g]..ends[g]` (rows) hold group g's candidates
/// (groups in order of their first row), `truth` the truth's rows `(group, item, grade)`.
struct Runs {
    starts: Vec<usize>,
    ends: Vec<usize>,
    /// `keys[g * n_keys + j]`: the handle of key column j of group g.
    keys: Vec<u64>,
    truth: Vec<(u32, u64, f64)>,
    /// The truth's rows read (those of groups only in the truth included).
    truth_read: usize,
}

/// The group table of the runs' keys: open addressing over the keys' hashes.
struct Table {
    slots: Vec<u32>,
    hashes: Vec<u64>,
}

impl Table {
    /// The group of `key` (a run's first row's handles), or None when it is not in the table;
    /// `key_of(g)` gives group g's handles.
    fn find<'k>(&self, keys: &KeyColumns<'_>, key: &[u64], hash: u64, key_of: impl Fn(usize) -> &'k [u64]) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut slot = (hash as usize) & mask;
        loop {
            let found = self.slots[slot];
            if found == u32::MAX {
                return Err(slot);
            }
            let g = found as usize;
            if self.hashes[g] == hash && keys.equal(key, key_of(g)) {
                return Ok(found);
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// The runs of equal keys among the candidate rows, when each key has one run (None: the
/// rows are not grouped).
fn runs(config: &Config, inputs: &Inputs<'_>, keys: &KeyColumns<'_>) -> Option<Runs> {
    let n = inputs.score.len();
    let n_keys = keys.kinds.len();
    let mut cursors: Vec<HandleCursor<'_>> = inputs.keys.iter().map(|c| HandleCursor::new(c)).collect();
    let mut grades = FloatCursor::new(inputs.grade);
    let mut current = vec![0u64; n_keys];
    let mut out = Runs { starts: Vec::new(), ends: Vec::new(), keys: Vec::new(), truth: Vec::new(), truth_read: 0 };
    let mut truth_rows: Vec<usize> = Vec::new();
    let mut candidates = 0usize;
    if let ([key_cursor], [Kind::Integer]) = (cursors.as_mut_slice(), keys.kinds) {
        // One integer key (the common case): its value is its identity.
        let mut open = false;
        for row in 0..n {
            let key = key_cursor.get(row);
            if config.truth && !grades.get(row).is_nan() {
                truth_rows.push(row);
                open = false;
                continue;
            }
            candidates += 1;
            if open && out.keys.last() == Some(&key) {
                if let Some(end) = out.ends.last_mut() {
                    *end = row + 1;
                }
            } else {
                out.starts.push(row);
                out.ends.push(row + 1);
                out.keys.push(key);
                open = true;
            }
            if candidates == PROBE_ROWS && out.starts.len() * MIN_RUN > PROBE_ROWS {
                return None;
            }
        }
    }
    for row in (if keys.kinds == [Kind::Integer] { n } else { 0 })..n {
        for (slot, cursor) in current.iter_mut().zip(cursors.iter_mut()) {
            *slot = cursor.get(row);
        }
        if config.truth && !grades.get(row).is_nan() {
            truth_rows.push(row);
            continue;
        }
        candidates += 1;
        let last = out.starts.len();
        let same = last > 0
            && out.ends[last - 1] == row
            && keys.equal(&current, &out.keys[(last - 1) * n_keys..last * n_keys]);
        if same {
            out.ends[last - 1] = row + 1;
        } else {
            out.starts.push(row);
            out.ends.push(row + 1);
            out.keys.extend_from_slice(&current);
        }
        if candidates == PROBE_ROWS && out.starts.len() * MIN_RUN > PROBE_ROWS {
            return None;
        }
    }
    // A group's rows cut by another's (or by a truth row) make two runs of one key, which the
    // table below finds: those rows take the partitioned path.
    let n_groups = out.starts.len();
    let mut table = Table { slots: vec![u32::MAX; (n_groups * 2).next_power_of_two().max(64)], hashes: Vec::with_capacity(n_groups) };
    for g in 0..n_groups {
        let key = &out.keys[g * n_keys..(g + 1) * n_keys];
        let hash = keys.hash(key);
        match table.find(keys, key, hash, |h| &out.keys[h * n_keys..(h + 1) * n_keys]) {
            Ok(_) => return None, // a key seen in an earlier run: not grouped
            Err(slot) => {
                table.slots[slot] = g as u32;
                table.hashes.push(hash);
            }
        }
    }
    // The truth's rows, each to its group (a group only in the truth has no candidates and no
    // output row: its rows are left out, as on the partitioned path).
    let mut items = HandleCursor::new(inputs.item);
    out.truth_read = truth_rows.len();
    for row in truth_rows {
        for (slot, cursor) in current.iter_mut().zip(cursors.iter_mut()) {
            *slot = cursor.get(row);
        }
        let hash = keys.hash(&current);
        if let Ok(g) = table.find(keys, &current, hash, |h| &out.keys[h * n_keys..(h + 1) * n_keys]) {
            out.truth.push((g, items.get(row), grades.get(row)));
        }
    }
    Some(out)
}

/// The input columns a group's rows are read from, each by its own cursor.
pub(super) struct RowCursors<'a> {
    item: HandleCursor<'a>,
    score: FloatCursor<'a>,
    grade: FloatCursor<'a>,
    row: Option<HandleCursor<'a>>,
    judged: Option<FloatCursor<'a>>,
    relevant: Option<FloatCursor<'a>>,
    nonrelevant: Option<FloatCursor<'a>>,
}

impl<'a> RowCursors<'a> {
    pub(super) fn new(inputs: &Inputs<'a>) -> Self {
        RowCursors {
            item: HandleCursor::new(inputs.item),
            score: FloatCursor::new(inputs.score),
            grade: FloatCursor::new(inputs.grade),
            row: inputs.row.map(HandleCursor::new),
            judged: inputs.judged.map(FloatCursor::new),
            relevant: inputs.n_relevant.map(FloatCursor::new),
            nonrelevant: inputs.n_nonrelevant.map(FloatCursor::new),
        }
    }

    /// Whether the rows hold nothing but the item, score and grade (what `evaluate` sends).
    fn plain(&self) -> bool {
        self.row.is_none() && self.judged.is_none() && self.relevant.is_none() && self.nonrelevant.is_none()
    }
}

/// Rows taken as grouped: their runs, each group's truth and counts, read group by group.
pub(super) struct InRuns<'a> {
    runs: Runs,
    items: Items<'a>,
    truth: Option<Truth>,
    /// Each group's R and judged non-relevant count from the truth (empty without it).
    pub(super) n_relevant: Vec<f64>,
    pub(super) n_nonrelevant: Vec<f64>,
}

/// The candidate rows' runs when they come grouped (None: they do not), with each group's
/// truth read.
pub(super) fn in_runs<'a>(config: &'a Config, inputs: &Inputs<'a>) -> Option<InRuns<'a>> {
    let started = Instant::now();
    let key_columns = KeyColumns { columns: &inputs.keys, kinds: &config.key_kinds };
    let found = runs(config, inputs, &key_columns)?;
    let n_groups = found.starts.len();
    count("rows taken as grouped", format!("{} in {n_groups} groups", inputs.score.len()));
    count("rows partitioned", "0 into 0 partitions (rows already grouped)");
    count("rows scattered", 0);
    count("truth rows joined by group", found.truth_read);
    count("whole-truth probes", 0);
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let truth = config.truth.then(|| Truth::new(&items, &found.truth, n_groups));
    let (n_relevant, n_nonrelevant) = match &truth {
        Some(truth) => truth.counts(&items, &config.count_thresholds()),
        None => (Vec::new(), Vec::new()),
    };
    timing("runs", started);
    Some(InRuns { runs: found, items, truth, n_relevant, n_nonrelevant })
}

impl InRuns<'_> {
    pub(super) fn n_groups(&self) -> usize {
        self.runs.starts.len()
    }

    /// `keys[j][g]`: as `Groups::keys`.
    pub(super) fn keys(&self, n_keys: usize) -> Vec<Vec<u64>> {
        let n_groups = self.n_groups();
        (0..n_keys).map(|j| (0..n_groups).map(|g| self.runs.keys[g * n_keys + j]).collect()).collect()
    }

    /// Each of `threads` threads' groups: contiguous, about equal in rows.
    pub(super) fn shares(&self, threads: usize) -> Vec<std::ops::Range<usize>> {
        let n_groups = self.n_groups();
        let threads = threads.clamp(1, n_groups.max(1));
        let rows = |g: usize| self.runs.ends[g] - self.runs.starts[g];
        let total: usize = (0..n_groups).map(rows).sum();
        let mut bounds = vec![0usize];
        let mut so_far = 0usize;
        for g in 0..n_groups {
            so_far += rows(g);
            if bounds.len() < threads && so_far * threads >= total * bounds.len() {
                bounds.push(g + 1);
            }
        }
        bounds.push(n_groups);
        bounds.dedup();
        if bounds.len() == 1 {
            bounds.push(0);
        }
        bounds.windows(2).map(|w| w[0]..w[1]).collect()
    }

    /// Group g's relevant and judged non-relevant counts of count set `set`: the truth's where
    /// the kernel counts them, else the group's `declared` ones (what `fill` returned).
    pub(super) fn counts(&self, sets: usize, g: usize, set: usize, declared: (f64, f64)) -> (f64, f64) {
        let at = g * sets + set;
        let relevant = self.n_relevant.get(at).copied().unwrap_or(declared.0);
        (relevant, self.n_nonrelevant.get(at).copied().unwrap_or(declared.1))
    }

    /// Group g's candidates, in input order, into `out` (cleared first); the largest R and N
    /// its rows declare (NaN: none).
    pub(super) fn fill(&self, config: &Config, g: usize, cursors: &mut RowCursors<'_>, out: &mut Vec<Candidate>) -> (f64, f64) {
        out.clear();
        let rows = self.runs.starts[g]..self.runs.ends[g];
        let grade_of = |cursors: &mut RowCursors<'_>, row: usize, item: u64| match &self.truth {
            Some(truth) => truth.grade(&self.items, g as u32, item),
            None => cursors.grade.get(row),
        };
        if cursors.plain() {
            for row in rows {
                let item = cursors.item.get(row);
                let grade = grade_of(cursors, row, item);
                // + 0.0 folds -0.0 into 0.0 (as the reference does), so that the two tie.
                if let Some(c) = candidate(config, cursors.score.get(row) + 0.0, grade, item, 0, 0.0) {
                    out.push(c);
                }
            }
            return (f64::NAN, f64::NAN);
        }
        let (mut most_relevant, mut most_nonrelevant) = (f64::NAN, f64::NAN);
        for row in rows {
            let item = cursors.item.get(row);
            let grade = grade_of(cursors, row, item);
            let input_row = cursors.row.as_mut().map_or(0, |c| c.get(row) as i64);
            let flag = cursors.judged.as_mut().map_or(0.0, |c| c.get(row));
            if let Some(cursor) = cursors.relevant.as_mut() {
                most_relevant = most_relevant.max(cursor.get(row));
            }
            if let Some(cursor) = cursors.nonrelevant.as_mut() {
                most_nonrelevant = most_nonrelevant.max(cursor.get(row));
            }
            // + 0.0 folds -0.0 into 0.0 (as the reference does), so that the two tie.
            if let Some(c) = candidate(config, cursors.score.get(row) + 0.0, grade, item, input_row, flag) {
                out.push(c);
            }
        }
        (most_relevant, most_nonrelevant)
    }
}

/// Every group's candidates side by side (the K-curves' rows read them so), when the
/// candidate rows come grouped (None: they do not).
pub(super) fn grouped_in_runs(config: &Config, inputs: &Inputs<'_>) -> Option<Grouped> {
    let found = in_runs(config, inputs)?;
    let started = Instant::now();
    let shares = found.shares(threads());
    let work = |share: std::ops::Range<usize>| {
        let mut cursors = RowCursors::new(inputs);
        let mut group = Vec::new();
        let mut region: Vec<Candidate> = Vec::new();
        let (mut starts, mut ends, mut relevant, mut nonrelevant) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for g in share {
            let (declared_relevant, declared_nonrelevant) = found.fill(config, g, &mut cursors, &mut group);
            starts.push(region.len());
            region.extend_from_slice(&group);
            ends.push(region.len());
            relevant.push(declared_relevant);
            nonrelevant.push(declared_nonrelevant);
        }
        (region, starts, ends, relevant, nonrelevant)
    };
    let parts: Vec<_> = if shares.len() <= 1 {
        shares.into_iter().map(work).collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares.into_iter().map(|share| scope.spawn(move || work(share))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    };
    let n_groups = found.n_groups();
    let mut grouped = Grouped {
        keys: found.keys(config.key_kinds.len()),
        starts: Vec::with_capacity(n_groups),
        ends: Vec::with_capacity(n_groups),
        members: Vec::with_capacity(parts.len()),
        candidates: Vec::with_capacity(parts.len()),
        n_relevant: found.n_relevant.clone(),
        n_nonrelevant: found.n_nonrelevant.clone(),
    };
    let mut first = 0u32;
    for (region, starts, ends, relevant, nonrelevant) in parts {
        let n = starts.len() as u32;
        grouped.members.push((first..first + n).collect());
        first += n;
        grouped.starts.extend(starts);
        grouped.ends.extend(ends);
        grouped.candidates.push(region);
        if !config.truth {
            if inputs.n_relevant.is_some() {
                grouped.n_relevant.extend(relevant);
            }
            if inputs.n_nonrelevant.is_some() {
                grouped.n_nonrelevant.extend(nonrelevant);
            }
        }
    }
    timing("group and gather (grouped rows)", started);
    Some(grouped)
}
