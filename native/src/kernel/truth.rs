//! The truth read in the same call as the candidates (no join before the kernel): a hash of
//! (group, item) to its grade, and each group's R and judged non-relevant counts.
//!
//! The truth rows arrive after the candidates in the same columns (Python concatenates the
//! two tables): a truth row has a grade, a candidate row none (`loader._fused_inputs`).

use super::group_ids::mix;
use super::rank::{item_key, Items};

/// Open addressing over (group, item): slots hold an index into `entries`.
pub(super) struct Truth {
    slots: Vec<u32>,
    mask: usize,
    /// (group, item's key, item's handle, grade) of each (group, item), its highest grade.
    entries: Vec<(u32, u64, u64, f64)>,
}

#[inline]
fn hash(group: u32, key: u64) -> u64 {
    mix(key ^ mix(u64::from(group).wrapping_add(0x9e37_79b9_7f4a_7c15)))
}

impl Truth {
    pub(super) fn with_capacity(rows: usize) -> Truth {
        let size = (rows * 2).next_power_of_two().max(16);
        Truth { slots: vec![u32::MAX; size], mask: size - 1, entries: Vec::with_capacity(rows) }
    }

    #[inline]
    fn same(items: &Items<'_>, a: u64, b: u64) -> bool {
        a == b || (items.is_text() && items.column.text_of(a) == items.column.text_of(b))
    }

    /// The slot of (group, item): where it is, or the empty slot it would take.
    #[inline]
    fn find(&self, items: &Items<'_>, group: u32, key: u64, item: u64) -> usize {
        let mut slot = (hash(group, key) as usize) & self.mask;
        loop {
            let found = self.slots[slot];
            if found == u32::MAX {
                return slot;
            }
            let (g, k, handle, _) = self.entries[found as usize];
            if g == group && k == key && Self::same(items, handle, item) {
                return slot;
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// Record a truth row (a repeated (group, item) keeps its highest grade, as the
    /// normalised truth does).
    pub(super) fn insert(&mut self, items: &Items<'_>, group: u32, item: u64, grade: f64) {
        let key = item_key(items, item);
        let slot = self.find(items, group, key, item);
        match self.slots[slot] {
            u32::MAX => {
                self.slots[slot] = self.entries.len() as u32;
                self.entries.push((group, key, item, grade));
                if self.entries.len() * 2 > self.slots.len() {
                    self.grow(items);
                }
            }
            found => {
                let entry = &mut self.entries[found as usize];
                entry.3 = entry.3.max(grade);
            }
        }
    }

    fn grow(&mut self, items: &Items<'_>) {
        let size = self.slots.len() * 2;
        self.slots = vec![u32::MAX; size];
        self.mask = size - 1;
        for index in 0..self.entries.len() {
            let (g, k, handle, _) = self.entries[index];
            let slot = self.find(items, g, k, handle);
            self.slots[slot] = index as u32;
        }
    }

    /// The grade of (group, item), NaN when the truth does not judge it (the left join's null).
    #[inline]
    pub(super) fn grade(&self, items: &Items<'_>, group: u32, item: u64) -> f64 {
        let found = self.slots[self.find(items, group, item_key(items, item), item)];
        if found == u32::MAX { f64::NAN } else { self.entries[found as usize].3 }
    }

    /// Each group's R (grades at or above `threshold`) and judged non-relevant count.
    pub(super) fn counts(&self, n_groups: usize, threshold: f64) -> (Vec<f64>, Vec<f64>) {
        let mut relevant = vec![0.0; n_groups];
        let mut nonrelevant = vec![0.0; n_groups];
        for (g, _, _, grade) in &self.entries {
            if *grade >= threshold {
                relevant[*g as usize] += 1.0;
            } else {
                nonrelevant[*g as usize] += 1.0;
            }
        }
        (relevant, nonrelevant)
    }
}
