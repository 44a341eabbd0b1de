//! Radix partitioning of the rows by the hash of their group keys (as Polars' group-by and
//! DuckDB's radix-partitioned aggregation do): each thread reads its share of the rows in
//! order, hashes the keys once and appends each row's index to its partition's list. Every
//! group then lies in one partition, small enough for its table and rows to stay in cache, and
//! a partition's rows are read in increasing order (its lists, thread after thread).

use crate::columns::{FloatCursor, HandleCursor};

use super::hashing::KeyColumns;
use super::rank::Candidate;

/// Rows per partition aimed at: a partition's group table and gathered rows fit in the
/// cores' caches.
const ROWS_PER_PARTITION: usize = 16 * 1024;
/// At most 2^8 partitions: each thread appends to one list per partition, and more open
/// lists than that thrash the cache and the TLB.
const MAX_BITS: u32 = 8;

/// The rows of every partition: `lists[t][p]` are thread t's rows of partition p, in
/// increasing order (thread t read rows `bounds[t]..bounds[t + 1]`).
pub(super) struct Partitions {
    pub bits: u32,
    pub lists: Vec<Vec<Vec<u32>>>,
    /// Each partition's number of rows.
    pub rows: Vec<usize>,
}

impl Partitions {
    pub fn count(&self) -> usize {
        1 << self.bits
    }

    /// Partition p's rows in increasing order.
    pub fn rows_of(&self, p: usize) -> impl Iterator<Item = u32> + '_ {
        self.lists.iter().flat_map(move |lists| lists[p].iter().copied())
    }
}

/// The partition of a key hash: its top bits (a group table's slot uses the low ones).
#[inline]
pub(super) fn partition_of(hash: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (hash >> (64 - bits)) as usize
    }
}

/// How many bits choose a partition for `n` rows on `threads` threads.
pub(super) fn partition_bits(n: usize, threads: usize) -> u32 {
    let wanted = n.div_ceil(ROWS_PER_PARTITION).max(1);
    let mut bits = usize::BITS - (wanted - 1).leading_zeros();
    if n >= ROWS_PER_PARTITION {
        // At least a few partitions per thread, so that the threads' shares even out.
        let per_threads = usize::BITS - (4 * threads - 1).leading_zeros();
        bits = bits.max(per_threads);
    }
    bits.min(MAX_BITS)
}

/// Partition the `n` rows' numbers on `threads` threads.
pub(super) fn partition(
    keys: &KeyColumns<'_>,
    handles: &[HandleCursor<'_>],
    n: usize,
    threads: usize,
) -> Partitions {
    let threads = threads.clamp(1, n.max(1));
    let bits = partition_bits(n, threads);
    let count = 1usize << bits;
    let bounds: Vec<usize> = (0..=threads).map(|t| n * t / threads).collect();
    let work = |t: usize| {
        let (first, last) = (bounds[t], bounds[t + 1]);
        let mut cursors: Vec<HandleCursor<'_>> = handles.to_vec();
        let expected = (last - first) / count + 16;
        let mut lists: Vec<Vec<u32>> = (0..count).map(|_| Vec::with_capacity(expected + expected / 8)).collect();
        let mut current = vec![0u64; cursors.len()];
        for row in first..last {
            for (slot, cursor) in current.iter_mut().zip(cursors.iter_mut()) {
                *slot = cursor.get(row);
            }
            let p = partition_of(keys.hash(&current), bits);
            lists[p].push(row as u32);
        }
        lists
    };
    let found: Vec<Vec<Vec<u32>>> = if threads == 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|t| scope.spawn(move || work(t))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    };
    let mut rows = vec![0usize; count];
    let mut lists = Vec::with_capacity(found.len());
    for thread_lists in found {
        for p in 0..count {
            rows[p] += thread_lists[p].len();
        }
        lists.push(thread_lists);
    }
    Partitions { bits, lists, rows }
}

/// A row as it is partitioned when one key column and the truth's rows are all a partition
/// needs (`records` below): the row itself, so that a partition is then read sequentially
/// rather than gathered from all over the input (a random read per row and column costs a
/// cache and a TLB miss). Stored in a `Candidate`'s 32 bytes, which the partition's grouped
/// candidates then reuse: `score` the candidate's score or the truth row's grade, `grade`
/// the key's handle (its bits), `item` the item's handle, `extra` (input row << 2) | (truth
/// row << 1).
#[inline]
pub(super) fn record(key: u64, item: u64, score: f64, grade: f64, row: usize) -> Candidate {
    if grade.is_nan() {
        Candidate { score: score + 0.0, grade: f64::from_bits(key), item, extra: (row as u64) << 2 }
    } else {
        Candidate { score: grade, grade: f64::from_bits(key), item, extra: ((row as u64) << 2) | 2 }
    }
}

/// Every row as a `record`, partitioned: `lists[p][t]` are thread t's records of partition p,
/// in increasing row order, and the partition bits.
pub(super) fn records(
    keys: &KeyColumns<'_>,
    readers: (&HandleCursor<'_>, &HandleCursor<'_>, &FloatCursor<'_>, &FloatCursor<'_>),
    n: usize,
    threads: usize,
) -> (u32, Vec<Vec<Vec<Candidate>>>) {
    let threads = threads.clamp(1, n.max(1));
    let bits = partition_bits(n, threads);
    let count = 1usize << bits;
    let bounds: Vec<usize> = (0..=threads).map(|t| n * t / threads).collect();
    let work = |t: usize| {
        let (first, last) = (bounds[t], bounds[t + 1]);
        let (mut key, mut item, mut score, mut grade) =
            (readers.0.clone(), readers.1.clone(), readers.2.clone(), readers.3.clone());
        // Each row's partition first, so that every list is allocated at its exact size: the
        // partitions' sizes vary with the groups' (a list that outgrew a guess would double).
        let parts: Vec<u8> = (first..last).map(|row| partition_of(keys.hash_one(0, key.get(row)), bits) as u8).collect();
        let mut sizes = vec![0usize; count];
        for p in &parts {
            sizes[*p as usize] += 1;
        }
        let mut lists: Vec<Vec<Candidate>> = sizes.iter().map(|size| Vec::with_capacity(*size)).collect();
        for (row, p) in (first..last).zip(&parts) {
            let k = key.get(row);
            lists[*p as usize].push(record(k, item.get(row), score.get(row), grade.get(row), row));
        }
        lists
    };
    let found: Vec<Vec<Vec<Candidate>>> = if threads == 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|t| scope.spawn(move || work(t))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    };
    let mut by_partition: Vec<Vec<Vec<Candidate>>> = (0..count).map(|_| Vec::with_capacity(threads)).collect();
    for thread_lists in found {
        for (p, list) in thread_lists.into_iter().enumerate() {
            by_partition[p].push(list);
        }
    }
    (bits, by_partition)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_grow_with_the_rows() {
        assert_eq!(partition_bits(10, 2), 0);
        assert_eq!(partition_bits(ROWS_PER_PARTITION, 2), 3);
        assert_eq!(partition_bits(5_000_000, 2), MAX_BITS);
        assert_eq!(partition_of(u64::MAX, 8), 255);
        assert_eq!(partition_of(u64::MAX, 0), 0);
    }
}
