//! The plugin function `group_sums`: checks the inputs against the configuration, runs the
//! kernel and lays out its output columns.

use crate::columns::{Column, OutColumn, OutData};
use std::cell::RefCell;
use std::rc::Rc;

use crate::config::{self, Config, Invalid, Judged, Kind, Output};
use crate::kernel::{self, Inputs};

/// A call's configuration and its score column's name, as `config::from_kwargs` reads them.
type Parsed = Rc<(Config, String)>;

/// How many kwargs a thread keeps read: the metric expressions of one `agg()` (each with its
/// own kwargs) call `grouped_metric_sums` side by side on the same threads.
const KEPT: usize = 16;

thread_local! {
    /// The configurations this thread read last, most recent first, by their exact kwargs
    /// bytes: `from_kwargs` is a function of those bytes alone (no environment, no state), so
    /// the same bytes read again are the same configuration.
    static PARSED: RefCell<Vec<(Box<[u8]>, Parsed)>> = const { RefCell::new(Vec::new()) };
}

/// The call's configuration: unpickled and parsed once per kwargs bytes and thread, not once
/// per call (an expression calls the plugin once per group). Errors are not kept.
fn configuration(kwargs: &[u8]) -> Result<Parsed, String> {
    PARSED.with(|cell| {
        let mut kept = cell.borrow_mut();
        if let Some(at) = kept.iter().position(|(bytes, _)| **bytes == *kwargs) {
            kept[..=at].rotate_right(1);
            return Ok(Rc::clone(&kept[0].1));
        }
        let parsed: Parsed = Rc::new(config::from_kwargs(kwargs)?);
        kept.insert(0, (kwargs.into(), Rc::clone(&parsed)));
        kept.truncate(KEPT);
        Ok(parsed)
    })
}

fn key_format(kind: Kind) -> &'static str {
    match kind {
        Kind::Integer => "l",
        Kind::Text => "U",
    }
}

/// The output struct's fields: (name, Arrow format).
pub fn output_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    if inputs.len() != config.n_inputs() {
        return Err(format!(
            "the rankk kernel expects {} input columns, got {}",
            config.n_inputs(),
            inputs.len()
        ));
    }
    Ok(config
        .all_outputs()
        .map(|(name, output)| {
            let format = match output {
                Output::Key(i) => key_format(config.key_kinds[*i]),
                // A list of the ranked items, as the item column holds them (`places_column`).
                Output::Places(_) if config.item_kind == Kind::Text => "+LU",
                Output::Places(_) => "+Ll",
                _ => "g",
            };
            (name.clone(), format.to_string())
        })
        .collect())
}

pub(crate) fn check_kind(column: &Column<'_>, kind: Kind) -> Result<(), String> {
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
    let n_keys = config.key_kinds.len();
    // A call without truth may send its grades as one row (NaN): no candidate has a grade, and
    // a cursor reads NaN past a column's end, so that no column of NaN as long as the rows is
    // built for the call (the counterfactual ranking's, of every candidate).
    let no_grades = |at: usize, column: &Column<'_>| !config.truth && at == n_keys + 2 && column.len() == 1;
    if let Some((_, column)) = columns.iter().enumerate().find(|(at, c)| c.len() != n && !no_grades(*at, c)) {
        return Err(format!(
            "column {:?} has {} rows where the group keys have {n}",
            column.name,
            column.len()
        ));
    }
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
    if config.policy.invalid_scores == Invalid::Error && !config.scores_checked {
        // A truth row (with a grade, after the candidates) has no score.
        let candidate = |grade: f64| !config.truth || grade.is_nan();
        let grades = rest[2].floats().chain(std::iter::repeat(f64::NAN));
        let mut scores = rest[1].floats().zip(grades).enumerate();
        if let Some((at, (value, _))) = scores.find(|(_, (s, g))| candidate(*g) && !s.is_finite()) {
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
        Kind::Text => text_data(handles, |handle| column.text_of(handle)),
    };
    OutColumn { name: name.to_string(), data }
}

/// A text column of each handle's `text`, in order.
fn text_data<'t>(handles: &[u64], text: impl Fn(u64) -> &'t [u8]) -> OutData {
    let mut offsets = Vec::with_capacity(handles.len() + 1);
    let mut bytes = Vec::new();
    offsets.push(0i64);
    for handle in handles {
        bytes.extend_from_slice(text(*handle));
        offsets.push(bytes.len() as i64);
    }
    OutData::Text { offsets, bytes }
}

/// Each group's items at its first ranks (`kernel::Places`) as a list column of the items,
/// integers or text as `item_column` names them.
fn places_column(name: &str, places: kernel::Places, items: &kernel::Items<'_>) -> OutColumn {
    let n_groups = places.offsets.len().saturating_sub(1);
    let (valid, nulls) = crate::columns::validity((0..n_groups).map(|_| true));
    let values = item_column(name, items, &places.items).data;
    OutColumn { name: name.to_string(), data: OutData::FloatLists { offsets: places.offsets, valid, nulls, values: Box::new(values) } }
}

/// `group_sums`: one row per group, the configured outputs.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let parsed = configuration(kwargs)?;
    let (config, score_name) = (&parsed.0, parsed.1.as_str());
    let inputs = read_inputs(config, score_name, columns)?;
    let keys = &inputs.keys;
    let mut groups = kernel::compute(config, &inputs);
    let n_groups = groups.keys[0].len();
    let n_outputs = config.all_outputs().count();
    let mut places = Some(std::mem::take(&mut groups.places));
    let named = kernel::Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    Ok(config
        .all_outputs()
        .enumerate()
        .map(|(j, (name, output))| match output {
            Output::Key(i) => key_column(name, config.key_kinds[*i], keys[*i], &groups.keys[*i]),
            Output::Places(_) => places_column(name, places.take().unwrap_or_default(), &named),
            _ => OutColumn {
                name: name.clone(),
                data: OutData::F64((0..n_groups).map(|g| groups.values[g * n_outputs + j]).collect()),
            },
        })
        .collect())
}

/// The group keys of each of `found`'s rows, one column per configured key output.
fn row_keys(config: &Config, inputs: &Inputs<'_>, found: &kernel::TermRows) -> Vec<OutColumn> {
    config
        .outputs
        .iter()
        .filter_map(|(name, output)| match output {
            Output::Key(i) => {
                let handles: Vec<u64> = found.rows.iter().map(|(g, _)| found.keys[*i][*g as usize]).collect();
                Some(key_column(name, config.key_kinds[*i], inputs.keys[*i], &handles))
            }
            _ => None,
        })
        .collect()
}

/// `graded_rows`' fields: the keys (the configured key outputs), `rank`, and each
/// configured term (by its name).
pub fn graded_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
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
    let parsed = configuration(kwargs)?;
    let (config, score_name) = (&parsed.0, parsed.1.as_str());
    let inputs = read_inputs(config, score_name, columns)?;
    let found = kernel::term_rows(config, &inputs, config.k_max(), false);
    let mut out = row_keys(config, &inputs, &found);
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

/// `group_rows`' column of each row's group number (its sums row's place among them).
pub const GROUP: &str = "_rk_group";
/// `group_rows`' column of the ideal DCG at each event row's rank.
pub const IDEAL: &str = "_rk_ideal";

/// `group_rows`' fields: the keys, `rank`, the group's number, every other configured output
/// (a group's sums), each configured term's running sum (by the term's name) and the ideal
/// DCG.
pub fn group_rows_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    let mut fields = graded_fields(kwargs, inputs)?;
    let terms = fields.split_off(fields.len() - config.stats.len());
    fields.push((GROUP.to_string(), "l".to_string()));
    for (name, output) in &config.outputs {
        if !matches!(output, Output::Key(_)) {
            fields.push((name.clone(), "g".to_string()));
        }
    }
    fields.extend(terms);
    fields.push((IDEAL.to_string(), "g".to_string()));
    Ok(fields)
}

/// `group_rows`: `group_sums` and the event rows (`kernel::group_and_event_rows`) from one
/// ranking of each group, as one table: per group, a row at rank 0 with its sums (its terms
/// 0), then its event rows (their sums 0), each with the group's number.
pub fn group_rows(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let parsed = configuration(kwargs)?;
    let (config, score_name) = (&parsed.0, parsed.1.as_str());
    let inputs = read_inputs(config, score_name, columns)?;
    let (groups, events) = kernel::group_and_event_rows(config, &inputs);
    let n_groups = groups.keys.first().map_or(0, Vec::len);
    // Each group's row, then its event rows; `at[r]`: the event row of row r (None: sums).
    let mut rows = Vec::with_capacity(n_groups + events.rows.len());
    let mut at: Vec<Option<usize>> = Vec::with_capacity(rows.capacity());
    let mut next = 0usize;
    for g in 0..n_groups as u32 {
        rows.push((g, 0u32));
        at.push(None);
        while next < events.rows.len() && events.rows[next].0 == g {
            rows.push(events.rows[next]);
            at.push(Some(next));
            next += 1;
        }
    }
    let table = kernel::TermRows { keys: groups.keys, rows, items: Vec::new(), values: Vec::new(), scores: Vec::new() };
    let mut out = row_keys(config, &inputs, &table);
    out.push(OutColumn {
        name: "rank".to_string(),
        data: OutData::I64(table.rows.iter().map(|(_, rank)| i64::from(*rank)).collect()),
    });
    out.push(OutColumn { name: GROUP.to_string(), data: OutData::I64(table.rows.iter().map(|(g, _)| i64::from(*g)).collect()) });
    let n_outputs = config.outputs.len();
    for (j, (name, output)) in config.outputs.iter().enumerate() {
        if matches!(output, Output::Key(_)) {
            continue;
        }
        let data = table.rows.iter().zip(&at).map(|((g, _), row)| match row {
            None => groups.values[*g as usize * n_outputs + j],
            Some(_) => 0.0,
        });
        out.push(OutColumn { name: name.clone(), data: OutData::F64(data.collect()) });
    }
    let n_stats = config.stats.len();
    for (slot, (name, _)) in config.stats.iter().enumerate() {
        let data = at.iter().map(|row| row.map_or(0.0, |r| events.running[r * n_stats + slot]));
        out.push(OutColumn { name: name.clone(), data: OutData::F64(data.collect()) });
    }
    let ideal = at.iter().map(|row| row.map_or(0.0, |r| events.ideal[r]));
    out.push(OutColumn { name: IDEAL.to_string(), data: OutData::F64(ideal.collect()) });
    Ok(out)
}

/// `ranked_items`' fields: the keys (the configured key outputs), the item (under the item
/// column's name, as it was given: integer or text) and `rank`.
pub fn ranked_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    let mut fields = graded_fields(kwargs, inputs)?;
    fields.truncate(fields.len() - 1 - config.stats.len());
    let item = inputs[config.key_kinds.len()].0.clone();
    fields.push((item, key_format(config.item_kind).to_string()));
    fields.push(("rank".to_string(), "l".to_string()));
    fields.push(("score".to_string(), "g".to_string()));
    Ok(fields)
}

/// `ranked_items`: each group's items at ranks 1..K_max, in rank order, ranked as
/// `graded_rows` ranks them (every row: the call declares a term that is never zero), the
/// groups in the order of their keys (`TermRows::in_key_order`).
pub fn ranked_items(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let started = std::time::Instant::now();
    let parsed = configuration(kwargs)?;
    let (config, score_name) = (&parsed.0, parsed.1.as_str());
    let inputs = read_inputs(config, score_name, columns)?;
    let mut found = kernel::term_rows(config, &inputs, config.k_max(), true);
    found.in_key_order(&config.key_kinds, &inputs.keys);
    let mut out = row_keys(config, &inputs, &found);
    let item = &columns[config.key_kinds.len()];
    let named = kernel::Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    out.push(item_column(&item.name, &named, &found.items));
    out.push(OutColumn {
        name: "rank".to_string(),
        data: OutData::I64(found.rows.iter().map(|(_, rank)| i64::from(*rank)).collect()),
    });
    out.push(OutColumn { name: "score".to_string(), data: OutData::F64(found.scores) });
    kernel::timing("ranked items laid out", started);
    Ok(out)
}

/// `item_ranks`' one field: each truth row's place (Int64).
pub fn item_ranks_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    if inputs.len() != parsed.0.n_inputs() {
        return Err(format!("the rankk kernel expects {} input columns, got {}", parsed.0.n_inputs(), inputs.len()));
    }
    Ok(vec![("rank".to_string(), "l".to_string())])
}

/// `item_ranks`: each truth row's place in its group's ranking (`kernel::item_ranks`), the
/// truth rows' grades their numbers from 1, ranked to the configured K_max.
pub fn item_ranks(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let parsed = configuration(kwargs)?;
    let (config, score_name) = (&parsed.0, parsed.1.as_str());
    let inputs = read_inputs(config, score_name, columns)?;
    let n_pairs = inputs.grade.floats().filter(|grade| !grade.is_nan()).count();
    let ranks = kernel::item_ranks(config, &inputs, config.k_max(), n_pairs);
    Ok(vec![OutColumn { name: "rank".to_string(), data: OutData::I64(ranks) }])
}

/// The ranked items as the kernel names them (text up to `Call.item_prefix`).
fn item_column(name: &str, items: &kernel::Items<'_>, handles: &[u64]) -> OutColumn {
    if items.kind == Kind::Integer {
        return key_column(name, Kind::Integer, items.column, handles);
    }
    OutColumn { name: name.to_string(), data: text_data(handles, |handle| items.text(handle)) }
}

/// One group's fields: every configured output, a float.
fn group_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    if inputs.len() != config.n_inputs() {
        return Err(format!(
            "the rankk kernel expects {} input columns, got {}",
            config.n_inputs(),
            inputs.len()
        ));
    }
    Ok(config.outputs.iter().map(|(name, _)| (name.clone(), "g".to_string())).collect())
}

/// One group's input columns (item, score, grade, the missed items' grades, a declared R_g),
/// checked.
fn group_inputs<'a>(config: &Config, columns: &'a [Column<'a>]) -> Result<crate::group::GroupInputs<'a>, String> {
    if columns.len() != config.n_inputs() {
        return Err(format!(
            "the rankk kernel expects {} input columns, got {}",
            config.n_inputs(),
            columns.len()
        ));
    }
    let mut next = 0usize;
    let mut item_kind = config.item_kind;
    let item = if config.has_item {
        next += 1;
        // One group's item column comes as the user gave it: its kind is read off the data.
        item_kind = if columns[0].is_text() {
            Kind::Text
        } else if columns[0].is_integer() {
            Kind::Integer
        } else {
            return Err(format!(
                "column {:?}: the rankk kernel reads integer or string item ids; cast the \
                 column (.cast(pl.String)) or set POLARS_RANKK_NATIVE=0",
                columns[0].name
            ));
        };
        Some(&columns[0])
    } else {
        None
    };
    let (score, grade) = (&columns[next], &columns[next + 1]);
    next += 2;
    for column in [score, grade] {
        if !column.is_float() {
            return Err(format!("column {:?}: the rankk kernel expected Float64 values", column.name));
        }
    }
    if score.len() != grade.len() || item.is_some_and(|i| i.len() != score.len()) {
        return Err(format!("column {:?}: its length differs from the scores'", grade.name));
    }
    let extra = if config.has_extra {
        next += 1;
        Some(&columns[next - 1])
    } else {
        None
    };
    let n_relevant = if config.n_counts >= 1 { Some(&columns[next]) } else { None };
    Ok(crate::group::GroupInputs { item, item_kind, score, grade, extra, n_relevant })
}

/// `grouped_metric_sums`' fields: one group's that the call returns, and whether the truth
/// knows the group.
pub fn grouped_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let returned = configuration(kwargs)?.0.returned.clone();
    let mut fields = group_fields(kwargs, inputs)?;
    fields.retain(|(name, _)| returned.is_empty() || returned.contains(name));
    fields.push((KNOWN.to_string(), "g".to_string()));
    Ok(fields)
}

/// The field of `grouped_metric_sums` saying whether the truth knows the group.
const KNOWN: &str = "_rk_known";

/// `grouped_metric_sums`: every input a list per group (``implode()`` inside a group): the
/// rows' columns (item, score, grade), each group's lists of one length; the missed items'
/// grades and the declared R_g one value per group. One row of sums per group.
pub fn grouped_compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let parsed = configuration(kwargs)?;
    let (config, score_name) = (&parsed.0, parsed.1.as_str());
    let n_lists = 2 + usize::from(config.has_item);
    let mut bounds: Option<Vec<usize>> = None;
    let mut rows = Vec::with_capacity(columns.len());
    for (at, column) in columns.iter().enumerate() {
        let Some((lists, values)) = column.list_values() else {
            return Err(format!("column {:?}: the rankk kernel expected one list per group (implode)", column.name));
        };
        let matches = match &bounds {
            None => true,
            Some(first) if at < n_lists => *first == lists,
            Some(first) => lists.len() == first.len() && lists.iter().enumerate().all(|(g, &end)| end == g),
        };
        if !matches {
            return Err(format!("column {:?}: its groups' lengths differ from the rows'", column.name));
        }
        if at < n_lists {
            bounds = Some(lists);
        }
        rows.push(values);
    }
    let group = group_inputs(config, &rows)?;
    let bounds = bounds.unwrap_or_else(|| vec![0]);
    if bounds.last() != Some(&group.score.len()) {
        return Err(format!("column {:?}: its lists hold fewer values than they say", group.score.name));
    }
    if let Some(extra) = group.extra {
        if !extra.is_float_list() {
            return Err(format!("column {:?}: the rankk kernel expected a list of Float64 values", extra.name));
        }
    }
    let inputs = crate::grouped::GroupedInputs { bounds, group };
    let (values, known) = crate::grouped::grouped_sums(config, score_name, &inputs)?;
    let mut out: Vec<OutColumn> =
        values.into_iter().map(|(name, data)| OutColumn { name, data: OutData::F64(data) }).collect();
    out.push(OutColumn { name: KNOWN.to_string(), data: OutData::F64(known) });
    Ok(out)
}

/// `truth_sums`' fields: the configured outputs (the keys, R, N, the ideal DCG at each K).
pub fn truth_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    if inputs.len() != config.key_kinds.len() + 1 {
        return Err(format!(
            "the rankk kernel's truth sums expect {} input columns (the keys, the grade), got {}",
            config.key_kinds.len() + 1,
            inputs.len()
        ));
    }
    Ok(config
        .all_outputs()
        .map(|(name, output)| {
            let format = match output {
                Output::Key(i) => key_format(config.key_kinds[*i]),
                _ => "g",
            };
            (name.clone(), format.to_string())
        })
        .collect())
}

/// `truth_sums`: the judged truth's rows (keys, a finite grade; one row per group and item),
/// one row per group: R, judged non-relevant count and the ideal DCG at each configured K.
pub fn truth_compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    let n_keys = config.key_kinds.len();
    if columns.len() != n_keys + 1 {
        return Err(format!("the rankk kernel's truth sums expect {} input columns, got {}", n_keys + 1, columns.len()));
    }
    let (keys, rest) = columns.split_at(n_keys);
    for (column, kind) in keys.iter().zip(&config.key_kinds) {
        check_kind(column, *kind)?;
    }
    if !rest[0].is_float() {
        return Err(format!("column {:?}: the rankk kernel expected Float64 values (grade)", rest[0].name));
    }
    let keys: Vec<&Column<'_>> = keys.iter().collect();
    let sums = kernel::truth_sums(config, &keys, &rest[0]);
    let n_groups = sums.keys.first().map_or(0, Vec::len);
    let n_outputs = config.outputs.len();
    Ok(config
        .outputs
        .iter()
        .enumerate()
        .map(|(j, (name, output))| match output {
            Output::Key(i) => key_column(name, config.key_kinds[*i], keys[*i], &sums.keys[*i]),
            _ => OutColumn {
                name: name.clone(),
                data: OutData::F64((0..n_groups).map(|g| sums.values[g * n_outputs + j]).collect()),
            },
        })
        .collect())
}

/// `configuration`'s field: one text, the kernel's reading of the call's `Policy`.
pub fn configuration_fields(kwargs: &[u8], _inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    configuration(kwargs)?;
    Ok(vec![("policy".to_string(), key_format(Kind::Text).to_string())])
}

/// `configuration`: the `Policy` the kernel deserialized from the call's kwargs (its `Debug`
/// text), for the test that every field sent changes what the kernel reads.
pub fn configuration_text(kwargs: &[u8], _columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let parsed = configuration(kwargs)?;
    let config = &parsed.0;
    let text = format!("{:?}", config.policy);
    let offsets = vec![0, text.len() as i64];
    Ok(vec![OutColumn { name: "policy".to_string(), data: OutData::Text { offsets, bytes: text.into_bytes() } }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_kwargs_once_per_thread() {
        let bytes = include_bytes!("../tests/kwargs.pickle");
        let first = configuration(bytes).unwrap();
        assert!(Rc::ptr_eq(&first, &configuration(bytes).unwrap()));
        let fresh = config::from_kwargs(bytes).unwrap();
        assert_eq!((&first.0.policy, &first.1), (&fresh.0.policy, &fresh.1));
        assert!(configuration(b"\x80\x05}\x94.").is_err());
        assert!(Rc::ptr_eq(&first, &configuration(bytes).unwrap()));
    }
}
