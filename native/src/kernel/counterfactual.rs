//! A counterfactual estimate's sums per slot of the new ranking, read off the log in one pass:
//! no join of the log with the placements runs in Polars.
//!
//! The call's rows are the placements (each group's top K: keys, item, rank; one row per
//! slot) and then the log's rows (keys, item, logged position, reward, logging propensity
//! and, if given, the logged list); the rank and the position share a column. The log's
//! columns are read where they lie (cursors over their chunks), never copied.
//!
//! A small table over the placements' groups (`Groups`) holds each group's at most K items
//! side by side; each log row finds its group (the previous row's group reused while the keys
//! repeat, as in a log grouped by its keys) and its item among the group's, and its weight and
//! control are added to the slot's sums. Where the log's rows are not in runs of one group, a
//! bitmap of the placements' (group, item) pairs (`Pairs`) first passes over the rows no
//! placement can hold, without the group's look-up, and the rows that pass are kept by the
//! partition of their keys' hash and read one partition at a time, in whose short ranges of
//! the tables their look-ups stay in cache (`read_scattered`: each thread then reads a range
//! of the partitions, every share's rows of them, into those partitions' slots alone). Each
//! thread reads its own contiguous share of the log rows, and the shares' sums of a slot are
//! added in share order (a slot's rows are summed in row order either way). An item shown twice in one logged list is flagged per slot (the estimate refuses it, naming the list).

use crate::columns::{Column, FloatCursor, HandleCursor};
use crate::config::Kind;

use super::hashing::{hash_bytes, mix, KeyColumns};

/// The click model that weighs a logged row (the ones this pass covers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// w = theta_r / (theta_k p), u = 1 / p (`polars_rankk/counterfactual/plan.py`).
    PositionBased,
    /// w = u = [k = r] / p.
    ItemPosition,
}

/// What the pass reads besides the columns.
pub(crate) struct Asked<'t> {
    pub model: Model,
    /// Examination by position (`theta[k - 1]`), under the position-based model.
    pub theta: &'t [f64],
    /// The cap on each row's weight and control.
    pub clip: Option<f64>,
    /// The number of placement rows, which come first.
    pub placed: usize,
}

/// The call's columns: keys, item and the list as handles of their kinds (`Column::handles`).
pub(crate) struct Logged<'a> {
    pub keys: KeyColumns<'a>,
    pub item: &'a Column<'a>,
    pub item_kind: Kind,
    /// The placement's rank (placement rows) and the logged position (log rows).
    pub at: &'a Column<'a>,
    pub reward: &'a Column<'a>,
    /// The logging propensity (None: 1).
    pub display: Option<&'a Column<'a>>,
    /// The logged list's id within its group (None: each group is one logged list).
    pub list: Option<(&'a Column<'a>, Kind)>,
}

/// One slot's sums: the fields of `plan.rank_sums`' per-slot aggregation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlotSums {
    pub weighted_reward: f64,
    pub control: f64,
    pub reward: f64,
    pub largest_weight: f64,
    pub weight_sum: f64,
    pub weight_squares: f64,
    pub weighted_rows: u32,
    pub rows: u32,
}

impl SlotSums {
    /// A logged row of the slot's item: its reward, weight and control.
    #[inline]
    pub(crate) fn add_row(&mut self, reward: f64, weight: f64, control: f64) {
        self.weighted_reward += reward * weight;
        self.control += control;
        // The reward times the placement's probability, 1 for a ranking.
        self.reward += reward;
        self.largest_weight = if self.rows == 0 { weight } else { self.largest_weight.max(weight) };
        self.rows += 1;
        if weight > 0.0 {
            self.weight_sum += weight;
            self.weight_squares += weight * weight;
            self.weighted_rows += 1;
        }
    }

    fn add(&mut self, other: &SlotSums) {
        self.weighted_reward += other.weighted_reward;
        self.control += other.control;
        self.reward += other.reward;
        self.largest_weight = if self.rows == 0 {
            other.largest_weight
        } else if other.rows == 0 {
            self.largest_weight
        } else {
            self.largest_weight.max(other.largest_weight)
        };
        self.weight_sum += other.weight_sum;
        self.weight_squares += other.weight_squares;
        self.weighted_rows += other.weighted_rows;
        self.rows += other.rows;
    }
}

/// Per placement row (in its input order): its sums and whether a logged list shows its item
/// twice.
pub struct Sums {
    pub slots: Vec<SlotSums>,
    pub repeated: Vec<bool>,
}

/// The placements' groups, laid out for the log rows' look-ups: an open-addressed table of
/// (key hash, group); group g's keys at `keys[g * n_keys..]`; its slots' placement rows at
/// `members[starts[g]..starts[g + 1]]`, their items side by side in `items` (and their hashes
/// in `item_hashes`, for text items), so that a log row reads one short contiguous range.
/// A slot is named by its place in that layout (`slot_of`). A group's place in the table
/// starts from its hash's top bits and, for a log read by partition (`partition_of`), the
/// groups are numbered in that order too, so that the groups of one partition lie in one
/// short range of every table: the log rows of a partition, read together, stay in cache.
struct Groups {
    keys: Vec<u64>,
    n_keys: usize,
    /// One integer key: its hash (`mix`, a bijection) names the group, no key is compared.
    hash_is_key: bool,
    hashes: Vec<u64>,
    table: Vec<(u64, u32)>,
    mask: usize,
    /// A hash's first place in the table: its top bits (`64 - shift` of them).
    shift: u32,
    starts: Vec<u32>,
    members: Vec<u32>,
    items: Vec<u64>,
    item_hashes: Vec<u64>,
}

const EMPTY: u32 = u32::MAX;

impl Groups {
    /// `by_partition`: the groups numbered by partition (`number_by_partition`), for a log
    /// read by partition; otherwise in their first placement's order.
    fn new(keys: &KeyColumns<'_>, handles: &[Vec<u64>], items: &[u64], item_hashes: &[u64], by_partition: bool) -> Groups {
        let n_keys = handles.len();
        let hash_is_key = n_keys == 1 && keys.kinds[0] == Kind::Integer;
        let mut groups = Groups {
            keys: Vec::new(),
            n_keys,
            hash_is_key,
            hashes: Vec::new(),
            table: vec![(0, EMPTY); 1024],
            mask: 1023,
            shift: 64 - 10,
            starts: Vec::new(),
            members: Vec::new(),
            items: Vec::new(),
            item_hashes: Vec::new(),
        };
        let mut row_keys = vec![0u64; n_keys];
        let mut group_of = Vec::with_capacity(items.len());
        for row in 0..items.len() {
            for (j, column) in handles.iter().enumerate() {
                row_keys[j] = column[row];
            }
            let hash = keys.hash(&row_keys);
            let g = match groups.find(keys, &row_keys, hash) {
                Some(g) => g,
                None => groups.insert(&row_keys, hash),
            };
            group_of.push(g as u32);
        }
        if by_partition {
            groups.number_by_partition(&mut group_of);
        }
        groups.lay_out(&group_of, items, item_hashes);
        groups
    }

    /// The groups numbered anew in the order of their partitions (stable within one): the
    /// table's places stay (they follow the hashes), its numbers change.
    fn number_by_partition(&mut self, group_of: &mut [u32]) {
        let mut next = vec![0u32; PARTITIONS + 1];
        for &hash in &self.hashes {
            next[partition_of(hash) + 1] += 1;
        }
        for q in 0..PARTITIONS {
            next[q + 1] += next[q];
        }
        let renumbered: Vec<u32> = self
            .hashes
            .iter()
            .map(|&hash| {
                let number = next[partition_of(hash)];
                next[partition_of(hash)] += 1;
                number
            })
            .collect();
        let (mut keys, mut hashes) = (vec![0u64; self.keys.len()], vec![0u64; self.hashes.len()]);
        for (g, &number) in renumbered.iter().enumerate() {
            let (from, to) = (g * self.n_keys, number as usize * self.n_keys);
            keys[to..to + self.n_keys].copy_from_slice(&self.keys[from..from + self.n_keys]);
            hashes[number as usize] = self.hashes[g];
        }
        (self.keys, self.hashes) = (keys, hashes);
        for entry in self.table.iter_mut().filter(|entry| entry.1 != EMPTY) {
            entry.1 = renumbered[entry.1 as usize];
        }
        for g in group_of.iter_mut() {
            *g = renumbered[*g as usize];
        }
    }

    /// Each group's slots side by side, in placement row order within a group.
    fn lay_out(&mut self, group_of: &[u32], items: &[u64], item_hashes: &[u64]) {
        let mut starts = vec![0u32; self.hashes.len() + 1];
        for &g in group_of {
            starts[g as usize + 1] += 1;
        }
        for g in 0..self.hashes.len() {
            starts[g + 1] += starts[g];
        }
        let mut next = starts.clone();
        let (mut members, mut laid, mut laid_hashes) = (vec![0u32; group_of.len()], vec![0u64; group_of.len()], vec![0u64; group_of.len()]);
        for (row, &g) in group_of.iter().enumerate() {
            let at = next[g as usize] as usize;
            next[g as usize] += 1;
            (members[at], laid[at], laid_hashes[at]) = (row as u32, items[row], item_hashes[row]);
        }
        (self.starts, self.members, self.items, self.item_hashes) = (starts, members, laid, laid_hashes);
    }

    #[inline]
    fn find(&self, keys: &KeyColumns<'_>, row_keys: &[u64], hash: u64) -> Option<usize> {
        let mut at = (hash >> self.shift) as usize;
        loop {
            let (theirs, g) = self.table[at];
            if g == EMPTY {
                return None;
            }
            let g = g as usize;
            if theirs == hash && (self.hash_is_key || keys.equal(&self.keys[g * self.n_keys..(g + 1) * self.n_keys], row_keys)) {
                return Some(g);
            }
            at = (at + 1) & self.mask;
        }
    }

    fn insert(&mut self, row_keys: &[u64], hash: u64) -> usize {
        let g = self.hashes.len();
        self.keys.extend_from_slice(row_keys);
        self.hashes.push(hash);
        if self.hashes.len() * 2 > self.table.len() {
            // Half full: twice the room, every group placed again.
            let capacity = self.table.len() * 2;
            (self.table, self.mask, self.shift) = (vec![(0, EMPTY); capacity], capacity - 1, self.shift - 1);
            for (number, &theirs) in self.hashes.iter().enumerate() {
                place(&mut self.table, self.mask, self.shift, theirs, number as u32);
            }
        } else {
            place(&mut self.table, self.mask, self.shift, hash, g as u32);
        }
        g
    }

    /// The slot among group `g`'s that places `item`: its place in the layout (its placement
    /// row is `members[slot]`).
    #[inline]
    fn slot_of(&self, logged: &Logged<'_>, g: usize, item: u64) -> Option<usize> {
        let (start, end) = (self.starts[g] as usize, self.starts[g + 1] as usize);
        let items = &self.items[start..end];
        let found = match logged.item_kind {
            Kind::Integer => items.iter().position(|&theirs| theirs == item),
            Kind::Text => {
                let text = logged.item.text_of(item);
                let hash = hash_bytes(text);
                let hashes = &self.item_hashes[start..end];
                (0..items.len()).find(|&i| hashes[i] == hash && logged.item.text_of(items[i]) == text)
            }
        };
        found.map(|i| start + i)
    }
}

/// The partitions the log rows of a shuffled log are split into, by the top bits of their
/// keys' hash (`read_scattered`).
const PARTITION_BITS: u32 = 8;
const PARTITIONS: usize = 1 << PARTITION_BITS;

#[inline]
fn partition_of(hash: u64) -> usize {
    (hash >> (64 - PARTITION_BITS)) as usize
}

/// Group `g` at the first free place from `hash`'s (its top bits).
fn place(table: &mut [(u64, u32)], mask: usize, shift: u32, hash: u64, g: u32) {
    let mut at = (hash >> shift) as usize;
    while table[at].1 != EMPTY {
        at = (at + 1) & mask;
    }
    table[at] = (hash, g);
}

/// The first `rows` handles of a column (`Column::handles`).
fn first_handles(column: &Column<'_>, rows: usize) -> Vec<u64> {
    let mut cursor = HandleCursor::new(column);
    (0..rows).map(|row| cursor.get(row)).collect()
}

/// A reward column read by row as a float: Float64, or integers read as they are (a click
/// column of Int8 needs no Float64 copy of the log's rows; an integer converts to the same
/// float as Polars' cast makes of it). The estimate refuses a null reward before.
pub(crate) enum Rewards<'a> {
    Floats(FloatCursor<'a>),
    Integers(HandleCursor<'a>),
}

impl<'a> Rewards<'a> {
    pub(crate) fn new(column: &'a Column<'a>) -> Self {
        if column.is_integer() {
            Rewards::Integers(HandleCursor::new(column))
        } else {
            Rewards::Floats(FloatCursor::new(column))
        }
    }

    #[inline]
    pub(crate) fn get(&mut self, row: usize) -> f64 {
        match self {
            Rewards::Floats(cursor) => cursor.get(row),
            Rewards::Integers(cursor) => cursor.get(row) as i64 as f64,
        }
    }
}

/// An item's hash, for the text items' comparisons (integers compare by value).
fn item_hash(column: &Column<'_>, kind: Kind, handle: u64) -> u64 {
    match kind {
        Kind::Integer => mix(handle),
        Kind::Text => hash_bytes(column.text_of(handle)),
    }
}

/// The slot sums of every placement row, and the repeated items' flags.
pub(crate) fn logged_sums(logged: &Logged<'_>, asked: &Asked<'_>) -> Sums {
    let started = std::time::Instant::now();
    let (n, placed) = (logged.at.len(), asked.placed);
    let handles: Vec<Vec<u64>> = logged.keys.columns.iter().map(|column| first_handles(column, placed)).collect();
    let items = first_handles(logged.item, placed);
    let item_hashes: Vec<u64> = items.iter().map(|item| item_hash(logged.item, logged.item_kind, *item)).collect();
    let scattered = !in_runs(logged, placed);
    let groups = Groups::new(&logged.keys, &handles, &items, &item_hashes, scattered);
    let pairs = scattered.then(|| Pairs::new(&logged.keys, &handles, &item_hashes));
    let ranks: Vec<i64> = first_handles(logged.at, placed).into_iter().map(|rank| rank as i64).collect();
    // Each slot's rank at its place in the layout, where the slot's sums are kept.
    let ranks: Vec<i64> = groups.members.iter().map(|&row| ranks[row as usize]).collect();
    super::timing("counterfactual: placements' groups", started);
    let started = std::time::Instant::now();
    // A thread per 100,000 log rows at most: a small call is not worth a thread.
    let threads = super::threads().min((n - placed) / 100_000).max(1);
    let share = (n - placed).div_ceil(threads).max(1);
    let bounds: Vec<(usize, usize)> =
        (0..threads).map(|t| (placed + t * share, (placed + (t + 1) * share).min(n))).filter(|(start, end)| start < end).collect();
    let (slots, parts) = match pairs.as_ref() {
        Some(pairs) => read_scattered(logged, asked, &ranks, &groups, pairs, &bounds),
        None => {
            let parts: Vec<Part> = std::thread::scope(|scope| {
                let running: Vec<_> = bounds
                    .iter()
                    .map(|&(start, end)| {
                        let (ranks, groups) = (&ranks, &groups);
                        scope.spawn(move || read_rows(logged, asked, ranks, groups, start, end))
                    })
                    .collect();
                running.into_iter().map(|thread| thread.join().unwrap_or_default()).collect()
            });
            added(parts, placed)
        }
    };
    super::timing("counterfactual: log rows read", started);
    let started = std::time::Instant::now();
    let repeated = match logged.list {
        None => slots.iter().map(|slot| slot.rows > 1).collect(),
        Some((column, kind)) => {
            let found: Vec<&Part> = parts.iter().collect();
            repeated_in_lists(&slots, &found, column, kind)
        }
    };
    let sums = if groups.members.iter().enumerate().all(|(at, &row)| at == row as usize) {
        // Placements in their groups' order (sorted by the keys): the layout is their order.
        Sums { slots, repeated }
    } else {
        // From the layout's order back to the placement rows'.
        let (mut by_row, mut repeated_by_row) = (vec![SlotSums::default(); placed], vec![false; placed]);
        for ((&row, slot), flag) in groups.members.iter().zip(slots).zip(repeated) {
            (by_row[row as usize], repeated_by_row[row as usize]) = (slot, flag);
        }
        Sums { slots: by_row, repeated: repeated_by_row }
    };
    super::timing("counterfactual: sums added", started);
    sums
}

/// The threads' sums per slot added in thread order (each slot's rows summed in row order
/// within a thread's share), and the parts, whose found rows the repeated items' check reads.
fn added(mut parts: Vec<Part>, placed: usize) -> (Vec<SlotSums>, Vec<Part>) {
    let mut slots = parts.first_mut().map(|first| std::mem::take(&mut first.slots)).unwrap_or_default();
    slots.resize(placed, SlotSums::default());
    for part in parts.iter().skip(1) {
        for (total, mine) in slots.iter_mut().zip(&part.slots) {
            total.add(mine);
        }
    }
    (slots, parts)
}

/// One thread's share of the log rows: its sums per slot (by place in the layout) and, for
/// the repeated items' check, the rows whose item its group places (row and slot).
#[derive(Default)]
struct Part {
    slots: Vec<SlotSums>,
    found: Vec<(u32, u32)>,
}

/// A bitmap of the placements' (group, item) pairs, by a hash of the pair: a log row whose
/// pair it does not hold is no placement's, so that a row of another group than the row
/// before's (rows in any order) is passed over without looking its group up in the groups'
/// table and its item among the group's, two or three cache misses. About 16 bits per
/// placement (a megabyte for 500,000): a row whose pair is placed nowhere passes for one
/// about once in 16.
struct Pairs {
    bits: Vec<u64>,
    mask: u64,
}

impl Pairs {
    fn new(keys: &KeyColumns<'_>, handles: &[Vec<u64>], item_hashes: &[u64]) -> Pairs {
        let size = (16 * item_hashes.len()).next_power_of_two().max(1 << 12);
        let mut pairs = Pairs { bits: vec![0u64; size / 64], mask: size as u64 - 1 };
        let mut row_keys = vec![0u64; handles.len()];
        for (row, &item_hash) in item_hashes.iter().enumerate() {
            for (j, column) in handles.iter().enumerate() {
                row_keys[j] = column[row];
            }
            let bit = pairs.bit(keys.hash(&row_keys), item_hash);
            pairs.bits[(bit >> 6) as usize] |= 1 << (bit & 63);
        }
        pairs
    }

    #[inline]
    fn bit(&self, key_hash: u64, item_hash: u64) -> u64 {
        mix(key_hash ^ item_hash.rotate_left(29)) & self.mask
    }

    #[inline]
    fn may_hold(&self, key_hash: u64, item_hash: u64) -> bool {
        let bit = self.bit(key_hash, item_hash);
        self.bits[(bit >> 6) as usize] & (1 << (bit & 63)) != 0
    }
}

/// Whether the log's rows come in runs of one group (as a log grouped by its keys): most of
/// its first 1,000 rows have the keys of the row before. Such rows look their group up once
/// a run, and `Pairs` would cost more than they save.
fn in_runs(logged: &Logged<'_>, placed: usize) -> bool {
    let rows = (logged.at.len() - placed).min(1_000);
    let mut cursors: Vec<HandleCursor<'_>> = logged.keys.columns.iter().map(|column| HandleCursor::new(column)).collect();
    let mut keys: Vec<Vec<u64>> = vec![Vec::with_capacity(rows); cursors.len()];
    for row in placed..placed + rows {
        for (j, cursor) in cursors.iter_mut().enumerate() {
            keys[j].push(cursor.get(row));
        }
    }
    let key = |i: usize| keys.iter().map(|column| column[i]).collect::<Vec<u64>>();
    let repeated = (1..rows).filter(|&i| logged.keys.equal(&key(i), &key(i - 1))).count();
    2 * repeated >= rows
}

/// One thread's share of the log rows, `start..end`, read in order: a log in runs of one
/// group looks each run's group up once.
fn read_rows(logged: &Logged<'_>, asked: &Asked<'_>, ranks: &[i64], groups: &Groups, start: usize, end: usize) -> Part {
    let mut slots = vec![SlotSums::default(); asked.placed];
    let mut found = Vec::new();
    let mut keys: Vec<HandleCursor<'_>> = logged.keys.columns.iter().map(|column| HandleCursor::new(column)).collect();
    let mut items = HandleCursor::new(logged.item);
    let mut positions = HandleCursor::new(logged.at);
    let mut rewards = Rewards::new(logged.reward);
    let mut displays = logged.display.map(FloatCursor::new);
    let n_keys = keys.len();
    let mut row_keys = vec![0u64; n_keys];
    let mut last_keys = vec![0u64; n_keys];
    let mut last: Option<usize> = None;
    let mut known = false;
    for row in start..end {
        for (j, cursor) in keys.iter_mut().enumerate() {
            row_keys[j] = cursor.get(row);
        }
        if !(known && logged.keys.equal(&row_keys, &last_keys)) {
            last = groups.find(&logged.keys, &row_keys, logged.keys.hash(&row_keys));
            last_keys.copy_from_slice(&row_keys);
            known = true;
        }
        let Some(g) = last else { continue };
        let Some(slot) = groups.slot_of(logged, g, items.get(row)) else { continue };
        if logged.list.is_some() {
            found.push((row as u32, slot as u32));
        }
        let display = displays.as_mut().map_or(1.0, |cursor| cursor.get(row));
        let (weight, control) = weighed(asked, ranks[slot], positions.get(row) as i64, display);
        slots[slot].add_row(rewards.get(row), weight, control);
    }
    Part { slots, found }
}

/// A log row whose (group, item) pair may be placed (`Pairs`), as `read_scattered` keeps it
/// for its partition.
#[derive(Clone, Copy)]
struct Kept {
    key_hash: u64,
    item: u64,
    position: i64,
    reward: f64,
    display: f64,
    row: u32,
}

/// The log's rows in any order, in two steps: each thread checks its contiguous share of the
/// rows against the pairs (the placements' tables are not read) and keeps the rows that pass
/// in their group's partition, in row order (`kept_rows`); then each thread reads a
/// contiguous range of the partitions, each partition's kept rows share after share, their
/// groups, items, ranks and sums in one short range of each table (the groups are numbered by
/// partition, so a partition's slots are one range of the layout). Read row by row, each row
/// that passes would cost a cache miss in each table; and no thread holds sums for every slot.
/// A slot's rows are summed share by share in row order and the shares' sums added in share
/// order, as `read_rows`' parts are (`added`).
fn read_scattered(
    logged: &Logged<'_>,
    asked: &Asked<'_>,
    ranks: &[i64],
    groups: &Groups,
    pairs: &Pairs,
    bounds: &[(usize, usize)],
) -> (Vec<SlotSums>, Vec<Part>) {
    let shares: Vec<Vec<Vec<Kept>>> = std::thread::scope(|scope| {
        let running: Vec<_> = bounds.iter().map(|&(start, end)| scope.spawn(move || kept_rows(logged, pairs, start, end))).collect();
        running.into_iter().map(|thread| thread.join().unwrap_or_default()).collect()
    });
    // Each partition's first slot in the layout (its first group's).
    let n_groups = groups.hashes.len();
    let mut first_slot = vec![0usize; PARTITIONS + 1];
    let mut g = 0usize;
    for (p, first) in first_slot.iter_mut().enumerate() {
        *first = groups.starts[g] as usize;
        while g < n_groups && partition_of(groups.hashes[g]) == p {
            g += 1;
        }
    }
    let mut slots = vec![SlotSums::default(); asked.placed];
    let threads = bounds.len().clamp(1, PARTITIONS);
    let parts: Vec<Part> = std::thread::scope(|scope| {
        let mut rest: &mut [SlotSums] = &mut slots;
        let mut running = Vec::with_capacity(threads);
        for t in 0..threads {
            let partitions = PARTITIONS * t / threads..PARTITIONS * (t + 1) / threads;
            let (mine, later) = rest.split_at_mut(first_slot[partitions.end] - first_slot[partitions.start]);
            rest = later;
            let (shares, first_slot) = (&shares, &first_slot);
            running.push(scope.spawn(move || read_partitions(logged, asked, ranks, groups, shares, partitions, first_slot, mine)));
        }
        running.into_iter().map(|thread| thread.join().unwrap_or_default()).collect()
    });
    (slots, parts)
}

/// One thread's share of the log rows, `start..end`: the rows whose (group, item) pair may be
/// placed (`Pairs`), by the partition of their keys' hash, in row order.
fn kept_rows(logged: &Logged<'_>, pairs: &Pairs, start: usize, end: usize) -> Vec<Vec<Kept>> {
    let mut keys: Vec<HandleCursor<'_>> = logged.keys.columns.iter().map(|column| HandleCursor::new(column)).collect();
    let mut items = HandleCursor::new(logged.item);
    let mut positions = HandleCursor::new(logged.at);
    let mut rewards = Rewards::new(logged.reward);
    let mut displays = logged.display.map(FloatCursor::new);
    let mut row_keys = vec![0u64; keys.len()];
    // Room for a quarter of the rows up front (pages are only touched as they fill): a list
    // that grows copies itself. About one row in six passes where a tenth is placed.
    let room = (end - start) / PARTITIONS / 4 + 16;
    let mut lists: Vec<Vec<Kept>> = (0..PARTITIONS).map(|_| Vec::with_capacity(room)).collect();
    for row in start..end {
        for (j, cursor) in keys.iter_mut().enumerate() {
            row_keys[j] = cursor.get(row);
        }
        let key_hash = logged.keys.hash(&row_keys);
        let item = items.get(row);
        if !pairs.may_hold(key_hash, item_hash(logged.item, logged.item_kind, item)) {
            continue;
        }
        let display = displays.as_mut().map_or(1.0, |cursor| cursor.get(row));
        let kept = Kept { key_hash, item, position: positions.get(row) as i64, reward: rewards.get(row), display, row: row as u32 };
        lists[partition_of(key_hash)].push(kept);
    }
    lists
}

/// The partitions `partitions`' slots (`out`, from the first partition's first slot): each
/// partition's kept rows of every share, share after share, each share's sums added to the
/// earlier shares' (the first share's are the slots' own).
#[allow(clippy::too_many_arguments)]
fn read_partitions(
    logged: &Logged<'_>,
    asked: &Asked<'_>,
    ranks: &[i64],
    groups: &Groups,
    shares: &[Vec<Vec<Kept>>],
    partitions: std::ops::Range<usize>,
    first_slot: &[usize],
    out: &mut [SlotSums],
) -> Part {
    let base = first_slot[partitions.start];
    let mut keys: Vec<HandleCursor<'_>> = logged.keys.columns.iter().map(|column| HandleCursor::new(column)).collect();
    let mut row_keys = vec![0u64; keys.len()];
    let mut scratch: Vec<SlotSums> = Vec::new();
    let mut found = Vec::new();
    for p in partitions {
        let (first, end) = (first_slot[p], first_slot[p + 1]);
        let mine = &mut out[first - base..end - base];
        for (t, share) in shares.iter().enumerate() {
            let sums: &mut [SlotSums] = if t == 0 {
                mine
            } else {
                scratch.clear();
                scratch.resize(end - first, SlotSums::default());
                &mut scratch
            };
            for kept in &share[p] {
                if !groups.hash_is_key {
                    // The keys are compared: read again where they lie.
                    for (j, cursor) in keys.iter_mut().enumerate() {
                        row_keys[j] = cursor.get(kept.row as usize);
                    }
                }
                let Some(g) = groups.find(&logged.keys, &row_keys, kept.key_hash) else { continue };
                let Some(slot) = groups.slot_of(logged, g, kept.item) else { continue };
                if logged.list.is_some() {
                    found.push((kept.row, slot as u32));
                }
                let (weight, control) = weighed(asked, ranks[slot], kept.position, kept.display);
                sums[slot - first].add_row(kept.reward, weight, control);
            }
            if t > 0 {
                for (total, later) in mine.iter_mut().zip(&scratch) {
                    total.add(later);
                }
            }
        }
    }
    Part { slots: Vec::new(), found }
}

/// A logged row's weight and control for the slot at `rank` (probability 1: a ranking), in
/// the order `plan.weighted_rows` computes them.
#[inline]
fn weighed(asked: &Asked<'_>, rank: i64, position: i64, display: f64) -> (f64, f64) {
    let (weight, control) = match asked.model {
        Model::PositionBased => {
            let control = 1.0 / display;
            let theta = |at: i64| asked.theta.get((at - 1) as usize).copied().unwrap_or(f64::NAN);
            (control * theta(rank) / theta(position), control)
        }
        Model::ItemPosition => {
            let weight = 1.0 * f64::from(u8::from(rank == position)) / display;
            (weight, weight)
        }
    };
    match asked.clip {
        Some(clip) => (weight.min(clip), control.min(clip)),
        None => (weight, control),
    }
}

/// Whether a logged list shows a slot's item twice: each slot's rows' lists, compared by
/// hash and then by value.
fn repeated_in_lists(slots: &[SlotSums], parts: &[&Part], column: &Column<'_>, kind: Kind) -> Vec<bool> {
    let mut starts = Vec::with_capacity(slots.len() + 1);
    let mut at = 0usize;
    for slot in slots {
        starts.push(at);
        at += slot.rows as usize;
    }
    starts.push(at);
    let mut filled = starts.clone();
    let mut shown = vec![(0u64, 0u64); at];
    let mut lists = HandleCursor::new(column);
    for part in parts {
        for &(row, p) in &part.found {
            let list = lists.get(row as usize);
            let hash = match kind {
                Kind::Integer => mix(list),
                Kind::Text => hash_bytes(column.text_of(list)),
            };
            shown[filled[p as usize]] = (hash, list);
            filled[p as usize] += 1;
        }
    }
    let same = |a: u64, b: u64| a == b || (kind == Kind::Text && column.text_of(a) == column.text_of(b));
    (0..slots.len())
        .map(|p| {
            let mine = &mut shown[starts[p]..starts[p + 1]];
            mine.sort_unstable();
            // Lists of one hash side by side: each pair of them compared (a collision is rare).
            let mut run = 0usize;
            while run < mine.len() {
                let end = run + mine[run..].iter().take_while(|(hash, _)| *hash == mine[run].0).count();
                let lists = &mine[run..end];
                if lists.iter().enumerate().any(|(i, a)| lists[i + 1..].iter().any(|b| same(a.1, b.1))) {
                    return true;
                }
                run = end;
            }
            false
        })
        .collect()
}

#[cfg(test)]
#[path = "counterfactual_tests.rs"]
mod tests;
