//! Builders of the kernel's inputs for its tests, its benchmark and examples (compiled for
//! tests and with the `testing` feature): a call's terms and outputs as `rk.evaluate` sends
//! them, and columns over slices. A call is `Call { the fields a test sets, ..Call::default() }`.

use crate::columns::{Chunk, Column, Values};
use crate::config::{Call, Kind, Label, OutputSpec, OutputValue, PieceSpec, TermSpec, TokenSpec};

/// A weight's token by name (`"r"`, `"+"`, `"log2"`, ...).
pub fn word(word: &str) -> TokenSpec {
    TokenSpec::Word(word.to_string())
}

/// A piece that is `label` itself (no weight).
pub fn label(label: Label) -> PieceSpec {
    PieceSpec { label, divide: false, weight: Vec::new() }
}

/// DCG's piece: the gain divided by log2(r + 1).
pub fn dcg_piece() -> PieceSpec {
    PieceSpec { label: Label::Gain, divide: true, weight: vec![word("r"), TokenSpec::Number(1.0), word("+"), word("log2")] }
}

pub fn term(name: &str, pieces: Vec<PieceSpec>) -> TermSpec {
    TermSpec { name: name.to_string(), pieces }
}

/// The running sum of `term` read at cut-off `k` (0: the whole list).
pub fn sum(column: &str, term: &str, k: usize) -> OutputSpec {
    OutputSpec { column: column.to_string(), value: OutputValue::Sum, k, term: Some(term.to_string()) }
}

/// Key column `index`.
pub fn key(column: &str, index: usize) -> OutputSpec {
    OutputSpec { column: column.to_string(), value: OutputValue::Key, k: index, term: None }
}

/// An output without a cut-off or a term (`NCandidates`, `HitsAtR`, `NRelevant`, ...).
pub fn value(column: &str, value: OutputValue) -> OutputSpec {
    OutputSpec { column: column.to_string(), value, k: 0, term: None }
}

/// The linear terms of `rk.evaluate`'s eight default metrics (the precision sum is named).
pub fn default_terms() -> Vec<TermSpec> {
    vec![
        term("hits", vec![label(Label::Relevant)]),
        term("dcg", vec![dcg_piece()]),
        term(
            "reciprocal_rank",
            vec![PieceSpec { label: Label::FirstRelevant, divide: true, weight: vec![word("r")] }],
        ),
        term("first_hit", vec![label(Label::FirstRelevant)]),
    ]
}

/// The call `rk.evaluate` sends for its eight default metrics at `ks` on one integer key
/// column (`user`), the truth's rows in the call.
pub fn evaluate_call(ks: &[usize]) -> Call {
    let mut outputs = vec![
        key("user", 0),
        value("n_candidates", OutputValue::NCandidates),
        value("hits_at_r", OutputValue::HitsAtR),
    ];
    for k in ks {
        for name in ["hits", "dcg", "precision_sum", "reciprocal_rank", "first_hit"] {
            outputs.push(sum(&format!("_rk_{name}@{k}"), name, *k));
        }
    }
    Call { keys: vec![Kind::Integer], positive_only: true, truth: true, terms: default_terms(), outputs, ..Call::default() }
}

fn length(values: &Values<'_>) -> usize {
    match values {
        Values::F64(v) => v.len(),
        Values::I64(v) => v.len(),
        Values::I32(v) => v.len(),
        Values::U32(v) => v.len(),
        Values::I16(v) => v.len(),
        Values::U16(v) => v.len(),
        Values::I8(v) => v.len(),
        Values::U8(v) => v.len(),
        Values::LargeText { offsets, .. } => offsets.len().saturating_sub(1),
        Values::ViewText { views, .. } => views.len(),
        Values::LargeList { offsets, .. } => offsets.len().saturating_sub(1),
    }
}

/// A column of chunks over `chunks`' values, without nulls.
pub fn chunked<'a>(name: &str, chunks: Vec<Values<'a>>) -> Column<'a> {
    let chunks = chunks.into_iter().map(|values| Chunk { len: length(&values), values, validity: None }).collect();
    Column { name: name.to_string(), chunks }
}

/// A column of one chunk over `values`, without nulls.
pub fn column<'a>(name: &str, values: Values<'a>) -> Column<'a> {
    chunked(name, vec![values])
}
