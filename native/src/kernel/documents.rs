//! MaxP by a delimiter (`to_documents(run, document="#")`): each group's passages read where
//! they lie, each passage's document its id up to the delimiter (hashed in place, never
//! copied), each document's best passage score standing for it; each group's documents then
//! ranked by score and the tie order, and cut at the depth. The run's values are checked in
//! the same scan (a null key or id, an id starting with the delimiter, an invalid score).
//!
//! Rows that come grouped (one run of rows per group, as a retriever writes a run) are read
//! run by run on every thread: no candidate record is gathered. Rows in any other order with
//! one key column are read once in input order into compact records partitioned by the key
//! (`scattered_passages`); otherwise they are grouped first (`group_ids`), then checked in a
//! scan of their own. Groups come out in the order of their keys (as the reference path sorts
//! them).

use std::cmp::Ordering;
use std::ops::Range;
use std::time::Instant;

use crate::columns::{Column, FloatCursor, HandleCursor};
use crate::config::Config;
use crate::policy::{Invalid, Ties};

use super::context::{count, threads, timing, Inputs};
use super::document_ids::{self, Id};
use super::group_ids::grouped;
use super::hashing::KeyColumns;
use super::passage_groups::{on_threads, runs, shares, sorted_groups};
use super::rank::{score_order, Candidate, Items};
use super::scattered_passages::scattered;

/// What the call asks beyond the ranking's configuration.
#[derive(Clone, Copy)]
pub struct Asked {
    /// The best `depth` documents of each group are kept.
    pub depth: usize,
    /// The values are checked (`Refused` lists what fails).
    pub check_values: bool,
}

/// How many rows fail one check, and the first of them.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Tally {
    pub count: usize,
    pub first: usize,
}

impl Tally {
    #[inline]
    fn add(&mut self, row: usize) {
        if self.count == 0 || row < self.first {
            self.first = row;
        }
        self.count += 1;
    }

    fn merge(&mut self, other: Tally) {
        if other.count > 0 && (self.count == 0 || other.first < self.first) {
            self.first = other.first;
        }
        self.count += other.count;
    }
}

/// The rows each value check refuses, in the order the checks are worded.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Refused {
    /// A null in key column j.
    pub null_keys: Vec<Tally>,
    pub null_items: Tally,
    /// An id starting with the delimiter (its document id would be empty).
    pub empty_documents: Tally,
    /// A null, NaN or infinite score under `invalid_scores="error"`.
    pub invalid_scores: Tally,
}

impl Refused {
    pub(super) fn merge(&mut self, other: &Refused) {
        self.null_keys.resize(other.null_keys.len().max(self.null_keys.len()), Tally::default());
        for (mine, theirs) in self.null_keys.iter_mut().zip(&other.null_keys) {
            mine.merge(*theirs);
        }
        self.null_items.merge(other.null_items);
        self.empty_documents.merge(other.empty_documents);
        self.invalid_scores.merge(other.invalid_scores);
    }

    /// Whether any row is refused.
    pub fn any(&self) -> bool {
        self.null_keys.iter().chain([&self.null_items, &self.empty_documents, &self.invalid_scores]).any(|t| t.count > 0)
    }
}

/// The documents of every group, as each thread ranked its share of the groups.
pub struct Documents {
    /// The groups in output order: `keys[j][g]` the handle of key column j.
    pub keys: Vec<Vec<u64>>,
    /// Each thread's share: its groups (a range of the output order) and their documents.
    pub parts: Vec<Part>,
}

/// One thread's documents, group after group (in output order).
#[derive(Default)]
pub struct Part {
    pub groups: Range<usize>,
    /// Each group's number of documents.
    pub sizes: Vec<usize>,
    /// Each document's best passage (its handle) and the length of its document id (the
    /// passage id's first bytes).
    pub items: Vec<u64>,
    pub lengths: Vec<u32>,
    pub scores: Vec<f64>,
    /// The bytes of its documents' ids, all told.
    pub bytes: usize,
    refused: Refused,
}

impl Part {
    /// A part for `groups` of `rows` rows in all: room for a document per row, reserved (not
    /// touched: the memory a part does not fill is never used) so that it never grows by copy.
    pub(super) fn reserved(groups: Range<usize>, rows: usize) -> Part {
        let sizes = Vec::with_capacity(groups.len());
        let (items, lengths, scores) = (Vec::with_capacity(rows), Vec::with_capacity(rows), Vec::with_capacity(rows));
        Part { groups, sizes, items, lengths, scores, bytes: 0, refused: Refused::default() }
    }
}

/// A document of the group being read: its id (as read), its best passage so far.
#[derive(Clone, Copy)]
struct Document {
    id: Id,
    item: u64,
    score: f64,
}

/// One thread's scratch: the group's documents and the open-addressing table over their ids.
#[derive(Default)]
pub(super) struct Scratch {
    /// slot -> document index + 1 (0: empty).
    table: Vec<u32>,
    documents: Vec<Document>,
    order: Vec<u128>,
}

/// The reading of one call: the item column, the delimiter and the policy.
pub(super) struct Reading<'a> {
    pub items: Items<'a>,
    ties: Ties,
    invalid: Invalid,
    pub asked: Asked,
}

impl Reading<'_> {
    /// The score the ranking reads (None: the row is dropped); -0.0 folded into 0.0 (as the
    /// reference does), an invalid score the lowest unless dropped.
    #[inline]
    pub(super) fn score(&self, score: f64) -> Option<f64> {
        let score = score + 0.0;
        if score.is_finite() {
            Some(score)
        } else if self.invalid == Invalid::Drop {
            None
        } else {
            Some(f64::NEG_INFINITY)
        }
    }
}

impl Scratch {
    pub(super) fn begin(&mut self, rows: usize) {
        let size = (rows * 2).next_power_of_two().max(16);
        self.table.clear();
        self.table.resize(size, 0);
        self.documents.clear();
        // Room for a document per row, reserved (not touched): the list never grows by copy.
        self.documents.reserve(rows);
    }

    /// A passage of the group (`item`): its document's id (its first bytes, as read), its
    /// score.
    #[inline]
    pub(super) fn add(&mut self, items: &Items<'_>, item: u64, id: &Id, score: f64) {
        let mask = self.table.len() - 1;
        let mut slot = (id.hash as usize) & mask;
        loop {
            let at = self.table[slot] as usize;
            if at == 0 {
                self.table[slot] = (self.documents.len() + 1) as u32;
                self.documents.push(Document { id: *id, item, score });
                return;
            }
            let document = &mut self.documents[at - 1];
            if same_id(items, document, item, id) {
                // MaxP: the best passage's score; on a tie the first passage stays.
                if score.total_cmp(&document.score) == Ordering::Greater {
                    document.score = score;
                    document.item = item;
                }
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The group's documents ranked (score, then the tie order) and cut at the depth, into
    /// `part`.
    pub(super) fn rank_into(&mut self, reading: &Reading<'_>, part: &mut Part) {
        let documents = &self.documents;
        self.order.clear();
        self.order.extend(documents.iter().enumerate().map(|(i, d)| (u128::from(!score_order(d.score)) << 64) | i as u128));
        self.order.sort_unstable();
        let items = &reading.items;
        let by_id = |a: &u128, b: &u128| {
            let (a, b) = (&documents[(*a as u64) as usize], &documents[(*b as u64) as usize]);
            match reading.ties {
                // trec_eval: docno descending.
                Ties::TrecEval => document_id(items, b).cmp(document_id(items, a)),
                _ => document_id(items, a).cmp(document_id(items, b)),
            }
        };
        let kept = self.order.len().min(reading.asked.depth);
        let mut start = 0usize;
        while start < kept {
            let score = self.order[start] >> 64;
            let mut end = start + 1;
            while end < self.order.len() && self.order[end] >> 64 == score {
                end += 1;
            }
            if end - start > 1 {
                self.order[start..end].sort_unstable_by(by_id);
            }
            start = end;
        }
        part.sizes.push(kept);
        for key in &self.order[..kept] {
            let document = &documents[(*key as u64) as usize];
            part.items.push(document.item);
            part.lengths.push(document.id.length as u32);
            part.scores.push(document.score);
            part.bytes += document.id.length;
        }
    }
}

/// The document id of `document`: its passage's first bytes.
#[inline]
fn document_id<'t>(items: &'t Items<'_>, document: &Document) -> &'t [u8] {
    &items.column.text_of(document.item)[..document.id.length]
}

/// Whether `document`'s id is `id` (read from passage `item`): by their words where they hold
/// it, by the bytes of both passages otherwise.
#[inline]
fn same_id(items: &Items<'_>, document: &Document, item: u64, id: &Id) -> bool {
    let (mine, theirs) = (&document.id, id);
    mine.hash == theirs.hash
        && mine.length == theirs.length
        && mine.head == theirs.head
        && (theirs.in_head() || document_id(items, document) == &items.column.text_of(item)[..theirs.length])
}

/// The rows of `column` that are null.
fn nulls(column: &Column<'_>) -> Tally {
    let mut tally = Tally::default();
    let mut start = 0usize;
    for chunk in &column.chunks {
        if chunk.validity.is_some() {
            (0..chunk.len).filter(|i| !chunk.is_valid(*i)).for_each(|i| tally.add(start + i));
        }
        start += chunk.len;
    }
    tally
}

/// One row's values checked: its id's first bytes (`starts`: the delimiter starts it) and
/// its score as read.
#[inline]
pub(super) fn check_row(refused: &mut Refused, reading: &Reading<'_>, row: usize, starts: bool, score: f64) {
    if starts {
        refused.empty_documents.add(row);
    }
    if reading.invalid == Invalid::Error && !score.is_finite() {
        refused.invalid_scores.add(row);
    }
}

/// MaxP of every group: the documents of each, in rank order, groups in key order; or the
/// rows the value checks refuse.
pub fn documents(config: &Config, inputs: &Inputs<'_>, asked: Asked) -> Result<Documents, Refused> {
    let started = Instant::now();
    let keys = KeyColumns { columns: &inputs.keys, kinds: &config.key_kinds };
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let reading = Reading { items, ties: config.policy.ties, invalid: config.policy.invalid_scores, asked };
    let mut refused = Refused::default();
    if asked.check_values {
        refused.null_keys = inputs.keys.iter().map(|c| nulls(c)).collect();
        refused.null_items = nulls(inputs.item);
    }
    let found = match runs(&keys) {
        Some(found) => in_runs(&keys, inputs, &reading, found),
        None => None,
    };
    let (documents, scanned) = match found {
        Some(found) => found,
        None => scattered(&keys, inputs, &reading).unwrap_or_else(|| hashed(config, &keys, inputs, &reading)),
    };
    refused.merge(&scanned);
    timing("documents ranked", started);
    if refused.any() {
        return Err(refused);
    }
    Ok(documents)
}

/// `documents` of rows in runs: each run read where it lies.
fn in_runs(keys: &KeyColumns<'_>, inputs: &Inputs<'_>, reading: &Reading<'_>, found: Vec<Range<usize>>) -> Option<(Documents, Refused)> {
    let n_keys = keys.kinds.len();
    let mut cursors: Vec<HandleCursor<'_>> = keys.columns.iter().map(|c| HandleCursor::new(c)).collect();
    let mut handles = Vec::with_capacity(found.len() * n_keys);
    for run in &found {
        handles.extend(cursors.iter_mut().map(|c| c.get(run.start)));
    }
    let order = sorted_groups(keys, &handles)?;
    count("rows taken as grouped", format!("{} in {} groups", inputs.score.len(), found.len()));
    let runs: Vec<Range<usize>> = order.iter().map(|g| found[*g].clone()).collect();
    let rows: Vec<usize> = runs.iter().map(|r| r.len()).collect();
    let parts = on_threads(shares(&rows, threads()), |share| {
        let mut part = Part::reserved(share.clone(), rows[share.clone()].iter().sum());
        let mut scratch = Scratch::default();
        let (mut item, mut score) = (HandleCursor::new(inputs.item), FloatCursor::new(inputs.score));
        for run in &runs[share] {
            scratch.begin(run.len());
            for row in run.clone() {
                let handle = item.get(row);
                let text = reading.items.column.text_of(handle);
                let id = document_ids::read(text, reading.items.cut);
                let value = score.get(row);
                if reading.asked.check_values {
                    check_row(&mut part.refused, reading, row, id.starts, value);
                }
                if let Some(value) = reading.score(value) {
                    scratch.add(&reading.items, handle, &id, value);
                }
            }
            scratch.rank_into(reading, &mut part);
        }
        part
    });
    Some(finish(keys, order.iter().map(|g| &handles[g * n_keys..(g + 1) * n_keys]), parts))
}

/// `documents` of rows in any order: grouped by the keys' hash and gathered first, their
/// values checked in a scan of their own.
fn hashed(config: &Config, keys: &KeyColumns<'_>, inputs: &Inputs<'_>, reading: &Reading<'_>) -> (Documents, Refused) {
    let n = inputs.score.len();
    let scanned = if reading.asked.check_values {
        let threads = threads().clamp(1, n.max(1));
        let bounds = (0..threads).map(|t| n * t / threads..n * (t + 1) / threads).collect();
        let found = on_threads(bounds, |rows| {
            let mut refused = Refused::default();
            let (mut item, mut score) = (HandleCursor::new(inputs.item), FloatCursor::new(inputs.score));
            for row in rows {
                let id = document_ids::read(inputs.item.text_of(item.get(row)), reading.items.cut);
                check_row(&mut refused, reading, row, id.starts, score.get(row));
            }
            refused
        });
        found.iter().fold(Refused::default(), |mut all, one| {
            all.merge(one);
            all
        })
    } else {
        Refused::default()
    };
    // The grouping reads invalid scores as the ranking does (lowest unless dropped).
    let mut ranking = config.clone();
    if ranking.policy.invalid_scores == Invalid::Error {
        ranking.policy.invalid_scores = Invalid::Lowest;
    }
    let mut grouped = grouped(&ranking, inputs);
    let n_keys = keys.kinds.len();
    let handles: Vec<u64> = (0..grouped.starts.len()).flat_map(|g| grouped.keys.iter().map(move |k| k[g])).collect();
    let order = sorted_groups(keys, &handles).unwrap_or_else(|| (0..grouped.starts.len()).collect());
    let slices = grouped.slices();
    let groups: Vec<&[Candidate]> = order.iter().map(|g| &*slices[*g]).collect();
    let rows: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let parts = on_threads(shares(&rows, threads()), |share| {
        let mut part = Part::reserved(share.clone(), rows[share.clone()].iter().sum());
        let mut scratch = Scratch::default();
        for group in &groups[share] {
            scratch.begin(group.len());
            for candidate in group.iter() {
                let text = reading.items.column.text_of(candidate.item);
                let id = document_ids::read(text, reading.items.cut);
                scratch.add(&reading.items, candidate.item, &id, candidate.score);
            }
            scratch.rank_into(reading, &mut part);
        }
        part
    });
    let (documents, _) = finish(keys, order.iter().map(|g| &handles[g * n_keys..(g + 1) * n_keys]), parts);
    (documents, scanned)
}

/// The documents and the refused rows of the threads' parts, the groups' keys in output order.
fn finish<'h>(keys: &KeyColumns<'_>, ordered: impl Iterator<Item = &'h [u64]>, mut parts: Vec<Part>) -> (Documents, Refused) {
    let mut group_keys = vec![Vec::new(); keys.kinds.len()];
    for handles in ordered {
        for (column, handle) in group_keys.iter_mut().zip(handles) {
            column.push(*handle);
        }
    }
    let mut refused = Refused::default();
    for part in &mut parts {
        refused.merge(&std::mem::take(&mut part.refused));
    }
    (Documents { keys: group_keys, parts }, refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{Chunk, Values};
    use crate::config::{from_call, Call, Kind};
    use crate::policy::Policy;
    use crate::testing::{chunked, column};

    /// (key, passage id, score) rows.
    type Row = (i64, &'static str, f64);

    fn text_chunk(ids: &[Row]) -> (Vec<i64>, Vec<u8>) {
        let mut offsets = vec![0i64];
        let mut bytes = Vec::new();
        for (_, id, _) in ids {
            bytes.extend_from_slice(id.as_bytes());
            offsets.push(bytes.len() as i64);
        }
        (offsets, bytes)
    }

    /// MaxP of `rows` (the item column in two chunks, cut at `split`): each document as
    /// (key, id, score), in output order.
    fn collapsed(rows: &[Row], split: usize, policy: Policy) -> Result<Vec<(i64, String, f64)>, Refused> {
        let keys: Vec<i64> = rows.iter().map(|r| r.0).collect();
        let scores: Vec<f64> = rows.iter().map(|r| r.2).collect();
        let (first, second) = (text_chunk(&rows[..split]), text_chunk(&rows[split..]));
        let item = chunked(
            "item",
            vec![
                Values::LargeText { offsets: &first.0, data: &first.1 },
                Values::LargeText { offsets: &second.0, data: &second.1 },
            ],
        );
        let (key, score) = (column("q", Values::I64(&keys)), column("score", Values::F64(&scores)));
        let call = Call { keys: vec![Kind::Integer], item: Kind::Text, item_prefix: "#".to_string(), ..Call::default() };
        let config = from_call(&call, policy).unwrap();
        let inputs = Inputs::new(vec![&key], &item, &score, &score);
        let found = documents(&config, &inputs, Asked { depth: usize::MAX, check_values: true })?;
        let mut out = Vec::new();
        let mut groups = found.keys[0].iter();
        for part in &found.parts {
            let mut at = 0usize;
            for size in &part.sizes {
                let key = *groups.next().unwrap() as i64;
                for i in at..at + size {
                    let text = &item.text_of(part.items[i])[..part.lengths[i] as usize];
                    out.push((key, String::from_utf8(text.to_vec()).unwrap(), part.scores[i]));
                }
                at += size;
            }
        }
        Ok(out)
    }

    const RUN: [Row; 7] =
        [(2, "b#1", 0.5), (2, "a#0", 0.5), (2, "b#0", 0.9), (1, "c", 0.1), (1, "c#2", 0.3), (1, "dd#0", 0.3), (3, "e#0", -0.0)];

    #[test]
    fn groups_in_key_order_documents_by_best_passage_then_docno_descending() {
        let expected = vec![
            (1, "dd".to_string(), 0.3),
            (1, "c".to_string(), 0.3),
            (2, "b".to_string(), 0.9),
            (2, "a".to_string(), 0.5),
            (3, "e".to_string(), 0.0),
        ];
        for split in [0, 3, 7] {
            assert_eq!(collapsed(&RUN, split, Policy::default()).unwrap(), expected);
        }
        // Rows in another order (a group's rows cut by another's) are grouped first.
        let mut shuffled = RUN;
        shuffled.swap(0, 4);
        assert_eq!(collapsed(&shuffled, 2, Policy::default()).unwrap(), expected);
    }

    #[test]
    fn refused_rows_are_counted_with_the_first_of_them() {
        let mut run = RUN;
        run[5] = (1, "#0", f64::NAN);
        run[1] = (2, "#1", 0.5);
        let refused = collapsed(&run, 3, Policy::default()).unwrap_err();
        assert_eq!(refused.empty_documents, Tally { count: 2, first: 1 });
        assert_eq!(refused.invalid_scores, Tally { count: 1, first: 5 });
        let dropped = Policy { invalid_scores: Invalid::Drop, ..Policy::default() };
        assert_eq!(collapsed(&run, 3, dropped).unwrap_err().invalid_scores, Tally::default());
    }

    #[test]
    fn nulls_are_found_by_their_validity() {
        let bits = [0b1111_1011u8];
        let values = [1i64, 2, 3, 4, 5, 6, 7];
        let column = Column {
            name: "q".to_string(),
            chunks: vec![Chunk { len: 7, values: Values::I64(&values), validity: Some(crate::columns::Bitmap::new(&bits, 0)) }],
        };
        assert_eq!(nulls(&column), Tally { count: 1, first: 2 });
    }
}
