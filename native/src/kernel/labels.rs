//! `label`'s rows (`polars_rankk/core/inputs/labelling.py` is the reference): each candidate
//! row's grade from the truth, its group's R and the grades of the judged items its candidates
//! miss, and the order of the rows: grouped by key, the groups in ascending key order (nulls
//! last), each group's rows in input order.
//!
//! The candidates' rows come first, then the truth's, in the same columns (a `side` per row
//! says which). The rows are radix-partitioned by the hash of their keys, each thread reading
//! its share in order; each partition is then grouped on its own (a small table of its
//! groups, its truth rows joined by group), the partitions split across the threads. A null
//! key or item is a value of its own (equal to another null, as the reference's joins with
//! `nulls_equal=True`), which the kernel's handles alone cannot say: validity is read here.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering as Atomic};
use std::time::Instant;

use crate::buffers::{self, Pool};
use crate::columns::{Column, FloatCursor, HandleCursor, Values};
use crate::config::Kind;

use super::context::{threads, timing};
use super::hashing::{hash_bytes, mix, unmix};
use super::partition::{partition_bits, partition_of};

/// A candidate in the pool.
pub const CANDIDATE: i64 = 0;
/// A candidate whose invalid score leaves the pool (`pool="restrict"`,
/// `invalid_scores="drop"`): labelled, but the truth is not restricted to its item.
pub const OUT_OF_POOL: i64 = 1;
/// A truth row with a grade (NaN included).
pub const TRUTH: i64 = 2;
/// A truth row whose grade is null.
pub const TRUTH_NULL: i64 = 3;

const NULL_HASH: u64 = 0x6a09_e667_f3bc_c908;

/// What the call asks beyond its columns.
pub struct Asked {
    pub threshold: f64,
    pub restrict: bool,
    /// Which of the candidates' columns are written in output order here (integer keys and
    /// item, the score a candidate row carries in the grades column) rather than gathered by
    /// row afterwards: a write of values the labelling already reads costs less than a gather.
    pub write: Written,
}

/// The columns `Asked::write` names.
#[derive(Clone, Copy, Default)]
pub struct Written {
    pub keys: bool,
    pub item: bool,
    pub score: bool,
}

/// The labelled candidate rows, in output order, as Arrow lays them out (a false flag: null).
#[derive(Debug, Default, PartialEq)]
pub struct Labels {
    /// The input row at each output position.
    pub rows: Vec<u32>,
    /// The row's grade; null when the truth does not judge its item (or judges it null).
    pub grades: Vec<f64>,
    pub graded: Vec<bool>,
    /// The group's R; null for a group the truth does not know.
    pub n_relevant: Vec<i64>,
    pub known: Vec<bool>,
    /// Row i's list of missed grades is `missed[offsets[i]..offsets[i + 1]]`, highest first
    /// (null first, then NaN, as Polars sorts descending), on a known group's first row; null
    /// (`listed` false, an empty range) elsewhere.
    pub offsets: Vec<i64>,
    pub listed: Vec<bool>,
    pub missed: Vec<f64>,
    pub missed_graded: Vec<bool>,
    /// The columns written (`Written`), each as values and validity; empty where not asked.
    pub keys: Vec<(Vec<i64>, Vec<bool>)>,
    pub items: (Vec<i64>, Vec<bool>),
    pub scores: (Vec<f64>, Vec<bool>),
}

/// One column's values as compared here, read where they lie: handles (an integer's value, a
/// string's chunk and place) and, where the column has nulls, validity.
struct Cells<'a> {
    column: &'a Column<'a>,
    kind: Kind,
    /// Each chunk's first row.
    starts: Vec<usize>,
    nulls: bool,
}

impl<'a> Cells<'a> {
    fn new(column: &'a Column<'a>, kind: Kind) -> Self {
        let starts = column.chunks.iter().scan(0usize, |at, chunk| {
            let start = *at;
            *at += chunk.len;
            Some(start)
        });
        let nulls = column.chunks.iter().any(|chunk| chunk.validity.is_some() && (0..chunk.len).any(|i| !chunk.is_valid(i)));
        Cells { column, kind, starts: starts.collect(), nulls }
    }

    /// Whether equal hashes mean equal values: integers without nulls (`mix` is a bijection).
    fn exact(&self) -> bool {
        self.kind == Kind::Integer && !self.nulls
    }

    /// The chunk of `row` and its place there.
    #[inline(always)]
    fn at(&self, row: usize) -> (usize, usize) {
        if self.starts.len() == 1 {
            return (0, row);
        }
        let c = self.starts.partition_point(|&start| start <= row) - 1;
        (c, row - self.starts[c])
    }

    #[inline]
    fn handle(&self, row: usize) -> u64 {
        let (c, i) = self.at(row);
        match self.column.chunks[c].integer(i) {
            Some(value) => value as u64,
            None => ((c as u64) << 32) | i as u64,
        }
    }

    #[inline]
    fn is_null(&self, row: usize) -> bool {
        self.nulls && {
            let (c, i) = self.at(row);
            !self.column.chunks[c].is_valid(i)
        }
    }

    #[inline]
    fn hash(&self, row: usize) -> u64 {
        if self.is_null(row) {
            return NULL_HASH;
        }
        match self.kind {
            Kind::Integer => mix(self.handle(row)),
            Kind::Text => hash_bytes(self.column.text_of(self.handle(row))),
        }
    }

    /// `hash` of rows `first..last`, in order, each passed to `each`: an Int64 chunk without
    /// nulls read as a slice (most keys and items).
    fn each_hash(&self, first: usize, last: usize, mut each: impl FnMut(usize, u64)) {
        for (c, chunk) in self.column.chunks.iter().enumerate() {
            let start = self.starts[c];
            let (from, to) = (first.max(start), last.min(start + chunk.len));
            match &chunk.values {
                Values::I64(values) if !self.nulls && from < to => {
                    let values = &values[from - start..to - start];
                    values.iter().enumerate().for_each(|(i, v)| each(from + i, mix(*v as u64)));
                }
                _ => (from..to).for_each(|row| each(row, self.hash(row))),
            }
        }
    }

    #[inline]
    fn equal(&self, a: usize, b: usize) -> bool {
        match (self.is_null(a), self.is_null(b)) {
            (true, true) => true,
            (false, false) => {
                let (x, y) = (self.handle(a), self.handle(b));
                match self.kind {
                    Kind::Integer => x == y,
                    Kind::Text => x == y || self.column.text_of(x) == self.column.text_of(y),
                }
            }
            _ => false,
        }
    }

    /// Ascending order, nulls last (Polars' `sort(nulls_last=True)`; strings by their bytes).
    #[inline]
    fn compare(&self, a: usize, b: usize) -> Ordering {
        match (self.is_null(a), self.is_null(b)) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => match self.kind {
                Kind::Integer => (self.handle(a) as i64).cmp(&(self.handle(b) as i64)),
                Kind::Text => self.column.text_of(self.handle(a)).cmp(self.column.text_of(self.handle(b))),
            },
        }
    }
}

/// The call's columns, read once.
struct Table<'a> {
    keys: Vec<Cells<'a>>,
    item: Cells<'a>,
    sides: &'a Column<'a>,
    grades: &'a Column<'a>,
    /// Whether equal hashes mean equal keys (one integer key column without nulls) / items.
    exact_keys: bool,
    exact_items: bool,
}

impl Table<'_> {
    /// The hash of each row's keys, rows `first..last`: the first key's hash, each further
    /// one mixed in.
    fn key_hashes(&self, first: usize, last: usize) -> Vec<u64> {
        let mut hashes = buffers::HASHES.take(last - first);
        hashes.resize(last - first, 0);
        for (j, cells) in self.keys.iter().enumerate() {
            cells.each_hash(first, last, |row, part| {
                let h = &mut hashes[row - first];
                *h = if j == 0 { part } else { mix(h.rotate_left(5) ^ part) };
            });
        }
        hashes
    }

    #[inline]
    fn same_key(&self, a: &Record, b: &Record) -> bool {
        a.key == b.key && (self.exact_keys || self.keys.iter().all(|cells| cells.equal(a.row as usize, b.row as usize)))
    }

    #[inline]
    fn same_item(&self, a: &Record, b: &Record) -> bool {
        a.item == b.item && (self.exact_items || self.item.equal(a.row as usize, b.row as usize))
    }

    fn compare_keys(&self, a: usize, b: usize) -> Ordering {
        self.keys.iter().map(|cells| cells.compare(a, b)).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    }
}

/// A row as a partition reads it, copied there so that a partition is read sequentially: its
/// keys' hash, its item's hash, its side and its value in the grades column (a truth row's
/// grade; a candidate's score where the score is written), `valid` false where that is null.
#[derive(Clone, Copy, Default)]
struct Record {
    row: u32,
    side: u16,
    valid: bool,
    key: u64,
    item: u64,
    grade: f64,
}

/// The records of a call (each thread's, partitioned; each partition's, grouped) and the
/// partitions' grades, kept for the next call (`buffers`): a million rows' records are 64 MB.
static RECORDS: Pool<Record> = Pool::new();
static GRADES: Pool<Option<f64>> = Pool::new();

/// Call `call` of `label` ends: what its own pools kept and it did not need is freed.
pub fn settle(call: u64) {
    buffers::settle_pool(&RECORDS, call);
    buffers::settle_pool(&GRADES, call);
}

/// One group of a partition, with candidates.
struct GroupOut {
    /// Its first candidate row (its keys).
    first: u32,
    /// Its candidate records' place in the partition's `records`, and their grades' in
    /// `grades`.
    records: usize,
    start: usize,
    len: usize,
    /// Its R, and its missed grades' place in the partition's `missed` (None: the truth
    /// does not know the group).
    known: Option<(i64, usize, usize)>,
}

/// One partition's labelled groups.
#[derive(Default)]
struct PartOut {
    groups: Vec<GroupOut>,
    /// The partition's records, each group's together (its rows, items and scores are
    /// read from there as the groups are written: no copy of them per partition).
    records: Vec<Record>,
    grades: Vec<Option<f64>>,
    missed: Vec<Option<f64>>,
}

/// A judged item of a group: a record naming it, its highest grade, and whether a candidate
/// in the pool has it / any candidate has it.
#[derive(Clone, Copy)]
struct Judged {
    record: Record,
    grade: Option<f64>,
    pooled: bool,
    matched: bool,
}

/// Polars' `max` of a column's values: nulls and NaN left out, NaN when all are NaN.
fn highest(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let (mut best, mut nan) = (None::<f64>, false);
    for value in values.flatten() {
        if value.is_nan() {
            nan = true;
        } else {
            best = Some(best.map_or(value, |b| b.max(value)));
        }
    }
    best.or(if nan { Some(f64::NAN) } else { None })
}

/// Polars' descending order of Float64 values: nulls first, then NaN, then the highest.
fn descending(a: &Option<f64>, b: &Option<f64>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Less,
        (_, None) => Ordering::Greater,
        (Some(x), Some(y)) => y.total_cmp(x),
    }
}

/// A truth record's grade (None: null).
#[inline]
fn grade_of(record: &Record) -> Option<f64> {
    (i64::from(record.side) == TRUTH).then_some(record.grade)
}

/// A group's judged items, one per distinct item (its highest grade), sorted by item hash,
/// into `items`; `truth` is reordered.
fn judged_items(table: &Table<'_>, truth: &mut [Record], items: &mut Vec<Judged>) {
    items.clear();
    truth.sort_unstable_by_key(|r| r.item);
    let mut start = 0;
    while start < truth.len() {
        let hash = truth[start].item;
        let end = start + truth[start..].partition_point(|r| r.item == hash);
        let run = &truth[start..end];
        if table.exact_items {
            let grade = highest(run.iter().map(grade_of));
            items.push(Judged { record: run[0], grade, pooled: false, matched: false });
        } else {
            // Each distinct item of the run (equal hashes, maybe different items).
            for (i, record) in run.iter().enumerate() {
                if run[..i].iter().any(|r| table.same_item(r, record)) {
                    continue;
                }
                let grade = highest(run[i..].iter().filter(|r| table.same_item(r, record)).map(grade_of));
                items.push(Judged { record: *record, grade, pooled: false, matched: false });
            }
        }
        start = end;
    }
}

/// The judged item a candidate names, if any.
#[inline]
fn find(table: &Table<'_>, items: &[Judged], candidate: &Record) -> Option<usize> {
    let start = items.partition_point(|j| j.record.item < candidate.item);
    (start..items.len())
        .take_while(|&t| items[t].record.item == candidate.item)
        .find(|&t| table.same_item(&items[t].record, candidate))
}

/// A partition's scratch, reused from group to group.
#[derive(Default)]
struct Scratch {
    items: Vec<Judged>,
    found: Vec<Option<usize>>,
    missed: Vec<Option<f64>>,
}

/// A candidate's item (an integer): read back from its hash where that is exact, else from
/// the column.
#[inline]
fn item_value(table: &Table<'_>, record: &Record) -> Option<i64> {
    let row = record.row as usize;
    if table.exact_items {
        Some(unmix(record.item) as i64)
    } else if table.item.is_null(row) {
        None
    } else {
        Some(table.item.handle(row) as i64)
    }
}

/// Label one group: its candidates' grades into `out`, its R and missed grades.
fn label_group(table: &Table<'_>, asked: &Asked, candidates: &[Record], truth: &mut [Record], scratch: &mut Scratch, out: &mut PartOut) -> GroupOut {
    let start = out.grades.len();
    judged_items(table, truth, &mut scratch.items);
    let items = &mut scratch.items;
    scratch.found.clear();
    scratch.found.extend(candidates.iter().map(|c| if items.is_empty() { None } else { find(table, items, c) }));
    if asked.restrict {
        for (c, t) in candidates.iter().zip(&scratch.found) {
            if let Some(t) = t {
                items[*t].pooled |= i64::from(c.side) == CANDIDATE;
            }
        }
    }
    // Under pool="restrict" the truth keeps only the items a candidate in the pool has.
    let kept = |j: &Judged| !asked.restrict || j.pooled;
    for t in &scratch.found {
        let grade = match t {
            Some(t) if kept(&items[*t]) => {
                items[*t].matched = true;
                items[*t].grade
            }
            _ => None,
        };
        out.grades.push(grade);
    }
    let known = (!truth.is_empty()).then(|| {
        let relevant = |g: f64| g.is_nan() || g >= asked.threshold; // NaN sorts highest in Polars
        let n_relevant = items.iter().filter(|j| kept(j) && j.grade.is_some_and(relevant)).count() as i64;
        scratch.missed.clear();
        scratch.missed.extend(items.iter().filter(|j| kept(j) && !j.matched).map(|j| j.grade));
        scratch.missed.sort_by(descending);
        let from = out.missed.len();
        out.missed.extend_from_slice(&scratch.missed);
        (n_relevant, from, out.missed.len())
    });
    GroupOut { first: candidates[0].row, records: 0, start, len: candidates.len(), known }
}

/// Group one partition's records (in increasing row order) and label each group with
/// candidates.
fn label_partition(table: &Table<'_>, asked: &Asked, lists: &[&[Record]]) -> PartOut {
    let size: usize = lists.iter().map(|l| l.len()).sum();
    let mut slots = vec![u32::MAX; (size / 8 + 16).next_power_of_two() * 2];
    let mut firsts: Vec<Record> = Vec::new();
    let mut of_record: Vec<u32> = buffers::ROWS.take(size);
    for record in lists.iter().flat_map(|l| l.iter()) {
        let mut mask = slots.len() - 1;
        let mut slot = (record.key as usize) & mask;
        let group = loop {
            let found = slots[slot];
            if found == u32::MAX {
                let id = firsts.len() as u32;
                firsts.push(*record);
                slots[slot] = id;
                if firsts.len() * 2 > slots.len() {
                    slots = vec![u32::MAX; slots.len() * 2];
                    mask = slots.len() - 1;
                    for (g, first) in firsts.iter().enumerate() {
                        let mut s = (first.key as usize) & mask;
                        while slots[s] != u32::MAX {
                            s = (s + 1) & mask;
                        }
                        slots[s] = g as u32;
                    }
                }
                break id;
            }
            if table.same_key(&firsts[found as usize], record) {
                break found;
            }
            slot = (slot + 1) & mask;
        };
        of_record.push(group);
    }
    // Each group's candidate records, then its truth records, side by side (a stable counting
    // sort: rows stay increasing within a group).
    let n_groups = firsts.len();
    let bucket = |g: u32, record: &Record| 2 * g as usize + usize::from(i64::from(record.side) >= TRUTH);
    let mut offsets = vec![0usize; 2 * n_groups + 1];
    for (record, &g) in lists.iter().flat_map(|l| l.iter()).zip(&of_record) {
        offsets[bucket(g, record) + 1] += 1;
    }
    for i in 0..2 * n_groups {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut sorted = RECORDS.take(size);
    sorted.resize(size, Record::default());
    for (record, &g) in lists.iter().flat_map(|l| l.iter()).zip(&of_record) {
        let at = &mut next[bucket(g, record)];
        sorted[*at] = *record;
        *at += 1;
    }
    buffers::ROWS.give(of_record);
    let mut out = PartOut { grades: GRADES.take(offsets[2 * n_groups]), ..PartOut::default() };
    let mut scratch = Scratch::default();
    for g in 0..n_groups {
        let (candidates, truth) = sorted[offsets[2 * g]..offsets[2 * g + 2]].split_at_mut(offsets[2 * g + 1] - offsets[2 * g]);
        if !candidates.is_empty() {
            let group = label_group(table, asked, candidates, truth, &mut scratch, &mut out);
            out.groups.push(GroupOut { records: offsets[2 * g], ..group });
        }
    }
    out.records = sorted;
    out
}

/// One thread's records, partition after partition: partition p's are
/// `records[starts[p]..starts[p + 1]]`, increasing.
struct ThreadRecords {
    records: Vec<Record>,
    starts: Vec<usize>,
}

impl ThreadRecords {
    fn of(&self, p: usize) -> &[Record] {
        &self.records[self.starts[p]..self.starts[p + 1]]
    }
}

/// Each thread's records partitioned by key hash.
fn partitions(table: &Table<'_>, n: usize, threads: usize, bits: u32) -> Vec<ThreadRecords> {
    let bounds: Vec<usize> = (0..=threads).map(|t| n * t / threads).collect();
    let work = |t: usize| {
        let (first, last) = (bounds[t], bounds[t + 1]);
        let (mut sides, mut grades) = (HandleCursor::new(table.sides), FloatCursor::new(table.grades));
        // Each row's key hash (and so its partition) first, so that every list is allocated at
        // its exact size.
        let keys = table.key_hashes(first, last);
        let mut items = buffers::HASHES.take(last - first);
        items.resize(last - first, 0);
        table.item.each_hash(first, last, |row, hash| items[row - first] = hash);
        let mut starts = vec![0usize; (1 << bits) + 1];
        for key in &keys {
            starts[partition_of(*key, bits) + 1] += 1;
        }
        for p in 0..1 << bits {
            starts[p + 1] += starts[p];
        }
        let mut next = starts.clone();
        let mut records = RECORDS.take(last - first);
        records.resize(last - first, Record::default());
        for ((row, key), item) in (first..last).zip(&keys).zip(&items) {
            let grade = grades.value(row);
            let at = &mut next[partition_of(*key, bits)];
            records[*at] = Record {
                row: row as u32,
                side: sides.get(row) as u16,
                valid: grade.is_some(),
                key: *key,
                item: *item,
                grade: grade.unwrap_or(f64::NAN),
            };
            *at += 1;
        }
        buffers::HASHES.give(keys);
        buffers::HASHES.give(items);
        ThreadRecords { records, starts }
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|t| scope.spawn(move || work(t))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}

/// Label the candidates (`sides` 0 and 1) from the truth rows (`sides` 2 and 3, `grades`).
pub fn label(keys: &[(&Column<'_>, Kind)], item: (&Column<'_>, Kind), sides: &Column<'_>, grades: &Column<'_>, asked: &Asked) -> Labels {
    let since = Instant::now();
    let key_cells: Vec<Cells<'_>> = keys.iter().map(|(column, kind)| Cells::new(column, *kind)).collect();
    let item = Cells::new(item.0, item.1);
    let exact_keys = key_cells.len() == 1 && key_cells[0].exact();
    let exact_items = item.exact();
    let table = Table { keys: key_cells, item, sides, grades, exact_keys, exact_items };
    let n = sides.len();
    let threads = threads().clamp(1, n.max(1));
    let bits = partition_bits(n, threads);
    let lists = partitions(&table, n, threads, bits);
    timing("label: rows read and partitioned", since);
    let since = Instant::now();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let p = next.fetch_add(1, Atomic::Relaxed);
            if p >= 1 << bits {
                return done;
            }
            let mine: Vec<&[Record]> = lists.iter().map(|l| l.of(p)).collect();
            done.push((p, label_partition(&table, asked, &mine)));
        }
    };
    let mut parts: Vec<(usize, PartOut)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    lists.into_iter().for_each(|l| RECORDS.give(l.records));
    parts.sort_unstable_by_key(|(p, _)| *p);
    timing("label: partitions grouped and labelled", since);
    let since = Instant::now();
    let labels = write(&table, asked, &parts);
    for (_, part) in parts {
        RECORDS.give(part.records);
        GRADES.give(part.grades);
    }
    timing("label: groups ordered by key and written", since);
    labels
}

/// Every group's rows in output order: the groups in ascending key order.
fn write(table: &Table<'_>, asked: &Asked, parts: &[(usize, PartOut)]) -> Labels {
    let mut order: Vec<(u32, u32)> = parts
        .iter()
        .enumerate()
        .flat_map(|(p, (_, part))| (0..part.groups.len() as u32).map(move |g| (p as u32, g)))
        .collect();
    let first = |&(p, g): &(u32, u32)| parts[p as usize].1.groups[g as usize].first as usize;
    if table.exact_keys {
        order.sort_unstable_by_key(|at| table.keys[0].handle(first(at)) as i64);
    } else {
        order.sort_unstable_by(|a, b| table.compare_keys(first(a), first(b)));
    }
    let n_rows: usize = parts.iter().map(|(_, part)| part.grades.len()).sum();
    let n_missed: usize = parts.iter().map(|(_, part)| part.missed.len()).sum();
    // The outputs Polars is handed (and the flags read into their validity) in buffers the
    // pools kept from the last call (`buffers`).
    let (floats, integers, flags) = (&buffers::FLOATS, &buffers::INTEGERS, &buffers::FLAGS);
    let mut labels = Labels {
        rows: buffers::ROWS.take_output(n_rows),
        grades: floats.take_output(n_rows),
        graded: flags.take(n_rows),
        n_relevant: integers.take_output(n_rows),
        known: flags.take(n_rows),
        offsets: integers.take_output(n_rows + 1),
        listed: flags.take(n_rows),
        missed: floats.take_output(n_missed),
        missed_graded: flags.take(n_missed),
        ..Labels::default()
    };
    let write = |values: bool| if values { n_rows } else { 0 };
    let keys_written = if asked.write.keys { table.keys.len() } else { 0 };
    labels.keys = (0..keys_written).map(|_| (integers.take_output(n_rows), flags.take(n_rows))).collect();
    labels.items = (integers.take_output(write(asked.write.item)), flags.take(write(asked.write.item)));
    labels.scores = (floats.take_output(write(asked.write.score)), flags.take(write(asked.write.score)));
    labels.offsets.push(0);
    for (p, g) in order {
        let part = &parts[p as usize].1;
        let group = &part.groups[g as usize];
        let range = group.start..group.start + group.len;
        let candidates = &part.records[group.records..group.records + group.len];
        labels.rows.extend(candidates.iter().map(|c| c.row));
        for ((values, valid), cells) in labels.keys.iter_mut().zip(&table.keys) {
            let first = group.first as usize;
            let null = cells.is_null(first);
            values.extend(std::iter::repeat(if null { 0 } else { cells.handle(first) as i64 }).take(group.len));
            valid.extend(std::iter::repeat(!null).take(group.len));
        }
        if asked.write.item {
            for candidate in candidates {
                let item = item_value(table, candidate);
                labels.items.0.push(item.unwrap_or(0));
                labels.items.1.push(item.is_some());
            }
        }
        if asked.write.score {
            labels.scores.0.extend(candidates.iter().map(|c| if c.valid { c.grade } else { 0.0 }));
            labels.scores.1.extend(candidates.iter().map(|c| c.valid));
        }
        labels.grades.extend(part.grades[range.clone()].iter().map(|g| g.unwrap_or(0.0)));
        labels.graded.extend(part.grades[range].iter().map(Option::is_some));
        let n_relevant = group.known.map(|(n, _, _)| n);
        labels.n_relevant.extend(std::iter::repeat(n_relevant.unwrap_or(0)).take(group.len));
        labels.known.extend(std::iter::repeat(n_relevant.is_some()).take(group.len));
        if let Some((_, from, to)) = group.known {
            labels.missed.extend(part.missed[from..to].iter().map(|m| m.unwrap_or(0.0)));
            labels.missed_graded.extend(part.missed[from..to].iter().map(Option::is_some));
        }
        labels.listed.push(group.known.is_some());
        labels.listed.extend(std::iter::repeat(false).take(group.len - 1));
        let end = labels.missed.len() as i64;
        labels.offsets.extend(std::iter::repeat(end).take(group.len));
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{Bitmap, Chunk, Values};
    use crate::testing::column;

    #[test]
    fn labels_rows_in_key_order_from_the_truth() {
        // Candidates: user 2 (items 5, 4), user 1 (1, 2, 1 again), user 3 (7); truth: user 1
        // judges 2 (grade 1) and 9 (2, missed), user 2 judges 6 (3, missed) twice and 5 null.
        let users = [2, 1, 2, 1, 3, 1, 1, 1, 2, 2, 2];
        let items = [5, 1, 4, 2, 7, 1, 2, 9, 6, 6, 5];
        let sides = [0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 3];
        let grades = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.5, 0.0];
        let (u, i) = (column("user", Values::I64(&users)), column("item", Values::I64(&items)));
        let (s, g) = (column("side", Values::I64(&sides)), column("grade", Values::F64(&grades)));
        let asked = Asked { threshold: 1.0, restrict: false, write: Written::default() };
        let labels = label(&[(&u, Kind::Integer)], (&i, Kind::Integer), &s, &g, &asked);
        assert_eq!(labels.rows, vec![1, 3, 5, 0, 2, 4]);
        assert_eq!(labels.graded, vec![false, true, false, false, false, false]);
        assert_eq!(labels.grades[1], 1.0);
        assert_eq!(labels.n_relevant[..5], [2, 2, 2, 1, 1]);
        assert_eq!(labels.known, vec![true, true, true, true, true, false]);
        assert_eq!(labels.listed, vec![true, false, false, true, false, false]);
        assert_eq!(labels.offsets, vec![0, 1, 1, 1, 2, 2, 2]);
        assert_eq!(labels.missed, vec![2.0, 3.0]);
        // Restricted to the candidates' items: user 1 keeps item 2 only, user 2 item 5 (null).
        let restricted = label(&[(&u, Kind::Integer)], (&i, Kind::Integer), &s, &g, &Asked { restrict: true, ..asked });
        assert_eq!(restricted.n_relevant[..5], [1, 1, 1, 0, 0]);
        assert_eq!(restricted.offsets, vec![0; 7]);
        assert_eq!(restricted.listed[..4], [true, false, false, true]);
    }

    #[test]
    fn a_null_key_is_a_group_of_its_own_and_comes_last() {
        let keys = [7i64, 0, -3, 7];
        let valid = [0b0000_1101u8]; // row 1 is null
        let chunk = Chunk { len: 4, values: Values::I64(&keys), validity: Some(Bitmap::new(&valid, 0)) };
        let k = Column { name: "k".to_string(), chunks: vec![chunk] };
        let items = [1i64, 1, 1, 2];
        let i = column("item", Values::I64(&items));
        let s = column("side", Values::I64(&[0, 0, 0, 0]));
        let g = column("grade", Values::F64(&[0.0; 4]));
        let labels = label(&[(&k, Kind::Integer)], (&i, Kind::Integer), &s, &g, &Asked { threshold: 1.0, restrict: false, write: Written::default() });
        assert_eq!(labels.rows, vec![2, 0, 3, 1]);
        assert_eq!(labels.known, vec![false; 4]);
    }

    #[test]
    fn rows_of_several_chunks_are_read_where_they_lie() {
        let (first, second) = ([3i64, 1], [3i64, 2, 1]);
        let k = crate::testing::chunked("k", vec![Values::I64(&first), Values::I64(&second)]);
        let i = column("item", Values::I64(&[1, 1, 2, 1, 1]));
        let s = column("side", Values::I64(&[0, 0, 0, 0, 2]));
        let g = column("grade", Values::F64(&[0.0, 0.0, 0.0, 0.0, 1.0]));
        let labels = label(&[(&k, Kind::Integer)], (&i, Kind::Integer), &s, &g, &Asked { threshold: 1.0, restrict: false, write: Written::default() });
        assert_eq!(labels.rows, vec![1, 3, 0, 2]);
        assert_eq!(labels.graded, vec![true, false, false, false]);
    }

    #[test]
    fn keys_items_and_scores_are_written_in_output_order() {
        // Candidates: user 2 (items 5, -4), user 1 (1, 2); the last row's score is null; a
        // truth row of user 1.
        let users = [2, 1, 2, 1, 1];
        let items = [5, 1, -4, 2, 2];
        let scores = [0.5, f64::NAN, 0.25, 0.0, 3.0];
        let valid = [0b0001_0111u8]; // row 3's score is null
        let (u, i) = (column("user", Values::I64(&users)), column("item", Values::I64(&items)));
        let s = column("side", Values::I64(&[0, 0, 0, 0, 2]));
        let chunk = Chunk { len: 5, values: Values::F64(&scores), validity: Some(Bitmap::new(&valid, 0)) };
        let g = Column { name: "grade".to_string(), chunks: vec![chunk] };
        let write = Written { keys: true, item: true, score: true };
        let labels = label(&[(&u, Kind::Integer)], (&i, Kind::Integer), &s, &g, &Asked { threshold: 1.0, restrict: false, write });
        assert_eq!(labels.rows, vec![1, 3, 0, 2]);
        assert_eq!(labels.keys, vec![(vec![1, 1, 2, 2], vec![true; 4])]);
        assert_eq!(labels.items, (vec![1, 2, 5, -4], vec![true; 4]));
        assert!(labels.scores.0[0].is_nan());
        assert_eq!(labels.scores.0[1..], [0.0, 0.5, 0.25]);
        assert_eq!(labels.scores.1, vec![true, false, true, true]);
        assert_eq!(labels.graded, vec![false, true, false, false]);
    }

    #[test]
    fn an_integer_is_read_back_from_its_hash() {
        for value in [0i64, 1, -1, 42, i64::MIN, i64::MAX, 0x1234_5678_9abc_def0] {
            assert_eq!(unmix(mix(value as u64)) as i64, value);
        }
    }

    #[test]
    fn grades_follow_polars_max_and_descending_sort() {
        assert_eq!(highest([None, Some(1.0), Some(f64::NAN)].into_iter()), Some(1.0));
        assert!(highest([None, Some(f64::NAN)].into_iter()).is_some_and(f64::is_nan));
        assert_eq!(highest([None, None].into_iter()), None);
        let mut values = [Some(1.0), None, Some(3.0), Some(f64::NAN)];
        values.sort_by(descending);
        assert_eq!(values[0], None);
        assert!(values[1].is_some_and(f64::is_nan));
        assert_eq!(values[2..], [Some(3.0), Some(1.0)]);
    }
}
