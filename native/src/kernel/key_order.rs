//! Ranked rows put in the order of their groups' keys, as Polars' `sort` orders them: a
//! reader that wants the rows by (keys, rank) (the counterfactual estimates' placements) then
//! needs no sort of its own, where rows in any order come out grouped by partition.

use std::cmp::Ordering;

use crate::columns::Column;
use crate::config::Kind;

use super::TermRows;

impl TermRows {
    /// The groups' rows in the order of the groups' keys, key by key (integers by value, so a
    /// null, `i64::MIN`, first; text by its bytes), each group's rows kept in rank order.
    /// Groups already in that order are left as they are (rows taken as grouped, in order).
    pub fn in_key_order(&mut self, kinds: &[Kind], columns: &[&Column<'_>]) {
        let n_groups = self.keys.first().map_or(0, Vec::len);
        let keys = &self.keys;
        let compare = |a: usize, b: usize| -> Ordering {
            for (j, kind) in kinds.iter().enumerate() {
                let (x, y) = (keys[j][a], keys[j][b]);
                let order = match kind {
                    Kind::Integer => (x as i64).cmp(&(y as i64)),
                    Kind::Text => columns[j].text_of(x).cmp(columns[j].text_of(y)),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
            Ordering::Equal
        };
        if (1..n_groups).all(|g| compare(g - 1, g) != Ordering::Greater) {
            return;
        }
        let mut order: Vec<usize> = (0..n_groups).collect();
        order.sort_by(|&a, &b| compare(a, b));
        // Each group's rows: `starts[g]..starts[g + 1]` (the rows come group by group).
        let mut starts = vec![0usize; n_groups + 1];
        for (g, _) in &self.rows {
            starts[*g as usize + 1] += 1;
        }
        for g in 0..n_groups {
            starts[g + 1] += starts[g];
        }
        let n_rows = self.rows.len();
        let per_row = self.values.len().checked_div(n_rows).unwrap_or(0);
        let (mut rows, mut items, mut scores, mut values) = (
            Vec::with_capacity(n_rows),
            Vec::with_capacity(self.items.len()),
            Vec::with_capacity(self.scores.len()),
            Vec::with_capacity(self.values.len()),
        );
        for g in order {
            let range = starts[g]..starts[g + 1];
            rows.extend_from_slice(&self.rows[range.clone()]);
            if !self.items.is_empty() {
                items.extend_from_slice(&self.items[range.clone()]);
            }
            if !self.scores.is_empty() {
                scores.extend_from_slice(&self.scores[range.clone()]);
            }
            values.extend_from_slice(&self.values[range.start * per_row..range.end * per_row]);
        }
        (self.rows, self.items, self.scores, self.values) = (rows, items, scores, values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_sorted_by_their_integer_keys_rows_kept_in_rank_order() {
        let mut found = TermRows {
            keys: vec![vec![7, (-3i64) as u64, 5]],
            rows: vec![(0, 1), (0, 2), (1, 1), (2, 1), (2, 2), (2, 3)],
            items: vec![70, 71, 30, 50, 51, 52],
            scores: vec![0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
            values: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        };
        found.in_key_order(&[Kind::Integer], &[]);
        assert_eq!(found.rows, vec![(1, 1), (2, 1), (2, 2), (2, 3), (0, 1), (0, 2)]);
        assert_eq!(found.items, vec![30, 50, 51, 52, 70, 71]);
        assert_eq!(found.scores, vec![0.7, 0.6, 0.5, 0.4, 0.9, 0.8]);
        assert_eq!(found.values, vec![3.0, 4.0, 5.0, 6.0, 1.0, 2.0]);
    }

    #[test]
    fn groups_in_order_left_as_they_are() {
        let mut found = TermRows {
            keys: vec![vec![1, 1, 2], vec![(-1i64) as u64, 4, 0]],
            rows: vec![(0, 1), (1, 1), (2, 1)],
            items: vec![10, 11, 12],
            scores: Vec::new(),
            values: Vec::new(),
        };
        found.in_key_order(&[Kind::Integer, Kind::Integer], &[]);
        assert_eq!(found.rows, vec![(0, 1), (1, 1), (2, 1)]);
        assert_eq!(found.items, vec![10, 11, 12]);
    }
}
