//! The doubly robust estimate's reward model under the position-based model, fitted on the log
//! and read per placement of the new ranking in one pass: no group-by of the log by item and
//! no join back to the placements runs in Polars.
//!
//! The model (`polars_rankk/counterfactual/evaluation.py`, `_fitted_reward_model`) predicts
//! at rank r for item d: theta_r * sum(reward) / sum(theta_k), both sums over every log row
//! of d (shown at position k), pooled over groups; null where the log never shows d.
//!
//! The call's rows are the placements (item, rank; reward unread) and then the log's rows
//! (item, position, reward); the rank and the position share a column. A table of every
//! placed item would be tens of megabytes, and a look-up of it per log row a cache miss; so
//! the items are split by their hash into `PARTITIONS` partitions, each small enough to stay
//! in cache. Each thread reads a contiguous share of the log rows where they lie, passes over
//! the rows whose item no placement can hold (a bitmap of the placed items' hashes, in
//! cache) and copies the others' hash, reward and examination into its lists, one per
//! partition. Then each partition is read on its own (the threads sharing them): a small
//! table of its placed items, the threads' lists read in thread order (so each item's rows
//! are summed in row order), and its placements' predictions written.
//!
//! Integer items whose placed values lie in a short range (`Dense`: as a catalogue's item ids
//! usually do) are named by their offset in it instead: the bitmap holds the placed offsets
//! exactly, so a row of an item placed nowhere is never copied (a hashed bitmap lets about one
//! in sixteen through), and each partition is a range of offsets whose sums lie at their
//! offset in one array, without a table to build and probe. The sums are the same, added in
//! the same order.

use crate::columns::{Column, HandleCursor};
use crate::config::Kind;

use super::hashing::{hash_bytes, mix};

/// The call's columns and what it reads besides them.
pub(crate) struct ItemModelInput<'a> {
    pub item: &'a Column<'a>,
    pub item_kind: Kind,
    /// The placement's rank (placement rows) and the logged position (log rows).
    pub at: &'a Column<'a>,
    pub reward: &'a Column<'a>,
    /// Examination by position (`theta[k - 1]`; NaN: a position without one).
    pub theta: &'a [f64],
    /// The number of placement rows, which come first.
    pub placed: usize,
}

/// The partitions the items are split into by the top bits of their hash.
const PARTITION_BITS: u32 = 8;
const PARTITIONS: usize = 1 << PARTITION_BITS;

/// A log row of an item that may be placed: its item (the hash of an integer, which names
/// it; a text's handle; under `Dense`, the integer's offset), its reward and the examination
/// at its position.
#[derive(Clone, Copy)]
struct Record {
    item: u64,
    reward: f64,
    theta: f64,
}

/// What every thread reads: the columns, the bitmap of the placed items' hashes (under
/// `Dense`, of their offsets).
struct Shared<'a> {
    input: &'a ItemModelInput<'a>,
    filter: Vec<u64>,
    filter_mask: u64,
    dense: Option<Dense>,
}

/// Integer items whose placed values lie in a short range (`span` at most `DENSE_SPAN`
/// values per placement): each named by its offset from the least placed value. The bitmap
/// then holds each placed offset exactly (no row of an unplaced item passes it), and the
/// partitions are ranges of offsets, each item's sums at its offset in the partition's array
/// (no hash table, no probe).
#[derive(Clone, Copy)]
struct Dense {
    least: i64,
    span: u64,
    /// A partition's offsets: `1 << shift` of them, the partition `offset >> shift`.
    shift: u32,
}

/// The widest range of placed values read densely, per placement: 8 values (a bit each in
/// the bitmap, a megabyte for a million placements).
const DENSE_SPAN: u64 = 8;

impl Dense {
    /// The placed items' range, where it is short enough; None for text items.
    fn of(input: &ItemModelInput<'_>) -> Option<Dense> {
        if input.item_kind != Kind::Integer || input.placed == 0 {
            return None;
        }
        let mut handles = HandleCursor::new(input.item);
        let (mut least, mut most) = (i64::MAX, i64::MIN);
        for row in 0..input.placed {
            let value = handles.get(row) as i64;
            (least, most) = (least.min(value), most.max(value));
        }
        let span = u64::try_from(i128::from(most) - i128::from(least) + 1).ok()?;
        if span > DENSE_SPAN * input.placed as u64 || span > 1 << 40 {
            return None;
        }
        // Offsets below `1 << bits`; a partition holds `1 << (bits - PARTITION_BITS)` of them.
        let bits = 64 - (span - 1).leading_zeros();
        Some(Dense { least, span, shift: bits.saturating_sub(PARTITION_BITS) })
    }

    /// The integer's offset, None outside the range.
    #[inline]
    fn offset(&self, handle: u64) -> Option<u64> {
        let offset = (handle as i64).wrapping_sub(self.least) as u64;
        (offset < self.span).then_some(offset)
    }
}

impl Shared<'_> {
    /// A log row's item as a record names it and its partition, where it may be placed.
    #[inline]
    fn placed(&self, handle: u64) -> Option<(u64, usize)> {
        match self.dense {
            Some(dense) => {
                let offset = dense.offset(handle)?;
                self.bit_set(offset).then_some((offset, (offset >> dense.shift) as usize))
            }
            None => {
                let hash = self.hash(handle);
                let item = if self.input.item_kind == Kind::Integer { hash } else { handle };
                self.may_hold(hash).then_some((item, partition_of(hash)))
            }
        }
    }

    #[inline]
    fn bit_set(&self, bit: u64) -> bool {
        self.filter[(bit >> 6) as usize] & (1 << (bit & 63)) != 0
    }

    #[inline]
    fn hash(&self, handle: u64) -> u64 {
        match self.input.item_kind {
            Kind::Integer => mix(handle),
            Kind::Text => hash_bytes(self.input.item.text_of(handle)),
        }
    }

    /// The record's hash (a text's hashed again from its bytes).
    #[inline]
    fn record_hash(&self, item: u64) -> u64 {
        match self.input.item_kind {
            Kind::Integer => item,
            Kind::Text => self.hash(item),
        }
    }

    #[inline]
    fn may_hold(&self, hash: u64) -> bool {
        self.bit_set(hash & self.filter_mask)
    }

    /// Whether two records' or placements' items are one (same hash given).
    #[inline]
    fn same(&self, a: u64, b: u64) -> bool {
        match self.input.item_kind {
            Kind::Integer => a == b,
            Kind::Text => self.input.item.text_of(a) == self.input.item.text_of(b),
        }
    }
}

#[inline]
fn partition_of(hash: u64) -> usize {
    (hash >> (64 - PARTITION_BITS)) as usize
}

/// Per placement row, in input order: the model's prediction at its rank (None where the log
/// never shows its item, or its rank has no examination). A log row whose position has no
/// examination is not read (the estimate refuses such a log before).
pub(crate) fn item_model(input: &ItemModelInput<'_>) -> Vec<Option<f64>> {
    let started = std::time::Instant::now();
    let (n, placed) = (input.at.len(), input.placed);
    let dense = Dense::of(input);
    let bits = match dense {
        Some(dense) => (dense.span as usize).div_ceil(64) * 64,
        None => (16 * placed).next_power_of_two().max(1 << 12),
    };
    let shared = {
        let mut shared = Shared { input, filter: vec![0u64; bits / 64], filter_mask: bits as u64 - 1, dense };
        // Each partition's placement rows: (row, its item as a record names it).
        let mut placements: Vec<Vec<(u32, u64)>> = vec![Vec::new(); PARTITIONS];
        let mut handles = HandleCursor::new(input.item);
        for row in 0..placed {
            let handle = handles.get(row);
            let (bit, item, p) = match dense.and_then(|dense| Some((dense, dense.offset(handle)?))) {
                Some((dense, offset)) => (offset, offset, (offset >> dense.shift) as usize),
                None => {
                    let hash = shared.hash(handle);
                    let item = if input.item_kind == Kind::Integer { hash } else { handle };
                    (hash & shared.filter_mask, item, partition_of(hash))
                }
            };
            shared.filter[(bit >> 6) as usize] |= 1 << (bit & 63);
            placements[p].push((row as u32, item));
        }
        (shared, placements)
    };
    let (shared, placements) = shared;
    super::timing("item model: placed items", started);
    let started = std::time::Instant::now();
    // A thread per 100,000 log rows at most: a small call is not worth a thread.
    let threads = super::threads().min((n - placed) / 100_000).max(1);
    let share = (n - placed).div_ceil(threads).max(1);
    let bounds: Vec<(usize, usize)> =
        (0..threads).map(|t| (placed + t * share, (placed + (t + 1) * share).min(n))).filter(|(start, end)| start < end).collect();
    let lists: Vec<Vec<Vec<Record>>> = std::thread::scope(|scope| {
        let shared = &shared;
        let running: Vec<_> = bounds.iter().map(|&(start, end)| scope.spawn(move || split_rows(shared, start, end))).collect();
        running.into_iter().map(|thread| thread.join().unwrap_or_default()).collect()
    });
    super::timing("item model: log rows split", started);
    let started = std::time::Instant::now();
    let mut ranks = HandleCursor::new(input.at);
    let rank_theta: Vec<Option<f64>> = (0..placed).map(|row| examination(input.theta, ranks.get(row) as i64)).collect();
    let threads = super::threads().min(PARTITIONS);
    let predicted: Vec<Vec<(u32, Option<f64>)>> = std::thread::scope(|scope| {
        let (shared, lists, placements, rank_theta) = (&shared, &lists, &placements, &rank_theta);
        let running: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..PARTITIONS)
                        .step_by(threads)
                        .flat_map(|p| read_partition(shared, &placements[p], lists, p, rank_theta))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        running.into_iter().map(|thread| thread.join().unwrap_or_default()).collect()
    });
    let mut out = vec![None; placed];
    for (row, value) in predicted.into_iter().flatten() {
        out[row as usize] = value;
    }
    super::timing("item model: partitions read", started);
    out
}

/// The examination at `position` (from 1), None where the table has none.
#[inline]
fn examination(theta: &[f64], position: i64) -> Option<f64> {
    let at = usize::try_from(position.checked_sub(1)?).ok()?;
    theta.get(at).copied().filter(|value| !value.is_nan())
}

/// One thread's share of the log rows, `start..end`, read in order: the records of the rows
/// whose item may be placed, by partition.
fn split_rows(shared: &Shared<'_>, start: usize, end: usize) -> Vec<Vec<Record>> {
    let input = shared.input;
    // Room for every row up front (pages are only touched as they fill): a list that grows
    // copies itself, and faults in fresh pages again.
    let room = (end - start) / PARTITIONS + 64;
    let mut lists: Vec<Vec<Record>> = (0..PARTITIONS).map(|_| Vec::with_capacity(room)).collect();
    let mut handles = HandleCursor::new(input.item);
    let mut positions = HandleCursor::new(input.at);
    let mut rewards = super::counterfactual::Rewards::new(input.reward);
    for row in start..end {
        let Some((item, p)) = shared.placed(handles.get(row)) else { continue };
        let Some(theta) = examination(input.theta, positions.get(row) as i64) else { continue };
        lists[p].push(Record { item, reward: rewards.get(row), theta });
    }
    lists
}

/// One item's sums over its log rows.
#[derive(Clone, Copy, Default)]
struct ItemSums {
    reward: f64,
    examination: f64,
    rows: u32,
}

/// Partition `p`: a table of its placed items, its records read in thread order, and each
/// of its placements' prediction (row, value).
fn read_partition(
    shared: &Shared<'_>,
    placements: &[(u32, u64)],
    lists: &[Vec<Vec<Record>>],
    p: usize,
    rank_theta: &[Option<f64>],
) -> Vec<(u32, Option<f64>)> {
    if let Some(dense) = shared.dense {
        return read_dense_partition(dense, placements, lists, p, rank_theta);
    }
    let capacity = (2 * placements.len()).next_power_of_two().max(16);
    let mask = capacity - 1;
    // (hash, item number) per place; the numbers' items and sums.
    let mut table: Vec<(u64, u32)> = vec![(0, u32::MAX); capacity];
    let mut items: Vec<u64> = Vec::new();
    let find = |table: &[(u64, u32)], items: &[u64], item: u64, hash: u64| -> Result<u32, usize> {
        let mut at = (hash >> 16) as usize & mask;
        loop {
            let (theirs, number) = table[at];
            if number == u32::MAX {
                return Err(at);
            }
            if theirs == hash && shared.same(items[number as usize], item) {
                return Ok(number);
            }
            at = (at + 1) & mask;
        }
    };
    let numbers: Vec<u32> = placements
        .iter()
        .map(|&(_, item)| {
            let hash = shared.record_hash(item);
            match find(&table, &items, item, hash) {
                Ok(number) => number,
                Err(at) => {
                    table[at] = (hash, items.len() as u32);
                    items.push(item);
                    items.len() as u32 - 1
                }
            }
        })
        .collect();
    let mut sums = vec![ItemSums::default(); items.len()];
    for thread in lists {
        for record in &thread[p] {
            let hash = shared.record_hash(record.item);
            if let Ok(number) = find(&table, &items, record.item, hash) {
                let item = &mut sums[number as usize];
                item.reward += record.reward;
                item.examination += record.theta;
                item.rows += 1;
            }
        }
    }
    placements.iter().zip(numbers).map(|(&(row, _), number)| (row, predicted(&sums[number as usize], rank_theta[row as usize]))).collect()
}

/// A placement's prediction from its item's sums, at its rank's examination.
#[inline]
fn predicted(item: &ItemSums, rank_theta: Option<f64>) -> Option<f64> {
    // As Polars computes it: the item's attraction, then times the rank's examination.
    rank_theta.filter(|_| item.rows > 0).map(|theta| item.reward / item.examination * theta)
}

/// Partition `p` of a `Dense` range: its items' sums at their offsets in the partition, its
/// records read in thread order, and each of its placements' prediction (row, value).
fn read_dense_partition(
    dense: Dense,
    placements: &[(u32, u64)],
    lists: &[Vec<Vec<Record>>],
    p: usize,
    rank_theta: &[Option<f64>],
) -> Vec<(u32, Option<f64>)> {
    if placements.is_empty() {
        return Vec::new();
    }
    let mask = (1usize << dense.shift) - 1;
    let mut sums = vec![ItemSums::default(); mask + 1];
    for thread in lists {
        for record in &thread[p] {
            let item = &mut sums[record.item as usize & mask];
            item.reward += record.reward;
            item.examination += record.theta;
            item.rows += 1;
        }
    }
    placements.iter().map(|&(row, offset)| (row, predicted(&sums[offset as usize & mask], rank_theta[row as usize]))).collect()
}

#[cfg(test)]
#[path = "item_model_tests.rs"]
mod tests;
