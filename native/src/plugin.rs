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

/// The checked inputs of a call, as the kernel reads them.
fn read_inputs<'a>(
    config: &Config,
    score_name: &str,
    columns: &'a [Column<'a>],
) -> Result<Inputs<'a>, String> {
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
    let take_float = |next: &mut usize| -> Result<&Column<'_>, String> {
        *next += 1;
        let column = &rest[*next - 1];
        if column.is_float() {
            Ok(column)
        } else {
            Err(format!("column {:?}: the rankk kernel expected Float64 values", column.name))
        }
    };
    let judged = if config.judged == Judged::Column { Some(take_float(&mut next)?) } else { None };
    let row = if config.has_row {
        next += 1;
        check_kind(&rest[next - 1], Kind::Integer)?;
        Some(&rest[next - 1])
    } else {
        None
    };
    let n_relevant = if config.n_counts >= 1 { Some(take_float(&mut next)?) } else { None };
    let n_nonrelevant = if config.n_counts >= 2 { Some(take_float(&mut next)?) } else { None };
    for (index, what) in [(1, "score"), (2, "grade")] {
        if !rest[index].is_float() {
            return Err(format!("column {:?}: the rankk kernel expected Float64 values ({what})", rest[index].name));
        }
    }
    if config.invalid == Invalid::Error {
        if let Some((at, value)) = rest[1].floats().enumerate().find(|(_, s)| !s.is_finite()) {
            return Err(format!(
                "column {score_name:?} holds an invalid score ({value}) at row {at}: null, NaN \
                 and inf are invalid scores; Policy(invalid_scores='drop' or 'lowest') handles them"
            ));
        }
    }
    Ok(Inputs {
        keys: keys.iter().collect(),
        item: &rest[0],
        score: &rest[1],
        grade: &rest[2],
        judged,
        row,
        n_relevant,
        n_nonrelevant,
    })
}

fn key_column(name: &str, kind: Kind, column: &Column<'_>, handles: &[u64]) -> OutColumn {
    let data = match kind {
        Kind::Integer => OutData::I64(handles.iter().map(|h| *h as i64).collect()),
        Kind::Text => {
            let mut offsets = Vec::with_capacity(handles.len() + 1);
            let mut bytes = Vec::new();
            offsets.push(0i64);
            for handle in handles {
                bytes.extend_from_slice(column.text_of(*handle));
                offsets.push(bytes.len() as i64);
            }
            OutData::Text { offsets, bytes }
        }
    };
    OutColumn { name: name.to_string(), data }
}

/// `group_sums`: one row per group, the configured outputs.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let (config, score_name) = configuration(kwargs)?;
    let inputs = read_inputs(&config, &score_name, columns)?;
    let keys = &inputs.keys;
    let groups = kernel::compute(&config, &inputs);
    let n_groups = groups.keys[0].len();
    let n_outputs = config.outputs.len();
    Ok(config
        .outputs
        .iter()
        .enumerate()
        .map(|(j, (name, output))| match output {
            Output::Key(i) => key_column(name, config.key_kinds[*i], keys[*i], &groups.keys[*i]),
            _ => OutColumn {
                name: name.clone(),
                data: OutData::F64((0..n_groups).map(|g| groups.values[g * n_outputs + j]).collect()),
            },
        })
        .collect())
}

/// `graded_rows`' fields: the keys (the configured key outputs), `rank`, and each
/// configured term (by its name).
pub fn graded_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let (config, _) = configuration(kwargs)?;
    if inputs.len() != config.n_inputs() {
        return Err(format!(
            "the rankk kernel expects {} input columns, got {}",
            config.n_inputs(),
            inputs.len()
        ));
    }
    let mut fields: Vec<(String, String)> = config
        .outputs
        .iter()
        .filter_map(|(name, output)| match output {
            Output::Key(i) => Some((name.clone(), key_format(config.key_kinds[*i]).to_string())),
            _ => None,
        })
        .collect();
    fields.push(("rank".to_string(), "l".to_string()));
    for (name, _) in &config.stats {
        fields.push((name.clone(), "g".to_string()));
    }
    Ok(fields)
}

/// `graded_rows`: each ranked candidate within the first K_max ranks (the largest cut-off of
/// the configured outputs) where some configured term is not zero, with those terms.
pub fn graded_rows(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let (config, score_name) = configuration(kwargs)?;
    let inputs = read_inputs(&config, &score_name, columns)?;
    let found = kernel::term_rows(&config, &inputs, config.k_max());
    let mut out: Vec<OutColumn> = config
        .outputs
        .iter()
        .filter_map(|(name, output)| match output {
            Output::Key(i) => {
                let handles: Vec<u64> =
                    found.rows.iter().map(|(g, _)| found.keys[*i][*g as usize]).collect();
                Some(key_column(name, config.key_kinds[*i], inputs.keys[*i], &handles))
            }
            _ => None,
        })
        .collect();
    out.push(OutColumn {
        name: "rank".to_string(),
        data: OutData::I64(found.rows.iter().map(|(_, rank)| i64::from(*rank)).collect()),
    });
    let n_stats = config.stats.len();
    for (slot, (name, _)) in config.stats.iter().enumerate() {
        out.push(OutColumn {
            name: name.clone(),
            data: OutData::F64((0..found.rows.len()).map(|r| found.values[r * n_stats + slot]).collect()),
        });
    }
    Ok(out)
}
