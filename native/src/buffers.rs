//! Buffers kept on purpose from one call to the next where their sizes repeat: `label`'s
//! records, hashes and outputs (a million rows: about 150 MB a call).
//!
//! Why: the system allocator gives a freed block of megabytes back to the operating system,
//! and the next call faults its pages in again (`label` on a million rows: 25,000 page faults
//! a call, a quarter of its time). A kernel-wide allocator that kept every large block raised
//! the peak memory of calls that never repeat (`evaluate` on 5M rows); here only the call
//! sites that ask a `Pool` use one, and a buffer is kept only until the end of the next such
//! call that does not take it (`settle`), `KEPT_BYTES` in all at most.
//!
//! A buffer is handed out empty (length 0): its old values are never read.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The fewest bytes a buffer is kept for (a smaller one is cheap to allocate anew).
const SMALLEST_BYTES: usize = 64 << 10;
/// The most bytes the pools keep at once, all together (after a call too).
const KEPT_BYTES: usize = 192 << 20;
/// The most buffers one pool keeps.
const MOST_BUFFERS: usize = 1024;

/// The calls begun (`begin`): a buffer kept remembers the count when it came back.
static CALLS: AtomicU64 = AtomicU64::new(0);
/// The bytes kept by every pool.
static KEPT: AtomicUsize = AtomicUsize::new(0);
/// Whether the call under way keeps what it gives back (`begin`).
static KEEPING: AtomicBool = AtomicBool::new(true);

struct Kept<T> {
    /// The buffers and the call count when each came back.
    buffers: Vec<(Vec<T>, u64)>,
    /// The outputs handed to Polars (their addresses): only these come back through `recycle`
    /// (another output's buffer, `evaluate`'s, is freed as before).
    issued: Vec<(usize, u64)>,
}

/// Buffers of `T` kept for the next call.
pub struct Pool<T> {
    kept: Mutex<Kept<T>>,
}

impl<T> Pool<T> {
    pub const fn new() -> Self {
        Pool { kept: Mutex::new(Kept { buffers: Vec::new(), issued: Vec::new() }) }
    }

    fn lock(&self) -> MutexGuard<'_, Kept<T>> {
        self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn bytes(capacity: usize) -> usize {
        capacity * std::mem::size_of::<T>()
    }

    /// An empty buffer with room for `n` values: the smallest kept one that holds them
    /// (and no more than a quarter more, which a smaller call would hold on to), else a new one.
    pub fn take(&self, n: usize) -> Vec<T> {
        if Self::bytes(n) >= SMALLEST_BYTES {
            let mut kept = self.lock();
            let most = n + n / 4;
            let found = kept
                .buffers
                .iter()
                .enumerate()
                .filter(|(_, (v, _))| v.capacity() >= n && v.capacity() <= most)
                .min_by_key(|(_, (v, _))| v.capacity())
                .map(|(at, _)| at);
            if let Some(at) = found {
                let (buffer, _) = kept.buffers.swap_remove(at);
                KEPT.fetch_sub(Self::bytes(buffer.capacity()), Ordering::Relaxed);
                return buffer;
            }
        }
        Vec::with_capacity(n)
    }

    /// `take`, the buffer to be handed to Polars as an output (`recycle` takes it back).
    pub fn take_output(&self, n: usize) -> Vec<T> {
        let buffer = self.take(n);
        if Self::bytes(buffer.capacity()) >= SMALLEST_BYTES {
            let calls = CALLS.load(Ordering::Relaxed);
            let mut kept = self.lock();
            if kept.issued.len() < MOST_BUFFERS {
                kept.issued.push((buffer.as_ptr() as usize, calls));
            }
        }
        buffer
    }

    /// Keep `buffer` for a later call while there is room; free it otherwise.
    pub fn give(&self, mut buffer: Vec<T>) {
        let bytes = Self::bytes(buffer.capacity());
        if bytes < SMALLEST_BYTES || !KEEPING.load(Ordering::Relaxed) {
            return;
        }
        let mut kept = self.lock();
        let room = KEPT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| (held + bytes <= KEPT_BYTES).then_some(held + bytes));
        if room.is_ok() {
            if kept.buffers.len() < MOST_BUFFERS {
                buffer.clear();
                kept.buffers.push((buffer, CALLS.load(Ordering::Relaxed)));
            } else {
                KEPT.fetch_sub(bytes, Ordering::Relaxed);
            }
        }
    }

    /// An output Polars released: kept where this pool issued it (`take_output`).
    pub fn recycle(&self, buffer: Vec<T>) {
        let address = buffer.as_ptr() as usize;
        let issued = {
            let mut kept = self.lock();
            let at = kept.issued.iter().position(|(a, _)| *a == address);
            at.map(|at| kept.issued.swap_remove(at)).is_some()
        };
        if issued {
            self.give(buffer);
        }
    }

    /// Free the buffers that came back before call `call` began and that it did not take,
    /// and forget outputs issued before the call before it (Polars still holds them).
    fn settle(&self, call: u64) {
        let mut kept = self.lock();
        let freed: usize = kept.buffers.iter().filter(|(_, back)| *back < call).map(|(v, _)| Self::bytes(v.capacity())).sum();
        kept.buffers.retain(|(_, back)| *back >= call);
        KEPT.fetch_sub(freed, Ordering::Relaxed);
        kept.issued.retain(|(_, at)| *at + 1 >= call);
    }
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The pools' kinds of buffer, shared by the call sites that use them.
pub static FLOATS: Pool<f64> = Pool::new();
pub static INTEGERS: Pool<i64> = Pool::new();
pub static ROWS: Pool<u32> = Pool::new();
pub static BYTES: Pool<u8> = Pool::new();
pub static FLAGS: Pool<bool> = Pool::new();
pub static HASHES: Pool<u64> = Pool::new();

/// A call that uses the pools begins, using about `bytes` of buffers: its number, for
/// `settle`. A call whose buffers would not fit in the pools keeps none: the ones it gave
/// back early would sit unused through the rest of it, above what it holds without pools (a
/// `label` of 5M rows: 866 -> 949 MiB at its peak), for no gain (the next call of its size
/// would fault most of its pages in anyway).
pub fn begin(bytes: usize) -> u64 {
    KEEPING.store(bytes <= KEPT_BYTES, Ordering::Relaxed);
    CALLS.fetch_add(1, Ordering::Relaxed) + 1
}

/// Call `call` ends: each shared pool frees what it kept that the call did not need (a
/// pool of the caller's own kind is settled by `settle_pool`).
pub fn settle(call: u64) {
    FLOATS.settle(call);
    INTEGERS.settle(call);
    ROWS.settle(call);
    BYTES.settle(call);
    FLAGS.settle(call);
    HASHES.settle(call);
}

/// `settle` for a caller's own pool.
pub fn settle_pool<T>(pool: &Pool<T>, call: u64) {
    pool.settle(call);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_serves_the_next_call_of_about_its_size_then_goes() {
        let pool: Pool<u64> = Pool::new();
        let call = begin(0);
        let mut first = pool.take(100_000);
        first.extend(0..100_000);
        let address = first.as_ptr();
        pool.give(first);
        settle_pool(&pool, call);
        let next = begin(0);
        // Kept through the call that gave it back; handed out again empty.
        let again = pool.take(90_000);
        assert_eq!((again.as_ptr(), again.len()), (address, 0));
        // A call of a much smaller size takes a new one.
        pool.give(again);
        let small = pool.take(10_000);
        assert_ne!(small.as_ptr(), address);
        drop(small);
        settle_pool(&pool, next);
        let later = begin(0);
        settle_pool(&pool, later);
        // Not taken by a whole call: freed.
        assert!(pool.lock().buffers.is_empty());
        // An output comes back only where the pool issued it.
        let output = pool.take_output(100_000);
        pool.recycle(output);
        pool.recycle(Vec::with_capacity(100_000));
        assert_eq!(pool.lock().buffers.len(), 1);
    }
}
