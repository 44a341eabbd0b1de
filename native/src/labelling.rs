//! The plugin function `label_rows`: `label`'s rows from the kernel (`kernel::labels`), its
//! inputs checked and its output laid out, one row per candidate in output order: the input
//! row, its grade, its group's R and, on a known group's first row, the missed grades.
//!
//! Inputs: the key columns, the item, each row's side (`kernel::labels::CANDIDATE` ...), the
//! truth rows' grades (Float64), as `polars_rankk/core/kernel/labels.py` sends them.

use serde::Deserialize;

use crate::columns::{validity, Column, OutColumn, OutData};
use crate::config::Kind;
use crate::kernel::labels::{self, Asked};
use crate::plugin::check_kind;

/// What Python sends beyond the columns: their kinds, the relevance threshold, the pool,
/// whether the truth's grades are integers (the grade is then written as Int64, which the
/// frame's integer dtype is cast from without a float conversion), and the output columns'
/// names (row, grade, n_relevant, unretrieved).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    keys: Vec<Kind>,
    item: Kind,
    threshold: f64,
    restrict: bool,
    integer_grades: bool,
    names: [String; 4],
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
    let formats = ["I", if asked.integer_grades { "l" } else { "g" }, "l", "+L"];
    Ok(asked.names.iter().zip(formats).map(|(name, format)| (name.clone(), format.to_string())).collect())
}

/// A column's dtype other than the kernel reads it.
fn refused(column: &Column<'_>, expected: &str) -> String {
    format!("column {:?}: the rankk kernel expected {expected} values", column.name)
}

/// `label_rows`: the candidates labelled from the truth rows after them.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
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
    let call = Asked { threshold: asked.threshold, restrict: asked.restrict };
    let labels = labels::label(&keys, (item, asked.item), side, grade, &call);
    let [row, grade_name, n_relevant, unretrieved] = asked.names;
    let (valid, nulls) = validity(labels.graded.into_iter());
    let grades = if asked.integer_grades {
        // Integer grades, read as Float64 (exact up to 2^53), written back as integers.
        OutData::NullableI64 { values: labels.grades.iter().map(|g| *g as i64).collect(), valid, nulls }
    } else {
        OutData::NullableF64 { values: labels.grades, valid, nulls }
    };
    let (valid, nulls) = validity(labels.known.into_iter());
    let counts = OutData::NullableI64 { values: labels.n_relevant, valid, nulls };
    let (valid, nulls) = validity(labels.missed_graded.into_iter());
    let missed = OutData::NullableF64 { values: labels.missed, valid, nulls };
    let (valid, nulls) = validity(labels.listed.into_iter());
    let lists = OutData::FloatLists { offsets: labels.offsets, valid, nulls, values: Box::new(missed) };
    Ok(vec![
        OutColumn { name: row, data: OutData::U32(labels.rows) },
        OutColumn { name: grade_name, data: grades },
        OutColumn { name: n_relevant, data: counts },
        OutColumn { name: unretrieved, data: lists },
    ])
}
