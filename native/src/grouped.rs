//! The rows of many groups in one call, as ``implode()`` hands them over inside
//! ``group_by().agg()`` or ``.over()`` (`grouped_metric_sums`): each input a list per group,
//! its values the group's rows; the groups split across the threads, each group one group's
//! rows (`group`), and each group's sums handed back as one row.
//!
//! The metric expressions of one ``agg()`` are evaluated by Polars one by one, each gathering
//! the same rows by group and calling the kernel with the same configuration (the statistics
//! of the common metrics; each expression keeps the ones its formula reads: `returned`). The
//! last call's rows and sums are kept: a call whose configuration and rows are exactly those
//! (every value compared, bit for bit) reads the sums instead of ranking the groups again.
//! Only integer item ids are compared (a string column's handles are positions, not text), and
//! only calls of up to `KEEP_AT_MOST` rows are kept.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::columns::{Bitmap, Column, Values};
use crate::config::Config;
use crate::group::{check_scores, is_null, rows_sums, GroupInputs, GroupRows};
use crate::kernel::{count, threads, timing, Items, RankScratch, Reader};

/// The inputs of one call: where each group's rows start (the number of rows last), then
/// the rows' columns, one group after another; the missed items' grades and the declared R_g
/// (`extra`, `n_relevant`) one row per group.
pub struct GroupedInputs<'a> {
    pub bounds: Vec<usize>,
    pub group: GroupInputs<'a>,
}

fn same_floats(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// What a call's groups are, read without copying its rows: where each group starts (the
/// number of rows last; a group may have none), each group's missed items' grades, one group
/// after another, with each group's span of them (None: the group's list is null), and each
/// group's declared R_g (NaN: none).
struct Shape {
    bounds: Vec<usize>,
    extra: Option<(Vec<f64>, Vec<Option<(usize, usize)>>)>,
    declared: Option<Vec<f64>>,
}

impl Shape {
    fn read(inputs: &GroupedInputs<'_>) -> Shape {
        let group = &inputs.group;
        let bounds = inputs.bounds.clone();
        // The missed items' grades and the declared R_g come one row per group.
        let n_groups = bounds.len() - 1;
        let declared = group.n_relevant.map(|column| column.floats().take(n_groups).collect());
        let one_row_each: Vec<usize> = (0..=n_groups).collect();
        let extra = group.extra.map(|column| column.first_float_lists(&one_row_each));
        Shape { bounds, extra, declared }
    }

    /// The same groups, value for value (NaN and null as the same bits).
    fn same(&self, other: &Shape) -> bool {
        self.bounds == other.bounds
            && match (&self.extra, &other.extra) {
                (Some((a, sa)), Some((b, sb))) => sa == sb && same_floats(a, b),
                (None, None) => true,
                _ => false,
            }
            && match (&self.declared, &other.declared) {
                (Some(a), Some(b)) => same_floats(a, b),
                (None, None) => true,
                _ => false,
            }
    }

    /// Group `g`'s missed items' grades (None: no list given; Some(None): every list null).
    fn extra(&self, g: usize) -> Option<Option<&[f64]>> {
        self.extra.as_ref().map(|(values, spans)| spans[g].map(|(a, b)| &values[a..b]))
    }

    fn declared(&self, g: usize) -> Option<f64> {
        self.declared.as_ref().map(|d| d[g])
    }
}

/// The rows of every group, read out of their columns: what a group's sums depend on beyond
/// its `Shape`. Each value is kept as `Column::floats_vec` reads it (null as NaN), a score
/// with -0.0 as 0.0 (`score_of`): `holds` compares a later call's columns to them in place.
struct Rows {
    scores: Vec<f64>,
    given: Vec<f64>,
    handles: Vec<u64>,
}

/// A score as the kernel ranks it: -0.0 ranks as 0.0.
#[inline]
fn score_of(value: f64) -> f64 {
    value + 0.0
}

#[inline]
fn grade_of(value: f64) -> f64 {
    value
}

impl Rows {
    fn read(inputs: &GroupedInputs<'_>) -> Rows {
        let group = &inputs.group;
        let n = group.score.len();
        let mut scores = group.score.floats_vec();
        for score in &mut scores {
            *score = score_of(*score);
        }
        let handles = match group.item {
            Some(column) if column.is_integer() => column.integers_vec().into_iter().map(|v| v as u64).collect(),
            Some(column) => column.handles().collect(),
            None => (0..n as u64).collect(),
        };
        Rows { scores, given: group.grade.floats_vec(), handles }
    }

    /// Whether the call's columns hold these rows, value for value (NaN and null as the same
    /// bits), read where they lie: what `read` would make of them is `self`, bit for bit.
    fn holds(&self, inputs: &GroupedInputs<'_>) -> bool {
        let group = &inputs.group;
        let handles = match group.item {
            Some(column) if column.is_integer() => integers_are(column, &self.handles),
            Some(_) => false,
            None => self.handles.iter().enumerate().all(|(i, h)| *h == i as u64),
        };
        handles && floats_are(group.score, &self.scores, score_of) && floats_are(group.grade, &self.given, grade_of)
    }
}

/// Whether every pair of `values` and `kept` is `same`: a block at a time, without a branch
/// per value (the comparison vectorizes; a difference stops at its block's end).
#[inline(always)]
fn all_pairs<T: Copy, K: Copy>(values: &[T], kept: &[K], same: impl Fn(usize, T, K) -> bool) -> bool {
    const BLOCK: usize = 512;
    values.len() == kept.len()
        && (0..values.len()).step_by(BLOCK).all(|start| {
            let end = (start + BLOCK).min(values.len());
            (start..end).fold(true, |all, i| all & same(i, values[i], kept[i]))
        })
}

/// Whether every pair of `values` and `kept` is `same`, given each value's validity bit (1:
/// valid): 64 rows a time, their validity read as one word, so that the nulls (which fall
/// anywhere) cost no mispredicted branch.
#[inline(always)]
fn valid_pairs<T: Copy, K: Copy>(values: &[T], kept: &[K], bits: Bitmap<'_>, same: impl Fn(T, u64, K) -> bool) -> bool {
    const BLOCK: usize = 64;
    values.len() == kept.len()
        && values.chunks(BLOCK).zip(kept.chunks(BLOCK)).enumerate().all(|(block, (values, kept))| {
            let word = bits.word(block * BLOCK);
            values.iter().zip(kept).enumerate().fold(true, |all, (j, (v, k))| all & same(*v, (word >> j) & 1, *k))
        })
}

/// Whether `column`'s values, read as `Column::floats_vec` reads them and passed through
/// `read`, are `kept`, bit for bit.
fn floats_are(column: &Column<'_>, kept: &[f64], read: impl Fn(f64) -> f64) -> bool {
    if column.len() != kept.len() {
        return false;
    }
    let same = |value: f64, kept: f64| read(value).to_bits() == kept.to_bits();
    let mut at = 0;
    column.chunks.iter().all(|chunk| {
        let kept = &kept[at..at + chunk.len];
        at += chunk.len;
        match (&chunk.values, chunk.validity) {
            (Values::F64(values), None) => all_pairs(&values[..chunk.len], kept, |_, v, k| same(v, k)),
            (Values::F64(values), Some(bits)) => valid_pairs(&values[..chunk.len], kept, bits, |v, valid, k| {
                // A null reads as NaN: its value's bits chosen by mask, without a branch.
                let mask = 0u64.wrapping_sub(valid);
                same(f64::from_bits((v.to_bits() & mask) | (f64::NAN.to_bits() & !mask)), k)
            }),
            _ => kept.iter().all(|k| same(f64::NAN, *k)),
        }
    })
}

/// Whether an integer `column`'s values, read as `Column::integers_vec` reads them, are
/// `kept`.
fn integers_are(column: &Column<'_>, kept: &[u64]) -> bool {
    fn are<T: Copy + Into<i64>>(values: &[T], validity: Option<Bitmap<'_>>, kept: &[u64]) -> bool {
        match validity {
            None => all_pairs(values, kept, |_, v, k| v.into() as u64 == k),
            Some(bits) => valid_pairs(values, kept, bits, |v, valid, k| {
                // A null reads as i64::MIN, chosen by mask without a branch.
                let mask = 0u64.wrapping_sub(valid);
                ((v.into() as u64) & mask) | ((i64::MIN as u64) & !mask) == k
            }),
        }
    }
    if column.len() != kept.len() {
        return false;
    }
    let mut at = 0;
    column.chunks.iter().all(|chunk| {
        let (n, validity) = (chunk.len, chunk.validity);
        let kept = &kept[at..at + n];
        at += n;
        match chunk.values {
            Values::I64(v) => are(&v[..n], validity, kept),
            Values::I32(v) => are(&v[..n], validity, kept),
            Values::U32(v) => are(&v[..n], validity, kept),
            Values::I16(v) => are(&v[..n], validity, kept),
            Values::U16(v) => are(&v[..n], validity, kept),
            Values::I8(v) => are(&v[..n], validity, kept),
            Values::U8(v) => are(&v[..n], validity, kept),
            _ => kept.iter().all(|k| *k == 0),
        }
    })
}

/// Every group's outputs (`n_groups * outputs`, in the configured order) and whether the
/// truth knows it (0: every row's `unretrieved` list, or every declared R_g, is null).
struct Sums {
    values: Vec<f64>,
    known: Vec<f64>,
}

/// The last call's configuration (its `Debug` text, `returned` left out), groups, rows and
/// sums.
struct Kept {
    config: String,
    shape: Shape,
    rows: Rows,
    sums: Arc<Sums>,
}

/// The most rows a kept call holds (about 100 MB of them): a larger call is not kept, so that
/// the memory stays bounded after the query.
const KEEP_AT_MOST: usize = 4_000_000;

/// The last call kept; held while a call computes, so that the calls of one ``agg()`` that
/// Polars runs side by side wait for the first instead of ranking the same groups again.
static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

/// The call's outputs: those `returned` names (all, when it names none), one value per group,
/// and whether the truth knows each group (0 also for a group without rows, which has no
/// value). The first error, in row order, is the call's.
pub fn grouped_sums(
    config: &Config,
    score_name: &str,
    inputs: &GroupedInputs<'_>,
) -> Result<(Vec<(String, Vec<f64>)>, Vec<f64>), String> {
    let since = Instant::now();
    let shape = Shape::read(inputs);
    let n_groups = shape.bounds.len() - 1;
    let key = {
        let mut keyed = config.clone();
        keyed.returned.clear();
        format!("{keyed:?}")
    };
    let sums = if inputs.group.item.map_or(true, Column::is_integer) && inputs.group.score.len() <= KEEP_AT_MOST {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match kept.as_ref() {
            // The rows are compared where they lie, not read again: a call that reads the
            // kept sums copies nothing.
            Some(last) if last.config == key && last.shape.same(&shape) && timed("grouped: rows compared", || last.rows.holds(inputs)) => {
                count("groups read from the last call's sums", n_groups);
                Arc::clone(&last.sums)
            }
            _ => {
                let rows = Rows::read(inputs);
                let sums = Arc::new(compute(config, score_name, inputs, &shape, &rows)?);
                *kept = Some(Kept { config: key, shape, rows, sums: Arc::clone(&sums) });
                sums
            }
        }
    } else {
        // Not kept: nor is an earlier call's rows, which this one would not read.
        *KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        Arc::new(compute(config, score_name, inputs, &shape, &Rows::read(inputs))?)
    };
    timing("grouped: groups read, rows compared or ranked", since);
    let n_outputs = config.outputs.len();
    let outputs = config
        .outputs
        .iter()
        .enumerate()
        .filter(|(_, (name, _))| config.returned.is_empty() || config.returned.contains(name))
        .map(|(j, (name, _))| (name.clone(), (0..n_groups).map(|g| sums.values[g * n_outputs + j]).collect()))
        .collect();
    Ok((outputs, sums.known.clone()))
}

/// `run`'s answer, its time on stderr when timing is on.
fn timed<T>(label: &str, run: impl FnOnce() -> T) -> T {
    let since = Instant::now();
    let answer = run();
    timing(label, since);
    answer
}

/// Each group ranked and read (`rows_sums`), the groups split across the threads.
fn compute(
    config: &Config,
    score_name: &str,
    inputs: &GroupedInputs<'_>,
    shape: &Shape,
    rows: &Rows,
) -> Result<Sums, String> {
    let group = &inputs.group;
    let bounds = &shape.bounds;
    let n_groups = bounds.len() - 1;
    let n_outputs = config.outputs.len();
    let items = Items { column: group.item.unwrap_or(group.score), kind: group.item_kind, cut: &[] };
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let mut known = vec![1.0f64; n_groups];
    let one = |g: usize, out: &mut [f64], scratch: &mut RankScratch, reader: &Reader<'_>| -> Result<f64, String> {
        let (start, end) = (bounds[g], bounds[g + 1]);
        // The group's missed items: its first non-null list (None: every list is null).
        let extra = shape.extra(g);
        let declared = shape.declared(g);
        let is_known = start < end
            && match (extra, declared) {
                (Some(list), _) => list.is_some(),
                (None, Some(value)) => !value.is_nan(),
                (None, None) => true,
            };
        let group_rows = GroupRows {
            scores: &rows.scores[start..end],
            given: &rows.given[start..end],
            handles: &rows.handles[start..end],
            has_item: group.item.is_some(),
            extra: extra.map(|list| list.unwrap_or(&[])),
            declared,
        };
        check_scores(config, score_name, &group_rows, group.item, |at| is_null(group.score, start + at))?;
        out.copy_from_slice(&rows_sums(config, &items, &group_rows, reader, scratch));
        Ok(if is_known { 1.0 } else { 0.0 })
    };
    count("groups ranked", n_groups);
    let per_thread = n_groups.div_ceil(threads().min(n_groups.max(1)).max(1)).max(1);
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let parts: Vec<_> = values
            .chunks_mut(per_thread * n_outputs.max(1))
            .zip(known.chunks_mut(per_thread))
            .enumerate()
            .map(|(part, (out, known))| {
                let one = &one;
                scope.spawn(move || {
                    let reader = Reader::for_outputs(config);
                    let mut scratch = RankScratch::default();
                    for (i, flag) in known.iter_mut().enumerate() {
                        let row = &mut out[i * n_outputs..(i + 1) * n_outputs];
                        *flag = one(part * per_thread + i, row, &mut scratch, &reader)?;
                    }
                    Ok(())
                })
            })
            .collect();
        parts.into_iter().map(|p| p.join().unwrap_or_else(|_| Err("the rankk kernel panicked".to_string()))).collect()
    });
    for result in results {
        result?;
    }
    Ok(Sums { values, known })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::Chunk;
    use crate::config::Kind;
    use crate::testing::{chunked, column};

    fn inputs<'a>(bounds: &[usize], item: &'a Column<'a>, score: &'a Column<'a>, grade: &'a Column<'a>) -> GroupedInputs<'a> {
        let group = GroupInputs { item: Some(item), item_kind: Kind::Integer, score, grade, extra: None, n_relevant: None };
        GroupedInputs { bounds: bounds.to_vec(), group }
    }

    #[test]
    fn rows_compared_in_place_are_the_rows_read() {
        let bounds = [0, 3, 5];
        let item = column("item", Values::I64(&[4, 5, 6, 4, 7]));
        let grade = column("grade", Values::F64(&[1.0, 0.0, 2.0, 1.0, 0.0]));
        let score = column("score", Values::F64(&[0.5, -0.0, 0.25, 0.5, 0.1]));
        let first = inputs(&bounds, &item, &score, &grade);
        let shape = Shape::read(&first);
        assert_eq!(shape.bounds, vec![0, 3, 5]);
        let rows = Rows::read(&first);
        assert!(rows.holds(&first));
        // The same values in two chunks, -0.0 as 0.0: the same rows.
        let (a, b) = ([0.5, 0.0], [0.25, 0.5, 0.1]);
        let split = chunked("score", vec![Values::F64(&a), Values::F64(&b)]);
        assert!(rows.holds(&inputs(&bounds, &item, &split, &grade)));
        // One grade, one item or one score differs, or a score is null: other rows.
        let other_grade = column("grade", Values::F64(&[1.0, 0.0, 2.0, 1.0, 1.0]));
        assert!(!rows.holds(&inputs(&bounds, &item, &score, &other_grade)));
        let other_item = column("item", Values::I32(&[4, 5, 6, 4, 8]));
        assert!(!rows.holds(&inputs(&bounds, &other_item, &score, &grade)));
        let valid = [0b1110_1111u8];
        let values = [0.5, 0.0, 0.25, 0.5, 0.1];
        let chunk = Chunk { len: 5, values: Values::F64(&values), validity: Some(Bitmap::new(&valid, 0)) };
        let nulled = Column { name: "score".to_string(), chunks: vec![chunk] };
        assert!(!rows.holds(&inputs(&bounds, &item, &nulled, &grade)));
        // Nulls read as NaN, at any bit offset and across a block of 64 rows.
        let n: usize = 150;
        let grades: Vec<f64> = (0..n).map(|i| (i % 4) as f64).collect();
        let valid: Vec<u8> = (0..(n + 3).div_ceil(8)).map(|b| (b as u8).wrapping_mul(73) | 1).collect();
        let long = |values| column("x", values);
        let (ids, halves) = ((0..n as i64).collect::<Vec<_>>(), vec![0.5; n]);
        let (bounds, items, scores) = ((0..=n).collect::<Vec<_>>(), long(Values::I64(&ids)), long(Values::F64(&halves)));
        for offset in [0, 3] {
            let chunk = Chunk { len: n, values: Values::F64(&grades), validity: Some(Bitmap::new(&valid, offset)) };
            let nullable = Column { name: "grade".to_string(), chunks: vec![chunk] };
            let given = inputs(&bounds, &items, &scores, &nullable);
            let rows = Rows::read(&given);
            assert!(rows.holds(&given));
            for at in [0, 63, 64, 149] {
                let mut other = rows.given.clone();
                other[at] = if other[at].is_nan() { 1.0 } else { f64::NAN };
                let moved = Rows { given: other, scores: rows.scores.clone(), handles: rows.handles.clone() };
                assert!(!moved.holds(&given), "offset {offset}, row {at}");
            }
            let chunk = Chunk { len: n, values: Values::I64(&ids), validity: Some(Bitmap::new(&valid, offset)) };
            let nullable_items = Column { name: "item".to_string(), chunks: vec![chunk] };
            let given = inputs(&bounds, &nullable_items, &scores, &nullable);
            let rows = Rows::read(&given);
            assert!(rows.holds(&given));
            assert!(!rows.holds(&inputs(&bounds, &items, &scores, &nullable)) || valid.iter().all(|b| *b == 0xff));
        }
        let fewer = column("score", Values::F64(&[0.5, 0.0, 0.25, 0.5]));
        assert!(!rows.holds(&inputs(&bounds, &item, &fewer, &grade)));
    }

    #[test]
    fn a_list_columns_values_are_its_groups_rows() {
        // Two chunks of lists, the first's offsets not from 0 and its child longer than the
        // lists: groups [1, 2], [], [3] then [4, 5].
        let (values, more) = ([9i64, 1, 2, 3, 8], [4i64, 5]);
        let (offsets, more_offsets) = ([1i64, 3, 3, 4], [0i64, 2]);
        let list = |offsets, values| Values::LargeList { offsets, child: Box::new(column("x", Values::I64(values))) };
        let lists = chunked("x", vec![list(&offsets[..], &values[..]), list(&more_offsets[..], &more[..])]);
        let (bounds, rows) = lists.list_values().expect("a list column");
        assert_eq!(bounds, vec![0, 2, 2, 3, 5]);
        assert_eq!(rows.integers_vec(), vec![1, 2, 3, 4, 5]);
        assert!(column("x", Values::I64(&values)).list_values().is_none());
    }
}
