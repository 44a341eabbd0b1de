//! The computation: group the rows, rank each group under the policy, and read the running
//! sums of the per-rank terms at every cut-off. The reference is `polars_rankk/core/metrics/order.py`
//! and `polars_rankk/core/evaluation/prepare.py`; the formulas follow them term by term.
//!
//! `runs` takes rows already grouped as they come; `group_ids` groups rows in any other order
//! (partitioning them by the keys' hash) and gathers them group by group; `rank`
//! orders, de-duplicates and condenses one group; `terms` sums the declared terms of a ranked
//! group. This module splits the groups across the threads.

use crate::config::{Config, Label, N_LABELS};

mod context;
pub(crate) mod counterfactual;
mod document_ids;
pub mod documents;
mod events;
mod facts;
mod gather;
mod group_ids;
pub(crate) mod hashing;
mod ideal;
pub(crate) mod item_model;
mod item_ranks;
mod key_order;
pub mod labels;
mod partition;
mod passage_groups;
pub(crate) mod rank;
mod runs;
mod scattered_passages;
pub(crate) mod terms;
#[cfg(test)]
mod tests;
mod truth;
mod truth_sums;

pub use context::{count, threads, timing, Inputs};
pub use events::{group_and_event_rows, EventRows};
pub use item_ranks::item_ranks;
use group_ids::grouped;
use runs::{grouped_in_runs, in_runs};
pub use truth_sums::{truth_sums, TruthSums};
pub(crate) use rank::{item_key, rank_group, Candidate, Items, RankScratch};
pub(crate) use terms::{gain_of, GroupResult, Reader, Terms};
use facts::GroupFacts;
use rank::effective_grade;

/// The result: one entry per group.
pub struct Groups {
    /// `keys[j][g]`: the handle of key column `j` of group `g` (see `Column::handles`).
    pub keys: Vec<Vec<u64>>,
    /// `values[g * n_outputs + j]`: output `j` of group `g` (keys excluded: 0).
    pub values: Vec<f64>,
    /// The items at each group's first ranks, where `Output::Places` asks for them.
    pub places: Places,
}

/// Each group's items at ranks 1..=depth (`Output::Places`; fewer in a shorter list), group
/// after group: list g is `items[offsets[g]..offsets[g + 1]]`, each item's handle.
#[derive(Default)]
pub struct Places {
    pub offsets: Vec<i64>,
    pub items: Vec<u64>,
}

impl Places {
    /// The threads' lists (each its groups' items and their lengths), in thread order.
    fn joined(found: Vec<(Vec<u64>, Vec<i64>)>) -> Places {
        let mut places = Places { offsets: vec![0], items: Vec::new() };
        for (items, lengths) in found {
            places.items.extend(items);
            for length in lengths {
                let end = places.offsets[places.offsets.len() - 1] + length;
                places.offsets.push(end);
            }
        }
        places
    }
}

/// Each group's thread-sized share: (first group, number of groups) per part.
fn parts(n_groups: usize) -> (usize, usize) {
    let threads = threads().min(n_groups.max(1)).max(1);
    (threads, n_groups.div_ceil(threads).max(1))
}

/// One thread's groups ranked and read, one after another, into their output rows: each
/// group ranked once, then read by each reader (the configuration's, then each label
/// configuration's, `Config::readers`) into its outputs, side by side.
struct GroupSums<'a> {
    readers: &'a [Reader<'a>],
    items: &'a Items<'a>,
    scratch: RankScratch,
    results: Vec<GroupResult>,
    /// The diagnostics' facts of the group, where an output reads them.
    facts: Option<GroupFacts>,
    /// The ranks whose items `Output::Places` lists, and the items and list lengths so far.
    places_depth: Option<usize>,
    placed: (Vec<u64>, Vec<i64>),
}

impl<'a> GroupSums<'a> {
    fn new(readers: &'a [Reader<'a>], items: &'a Items<'a>) -> Self {
        let results = readers.iter().map(|r| GroupResult::new(r.ks.len(), r.config.stats.len())).collect();
        let facts = readers[0].config.reads_facts().then(GroupFacts::default);
        let places_depth = readers[0].config.places_depth();
        GroupSums { readers, items, scratch: RankScratch::default(), results, facts, places_depth, placed: Default::default() }
    }

    /// Rank `group` (R and N its counts for each reader's count set, `counts` reading them;
    /// NaN: none) and write every reader's outputs into `out`. Returns how many of the group's
    /// first candidates are in rank order.
    fn write(&mut self, group: &mut [Candidate], counts: impl Fn(usize) -> (f64, f64), out: &mut [f64]) -> usize {
        let top = self.ranks_read(&counts);
        let config = self.readers[0].config;
        let (len, sorted) = rank_group(config, self.items, group, &mut self.scratch, top);
        self.read_ranked(group, len, sorted, counts, out);
        sorted
    }

    /// The ranks every reader reads (None: the whole list).
    fn ranks_read(&self, counts: &impl Fn(usize) -> (f64, f64)) -> Option<usize> {
        let mut top = Some(0usize);
        for (set, reader) in self.readers.iter().enumerate() {
            top = match (top, reader.ranks_read(known(counts(set).0))) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
        if let Some(depth) = self.places_depth {
            top = top.map(|top| top.max(depth));
        }
        top
    }

    /// Read the ranked group (`len` candidates after de-duplication, the first `sorted` in
    /// rank order) into every reader's outputs in `out`.
    fn read_ranked(&mut self, group: &[Candidate], len: usize, sorted: usize, counts: impl Fn(usize) -> (f64, f64), out: &mut [f64]) {
        let config = self.readers[0].config;
        if let Some(depth) = self.places_depth {
            let listed = &group[..sorted.min(depth)];
            self.placed.0.extend(listed.iter().map(|candidate| candidate.item));
            self.placed.1.push(listed.len() as i64);
        }
        if let Some(facts) = &mut self.facts {
            facts.read(config, self.items, &group[..len]);
        }
        let mut slots = out.iter_mut();
        for (set, (reader, result)) in self.readers.iter().zip(self.results.iter_mut()).enumerate() {
            let (relevant, nonrelevant) = counts(set);
            reader.read(&group[..sorted], len, known(relevant), known(nonrelevant), result);
            // The reader's outputs first: a slot is taken only for an output.
            for ((_, output), slot) in reader.config.outputs.iter().zip(&mut slots) {
                let fact = self.facts.as_ref().and_then(|facts| facts.output(output, &group[..sorted]));
                *slot = fact.unwrap_or_else(|| result.output(output, &reader.ks));
            }
        }
    }
}

/// A count as read (NaN: none, 0).
fn known(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        value
    }
}

/// Every reader of `config` (`Config::readers`) and the number of outputs of all of them.
fn readers_of(config: &Config) -> (Vec<Reader<'_>>, usize) {
    let readers: Vec<Reader<'_>> = config.readers().map(Reader::for_outputs).collect();
    (readers, config.all_outputs().count())
}

/// Group `g`'s counts of count set `set` (`Config::count_thresholds`), NaN where there are none.
fn counts_of(n_relevant: &[f64], n_nonrelevant: &[f64], sets: usize, g: usize, set: usize) -> (f64, f64) {
    // Without the truth's rows (count columns, or none) every reader reads the one set.
    let at = g * sets + set.min(sets - 1);
    (n_relevant.get(at).copied().unwrap_or(f64::NAN), n_nonrelevant.get(at).copied().unwrap_or(f64::NAN))
}

/// Rank every group and read its sums; `outputs` gives the columns, in order.
pub fn compute(config: &Config, inputs: &Inputs<'_>) -> Groups {
    if let Some(found) = in_runs(config, inputs) {
        return compute_in_runs(config, inputs, &found);
    }
    let mut grouped = grouped(config, inputs);
    let n_groups = grouped.starts.len();
    let (n_relevant, n_nonrelevant) =
        (std::mem::take(&mut grouped.n_relevant), std::mem::take(&mut grouped.n_nonrelevant));
    let group_keys = std::mem::take(&mut grouped.keys);
    let mut slices = grouped.slices();
    let (readers, n_outputs) = readers_of(config);
    let sets = config.count_thresholds().len();
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let (threads, per_thread) = parts(n_groups);
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let started = std::time::Instant::now();
    let mut placed = Vec::new();
    std::thread::scope(|scope| {
        let mut values_rest: &mut [f64] = &mut values;
        let mut handles = Vec::new();
        for (part, groups) in slices.chunks_mut(per_thread).enumerate() {
            let first = part * per_thread;
            let (block, tail) = std::mem::take(&mut values_rest).split_at_mut(groups.len() * n_outputs);
            values_rest = tail;
            let (readers, items) = (&readers, &items);
            let (n_relevant, n_nonrelevant) = (&n_relevant, &n_nonrelevant);
            let mut work = move || {
                let mut sums = GroupSums::new(readers, items);
                for (local, group) in groups.iter_mut().enumerate() {
                    let g = first + local;
                    let counts = |set| counts_of(n_relevant, n_nonrelevant, sets, g, set);
                    sums.write(group, counts, &mut block[local * n_outputs..(local + 1) * n_outputs]);
                }
                sums.placed
            };
            if threads == 1 {
                placed.push(work());
            } else {
                handles.push(scope.spawn(work));
            }
        }
        placed.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
    });
    timing("rank and sum", started);
    Groups { keys: group_keys, values, places: Places::joined(placed) }
}

/// `compute` on rows already grouped: each thread reads its groups' rows into one small
/// buffer, group after group, and ranks and reads it there (no array of every candidate).
fn compute_in_runs(config: &Config, inputs: &Inputs<'_>, found: &runs::InRuns<'_>) -> Groups {
    let started = std::time::Instant::now();
    let (readers, n_outputs) = readers_of(config);
    let sets = config.count_thresholds().len();
    let mut values = vec![0.0f64; found.n_groups() * n_outputs];
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let shares = found.shares(threads());
    let one_thread = shares.len() <= 1;
    let mut placed = Vec::new();
    std::thread::scope(|scope| {
        let mut values_rest: &mut [f64] = &mut values;
        let mut handles = Vec::new();
        for share in shares {
            let (block, tail) = std::mem::take(&mut values_rest).split_at_mut(share.len() * n_outputs);
            values_rest = tail;
            let (readers, items) = (&readers, &items);
            let work = move || {
                let mut sums = GroupSums::new(readers, items);
                let mut cursors = runs::RowCursors::new(inputs);
                let mut group = Vec::new();
                let first = share.start;
                for g in share {
                    let declared = found.fill(config, g, &mut cursors, &mut group);
                    let counts = |set: usize| found.counts(sets, g, set, declared);
                    let local = g - first;
                    sums.write(&mut group, counts, &mut block[local * n_outputs..(local + 1) * n_outputs]);
                }
                sums.placed
            };
            if one_thread {
                placed.push(work());
            } else {
                handles.push(scope.spawn(work));
            }
        }
        placed.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
    });
    timing("gather, rank and sum (grouped rows)", started);
    Groups { keys: found.keys(config.key_kinds.len()), values, places: Places::joined(placed) }
}

/// Each ranked row's own terms (not cumulated) within the first `k_max` ranks, for the rows
/// where some term is not zero, group by group.
pub struct TermRows {
    /// `keys[j][g]`: as `Groups::keys`.
    pub keys: Vec<Vec<u64>>,
    /// (group, rank) of each row, in group order, then rank order.
    pub rows: Vec<(u32, u32)>,
    /// The item of each row (its handle: see `Column::handles`), when asked for (`with_items`).
    pub items: Vec<u64>,
    /// The score each row was ranked by, beside its item (`with_items`).
    pub scores: Vec<f64>,
    /// `values[row * n_stats + stat]`: the row's value of each configured term.
    pub values: Vec<f64>,
}

/// What one thread found: `TermRows`' rows, items, values and scores of its groups.
type Found = (Vec<(u32, u32)>, Vec<u64>, Vec<f64>, Vec<f64>);

/// Rank every group and return each row's own terms within the first `k_max` ranks (the
/// K-curves' sums over ranks read them) and, `with_items`, each row's item.
pub fn term_rows(config: &Config, inputs: &Inputs<'_>, k_max: usize, with_items: bool) -> TermRows {
    let reader = Reader { config, terms: Terms::new(config), ks: Vec::new(), limit_whole: false, hits_at_r: false, k_max };
    if let Some(found) = in_runs(config, inputs) {
        return term_rows_in_runs(config, inputs, &found, &reader, with_items);
    }
    let mut grouped = grouped(config, inputs);
    let started = std::time::Instant::now();
    let keys = std::mem::take(&mut grouped.keys);
    let mut slices = grouped.slices();
    let n_groups = slices.len();
    let (_, per_thread) = parts(n_groups);
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let mut found: Vec<Found> = Vec::new();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (part, groups) in slices.chunks_mut(per_thread).enumerate() {
            let first = part * per_thread;
            let (items, reader) = (&items, &reader);
            handles.push(scope.spawn(move || {
                let mut out: Found = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                let mut keys_scratch = RankScratch::default();
                let mut weights: Vec<Vec<f64>> = Vec::new();
                for (local, group) in groups.iter_mut().enumerate() {
                    let (_, sorted) = rank_group(config, items, group, &mut keys_scratch, Some(reader.k_max));
                    reader.row_terms((first + local) as u32, &group[..sorted], &mut weights, with_items, &mut out);
                }
                out
            }));
        }
        found = handles.into_iter().map(|h| h.join().unwrap_or_default()).collect();
    });
    timing("rank and read the term rows", started);
    joined(keys, found)
}

/// `term_rows` on rows already grouped: each thread reads its groups' rows into one small
/// buffer, group after group, and ranks and reads it there (as `compute_in_runs`).
fn term_rows_in_runs(config: &Config, inputs: &Inputs<'_>, runs: &runs::InRuns<'_>, reader: &Reader<'_>, with_items: bool) -> TermRows {
    let started = std::time::Instant::now();
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let work = |share: std::ops::Range<usize>| {
        let mut out: Found = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut scratch, mut weights) = (RankScratch::default(), Vec::new());
        let mut cursors = runs::RowCursors::new(inputs);
        let mut group = Vec::new();
        for g in share {
            runs.fill(config, g, &mut cursors, &mut group);
            let (_, sorted) = rank_group(config, &items, &mut group, &mut scratch, Some(reader.k_max));
            reader.row_terms(g as u32, &group[..sorted], &mut weights, with_items, &mut out);
        }
        out
    };
    let shares = runs.shares(threads());
    let found: Vec<Found> = if shares.len() <= 1 {
        shares.into_iter().map(work).collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares.into_iter().map(|share| scope.spawn(move || work(share))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    };
    timing("gather, rank and read the term rows (grouped rows)", started);
    joined(runs.keys(config.key_kinds.len()), found)
}

/// The threads' `Found`, in thread order, as one `TermRows`.
fn joined(keys: Vec<Vec<u64>>, found: Vec<Found>) -> TermRows {
    let (mut rows, mut items, mut values, mut scores) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (r, i, v, s) in found {
        rows.extend(r);
        items.extend(i);
        values.extend(v);
        scores.extend(s);
    }
    TermRows { keys, rows, items, values, scores }
}

impl Reader<'_> {
    /// The terms of the row `candidate` at `rank` into `values` (`hits` so far counted, its
    /// `labels` read); whether the row is relevant.
    fn row_values(&self, candidate: &Candidate, rank: usize, hits: &mut i64, labels: &mut [f64; N_LABELS], weights: &[Vec<f64>], values: &mut [f64]) -> bool {
        let config = self.config;
        let grade = effective_grade(candidate.grade, config);
        let relevant = grade >= config.policy.relevance_threshold;
        if relevant {
            *hits += 1;
        }
        self.terms.label_row(labels, grade, relevant && *hits == 1, candidate.judged(), config);
        values.iter_mut().for_each(|v| *v = 0.0);
        self.terms.add(values, labels, rank, weights);
        if let (Some(slot), true) = (self.terms.precision, relevant) {
            values[slot] = *hits as f64 / rank as f64;
        }
        relevant
    }

    /// The row terms of one ranked group (deterministic tie policies), appended to `out`.
    fn row_terms(&self, g: u32, ranked: &[Candidate], weights: &mut Vec<Vec<f64>>, with_items: bool, out: &mut Found) {
        let terms = &self.terms;
        let limit = ranked.len().min(self.k_max);
        terms.extend(weights, limit);
        let mut hits = 0i64;
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        let mut values = vec![0.0f64; terms.n_stats];
        for (index, candidate) in ranked[..limit].iter().enumerate() {
            let rank = index + 1;
            self.row_values(candidate, rank, &mut hits, &mut labels, weights, &mut values);
            if values.iter().any(|v| *v != 0.0) {
                out.0.push((g, rank as u32));
                if with_items {
                    out.1.push(candidate.item);
                    out.3.push(candidate.score);
                }
                out.2.extend_from_slice(&values);
            }
        }
    }
}
