//! The counterfactual pass against a direct reading of its definition: each placement's log
//! rows looked up by (group, item) in a standard map (no table of the pass's, no threads), on
//! grouped and shuffled rows.

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

/// Placements (group, item, rank) and log rows (group, item, position, reward, display, list).
struct Case {
    groups: Vec<i64>,
    items: Vec<i64>,
    ranks: Vec<i64>,
    positions: Vec<i64>,
    rewards: Vec<f64>,
    displays: Vec<f64>,
    lists: Vec<i64>,
    placed: usize,
}

/// `n_groups` groups of up to `k` placed items each (some groups none), and `n_log` log rows:
/// lists of distinct items, some groups only in the log; shuffled when asked.
fn case(n_groups: i64, k: i64, n_log: usize, shuffled: bool, seed: u64) -> Case {
    let mut draw = Draws(seed);
    let mut c = Case { groups: vec![], items: vec![], ranks: vec![], positions: vec![], rewards: vec![], displays: vec![], lists: vec![], placed: 0 };
    for g in 0..n_groups {
        let placed = draw.next(k as u64 + 1) as i64;
        let first = draw.next(5) as i64;
        for r in 0..placed {
            c.groups.push(g);
            c.items.push(first + 2 * r);
            c.ranks.push(r + 1);
        }
    }
    c.placed = c.groups.len();
    let mut log: Vec<(i64, i64, i64, f64, f64, i64)> = Vec::new();
    while log.len() < n_log {
        let g = draw.next(n_groups as u64 + 2) as i64;
        let list = draw.next(4) as i64;
        let shown = 1 + draw.next(k as u64 + 2) as i64;
        let first = draw.next(6) as i64;
        for position in 1..=shown {
            let reward = draw.next(3) as f64;
            let display = 0.1 + draw.next(90) as f64 / 100.0;
            log.push((g, first + position, position, reward, display, list));
        }
    }
    if !shuffled {
        log.sort_by_key(|row| row.0);
    } else {
        for i in (1..log.len()).rev() {
            log.swap(i, draw.next(i as u64 + 1) as usize);
        }
    }
    for (g, item, position, reward, display, list) in log {
        c.groups.push(g);
        c.items.push(item);
        c.positions.push(position);
        c.rewards.push(reward);
        c.displays.push(display);
        c.lists.push(list);
    }
    let n = c.groups.len();
    c.ranks.resize(n, 0);
    let mut positions = vec![0; c.placed];
    positions.append(&mut c.positions);
    c.positions = positions;
    for column in [&mut c.rewards, &mut c.displays] {
        let mut padded = vec![0.0; c.placed];
        padded.append(column);
        *column = padded;
    }
    let mut lists = vec![0; c.placed];
    lists.append(&mut c.lists);
    c.lists = lists;
    c
}

/// The sums read straight off the definition: each placement's log rows, in row order.
fn direct(c: &Case, asked: &Asked<'_>, by_list: bool) -> Sums {
    let mut shown: std::collections::HashMap<(i64, i64), Vec<usize>> = std::collections::HashMap::new();
    for row in c.placed..c.groups.len() {
        shown.entry((c.groups[row], c.items[row])).or_default().push(row);
    }
    let mut slots = vec![SlotSums::default(); c.placed];
    let mut repeated = vec![false; c.placed];
    for p in 0..c.placed {
        let mut seen: Vec<i64> = Vec::new();
        for &row in shown.get(&(c.groups[p], c.items[p])).map_or(&[][..], Vec::as_slice) {
            let (weight, control) = weighed(asked, c.ranks[p], c.positions[row], c.displays[row]);
            slots[p].add_row(c.rewards[row], weight, control);
            let list = if by_list { c.lists[row] } else { 0 };
            repeated[p] |= seen.contains(&list);
            seen.push(list);
        }
    }
    Sums { slots, repeated }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn assert_same(found: &Sums, expected: &Sums) {
    assert_eq!(found.repeated, expected.repeated);
    for (p, (a, b)) in found.slots.iter().zip(&expected.slots).enumerate() {
        let pairs = [
            (a.weighted_reward, b.weighted_reward),
            (a.control, b.control),
            (a.reward, b.reward),
            (a.weight_sum, b.weight_sum),
            (a.weight_squares, b.weight_squares),
        ];
        assert!(pairs.iter().all(|(x, y)| close(*x, *y)), "slot {p}: {a:?} != {b:?}");
        assert_eq!((a.rows, a.weighted_rows), (b.rows, b.weighted_rows), "slot {p}");
        if a.rows > 0 {
            assert_eq!(a.largest_weight, b.largest_weight, "slot {p}");
        }
    }
}

fn run(c: &Case, asked: &Asked<'_>, by_list: bool) -> Sums {
    let keys = [column("g", Values::I64(&c.groups))];
    let key_refs: Vec<&Column<'_>> = keys.iter().collect();
    let item = column("item", Values::I64(&c.items));
    // The ranks of the placements, then the positions of the log rows, in one column, in two
    // chunks (as a concatenation gives them).
    let (ranks, positions) = (&c.ranks[..c.placed], &c.positions[c.placed..]);
    let at = chunked("at", vec![Values::I64(ranks), Values::I64(positions)]);
    let reward = column("reward", Values::F64(&c.rewards));
    let display = column("display", Values::F64(&c.displays));
    let lists = column("list", Values::I64(&c.lists));
    let logged = Logged {
        keys: KeyColumns { columns: &key_refs, kinds: &[Kind::Integer] },
        item: &item,
        item_kind: Kind::Integer,
        at: &at,
        reward: &reward,
        display: Some(&display),
        list: by_list.then_some((&lists, Kind::Integer)),
    };
    logged_sums(&logged, asked)
}

/// Examination at positions 1..16 (the cases show at most K + 2 <= 12).
const THETA: [f64; 16] = [1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.18, 0.16, 0.14, 0.12, 0.1, 0.09, 0.08, 0.07];

#[test]
fn position_based_sums_equal_the_definition_on_grouped_and_shuffled_rows() {
    for (shuffled, seed) in [(false, 1), (true, 2), (true, 3)] {
        let c = case(40, 5, 2_000, shuffled, seed);
        for clip in [None, Some(2.0)] {
            let asked = Asked { model: Model::PositionBased, theta: &THETA, clip, placed: c.placed };
            for by_list in [false, true] {
                assert_same(&run(&c, &asked, by_list), &direct(&c, &asked, by_list));
            }
        }
    }
}

#[test]
fn item_position_sums_equal_the_definition_on_grouped_and_shuffled_rows() {
    for (shuffled, seed) in [(false, 4), (true, 5)] {
        let c = case(40, 5, 2_000, shuffled, seed);
        let asked = Asked { model: Model::ItemPosition, theta: &[], clip: Some(3.0), placed: c.placed };
        for by_list in [false, true] {
            assert_same(&run(&c, &asked, by_list), &direct(&c, &asked, by_list));
        }
    }
}

#[test]
fn a_log_split_between_threads_gives_the_same_sums() {
    // More than 100,000 log rows: each thread reads its share (with two or more threads).
    let c = case(3_000, 10, 250_000, true, 6);
    let asked = Asked { model: Model::PositionBased, theta: &THETA, clip: None, placed: c.placed };
    assert_same(&run(&c, &asked, true), &direct(&c, &asked, true));
}

#[test]
fn two_key_columns_of_a_shuffled_log_are_compared_where_they_lie() {
    // Group g as the keys (g / 3, g % 3): the same groups, their keys read again by row for
    // each log row kept for its partition.
    let c = case(300, 5, 20_000, true, 8);
    let (high, low): (Vec<i64>, Vec<i64>) = c.groups.iter().map(|g| (g / 3, g % 3)).unzip();
    let keys = [column("high", Values::I64(&high)), column("low", Values::I64(&low))];
    let key_refs: Vec<&Column<'_>> = keys.iter().collect();
    let item = column("item", Values::I64(&c.items));
    let at = chunked("at", vec![Values::I64(&c.ranks[..c.placed]), Values::I64(&c.positions[c.placed..])]);
    let (reward, display) = (column("reward", Values::F64(&c.rewards)), column("display", Values::F64(&c.displays)));
    let logged = Logged {
        keys: KeyColumns { columns: &key_refs, kinds: &[Kind::Integer, Kind::Integer] },
        item: &item,
        item_kind: Kind::Integer,
        at: &at,
        reward: &reward,
        display: Some(&display),
        list: None,
    };
    assert!(!in_runs(&logged, c.placed));
    let asked = Asked { model: Model::PositionBased, theta: &THETA, clip: None, placed: c.placed };
    assert_same(&logged_sums(&logged, &asked), &direct(&c, &asked, false));
}

#[test]
fn an_item_twice_in_one_list_is_flagged_and_in_two_lists_is_not() {
    let c = Case {
        groups: vec![1, 1, 1, 1, 1, 1],
        items: vec![7, 8, 7, 7, 8, 8],
        ranks: vec![1, 2, 0, 0, 0, 0],
        positions: vec![0, 0, 1, 2, 1, 2],
        rewards: vec![0.0, 0.0, 1.0, 0.0, 1.0, 1.0],
        displays: vec![0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
        lists: vec![0, 0, 5, 5, 5, 6],
        placed: 2,
    };
    let asked = Asked { model: Model::ItemPosition, theta: &[], clip: None, placed: 2 };
    assert_eq!(run(&c, &asked, true).repeated, vec![true, false]);
    // Without a list column each group is one logged list: both items are shown twice.
    assert_eq!(run(&c, &asked, false).repeated, vec![true, true]);
}

#[test]
fn text_keys_and_items_in_two_chunks_are_compared_by_their_bytes() {
    // The placements' chunk and the log's chunk hold the same strings at other offsets.
    let (placed_keys, log_keys) = (b"qaqb".as_slice(), b"qbqaqa".as_slice());
    let keys = chunked(
        "q",
        vec![
            Values::LargeText { offsets: &[0, 2, 4], data: placed_keys },
            Values::LargeText { offsets: &[0, 2, 4, 6], data: log_keys },
        ],
    );
    let items = chunked(
        "item",
        vec![
            Values::LargeText { offsets: &[0, 1, 2], data: b"xy" },
            Values::LargeText { offsets: &[0, 1, 2, 3], data: b"yxz" },
        ],
    );
    let at = column("at", Values::I64(&[1, 1, 1, 1, 2]));
    let reward = column("reward", Values::F64(&[0.0, 0.0, 1.0, 1.0, 1.0]));
    let display = column("display", Values::F64(&[0.0, 0.0, 0.5, 1.0, 1.0]));
    let key_refs = [&keys];
    let logged = Logged {
        keys: KeyColumns { columns: &key_refs, kinds: &[Kind::Text] },
        item: &items,
        item_kind: Kind::Text,
        at: &at,
        reward: &reward,
        display: Some(&display),
        list: None,
    };
    let asked = Asked { model: Model::ItemPosition, theta: &[], clip: None, placed: 2 };
    let sums = logged_sums(&logged, &asked);
    // qa/x: shown at 1 (weight 1); qb/y: shown at 1 with display 0.5 (weight 2); qa/z: unplaced.
    assert_eq!((sums.slots[0].control, sums.slots[0].rows), (1.0, 1));
    assert_eq!((sums.slots[1].control, sums.slots[1].weighted_reward), (2.0, 2.0));
}

#[test]
fn a_grouped_log_is_read_in_runs_and_a_shuffled_one_through_the_pairs() {
    // Both readings are held to the definition above; here, that each case takes its own.
    for (shuffled, runs) in [(false, true), (true, false)] {
        let c = case(200, 5, 5_000, shuffled, 7);
        let keys = [column("g", Values::I64(&c.groups))];
        let key_refs: Vec<&Column<'_>> = keys.iter().collect();
        let item = column("item", Values::I64(&c.items));
        let at = column("at", Values::I64(&c.positions));
        let reward = column("reward", Values::F64(&c.rewards));
        let logged = Logged {
            keys: KeyColumns { columns: &key_refs, kinds: &[Kind::Integer] },
            item: &item,
            item_kind: Kind::Integer,
            at: &at,
            reward: &reward,
            display: None,
            list: None,
        };
        assert_eq!(in_runs(&logged, c.placed), runs);
    }
}
