//! The plugin function `group_sums`: checks the inputs against the configuration, runs the
//! kernel and lays out its output columns.

use std::sync::OnceLock;

use crate::columns::{Column, OutColumn, OutData};
use crate::config::{self, Config, Invalid, Judged, Kind, Output};
use crate::kernel::{self, Inputs};

/// Worker threads for one call (asked once: the OS call is slow next to a small call).
pub fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        let from_env = std::env::var("POLARS_RANKK_NATIVE_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|v| *v > 0);
        from_env.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

fn configuration(kwargs: &[u8]) -> Result<(Config, String), String> {
    let text = config::config_from_pickle(kwargs)?;
    let score_name = text
        .lines()
        .find_map(|line| line.strip_prefix("score_name="))
        .unwrap_or("score")
        .to_string();
    let body: String = text
        .lines()
        .filter(|line| !line.starts_with("score_name="))
        .map(|line| format!("{line}\n"))
        .collect();
    Ok((config::parse(&body)?, score_name))
}

fn key_format(kind: Kind) -> &'static str {
    match kind {
        Kind::Integer => "l",
        Kind::Text => "U",
    }
}

/// The output struct's fields: (name, Arrow format).
pub fn output_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let (config, _) = configuration(kwargs)?;
    if inputs.len() != config.n_inputs() {
        return Err(format!(
            "the rankk kernel expects {} input columns, got {}",
            config.n_inputs(),
            inputs.len()
        ));
    }
    Ok(config
        .outputs
        .iter()
        .map(|(name, output)| {
            let format = match output {
                Output::Key(i) => key_format(config.key_kinds[*i]),
                _ => "g",
            };
            (name.clone(), format.to_string())
        })
        .collect())
}

fn check_kind(column: &Column<'_>, kind: Kind) -> Result<(), String> {
    let fits = match kind {
        Kind::Integer => column.is_integer(),
        Kind::Text => column.is_text(),
    };
    if fits {
        Ok(())
    } else {
        let expected = match kind {
            Kind::Integer => "Int64",
            Kind::Text => "String",
        };
        Err(format!("column {:?}: the rankk kernel expected {expected} values", column.name))
    }
}

fn floats(column: &Column<'_>) -> Result<Vec<f64>, String> {
    if column.is_float() {
        Ok(column.floats())
    } else {
        Err(format!("column {:?}: the rankk kernel expected Float64 values", column.name))
    }
}

pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let (config, score_name) = configuration(kwargs)?;
    if columns.len() != config.n_inputs() {
        return Err(format!(
            "the rankk kernel expects {} input columns, got {}",
            config.n_inputs(),
            columns.len()
        ));
    }
    let n = columns[0].len();
    if let Some(column) = columns.iter().find(|c| c.len() != n) {
        return Err(format!(
            "column {:?} has {} rows where the group keys have {n}",
            column.name,
            column.len()
        ));
    }
    let n_keys = config.key_kinds.len();
    let (keys, rest) = columns.split_at(n_keys);
    for (column, kind) in keys.iter().zip(&config.key_kinds) {
        check_kind(column, *kind)?;
    }
    check_kind(&rest[0], config.item_kind)?;
    let mut next = 3;
    let judged = if config.judged == Judged::Column {
        next += 1;
        Some(floats(&rest[next - 1])?)
    } else {
        None
    };
    let row = if config.has_row {
        next += 1;
        let column = &rest[next - 1];
        check_kind(column, Kind::Integer)?;
        Some(column.integers())
    } else {
        None
    };
    let n_relevant = if config.n_counts >= 1 { Some(floats(&rest[next])?) } else { None };
    let n_nonrelevant = if config.n_counts >= 2 { Some(floats(&rest[next + 1])?) } else { None };
    let score = floats(&rest[1])?;
    if config.invalid == Invalid::Error {
        if let Some(at) = score.iter().position(|s| !s.is_finite()) {
            return Err(format!(
                "column {score_name:?} holds an invalid score ({}) at row {at}: null, NaN and \
                 inf are invalid scores; Policy(invalid_scores='drop' or 'lowest') handles them",
                score[at]
            ));
        }
    }
    let inputs = Inputs {
        keys: keys.iter().collect(),
        key_handles: keys.iter().map(Column::handles).collect(),
        item: &rest[0],
        item_handles: rest[0].handles(),
        score,
        grade: floats(&rest[2])?,
        judged,
        row,
        n_relevant,
        n_nonrelevant,
    };
    let groups = kernel::compute(&config, &inputs);
    let n_groups = groups.first_row.len();
    let n_outputs = config.outputs.len();
    Ok(config
        .outputs
        .iter()
        .enumerate()
        .map(|(j, (name, output))| {
            let data = match output {
                Output::Key(i) => {
                    let handles = &inputs.key_handles[*i];
                    match config.key_kinds[*i] {
                        Kind::Integer => OutData::I64(
                            groups.first_row.iter().map(|r| handles[*r] as i64).collect(),
                        ),
                        Kind::Text => {
                            let mut offsets = Vec::with_capacity(n_groups + 1);
                            let mut bytes = Vec::new();
                            offsets.push(0i64);
                            for r in &groups.first_row {
                                bytes.extend_from_slice(keys[*i].text_of(handles[*r]));
                                offsets.push(bytes.len() as i64);
                            }
                            OutData::Text { offsets, bytes }
                        }
                    }
                }
                _ => OutData::F64((0..n_groups).map(|g| groups.values[g * n_outputs + j]).collect()),
            };
            OutColumn { name: name.clone(), data }
        })
        .collect())
}
