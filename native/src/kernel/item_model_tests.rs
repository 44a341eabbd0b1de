//! The reward model's pass against a direct reading of its definition: each placed item's log
//! rows summed in row order in a standard map (no partitions, no threads).

use super::*;
use crate::columns::Values;
use crate::testing::{chunked, column};

/// A small deterministic generator (no dependency).
struct Draws(u64);

impl Draws {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

/// Examination at positions 1..12; positions 13 and 14 have none (NaN, past the end).
const THETA: [f64; 13] = [1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.18, 0.16, 0.14, 0.12, f64::NAN];

/// Placements (item, rank) and log rows (item, position, reward): items drawn from a range
/// the log's overlaps, an item placed in several groups (so at several ranks).
fn case(placed: usize, logged: usize, seed: u64) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let mut draw = Draws(seed);
    let mut items: Vec<i64> = (0..placed).map(|_| draw.next(placed as u64) as i64).collect();
    let mut at: Vec<i64> = (0..placed).map(|_| 1 + draw.next(12) as i64).collect();
    let mut rewards = vec![0.0; placed];
    for _ in 0..logged {
        items.push(draw.next(2 * placed as u64) as i64);
        at.push(1 + draw.next(14) as i64);
        rewards.push(draw.next(3) as f64 * 0.5);
    }
    (items, at, rewards)
}

/// The definition: per placement, theta_r * sum(reward) / sum(theta_k) over every log row of
/// its item whose position has an examination; None where there is none.
fn direct(items: &[i64], at: &[i64], rewards: &[f64], placed: usize) -> Vec<Option<f64>> {
    let mut shown: std::collections::HashMap<i64, (f64, f64, u32)> = std::collections::HashMap::new();
    for row in placed..items.len() {
        if let Some(theta) = examination(&THETA, at[row]) {
            let sums = shown.entry(items[row]).or_default();
            (sums.0, sums.1, sums.2) = (sums.0 + rewards[row], sums.1 + theta, sums.2 + 1);
        }
    }
    (0..placed)
        .map(|p| {
            let theta = examination(&THETA, at[p])?;
            shown.get(&items[p]).filter(|sums| sums.2 > 0).map(|(reward, seen, _)| reward / seen * theta)
        })
        .collect()
}

fn assert_close(found: &[Option<f64>], expected: &[Option<f64>]) {
    assert_eq!(found.len(), expected.len());
    for (p, (a, b)) in found.iter().zip(expected).enumerate() {
        match (a, b) {
            (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "placement {p}: {a} != {b}"),
            _ => assert_eq!(a, b, "placement {p}"),
        }
    }
}

fn run(items: &[i64], at: &[i64], rewards: &[f64], placed: usize) -> Vec<Option<f64>> {
    // Two chunks, as the concatenation of the placements and the log gives them.
    let item = chunked("item", vec![Values::I64(&items[..placed]), Values::I64(&items[placed..])]);
    let at = chunked("at", vec![Values::I64(&at[..placed]), Values::I64(&at[placed..])]);
    let reward = column("reward", Values::F64(rewards));
    item_model(&ItemModelInput { item: &item, item_kind: Kind::Integer, at: &at, reward: &reward, theta: &THETA, placed })
}

#[test]
fn the_model_equals_its_definition() {
    for seed in [1, 2, 3] {
        let (items, at, rewards) = case(60, 3_000, seed);
        assert_close(&run(&items, &at, &rewards, 60), &direct(&items, &at, &rewards, 60));
    }
}

#[test]
fn a_log_split_between_threads_gives_the_same_model() {
    // More than 100,000 log rows: each thread reads its share (with two or more threads).
    let (items, at, rewards) = case(2_000, 250_000, 4);
    assert_close(&run(&items, &at, &rewards, 2_000), &direct(&items, &at, &rewards, 2_000));
}

#[test]
fn an_item_the_log_never_shows_or_a_rank_without_examination_has_no_prediction() {
    let items = [7, 8, 9, 7, 7, 9];
    let at = [1, 2, 13, 1, 3, 14];
    let rewards = [0.0, 0.0, 0.0, 1.0, 0.0, 1.0];
    // 7: (1 + 0) / (1.0 + 0.6) at rank 1; 8: never logged; 9: rank 13 has no examination
    // (and its one log row, at position 14, is not read).
    let found = run(&items, &at, &rewards, 3);
    assert_eq!(found, vec![Some(1.0 / 1.6), None, None]);
}

#[test]
fn text_items_in_two_chunks_are_compared_by_their_bytes() {
    // The placements' chunk and the log's chunk hold the same strings at other offsets.
    let item = chunked(
        "item",
        vec![
            Values::LargeText { offsets: &[0, 1, 2], data: b"xy" },
            Values::LargeText { offsets: &[0, 1, 2, 3], data: b"yxz" },
        ],
    );
    let at = column("at", Values::I64(&[1, 2, 2, 1, 1]));
    let reward = column("reward", Values::F64(&[0.0, 0.0, 1.0, 1.0, 1.0]));
    let input = ItemModelInput { item: &item, item_kind: Kind::Text, at: &at, reward: &reward, theta: &THETA, placed: 2 };
    // x: its one row at position 1 (reward 1); y: at position 2 (reward 1), predicted at rank 2.
    assert_eq!(item_model(&input), vec![Some(1.0), Some(1.0 / 0.8 * 0.8)]);
}

#[test]
fn items_in_a_short_range_and_spread_wide_give_the_same_model() {
    // The same items as offsets from a negative value (a range read densely) and spread over
    // a range 1,000,003 times wider (read through their hashes): the same predictions, equal
    // to the definition.
    let (items, at, rewards) = case(500, 20_000, 5);
    let placed = 500;
    let shifted: Vec<i64> = items.iter().map(|item| item - 1_000).collect();
    let spread: Vec<i64> = items.iter().map(|item| item * 1_000_003 - 500_000_000).collect();
    let range = |items: &[i64]| {
        let item = column("item", Values::I64(items));
        let input = ItemModelInput { item: &item, item_kind: Kind::Integer, at: &column("at", Values::I64(&at)), reward: &column("reward", Values::F64(&rewards)), theta: &THETA, placed };
        Dense::of(&input).map(|dense| dense.span)
    };
    // The placed items are drawn from 0..500.
    assert!(range(&shifted).is_some_and(|span| span <= 500));
    assert_eq!(range(&spread), None);
    let dense = run(&shifted, &at, &rewards, placed);
    assert_close(&dense, &direct(&shifted, &at, &rewards, placed));
    assert_eq!(dense, run(&spread, &at, &rewards, placed));
}
