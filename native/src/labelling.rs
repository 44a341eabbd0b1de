//! The plugin function `label_rows`: `label`'s rows from the kernel (`kernel::labels`), its
//! inputs checked and its output laid out, one row per candidate in output order: the input
//! row, its grade, its group's R and, on a known group's first row, the missed grades.
//!
//! Inputs: the key columns, the item, each row's side (`kernel::labels::CANDIDATE` ...), the
//! truth rows' grades (Float64; a candidate row's score there where the score is written), as
//! `polars_rankk/core/kernel/labels.py` sends them.
//!
//! Asked to, it also writes integer keys and item and a Float64 score in output order (after
//! the row, named as their input columns and the `score` kwarg), which Polars would otherwise
//! gather by row.

use serde::Deserialize;

use crate::buffers;
use crate::columns::{pooled_validity, Column, OutColumn, OutData};
use crate::config::Kind;
use crate::kernel::labels::{self, Asked, Written};
use crate::plugin::check_kind;

/// What Python sends beyond the columns: their kinds, the relevance threshold, the pool,
/// whether the truth's grades are integers (the grade is then written as Int64, which the
/// frame's integer dtype is cast from without a float conversion), and the output columns'
/// names (row, grade, n_relevant, unretrieved); the columns written in output order: the keys
/// (all integers), the item (an integer), the score (its name: the grades column carries it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    keys: Vec<Kind>,
    item: Kind,
    threshold: f64,
    restrict: bool,
    integer_grades: bool,
    names: [String; 4],
    write_keys: bool,
    write_item: bool,
    score: Option<String>,
}

impl Kwargs {
    /// The written columns' names and Arrow formats, in output order after the row.
    fn written(&self, names: &[String]) -> Vec<(String, String)> {
        let n_keys = self.keys.len();
        let keys = names[..n_keys].iter().filter(|_| self.write_keys);
        let item = names[n_keys..=n_keys].iter().filter(|_| self.write_item);
        let integers = keys.chain(item).map(|name| (name.clone(), "l".to_string()));
        integers.chain(self.score.iter().map(|name| (name.clone(), "g".to_string()))).collect()
    }

    /// Whether the written keys and item are integers.
    fn check_written(&self) -> Result<(), String> {
        let keys = !self.write_keys || self.keys.iter().all(|kind| *kind == Kind::Integer);
        if keys && (!self.write_item || self.item == Kind::Integer) {
            Ok(())
        } else {
            Err("the rankk kernel's label writes integer keys and items only".to_string())
        }
    }
}

fn parse(kwargs: &[u8]) -> Result<Kwargs, String> {
    serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's label keyword arguments: {error}"))
}

/// The output fields: the input row (UInt32), the grade (Int64 for integer grades, else
/// Float64), R (Int64), the missed grades (a list of Float64).
pub fn fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let asked = parse(kwargs)?;
    if inputs.len() != asked.keys.len() + 3 {
        return Err(format!("the rankk kernel's label expects {} input columns, got {}", asked.keys.len() + 3, inputs.len()));
    }
    asked.check_written()?;
    let formats = ["I", if asked.integer_grades { "l" } else { "g" }, "l", "+L"];
    let mut fields: Vec<(String, String)> =
        asked.names.iter().zip(formats).map(|(name, format)| (name.clone(), format.to_string())).collect();
    let names: Vec<String> = inputs.iter().map(|(name, _)| name.clone()).collect();
    fields.splice(1..1, asked.written(&names));
    Ok(fields)
}

/// A column's dtype other than the kernel reads it.
fn refused(column: &Column<'_>, expected: &str) -> String {
    format!("column {:?}: the rankk kernel expected {expected} values", column.name)
}

/// About the bytes of buffers `label` uses per row (records 64, hashes 16, grades 16, the
/// outputs and flags 60).
const BYTES_PER_ROW: usize = 160;

/// `label_rows`: the candidates labelled from the truth rows after them.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    // The call's buffers come from those the last call kept, where their sizes fit; what it
    // kept and this call did not need is freed at its end.
    let call = buffers::begin(columns.first().map_or(0, Column::len) * BYTES_PER_ROW);
    let out = labelled(kwargs, columns);
    buffers::settle(call);
    labels::settle(call);
    out
}

fn labelled(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let asked = parse(kwargs)?;
    let n_keys = asked.keys.len();
    if columns.len() != n_keys + 3 {
        return Err(format!("the rankk kernel's label expects {} input columns, got {}", n_keys + 3, columns.len()));
    }
    for (column, kind) in columns.iter().zip(&asked.keys) {
        check_kind(column, *kind)?;
    }
    let (item, side, grade) = (&columns[n_keys], &columns[n_keys + 1], &columns[n_keys + 2]);
    check_kind(item, asked.item)?;
    if !side.is_integer() {
        return Err(refused(side, "Int64"));
    }
    if !grade.is_float() {
        return Err(refused(grade, "Float64"));
    }
    let keys: Vec<(&Column<'_>, Kind)> = columns.iter().zip(asked.keys.iter().copied()).collect();
    asked.check_written()?;
    let write = Written { keys: asked.write_keys, item: asked.write_item, score: asked.score.is_some() };
    let call = Asked { threshold: asked.threshold, restrict: asked.restrict, write };
    let mut labels = labels::label(&keys, (item, asked.item), side, grade, &call);
    let names: Vec<String> = columns.iter().map(|column| column.name.clone()).collect();
    let written_names = asked.written(&names).into_iter().map(|(name, _)| name);
    let mut written_data: Vec<OutData> = std::mem::take(&mut labels.keys).into_iter().map(|(values, valid)| integers(values, valid)).collect();
    if asked.write_item {
        let (values, valid) = std::mem::take(&mut labels.items);
        written_data.push(integers(values, valid));
    }
    if asked.score.is_some() {
        let (values, valid) = std::mem::take(&mut labels.scores);
        written_data.push(floats(values, valid));
    }
    let written = written_names.zip(written_data).map(|(name, data)| OutColumn { name, data });
    let [row, grade_name, n_relevant, unretrieved] = asked.names;
    let (valid, nulls) = pooled_validity(labels.graded);
    let grades = if asked.integer_grades {
        // Integer grades, read as Float64 (exact up to 2^53), written back as integers.
        let mut values = buffers::INTEGERS.take_output(labels.grades.len());
        values.extend(labels.grades.iter().map(|g| *g as i64));
        buffers::FLOATS.give(labels.grades);
        OutData::NullableI64 { values, valid, nulls }
    } else {
        OutData::NullableF64 { values: labels.grades, valid, nulls }
    };
    let (valid, nulls) = pooled_validity(labels.known);
    let counts = OutData::NullableI64 { values: labels.n_relevant, valid, nulls };
    let (valid, nulls) = pooled_validity(labels.missed_graded);
    let missed = OutData::NullableF64 { values: labels.missed, valid, nulls };
    let (valid, nulls) = pooled_validity(labels.listed);
    let lists = OutData::FloatLists { offsets: labels.offsets, valid, nulls, values: Box::new(missed) };
    let mut out = vec![OutColumn { name: row, data: OutData::U32(labels.rows) }];
    out.extend(written);
    out.extend([
        OutColumn { name: grade_name, data: grades },
        OutColumn { name: n_relevant, data: counts },
        OutColumn { name: unretrieved, data: lists },
    ]);
    Ok(out)
}

/// An Int64 column of `values`, null where `valid` is false (no bitmap where none is).
fn integers(values: Vec<i64>, valid: Vec<bool>) -> OutData {
    if valid.iter().all(|v| *v) {
        buffers::FLAGS.give(valid);
        return OutData::I64(values);
    }
    let (valid, nulls) = pooled_validity(valid);
    OutData::NullableI64 { values, valid, nulls }
}

/// A Float64 column of `values`, null where `valid` is false.
fn floats(values: Vec<f64>, valid: Vec<bool>) -> OutData {
    if valid.iter().all(|v| *v) {
        buffers::FLAGS.give(valid);
        return OutData::F64(values);
    }
    let (valid, nulls) = pooled_validity(valid);
    OutData::NullableF64 { values, valid, nulls }
}
