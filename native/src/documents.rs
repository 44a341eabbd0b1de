//! The plugin function `documents`: MaxP of a passage run by a delimiter (`kernel::documents`),
//! its inputs checked and its output laid out: the group keys, the document id and its score,
//! one row per (group, document). The document ids are written once, straight from the
//! passage ids' bytes, into an output sized up front, each thread its own share of it.
//!
//! A row the value checks refuse ends the call with a message that names each check, how many
//! rows fail it and the first of them (`refusal`), which Python words naming the row.

use serde::Deserialize;

use crate::columns::{Column, OutColumn, OutData};
use crate::config::{self, Config, Kind};
use crate::kernel::documents::{self as maxp, Asked, Documents, Refused, Tally};
use crate::kernel::{Inputs, Items};

/// What `polars_rankk/core/kernel/documents.py` sends: the ranking's kwargs (`Policy` and
/// `Call`, as every kernel call sends them) and what the collapse asks beyond them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    ranking: serde_pickle::Value,
    depth: usize,
    check_values: bool,
}

/// The marker that starts a refusal's message (Python reads the rest).
pub const REFUSED: &str = "rankk refused rows:";

fn parse(kwargs: &[u8]) -> Result<(Config, Asked), String> {
    let read: Kwargs = serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    let ranking = serde_pickle::value_to_vec(&read.ranking, serde_pickle::SerOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    let (config, _) = config::from_kwargs(&ranking)?;
    Ok((config, Asked { depth: read.depth, check_values: read.check_values }))
}

/// The output fields: the keys and the item under their input names, then the score's.
pub fn fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let (config, _) = parse(kwargs)?;
    let n_keys = config.key_kinds.len();
    if inputs.len() != n_keys + 2 {
        return Err(format!("the rankk kernel's documents expect {} input columns, got {}", n_keys + 2, inputs.len()));
    }
    let mut out: Vec<(String, String)> =
        config.key_kinds.iter().zip(inputs).map(|(kind, (name, _))| (name.clone(), format_of(*kind).to_string())).collect();
    out.push((inputs[n_keys].0.clone(), "U".to_string()));
    out.push((inputs[n_keys + 1].0.clone(), "g".to_string()));
    Ok(out)
}

fn format_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Integer => "l",
        Kind::Text => "U",
    }
}

fn expect(column: &Column<'_>, fits: bool, what: &str) -> Result<(), String> {
    if fits {
        Ok(())
    } else {
        Err(format!("column {:?}: the rankk kernel expected {what} values", column.name))
    }
}

/// `documents`: the keys, the document id and its score, one row per (group, document), each
/// group's documents in rank order, groups in the order of their keys.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let (config, asked) = parse(kwargs)?;
    let n_keys = config.key_kinds.len();
    if columns.len() != n_keys + 2 {
        return Err(format!("the rankk kernel's documents expect {} input columns, got {}", n_keys + 2, columns.len()));
    }
    let (keys, rest) = columns.split_at(n_keys);
    for (column, kind) in keys.iter().zip(&config.key_kinds) {
        let fits = if *kind == Kind::Integer { column.is_integer() } else { column.is_text() };
        expect(column, fits, if *kind == Kind::Integer { "Int64" } else { "String" })?;
    }
    let (item, score) = (&rest[0], &rest[1]);
    expect(item, item.is_text() && config.item_kind == Kind::Text, "String")?;
    expect(score, score.is_float(), "Float64")?;
    if let Some(column) = columns.iter().find(|c| c.len() != score.len()) {
        return Err(format!("column {:?} has {} rows where the scores have {}", column.name, column.len(), score.len()));
    }
    // No grade is read (no truth, every candidate judged): the scores stand in its place.
    let inputs = Inputs::new(keys.iter().collect(), item, score, score);
    let found = maxp::documents(&config, &inputs, asked).map_err(|refused| refusal(&refused))?;
    let started = std::time::Instant::now();
    let items = Items { column: item, kind: Kind::Text, cut: &config.item_prefix };
    let mut out = key_columns(&config, &inputs, &found);
    let (offsets, bytes, scores) = laid_out(&items, &found);
    out.push(OutColumn { name: item.name.clone(), data: OutData::Text { offsets, bytes } });
    out.push(OutColumn { name: score.name.clone(), data: OutData::F64(scores) });
    crate::kernel::timing("documents laid out", started);
    Ok(out)
}

/// Each refused check, its count and first row, after `REFUSED`: ``null_key:0=3@17``,
/// ``null_item=…``, ``empty_document=…``, ``invalid_score=…``.
fn refusal(refused: &Refused) -> String {
    let mut words = vec![REFUSED.to_string()];
    let mut say = |name: String, tally: &Tally| {
        if tally.count > 0 {
            words.push(format!("{name}={}@{}", tally.count, tally.first));
        }
    };
    for (j, tally) in refused.null_keys.iter().enumerate() {
        say(format!("null_key:{j}"), tally);
    }
    say("null_item".to_string(), &refused.null_items);
    say("empty_document".to_string(), &refused.empty_documents);
    say("invalid_score".to_string(), &refused.invalid_scores);
    words.join(" ")
}

/// Each group's keys, repeated on each of its documents' rows.
fn key_columns(config: &Config, inputs: &Inputs<'_>, found: &Documents) -> Vec<OutColumn> {
    let sizes = || found.parts.iter().flat_map(|part| part.sizes.iter().copied());
    let rows: usize = sizes().sum();
    config
        .key_kinds
        .iter()
        .enumerate()
        .map(|(j, kind)| {
            let handles = &found.keys[j];
            let data = match kind {
                Kind::Integer => {
                    let mut values = Vec::with_capacity(rows);
                    for (handle, size) in handles.iter().zip(sizes()) {
                        values.resize(values.len() + size, *handle as i64);
                    }
                    OutData::I64(values)
                }
                Kind::Text => {
                    let column = inputs.keys[j];
                    let mut offsets = Vec::with_capacity(rows + 1);
                    let mut bytes = Vec::new();
                    offsets.push(0i64);
                    for (handle, size) in handles.iter().zip(sizes()) {
                        for _ in 0..size {
                            bytes.extend_from_slice(column.text_of(*handle));
                            offsets.push(bytes.len() as i64);
                        }
                    }
                    OutData::Text { offsets, bytes }
                }
            };
            OutColumn { name: inputs.keys[j].name.clone(), data }
        })
        .collect()
}

/// The document ids (Arrow LargeUtf8 offsets and bytes) and scores of every part, each part
/// written by its own thread into its share of outputs allocated once at their full size.
fn laid_out(items: &Items<'_>, found: &Documents) -> (Vec<i64>, Vec<u8>, Vec<f64>) {
    let rows: usize = found.parts.iter().map(|p| p.items.len()).sum();
    let total: usize = found.parts.iter().map(|p| p.bytes).sum();
    let mut offsets = vec![0i64; rows + 1];
    let mut bytes = vec![0u8; total];
    let mut scores = vec![0f64; rows];
    std::thread::scope(|scope| {
        let (mut offsets_rest, mut bytes_rest, mut scores_rest) = (&mut offsets[1..], &mut bytes[..], &mut scores[..]);
        let mut base = 0usize;
        for part in &found.parts {
            let n = part.items.len();
            let (my_offsets, tail) = std::mem::take(&mut offsets_rest).split_at_mut(n);
            offsets_rest = tail;
            let (my_bytes, tail) = std::mem::take(&mut bytes_rest).split_at_mut(part.bytes);
            bytes_rest = tail;
            let (my_scores, tail) = std::mem::take(&mut scores_rest).split_at_mut(n);
            scores_rest = tail;
            let start = base;
            base += part.bytes;
            let mut work = move || {
                my_scores.copy_from_slice(&part.scores);
                let mut at = 0usize;
                for ((item, length), offset) in part.items.iter().zip(&part.lengths).zip(my_offsets.iter_mut()) {
                    let length = *length as usize;
                    my_bytes[at..at + length].copy_from_slice(&items.column.text_of(*item)[..length]);
                    at += length;
                    *offset = (start + at) as i64;
                }
            };
            if found.parts.len() == 1 {
                work();
            } else {
                scope.spawn(work);
            }
        }
    });
    (offsets, bytes, scores)
}
