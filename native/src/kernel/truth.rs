//! The truth read in the same call as the candidates (no join before the kernel): each group's
//! judged items with their grades, and each group's R and judged non-relevant counts.
//!
//! The truth rows arrive after the candidates in the same columns (Python concatenates the
//! two tables, `loader._with_truth_rows`): a truth row has a grade, a candidate row none.
//! Each group's truth items are kept side by side, sorted by the item's key, so that a
//! candidate's grade is a binary search in its own group's few items (in cache), not a probe
//! of one large hash table.

use super::rank::{item_key, Items};

/// Judged items per group up to which a candidate's grade is found by a scan.
const SCAN_ITEMS: usize = 16;

pub(super) struct Truth {
    /// Group g's items are `entries[offsets[g]..offsets[g + 1]]`, sorted by key.
    offsets: Vec<usize>,
    /// (item's key, item's handle, grade).
    entries: Vec<(u64, u64, f64)>,
}

impl Truth {
    /// The truth rows `(group, item handle, grade)` of `n_groups` groups.
    pub(super) fn new(items: &Items<'_>, rows: &[(u32, u64, f64)], n_groups: usize) -> Truth {
        let mut offsets = vec![0usize; n_groups + 1];
        for (g, _, _) in rows {
            offsets[*g as usize + 1] += 1;
        }
        for g in 0..n_groups {
            offsets[g + 1] += offsets[g];
        }
        let mut next = offsets[..n_groups].to_vec();
        let mut entries = vec![(0u64, 0u64, 0.0f64); rows.len()];
        for (g, item, grade) in rows {
            entries[next[*g as usize]] = (item_key(items, *item), *item, *grade);
            next[*g as usize] += 1;
        }
        for g in 0..n_groups {
            entries[offsets[g]..offsets[g + 1]].sort_unstable_by_key(|e| e.0);
        }
        Truth { offsets, entries }
    }

    #[inline]
    fn same(items: &Items<'_>, a: u64, b: u64) -> bool {
        a == b || (items.is_text() && items.text(a) == items.text(b))
    }

    /// The highest grade of `item` among `entries` (a run of one key), NaN when absent.
    #[inline]
    fn grade_in(items: &Items<'_>, run: &[(u64, u64, f64)], item: u64) -> f64 {
        run.iter().filter(|e| Self::same(items, e.1, item)).map(|e| e.2).fold(f64::NAN, f64::max)
    }

    /// The grade of `item` in group `group`, NaN when the truth does not judge it (the left
    /// join's null); a repeated (group, item) gives its highest grade, as the normalised
    /// truth does.
    #[inline]
    pub(super) fn grade(&self, items: &Items<'_>, group: u32, item: u64) -> f64 {
        let g = group as usize;
        let slice = &self.entries[self.offsets[g]..self.offsets[g + 1]];
        let key = item_key(items, item);
        if slice.len() <= SCAN_ITEMS {
            // A group's few judged items: a scan of their keys beats a binary search.
            return slice.iter().filter(|e| e.0 == key && Self::same(items, e.1, item)).map(|e| e.2).fold(f64::NAN, f64::max);
        }
        let start = slice.partition_point(|e| e.0 < key);
        let end = start + slice[start..].partition_point(|e| e.0 == key);
        if start == end {
            return f64::NAN;
        }
        Self::grade_in(items, &slice[start..end], item)
    }

    /// Each group's R (grades at or above a threshold) and judged non-relevant count at each
    /// of `thresholds`, each distinct item counted once: `[g * thresholds.len() + set]`.
    pub(super) fn counts(&self, items: &Items<'_>, thresholds: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n_groups = self.offsets.len() - 1;
        let sets = thresholds.len();
        let mut relevant = vec![0.0; n_groups * sets];
        let mut nonrelevant = vec![0.0; n_groups * sets];
        for g in 0..n_groups {
            let slice = &self.entries[self.offsets[g]..self.offsets[g + 1]];
            let mut start = 0;
            while start < slice.len() {
                let key = slice[start].0;
                let end = start + slice[start..].partition_point(|e| e.0 == key);
                let run = &slice[start..end];
                for (i, entry) in run.iter().enumerate() {
                    if run[..i].iter().any(|e| Self::same(items, e.1, entry.1)) {
                        continue; // counted with its first copy
                    }
                    let grade = Self::grade_in(items, run, entry.1);
                    for (set, threshold) in thresholds.iter().enumerate() {
                        if grade >= *threshold {
                            relevant[g * sets + set] += 1.0;
                        } else {
                            nonrelevant[g * sets + set] += 1.0;
                        }
                    }
                }
                start = end;
            }
        }
        (relevant, nonrelevant)
    }
}
