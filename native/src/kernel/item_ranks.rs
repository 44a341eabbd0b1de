//! The rank of each of a list of (group, item) pairs in its group's ranking (`item_ranks`):
//! what a reader that needs a few items' places — the label recursion reads each item that may
//! be relevant at its rank — takes from one ranking, instead of the whole ranked list.
//!
//! The pairs come as the call's truth rows (after the candidates, in the same columns), their
//! grade the pair's number plus one: the truth join gives each candidate the number of its
//! pair, and each group is ranked as `evaluate` ranks it, to the depth read.

use super::{grouped, grouped_in_runs, rank_group, threads, timing, Inputs, Items, RankScratch};
use crate::config::Config;

/// Each pair's place: 0 where its item is not among its group's candidates, its rank where
/// that is at most `depth`, `depth + 1` where it is ranked deeper. `n_pairs` is the number of
/// truth rows (their grades run 1..=n_pairs).
pub fn item_ranks(config: &Config, inputs: &Inputs<'_>, depth: usize, n_pairs: usize) -> Vec<i64> {
    let mut grouped = grouped_in_runs(config, inputs).unwrap_or_else(|| grouped(config, inputs));
    let started = std::time::Instant::now();
    let mut slices = grouped.slices();
    let per_thread = slices.len().div_ceil(threads()).max(1);
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let mut found: Vec<Vec<(usize, i64)>> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = slices
            .chunks_mut(per_thread)
            .map(|groups| {
                let items = &items;
                scope.spawn(move || {
                    let mut placed = Vec::new();
                    let mut scratch = RankScratch::default();
                    for group in groups.iter_mut() {
                        let (kept, sorted) = rank_group(config, items, group, &mut scratch, Some(depth));
                        for (index, candidate) in group[..kept].iter().enumerate() {
                            if candidate.grade.is_nan() {
                                continue; // not one of the pairs
                            }
                            let rank = if index < sorted && index < depth { index as i64 + 1 } else { depth as i64 + 1 };
                            placed.push((candidate.grade as usize - 1, rank));
                        }
                    }
                    placed
                })
            })
            .collect();
        found = handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect();
    });
    let mut ranks = vec![0i64; n_pairs];
    for (pair, rank) in found.into_iter().flatten() {
        if let Some(slot) = ranks.get_mut(pair) {
            *slot = rank;
        }
    }
    timing("rank and place the pairs", started);
    ranks
}
