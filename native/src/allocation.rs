//! The kernel's allocator: the system's, except that a large block freed is kept, up to
//! `KEPT_BYTES` in all, for the next request of about its size.
//!
//! Why: a call writes its records, partitions and outputs into blocks of megabytes that the
//! system allocator returns to the operating system when they are freed (a block past its
//! mapping threshold is unmapped; a thread arena's free top is given back with `madvise`),
//! so the next call touches fresh pages again: `label` on a million rows took 25,000 page
//! faults a call, about a quarter of its time. A kept block is handed out again with its
//! pages in place. Small blocks, and any block when the list is busy (another thread holds
//! it: never waited for), go straight to the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;

/// The smallest block kept, and the most bytes kept at once (after a call too).
const LARGE: usize = 64 << 10;
const KEPT_BYTES: usize = 192 << 20;
/// How many blocks are kept at most.
const SLOTS: usize = 1024;

/// The blocks kept: (address, usable size) where the address is not 0.
struct Kept {
    blocks: [(usize, usize); SLOTS],
    bytes: usize,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept { blocks: [(0, 0); SLOTS], bytes: 0 });

/// Whether a block of `layout` may be kept: large, and aligned as the system allocator
/// aligns every block (so the system allocator may free or resize it later).
fn keepable(layout: Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= 16
}

/// A kept block of at least `size` bytes and at most a quarter more, taken off the list.
fn take(size: usize) -> Option<*mut u8> {
    let mut kept = KEPT.try_lock().ok()?;
    let most = size + size / 4;
    let (slot, _) = kept
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, (address, held))| *address != 0 && *held >= size && *held <= most)
        .min_by_key(|(_, (_, held))| *held)?;
    let (address, held) = std::mem::take(&mut kept.blocks[slot]);
    kept.bytes -= held;
    Some(address as *mut u8)
}

/// Keep `pointer` (a block of `size` usable bytes) where there is room; false otherwise.
fn keep(pointer: *mut u8, size: usize) -> bool {
    let Ok(mut kept) = KEPT.try_lock() else { return false };
    if kept.bytes + size > KEPT_BYTES {
        return false;
    }
    let Some(slot) = kept.blocks.iter().position(|(address, _)| *address == 0) else { return false };
    kept.blocks[slot] = (pointer as usize, size);
    kept.bytes += size;
    true
}

/// The kernel's global allocator (see the module's documentation).
pub struct Recycling;

// SAFETY: every block comes from `System` (a kept one was allocated by it with at least the
// size asked for now, and the alignment it gives every block), and goes back to it unless
// kept; a kept block is handed out once (taken off the list under its lock).
unsafe impl GlobalAlloc for Recycling {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if keepable(layout) {
            if let Some(pointer) = take(layout.size()) {
                return pointer;
            }
        }
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if keepable(layout) {
            if let Some(pointer) = take(layout.size()) {
                std::ptr::write_bytes(pointer, 0, layout.size());
                return pointer;
            }
        }
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        if keepable(layout) && keep(pointer, layout.size()) {
            return;
        }
        System.dealloc(pointer, layout)
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Every block is the system allocator's, kept ones too: it resizes them in place
        // where it can.
        System.realloc(pointer, layout, new_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_block_freed_serves_the_next_request_of_about_its_size() {
        let layout = Layout::from_size_align(3 << 20, 8).unwrap();
        unsafe {
            let first = Recycling.alloc(layout);
            first.write(7);
            Recycling.dealloc(first, layout);
            let zeroed = Recycling.alloc_zeroed(Layout::from_size_align((3 << 20) - 100, 8).unwrap());
            // Kept and handed out again (unless another test's thread held the list), zeroed.
            assert_eq!(zeroed.read(), 0);
            Recycling.dealloc(zeroed, Layout::from_size_align((3 << 20) - 100, 8).unwrap());
            let small = Layout::from_size_align(64, 8).unwrap();
            let block = Recycling.alloc(small);
            Recycling.dealloc(block, small);
        }
    }
}
