//! The rows of each group of a passage run, for MaxP (`documents`): runs of equal keys
//! found where the rows lie (one integer key without nulls compared as numbers), groups put
//! in the order of their keys, and the groups shared among the threads.

use std::cmp::Ordering;
use std::ops::Range;

use crate::columns::{Column, HandleCursor, Values};
use crate::config::Kind;

use super::hashing::KeyColumns;

/// Rows read before judging whether the runs are long enough to be groups (as `runs`).
const PROBE_ROWS: usize = 4096;
/// Rows per run below which the rows are grouped by hashing instead (rows in random order).
const MIN_RUN: usize = 4;

/// The runs of equal keys, when each group's rows are one run (None: they are not).
pub(super) fn runs(keys: &KeyColumns<'_>) -> Option<Vec<Range<usize>>> {
    let n = keys.columns.first().map_or(0, |c| c.len());
    let mut starts: Vec<usize> = Vec::new();
    let plain = match keys.columns {
        [column] if keys.kinds == [Kind::Integer] => integer_values(column),
        _ => None,
    };
    if let Some(chunks) = plain {
        // One integer key without nulls: compared where it lies.
        let mut previous: Option<i64> = None;
        let mut row = 0usize;
        for values in chunks {
            for value in values {
                if previous != Some(*value) {
                    starts.push(row);
                    previous = Some(*value);
                    if row >= PROBE_ROWS && starts.len() * MIN_RUN > row {
                        return None;
                    }
                }
                row += 1;
            }
        }
    } else {
        let mut cursors: Vec<HandleCursor<'_>> = keys.columns.iter().map(|c| HandleCursor::new(c)).collect();
        let (mut previous, mut current) = (vec![0u64; cursors.len()], vec![0u64; cursors.len()]);
        for row in 0..n {
            for (slot, cursor) in current.iter_mut().zip(cursors.iter_mut()) {
                *slot = cursor.get(row);
            }
            if row == 0 || !keys.equal(&previous, &current) {
                starts.push(row);
                if row >= PROBE_ROWS && starts.len() * MIN_RUN > row {
                    return None;
                }
            }
            std::mem::swap(&mut previous, &mut current);
        }
    }
    let ends = starts.iter().skip(1).copied().chain(std::iter::once(n));
    Some(starts.iter().copied().zip(ends).map(|(s, e)| s..e).collect())
}

/// The values of an integer column without nulls, chunk by chunk (None: it has nulls or is
/// not Int64, as the kernel's inputs are).
fn integer_values<'a>(column: &'a Column<'a>) -> Option<Vec<&'a [i64]>> {
    column
        .chunks
        .iter()
        .map(|chunk| match chunk.values {
            Values::I64(values) if chunk.validity.is_none() => Some(&values[..chunk.len]),
            _ => None,
        })
        .collect()
}

/// Key handles in the order of the keys' values: integers by value, text by bytes, column
/// after column (as Polars sorts them, nulls first).
pub(super) fn key_order(keys: &KeyColumns<'_>, a: &[u64], b: &[u64]) -> Ordering {
    for (j, kind) in keys.kinds.iter().enumerate() {
        let order = match kind {
            Kind::Integer => (a[j] as i64).cmp(&(b[j] as i64)),
            Kind::Text => keys.columns[j].text_of(a[j]).cmp(keys.columns[j].text_of(b[j])),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// The groups (each by its key handles, `keys[g * n_keys..]`) in the order of their keys;
/// None when two groups have equal keys (one group in two runs).
pub(super) fn sorted_groups(keys: &KeyColumns<'_>, handles: &[u64]) -> Option<Vec<usize>> {
    let n_keys = keys.kinds.len();
    let of = |g: usize| &handles[g * n_keys..(g + 1) * n_keys];
    let n_groups = handles.len() / n_keys.max(1);
    let mut order: Vec<usize> = (0..n_groups).collect();
    let in_order = order.windows(2).all(|w| key_order(keys, of(w[0]), of(w[1])) == Ordering::Less);
    if !in_order {
        order.sort_by(|a, b| key_order(keys, of(*a), of(*b)));
    }
    if order.windows(2).any(|w| key_order(keys, of(w[0]), of(w[1])) == Ordering::Equal) {
        return None;
    }
    Some(order)
}

/// Each thread's share of the groups in output order: contiguous, about equal in rows.
pub(super) fn shares(rows: &[usize], threads: usize) -> Vec<Range<usize>> {
    let total: usize = rows.iter().sum();
    let threads = threads.clamp(1, rows.len().max(1));
    let mut bounds = vec![0usize];
    let mut so_far = 0usize;
    for (g, r) in rows.iter().enumerate() {
        so_far += r;
        if bounds.len() < threads && so_far * threads >= total * bounds.len() {
            bounds.push(g + 1);
        }
    }
    bounds.push(rows.len());
    bounds.dedup();
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Run `work` on each share, a thread each (in this thread when there is one share).
pub(super) fn on_threads<T: Send>(shares: Vec<Range<usize>>, work: impl Fn(Range<usize>) -> T + Sync) -> Vec<T> {
    if shares.len() <= 1 {
        return shares.into_iter().map(work).collect();
    }
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = shares.into_iter().map(|share| scope.spawn(move || work(share))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}
