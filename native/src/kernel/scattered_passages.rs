//! MaxP of passage rows in random order (`documents` when the rows are not in runs), one key
//! column without nulls: no row number gathered, no passage id read at random.
//!
//! 1. One sequential pass over the rows, each thread its share: each row's values checked,
//!    its document id read where it lies (`document_ids::read`: length, hash, first words),
//!    and the row kept as a compact record (key, passage handle, score, document id) in the
//!    partition its key's hash chooses, in input order.
//! 2. Each partition on its own, the threads sharing them: its groups found in a small table
//!    over the key, then its records read again in input order, each group's best passage
//!    per document kept in the group's own table by the records' document ids (the bytes read
//!    only for ids longer than the words kept, on a hash match); each group then ranked and
//!    cut.
//! 3. The groups put in key order, each thread copying its share of their documents.

use std::ops::Range;
use std::time::Instant;

use crate::columns::{Column, FloatCursor, HandleCursor};

use super::context::{count, threads, timing, Inputs};
use super::document_ids::{self, Id};
use super::documents::{check_row, Documents, Part, Reading, Refused, Scratch};
use super::hashing::KeyColumns;
use super::partition::partition_of;
use super::passage_groups::{on_threads, shares, sorted_groups};

/// Partitions are chosen by this many bits of the key's hash.
const BITS: u32 = 6;

/// One passage row as the grouping reads it: its document id's hash, first words and length
/// kept (72 bytes: the records are most of the memory this path touches).
#[derive(Clone, Copy)]
struct Passage {
    key: u64,
    item: u64,
    score: f64,
    hash: u64,
    head: [u64; document_ids::HEAD],
    length: u32,
}

impl Passage {
    #[inline]
    fn id(&self) -> Id {
        Id { length: self.length as usize, starts: false, hash: self.hash, head: self.head }
    }
}

/// One partition's groups: their keys and their documents, ranked, in the partition's order.
struct Collapsed {
    keys: Vec<u64>,
    /// The documents of group g: `part.items[at[g]..at[g + 1]]` (and so on).
    at: Vec<usize>,
    part: Part,
}

/// Whether `column` has a null.
fn has_nulls(column: &Column<'_>) -> bool {
    column.chunks.iter().any(|chunk| chunk.validity.is_some() && (0..chunk.len).any(|i| !chunk.is_valid(i)))
}

/// MaxP of rows in any order with one key column, or None when this path does not take them
/// (several key columns, a null key or passage id).
pub(super) fn scattered(keys: &KeyColumns<'_>, inputs: &Inputs<'_>, reading: &Reading<'_>) -> Option<(Documents, Refused)> {
    if keys.columns.len() != 1 || has_nulls(keys.columns[0]) || has_nulls(inputs.item) {
        return None;
    }
    let started = Instant::now();
    let (passages, refused) = read_rows(keys, inputs, reading);
    timing("passage rows read and partitioned", started);
    let started = Instant::now();
    let rows: Vec<usize> = (0..1usize << BITS).map(|p| passages.iter().map(|t| t[p].len()).sum()).collect();
    let collapsed: Vec<Collapsed> = on_threads(shares(&rows, threads()), |share| {
        share.map(|p| collapse_partition(keys, reading, passages.iter().map(|t| t[p].as_slice()), rows[p])).collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    drop(passages);
    timing("partitions collapsed", started);
    let started = Instant::now();
    let n_groups: usize = collapsed.iter().map(|c| c.keys.len()).sum();
    count("rows grouped by their records", format!("{} in {n_groups} groups", inputs.score.len()));
    let documents = in_key_order(keys, &collapsed)?;
    timing("groups put in key order", started);
    Some((documents, refused))
}

/// The partitions' groups put in key order, each thread copying its share of their documents
/// (None: two groups with one key, which equal keys lying in one partition rule out).
fn in_key_order(keys: &KeyColumns<'_>, collapsed: &[Collapsed]) -> Option<Documents> {
    let groups: Vec<(usize, usize)> =
        collapsed.iter().enumerate().flat_map(|(p, c)| (0..c.keys.len()).map(move |g| (p, g))).collect();
    let handles: Vec<u64> = groups.iter().map(|(p, g)| collapsed[*p].keys[*g]).collect();
    let order = sorted_groups(keys, &handles)?;
    let sizes: Vec<usize> = order.iter().map(|i| collapsed[groups[*i].0].part.sizes[groups[*i].1]).collect();
    let parts = on_threads(shares(&sizes, threads()), |share| {
        let mut part = Part::reserved(share.clone(), sizes[share.clone()].iter().sum());
        for i in &order[share] {
            let (p, g) = groups[*i];
            let (from, range) = (&collapsed[p].part, collapsed[p].at[g]..collapsed[p].at[g + 1]);
            part.sizes.push(range.len());
            part.items.extend_from_slice(&from.items[range.clone()]);
            part.lengths.extend_from_slice(&from.lengths[range.clone()]);
            part.scores.extend_from_slice(&from.scores[range.clone()]);
            part.bytes += from.lengths[range].iter().map(|l| *l as usize).sum::<usize>();
        }
        part
    });
    Some(Documents { keys: vec![order.iter().map(|i| handles[*i]).collect()], parts })
}

/// Every row read once in input order, each thread its share: its values checked and its
/// record kept in its key's partition (none for a dropped score); per thread, per partition.
fn read_rows(keys: &KeyColumns<'_>, inputs: &Inputs<'_>, reading: &Reading<'_>) -> (Vec<Vec<Vec<Passage>>>, Refused) {
    let n = inputs.score.len();
    let threads = threads().clamp(1, n.max(1));
    let bounds = (0..threads).map(|t| n * t / threads..n * (t + 1) / threads).collect();
    let found = on_threads(bounds, |rows: Range<usize>| {
        let mut refused = Refused::default();
        // Each partition's rows counted first (the key column alone), so that no list grows
        // by copy.
        let mut sizes = vec![0usize; 1 << BITS];
        let mut key = HandleCursor::new(keys.columns[0]);
        for row in rows.clone() {
            sizes[partition_of(keys.hash_one(0, key.get(row)), BITS)] += 1;
        }
        let mut partitions: Vec<Vec<Passage>> = sizes.iter().map(|size| Vec::with_capacity(*size)).collect();
        let mut key = HandleCursor::new(keys.columns[0]);
        let (mut item, mut score) = (HandleCursor::new(inputs.item), FloatCursor::new(inputs.score));
        for row in rows {
            let handle = item.get(row);
            let id = document_ids::read(reading.items.column.text_of(handle), reading.items.cut);
            let value = score.get(row);
            if reading.asked.check_values {
                check_row(&mut refused, reading, row, id.starts, value);
            }
            if let Some(value) = reading.score(value) {
                let key = key.get(row);
                let p = partition_of(keys.hash_one(0, key), BITS);
                let (hash, head, length) = (id.hash, id.head, id.length as u32);
                partitions[p].push(Passage { key, item: handle, score: value, hash, head, length });
            }
        }
        (partitions, refused)
    });
    let mut refused = Refused::default();
    let mut passages = Vec::with_capacity(found.len());
    for (partitions, theirs) in found {
        refused.merge(&theirs);
        passages.push(partitions);
    }
    (passages, refused)
}

/// One partition's records (the threads' lists, in input order) collapsed group by group.
fn collapse_partition<'p>(
    keys: &KeyColumns<'_>,
    reading: &Reading<'_>,
    lists: impl Iterator<Item = &'p [Passage]> + Clone,
    rows: usize,
) -> Collapsed {
    // The partition's groups, each row's group among them.
    let mut table = vec![0u32; (rows * 2).next_power_of_two().max(16)];
    let mask = table.len() - 1;
    let mut group_keys: Vec<u64> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut of_row: Vec<u32> = Vec::with_capacity(rows);
    for passage in lists.clone().flatten() {
        let mut slot = (keys.hash_one(0, passage.key) as usize) & mask;
        let g = loop {
            let at = table[slot] as usize;
            if at == 0 {
                table[slot] = (group_keys.len() + 1) as u32;
                group_keys.push(passage.key);
                counts.push(0);
                break group_keys.len() - 1;
            }
            if keys.equal(&[group_keys[at - 1]], &[passage.key]) {
                break at - 1;
            }
            slot = (slot + 1) & mask;
        };
        counts[g] += 1;
        of_row.push(g as u32);
    }
    drop(table);
    // Every group's documents kept at once, the records read in input order.
    let mut groups: Vec<Scratch> = counts.iter().map(|_| Scratch::default()).collect();
    for (scratch, rows) in groups.iter_mut().zip(&counts) {
        scratch.begin(*rows);
    }
    for (passage, g) in lists.flatten().zip(&of_row) {
        groups[*g as usize].add(&reading.items, passage.item, &passage.id(), passage.score);
    }
    let mut part = Part::reserved(0..group_keys.len(), rows);
    let mut at = Vec::with_capacity(group_keys.len() + 1);
    at.push(0usize);
    for scratch in &mut groups {
        scratch.rank_into(reading, &mut part);
        at.push(part.items.len());
    }
    Collapsed { keys: group_keys, at, part }
}
