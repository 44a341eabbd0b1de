//! The columns of a partition's rows gathered by row number (the general path: several key
//! columns, or per-row columns beyond the item, score and grade): each column on its own, in
//! a loop of independent loads, then the rows are grouped in cache.

use crate::columns::{FloatCursor, HandleCursor};

use super::context::Inputs;

/// The column readers of one thread (each reads its rows in increasing order).
#[derive(Clone)]
pub(super) struct Readers<'a> {
    pub keys: Vec<HandleCursor<'a>>,
    pub item: HandleCursor<'a>,
    pub score: FloatCursor<'a>,
    pub grade: FloatCursor<'a>,
    row: Option<HandleCursor<'a>>,
    judged: Option<FloatCursor<'a>>,
    n_relevant: Option<FloatCursor<'a>>,
    n_nonrelevant: Option<FloatCursor<'a>>,
}

impl<'a> Readers<'a> {
    pub(super) fn new(inputs: &Inputs<'a>) -> Self {
        Readers {
            keys: inputs.keys.iter().map(|c| HandleCursor::new(c)).collect(),
            item: HandleCursor::new(inputs.item),
            score: FloatCursor::new(inputs.score),
            grade: FloatCursor::new(inputs.grade),
            row: inputs.row.map(HandleCursor::new),
            judged: inputs.judged.map(FloatCursor::new),
            n_relevant: inputs.n_relevant.map(FloatCursor::new),
            n_nonrelevant: inputs.n_nonrelevant.map(FloatCursor::new),
        }
    }
}

/// One partition's rows and their columns, gathered column by column.
#[derive(Default)]
pub(super) struct Gathered {
    pub rows: Vec<u32>,
    /// `keys[k * n_keys + j]`.
    pub keys: Vec<u64>,
    pub grades: Vec<f64>,
    pub items: Vec<u64>,
    /// + 0.0 folds -0.0 into 0.0 (as the reference does), so that the two tie.
    pub scores: Vec<f64>,
    pub row_values: Vec<u64>,
    pub flags: Vec<f64>,
    pub relevant: Vec<f64>,
    pub nonrelevant: Vec<f64>,
}

fn gather_floats(cursor: &mut FloatCursor<'_>, rows: &[u32], out: &mut Vec<f64>) {
    out.clear();
    out.extend(rows.iter().map(|r| cursor.get(*r as usize)));
}

fn gather_handles(cursor: &mut HandleCursor<'_>, rows: &[u32], out: &mut Vec<u64>) {
    out.clear();
    out.extend(rows.iter().map(|r| cursor.get(*r as usize)));
}

impl Gathered {
    pub(super) fn gather(&mut self, readers: &mut Readers<'_>, rows: impl Iterator<Item = u32>, n_keys: usize) {
        self.rows.clear();
        self.rows.extend(rows);
        let rows = &self.rows;
        if n_keys == 1 {
            gather_handles(&mut readers.keys[0], rows, &mut self.keys);
        } else {
            self.keys.clear();
            self.keys.resize(rows.len() * n_keys, 0);
            let mut column = Vec::new();
            for (j, cursor) in readers.keys.iter_mut().enumerate() {
                gather_handles(cursor, rows, &mut column);
                for (k, value) in column.iter().enumerate() {
                    self.keys[k * n_keys + j] = *value;
                }
            }
        }
        gather_floats(&mut readers.grade, rows, &mut self.grades);
        gather_handles(&mut readers.item, rows, &mut self.items);
        gather_floats(&mut readers.score, rows, &mut self.scores);
        self.scores.iter_mut().for_each(|s| *s += 0.0);
        self.row_values.clear();
        if let Some(cursor) = readers.row.as_mut() {
            gather_handles(cursor, rows, &mut self.row_values);
        }
        self.flags.clear();
        if let Some(cursor) = readers.judged.as_mut() {
            gather_floats(cursor, rows, &mut self.flags);
        }
        self.relevant.clear();
        if let Some(cursor) = readers.n_relevant.as_mut() {
            gather_floats(cursor, rows, &mut self.relevant);
        }
        self.nonrelevant.clear();
        if let Some(cursor) = readers.n_nonrelevant.as_mut() {
            gather_floats(cursor, rows, &mut self.nonrelevant);
        }
    }
}

